import type { TensorData } from '../../core/data.js';
import type { Dim, Graph, Node, ValueType } from '../ir/types.js';
import { Attrs } from '../ops/attrs.js';
import { lookupOp } from '../ops/registry.js';
import type { InferContext } from '../ops/types.js';
import { sliceRange } from '../ops/index-ops.js';
import { elemTypeOfCode } from '../parse/dtype.js';

/**
 * Shape and dtype inference. Types flow node by node from the graph inputs and initializers
 * through each op's `infer` rule; symbolic dims (`'batch'`) travel as names. Alongside, small
 * integer vectors computed from shapes (`Shape → Gather → Concat`) are tracked as lists of
 * possibly symbolic dims, so a `Reshape` fed by such a chain still gets an output shape, and the
 * folder can turn fully known ones into constants.
 */

/** A shape computation's value: its dims (numbers or names) and whether it is a scalar. */
export interface SymValue {
  readonly dims: readonly Dim[];
  readonly scalar: boolean;
}

/** Inference state of one graph. */
export interface InferState {
  readonly graph: Graph;
  readonly opsets: ReadonlyMap<string, number>;
  /** Symbolic integer vectors by value name. */
  readonly sym: Map<string, SymValue>;
  /** Initializers that are trainable parameters: known shape, unknown (changing) values. */
  readonly params: ReadonlySet<string>;
}

/** The type of a value: declared, inferred, or from its initializer. */
export function typeOf(state: InferState, name: string): ValueType | undefined {
  const t = state.graph.types.get(name);
  if (t) return t;
  const c = state.graph.initializers.get(name);
  return c ? { kind: 'tensor', elem: c.elem, shape: c.shape } : undefined;
}

/** The constant value of `name` (a non-parameter initializer), when known. */
export function constantOf(state: InferState, name: string): TensorData | undefined {
  if (!name || state.params.has(name)) return undefined;
  return state.graph.initializers.get(name)?.data;
}

function symOf(state: InferState, name: string): SymValue | undefined {
  const s = state.sym.get(name);
  if (s) return s;
  const c = constantOf(state, name);
  if (c && c.shape.length <= 1 && c.dtype !== 'bool' && !c.dtype.startsWith('f') && c.numElements() <= 64) {
    return { dims: Array.from(c.toArray()), scalar: c.shape.length === 0 };
  }
  return undefined;
}

/** Merges a declared and an inferred type: declared dims win unless unknown. */
function merge(declared: ValueType | undefined, inferred: ValueType | undefined): ValueType | undefined {
  if (!declared) return inferred;
  if (!inferred || declared.kind !== 'tensor' || inferred.kind !== 'tensor') return declared;
  const elem = declared.elem === 'undefined' ? inferred.elem : declared.elem;
  let shape = declared.shape;
  if (!shape) shape = inferred.shape;
  else if (inferred.shape && inferred.shape.length === shape.length) {
    shape = shape.map((d, i) =>
      d === undefined || (typeof d === 'string' && typeof inferred.shape![i] === 'number') ? inferred.shape![i] : d,
    );
  }
  return { kind: 'tensor', elem, shape };
}

/** Symbolic-value rules of the shape-computation ops. */
function symbolic(state: InferState, node: Node, attrs: Attrs, opset: number): SymValue | undefined {
  const input = (i: number) => symOf(state, node.inputs[i] ?? '');
  const konst = (i: number) => (node.inputs[i] ? constantOf(state, node.inputs[i]!) : undefined);
  switch (node.opType) {
    case 'Shape': {
      const t = typeOf(state, node.inputs[0]!);
      if (!t || t.kind !== 'tensor' || !t.shape) return undefined;
      const rank = t.shape.length;
      const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
      return { dims: t.shape.slice(clamp(attrs.int('start', 0)), clamp(attrs.int('end', rank))), scalar: false };
    }
    case 'Size': {
      const t = typeOf(state, node.inputs[0]!);
      if (!t || t.kind !== 'tensor' || !t.shape || !t.shape.every((d) => typeof d === 'number')) return undefined;
      return { dims: [(t.shape as number[]).reduce((a, b) => a * b, 1)], scalar: true };
    }
    case 'Identity':
    case 'Cast':
      if (node.opType === 'Cast' && !['i64', 'i32'].includes(elemTypeOfCode(attrs.int('to', 0)) ?? ''))
        return undefined;
      return input(0);
    case 'Gather': {
      const v = input(0);
      const idx = konst(1);
      if (!v || v.scalar || !idx || (attrs.int('axis', 0) !== 0 && attrs.int('axis', 0) !== -1)) return undefined;
      const n = v.dims.length;
      const picked = Array.from(idx.toArray(), (i) => v.dims[i < 0 ? i + n : i]);
      return { dims: picked, scalar: idx.shape.length === 0 };
    }
    case 'Unsqueeze': {
      const v = input(0);
      return v && v.scalar ? { dims: v.dims, scalar: false } : undefined;
    }
    case 'Squeeze': {
      const v = input(0);
      return v && !v.scalar && v.dims.length === 1 ? { dims: v.dims, scalar: true } : undefined;
    }
    case 'Concat': {
      const vs = node.inputs.map((_, i) => input(i));
      if (vs.some((v) => !v || v.scalar)) return undefined;
      return { dims: vs.flatMap((v) => [...v!.dims]), scalar: false };
    }
    case 'Slice': {
      const v = input(0);
      if (!v || v.scalar || opset < 10) return undefined;
      const [s, e, a, st] = [konst(1), konst(2), konst(3), konst(4)];
      if (!s || !e || (node.inputs[3] && !a) || (node.inputs[4] && !st)) return undefined;
      if (a && a.toArray()[0] !== 0 && a.toArray()[0] !== -1) return undefined;
      const [b, en, step] = sliceRange(v.dims.length, s.toArray()[0]!, e.toArray()[0]!, st ? st.toArray()[0]! : 1);
      const out: Dim[] = [];
      if (step > 0) for (let i = b; i < en; i += step) out.push(v.dims[i]);
      else for (let i = en - 1; i >= b; i += step) out.push(v.dims[i]);
      return { dims: out, scalar: false };
    }
    default:
      return undefined;
  }
}

/** An {@link InferContext} for one node. */
function contextOf(state: InferState, node: Node, attrs: Attrs, opset: number): InferContext {
  return {
    node,
    attrs,
    opset,
    inputs: node.inputs.map((n) => (n ? typeOf(state, n) : undefined)),
    constant: (i) => (node.inputs[i] ? constantOf(state, node.inputs[i]!) : undefined),
    dims: (i) => {
      const s = node.inputs[i] ? symOf(state, node.inputs[i]!) : undefined;
      return s && !s.scalar ? s.dims : undefined;
    },
  };
}

/**
 * Infers the types of `node`'s outputs and records them (merged with declared types), together
 * with the symbolic value of shape computations. Returns the symbolic value of output 0, if any.
 */
export function inferNode(state: InferState, node: Node): SymValue | undefined {
  const def = lookupOp(node.domain, node.opType);
  const opset = state.opsets.get(node.domain) ?? 0;
  const attrs = new Attrs(node);
  let types: readonly (ValueType | undefined)[] = [];
  try {
    types = def?.infer?.(contextOf(state, node, attrs, opset)) ?? [];
  } catch {
    types = []; // inference is best effort: the run reports real errors with the values in hand
  }
  node.outputs.forEach((o, i) => {
    if (!o) return;
    const merged = merge(state.graph.types.get(o), types[i]);
    if (merged) state.graph.types.set(o, merged);
  });
  let sym: SymValue | undefined;
  try {
    sym = symbolic(state, node, attrs, opset);
  } catch {
    sym = undefined;
  }
  if (sym && node.outputs[0]) state.sym.set(node.outputs[0], sym);
  return sym;
}
