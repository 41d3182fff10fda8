/**
 * The `native` CPU engine: the Node addon's kernels (AVX-512 / AVX2+FMA / generic, chosen at run
 * time, on a persistent thread pool of `BURN_NUM_THREADS` threads, default the CPUs), working in
 * place on the tensors' typed arrays. Tiny tensors never reach the addon: below a size threshold
 * the `js` kernels are faster than a call into C, so the engine declines them.
 */
import type { BinaryOp, CompareOp, ReduceOp, UnaryOp } from '../../../backend/ops.js';
import type { AdamStepOptions, ConvOptions, MaxPoolOptions, UnfoldOptions } from '../../../backend/options.js';
import type { RandomKey } from '../../../backend/rng.js';
import type { DType } from '../../../core/dtype.js';
import type {
  Conv2dArgs,
  ConvTranspose2dArgs,
  CpuEngineKernels,
  FloatArray,
  FusedEngineArgs,
  GemmArgs,
  UniformDistribution,
} from '../engine.js';
import type { AdamArrays } from '../js/optim.js';
import type { CpuArray } from '../storage.js';
import type { NativeAddon } from './addon.js';
import { BINARY_COST, UNARY_COST } from '../op-cost.js';
import { nativeOpCodes, type NativeOpCodes } from './ops.js';
import { encodeFusedProgram, type EncodedFused } from './fused.js';

/** Thresholds below which the engine declines work (the `js` kernels are faster there). */
export interface NativeEngineOptions {
  /** Least elements of a cheap elementwise op, reduction or copy (default 2048). */
  readonly minElements?: number;
  /** Least elements of a transcendental elementwise op or softmax (default 128). */
  readonly minCostlyElements?: number;
  /** Least multiply-adds (batch·M·N·K) of a matmul (default 4096). */
  readonly minGemm?: number;
  /** Outputs of at least this many bytes are allocated without zeroing (default 65536). */
  readonly minAllocBytes?: number;
  /** Instruction set to use (`avx512`, `avx2`, `generic`); default: the best this CPU has. */
  readonly isa?: string;
}

/** Geometry options of a convolution, unfold or pooling call. */
interface Window2d {
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
}

/** Strided calls take at most this rank (the addon's limit). */
const MAX_RANK = 8;

/** Large outputs skip the zero fill of `new Float32Array(n)` (every kernel writes its whole output). */
const unsafeBuffer = (globalThis as { Buffer?: { allocUnsafeSlow(size: number): Uint8Array } }).Buffer;

/** Weights packed for one geometry of conv2d (`data` undefined: seen once, or `tag` −1: not packable). */
interface PackedWeights {
  readonly geometry: string;
  readonly data: FloatArray | undefined;
  /** The addon's layout tag of `data`. */
  readonly tag: number;
}

/** The native engine over a loaded addon (see ./index.ts for loading it). */
export class NativeEngine implements CpuEngineKernels {
  readonly name = 'native';
  private readonly minElements: number;
  private readonly minCostly: number;
  private readonly minGemm: number;
  private readonly minPooled: number;
  /** A parameter block reused by every call (grown on demand). */
  private params = new Float64Array(64);
  /** Convolution weights packed for the addon, by the key that stands for their values (see Conv2dArgs.weightKey). */
  private readonly packed = new WeakMap<object, PackedWeights>();
  /** Fused programs encoded for the addon by structural key (null: the interpreter does not take it). */
  private readonly fusedCode = new Map<string, EncodedFused | null>();

  /** `codes`: the addon's op codes by name (default: matched from `addon.ops`). */
  constructor(
    private readonly addon: NativeAddon,
    options: NativeEngineOptions = {},
    private readonly codes: NativeOpCodes = nativeOpCodes(addon.ops),
  ) {
    this.minElements = options.minElements ?? 2048;
    this.minCostly = options.minCostlyElements ?? 128;
    this.minGemm = options.minGemm ?? 4096;
    this.minPooled = options.minAllocBytes ?? 65536;
    if (options.isa !== undefined && !addon.setIsa(options.isa))
      throw new Error(`native engine: this CPU has no ${options.isa} support`);
  }

  alloc(dtype: DType, n: number): CpuArray | undefined {
    if (!unsafeBuffer || (dtype !== 'f32' && dtype !== 'f64' && dtype !== 'f16' && dtype !== 'bf16')) return undefined;
    const bytes = (dtype === 'f64' ? 8 : 4) * n;
    if (bytes < this.minPooled) return undefined;
    let buf: Uint8Array;
    try {
      buf = unsafeBuffer.allocUnsafeSlow(bytes);
    } catch {
      return undefined; // past the largest Buffer (4 GiB in Node 20): a typed array may still hold it
    }
    return dtype === 'f64'
      ? new Float64Array(buf.buffer, buf.byteOffset, n)
      : new Float32Array(buf.buffer, buf.byteOffset, n);
  }

  gemm(args: GemmArgs): FloatArray | undefined {
    const batch = args.aOffsets.length;
    if (batch * args.m * args.n * args.k < this.minGemm) return undefined;
    const p = this.block(8 + 2 * batch);
    p[0] = args.m;
    p[1] = args.n;
    p[2] = args.k;
    p[3] = args.aRowStride;
    p[4] = args.aColStride;
    p[5] = args.bRowStride;
    p[6] = args.bColStride;
    p[7] = batch;
    for (let i = 0; i < batch; i++) {
      p[8 + i] = args.aOffsets[i]!;
      p[8 + batch + i] = args.bOffsets[i]!;
    }
    this.addon.gemm(p, args.a, args.b, args.c);
    return args.c;
  }

  binary(
    op: BinaryOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    b: FloatArray,
    bOffset: number,
    n: number,
  ): FloatArray | undefined {
    const code = this.codes.binary[op];
    if (code === undefined || n < this.leastElements(BINARY_COST[op])) return undefined;
    this.addon.binary(code, out, a, aOffset, b, bOffset, n);
    return out;
  }

  reluBackward(
    out: FloatArray,
    y: FloatArray,
    yOffset: number,
    g: FloatArray,
    gOffset: number,
    n: number,
  ): FloatArray | undefined {
    const code = this.codes.binary.reluGrad;
    if (code === undefined || n < this.minElements || y.constructor !== g.constructor) return undefined;
    this.addon.binary(code, out, y, yOffset, g, gOffset, n);
    return out;
  }

  random(out: FloatArray, dist: UniformDistribution, key: RandomKey): FloatArray | undefined {
    if (out.length < this.minElements) return undefined;
    const h = this.block(6);
    h[0] = dist.kind === 'default' ? 0 : dist.kind === 'uniform' ? 1 : 2;
    h[1] = dist.kind === 'uniform' ? dist.low : dist.kind === 'bernoulli' ? dist.prob : 0;
    h[2] = dist.kind === 'uniform' ? dist.high : 0;
    h[3] = key.key0 >>> 0;
    h[4] = key.key1 >>> 0;
    h[5] = key.stream >>> 0;
    this.addon.random(h, out, out.length);
    return out;
  }

  adamStep(a: AdamArrays, o: AdamStepOptions): AdamArrays | undefined {
    if (a.n < this.minElements) return undefined;
    const h = this.block(7);
    h[0] = o.beta1;
    h[1] = 1 - o.beta1;
    h[2] = o.beta2;
    h[3] = 1 - o.beta2;
    h[4] = o.factor;
    h[5] = o.epsilon;
    h[6] = a.m && a.v ? 0 : 1;
    // The first step reads no moments: the gradient stands in for them.
    this.addon.adamStep(
      h,
      a.outP,
      a.outM,
      a.outV,
      a.p,
      a.pOffset,
      a.g,
      a.gOffset,
      a.m ?? a.g,
      a.m ? a.mOffset : a.gOffset,
      a.v ?? a.g,
      a.v ? a.vOffset : a.gOffset,
      a.n,
    );
    return a;
  }

  binaryScalar(
    op: BinaryOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    scalar: number,
    n: number,
  ): FloatArray | undefined {
    const code = this.codes.binary[op];
    if (code === undefined || n < this.leastElements(BINARY_COST[op])) return undefined;
    this.addon.binaryScalar(code, out, a, aOffset, scalar, n);
    return out;
  }

  binaryStrided(
    op: BinaryOp,
    out: FloatArray,
    shape: readonly number[],
    a: FloatArray,
    aOffset: number,
    aStrides: readonly number[],
    b: FloatArray,
    bOffset: number,
    bStrides: readonly number[],
  ): FloatArray | undefined {
    const code = this.codes.binary[op];
    if (code === undefined || !this.stridedWorth(shape)) return undefined;
    this.addon.binaryStrided(
      withCode(this.stridedParams(1, shape, [aOffset, bOffset], [aStrides, bStrides]), code),
      out,
      a,
      b,
    );
    return out;
  }

  compareScalar(
    op: CompareOp,
    out: Uint8Array,
    a: FloatArray,
    aOffset: number,
    scalar: number,
    n: number,
  ): Uint8Array | undefined {
    const code = this.codes.compare[op];
    if (code === undefined || n < this.minElements) return undefined;
    this.addon.compareScalar(code, out, a, aOffset, scalar, n);
    return out;
  }

  where(
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
  ): FloatArray | undefined {
    if (!this.stridedWorth(shape)) return undefined;
    this.addon.whereStrided(
      this.stridedParams(0, shape, [cOffset, aOffset, bOffset], [cStrides, aStrides, bStrides]),
      out,
      cond,
      a,
      b,
    );
    return out;
  }

  reduceStrided(
    op: ReduceOp,
    out: FloatArray,
    shape: readonly number[],
    a: FloatArray,
    aOffset: number,
    aStrides: readonly number[],
    outStrides: readonly number[],
  ): FloatArray | undefined {
    const code = this.codes.reduce[op];
    if (code === undefined || !this.stridedWorth(shape)) return undefined;
    this.addon.reduceStrided(
      withCode(this.stridedParams(1, shape, [aOffset, 0], [aStrides, outStrides]), code),
      out,
      a,
    );
    return out;
  }

  unary(op: UnaryOp, out: FloatArray, a: FloatArray, aOffset: number, n: number): FloatArray | undefined {
    const code = this.codes.unary[op];
    if (code === undefined || n < this.leastElements(UNARY_COST[op])) return undefined;
    this.addon.unary(code, out, a, aOffset, n);
    return out;
  }

  clamp(out: FloatArray, a: FloatArray, aOffset: number, n: number, lo: number, hi: number): FloatArray | undefined {
    if (n < this.minElements || !exactIn(out, lo) || !exactIn(out, hi)) return undefined;
    const p = this.block(2);
    p[0] = lo;
    p[1] = hi;
    this.addon.clamp(out, a, aOffset, n, p);
    return out;
  }

  layerNorm(
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    gamma: FloatArray,
    beta: FloatArray | undefined,
    rows: number,
    len: number,
    eps: number,
  ): FloatArray | undefined {
    if (rows * len < this.minCostly) return undefined;
    const p = this.block(1);
    p[0] = eps;
    this.addon.layerNorm(out, a, aOffset, gamma, beta ?? null, rows, len, p);
    return out;
  }

  gelu(out: FloatArray, a: FloatArray, aOffset: number, n: number): FloatArray | undefined {
    if (n < this.minCostly) return undefined;
    this.addon.gelu(out, a, aOffset, n);
    return out;
  }

  reduceRows(
    op: ReduceOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    rows: number,
    len: number,
  ): FloatArray | undefined {
    const code = this.codes.reduce[op];
    if (code === undefined || rows * len < this.minElements) return undefined;
    this.addon.reduceRows(code, out, a, aOffset, rows, len);
    return out;
  }

  softmaxRows(
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    rows: number,
    len: number,
    log: boolean,
  ): FloatArray | undefined {
    if (rows * len < this.minCostly) return undefined;
    this.addon.softmaxRows(out, a, aOffset, rows, len, log ? 1 : 0);
    return out;
  }

  copyStrided(
    shape: readonly number[],
    dst: FloatArray,
    dstOffset: number,
    dstStrides: readonly number[],
    src: FloatArray,
    srcOffset: number,
    srcStrides: readonly number[],
  ): FloatArray | undefined {
    if (!this.stridedWorth(shape) || dst.constructor !== src.constructor) return undefined;
    this.addon.copyStrided(this.stridedParams(0, shape, [dstOffset, srcOffset], [dstStrides, srcStrides]), dst, src);
    return dst;
  }

  conv2d(args: Conv2dArgs): FloatArray | undefined {
    const [, cout, oh, ow] = args.outShape;
    if (args.options.padding.length !== 2 || numel(args.outShape) * numel(args.wShape.slice(1)) < this.minGemm)
      return undefined;
    const [lo, hi] = args.clamp ?? [-Infinity, Infinity];
    if (!exactIn(args.out, lo) || !exactIn(args.out, hi)) return undefined;
    const p = this.convParams(args.xShape, cout, args.wShape.slice(2), [oh, ow], args.options, args.options.groups);
    p[16] = lo;
    p[17] = hi;
    const packed = args.weightKey === undefined ? undefined : this.packedWeights(args.weightKey, p, args.w);
    p[18] = packed?.tag ?? 0;
    this.addon.conv2d(p, args.x, args.w, args.bias ?? null, args.out, packed?.data ?? null, args.residual ?? null);
    return args.out;
  }

  /**
   * The packed weights kept under `key` for the geometry `p`, packed on the second call that
   * brings them (a weight used once — a training step's — is not worth a packed copy), or
   * undefined. A copy lives as long as its key (a WeakMap).
   */
  private packedWeights(key: object, p: Float64Array, w: FloatArray): PackedWeights | undefined {
    // Every value but the batch size decides the layout.
    let geometry = '';
    for (let i = 1; i < 16; i++) geometry += `${p[i]},`;
    const kept = this.packed.get(key);
    if (kept?.geometry !== geometry) {
      this.packed.set(key, { geometry, data: undefined, tag: 0 });
      return undefined;
    }
    if (kept.data !== undefined || kept.tag < 0) return kept.data === undefined ? undefined : kept;
    const length = this.addon.convPackWeights(p, w, null);
    if (length === 0) {
      // This geometry's path reads the weights as they are (depthwise).
      this.packed.set(key, { geometry, data: undefined, tag: -1 });
      return undefined;
    }
    const data = new (w.constructor as Float32ArrayConstructor | Float64ArrayConstructor)(length);
    const entry = { geometry, data, tag: this.addon.convPackWeights(p, w, data) };
    this.packed.set(key, entry);
    return entry;
  }

  convTranspose2d(args: ConvTranspose2dArgs): FloatArray | undefined {
    const [, cout, oh, ow] = args.outShape;
    if (args.options.padding.length !== 2 || numel(args.xShape) * numel(args.wShape.slice(1)) < this.minGemm)
      return undefined;
    this.addon.convTranspose2d(
      this.convParams(args.xShape, cout, args.wShape.slice(2), [oh, ow], args.options, args.options.groups),
      args.x,
      args.w,
      args.bias ?? null,
      args.out,
    );
    return args.out;
  }

  conv2dWeightGrad(
    x: FloatArray,
    xShape: readonly number[],
    g: FloatArray,
    gShape: readonly number[],
    dw: FloatArray,
    wShape: readonly number[],
    options: ConvOptions,
  ): FloatArray | undefined {
    if (options.padding.length !== 2 || numel(gShape) * numel(wShape.slice(1)) < this.minGemm) return undefined;
    this.addon.conv2dWeightGrad(
      this.convParams(xShape, wShape[0]!, wShape.slice(2), gShape.slice(2), options, options.groups),
      x,
      g,
      dw,
    );
    return dw;
  }

  unfold2d(
    x: FloatArray,
    xShape: readonly number[],
    kernel: readonly number[],
    outSpatial: readonly number[],
    options: UnfoldOptions,
    out: FloatArray,
  ): FloatArray | undefined {
    if (out.length < this.minElements) return undefined;
    this.addon.unfold2d(this.convParams(xShape, xShape[1]!, kernel, outSpatial, options, 1), x, out);
    return out;
  }

  maxPoolBackward(
    g: FloatArray,
    indices: Int32Array,
    dx: FloatArray,
    planes: number,
    plane: number,
  ): FloatArray | undefined {
    if (g.length < this.minElements) return undefined;
    this.addon.maxPoolBackward(planes, plane, g, indices, dx);
    return dx;
  }

  maxPool2d(
    x: FloatArray,
    xShape: readonly number[],
    out: FloatArray,
    outShape: readonly number[],
    indices: Int32Array | undefined,
    o: MaxPoolOptions,
  ): FloatArray | undefined {
    if (out.length * o.kernelSize[0]! * o.kernelSize[1]! < this.minElements) return undefined;
    this.addon.maxPool2d(
      this.convParams(xShape, xShape[1]!, o.kernelSize, outShape.slice(2), o, 1),
      x,
      out,
      indices ?? null,
    );
    return out;
  }

  /**
   * Runs a fused program in the addon's tiled interpreter (native/src/fused_program.cc): f32 or f64
   * programs (with bool masks) of the ops the addon has, rank ≤ 8; declines everything else, and
   * iteration spaces below `minElements` (the generated JavaScript is faster there).
   */
  fused(args: FusedEngineArgs): readonly CpuArray[] | undefined {
    if (typeof this.addon.fused !== 'function') return undefined; // an addon built before fused programs
    const { program, shape, innerRank, inputs, outputs, scalars } = args;
    if (shape.length > MAX_RANK || innerRank > shape.length || numel(shape) < this.minElements) return undefined;
    // A reduction over an empty row is the generated JavaScript's (identities per op).
    if (
      program.reduces &&
      shape.slice(shape.length - innerRank).includes(0) &&
      numel(shape.slice(0, shape.length - innerRank)) > 0
    )
      return undefined;
    let enc = this.fusedCode.get(program.key);
    if (enc === undefined) {
      enc = encodeFusedProgram(program, this.codes) ?? null;
      if (this.fusedCode.size >= 4096) this.fusedCode.clear(); // a bound, for programs generated without end
      this.fusedCode.set(program.key, enc);
    }
    if (enc === null) return undefined;
    const Float = enc.dtype === 'f32' ? Float32Array : Float64Array;
    const typeOk = (a: CpuArray, bool: boolean) => (bool ? a instanceof Uint8Array : a instanceof Float);
    for (let i = 0; i < inputs.length; i++)
      if (!typeOk(inputs[i]!.data, program.inputs[i]!.dtype === 'bool')) return undefined;
    for (let k = 0; k < outputs.length; k++)
      if (!typeOk(outputs[k]!, program.instrs[program.outputs[k]!.value]!.dtype === 'bool')) return undefined;
    // A rank-0 space is one element: rank 1 with stride 0.
    const rank = Math.max(shape.length, 1);
    const p = this.block(2 + rank + inputs.length * (1 + rank) + scalars.length);
    let w = 0;
    p[w++] = rank;
    p[w++] = innerRank;
    for (let d = 0; d < rank; d++) p[w++] = shape[d] ?? 1;
    for (const x of inputs) {
      p[w++] = x.offset;
      for (let d = 0; d < rank; d++) p[w++] = x.strides[d] ?? 0;
    }
    for (const s of scalars) p[w++] = s;
    this.addon.fused(enc.code, p, [...inputs.map((x) => x.data), ...outputs]);
    return outputs;
  }

  /** Least elements of an elementwise op of this cost for the addon to pay. */
  private leastElements(cost: 'cheap' | 'costly'): number {
    return cost === 'costly' ? this.minCostly : this.minElements;
  }

  /** Whether a strided call over `shape` fits the addon (rank 1 to 8) and is large enough. */
  private stridedWorth(shape: readonly number[]): boolean {
    return shape.length >= 1 && shape.length <= MAX_RANK && numel(shape) >= this.minElements;
  }

  /** The parameter block, at least `n` values long. */
  private block(n: number): Float64Array {
    return this.params.length >= n
      ? this.params
      : (this.params = new Float64Array(Math.max(n, this.params.length * 2)));
  }

  /** The 16 geometry values of a convolution, unfold or pooling call. */
  private convParams(
    xShape: readonly number[],
    cout: number,
    kernel: readonly number[],
    outSpatial: readonly number[],
    o: Window2d,
    groups: number,
  ): Float64Array {
    const p = this.block(19);
    p[0] = xShape[0]!;
    p[1] = xShape[1]!;
    p[2] = xShape[2]!;
    p[3] = xShape[3]!;
    p[4] = cout;
    p[5] = kernel[0]!;
    p[6] = kernel[1]!;
    p[7] = outSpatial[0]!;
    p[8] = outSpatial[1]!;
    p[9] = o.stride[0]!;
    p[10] = o.stride[1]!;
    p[11] = o.padding[0]!;
    p[12] = o.padding[1]!;
    p[13] = o.dilation[0]!;
    p[14] = o.dilation[1]!;
    p[15] = groups;
    return p;
  }

  /** From index `first`: the rank, the shape, then per operand its offset and strides. */
  private stridedParams(
    first: number,
    shape: readonly number[],
    offsets: readonly number[],
    strides: readonly (readonly number[])[],
  ): Float64Array {
    const rank = shape.length;
    const p = this.block(first + 1 + rank + offsets.length * (1 + rank));
    let w = first;
    p[w++] = rank;
    for (let d = 0; d < rank; d++) p[w++] = shape[d]!;
    for (let o = 0; o < offsets.length; o++) {
      p[w++] = offsets[o]!;
      for (let d = 0; d < rank; d++) p[w++] = strides[o]![d]!;
    }
    return p;
  }
}

/** Whether `v` is ±∞ or survives the rounding to `out`'s element type (f32 bounds are clamped as f32). */
function exactIn(out: FloatArray, v: number): boolean {
  return !Number.isFinite(v) ? !Number.isNaN(v) : out instanceof Float64Array || Math.fround(v) === v;
}

function numel(shape: readonly number[]): number {
  return shape.reduce((a, s) => a * s, 1);
}

/** Writes the op code at index 0 of a parameter block (strided calls). */
function withCode(p: Float64Array, code: number): Float64Array {
  p[0] = code;
  return p;
}
