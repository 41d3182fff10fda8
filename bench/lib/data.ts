/**
 * Deterministic inputs and output checksums, reproduced bit for bit by bench/torch_bench.py:
 * element `i` of an input with seed `s` is `u / 2^31 - 1` rounded to f32, where
 * `u = (i * 0x9E3779B1 + s) mod 2^32` (a Weyl sequence: values in [-1, 1), no generator state),
 * times the input's `scale` in f32 when it has one. Labels of a training step: `labelValues`.
 */
import type { InputSpec } from './types.js';

/** Number of elements of `shape`. */
export function numelOf(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** The values of an input, row-major. */
export function inputValues(spec: InputSpec): Float32Array {
  const n = numelOf(spec.shape);
  const out = new Float32Array(n);
  const seed = spec.seed >>> 0;
  for (let i = 0; i < n; i++) {
    const u = (Math.imul(i, 0x9e3779b1) + seed) >>> 0;
    out[i] = u / 2147483648 - 1;
  }
  if (spec.scale !== undefined && spec.scale !== 1) {
    // The f64 product of two f32 values is exact, so storing it rounds once: torch's f32 multiply.
    const scale = Math.fround(spec.scale);
    for (let i = 0; i < n; i++) out[i] = out[i]! * scale;
  }
  return out;
}

/** The class labels of a training step's batch of `n` rows: row `i` has class `(7·i + 3) mod classes`. */
export function labelValues(n: number, classes: number): Int32Array {
  return Int32Array.from({ length: n }, (_, i) => (7 * i + 3) % classes);
}

/**
 * A checksum of an output: `weighted = Σ x[i]·w(i)` and `magnitude = Σ |x[i]·w(i)|` with
 * `w(i) = (i mod 7) - 3`, in f64. The weights make a transposed or shifted result differ.
 */
export function checksum(values: ArrayLike<number>): { weighted: number; magnitude: number } {
  let weighted = 0;
  let magnitude = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]! * ((i % 7) - 3);
    weighted += v;
    magnitude += Math.abs(v);
  }
  return { weighted, magnitude };
}

/** True when two checksums agree to f32 accuracy (relative 1e-3 of the magnitude, plus `absolute`). */
export function checksumsAgree(
  a: { weighted: number; magnitude: number },
  b: { weighted: number; magnitude: number },
  absolute = 0,
): boolean {
  const tol = 1e-3 * Math.max(a.magnitude, b.magnitude, 1e-6) + absolute;
  return Math.abs(a.weighted - b.weighted) <= tol && Math.abs(a.magnitude - b.magnitude) <= tol;
}
