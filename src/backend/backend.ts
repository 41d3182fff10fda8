import type { TensorData } from '../core/data.js';
import type { Distribution } from '../core/distribution.js';
import type { DType } from '../core/dtype.js';
import type { ArgOp, BinaryOp, CompareOp, PredicateOp, ReduceOp, ScanOp, ScatterOp, UnaryOp } from './ops.js';
import type {
  AdamStepOptions,
  AttentionOptions,
  AvgPoolOptions,
  ConvOptions,
  ConvTransposeOptions,
  DeformConvOptions,
  GridSampleOptions,
  InterpolateOptions,
  MaxPoolOptions,
  UnfoldOptions,
} from './options.js';
import type { AutodiffOps } from './autodiff.js';
import type { CustomCall } from './custom.js';
import type { FusedCall } from './fusion/program.js';
import type { RandomKey } from './rng.js';

/** What every backend's tensor handle exposes; everything else about it is private to the backend. */
export interface TensorPrimitive {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** One dimension of a slice, normalized: the first index, the element count and a signed step. */
export interface SliceSpec {
  readonly start: number;
  readonly size: number;
  readonly step: number;
}

/** Which dims and sizes a primitive layout op keeps; see {@link RequiredOps.slice}. */
export type SliceSpecs = readonly SliceSpec[];

/**
 * The small set of operations a backend must implement. Every other tensor operation has a
 * default written over these (see {@link BaseBackend}), so a new backend is this list; it may
 * override any default to go faster.
 *
 * Conventions: ops never mutate their inputs; dims are already normalized (non-negative, in range)
 * and shapes already checked by the tensor API; reductions keep reduced dims with size 1.
 */
export interface RequiredOps<P extends TensorPrimitive = TensorPrimitive> {
  /** Backend name, e.g. `cpu(js)`. */
  readonly name: string;

  // --- data ---
  /** Uploads host data. */
  fromData(data: TensorData): P;
  /** Reads a tensor back to the host. */
  toData(p: P): Promise<TensorData>;
  /** Reads synchronously, or returns undefined where the backend cannot (WebGPU). */
  toDataSync(p: P): TensorData | undefined;
  /**
   * @internal The values without a copy where the backend can (contiguous CPU tensors), else
   * undefined: for serializing at once only — the result is never mutated nor kept.
   */
  viewDataSync?(p: P): TensorData | undefined;
  /** A tensor of `shape` filled with `value` (converted to `dtype`). */
  fill(shape: readonly number[], value: number, dtype: DType): P;

  // --- layout (views where the backend can) ---
  reshape(p: P, shape: readonly number[]): P;
  /** `out.shape[i] = p.shape[axes[i]]`. */
  permute(p: P, axes: readonly number[]): P;
  /** Broadcasts size-1 (or missing leading) dims to `shape`. */
  expand(p: P, shape: readonly number[]): P;
  /** One spec per dim: element `k` of dim `d` is input index `start + k * step`. */
  slice(p: P, specs: SliceSpecs): P;
  /** Returns `p` with the region described by `specs` replaced by `values` (whose shape is the region's). */
  sliceAssign(p: P, specs: SliceSpecs, values: P): P;
  /** Concatenates along `dim`; all inputs share dtype and the other sizes. */
  cat(ps: readonly P[], dim: number): P;

  // --- elementwise ---
  unary(op: UnaryOp, p: P): P;
  /** Elementwise predicate, result dtype bool. */
  predicate(op: PredicateOp, p: P): P;
  /** Broadcasting binary op; the result has `a`'s dtype. */
  binary(op: BinaryOp, a: P, b: P): P;
  /** Broadcasting comparison, result dtype bool. */
  compare(op: CompareOp, a: P, b: P): P;
  /** `cond ? a : b` elementwise, broadcasting all three. */
  where(cond: P, a: P, b: P): P;
  /** Converts to `dtype` (floats to ints truncate and saturate; NaN becomes 0). */
  cast(p: P, dtype: DType): P;

  // --- reductions and scans ---
  reduce(op: ReduceOp, p: P, dims: readonly number[]): P;
  /** Index of the extreme along `dim`, as `i32`, dim kept with size 1. */
  argReduce(op: ArgOp, p: P, dim: number): P;
  /** Inclusive scan along `dim`. */
  scan(op: ScanOp, p: P, dim: number): P;

  // --- indexing ---
  /** `out[i][j][k] = p[idx[i][j][k]][j][k]` for dim 0 (PyTorch's gather); out has idx's shape. */
  gather(p: P, dim: number, indices: P): P;
  /** `out[idx[i][j][k]][j][k] (op)= values[i][j][k]` for dim 0 (PyTorch's scatter/scatter_reduce). */
  scatter(op: ScatterOp, p: P, dim: number, indices: P, values: P): P;

  // --- linear algebra, ordering ---
  /** Batched matrix product with broadcasting over the leading dims (both rank >= 2, same rank). */
  matmul(a: P, b: P): P;
  /** Stable sort along `dim`: sorted values and their `i32` source indices. */
  sort(p: P, dim: number, descending: boolean): [P, P];
}

/**
 * The full backend: the required ops plus every op with a default implementation, then the
 * optional kernels (the group at the end, with the one protocol for fast paths). Tensor methods
 * call these; decorators (autodiff, fusion) implement the same interface.
 */
export interface Backend<P extends TensorPrimitive = TensorPrimitive> extends RequiredOps<P> {
  /** Automatic differentiation, present on autodiff decorators only. */
  readonly autodiff?: AutodiffOps<P> | undefined;

  // --- memory (backends whose tensors hold device memory, e.g. WebGPU; absent on the CPU) ---
  /** Releases the device memory `p` holds (idempotent); `p` must not be used afterwards. */
  dispose?(p: P): void;
  /** A second handle on `p`'s values that holds its own reference (released with {@link dispose}). */
  retain?(p: P): P;
  /** Waits until queued device work has finished (asynchronous backends). */
  sync?(): Promise<void>;
  /**
   * Optional: reads several tensors in one device round trip (on WebGPU one submit and one
   * readback), in order. Without it a `Transaction` issues every `toData` before awaiting any.
   */
  toDataMany?(ps: readonly P[]): Promise<TensorData[]>;
  /** Backend details for `device.info()`: adapter, features, limits, memory counters. */
  info?(): object;
  /**
   * For backends that cannot read values synchronously (WebGPU), where a caller cannot check
   * indices before using them: `indices` (an integer tensor) with a device-side check that every
   * value lies in `[lo, hi)`. If one does not, reads of everything computed from the returned
   * tensor throw `error(value)`. Callers that can read the values check them themselves.
   */
  checkIndices?(indices: P, lo: number, hi: number, error: (index: number) => Error): P;

  // --- creation ---
  /** Random values from `dist`; the same key gives the same values on every backend. */
  random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): P;
  /** `start, start + step, …` below `end` (exclusive). */
  arange(start: number, end: number, step: number, dtype: DType): P;

  // --- elementwise with a scalar ---
  binaryScalar(op: BinaryOp, a: P, scalar: number): P;
  compareScalar(op: CompareOp, a: P, scalar: number): P;
  /** Clamps into [min, max]; either bound may be undefined. */
  clamp(p: P, min: number | undefined, max: number | undefined): P;
  /** `mask ? value : p`. */
  maskFill(p: P, mask: P, value: number): P;

  // --- indexing ---
  /** Selects entries of 1-d `indices` along `dim`. */
  select(p: P, dim: number, indices: P): P;
  /** Combines `values` into the positions `indices` (1-d) along `dim`. */
  selectAssign(op: ScatterOp, p: P, dim: number, indices: P, values: P): P;

  // --- activation ---
  softmax(p: P, dim: number): P;
  logSoftmax(p: P, dim: number): P;
  /**
   * `max(x, 0)` of a float tensor, NaN kept (the default masks the values `<= 0`). A backend that
   * records gradients overrides it so that ReLU is one node whose gradient is 0 at 0, as PyTorch's.
   */
  relu(p: P): P;
  /** The ReLU input gradient from its output: `grad` where `output > 0` or NaN, else 0. */
  reluBackward(output: P, grad: P): P;

  // --- module ops (N spatial dims = rank - 2; NCHW-style layouts) ---
  conv(x: P, weight: P, bias: P | undefined, options: ConvOptions): P;
  convTranspose(x: P, weight: P, bias: P | undefined, options: ConvTransposeOptions): P;
  deformConv2d(x: P, offset: P, weight: P, mask: P | undefined, bias: P | undefined, options: DeformConvOptions): P;
  /** im2col: `[N, C, H, W]` → `[N, C * kh * kw, L]`. */
  unfold4d(x: P, kernelSize: readonly number[], options: UnfoldOptions): P;
  maxPool(x: P, options: MaxPoolOptions): P;
  /** Max pooling with the flat spatial index (per channel, as PyTorch) of each maximum, as `i32`. */
  maxPoolWithIndices(x: P, options: MaxPoolOptions): [P, P];
  avgPool(x: P, options: AvgPoolOptions): P;
  adaptiveAvgPool(x: P, outputSize: readonly number[]): P;
  /** Resizes the spatial dims of `[N, C, ...spatial]` to `outputSize`. */
  interpolate(x: P, outputSize: readonly number[], options: InterpolateOptions): P;
  /** Samples `[N, C, H, W]` at the normalized coordinates of `grid` `[N, Ho, Wo, 2]`. */
  gridSample2d(x: P, grid: P, options: GridSampleOptions): P;
  /** Scaled dot-product attention over `[..., L, E]` queries and `[..., S, E]` keys. */
  attention(q: P, k: P, v: P, mask: P | undefined, bias: P | undefined, options: AttentionOptions): P;

  // --- user-defined ops ---
  /**
   * Optional: runs this backend's forward of a user-defined op (`defineCustomOp`) on `inputs`,
   * giving a tensor of `call.shape` and `call.dtype`, or undefined where the op has no forward for
   * this backend (the tensor API then runs the op's composite, or throws a BurnError naming the op
   * and the backend). Decorators record it: autodiff uses `call.backward`.
   */
  customOp?(call: CustomCall, inputs: readonly P[]): P | undefined;

  // --- fused kernels (the fusion decorator's code generators; src/backend/fusion/) ---
  /**
   * Optional: runs a fused program (a block of elementwise ops and row reductions recorded by the
   * fusion decorator) as one kernel, returning one new primitive per program output, or undefined
   * where this backend has no fused kernel for it (the decorator then replays the program op by op
   * with `replayFused`). Follows the optional-kernel protocol below (3 and 4): its values equal the
   * replay's.
   */
  fused?(call: FusedCall<P>): P[] | undefined;
  /**
   * The most tensors (inputs plus outputs) one fused kernel of this backend can bind (WebGPU's
   * storage-buffer limit); the fusion decorator cuts blocks to fit. Absent: no limit.
   */
  readonly maxFusedBindings?: number;

  // --- optional kernels ---
  /*
   * The one protocol for a fast path that only some backends have (an "optional kernel"):
   * 1. A fast form of an op whose fallback is a sequence of backend ops is not optional: the op is
   *    a method with its default in `BaseBackend` (./base.ts, over ./defaults/), which a backend
   *    overrides to go faster (`relu`, `softmax`, `clamp`). Code above the backends (tensor, nn,
   *    onnx, optim) calls the method, never ./defaults/.
   * 2. An optional kernel is a fused form whose fallback lives above the backend, in its one caller
   *    (the ONNX op, the optimizer, the autodiff rule): an optional method in this group, here at
   *    the end of `Backend`, and nowhere else.
   * 3. It returns its result, or `undefined` to decline where it has no kernel for these dtypes,
   *    shapes or layouts: never `false`, `null` or an exception for "no kernel". Its values equal
   *    the fallback's (within a few ulp where its doc says so).
   * 4. The caller calls `backend.kernel?.(…)` and runs its fallback on `undefined`; it may test
   *    `backend.kernel` first to skip preparing the arguments.
   * 5. Decorators that record gradients do not forward them (the autodiff rules call
   *    `convWeightGrad` and `maxPoolGrad` on the inner backend). `customOp` follows 3 and 4 too.
   * The other optional members above are device capabilities (memory, readback, index checks), not
   * fast paths; test/backends/optional-kernels.test.ts checks this list and rules 1, 3 and 5.
   * The CPU engines' kernels (`CpuEngineKernels`, src/backends/cpu/engine.ts) follow 3 and 4 too.
   */
  /**
   * The exact GELU `x · (1 + erf(x / √2)) / 2` of a float tensor in one pass (within a few ulp of
   * the op-by-op form). Fallback: the ONNX `Gelu` op's `x.gelu()`.
   */
  gelu?(p: P): P | undefined;
  /**
   * Layer normalization over the last dim, `(x − mean) / √(var + eps) · gamma (+ beta)` with
   * `gamma` and `beta` of the last dim's size, in one pass per row (within a few ulp of the
   * op-by-op form). Fallback: the ONNX `LayerNormalization` op's op-by-op form.
   */
  layerNorm?(x: P, gamma: P, beta: P | undefined, eps: number): P | undefined;
  /**
   * `clamp(conv(x, weight, bias) (+ residual), min, max)` of a 2-d convolution with the clamp
   * applied in the output pass (a fused ReLU is `[0, ∞]`, ReLU6 `[0, 6]`); `residual`, of the
   * output's shape and dtype, is added before the clamp (ResNet's `Conv → Add → Relu`). Fallback:
   * the ONNX runtime's fused Conv step runs `conv`, the `Add` and the activation.
   */
  convClamp?(
    x: P,
    weight: P,
    bias: P | undefined,
    options: ConvOptions,
    min: number,
    max: number,
    residual?: P,
  ): P | undefined;
  /**
   * One Adam step of a parameter in one pass (as PyTorch's fused Adam), every intermediate rounded
   * to the dtype where the op-by-op update rounds it (the same values). `moment1` and `moment2` are
   * undefined on the first step (zero moments). Returns the new [param, moment1, moment2].
   * Fallback: the optimizer's op-by-op update.
   */
  adamStep?(
    param: P,
    grad: P,
    moment1: P | undefined,
    moment2: P | undefined,
    options: AdamStepOptions,
  ): [P, P, P] | undefined;
  /**
   * The weight gradient of `conv(x, weight)` (shape `weightShape`) for the output gradient `grad`.
   * Fallback: the autodiff rule contracts im2col columns with a batched matmul.
   */
  convWeightGrad?(x: P, grad: P, weightShape: readonly number[], options: ConvOptions): P | undefined;
  /**
   * The input gradient (shape `inputShape`) of max pooling for the output gradient `grad` and the
   * flat per-plane argmax `indices` of `maxPoolWithIndices`. Fallback: the autodiff rule
   * scatter-adds into zeros.
   */
  maxPoolGrad?(grad: P, indices: P, inputShape: readonly number[]): P | undefined;
}
