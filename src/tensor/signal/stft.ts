import type { FloatDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../kind.js';
import { checkNumel } from '../../core/shape.js';
import { Tensor } from '../tensor.js';
import { irfft, rfft } from './fft.js';

/** Options of {@link stft} and {@link istft} (Burn's `StftOptions`; PyTorch's defaults). */
export interface StftOptions {
  /** Samples per frame, a power of two (the FFT size). */
  readonly nFft: number;
  /** Samples between frame starts (default `max(1, floor(nFft / 4))`); at most the window length. */
  readonly hopLength?: number;
  /** Window length, at most `nFft`; a shorter window is zero-padded to `nFft`, centered (default `nFft`). */
  readonly winLength?: number;
  /** Reflect-pad the signal by `nFft / 2` on both sides, so frame `t` is centered at `t · hop` (default true). */
  readonly center?: boolean;
  /** Keep the `nFft / 2 + 1` non-redundant bins of a real signal (default true); false gives all `nFft`. */
  readonly onesided?: boolean;
}

interface Resolved {
  nFft: number;
  hop: number;
  winLength: number;
  center: boolean;
  onesided: boolean;
}

function resolve(o: StftOptions, op: string): Resolved {
  if (typeof o !== 'object' || o === null)
    throw new BurnError(op, `options ${String(o)}; expected an object with nFft`);
  const { nFft } = o;
  if (!(Number.isInteger(nFft) && nFft >= 1 && (nFft & (nFft - 1)) === 0))
    throw new BurnError(op, `nFft ${nFft}; expected a power of two >= 1 (as in Burn)`);
  const hop = o.hopLength ?? Math.max(1, Math.floor(nFft / 4));
  const winLength = o.winLength ?? nFft;
  if (!(Number.isInteger(winLength) && winLength >= 1 && winLength <= nFft))
    throw new BurnError(op, `winLength ${winLength}; expected an integer in [1, nFft = ${nFft}]`);
  if (!(Number.isInteger(hop) && hop >= 1 && hop <= winLength)) {
    throw new BurnError(
      op,
      `hopLength ${hop}; expected an integer in [1, winLength = ${winLength}] (frames must overlap or touch for the inverse to exist)`,
    );
  }
  return { nFft, hop, winLength, center: o.center ?? true, onesided: o.onesided ?? true };
}

/** The window (default rectangular) checked against `winLength` and zero-padded to `nFft`, centered. */
function paddedWindow(
  window: Tensor<1, Float> | undefined,
  o: Resolved,
  like: Tensor<number, Float>,
  op: string,
): Tensor<1, Float> {
  let w = window;
  if (w === undefined)
    w = Tensor.ones([o.winLength], { device: like.device(), dtype: like.dtype() as FloatDType }) as Tensor<1, Float>;
  else {
    like.sameDevice(w, op);
    w.expectFloat(op);
    if (w.rank() !== 1 || w.dims()[0] !== o.winLength)
      throw new BurnError(op, `window of shape ${fmt(w.dims())}; expected [${o.winLength}] (winLength)`);
  }
  const left = Math.floor((o.nFft - o.winLength) / 2);
  return o.winLength < o.nFft ? w.pad([[left, o.nFft - o.winLength - left]]) : w;
}

/** The Hermitian mirror of bins `1..n/2-1` appended to a half spectrum along dim 1 (all `n` bins). */
function fullSpectrum(re: Tensor<2, Float>, im: Tensor<2, Float>, n: number): [Tensor<2, Float>, Tensor<2, Float>] {
  const half = re.dims()[1]!;
  if (n <= half) return [re, im];
  const mirror = (t: Tensor<2, Float>) => t.narrow(1, 1, n - half).flip([1]);
  return [Tensor.cat([re, mirror(re)], 1), Tensor.cat([im, mirror(im).neg()], 1)];
}

/**
 * The short-time Fourier transform (Burn's `signal::stft`): the signal cut into frames of `nFft`
 * samples `hopLength` apart (after reflect padding when `center`), each multiplied by the window
 * and transformed by {@link rfft}. Differentiable.
 *
 * @param x `[batch, length]` real signals
 * @param window `[winLength]` (default rectangular), e.g. `hannWindow(nFft, true)`
 * @returns `[batch, frames, bins, 2]`, the last dim `(re, im)`; `frames = 1 + floor((length' - nFft) / hop)`
 */
export function stft(
  x: Tensor<2, Float>,
  window: Tensor<1, Float> | undefined,
  options: StftOptions,
): Tensor<4, Float> {
  const op = 'stft';
  x.expectFloat(op);
  if (x.rank() !== 2) throw new BurnError(op, `signal of shape ${fmt(x.dims())}; expected [batch, length]`);
  const o = resolve(options, op);
  const w = paddedWindow(window, o, x, op);
  const [, rawLength] = x.dims() as [number, number];
  const pad = Math.floor(o.nFft / 2);
  if (o.center && !(rawLength > pad))
    throw new BurnError(
      op,
      `signal length ${rawLength}; expected more than nFft / 2 = ${pad} for the reflect padding of center: true`,
    );
  const padded = o.center ? x.pad([[pad, pad]], 'reflect') : x;
  const [batch, length] = padded.dims() as [number, number];
  if (length < o.nFft)
    throw new BurnError(
      op,
      `signal length ${length}${o.center ? ' after padding' : ''}; expected at least nFft = ${o.nFft}`,
    );
  const frames = 1 + Math.floor((length - o.nFft) / o.hop);
  const bins = o.onesided ? Math.floor(o.nFft / 2) + 1 : o.nFft;
  checkNumel([batch, frames, bins, 2], op);
  const windowed = padded
    .unfold(1, o.nFft, o.hop)
    .mul(w.reshape([1, 1, o.nFft]))
    .reshape([batch * frames, o.nFft]) as Tensor<2, Float>;
  let [re, im] = rfft(windowed, 1, o.nFft);
  if (!o.onesided) [re, im] = fullSpectrum(re, im, o.nFft);
  return Tensor.stack([re.reshape([batch, frames, bins]), im.reshape([batch, frames, bins])], 3) as Tensor<4, Float>;
}

/**
 * The inverse short-time Fourier transform (Burn's `signal::istft`): each frame's {@link irfft},
 * windowed again and overlap-added, divided by the overlap-added squared window (clamped at
 * 1e-10), the center padding removed. Inverts {@link stft} given the same window and options.
 * Differentiable.
 *
 * @param spectrum `[batch, frames, bins, 2]` as {@link stft} returns
 * @param window `[winLength]` (default rectangular), the one given to {@link stft}
 * @param length the output length: the signal is cut or zero-padded to it (default: all samples)
 * @returns `[batch, length]`
 */
export function istft(
  spectrum: Tensor<4, Float>,
  window: Tensor<1, Float> | undefined,
  length: number | undefined,
  options: StftOptions,
): Tensor<2, Float> {
  const op = 'istft';
  spectrum.expectFloat(op);
  const o = resolve(options, op);
  const dims = spectrum.dims();
  const bins = o.onesided ? Math.floor(o.nFft / 2) + 1 : o.nFft;
  if (dims.length !== 4 || dims[3] !== 2 || dims[2] !== bins || dims[1]! < 1) {
    throw new BurnError(
      op,
      `spectrum of shape ${fmt(dims)}; expected [batch, frames >= 1, ${bins}, 2] for nFft ${o.nFft}${o.onesided ? ' (onesided)' : ''}`,
    );
  }
  if (length !== undefined && !(Number.isInteger(length) && length >= 0))
    throw new BurnError(op, `length ${length}; expected a non-negative integer`);
  const w = paddedWindow(window, o, spectrum, op);
  const [batch, frames] = dims;
  const total = o.nFft + (frames - 1) * o.hop;
  const pad = o.center ? Math.floor(o.nFft / 2) : 0;
  checkNumel([batch, Math.max(total, length ?? 0)], op);
  const part = (k: number) =>
    spectrum
      .narrow(3, k, 1)
      .reshape([batch * frames, bins])
      .narrow(1, 0, Math.floor(o.nFft / 2) + 1) as Tensor<2, Float>;
  const signal = irfft(part(0), part(1), 1, o.nFft)
    .reshape([batch, frames * o.nFft])
    .mul(w.repeat([frames]).reshape([1, frames * o.nFft]));
  // Overlap-add: sample j of frame f lands at f·hop + j (a scatter-add, differentiable and O(n)).
  const at = new Int32Array(frames * o.nFft);
  for (let f = 0; f < frames; f++) for (let j = 0; j < o.nFft; j++) at[f * o.nFft + j] = f * o.hop + j;
  const index = Tensor.fromInts(at, spectrum.device())
    .reshape([1, frames * o.nFft])
    .expand([batch, frames * o.nFft]) as Tensor<2, Int>;
  const sum = Tensor.zeros([batch, total], {
    device: spectrum.device(),
    dtype: spectrum.dtype() as FloatDType,
  }).scatter(1, index, signal, 'add') as Tensor<2, Float>;
  const out = sum.div(windowSumSquares(w, frames, o.hop, total)) as Tensor<2, Float>;
  // Without a length, the center padding is cut from both ends (as Burn). With one, the samples
  // after the leading padding are kept as far as frames cover them, then zeros: as PyTorch (Burn
  // first cuts the trailing padding, so covered samples past `total - 2·pad` became zeros).
  // sliceDim, not narrow: these ranges may be empty (narrow wants a length of at least 1, as Burn).
  if (length === undefined) return pad > 0 ? out.sliceDim(1, [pad, total - pad]) : out;
  const have = Math.min(length, total - pad);
  const kept = out.sliceDim(1, [pad, pad + have]);
  return have < length ? kept.pad([[0, length - have]]) : kept;
}

/** `max(Σ_f window²[t - f·hop], 1e-10)` as a `[1, total]` tensor (tensor ops: the window may be on any device). */
function windowSumSquares(w: Tensor<1, Float>, frames: number, hop: number, total: number): Tensor<2, Float> {
  const n = w.dims()[0]!;
  const at = new Int32Array(frames * n);
  for (let f = 0; f < frames; f++) for (let j = 0; j < n; j++) at[f * n + j] = f * hop + j;
  const index = Tensor.fromInts(at, w.device()).reshape([1, frames * n]) as Tensor<2, Int>;
  const squares = w
    .square()
    .repeat([frames])
    .reshape([1, frames * n]) as Tensor<2, Float>;
  return (
    Tensor.zeros([1, total], { device: w.device(), dtype: w.dtype() as FloatDType }).scatter(
      1,
      index,
      squares,
      'add',
    ) as Tensor<2, Float>
  ).clampMin(1e-10);
}
