import type { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import type { Node } from '../ir/types.js';
import type { Attrs } from '../ops/attrs.js';

/**
 * The vocabulary of code generation: what a value of the graph is in the generated `forward`
 * (a tensor expression, a host number vector from shape arithmetic, a constant, a parameter),
 * and what an operator's emitter may ask of its surroundings.
 */

/** The kind of a generated tensor type (`Tensor<D>`, `Tensor<D, Int>`, `Tensor<D, Bool>`). */
export type TKind = 'Float' | 'Int' | 'Bool';

/** The kind of a dtype. */
export function kindOf(dtype: DType): TKind {
  return dtype === 'bool' ? 'Bool' : dtype.startsWith('f') || dtype === 'bf16' ? 'Float' : 'Int';
}

/**
 * One dim of a value: a static size, a symbolic input dim (`'batch'`, bound to a local of the
 * same name in `forward`), or undefined when it varies otherwise.
 */
export type DimInfo = number | { readonly symbol: string } | undefined;

/** Rank, dtype and dims of a tensor value (from the probe runs). */
export interface TInfo {
  readonly rank: number;
  readonly dtype: DType;
  readonly dims: readonly DimInfo[];
}

/** The TypeScript type of a tensor value: `Tensor<4>`, `Tensor<2, Int>`, `Tensor<1, Bool>`. */
export function tsType(info: Pick<TInfo, 'rank' | 'dtype'>): string {
  const k = kindOf(info.dtype);
  return k === 'Float' ? `Tensor<${info.rank}>` : `Tensor<${info.rank}, ${k}>`;
}

/**
 * Where a tensor value lives in `forward`: an expression computed once. It is written as
 * `const name = expr;` unless its single reader takes the expression inline
 * (`this.conv.forward(x).relu()`).
 */
export class Slot {
  /** 'pending' until the first reference decides: 'inlined' into its reader, or 'declared' as a const. */
  state: 'pending' | 'inlined' | 'declared';
  /** What its expression reads: other slots, symbolic dims (`sym:batch`) and the `device` local. */
  deps: readonly Dep[] = [];

  constructor(
    readonly name: string,
    readonly expr: string,
    readonly uses: number,
    bound = false,
  ) {
    this.state = bound ? 'declared' : 'pending';
  }

  /** The reference a reader writes: the expression itself (once, when at most `max` characters and used once) or the name. */
  ref(inline: boolean, max = 64): string {
    if (this.state === 'pending')
      this.state = inline && this.uses === 1 && this.expr.length <= max ? 'inlined' : 'declared';
    else if (this.state === 'inlined')
      throw new BurnError('generateOnnxModule', `internal: value '${this.name}' was inlined and read again`);
    return this.state === 'inlined' ? this.expr : this.name;
  }
}

/** What an expression reads from `forward`'s locals: a slot, a symbolic dim (`sym:<name>`) or `'device'`. */
export type Dep = Slot | string;

/** What a graph value is in generated code. */
export type CgValue =
  /** A tensor computed in `forward` (`zero`: known to be all zeros, e.g. a recurrent layer's initial state). */
  | { readonly kind: 'tensor'; readonly slot: Slot; readonly info: TInfo; readonly zero?: boolean }
  /** A vector (or scalar) of integers computed on the host from shapes: one JS number expression per element. */
  | {
      readonly kind: 'host';
      readonly elems: readonly string[];
      readonly scalar: boolean;
      readonly dtype: DType;
      readonly deps: readonly Dep[];
    }
  /** A constant (non-parameter initializer or folded value). */
  | { readonly kind: 'const'; readonly name: string; readonly data: TensorData; readonly zero?: boolean }
  /** A parameter initializer (trainable float weights). */
  | { readonly kind: 'param'; readonly name: string; readonly data: TensorData };

/** A layer field: an `nn` layer made from its config, with the ONNX weights it takes. */
export interface LayerSpec {
  /** The `burn-ts/nn` layer class (`Conv2d`) and its config class (`Conv2dConfig`). */
  readonly cls: string;
  readonly configCls: string;
  /** The config's options (only those that differ from the defaults, for readability). */
  readonly config: Readonly<Record<string, unknown>>;
  /** Whether `init` takes the device (layers with parameters) or nothing (pools, resizes). */
  readonly device: boolean;
  /** Weights by their path inside the layer (`weight`, `inputGate.inputTransform.bias`). */
  readonly weights: ReadonlyMap<string, TensorData>;
  /** The ONNX names of the weights it took (for the summary). */
  readonly sources?: readonly string[];
}

/** A tensor-valued field that is not a layer: a parameter or a constant read as a tensor. */
export interface ParamSpec {
  readonly data: TensorData;
  readonly trainable: boolean;
  readonly source: string;
}

/** One output of an emitter: a tensor expression, host elements, or a value passed through unchanged. */
export type Emitted =
  | string
  | { readonly host: readonly string[]; readonly scalar: boolean }
  | { readonly same: CgValue }
  | { readonly zeros: string }
  | undefined;

/** Thrown by an emitter that cannot express a node; collected into one error listing them all. */
export class CannotExpress extends Error {}

/** What an operator's emitter sees: the node, its inputs as generated values, and ways to add fields and statements. */
export interface EmitContext {
  readonly node: Node;
  readonly attrs: Attrs;
  readonly opset: number;
  /** Input `i`, or undefined when omitted. */
  value(i: number): CgValue | undefined;
  /** True when input `i` is given. */
  has(i: number): boolean;
  /** The dims and dtype of input `i` (a tensor, constant or parameter). */
  info(i: number): TInfo;
  /** Output `i`'s dims and dtype, from the probes. */
  out(i: number): TInfo;
  /** True when something reads output `i`. */
  used(i: number): boolean;
  /** Input `i` as a tensor expression (a constant or parameter becomes a field, host numbers a tensor); `inline` false forces a named const. */
  tensor(i: number, inline?: boolean): string;
  /** Input `i` lifted to rank `rank` (leading size-1 dims) for a binary op. */
  lifted(i: number, rank: number): string;
  /** Input `i` lifted to rank `rank` and, where its dims are smaller than output 0's, expanded to them (ops that do not broadcast). */
  expanded(i: number, rank: number): string;
  /** The host number expressions of input `i` (a shape computation or an integer constant), or undefined when it is a device tensor. */
  host(i: number): readonly string[] | undefined;
  /** The values of a constant input (a constant or a parameter), or undefined. */
  constant(i: number): TensorData | undefined;
  /** The value of a one-element constant input, or undefined. */
  scalar(i: number): number | undefined;
  /** A JS expression for dim `d` of input `i` (a literal, a symbol, or `x.dims()[d]`). */
  dim(i: number, d: number): string;
  /** Registers a layer field named after `hint`; returns its name. */
  layer(hint: string, spec: LayerSpec): string;
  /** Registers a tensor field (parameter or constant) named after `hint`; returns the expression reading it. */
  param(hint: string, spec: ParamSpec): string;
  /** A fresh local variable name. */
  local(hint: string): string;
  /** Appends a statement to `forward` (before the current node's result). */
  stmt(code: string): void;
  /** The expression of the run's device (declares `const device = ….device();` once). */
  device(): string;
  /** Imports a name from `burn-ts` or `burn-ts/nn`. */
  use(from: 'burn-ts' | 'burn-ts/nn', name: string): void;
  /** A hint for names made from this node (its PyTorch module path, or its op type). */
  readonly hint: string;
  /** Throws {@link CannotExpress} with `why`. */
  fail(why: string): never;
}

/** Emits the code of one operator: one entry per node output. */
export type Emitter = (ctx: EmitContext) => readonly Emitted[];

/** A TypeScript literal of a plain value (numbers, strings, booleans, arrays, objects). */
export function literal(v: unknown): string {
  if (typeof v === 'number') return num(v);
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof v === 'boolean') return String(v);
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([k, x]) => `${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : literal(k)}: ${literal(x)}`).join(', ')} }`;
}

/** A number as TypeScript source (f32 values shortened to the shortest form that reads back the same f32). */
export function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Number.isInteger(v)) return String(v);
  const f = Math.fround(v);
  if (f === v) {
    for (let p = 1; p <= 9; p++) {
      const s = v.toPrecision(p);
      if (Math.fround(Number(s)) === f) return String(Number(s));
    }
  }
  return String(v);
}
