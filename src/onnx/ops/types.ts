import type { Device } from '../../device/device.js';
import type { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import type { Bool, Float, Int, Kind, Numeric } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Attrs } from './attrs.js';
import type { Dim, Graph, Node, ValueType } from '../ir/types.js';

/** A tensor of any rank and kind: what flows between ONNX nodes. */
export type AnyTensor = Tensor<number, Kind>;
/** The same tensor seen as Float, Int, Bool or Numeric (a type-level view; no conversion). */
export type FloatT = Tensor<number, Float>;
/** @see FloatT */
export type IntT = Tensor<number, Int>;
/** @see FloatT */
export type BoolT = Tensor<number, Bool>;
/** @see FloatT */
export type NumT = Tensor<number, Numeric>;

/** An ONNX sequence value (`seq(tensor)`), as produced by `SequenceConstruct`, `SplitToSequence`, `Loop`. */
export class SequenceValue {
  constructor(
    readonly items: readonly AnyTensor[],
    readonly elem: DType | undefined,
  ) {}
}

/** An empty ONNX optional (`optional(T)` holding nothing). A present optional is just its value. */
export class NoneValue {
  constructor(readonly type: ValueType | undefined) {}
}

/** A runtime value: a tensor, a sequence of tensors, or an empty optional. */
export type Value = AnyTensor | SequenceValue | NoneValue;

/**
 * What an op's `run` sees besides its inputs: the node and its attributes, the opset it was
 * written against, the device, host-side views of inputs, and callable subgraphs.
 */
export interface OpContext {
  readonly node: Node;
  readonly attrs: Attrs;
  /** The opset version of the node's domain. */
  readonly opset: number;
  /** The device the model runs on (where created tensors go). */
  readonly device: Device;
  /** The values of input `i` on the host (constants directly, others read synchronously), or undefined when omitted. */
  host(i: number): TensorData | undefined;
  /** Input `i` as host integers (`Reshape`'s shape, `Slice`'s starts…), or undefined when omitted. */
  ints(i: number): number[] | undefined;
  /** Input `i` as host floats, or undefined when omitted. */
  floats(i: number): number[] | undefined;
  /** Runs the subgraph of attribute `name` on `inputs`; outer-scope names resolve in the calling scope. */
  runSubgraph(name: string, inputs: readonly (Value | undefined)[]): Value[];
  /** Runs a given subgraph (from an attribute). */
  runGraph(graph: Graph, inputs: readonly (Value | undefined)[]): Value[];
}

/** The context of {@link OpDef.runAsync}: subgraphs run asynchronously and device values are awaited. */
export interface AsyncOpContext extends OpContext {
  /** Runs a subgraph with asynchronous host reads (WebGPU). */
  runGraphAsync(graph: Graph, inputs: readonly (Value | undefined)[]): Promise<Value[]>;
  /** The host values of a tensor: its known host copy, or an awaited read. */
  read(t: AnyTensor): Promise<TensorData>;
}

/** What an op's shape inference sees. */
export interface InferContext {
  readonly node: Node;
  readonly attrs: Attrs;
  readonly opset: number;
  /** Input types (undefined: unknown or omitted). */
  readonly inputs: readonly (ValueType | undefined)[];
  /** The constant value of input `i` when it is known at load time. */
  constant(i: number): TensorData | undefined;
  /** The value of input `i` as a vector of (possibly symbolic) dims, when it is a shape computation. */
  dims(i: number): readonly Dim[] | undefined;
}

/**
 * One ONNX operator: how to run it on tensors and what it needs. Op families live one per file
 * (`elementwise.ts`, `reduce.ts`, …) as records of these, keyed by op type.
 */
export interface OpDef {
  /** Runs the node; returns one value per output (undefined for an output it does not produce). */
  readonly run: (ctx: OpContext, inputs: readonly (Value | undefined)[]) => readonly (Value | undefined)[];
  /** The asynchronous form used by `runAsync`, for ops that run subgraphs or read values mid-way (control flow). */
  readonly runAsync?: (
    ctx: AsyncOpContext,
    inputs: readonly (Value | undefined)[],
  ) => Promise<readonly (Value | undefined)[]>;
  /** Inputs read on the host (shapes, axes, sizes): their initializers stay constants, never parameters. */
  readonly hostInputs?: readonly number[];
  /**
   * True for ops that read every input's values on the host (data-dependent output shapes:
   * NonZero, Unique, NonMaxSuppression…); `runAsync` reads them asynchronously first, so these
   * ops work on devices that cannot read synchronously.
   */
  readonly readsValues?: boolean;
  /** Why this node cannot run (an unsupported attribute value, opset or input), checked at load time; undefined when it can. */
  readonly check?: (node: Node, attrs: Attrs, opset: number) => string | undefined;
  /** Output types from input types; undefined entries are unknown. */
  readonly infer?: (ctx: InferContext) => readonly (ValueType | undefined)[];
  /** Nondeterministic (random) ops are never folded into constants. */
  readonly random?: boolean;
  /** The lowest opset version whose semantics the implementation follows (default 1). */
  readonly minOpset?: number;
}

/** A family of ops, keyed by ONNX op type. */
export type OpFamily = Readonly<Record<string, OpDef>>;
