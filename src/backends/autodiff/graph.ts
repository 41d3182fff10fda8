import { Gradients } from '../../backend/autodiff.js';
import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import { dtypeSize } from '../../core/dtype.js';
import { BurnError, check } from '../../core/errors.js';
import { numel } from '../../core/shape.js';

/**
 * The autodiff graph. Every tracked tensor points at a {@link Node}; a node knows its parents
 * (one per differentiable input), the backward rule, and the values the rule reads, by name. Values are
 * kept either as primitives, or — under gradient checkpointing, for memory-bound ops — as a
 * reference to the producing node, which recomputes them during the backward pass.
 */

/**
 * How an op's cost is bound, which decides what gradient checkpointing does with it (Burn's
 * `ComputeBound`/`MemoryBound`): a memory-bound op (elementwise, layout, reductions) is cheap to
 * run again, so under checkpointing its node keeps its inputs and recomputes its output during the
 * backward pass instead of keeping it; a compute-bound op (matmul, conv, sort) always keeps the
 * values its backward reads. Without checkpointing both keep their values.
 */
export type Cost = 'memory-bound' | 'compute-bound';

/** A kept value: the primitive itself, or the node that can recompute it. */
export type Stored = TensorPrimitive | Node;

/** The values a backward rule reads, by the names its op saved them under. */
export type Saved<K extends string = string> = { readonly [N in K]: TensorPrimitive };

/**
 * A backward rule: the gradients of the inputs, one per input in order (undefined where none
 * flows), from the output's gradient and the saved values. `needs[i]` tells whether input i is
 * tracked, so a rule can skip work nobody reads. A saved value is read (and, under checkpointing,
 * recomputed) only when the rule touches it.
 */
export type Backward<K extends string = string> = (
  grad: TensorPrimitive,
  saved: Saved<K>,
  needs: readonly boolean[],
) => readonly (TensorPrimitive | undefined)[];

/** What a {@link Node} is made of. */
export interface NodeOptions {
  /** The nodes of the inputs (undefined for untracked inputs); empty for leaves. */
  readonly parents: readonly (Node | undefined)[];
  /** The backward rule; undefined for leaves. */
  readonly backward?: Backward;
  /** The values the rule reads, by name. */
  readonly saved?: Readonly<Record<string, Stored>>;
  /** Recomputes this node's output from `inputs` (checkpointed memory-bound ops only). */
  readonly forward?: (inputs: TensorPrimitive[]) => TensorPrimitive;
  /** The inputs `forward` reads (kept only when the node is recomputable). */
  readonly inputs?: readonly Stored[];
  /** How the op's cost is bound (see {@link Cost}). */
  readonly cost: Cost;
  /** A leaf: a tensor whose gradient the user asked for. */
  readonly leaf?: boolean;
}

let nextId = 1;

/** One recorded op (or a leaf that requires grad). */
export class Node {
  /** Stable id; gradients are keyed by it. */
  readonly id = nextId++;
  /** The nodes of the inputs (undefined for untracked inputs); empty for leaves and after the graph was freed. */
  parents: readonly (Node | undefined)[];
  /** The backward rule; undefined for leaves and after the graph was freed. */
  backward: Backward | undefined;
  /** Values the rule reads, by name. */
  saved: Readonly<Record<string, Stored>>;
  /** Recomputes this node's output from `inputs` (checkpointed memory-bound ops only). */
  forward: ((inputs: TensorPrimitive[]) => TensorPrimitive) | undefined;
  /** The inputs `forward` reads (kept only when the node is recomputable). */
  inputs: readonly Stored[];
  /** How the op's cost is bound. */
  readonly cost: Cost;
  /** Whether this is a leaf. */
  readonly leaf: boolean;
  /** Recomputed output, cached during one backward pass. */
  private cached: TensorPrimitive | undefined;

  constructor(options: NodeOptions) {
    this.parents = options.parents;
    this.backward = options.backward;
    this.saved = options.saved ?? {};
    this.forward = options.forward;
    this.inputs = options.inputs ?? [];
    this.cost = options.cost;
    this.leaf = options.leaf ?? false;
  }

  /** A leaf: a tensor whose gradient the user asked for. */
  static leaf(): Node {
    return new Node({ parents: [], cost: 'compute-bound', leaf: true });
  }

  /** The recomputed output while a backward pass holds it. */
  get cachedValue(): TensorPrimitive | undefined {
    return this.cached;
  }

  /** This node's output value, recomputed (once per backward pass) when it was not kept. */
  value(): TensorPrimitive {
    const forward = this.forward;
    if (!forward) throw new BurnError('backward', `node ${this.id} cannot recompute its value (graph already freed)`);
    this.cached ??= forward(this.inputs.map(read));
    return this.cached;
  }

  /**
   * Drops the rule and every kept value, freeing the graph behind this node; `dispose` releases
   * the kept primitives' memory on backends that count references (WebGPU).
   */
  release(dispose?: (p: TensorPrimitive) => void): void {
    if (dispose) {
      for (const s of [...Object.values(this.saved), ...this.inputs]) if (!(s instanceof Node)) dispose(s);
      if (this.cached) dispose(this.cached);
    }
    this.backward = undefined;
    this.saved = {};
    this.forward = undefined;
    this.inputs = [];
    this.cached = undefined;
    this.parents = [];
  }
}

/** True when `p` is one of the values `saved` keeps (a primitive, or a recomputed node's cached output). */
function isKept(saved: Readonly<Record<string, Stored>>, p: TensorPrimitive): boolean {
  return Object.values(saved).some((s) => (s instanceof Node ? s.cachedValue === p : s === p));
}

/** Reads a kept value. */
export function read(s: Stored): TensorPrimitive {
  return s instanceof Node ? s.value() : s;
}

/** The saved values as a rule reads them: each read (recomputed under checkpointing) on first access only. */
function savedView(saved: Readonly<Record<string, Stored>>): Saved {
  const view: Record<string, TensorPrimitive> = {};
  for (const [name, s] of Object.entries(saved))
    Object.defineProperty(view, name, { get: () => read(s), enumerable: true });
  return view;
}

/** Nodes reachable from `root`, parents before children. */
function topologicalOrder(root: Node): Node[] {
  const order: Node[] = [];
  const seen = new Set<Node>([root]);
  const stack: [Node, number][] = [[root, 0]];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const [node, i] = top;
    if (i < node.parents.length) {
      top[1] = i + 1;
      const p = node.parents[i];
      if (p && !seen.has(p)) {
        seen.add(p);
        stack.push([p, 0]);
      }
    } else {
      stack.pop();
      order.push(node);
    }
  }
  return order;
}

/**
 * Runs the backward pass from `root` (seeded with ones, as Burn does for non-scalar outputs),
 * accumulates the gradients of every leaf, and frees the graph.
 */
export function runBackward(
  root: Node,
  rootShape: readonly number[],
  rootDType: TensorPrimitive['dtype'],
  inner: Backend,
): Gradients {
  const order = topologicalOrder(root);
  // Only a backend that counts references can release a gradient it may share with a view.
  const release = inner.dispose && inner.retain ? inner.dispose.bind(inner) : undefined;
  const retain = (p: TensorPrimitive): TensorPrimitive => inner.retain?.(p) ?? p;
  const pending = new Map<Node, TensorPrimitive>([[root, inner.fill(rootShape, 1, rootDType)]]);
  const result = new Gradients();
  try {
    for (let k = order.length - 1; k >= 0; k--) {
      const node = order[k]!;
      const grad = pending.get(node);
      if (grad === undefined) continue;
      pending.delete(node);
      if (node.leaf) {
        result.set(node.id, grad);
        continue;
      }
      const backward = node.backward;
      if (!backward)
        throw new BurnError('backward', 'the graph behind this tensor was already freed by an earlier backward()');
      const saved = node.saved;
      const parentGrads = backward(
        grad,
        savedView(saved),
        node.parents.map((p) => p !== undefined),
      );
      // A missing entry would drop an input's gradient silently (a custom op's rule most likely).
      check(
        parentGrads.length === node.parents.length,
        'backward',
        () =>
          `the rule of node ${node.id} returned ${parentGrads.length} gradient(s) for ${node.parents.length} input(s) (expected one per input, undefined where none flows)`,
      );
      // Every gradient the pass holds is a handle of its own, released as soon as it is consumed
      // (its memory then serves the next outputs): a kept value, the incoming gradient passed on
      // unchanged, or one value given to two parents gets a second handle.
      const given: TensorPrimitive[] = [];
      node.parents.forEach((parent, i) => {
        let g = parentGrads[i];
        if (!parent || g === undefined) return;
        if (g === grad || given.includes(g) || isKept(saved, g)) g = retain(g);
        given.push(g);
        const prev = pending.get(parent);
        if (prev === undefined) {
          pending.set(parent, g);
        } else {
          pending.set(parent, inner.binary('add', prev, g));
          release?.(prev);
          release?.(g);
        }
      });
      release?.(grad);
    }
  } finally {
    const dispose = inner.dispose?.bind(inner);
    for (const node of order) if (!node.leaf) node.release(dispose);
  }
  return result;
}

/** Bytes of the distinct primitives a graph keeps alive for its backward pass (for tests and stats). */
export function retainedBytes(root: Node): number {
  const seen = new Set<TensorPrimitive>();
  let bytes = 0;
  for (const node of topologicalOrder(root)) {
    for (const s of [...Object.values(node.saved), ...node.inputs]) {
      if (s instanceof Node || seen.has(s)) continue;
      seen.add(s);
      bytes += numel(s.shape) * dtypeSize(s.dtype);
    }
  }
  return bytes;
}
