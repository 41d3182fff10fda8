import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { checkNumel, normDim, sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { dft, inverseRealDft } from './dft.js';

type T2 = Tensor<2, Float>;

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && (n & (n - 1)) === 0;
}

/** Checks an explicit transform length `n` (Burn accepts powers of two only). */
function checkN(n: number, op: string): void {
  if (!isPowerOfTwo(n))
    throw new BurnError(
      op,
      `n ${n}; expected a power of two >= 1 (non-power-of-two sizes are not supported, as in Burn)`,
    );
}

/** Checks a Float input of rank >= 1 and resolves `dim`. */
function checkInput(x: Tensor<number, Float>, name: string, dim: number, op: string): number {
  x.expectFloat(op);
  const shape = x.dims();
  if (shape.length === 0) throw new BurnError(op, `${name} of shape []; expected rank >= 1`);
  return normDim(dim, shape.length, op);
}

/** Checks that the real and imaginary parts are Float tensors of one shape on one device. */
function checkPair(re: Tensor<number, Float>, im: Tensor<number, Float>, names: [string, string], op: string): void {
  re.sameDevice(im, op);
  im.expectFloat(op);
  if (!sameShape(re.dims(), im.dims()))
    throw new BurnError(
      op,
      `${names[0]} of shape ${fmt(re.dims())} and ${names[1]} of shape ${fmt(im.dims())}; expected the same shape`,
    );
}

/** Checks the output shape: `x`'s with `size` at `dim`. */
function checkOutput(x: Tensor<number, Float>, dim: number, size: number, op: string): void {
  checkNumel(
    x.dims().map((s, d) => (d === dim ? size : s)),
    op,
  );
}

/** Moves `dim` last and flattens the rest: `[batch, size]`, with the shape to restore. */
function toRows(x: Tensor<number, Float>, dim: number): { rows: T2; lead: number[] } {
  const moved = x.movedim(dim, -1);
  const shape = moved.dims();
  const lead = shape.slice(0, -1);
  return { rows: moved.reshape([lead.reduce((a, b) => a * b, 1), shape[shape.length - 1]!]) as T2, lead };
}

/** The inverse of {@link toRows}: `[batch, size']` back to the input's layout with `size'` at `dim`. */
function fromRows<D extends number>(rows: T2, lead: readonly number[], dim: number): Tensor<D, Float> {
  return rows.reshape([...lead, rows.dims()[1]!]).movedim(-1, dim) as unknown as Tensor<D, Float>;
}

/** Truncates or zero-pads dim 1 of `[batch, size]` to `length`. */
function fitLength(rows: T2, length: number): T2 {
  const size = rows.dims()[1]!;
  if (size > length) return rows.sliceDim(1, [0, length]);
  if (size < length) return rows.pad([[0, length - size]]);
  return rows;
}

/**
 * The discrete Fourier transform of a real signal along `dim` (Burn's `signal::rfft`):
 * `X[k] = Σ_j x[j]·e^(-2πi·jk/n)` for the `n/2 + 1` non-redundant bins `k = 0..n/2` (the others
 * are their complex conjugates). Differentiable; runs on every device.
 *
 * ```ts
 * const [re, im] = signal.rfft(Tensor.fromFloats([1, 2, 3, 4]), 0); // re [10, -2, -2], im [0, 2, 0]
 * ```
 *
 * @param x the real signal, any rank >= 1
 * @param dim the dim to transform (negative counts from the end)
 * @param n the transform length, a power of two: the signal is truncated or zero-padded to it
 *   (default: the signal's length along `dim`, which must then be a power of two)
 * @returns `[re, im]`, each shaped like `x` with `n/2 + 1` at `dim`
 */
export function rfft<D extends number>(
  x: Tensor<D, Float>,
  dim: number,
  n?: number,
): [Tensor<D, Float>, Tensor<D, Float>] {
  const op = 'rfft';
  const d = checkInput(x, 'signal', dim, op);
  const size = x.dims()[d]!;
  if (n === undefined) {
    if (!isPowerOfTwo(size))
      throw new BurnError(
        op,
        `signal of shape ${fmt(x.dims())} has length ${size} along dim ${d}; expected a power of two (or pass n to truncate or zero-pad)`,
      );
  } else checkN(n, op);
  const length = n ?? size;
  checkOutput(x, d, length, op);
  const { rows, lead } = toRows(x, d);
  const { re, im } = dft({ re: fitLength(rows, length) }, length, Math.floor(length / 2) + 1);
  return [fromRows<D>(re, lead, d), fromRows<D>(im, lead, d)];
}

/**
 * The real signal whose spectrum's non-redundant bins are `re + i·im` along `dim` (Burn's
 * `signal::irfft`, the inverse of {@link rfft}): `x[j] = (1/n)·Σ_k X[k]·e^(2πi·jk/n)` over the
 * spectrum extended by `X[n-k] = conj(X[k])`. The imaginary parts of the DC and Nyquist bins are
 * ignored. Differentiable; runs on every device.
 *
 * @param re the real parts, any rank >= 1
 * @param im the imaginary parts, shaped like `re`
 * @param dim the frequency dim (negative counts from the end)
 * @param n the output length, a power of two: the spectrum is truncated or zero-padded to its
 *   `n/2 + 1` bins (default `2·(bins - 1)`, which must then be a power of two)
 * @returns the signal, shaped like `re` with `n` at `dim`
 */
export function irfft<D extends number>(
  re: Tensor<D, Float>,
  im: Tensor<D, Float>,
  dim: number,
  n?: number,
): Tensor<D, Float> {
  const op = 'irfft';
  const d = checkInput(re, 'spectrumRe', dim, op);
  checkPair(re, im, ['spectrumRe', 'spectrumIm'], op);
  const bins = re.dims()[d]!;
  if (n === undefined) {
    const length = 2 * (bins - 1);
    if (!isPowerOfTwo(length)) {
      throw new BurnError(
        op,
        `spectrum of shape ${fmt(re.dims())} has ${bins} bins along dim ${d}, a signal of 2·(${bins} - 1) = ${length} samples; expected a power of two (or pass n)`,
      );
    }
  } else checkN(n, op);
  const length = n ?? 2 * (bins - 1);
  const half = Math.floor(length / 2) + 1;
  checkOutput(re, d, length, op);
  const r = toRows(re, d),
    i = toRows(im, d);
  const x = inverseRealDft(fitLength(r.rows, half), fitLength(i.rows, half), length);
  return fromRows<D>(x, r.lead, d);
}

/**
 * The discrete Fourier transform of a complex signal `re + i·im` along `dim` (Burn's
 * `signal::cfft`): all `n` bins `X[k] = Σ_j x[j]·e^(-2πi·jk/n)`. Differentiable.
 *
 * @param re the real parts, any rank >= 1
 * @param im the imaginary parts, shaped like `re`
 * @param dim the dim to transform (negative counts from the end)
 * @param n the transform length, a power of two: the signal is truncated or zero-padded to it
 *   (default: the length along `dim`, which must then be a power of two)
 * @returns `[re, im]` of the spectrum, each with `n` at `dim`
 */
export function cfft<D extends number>(
  re: Tensor<D, Float>,
  im: Tensor<D, Float>,
  dim: number,
  n?: number,
): [Tensor<D, Float>, Tensor<D, Float>] {
  const op = 'cfft';
  const d = checkInput(re, 'signalRe', dim, op);
  checkPair(re, im, ['signalRe', 'signalIm'], op);
  const size = re.dims()[d]!;
  if (n === undefined) {
    if (!isPowerOfTwo(size))
      throw new BurnError(
        op,
        `signal of shape ${fmt(re.dims())} has length ${size} along dim ${d}; expected a power of two (or pass n to truncate or zero-pad)`,
      );
  } else checkN(n, op);
  const length = n ?? size;
  checkOutput(re, d, length, op);
  const r = toRows(re, d),
    i = toRows(im, d);
  const y = dft({ re: fitLength(r.rows, length), im: fitLength(i.rows, length) }, length);
  return [fromRows<D>(y.re, r.lead, d), fromRows<D>(y.im, r.lead, d)];
}
