import type { BinaryOp, CompareOp, ReduceOp, UnaryOp } from '../../backend/ops.js';
import type { ConvOptions, MaxPoolOptions, UnfoldOptions } from '../../backend/options.js';
import type { Conv2dArgs, ConvTranspose2dArgs, CpuEngineKernels, FloatArray, GemmArgs } from './engine.js';

/**
 * The `native` CPU engine: a Node addon (native/, N-API, built by `npm install` through node-gyp)
 * with AVX-512 / AVX2+FMA / generic kernels chosen at run time and a persistent thread pool
 * (`BURN_NUM_THREADS`, default: the CPUs). It works in place on the tensors' typed arrays. Tiny
 * tensors never reach the addon: below a size threshold the `js` kernels are faster than a call
 * into C, so the engine declines them.
 */

/** The addon's functions (native/src/addon.cc). */
export interface NativeAddon {
  info(): { isa: string; threads: number };
  setIsa(name: string): boolean;
  gemm(p: Float64Array, a: FloatArray, b: FloatArray, c: FloatArray): void;
  binary(op: number, out: FloatArray, a: FloatArray, aOffset: number, b: FloatArray, bOffset: number, n: number): void;
  binaryScalar(op: number, out: FloatArray, a: FloatArray, aOffset: number, scalar: number, n: number): void;
  unary(op: number, out: FloatArray, a: FloatArray, aOffset: number, n: number): void;
  /** `lh`: [lo, hi], each exact in the arrays' type or ±∞. */
  clamp(out: FloatArray, a: FloatArray, aOffset: number, n: number, lh: Float64Array): void;
  gelu(out: FloatArray, a: FloatArray, aOffset: number, n: number): void;
  /** `eps`: a one-value Float64Array. */
  layerNorm(out: FloatArray, a: FloatArray, aOffset: number, gamma: FloatArray, beta: FloatArray | null, rows: number, len: number, eps: Float64Array): void;
  reduceRows(op: number, out: FloatArray, a: FloatArray, aOffset: number, rows: number, len: number): void;
  softmaxRows(out: FloatArray, a: FloatArray, aOffset: number, rows: number, len: number, log: number): void;
  binaryStrided(p: Float64Array, out: FloatArray, a: FloatArray, b: FloatArray): void;
  random(h: Float64Array, out: FloatArray, n: number): void;
  adamStep(h: Float64Array, outP: FloatArray, outM: FloatArray, outV: FloatArray, p: FloatArray, pOffset: number, g: FloatArray, gOffset: number, m: FloatArray, mOffset: number, v: FloatArray, vOffset: number, n: number): void;
  copyStrided(p: Float64Array, dst: FloatArray, src: FloatArray): void;
  /** `p`: the geometry (16 values, see convParams), then the clamp bounds of the activation (±∞ for none). */
  conv2d(p: Float64Array, x: FloatArray, w: FloatArray, bias: FloatArray | null, out: FloatArray): void;
  convTranspose2d(p: Float64Array, x: FloatArray, w: FloatArray, bias: FloatArray | null, out: FloatArray): void;
  unfold2d(p: Float64Array, x: FloatArray, out: FloatArray): void;
  conv2dWeightGrad(p: Float64Array, x: FloatArray, g: FloatArray, dw: FloatArray): void;
  maxPool2d(p: Float64Array, x: FloatArray, out: FloatArray, indices: Int32Array | null): void;
  maxPoolBackward(planes: number, plane: number, g: FloatArray, indices: Int32Array, dx: FloatArray): void;
  compareScalar(op: number, out: Uint8Array, a: FloatArray, aOffset: number, scalar: number, n: number): void;
  whereStrided(p: Float64Array, out: FloatArray, cond: Uint8Array, a: FloatArray, b: FloatArray): void;
  reduceStrided(p: Float64Array, out: FloatArray, a: FloatArray): void;
  bandwidth(n: number, reps: number): number;
}

/** The addon as built by scripts/build-native.mjs, relative to this file in src/ and in dist/. */
const ADDON_PATH = '../../../native/build/Release/burn_native.node';

let loaded: { addon: NativeAddon } | { reason: string } | undefined;

/** Loads the addon once; the reason it is unavailable otherwise. */
function load(): { addon: NativeAddon } | { reason: string } {
  if (loaded) return loaded;
  const proc = globalThis.process;
  const getBuiltin = proc?.getBuiltinModule as ((id: string) => unknown) | undefined;
  if (typeof getBuiltin !== 'function') {
    loaded = { reason: proc?.versions?.node ? `Node ${proc.versions.node} cannot load addons from ES modules here (needs Node >= 20.16)` : 'not running in Node' };
    return loaded;
  }
  const mod = getBuiltin('node:module') as { createRequire(url: string | URL): (id: string) => unknown };
  const fs = getBuiltin('node:fs') as { existsSync(path: URL): boolean };
  const url = new URL(ADDON_PATH, import.meta.url);
  if (!fs.existsSync(url)) {
    // Advice that works where burn-ts is a dependency (npm 11 may have skipped its install script).
    loaded = { reason: `the addon is not built (${url.pathname} is missing): build it with \`npm rebuild burn-ts\` (npm 11 skips the install script of a dependency that its "allowScripts" denies, or does not list under strict-allow-scripts: add "allowScripts": { "burn-ts": true } to your package.json; in a burn-ts checkout: \`npm run build:native\`)` };
    return loaded;
  }
  try {
    const addon = mod.createRequire(import.meta.url)(ADDON_PATH) as NativeAddon;
    addon.info();
    loaded = { addon };
  } catch (e) {
    loaded = { reason: `the addon failed to load: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
  return loaded;
}

/** The loaded addon, or undefined (see {@link nativeUnavailableReason}). */
export function nativeAddon(): NativeAddon | undefined {
  const l = load();
  return 'addon' in l ? l.addon : undefined;
}

/** Why the native engine is unavailable, or undefined when it loads. */
export function nativeUnavailableReason(): string | undefined {
  const l = load();
  return 'reason' in l ? l.reason : undefined;
}

const BINARY: Partial<Record<BinaryOp, number>> = { add: 0, sub: 1, mul: 2, div: 3, rem: 4, fmod: 5, pow: 6, atan2: 7, max: 8, min: 9 };
/** The addon's binary op `a <= 0 ? 0 : b` (the ReLU gradient; not a tensor op of its own). */
const RELU_BACKWARD = 10;
const UNARY: Partial<Record<UnaryOp, number>> = {
  neg: 0, abs: 1, sign: 2, exp: 3, expm1: 4, log: 5, log1p: 6, sqrt: 7, recip: 8, sigmoid: 9, sin: 10, cos: 11, tan: 12,
  asin: 13, acos: 14, atan: 15, sinh: 16, cosh: 17, tanh: 18, asinh: 19, acosh: 20, atanh: 21, erf: 22, round: 23, floor: 24,
  ceil: 25, trunc: 26,
};
const REDUCE: Partial<Record<ReduceOp, number>> = { sum: 0, prod: 1, max: 2, min: 3 };
const COMPARE: Record<CompareOp, number> = { eq: 0, ne: 1, gt: 2, ge: 3, lt: 4, le: 5 };
/** Unary ops that cost a libm call per element in JavaScript (worth the addon from a few elements). */
const COSTLY_UNARY = new Set<UnaryOp>(['exp', 'expm1', 'log', 'log1p', 'sigmoid', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'erf']);

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

/** Whether `v` is ±∞ or survives the rounding to `out`'s element type (f32 bounds are clamped as f32). */
function exactIn(out: FloatArray, v: number): boolean {
  return !Number.isFinite(v) ? !Number.isNaN(v) : out instanceof Float64Array || Math.fround(v) === v;
}

/** The native engine over a loaded addon. */
export function nativeEngine(addon: NativeAddon, options: NativeEngineOptions = {}): CpuEngineKernels {
  const minElements = options.minElements ?? 2048;
  const minCostly = options.minCostlyElements ?? 128;
  const minGemm = options.minGemm ?? 4096;
  if (options.isa !== undefined && !addon.setIsa(options.isa)) throw new Error(`native engine: this CPU has no ${options.isa} support`);
  let params = new Float64Array(64);
  const block = (n: number): Float64Array => (params.length >= n ? params : (params = new Float64Array(Math.max(n, params.length * 2))));
  const convParams = (xShape: readonly number[], cout: number, kernel: readonly number[], outSpatial: readonly number[], o: { stride: readonly number[]; padding: readonly number[]; dilation: readonly number[] }, groups: number): Float64Array => {
    const p = block(16);
    p[0] = xShape[0]!; p[1] = xShape[1]!; p[2] = xShape[2]!; p[3] = xShape[3]!;
    p[4] = cout; p[5] = kernel[0]!; p[6] = kernel[1]!; p[7] = outSpatial[0]!; p[8] = outSpatial[1]!;
    p[9] = o.stride[0]!; p[10] = o.stride[1]!; p[11] = o.padding[0]!; p[12] = o.padding[1]!;
    p[13] = o.dilation[0]!; p[14] = o.dilation[1]!; p[15] = groups;
    return p;
  };
  const stridedParams = (first: number, shape: readonly number[], offsets: readonly number[], strides: readonly (readonly number[])[]): Float64Array => {
    const rank = shape.length;
    const p = block(first + 1 + rank + offsets.length * (1 + rank));
    let w = first;
    p[w++] = rank;
    for (let d = 0; d < rank; d++) p[w++] = shape[d]!;
    for (let o = 0; o < offsets.length; o++) {
      p[w++] = offsets[o]!;
      for (let d = 0; d < rank; d++) p[w++] = strides[o]![d]!;
    }
    return p;
  };
  const numel = (shape: readonly number[]): number => shape.reduce((a, s) => a * s, 1);

  // Large outputs skip the zero fill of `new Float32Array(n)` (every kernel writes its whole output).
  const unsafe = (globalThis as { Buffer?: { allocUnsafeSlow(size: number): Uint8Array } }).Buffer;
  const minPooled = options.minAllocBytes ?? 65536;

  return {
    name: 'native',
    alloc(dtype, n) {
      if (!unsafe || (dtype !== 'f32' && dtype !== 'f64' && dtype !== 'f16' && dtype !== 'bf16')) return undefined;
      const bytes = (dtype === 'f64' ? 8 : 4) * n;
      if (bytes < minPooled) return undefined;
      let buf: Uint8Array;
      try {
        buf = unsafe.allocUnsafeSlow(bytes);
      } catch {
        return undefined; // past the largest Buffer (4 GiB in Node 20): a typed array may still hold it
      }
      return dtype === 'f64' ? new Float64Array(buf.buffer, buf.byteOffset, n) : new Float32Array(buf.buffer, buf.byteOffset, n);
    },
    gemm(args: GemmArgs): boolean {
      const batch = args.aOffsets.length;
      if (batch * args.m * args.n * args.k < minGemm) return false;
      const p = block(8 + 2 * batch);
      p[0] = args.m; p[1] = args.n; p[2] = args.k;
      p[3] = args.aRowStride; p[4] = args.aColStride; p[5] = args.bRowStride; p[6] = args.bColStride; p[7] = batch;
      for (let i = 0; i < batch; i++) {
        p[8 + i] = args.aOffsets[i]!;
        p[8 + batch + i] = args.bOffsets[i]!;
      }
      addon.gemm(p, args.a, args.b, args.c);
      return true;
    },
    binary(op, out, a, aOffset, b, bOffset, n): boolean {
      const code = BINARY[op];
      if (code === undefined || n < (code >= 4 && code <= 7 ? minCostly : minElements)) return false;
      addon.binary(code, out, a, aOffset, b, bOffset, n);
      return true;
    },
    reluBackward(out, y, yOffset, g, gOffset, n): boolean {
      if (n < minElements || y.constructor !== g.constructor) return false;
      addon.binary(RELU_BACKWARD, out, y, yOffset, g, gOffset, n);
      return true;
    },
    random(out, dist, key): boolean {
      if (out.length < minElements) return false;
      const h = block(6);
      h[0] = dist.kind === 'default' ? 0 : dist.kind === 'uniform' ? 1 : 2;
      h[1] = dist.kind === 'uniform' ? dist.low : dist.kind === 'bernoulli' ? dist.prob : 0;
      h[2] = dist.kind === 'uniform' ? dist.high : 0;
      h[3] = key.key0 >>> 0; h[4] = key.key1 >>> 0; h[5] = key.stream >>> 0;
      addon.random(h, out, out.length);
      return true;
    },
    adamStep(a, o): boolean {
      if (a.n < minElements) return false;
      const h = block(7);
      h[0] = o.beta1; h[1] = 1 - o.beta1; h[2] = o.beta2; h[3] = 1 - o.beta2; h[4] = o.factor; h[5] = o.epsilon; h[6] = a.m && a.v ? 0 : 1;
      // The first step reads no moments: the gradient stands in for them.
      addon.adamStep(h, a.outP, a.outM, a.outV, a.p, a.pOffset, a.g, a.gOffset, a.m ?? a.g, a.m ? a.mOffset : a.gOffset, a.v ?? a.g, a.v ? a.vOffset : a.gOffset, a.n);
      return true;
    },
    binaryScalar(op, out, a, aOffset, scalar, n): boolean {
      const code = BINARY[op];
      if (code === undefined || n < (code >= 4 && code <= 7 ? minCostly : minElements)) return false;
      addon.binaryScalar(code, out, a, aOffset, scalar, n);
      return true;
    },
    binaryStrided(op, out, shape, a, aOffset, aStrides, b, bOffset, bStrides): boolean {
      const code = BINARY[op];
      if (code === undefined || shape.length < 1 || shape.length > 8 || numel(shape) < minElements) return false;
      addon.binaryStrided(p1(stridedParams(1, shape, [aOffset, bOffset], [aStrides, bStrides]), code), out, a, b);
      return true;
    },
    compareScalar(op, out, a, aOffset, scalar, n): boolean {
      if (n < minElements) return false;
      addon.compareScalar(COMPARE[op], out, a, aOffset, scalar, n);
      return true;
    },
    where(out, shape, cond, cOffset, cStrides, a, aOffset, aStrides, b, bOffset, bStrides): boolean {
      if (shape.length < 1 || shape.length > 8 || numel(shape) < minElements) return false;
      addon.whereStrided(stridedParams(0, shape, [cOffset, aOffset, bOffset], [cStrides, aStrides, bStrides]), out, cond, a, b);
      return true;
    },
    reduceStrided(op, out, shape, a, aOffset, aStrides, outStrides): boolean {
      const code = REDUCE[op];
      if (code === undefined || shape.length < 1 || shape.length > 8 || numel(shape) < minElements) return false;
      addon.reduceStrided(p1(stridedParams(1, shape, [aOffset, 0], [aStrides, outStrides]), code), out, a);
      return true;
    },
    unary(op, out, a, aOffset, n): boolean {
      const code = UNARY[op];
      if (code === undefined || n < (COSTLY_UNARY.has(op) ? minCostly : minElements)) return false;
      addon.unary(code, out, a, aOffset, n);
      return true;
    },
    clamp(out, a, aOffset, n, lo, hi): boolean {
      if (n < minElements || !exactIn(out, lo) || !exactIn(out, hi)) return false;
      const p = block(2);
      p[0] = lo;
      p[1] = hi;
      addon.clamp(out, a, aOffset, n, p);
      return true;
    },
    layerNorm(out, a, aOffset, gamma, beta, rows, len, eps): boolean {
      if (rows * len < minCostly) return false;
      const p = block(1);
      p[0] = eps;
      addon.layerNorm(out, a, aOffset, gamma, beta ?? null, rows, len, p);
      return true;
    },
    gelu(out, a, aOffset, n): boolean {
      if (n < minCostly) return false;
      addon.gelu(out, a, aOffset, n);
      return true;
    },
    reduceRows(op, out, a, aOffset, rows, len): boolean {
      const code = REDUCE[op];
      if (code === undefined || rows * len < minElements) return false;
      addon.reduceRows(code, out, a, aOffset, rows, len);
      return true;
    },
    softmaxRows(out, a, aOffset, rows, len, log): boolean {
      if (rows * len < minCostly) return false;
      addon.softmaxRows(out, a, aOffset, rows, len, log ? 1 : 0);
      return true;
    },
    copyStrided(shape, dst, dstOffset, dstStrides, src, srcOffset, srcStrides): boolean {
      if (shape.length < 1 || shape.length > 8 || numel(shape) < minElements || dst.constructor !== src.constructor) return false;
      addon.copyStrided(stridedParams(0, shape, [dstOffset, srcOffset], [dstStrides, srcStrides]), dst, src);
      return true;
    },
    conv2d(args: Conv2dArgs): boolean {
      const [, cout, oh, ow] = args.outShape;
      if (args.options.padding.length !== 2 || numel(args.outShape) * numel(args.wShape.slice(1)) < minGemm) return false;
      const [lo, hi] = args.clamp ?? [-Infinity, Infinity];
      if (!exactIn(args.out, lo) || !exactIn(args.out, hi)) return false;
      const p = convParams(args.xShape, cout, args.wShape.slice(2), [oh, ow], args.options, args.options.groups);
      p[16] = lo;
      p[17] = hi;
      addon.conv2d(p, args.x, args.w, args.bias ?? null, args.out);
      return true;
    },
    convTranspose2d(args: ConvTranspose2dArgs): boolean {
      const [, cout, oh, ow] = args.outShape;
      if (args.options.padding.length !== 2 || numel(args.xShape) * numel(args.wShape.slice(1)) < minGemm) return false;
      addon.convTranspose2d(convParams(args.xShape, cout, args.wShape.slice(2), [oh, ow], args.options, args.options.groups), args.x, args.w, args.bias ?? null, args.out);
      return true;
    },
    conv2dWeightGrad(x, xShape, g, gShape, dw, wShape, options: ConvOptions): boolean {
      if (options.padding.length !== 2 || numel(gShape) * numel(wShape.slice(1)) < minGemm) return false;
      addon.conv2dWeightGrad(convParams(xShape, wShape[0]!, wShape.slice(2), gShape.slice(2), options, options.groups), x, g, dw);
      return true;
    },
    unfold2d(x, xShape, kernel, outSpatial, options: UnfoldOptions, out): boolean {
      if (out.length < minElements) return false;
      addon.unfold2d(convParams(xShape, xShape[1]!, kernel, outSpatial, options, 1), x, out);
      return true;
    },
    maxPoolBackward(g, indices, dx, planes, plane): boolean {
      if (g.length < minElements) return false;
      addon.maxPoolBackward(planes, plane, g, indices, dx);
      return true;
    },
    maxPool2d(x, xShape, out, outShape, indices, o: MaxPoolOptions): boolean {
      if (out.length * o.kernelSize[0]! * o.kernelSize[1]! < minElements) return false;
      addon.maxPool2d(convParams(xShape, xShape[1]!, o.kernelSize, outShape.slice(2), o, 1), x, out, indices ?? null);
      return true;
    },
  };
}

/** Writes `value` at index 0 of a parameter block (the op code of strided calls). */
function p1(p: Float64Array, value: number): Float64Array {
  p[0] = value;
  return p;
}
