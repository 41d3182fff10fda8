import type { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';

/**
 * The typed intermediate representation every part of `burn-ts/onnx` works on: the parser builds
 * it from the protobuf, the graph passes (inference, folding, dead-node removal) rewrite it, and
 * the runtime executes it. It holds no protobuf objects, so passes never see wire-level details.
 */

/** An element type of an ONNX tensor: a burn-ts dtype, or a type burn-ts cannot hold (strings, u64, complex, float8, 4-bit). */
export type ElemType =
  | DType
  | 'string'
  | 'u64'
  | 'complex64'
  | 'complex128'
  | 'f8e4m3fn'
  | 'f8e4m3fnuz'
  | 'f8e5m2'
  | 'f8e5m2fnuz'
  | 'u4'
  | 'i4'
  | 'f4e2m1'
  | 'undefined';

/** One dimension: a size, a symbolic name (`'batch'`), or `undefined` when nothing is known. */
export type Dim = number | string | undefined;

/** The static type of a value, as declared or inferred. */
export type ValueType =
  | { readonly kind: 'tensor'; readonly elem: ElemType; readonly shape: readonly Dim[] | undefined }
  | { readonly kind: 'sequence'; readonly elem: ValueType | undefined }
  | { readonly kind: 'optional'; readonly elem: ValueType | undefined }
  | { readonly kind: 'other'; readonly what: string };

/** A named, typed graph input or output. */
export interface ValueInfo {
  readonly name: string;
  readonly type: ValueType | undefined;
}

/** Where the bytes of an externally stored tensor are: a file beside the model, an offset and a length. */
export interface ExternalRef {
  readonly location: string;
  readonly offset: number;
  /** Byte count; undefined means "to the end of the file". */
  readonly length: number | undefined;
}

/**
 * A constant tensor (initializer, `Constant` value or tensor attribute). `data` is set for every
 * dtype burn-ts holds once loaded; external tensors carry `external` until the loader reads them
 * (one read at the tensor's offset, never the whole file). String tensors keep their strings.
 */
export interface ConstTensor {
  readonly name: string;
  readonly elem: ElemType;
  readonly shape: readonly number[];
  data: TensorData | undefined;
  readonly strings?: readonly string[];
  external?: ExternalRef;
}

/** An attribute value, tagged by its ONNX attribute type. */
export type Attribute =
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'tensor'; readonly value: ConstTensor }
  | { readonly kind: 'graph'; readonly value: Graph }
  | { readonly kind: 'floats'; readonly value: readonly number[] }
  | { readonly kind: 'ints'; readonly value: readonly number[] }
  | { readonly kind: 'strings'; readonly value: readonly string[] }
  | { readonly kind: 'tensors'; readonly value: readonly ConstTensor[] }
  | { readonly kind: 'graphs'; readonly value: readonly Graph[] }
  | { readonly kind: 'type'; readonly value: ValueType | undefined }
  /** Inside a model-local function: the caller's attribute of that name (resolved when the call is inlined). */
  | { readonly kind: 'ref'; readonly name: string }
  | { readonly kind: 'other'; readonly what: string };

/** One node: an operator applied to named values. An empty input name is an omitted optional input. */
export interface Node {
  /** The node's name, or a generated `OpType_<index>` when the model left it empty. */
  readonly name: string;
  readonly opType: string;
  /** `''` for the default ONNX domain (`ai.onnx`). */
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes: ReadonlyMap<string, Attribute>;
}

/**
 * A graph: the main graph, or a subgraph of `If`/`Loop`/`Scan`. Subgraphs may read values of the
 * enclosing graphs by name (outer-scope references).
 */
export interface Graph {
  readonly name: string;
  nodes: Node[];
  readonly inputs: readonly ValueInfo[];
  readonly outputs: readonly ValueInfo[];
  /** Initializers (and, after folding, folded constants) by value name. */
  readonly initializers: Map<string, ConstTensor>;
  /** Declared or inferred types of values by name (inputs, outputs, `value_info`, inference results). */
  readonly types: Map<string, ValueType>;
}

/** A parsed model. */
export interface Model {
  readonly irVersion: number;
  /** Opset version by domain (`''` is the default ONNX domain). */
  readonly opsets: ReadonlyMap<string, number>;
  readonly producer: string;
  readonly graph: Graph;
  /** Model-local functions (`FunctionProto`) by `domain:name`. */
  readonly functions: ReadonlyMap<string, ModelFunction>;
}

/** A model-local function: a node list expanded in place of nodes that call it. */
export interface ModelFunction {
  readonly name: string;
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributeNames: readonly string[];
  readonly nodes: readonly Node[];
  readonly opsets: ReadonlyMap<string, number>;
}

/** The tensor type helper. */
export function tensorType(elem: ElemType, shape: readonly Dim[] | undefined): ValueType {
  return { kind: 'tensor', elem, shape };
}
