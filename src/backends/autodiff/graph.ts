import { Gradients } from '../../backend/autodiff.js';
import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import { dtypeSize } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { numel } from '../../core/shape.js';

/**
 * The autodiff graph. Every tracked tensor points at a {@link Node}; a node knows its parents
 * (one per differentiable input), the backward rule, and the values the rule needs. Values are
 * kept either as primitives, or — under gradient checkpointing, for memory-bound ops — as a
 * reference to the producing node, which recomputes them during the backward pass.
 */

/** Compute-bound ops (matmul, conv…) keep their values; memory-bound ones may be recomputed. */
export type Bound = 'compute' | 'memory';

/** A kept value: the primitive itself, or the node that can recompute it. */
export type Stored = TensorPrimitive | Node;

/** Reads kept value `i` of a node, recomputing it when needed. */
export type ValueOf = (i: number) => TensorPrimitive;

/**
 * A backward rule: the gradients of the inputs (undefined where none flows) from the output's
 * gradient. `needs[i]` tells whether input i is tracked, so a rule can skip work nobody reads.
 */
export type Rule = (grad: TensorPrimitive, value: ValueOf, needs: readonly boolean[]) => readonly (TensorPrimitive | undefined)[];

let nextId = 1;

/** One recorded op (or a leaf that requires grad). */
export class Node {
  /** Stable id; gradients are keyed by it. */
  readonly id = nextId++;
  /** Recomputed output, cached during one backward pass. */
  private cached: TensorPrimitive | undefined;

  constructor(
    /** The nodes of the inputs (undefined for untracked inputs); empty for leaves. */
    public parents: readonly (Node | undefined)[],
    /** The backward rule; undefined for leaves and after the graph was freed. */
    public rule: Rule | undefined,
    /** Values the rule reads. */
    public stored: Stored[],
    /** Recomputes this node's output from `inputs` (checkpointed memory-bound ops only). */
    public forward: ((inputs: TensorPrimitive[]) => TensorPrimitive) | undefined,
    /** The inputs `forward` reads (kept only when the node is recomputable). */
    public inputs: Stored[],
    readonly bound: Bound,
    readonly leaf: boolean,
  ) {}

  /** A leaf: a tensor whose gradient the user asked for. */
  static leaf(): Node {
    return new Node([], undefined, [], undefined, [], 'compute', true);
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
      for (const s of [...this.stored, ...this.inputs]) if (!(s instanceof Node)) dispose(s);
      if (this.cached) dispose(this.cached);
    }
    this.rule = undefined;
    this.stored = [];
    this.forward = undefined;
    this.inputs = [];
    this.cached = undefined;
    this.parents = [];
  }
}

/** True when `p` is one of the values `stored` keeps (a primitive, or a recomputed node's cached output). */
function isKept(stored: readonly Stored[], p: TensorPrimitive): boolean {
  return stored.some((s) => (s instanceof Node ? s.cachedValue === p : s === p));
}

/** Reads a kept value. */
export function read(s: Stored): TensorPrimitive {
  return s instanceof Node ? s.value() : s;
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
export function runBackward(root: Node, rootShape: readonly number[], rootDType: TensorPrimitive['dtype'], inner: Backend): Gradients {
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
      const rule = node.rule;
      if (!rule) throw new BurnError('backward', 'the graph behind this tensor was already freed by an earlier backward()');
      const stored = node.stored;
      const parentGrads = rule(grad, (i) => read(stored[i]!), node.parents.map((p) => p !== undefined));
      // Every gradient the pass holds is a handle of its own, released as soon as it is consumed
      // (its memory then serves the next outputs): a kept value, the incoming gradient passed on
      // unchanged, or one value given to two parents gets a second handle.
      const given: TensorPrimitive[] = [];
      node.parents.forEach((parent, i) => {
        let g = parentGrads[i];
        if (!parent || g === undefined) return;
        if (g === grad || given.includes(g) || isKept(stored, g)) g = retain(g);
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
    for (const s of [...node.stored, ...node.inputs]) {
      if (s instanceof Node || seen.has(s)) continue;
      seen.add(s);
      bytes += numel(s.shape) * dtypeSize(s.dtype);
    }
  }
  return bytes;
}
