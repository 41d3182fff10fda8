import type { ConvOptions, ConvTransposeOptions, MaxPoolOptions, UnfoldOptions } from '../../backend/options.js';
import {
  convOutputSize,
  convOutputSizes,
  convTransposeOutputSize,
  convTransposeOutputSizes,
  geometry3,
  poolOutputSize,
} from '../../core/geometry.js';
import { numel, sameShape } from '../../core/shape.js';
import type { DType } from '../../core/dtype.js';
import { isEngineFloat, isFloatArray, type CpuEngineKernels, type FloatArray } from './engine.js';
import { convForward, convTransposeForward, unfoldForward } from './js/conv.js';
import { softmaxRows } from './js/softmax.js';
import { CpuTensor, type CpuArray } from './storage.js';

/**
 * The CPU backend's module ops: convolution (forward, with a fused clamp, weight gradient,
 * transposed), unfold, max pooling (forward and input gradient) and softmax. Each offers the work
 * to the engine's kernel first (2-d, float, contiguous after materializing), then runs the `js`
 * kernels for 1 to 3 spatial dims; it returns undefined for what neither handles, and the backend
 * then runs the shared default (or, for the optional fast paths, the caller's fallback).
 */

/** What the module ops need of the backend (an interface, so this file does not import it). */
export interface CpuKernelHost {
  readonly engine: CpuEngineKernels;
  /** An array for an output the op writes completely (pooled, engine-allocated or zeroed). */
  alloc(dtype: DType, n: number): CpuArray;
  /** The elements of `p` as a dense row-major array (a view where it already is one); `copy` forces a fresh array. */
  materialize(p: CpuTensor, copy: boolean): CpuArray;
  /** Wraps a fresh contiguous output, rounding half-precision values. */
  finish(out: CpuArray, shape: readonly number[], dtype: DType): CpuTensor;
  /** Wraps a fresh contiguous array as an output that owns it. */
  own(out: CpuArray, shape: readonly number[], dtype: DType): CpuTensor;
  /** Returns an unused output array to the pool. */
  give(out: CpuArray): void;
  permute(p: CpuTensor, axes: readonly number[]): CpuTensor;
  dispose(p: CpuTensor): void;
}

/** `t`'s values as a dense float array. */
function dense(b: CpuKernelHost, t: CpuTensor): FloatArray {
  return b.materialize(t, false) as FloatArray;
}

/** Convolution with 1 to 3 spatial dims of float tensors; undefined for other cases. */
export function conv(
  b: CpuKernelHost,
  x: CpuTensor,
  weight: CpuTensor,
  bias: CpuTensor | undefined,
  options: ConvOptions,
): CpuTensor | undefined {
  const e = b.engine;
  if (
    e.conv2d &&
    x.shape.length === 4 &&
    isEngineFloat(x) &&
    x.dtype === weight.dtype &&
    (!bias || bias.dtype === x.dtype)
  ) {
    const [n, , h, w] = x.shape as [number, number, number, number];
    const [cOut, , kh, kw] = weight.shape as [number, number, number, number];
    const oh = convOutputSize(h, kh, options.stride[0]!, options.padding[0]!, options.dilation[0]!);
    const ow = convOutputSize(w, kw, options.stride[1]!, options.padding[1]!, options.dilation[1]!);
    const outShape = [n, cOut, oh, ow] as const;
    const out = b.alloc(x.dtype, numel(outShape)) as FloatArray;
    const args = {
      x: dense(b, x),
      xShape: x.shape as [number, number, number, number],
      w: dense(b, weight),
      wShape: weight.shape as [number, number, number, number],
      bias: bias && dense(b, bias),
      out,
      outShape,
      options,
      // The handle's values never change while it lives (ops do not mutate their inputs).
      weightKey: weight,
    };
    if (e.conv2d(args) !== undefined) return b.finish(out, outShape, x.dtype);
    b.give(out);
  }
  const spatial = x.shape.length - 2;
  if (spatial < 1 || spatial > 3 || !isFloatArray(x.data) || x.dtype !== weight.dtype) return undefined;
  const [n, cIn, ...inSize] = x.shape as number[];
  const [cOut, , ...kernel] = weight.shape as number[];
  const outSize = convOutputSizes(inSize, kernel, options);
  const g = geometry3(inSize, outSize, kernel, options);
  const out = b.alloc(x.dtype, n! * cOut! * numel(outSize)) as FloatArray;
  convForward(dense(b, x), n!, cIn!, dense(b, weight), cOut!, bias && dense(b, bias), options.groups, g, out);
  return b.finish(out, [n!, cOut!, ...outSize], x.dtype);
}

/**
 * A 2-d convolution with its activation's clamp (ReLU: `[0, ∞]`, ReLU6: `[0, 6]`) applied in the
 * engine's output pass, after adding `residual` (of the output's shape and dtype) when given, or
 * undefined where the engine has no kernel for these tensors.
 */
export function convClamp(
  b: CpuKernelHost,
  x: CpuTensor,
  weight: CpuTensor,
  bias: CpuTensor | undefined,
  options: ConvOptions,
  min: number,
  max: number,
  residual?: CpuTensor,
): CpuTensor | undefined {
  const e = b.engine;
  if (
    !e.conv2d ||
    x.shape.length !== 4 ||
    !isEngineFloat(x) ||
    x.dtype !== weight.dtype ||
    (bias && bias.dtype !== x.dtype) ||
    options.padding.length !== 2
  )
    return undefined;
  const [n, , h, w] = x.shape as [number, number, number, number];
  const [cOut, , kh, kw] = weight.shape as [number, number, number, number];
  const oh = convOutputSize(h, kh, options.stride[0]!, options.padding[0]!, options.dilation[0]!);
  const ow = convOutputSize(w, kw, options.stride[1]!, options.padding[1]!, options.dilation[1]!);
  if (oh < 1 || ow < 1) return undefined;
  const outShape = [n, cOut, oh, ow] as const;
  // A residual is added as it is: no broadcasting.
  if (
    residual &&
    (residual.dtype !== x.dtype || residual.shape.some((d, i) => d !== outShape[i]) || residual.shape.length !== 4)
  )
    return undefined;
  const out = b.alloc(x.dtype, numel(outShape)) as FloatArray;
  const args = {
    x: dense(b, x),
    xShape: x.shape as [number, number, number, number],
    w: dense(b, weight),
    wShape: weight.shape as [number, number, number, number],
    bias: bias && dense(b, bias),
    out,
    outShape,
    options,
    clamp: [min, max] as const,
    weightKey: weight,
    residual: residual && dense(b, residual),
  };
  if (e.conv2d(args) !== undefined) return b.finish(out, outShape, x.dtype);
  b.give(out);
  return undefined;
}

/** The conv2d weight gradient through the engine's kernel (no im2col matrix), or undefined without one. */
export function convWeightGrad(
  b: CpuKernelHost,
  x: CpuTensor,
  grad: CpuTensor,
  weightShape: readonly number[],
  options: ConvOptions,
): CpuTensor | undefined {
  const e = b.engine;
  if (!e.conv2dWeightGrad || x.shape.length !== 4 || !isEngineFloat(x) || grad.dtype !== x.dtype) return undefined;
  const dw = b.alloc(x.dtype, numel(weightShape)) as FloatArray;
  if (e.conv2dWeightGrad(dense(b, x), x.shape, dense(b, grad), grad.shape, dw, weightShape, options) !== undefined)
    return b.finish(dw, [...weightShape], x.dtype);
  b.give(dw);
  return undefined;
}

/** Transposed convolution with 1 to 3 spatial dims of float tensors; undefined for other cases. */
export function convTranspose(
  b: CpuKernelHost,
  x: CpuTensor,
  weight: CpuTensor,
  bias: CpuTensor | undefined,
  options: ConvTransposeOptions,
): CpuTensor | undefined {
  const e = b.engine;
  if (
    e.convTranspose2d &&
    x.shape.length === 4 &&
    isEngineFloat(x) &&
    x.dtype === weight.dtype &&
    (!bias || bias.dtype === x.dtype)
  ) {
    const [n, , h, w] = x.shape as [number, number, number, number];
    const [, cOutG, kh, kw] = weight.shape as [number, number, number, number];
    const size = (s: number, k: number, i: number) =>
      convTransposeOutputSize(
        s,
        k,
        options.stride[i]!,
        options.padding[i]!,
        options.dilation[i]!,
        options.paddingOut[i]!,
      );
    const outShape = [n, cOutG * options.groups, size(h, kh, 0), size(w, kw, 1)] as const;
    const out = b.alloc(x.dtype, numel(outShape)) as FloatArray;
    const args = {
      x: dense(b, x),
      xShape: x.shape as [number, number, number, number],
      w: dense(b, weight),
      wShape: weight.shape as [number, number, number, number],
      bias: bias && dense(b, bias),
      out,
      outShape,
      options,
    };
    if (e.convTranspose2d(args) !== undefined) return b.finish(out, outShape, x.dtype);
    b.give(out);
  }
  const spatial = x.shape.length - 2;
  if (spatial < 1 || spatial > 3 || !isFloatArray(x.data) || x.dtype !== weight.dtype) return undefined;
  const [n, cIn, ...inSize] = x.shape as number[];
  const [, cOutG, ...kernel] = weight.shape as number[];
  const cOut = cOutG! * options.groups;
  const outSize = convTransposeOutputSizes(inSize, kernel, options);
  // col2im scatters into the output: its geometry is that of a forward conv from output to input.
  const g = geometry3(outSize, inSize, kernel, options);
  const out = b.alloc(x.dtype, n! * cOut * numel(outSize)) as FloatArray;
  convTransposeForward(dense(b, x), n!, cIn!, dense(b, weight), cOut, bias && dense(b, bias), options.groups, g, out);
  return b.finish(out, [n!, cOut, ...outSize], x.dtype);
}

/** im2col of a float tensor `[N, C·k, L]`; undefined for other dtypes. */
export function unfold4d(
  b: CpuKernelHost,
  x: CpuTensor,
  kernelSize: readonly number[],
  options: UnfoldOptions,
): CpuTensor | undefined {
  if (!isFloatArray(x.data)) return undefined;
  const [n, c, ...inSize] = x.shape as number[];
  const outSize = convOutputSizes(inSize, kernelSize, options);
  const rows = c! * numel(kernelSize),
    l = numel(outSize);
  const out = b.alloc(x.dtype, n! * rows * l) as FloatArray;
  const d = b.materialize(x, false) as FloatArray;
  const e = b.engine;
  if (
    e.unfold2d &&
    kernelSize.length === 2 &&
    isEngineFloat(x) &&
    e.unfold2d(d, x.shape, kernelSize, outSize, options, out) !== undefined
  )
    return b.finish(out, [n!, rows, l], x.dtype);
  unfoldForward(d, n!, c!, geometry3(inSize, outSize, kernelSize, options), out);
  return b.finish(out, [n!, rows, l], x.dtype);
}

/** The max-pooling input gradient: zeros with each output's gradient added at its argmax (one pass, no scatter). */
export function maxPoolGrad(
  b: CpuKernelHost,
  grad: CpuTensor,
  indices: CpuTensor,
  inputShape: readonly number[],
): CpuTensor | undefined {
  if (
    !isEngineFloat(grad) ||
    !(indices.data instanceof Int32Array) ||
    inputShape.length < 3 ||
    !sameShape(grad.shape, indices.shape)
  )
    return undefined;
  const planes = inputShape[0]! * inputShape[1]!,
    plane = numel(inputShape.slice(2));
  if (planes === 0 || plane === 0) return undefined;
  const g = b.materialize(grad, false) as FloatArray;
  const idx = b.materialize(indices, false) as Int32Array;
  const dx = b.alloc(grad.dtype, planes * plane) as FloatArray;
  if (b.engine.maxPoolBackward?.(g, idx, dx, planes, plane) === undefined) {
    dx.fill(0);
    const l = g.length / planes;
    for (let p = 0; p < planes; p++) {
      const base = p * plane,
        o0 = p * l;
      for (let o = 0; o < l; o++) {
        const at = idx[o0 + o]!;
        if (at >= 0 && at < plane) dx[base + at]! += g[o0 + o]!;
      }
    }
  }
  return b.finish(dx, [...inputShape], grad.dtype);
}

/** 2-d max pooling (values and, with `withIndices`, the flat per-plane argmax) through the engine, or undefined when it does not handle the case. */
export function maxPool2d(
  b: CpuKernelHost,
  x: CpuTensor,
  o: MaxPoolOptions,
  withIndices: boolean,
): [CpuTensor, CpuTensor] | undefined {
  const e = b.engine;
  if (!e.maxPool2d || x.shape.length !== 4 || !isEngineFloat(x)) return undefined;
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const size = (i: number, s: number) =>
    poolOutputSize(s, o.kernelSize[i]!, o.stride[i]!, o.padding[i]!, o.dilation[i]!, o.ceilMode);
  const outShape = [n, c, size(0, h), size(1, w)];
  const out = b.alloc(x.dtype, numel(outShape)) as FloatArray;
  const indices = withIndices ? (b.alloc('i32', numel(outShape)) as Int32Array) : undefined;
  if (e.maxPool2d(b.materialize(x, false) as FloatArray, x.shape, out, outShape, indices, o) === undefined) {
    b.give(out);
    if (indices) b.give(indices);
    return undefined;
  }
  return [b.finish(out, outShape, x.dtype), b.own(indices ?? new Int32Array(0), indices ? outShape : [0], 'i32')];
}

/** Softmax (or log-softmax) along `dim`: moves `dim` last (copying only when needed), runs the fused row kernel, and moves it back. */
export function softmax(b: CpuKernelHost, p: CpuTensor, dim: number, log: boolean): CpuTensor {
  const rank = p.shape.length;
  const axes = [...Array.from({ length: rank }, (_, i) => i).filter((i) => i !== dim), dim];
  const moved = dim === rank - 1 ? p : b.permute(p, axes);
  const src = moved.isContiguous() ? moved : CpuTensor.contiguous(b.materialize(moved, false), moved.shape, p.dtype);
  const len = p.shape[dim]!;
  const out = b.alloc(p.dtype, p.numel);
  const rows = len === 0 ? 0 : p.numel / len;
  const e = b.engine;
  // An empty tensor has nothing to normalize; the engines take at least one element per row.
  if (
    rows > 0 &&
    !(
      e.softmaxRows &&
      isEngineFloat(src) &&
      e.softmaxRows(out as FloatArray, src.data, src.offset, rows, len, log) !== undefined
    )
  ) {
    softmaxRows(out, src.data, src.offset, rows, len, log);
  }
  const result = b.finish(out, moved.shape, p.dtype);
  if (dim === rank - 1) return result;
  const inverse = new Array<number>(rank);
  axes.forEach((a, i) => (inverse[a] = i));
  const permuted = b.permute(result, inverse);
  b.dispose(result);
  return permuted;
}
