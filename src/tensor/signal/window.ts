import { Device } from '../../device/device.js';
import { isFloatDType, type FloatDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { checkNumel } from '../../core/shape.js';
import type { Float } from '../kind.js';
import { Tensor, type DeviceOrOptions } from '../tensor.js';

/**
 * A window of `size` samples from `w(cos θ_j)`, `θ_j = 2πj/N` with `N = size` (periodic) or
 * `size - 1` (symmetric). Computed in float64 on the host and stored in the requested dtype
 * (default f32), so every device gets the same values. Size 0 is empty and size 1 is `[1]`.
 */
function cosineWindow(
  op: string,
  size: number,
  periodic: boolean,
  options: DeviceOrOptions<FloatDType> | undefined,
  w: (cos: number) => number,
): Tensor<1, Float> {
  if (!(Number.isInteger(size) && size >= 0)) throw new BurnError(op, `size ${size}; expected a non-negative integer`);
  checkNumel([size], op);
  if (typeof periodic !== 'boolean') throw new BurnError(op, `periodic ${String(periodic)}; expected a boolean`);
  const device = options instanceof Device ? options : options?.device;
  const dtype = options instanceof Device ? 'f32' : (options?.dtype ?? 'f32');
  if (!isFloatDType(dtype))
    throw new BurnError(op, `dtype ${String(dtype)}; expected a float dtype (f32, f64, f16 or bf16)`);
  const values = new Float64Array(size);
  const denominator = periodic ? size : size - 1;
  for (let j = 0; j < size; j++) values[j] = size === 1 ? 1 : w(Math.cos((2 * Math.PI * j) / denominator));
  return Tensor.fromFloats(values, { device, dtype });
}

/**
 * The Hann window `w[j] = 0.5 - 0.5·cos(2πj/N)` (Burn's `signal::hann_window`), with `N = size`
 * when `periodic` (for spectral analysis, as the frames of an STFT) or `size - 1` (symmetric, for
 * filter design).
 *
 * ```ts
 * signal.hannWindow(4, true); // [0, 0.5, 1, 0.5]
 * ```
 *
 * @param size the number of samples (0 gives an empty window, 1 gives `[1]`)
 * @param periodic `N = size` when true, `size - 1` when false
 * @param options the device and float dtype (default: the default device, f32)
 */
export function hannWindow(size: number, periodic: boolean, options?: DeviceOrOptions<FloatDType>): Tensor<1, Float> {
  return cosineWindow('hannWindow', size, periodic, options, (c) => 0.5 - 0.5 * c);
}

/**
 * The Hamming window `w[j] = 25/46 - 21/46·cos(2πj/N)` (Burn's `signal::hamming_window`), with
 * `N = size` when `periodic`, `size - 1` otherwise.
 *
 * @param size the number of samples (0 gives an empty window, 1 gives `[1]`)
 * @param periodic `N = size` when true, `size - 1` when false
 * @param options the device and float dtype (default: the default device, f32)
 */
export function hammingWindow(
  size: number,
  periodic: boolean,
  options?: DeviceOrOptions<FloatDType>,
): Tensor<1, Float> {
  const alpha = 25 / 46;
  return cosineWindow('hammingWindow', size, periodic, options, (c) => alpha - (1 - alpha) * c);
}

/**
 * The Blackman window `w[j] = 0.42 - 0.5·cos(2πj/N) + 0.08·cos(4πj/N)` (Burn's
 * `signal::blackman_window`), with `N = size` when `periodic`, `size - 1` otherwise.
 *
 * @param size the number of samples (0 gives an empty window, 1 gives `[1]`)
 * @param periodic `N = size` when true, `size - 1` when false
 * @param options the device and float dtype (default: the default device, f32)
 */
export function blackmanWindow(
  size: number,
  periodic: boolean,
  options?: DeviceOrOptions<FloatDType>,
): Tensor<1, Float> {
  // cos(2θ) = 2cos²θ - 1, as Burn writes it: 0.34 - 0.5·cos θ + 0.16·cos²θ.
  return cosineWindow('blackmanWindow', size, periodic, options, (c) => 0.34 - 0.5 * c + 0.16 * c * c);
}
