import type { Backend, TensorPrimitive } from '../backend.js';
import { type FusedIdiom, fusedIdioms, idiomApplies } from './idioms.js';
import { fusedOutputShape, instrArgs, type FusedCall, type FusedInstr } from './program.js';

/** Options of {@link replayFused}. */
export interface ReplayOptions {
  /**
   * Run the composite ops found in the program (softmax, log-softmax, relu and its backward:
   * idioms.ts) as the backend's own kernels, as the unfused device would, instead of their
   * primitive formulas. Off for the IR's reference semantics.
   */
  readonly idioms?: boolean;
}

/**
 * Runs a fused program op by op with `backend`'s own ops: the reference semantics of the IR, and
 * the fallback of the fusion decorator where the backend has no fused kernel (`Backend.fused`
 * declined or is absent). Intermediates it creates are disposed as soon as they are dead; an
 * output that is an input is returned as a second handle (`retain`). Each output is a new handle,
 * so a program must not list one value twice.
 */
export function replayFused<P extends TensorPrimitive>(
  backend: Backend<P>,
  call: FusedCall<P>,
  options: ReplayOptions = {},
): P[] {
  const { program, outer, inner, inputs, scalars } = call;
  const { instrs } = program;
  const roots = new Map<number, FusedIdiom>();
  const covered = new Set<number>();
  if (options.idioms) {
    for (const idiom of fusedIdioms(program)) {
      if (!idiomApplies(idiom, program, scalars)) continue;
      roots.set(idiom.root, idiom);
      for (const v of idiom.covered) covered.add(v);
    }
  }
  /** The value of a binary's scalar rhs (binaryScalar's), or undefined when `y` is no scalar. */
  const scalarRhs = (y: number): number | undefined => {
    const s = instrs[y]!;
    return s.kind === 'scalar' ? scalars[s.index] : undefined;
  };
  // What each instruction reads here: an idiom's root reads its operands, what it covers nothing;
  // a binary with a scalar rhs only its lhs.
  const argsOf = (instr: FusedInstr, i: number): number[] => {
    const idiom = roots.get(i);
    if (idiom) return idiom.kind === 'relu' ? [idiom.x, idiom.grad] : [idiom.x];
    if (covered.has(i)) return [];
    if (instr.kind === 'binary' && scalarRhs(instr.y) !== undefined) return [instr.x];
    return instrArgs(instr);
  };
  const innerDims = inner.map((_, i) => outer.length + i);
  const rowShape = [...outer, ...inner.map(() => 1)];
  const values: (P | undefined)[] = [];
  // Values the replay made (not inputs, not outputs) are disposed after their last use.
  const lastUse = new Array<number>(instrs.length).fill(-1);
  instrs.forEach((instr, i) => {
    for (const a of argsOf(instr, i)) lastUse[a] = i;
  });
  const isOutput = new Set(program.outputs.map((o) => o.value));
  const owned = new Set<number>();
  const fill = (value: number, dtype: P['dtype']) => backend.fill([], value, dtype);
  for (let i = 0; i < instrs.length; i++) {
    const instr = instrs[i]!;
    // Values inside an idiom, and those only an idiom read (a relu's zeros), are not computed.
    if (covered.has(i) || (lastUse[i] === -1 && !isOutput.has(i))) {
      values.push(undefined);
      continue;
    }
    const idiom = roots.get(i);
    let v: P;
    if (idiom) v = runIdiom(backend, idiom, values, outer.length, inner);
    else
      switch (instr.kind) {
        case 'load': {
          const x = inputs[instr.input]!;
          v = program.levels[i] === 'row' && inner.length > 0 ? backend.reshape(x, rowShape) : x;
          break;
        }
        case 'scalar':
          v = fill(scalars[instr.index]!, instr.dtype);
          break;
        case 'unary':
          v = backend.unary(instr.op, values[instr.x]!);
          break;
        case 'predicate':
          v = backend.predicate(instr.op, values[instr.x]!);
          break;
        case 'binary':
          v = binaryOf(backend, instr.op, values[instr.x]!, values[instr.y], scalarRhs(instr.y));
          break;
        case 'compare':
          v = backend.compare(instr.op, values[instr.x]!, values[instr.y]!);
          break;
        case 'where':
          v = backend.where(values[instr.c]!, values[instr.x]!, values[instr.y]!);
          break;
        case 'cast':
          v = backend.cast(values[instr.x]!, instr.dtype);
          break;
        case 'reduce':
          v = backend.reduce(instr.op, values[instr.x]!, innerDims);
          break;
      }
    // A backend op may hand back its operand (a cast to the same dtype, a no-op view): an input is
    // not the replay's to dispose; an intermediate handed back lives on under the new id.
    if (!inputs.includes(v)) owned.add(i);
    values.push(v);
    for (const a of new Set(argsOf(instr, i))) {
      const obj = values[a]!;
      if (lastUse[a] !== i || !owned.has(a) || isOutput.has(a)) continue;
      // The same handle may live on under another value id (returned as is by a later op).
      const alive = values.some((w, j) => w === obj && j !== a && (lastUse[j]! > i || isOutput.has(j)));
      if (!alive) backend.dispose?.(obj);
    }
  }
  const returned = new Set<P>();
  const outs = program.outputs.map((o, k) => {
    const v = values[o.value]!;
    const shape = fusedOutputShape(call, k);
    const sameShape = v.shape.length === shape.length && v.shape.every((s, d) => s === shape[d]);
    if (sameShape) {
      // Each output is a handle of its own: an input, or a handle already returned, is retained.
      const fresh = owned.has(o.value) && !returned.has(v);
      returned.add(v);
      return fresh ? v : (backend.retain?.(v) ?? v);
    }
    // A row value stored per row, or a value that did not reach the full shape (a scalar output).
    const numel = v.shape.reduce((a, s) => a * s, 1);
    const target = shape.reduce((a, s) => a * s, 1);
    return numel === target ? backend.reshape(v, shape) : backend.expand(v, shape);
  });
  return outs;
}

/** An idiom as the backend's kernel over the inner dims (flattened to one when there are several). */
function runIdiom<P extends TensorPrimitive>(
  backend: Backend<P>,
  idiom: FusedIdiom,
  values: readonly (P | undefined)[],
  outerRank: number,
  inner: readonly number[],
): P {
  const x = values[idiom.x]!;
  if (idiom.kind === 'relu')
    return idiom.grad === idiom.x ? backend.relu(x) : backend.reluBackward(x, values[idiom.grad]!);
  const row = (p: P) => (idiom.kind === 'softmax' ? backend.softmax(p, outerRank) : backend.logSoftmax(p, outerRank));
  if (inner.length === 1) return row(x);
  const full = x.shape;
  const flat = backend.reshape(x, [...full.slice(0, outerRank), inner.reduce((a, s) => a * s, 1)]);
  const y = row(flat);
  if (flat !== x) backend.dispose?.(flat);
  const out = backend.reshape(y, full);
  if (out !== y) backend.dispose?.(y);
  return out;
}

function binaryOf<P extends TensorPrimitive>(
  backend: Backend<P>,
  op: Parameters<Backend<P>['binary']>[0],
  x: P,
  y: P | undefined,
  scalar: number | undefined,
): P {
  // A scalar rhs goes through binaryScalar, the op the decorator recorded (its value is never made).
  return scalar !== undefined ? backend.binaryScalar(op, x, scalar) : backend.binary(op, x, y!);
}
