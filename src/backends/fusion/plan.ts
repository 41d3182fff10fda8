import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import {
  fusedProgram,
  type FusedCall,
  type FusedInput,
  type FusedInstr,
  type FusedOutput,
} from '../../backend/fusion/program.js';
import { replayFused } from '../../backend/fusion/replay.js';
import { BurnError } from '../../core/errors.js';
import { numel, sameShape } from '../../core/shape.js';
import { pendingSize, toLeaf, type Node } from './node.js';

/** Counters of the fusion decorator (see `FusionBackend.stats`). */
export interface FusionStats {
  /** Fused programs run (one per materialized block). */
  programs: number;
  /** Programs the inner backend ran as one kernel (`Backend.fused`). */
  fused: number;
  /** Programs replayed op by op (`replayFused`) because the inner backend has no kernel for them. */
  replays: number;
  /** Pending nodes computed (by programs, single ops, fills and expands). */
  materialized: number;
  /** Blocks of one op over computed inputs, run as the inner backend's own op (its tuned kernel, no program). */
  direct: number;
}

/** What the planner uses of the decorator: the inner backend, its counters, and how to free a primitive. */
export interface FusionCore<P extends TensorPrimitive> {
  readonly inner: Backend<P>;
  readonly stats: FusionStats;
  free(p: P): void;
}

/**
 * `out`, an inner op's result on `input`, as a handle of its own: inner ops may return their input
 * as is (a cast to the same dtype, a no-op view), and each leaf must own its primitive.
 */
export function own<P extends TensorPrimitive>(core: FusionCore<P>, input: P, out: P): P {
  return out === input ? (core.inner.retain?.(out) ?? out) : out;
}

/** The iteration space of a program with reductions: the full shape and the reduced dims. */
interface Space {
  readonly full: readonly number[];
  readonly dims: readonly number[];
  readonly row: readonly number[];
}

/**
 * Computes a pending node: builds ONE fused program for its DAG (cutting where a part does not
 * fit the iteration space or the binding limit: those parts are computed first, as their own
 * programs), runs it on the inner backend (`fused`, else `replayFused`) and turns the node into a
 * leaf over the output. Shared reductions computed on the way are kept as leaves too.
 */
export function materialize<P extends TensorPrimitive>(core: FusionCore<P>, node: Node<P>): void {
  const { inner } = core;
  switch (node.kind) {
    case 'leaf':
      return;
    case 'scalar':
      core.stats.materialized++;
      toLeaf(node, inner.fill(node.shape, node.value, node.dtype), core.free, true);
      return;
    case 'bcast': {
      const r = node.args[0]!;
      materialize(core, r);
      core.stats.materialized++;
      toLeaf(node, own(core, r.p!, inner.expand(r.p!, node.shape)), core.free);
      return;
    }
    default:
  }
  if (node.kind === 'op' && numel(node.shape) === 0) {
    core.stats.materialized++;
    toLeaf(node, inner.fill(node.shape, 0, node.dtype), core.free, true);
    return;
  }
  let single = direct(inner, node);
  if (single !== undefined) {
    const out = single;
    const input = node.args.find((a) => a.p === out);
    if (input !== undefined) single = own(core, input.p!, out);
    core.stats.direct++;
    core.stats.materialized++;
    toLeaf(node, single, core.free, input === undefined);
    return;
  }
  storeComparedValues(core, node);
  const limit = inner.maxFusedBindings ?? Number.POSITIVE_INFINITY;
  for (;;) {
    const space = chooseSpace(core, node);
    const built = build(core, node, space);
    // Every reduction was computed on the way (as a shared part of a cut): choose again.
    if (built === undefined) continue;
    if (built.inputs.length + built.outputs.length > limit) {
      built.dispose();
      const cut = largestPending(node);
      if (cut === undefined)
        throw new BurnError(
          'fusion',
          `one op needs ${built.inputs.length + built.outputs.length} bindings; the backend allows ${limit}`,
        );
      materialize(core, cut);
      continue;
    }
    run(core, node, space, built);
    return;
  }
}

/**
 * A block that is one op over computed inputs (and a scalar rhs) is the inner backend's own op: the
 * same values (the IR is defined by these ops), its tuned kernel, and no program to build.
 */
function direct<P extends TensorPrimitive>(inner: Backend<P>, n: Node<P>): P | undefined {
  const leaf = (k: number) => (n.args[k]?.kind === 'leaf' ? n.args[k].p : undefined);
  const scalar = (k: number) => (n.args[k]?.kind === 'scalar' ? n.args[k].value : undefined);
  if (n.kind === 'reduce') {
    const x = leaf(0);
    return x && inner.reduce(n.rop!, x, n.dims);
  }
  const op = n.op;
  if (n.kind !== 'op' || op === undefined) return undefined;
  const x = leaf(0);
  if (x === undefined) return undefined;
  switch (op.kind) {
    case 'unary':
      return inner.unary(op.op, x);
    case 'predicate':
      return inner.predicate(op.op, x);
    case 'cast':
      return inner.cast(x, n.dtype);
    case 'binary':
    case 'compare': {
      const y = leaf(1),
        s = scalar(1);
      if (y !== undefined) return op.kind === 'binary' ? inner.binary(op.op, x, y) : inner.compare(op.op, x, y);
      if (s === undefined) return undefined;
      return op.kind === 'binary' ? inner.binaryScalar(op.op, x, s) : inner.compareScalar(op.op, x, s);
    }
    case 'where': {
      const a = leaf(1),
        b = leaf(2),
        s = scalar(1);
      if (a !== undefined && b !== undefined) return inner.where(x, a, b);
      // `c ? value : b` is maskFill, a single pass on the engines.
      return s !== undefined && b !== undefined ? inner.maskFill(b, x, s) : undefined;
    }
  }
}

/**
 * The iteration space of `root`: none (pure elementwise) without reductions, else the space of its
 * first reduction, where the root is element-level (the reduction's arg shape) or row-level; a
 * reduction that leaves the root in neither is computed first.
 */
function chooseSpace<P extends TensorPrimitive>(core: FusionCore<P>, root: Node<P>): Space | undefined {
  for (;;) {
    const r = root.kind === 'reduce' ? root : firstReduce(core, root);
    if (r === undefined) return undefined;
    const full = r.args[0]!.shape;
    const row = r.shape;
    if (r === root || sameShape(root.shape, full) || sameShape(root.shape, row)) return { full, dims: r.dims, row };
    materialize(core, r);
  }
}

/** The first pending reduce node under `root` (depth first, not through leaves). */
function firstReduce<P extends TensorPrimitive>(core: FusionCore<P>, root: Node<P>): Node<P> | undefined {
  const seen = new Set<Node<P>>();
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x) || x.kind === 'leaf' || x.kind === 'scalar') continue;
    seen.add(x);
    if (x.kind === 'reduce') return x;
    if (x.kind === 'bcast' && x.args[0]!.kind === 'leaf') {
      // A reduction computed earlier: its broadcast is a view of the row values.
      materialize(core, x);
      continue;
    }
    for (let i = x.args.length - 1; i >= 0; i--) stack.push(x.args[i]!);
  }
  return undefined;
}

/** The pending arg subtree with the most distinct leaves (the part to compute first when a program binds too much). */
function largestPending<P extends TensorPrimitive>(root: Node<P>): Node<P> | undefined {
  let best: Node<P> | undefined;
  let bestCount = 0;
  const seen = new Set<Node<P>>();
  const visit = (x: Node<P>) => {
    if (seen.has(x) || x.kind === 'leaf' || x.kind === 'scalar') return;
    seen.add(x);
    if (x !== root) {
      const count = leafCount(x);
      if (count > bestCount) {
        best = x;
        bestCount = count;
      }
    }
    for (const a of x.args) visit(a);
  };
  visit(root);
  return bestCount > 1 ? best : undefined;
}

function leafCount<P extends TensorPrimitive>(n: Node<P>): number {
  const leaves = new Set<P>();
  const seen = new Set<Node<P>>();
  const stack = [n];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x)) continue;
    seen.add(x);
    if (x.kind === 'leaf') leaves.add(x.p!);
    else stack.push(...x.args);
  }
  return leaves.size;
}

interface Built<P extends TensorPrimitive> {
  readonly inputs: FusedInput[];
  readonly prims: P[];
  readonly scalars: number[];
  readonly instrs: FusedInstr[];
  readonly outputs: FusedOutput[];
  /** The reduce nodes kept as extra row outputs (after the root's output). */
  readonly memo: Node<P>[];
  readonly outer: number[];
  readonly inner: number[];
  /** The permutation applied to element inputs (undefined: none). */
  readonly perm: number[] | undefined;
  dispose(): void;
}

/** Builds the program of `root` in `space`, cutting what does not fit. */
function build<P extends TensorPrimitive>(
  core: FusionCore<P>,
  root: Node<P>,
  space: Space | undefined,
): Built<P> | undefined {
  const { inner } = core;
  let perm: number[] | undefined;
  let outer: number[];
  let innerDims: number[];
  if (space === undefined) {
    outer = [...root.shape];
    innerDims = [];
  } else {
    const kept = space.full.map((_, d) => d).filter((d) => !space.dims.includes(d));
    const order = [...kept, ...space.dims];
    if (order.some((d, i) => d !== i)) perm = order;
    outer = kept.map((d) => space.full[d]!);
    innerDims = space.dims.map((d) => space.full[d]!);
  }
  const inputs: FusedInput[] = [];
  const prims: P[] = [];
  const temps: P[] = [];
  const scalars: number[] = [];
  const instrs: FusedInstr[] = [];
  const values = new Map<Node<P>, number>();
  const inputOf = new Map<P, number>();
  const memo: Node<P>[] = [];
  const push = (instr: FusedInstr) => instrs.push(instr) - 1;
  // References of each pending node from inside this DAG: a node with more references is also held
  // outside it (a handle, another pending DAG) and will be read again.
  const internal = internalRefs(root);
  const sharedCostly = (n: Node<P>): boolean =>
    n.kind === 'op' &&
    !emitting.has(n) &&
    n.refs > (internal.get(n) ?? 0) &&
    hasInexactOp(n) &&
    pendingSize(n, COSTLY_NODES) >= COSTLY_NODES;
  const isFull = (s: readonly number[]) => space === undefined || sameShape(s, space.full);
  const isRow = (s: readonly number[]) => space !== undefined && sameShape(s, space.row);
  const fits = (n: Node<P>): boolean => {
    switch (n.kind) {
      case 'leaf':
      case 'scalar':
        return true;
      case 'op':
        return space === undefined ? sameShape(n.shape, root.shape) : isFull(n.shape) || isRow(n.shape);
      case 'reduce':
        return (
          space !== undefined &&
          sameShape(n.args[0]!.shape, space.full) &&
          n.dims.length === space.dims.length &&
          n.dims.every((d, i) => d === space.dims[i])
        );
      case 'bcast':
        return space !== undefined && isFull(n.shape) && fits(n.args[0]!);
    }
  };
  const emit = (n: Node<P>): number => {
    const known = values.get(n);
    if (known !== undefined) return known;
    // A costly value that is read again later, in a permuted space (a column reduction: the bias
    // gradient of a GELU layer), is computed first by a dense program of its own, which the later
    // readers then load instead of recomputing it (a permuted program's stores would scatter).
    if (n !== root && (!fits(n) || (perm !== undefined && sharedCostly(n)))) materialize(core, n);
    if (n.kind === 'bcast' && n.args[0]!.kind === 'leaf') materialize(core, n);
    let v: number;
    switch (n.kind) {
      case 'leaf': {
        const p = n.p!;
        let input = inputOf.get(p);
        if (input === undefined) {
          const level = isFull(n.shape) ? 'element' : 'row';
          let q = p;
          if (level === 'element' && perm !== undefined) q = inner.permute(p, perm);
          else if (level === 'row') q = inner.reshape(p, outer);
          if (q !== p) temps.push(q);
          input = inputs.push({ dtype: n.dtype, level }) - 1;
          prims.push(q);
          inputOf.set(p, input);
        }
        v = push({ kind: 'load', input, dtype: n.dtype });
        break;
      }
      case 'scalar':
        v = push({ kind: 'scalar', index: scalars.push(n.value) - 1, dtype: n.dtype });
        break;
      case 'bcast':
        // Row values broadcast along the row: the same value id.
        v = emit(n.args[0]!);
        break;
      case 'reduce': {
        const x = emit(n.args[0]!);
        v = push({ kind: 'reduce', op: n.rop!, x, dtype: n.dtype });
        if (n !== root && n.refs > 1) memo.push(n);
        break;
      }
      case 'op': {
        const op = n.op!;
        const a = n.args.map(emit);
        switch (op.kind) {
          case 'unary':
            v = push({ kind: 'unary', op: op.op, x: a[0]!, dtype: n.dtype });
            break;
          case 'predicate':
            v = push({ kind: 'predicate', op: op.op, x: a[0]!, dtype: n.dtype });
            break;
          case 'binary':
            v = push({ kind: 'binary', op: op.op, x: a[0]!, y: a[1]!, dtype: n.dtype });
            break;
          case 'compare':
            v = push({ kind: 'compare', op: op.op, x: a[0]!, y: a[1]!, dtype: n.dtype });
            break;
          case 'where':
            v = push({ kind: 'where', c: a[0]!, x: a[1]!, y: a[2]!, dtype: n.dtype });
            break;
          case 'cast':
            v = push({ kind: 'cast', x: a[0]!, dtype: n.dtype });
            break;
        }
        emitted.push(n);
        emitting.add(n);
        break;
      }
    }
    values.set(n, v);
    return v;
  };
  if (space !== undefined) elementArgs(core, root, space);
  const emitted: Node<P>[] = [];
  let rootValue: number;
  try {
    rootValue = emit(root);
  } finally {
    for (const n of emitted) emitting.delete(n);
  }
  if (space !== undefined && !instrs.some((i) => i.kind === 'reduce')) {
    for (const t of temps) core.free(t);
    return undefined;
  }
  const outputs: FusedOutput[] = [{ value: rootValue }];
  const used = new Set([rootValue]);
  const kept: Node<P>[] = [];
  for (const r of memo) {
    const value = values.get(r)!;
    if (used.has(value)) continue;
    used.add(value);
    outputs.push({ value });
    kept.push(r);
  }
  return {
    inputs,
    prims,
    scalars,
    instrs,
    outputs,
    memo: kept,
    outer,
    inner: innerDims,
    perm,
    dispose: () => {
      for (const t of temps) core.free(t);
    },
  };
}

/**
 * Makes the arg of every reduction of the space element-level: an arg made only of row values
 * and scalars (a broadcast row summed again, `ones(shape).sum()`) would reduce a row-level value,
 * which the IR does not have; such an arg is computed first (an expanded view of its row values).
 */
function elementArgs<P extends TensorPrimitive>(core: FusionCore<P>, root: Node<P>, space: Space): void {
  for (;;) {
    const level = new Map<Node<P>, boolean>();
    // True for element-level nodes (as the IR assigns levels: loads of full-shape inputs, and ops over them).
    const isElement = (n: Node<P>): boolean => {
      const known = level.get(n);
      if (known !== undefined) return known;
      let e: boolean;
      if (n.kind === 'leaf') e = sameShape(n.shape, space.full);
      else if (n.kind === 'op') e = n.args.some(isElement);
      else e = false;
      level.set(n, e);
      return e;
    };
    const seen = new Set<Node<P>>();
    const stack = [root];
    let bad: Node<P> | undefined;
    while (stack.length > 0 && bad === undefined) {
      const x = stack.pop()!;
      if (seen.has(x) || x.kind === 'leaf' || x.kind === 'scalar') continue;
      seen.add(x);
      if (x.kind === 'reduce' && sameShape(x.args[0]!.shape, space.full) && !isElement(x.args[0]!)) bad = x.args[0]!;
      stack.push(...x.args);
    }
    if (bad === undefined) return;
    materialize(core, bad);
  }
}

/** Runs a built program and turns `root` (and the kept reductions) into leaves. */
function run<P extends TensorPrimitive>(
  core: FusionCore<P>,
  root: Node<P>,
  space: Space | undefined,
  built: Built<P>,
): void {
  const { inner, stats } = core;
  const program = fusedProgram({
    inputs: built.inputs,
    scalars: built.scalars.length,
    instrs: built.instrs,
    outputs: built.outputs,
  });
  const call: FusedCall<P> = {
    program,
    outer: built.outer,
    inner: built.inner,
    inputs: built.prims,
    scalars: built.scalars,
  };
  stats.programs++;
  let outs = inner.fused?.(call);
  if (outs === undefined) {
    stats.replays++;
    outs = replayFused(inner, call, { idioms: true });
  } else stats.fused++;
  built.dispose();
  const inverse = built.perm && invert(built.perm);
  // A view of an output replaces it (the output's own handle is freed unless the view is it).
  const swap = (old: P, next: P): P => {
    if (next !== old) core.free(old);
    return next;
  };
  const fix = (out: P, level: 'element' | 'row', shape: readonly number[]): P => {
    if (level === 'element') return inverse === undefined ? out : swap(out, inner.permute(out, inverse));
    if (space === undefined) return out;
    const v = swap(out, inner.reshape(out, space.row));
    return sameShape(shape, space.row) ? v : swap(v, inner.expand(v, shape));
  };
  // Outputs are dense unless permuted back or expanded from a row.
  const rootLevel = program.levels[built.outputs[0]!.value]!;
  const rootDense =
    rootLevel === 'element' ? inverse === undefined : space === undefined || sameShape(root.shape, space.row);
  // The kept reductions first: releasing the root's DAG may drop their last reference, which must
  // then free their new leaves.
  built.memo.forEach((r, i) => {
    stats.materialized++;
    toLeaf(r, fix(outs[i + 1]!, 'row', r.shape), core.free, true);
  });
  stats.materialized++;
  toLeaf(root, fix(outs[0]!, rootLevel, root.shape), core.free, rootDense);
}

/**
 * A max/min is compared with the values it came from (the gradient's `x == max` mask, a user's
 * `x.eq(x.max())`): those values are stored, not recomputed later by another kernel whose
 * transcendentals may round differently by an ulp. Done before a program is built, so no leaf the
 * program loads is released under it.
 */
function storeComparedValues<P extends TensorPrimitive>(core: FusionCore<P>, root: Node<P>): void {
  const seen = new Set<Node<P>>();
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x) || x.kind === 'leaf' || x.kind === 'scalar') continue;
    seen.add(x);
    const arg = x.args[0];
    if (x.kind === 'reduce' && (x.rop === 'max' || x.rop === 'min') && arg !== undefined && hasInexactOp(arg)) {
      materialize(core, arg);
      continue;
    }
    stack.push(...x.args);
  }
}

/**
 * Ops whose results every implementation rounds the same way (IEEE's correctly rounded
 * arithmetic, comparisons, selection, casts, integer and bit ops); the rest (exp, erf, tanh, pow, …)
 * may differ by an ulp between the engines' kernels and the generated code.
 */
const EXACT_UNARY: ReadonlySet<string> = new Set([
  'neg',
  'abs',
  'sign',
  'sqrt',
  'recip',
  'round',
  'floor',
  'ceil',
  'trunc',
  'not',
]);
const EXACT_BINARY: ReadonlySet<string> = new Set([
  'add',
  'sub',
  'mul',
  'div',
  'max',
  'min',
  'and',
  'or',
  'xor',
  'shl',
  'shr',
]);

/** True when `n`'s pending DAG has an op whose result may depend on the kernel that computes it. */
function hasInexactOp<P extends TensorPrimitive>(n: Node<P>): boolean {
  return walkPending(n, (x) => {
    const op = x.op;
    if (x.kind !== 'op' || op === undefined) return false;
    return (op.kind === 'unary' && !EXACT_UNARY.has(op.op)) || (op.kind === 'binary' && !EXACT_BINARY.has(op.op));
  });
}

/** Visits the distinct pending nodes of `root`'s DAG (not leaves, not scalars) depth first; a visit returning true stops the walk (and makes the result true). */
function walkPending<P extends TensorPrimitive>(root: Node<P>, visit: (x: Node<P>) => boolean): boolean {
  const seen = new Set<Node<P>>();
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x) || x.kind === 'leaf' || x.kind === 'scalar') continue;
    seen.add(x);
    if (visit(x)) return true;
    stack.push(...x.args);
  }
  return false;
}

/**
 * Pending nodes from which a shared value with a transcendental is worth computing once, densely,
 * before a permuted program that would recompute it: a GELU backward is 20 (its bias gradient, a
 * column sum, and the input gradient's matmul both read it), a softmax 9 (kept in one program: a
 * handle a user has not dropped yet looks shared too).
 */
const COSTLY_NODES = 16;

/** The op nodes the builds in progress have emitted (a build nested in another, for a cut, must not compute them apart). */
const emitting = new Set<Node>();

/** How many times each pending node of `root`'s DAG is an arg inside it. */
function internalRefs<P extends TensorPrimitive>(root: Node<P>): Map<Node<P>, number> {
  const refs = new Map<Node<P>, number>();
  walkPending(root, (x) => {
    for (const a of x.args) refs.set(a, (refs.get(a) ?? 0) + 1);
    return false;
  });
  return refs;
}

function invert(perm: readonly number[]): number[] {
  const inv = new Array<number>(perm.length);
  perm.forEach((p, i) => {
    inv[p] = i;
  });
  return inv;
}
