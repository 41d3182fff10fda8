import { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { elemTypeOfCode } from '../parse/dtype.js';
import type { AnyTensor, FloatT, OpContext, OpFamily } from './types.js';
import { matmul } from './matmul.js';
import { asF, axisOf, fromHost, optTensorAt, tensorAt } from './util.js';

/**
 * The discrete Fourier transform along `axis` of a signal whose last dim holds [real] or
 * [real, imag], as two matrix products with cosine and sine tables (exact for the sizes models
 * use; no FFT). Returns [..., 2] with `bins` outputs along `axis`.
 */
function dft(x: FloatT, axis: number, n: number, inverse: boolean, bins: number): FloatT {
  const dims = x.dims();
  const last = dims.length - 1;
  let re = x.sliceDim(last, [0, 1]);
  let im = dims[last] === 2 ? x.sliceDim(last, [1, 2]) : re.mul(0);
  // Pad or truncate the transformed axis to n.
  const size = dims[axis]!;
  const fit = (t: FloatT): FloatT => {
    if (size === n) return t;
    if (size > n) return t.sliceDim(axis, [0, n]);
    return t.pad(
      dims.map((_, i) => (i === axis ? [0, n - size] : [0, 0]) as [number, number]),
      0,
    );
  };
  re = fit(re)
    .swapDims(axis, last - 1)
    .squeezeDim(last);
  im = fit(im)
    .swapDims(axis, last - 1)
    .squeezeDim(last);
  const cos = new Float64Array(n * bins);
  const sin = new Float64Array(n * bins);
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < bins; k++) {
      const t = (2 * Math.PI * ((j * k) % n)) / n;
      cos[j * bins + k] = Math.cos(t);
      sin[j * bins + k] = (inverse ? 1 : -1) * Math.sin(t);
    }
  }
  const dt = x.dtype() as DType;
  const c = Tensor.fromData(new TensorData(cos, [n, bins], 'f64').convert(dt), x.device()) as FloatT;
  const s = Tensor.fromData(new TensorData(sin, [n, bins], 'f64').convert(dt), x.device()) as FloatT;
  // (re + i·im)(cos + i·sin) with the sign of sin chosen above.
  const mm = (a: FloatT, b: FloatT): FloatT =>
    asF(matmul({ node: { name: 'DFT', opType: 'DFT' } }, a as AnyTensor, b as AnyTensor));
  let outRe = mm(re, c).sub(mm(im, s));
  let outIm = mm(re, s).add(mm(im, c));
  if (inverse) {
    outRe = outRe.div(n);
    outIm = outIm.div(n);
  }
  // [..., bins, 2] with the transformed axis second to last: swap it back into place.
  const out = Tensor.stack([outRe, outIm], outRe.rank()) as FloatT;
  return out.swapDims(axis, last - 1);
}

function window(ctx: OpContext, f: (n: number, N: number) => number): AnyTensor {
  const size = ctx.ints(0)![0]!;
  const periodic = ctx.attrs.int('periodic', 1) === 1;
  const N = periodic ? size : size - 1;
  const values = Array.from({ length: size }, (_, n) => f(n, N));
  const dtype = (elemTypeOfCode(ctx.attrs.int('output_datatype', 1)) ?? 'f32') as DType;
  return fromHost(new TensorData(values, [size], dtype), ctx.device);
}

function stft(ctx: OpContext, signal: FloatT, win: AnyTensor | undefined): FloatT {
  const step = ctx.ints(1)![0]!;
  const len = signal.dims()[1]!;
  const w = win && asF(win);
  const frameLength = ctx.node.inputs[3] ? ctx.ints(3)![0]! : w!.dims()[0]!;
  const frames = Math.floor((len - frameLength) / step) + 1;
  const onesided = ctx.attrs.int('onesided', 1) === 1;
  const pieces: FloatT[] = [];
  for (let f = 0; f < frames; f++) pieces.push(signal.sliceDim(1, [f * step, f * step + frameLength]));
  let framed = Tensor.stack(pieces, 1) as FloatT; // [batch, frames, frameLength, c]
  if (w) framed = framed.mul(w.reshape([1, 1, frameLength, 1]));
  const bins = onesided ? Math.floor(frameLength / 2) + 1 : frameLength;
  return dft(framed, 2, frameLength, false, bins);
}

/** The triangular mel filter bank of ONNX's MelWeightMatrix: `[dft_length / 2 + 1, num_mel_bins]`. */
function melWeights(ctx: OpContext): AnyTensor {
  const [bins, dftLength, rate] = [ctx.ints(0)![0]!, ctx.ints(1)![0]!, ctx.ints(2)![0]!];
  const [lower, upper] = [ctx.floats(3)![0]!, ctx.floats(4)![0]!];
  const spectrum = Math.floor(dftLength / 2) + 1;
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const lowMel = toMel(lower);
  const step = (toMel(upper) - lowMel) / (bins + 2);
  const points = Array.from({ length: bins + 2 }, (_, i) => {
    const hz = 700 * (10 ** ((i * step + lowMel) / 2595) - 1);
    return Math.trunc(Math.floor(((dftLength + 1) * hz) / rate));
  });
  const out = new Float64Array(spectrum * bins);
  for (let i = 0; i < bins; i++) {
    const [lo, center, hi] = [points[i]!, points[i + 1]!, points[i + 2]!];
    if (center === lo) out[center * bins + i] = 1;
    else for (let j = lo; j <= center; j++) out[j * bins + i] = (j - lo) / (center - lo);
    if (hi > center) for (let j = center; j < hi; j++) out[j * bins + i] = (hi - j) / (hi - center);
  }
  const dtype = (elemTypeOfCode(ctx.attrs.int('output_datatype', 1)) ?? 'f32') as DType;
  return fromHost(new TensorData(out, [spectrum, bins], 'f64').convert(dtype), ctx.device);
}

/** Signal processing: DFT, STFT, the Hann, Hamming and Blackman windows, and MelWeightMatrix. */
export const signalOps: OpFamily = {
  DFT: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const axisInput = ctx.opset >= 20 && ctx.node.inputs[2] ? ctx.ints(2)![0]! : undefined;
      const axis = axisOf(ctx, axisInput ?? ctx.attrs.int('axis', 1), x.rank() - 1);
      const n = ctx.node.inputs[1] ? ctx.ints(1)![0]! : x.dims()[axis]!;
      const inverse = ctx.attrs.int('inverse', 0) === 1;
      const onesided = ctx.attrs.int('onesided', 0) === 1;
      if (inverse && onesided)
        throw new BurnError('onnx', `node '${ctx.node.name}' (DFT) has inverse and onesided both set`);
      return [dft(x, axis, n, inverse, onesided ? Math.floor(n / 2) + 1 : n) as AnyTensor];
    },
    hostInputs: [1, 2],
  },
  STFT: {
    run: (ctx, inputs) => [stft(ctx, asF(tensorAt(ctx, inputs, 0)), optTensorAt(ctx, inputs, 2)) as AnyTensor],
    hostInputs: [1, 3],
  },
  MelWeightMatrix: { run: (ctx) => [melWeights(ctx)], hostInputs: [0, 1, 2, 3, 4] },
  HannWindow: { run: (ctx) => [window(ctx, (n, N) => Math.sin((Math.PI * n) / N) ** 2)], hostInputs: [0] },
  HammingWindow: {
    run: (ctx) => [window(ctx, (n, N) => 25 / 46 - (21 / 46) * Math.cos((2 * Math.PI * n) / N))],
    hostInputs: [0],
  },
  BlackmanWindow: {
    run: (ctx) => [
      window(ctx, (n, N) => 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / N) + 0.08 * Math.cos((4 * Math.PI * n) / N)),
    ],
    hostInputs: [0],
  },
};
