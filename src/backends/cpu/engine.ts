import type { BinaryOp, CompareOp, ReduceOp, UnaryOp } from '../../backend/ops.js';
import type {
  AdamStepOptions,
  ConvOptions,
  ConvTransposeOptions,
  MaxPoolOptions,
  UnfoldOptions,
} from '../../backend/options.js';
import type { FusedProgram } from '../../backend/fusion/program.js';
import type { AdamArrays } from './js/optim.js';
import type { RandomKey } from '../../backend/rng.js';
import type { Distribution } from '../../core/distribution.js';
import { isFloatDType, type DType } from '../../core/dtype.js';
import type { CpuArray, CpuTensor } from './storage.js';

/** The distributions drawn from one uniform word per element (not `normal`). */
export type UniformDistribution = Exclude<Distribution, { readonly kind: 'normal' }>;

/** The float arrays accelerated engines work on (f32 and f64 tensors). */
export type FloatArray = Float32Array | Float64Array;

/** One batched matrix product: batch `i` computes `C[i] = A[i] · B[i]` into contiguous C at `i·m·n`. */
export interface GemmArgs {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly a: FloatArray;
  /** Element offset of each batch's A (length = batch count). */
  readonly aOffsets: readonly number[];
  readonly aRowStride: number;
  readonly aColStride: number;
  readonly b: FloatArray;
  readonly bOffsets: readonly number[];
  readonly bRowStride: number;
  readonly bColStride: number;
  readonly c: FloatArray;
}

/** A contiguous NCHW 2-d convolution (f32/f64), weight `[Cout, Cin/groups, kh, kw]`. */
export interface Conv2dArgs {
  readonly x: FloatArray;
  readonly xShape: readonly [number, number, number, number];
  readonly w: FloatArray;
  readonly wShape: readonly [number, number, number, number];
  readonly bias: FloatArray | undefined;
  readonly out: FloatArray;
  readonly outShape: readonly [number, number, number, number];
  readonly options: ConvOptions;
  /** The activation's bounds `[lo, hi]` applied to the output in the same pass (ReLU: `[0, ∞]`), or none. */
  readonly clamp?: readonly [number, number];
  /**
   * An object that stands for `w`'s values: the same object never comes with other values (the
   * weight tensor's handle, whose values do not change while it lives). An engine may keep the
   * weights prepared (packed) under it between calls; without it, nothing is kept.
   */
  readonly weightKey?: object;
  /** Added to the output (of `outShape`) before the clamp: a residual connection; an engine without it declines. */
  readonly residual?: FloatArray;
}

/**
 * A contiguous NCHW transposed 2-d convolution, weight `[Cin, Cout/groups, kh, kw]`; `outShape` is
 * already computed from the options (output padding included).
 */
export interface ConvTranspose2dArgs {
  readonly x: FloatArray;
  readonly xShape: readonly [number, number, number, number];
  readonly w: FloatArray;
  readonly wShape: readonly [number, number, number, number];
  readonly bias: FloatArray | undefined;
  readonly out: FloatArray;
  readonly outShape: readonly [number, number, number, number];
  readonly options: ConvTransposeOptions;
}

/** One operand of a fused program for an engine: an array read at `offset + Σ index_d · strides_d`. */
export interface FusedOperand {
  readonly data: CpuArray;
  readonly offset: number;
  /** One stride per dim of {@link FusedEngineArgs.shape}; 0 where the operand broadcasts. */
  readonly strides: readonly number[];
}

/**
 * A fused program (src/backend/fusion/program.ts) for an engine. The iteration space is `shape`,
 * whose last `innerRank` dims are the row (reduced) dims; the CPU backend has already collapsed the
 * dims every operand allows to merge (a contiguous elementwise program is one flat dim). Row inputs
 * have stride 0 along the inner dims. Outputs are fresh contiguous arrays: element outputs hold
 * `numel(shape)` values, row outputs one per row (`numel(shape[0 .. rank − innerRank])`), in the
 * dtype of their value; each must be written completely. Scalars are raw numbers: the program's
 * `scalar` instruction converts them to its dtype (as `fill` would).
 */
export interface FusedEngineArgs {
  readonly program: FusedProgram;
  readonly shape: readonly number[];
  readonly innerRank: number;
  readonly inputs: readonly FusedOperand[];
  readonly outputs: readonly CpuArray[];
  readonly scalars: readonly number[];
}

/**
 * The kernels a CPU engine may accelerate. The CPU backend does shapes, strides, views and
 * broadcasting; for each op it first offers the work to the engine and otherwise runs the `js`
 * kernels. Arrays are the tensors' own typed arrays: an engine works in place on them.
 *
 * Each kernel follows the protocol of `Backend`'s optional kernels (src/backend/backend.ts): it
 * fills the output it is given and returns that output (`adamStep`: its arrays), or returns
 * `undefined` to decline a dtype, layout or size it does not take (never `false`). The caller
 * writes `engine.kernel?.(…)` and on `undefined` runs the `js` kernel, which writes every element
 * of that same output (or returns it to the pool when the fallback allocates its own).
 *
 * The `js` engine is the empty set of overrides: every kernel is the backend's own JavaScript.
 */
export interface CpuEngineKernels {
  /** Engine name (`js`, `wasm`, `native`). */
  readonly name: string;
  /**
   * An array of `n` elements of `dtype` for an output the op writes completely; it need not be
   * zeroed. Undefined: the backend allocates a zeroed typed array itself.
   */
  alloc?(dtype: DType, n: number): CpuArray | undefined;
  /** Batched matrix product (strided operands, contiguous output). */
  gemm?(args: GemmArgs): FloatArray | undefined;
  /** `out[i] = a[aOffset + i] (op) b[bOffset + i]` for `n` contiguous elements. */
  binary?(
    op: BinaryOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    b: FloatArray,
    bOffset: number,
    n: number,
  ): FloatArray | undefined;
  /** `out[i] = a[aOffset + i] (op) scalar`. */
  binaryScalar?(
    op: BinaryOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    scalar: number,
    n: number,
  ): FloatArray | undefined;
  /**
   * `out` (contiguous, `shape`) = `a (op) b` for strided operands (stride 0 on broadcast dims);
   * shape and strides are already collapsed (no size-1 dims, mergeable dims merged).
   */
  binaryStrided?(
    op: BinaryOp,
    out: FloatArray,
    shape: readonly number[],
    a: FloatArray,
    aOffset: number,
    aStrides: readonly number[],
    b: FloatArray,
    bOffset: number,
    bStrides: readonly number[],
  ): FloatArray | undefined;
  /** Copies the strided `src` into the strided `dst` over the (collapsed) `shape`; both of one array type. */
  copyStrided?(
    shape: readonly number[],
    dst: FloatArray,
    dstOffset: number,
    dstStrides: readonly number[],
    src: FloatArray,
    srcOffset: number,
    srcStrides: readonly number[],
  ): FloatArray | undefined;
  /** `out[i] = a[aOffset + i] (op) scalar ? 1 : 0` for `n` contiguous elements; `out` is a bool tensor's array. */
  compareScalar?(
    op: CompareOp,
    out: Uint8Array,
    a: FloatArray,
    aOffset: number,
    scalar: number,
    n: number,
  ): Uint8Array | undefined;
  /** `out` (contiguous, `shape`) = `cond ? a : b` for strided (broadcast) operands; shape and strides collapsed. */
  where?(
    out: FloatArray,
    shape: readonly number[],
    cond: Uint8Array,
    cOffset: number,
    cStrides: readonly number[],
    a: FloatArray,
    aOffset: number,
    aStrides: readonly number[],
    b: FloatArray,
    bOffset: number,
    bStrides: readonly number[],
  ): FloatArray | undefined;
  /**
   * Reduces the strided `a` over the (collapsed) `shape` into `out`: the element at index `i`
   * goes to `out[Σ i_d · outStrides_d]` (`outStrides` is 0 on reduced dims). Not for any/all.
   */
  reduceStrided?(
    op: ReduceOp,
    out: FloatArray,
    shape: readonly number[],
    a: FloatArray,
    aOffset: number,
    aStrides: readonly number[],
    outStrides: readonly number[],
  ): FloatArray | undefined;
  /** `out[i] = y[yOffset + i] <= 0 ? 0 : g[gOffset + i]`: the ReLU input gradient from its output `y`. */
  reluBackward?(
    out: FloatArray,
    y: FloatArray,
    yOffset: number,
    g: FloatArray,
    gOffset: number,
    n: number,
  ): FloatArray | undefined;
  /** Fills `out` with a draw of the shared Philox stream (backend/rng.ts), the same values as JavaScript's. */
  random?(out: FloatArray, dist: UniformDistribution, key: RandomKey): FloatArray | undefined;
  /** One Adam step over contiguous arrays (see `Backend.adamStep`). */
  adamStep?(arrays: AdamArrays, options: AdamStepOptions): AdamArrays | undefined;
  /** `out[i] = op(a[aOffset + i])`. */
  unary?(op: UnaryOp, out: FloatArray, a: FloatArray, aOffset: number, n: number): FloatArray | undefined;
  /** `out[i] = min(max(a[aOffset + i], lo), hi)` with JavaScript's max/min, in one pass. */
  clamp?(out: FloatArray, a: FloatArray, aOffset: number, n: number, lo: number, hi: number): FloatArray | undefined;
  /** The exact GELU `x · (1 + erf(x / √2)) / 2` in one pass. */
  gelu?(out: FloatArray, a: FloatArray, aOffset: number, n: number): FloatArray | undefined;
  /** Layer normalization of `rows` contiguous rows of `len` values: `(a − mean) / √(var + eps) · gamma (+ beta)`. */
  layerNorm?(
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    gamma: FloatArray,
    beta: FloatArray | undefined,
    rows: number,
    len: number,
    eps: number,
  ): FloatArray | undefined;
  /** Reduces each of `rows` contiguous rows of `len` elements into `out[row]`. */
  reduceRows?(
    op: ReduceOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    rows: number,
    len: number,
  ): FloatArray | undefined;
  /** Softmax (or log-softmax) of each contiguous row. */
  softmaxRows?(
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    rows: number,
    len: number,
    log: boolean,
  ): FloatArray | undefined;
  /** 2-d convolution of contiguous NCHW tensors. */
  conv2d?(args: Conv2dArgs): FloatArray | undefined;
  /** Transposed 2-d convolution of contiguous NCHW tensors (the input gradient of `conv2d`). */
  convTranspose2d?(args: ConvTranspose2dArgs): FloatArray | undefined;
  /**
   * The weight gradient of a 2-d convolution into `dw` (the weight's shape) from the contiguous
   * NCHW input and output gradient, without building the im2col matrix.
   */
  conv2dWeightGrad?(
    x: FloatArray,
    xShape: readonly number[],
    g: FloatArray,
    gShape: readonly number[],
    dw: FloatArray,
    wShape: readonly number[],
    options: ConvOptions,
  ): FloatArray | undefined;
  /** im2col of a contiguous NCHW tensor into `out` `[N, C·kh·kw, OH·OW]` (the weight gradient of `conv2d` uses it). */
  unfold2d?(
    x: FloatArray,
    xShape: readonly number[],
    kernel: readonly number[],
    outSpatial: readonly number[],
    options: UnfoldOptions,
    out: FloatArray,
  ): FloatArray | undefined;
  /**
   * The input gradient of max pooling into `dx` (`planes` planes of `plane` inputs): zeros, then
   * `dx[plane·p + indices[i]] += g[i]` for the `g.length / planes` outputs `i` of each plane `p`.
   */
  maxPoolBackward?(
    g: FloatArray,
    indices: Int32Array,
    dx: FloatArray,
    planes: number,
    plane: number,
  ): FloatArray | undefined;
  /**
   * Runs a fused program (the fusion decorator's blocks) into `args.outputs`, or declines the
   * dtypes, layouts or instructions it does not take; the backend then runs its generated
   * JavaScript, which takes every program.
   */
  fused?(args: FusedEngineArgs): readonly CpuArray[] | undefined;
  /** 2-d max pooling of a contiguous NCHW tensor into `out` (and the flat per-channel argmax into `indices` when given). */
  maxPool2d?(
    x: FloatArray,
    xShape: readonly number[],
    out: FloatArray,
    outShape: readonly number[],
    indices: Int32Array | undefined,
    options: MaxPoolOptions,
  ): FloatArray | undefined;
}

/** The reference engine: no overrides, every op runs the backend's JavaScript kernels. */
export const jsEngine: CpuEngineKernels = { name: 'js' };

/** True for the arrays engines accept. */
export function isFloatArray(a: unknown): a is FloatArray {
  return a instanceof Float32Array || a instanceof Float64Array;
}

/** True for float tensors (f32, f64, and f16/bf16 in f32 arrays): the only ones offered to an engine (i64 also lives in a Float64Array). */
export function isEngineFloat(t: CpuTensor): t is CpuTensor & { readonly data: FloatArray } {
  return isFloatDType(t.dtype) && isFloatArray(t.data);
}
