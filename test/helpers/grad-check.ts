import { Tensor, type Device } from '../../src/index.js';

/** One input of a gradient check: its shape and how to draw its values. */
export interface GradInput {
  readonly shape: number[];
  /** Value range (default [-1, 1]); ranges away from 0 suit log, sqrt, division. */
  readonly range?: [number, number];
  /** Fixed values instead of random ones. */
  readonly values?: number[];
}

/** Deterministic pseudo-random values in [lo, hi) (a tiny LCG, so checks are reproducible). */
function values(n: number, seed: number, [lo, hi]: [number, number]): number[] {
  let s = (seed * 2654435761) >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + ((s >>> 8) / 16777216) * (hi - lo);
  });
}

/** Options of {@link gradCheck}. */
export interface GradCheckOptions {
  /** The dtype of the autodiff pass (default f64; f32 for devices without f64, such as WebGPU). */
  readonly dtype?: 'f32' | 'f64';
  /** Where the finite differences run, always in f64 (default: the device's inner device). */
  readonly reference?: Device;
}

/**
 * Checks autodiff gradients of `f` against central finite differences in float64. The scalar
 * checked is `sum(f(x) · R)` for a fixed random R, so every output element contributes.
 * Returns the largest relative error (|ad - fd| / max(1, |fd|)).
 */
export async function gradCheck(
  device: Device,
  inputs: readonly GradInput[],
  f: (...xs: Tensor<number>[]) => Tensor<number>,
  seed = 1,
  options: GradCheckOptions = {},
): Promise<number> {
  const dtype = options.dtype ?? 'f64';
  const fdDevice = options.reference ?? device.inner();
  const base = inputs.map(
    (input, k) =>
      input.values ??
      values(
        input.shape.reduce((a, b) => a * b, 1),
        seed * 31 + k,
        input.range ?? [-1, 1],
      ),
  );
  const tensorOf = (vals: number[], k: number, on: Device, dt: 'f32' | 'f64') =>
    Tensor.fromFloats(new Float64Array(vals), { device: on, dtype: dt }).reshape(inputs[k]!.shape);
  // Fixed projection of the output.
  const probe = f(...base.map((v, k) => tensorOf(v, k, fdDevice, 'f64')));
  const rValues = new Float64Array(values(probe.numel(), seed + 999, [-1, 1]));
  const rOn = (on: Device, dt: 'f32' | 'f64') => {
    const r = Tensor.fromFloats(rValues, { device: on.inner(), dtype: dt }).reshape(probe.dims());
    return on.isAutodiff() ? Tensor.fromInner(r, on) : r;
  };
  const rFd = rOn(fdDevice, 'f64');
  // Autodiff gradients.
  const leaves = base.map((v, k) => tensorOf(v, k, device, dtype).requireGrad());
  const grads = f(...leaves)
    .mul(rOn(device, dtype))
    .sum()
    .backward();
  let worst = 0;
  for (let k = 0; k < inputs.length; k++) {
    const g = leaves[k]!.grad(grads);
    const ad = g ? Array.from((await g.toData()).toArray()) : new Array<number>(base[k]!.length).fill(0);
    for (let i = 0; i < base[k]!.length; i++) {
      const h = 1e-6 * Math.max(1, Math.abs(base[k]![i]!));
      const at = (delta: number) => {
        const shifted = base.map((v, j) => (j === k ? v.map((x, m) => (m === i ? x + delta : x)) : v));
        return f(...shifted.map((v, j) => tensorOf(v, j, fdDevice, 'f64')))
          .mul(rFd)
          .sum()
          .toDataSync()
          .toArray()[0]!;
      };
      const fd = (at(h) - at(-h)) / (2 * h);
      const err = Math.abs(ad[i]! - fd) / Math.max(1, Math.abs(fd));
      if (!(err <= worst)) worst = Number.isNaN(err) ? Infinity : Math.max(worst, err);
    }
  }
  return worst;
}
