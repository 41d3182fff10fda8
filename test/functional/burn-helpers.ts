// Helpers of the tests ported from Burn's backend test suite (crates/burn-backend-tests at
// 2c06be35): Burn's tolerance rule, its tolerance presets, and deterministic inputs.
import assert from 'node:assert/strict';
import type { Kind, Tensor } from '../../src/index.js';

/** Burn's `Tolerance`: `x == y`, or `|x - y| < max(absolute, relative · max(|x|, |y|))`. */
export interface BurnTol {
  readonly relative: number;
  readonly absolute: number;
}

/** `Tolerance::default()` (= `balanced()`). */
export const BALANCED: BurnTol = { relative: 0.005, absolute: 1e-5 };
/** `Tolerance::permissive()`. */
export const PERMISSIVE: BurnTol = { relative: 0.01, absolute: 0.01 };
/** `Tolerance::absolute(a)`. */
export const absolute = (a: number): BurnTol => ({ relative: 0, absolute: a });
/** `Tolerance::rel_abs(r, a)`. */
export const relAbs = (r: number, a: number): BurnTol => ({ relative: r, absolute: a });

/** Flattens nested number arrays and returns [shape, values]. */
export function flat(nested: unknown): [number[], number[]] {
  const shape: number[] = [];
  let level: unknown = nested;
  while (Array.isArray(level)) {
    shape.push(level.length);
    level = level[0];
  }
  const values = (Array.isArray(nested) ? (nested as unknown[]).flat(Infinity) : [nested]) as number[];
  return [shape, values];
}

/** Burn's `assert_approx_eq`: shapes equal and every value within the tolerance. */
export async function assertApproxEq(
  actual: Tensor<number, Kind>,
  expected: unknown,
  tol: BurnTol = BALANCED,
  label = '',
): Promise<void> {
  const data = await actual.toData();
  const [shape, want] = flat(expected);
  assert.deepEqual(data.shape, shape, `${label}: shape`);
  const got = Array.from(data.toArray(), Number);
  const bad: string[] = [];
  want.forEach((y, i) => {
    const x = got[i]!;
    const ok = x === y || Math.abs(x - y) < Math.max(tol.absolute, tol.relative * Math.max(Math.abs(x), Math.abs(y)));
    if (!ok && bad.length < 8) bad.push(`[${i}] ${x} vs ${y}`);
  });
  assert.equal(
    bad.length,
    0,
    `${label}: values differ (relative ${tol.relative}, absolute ${tol.absolute}):\n  ${bad.join('\n  ')}`,
  );
}

/** Deterministic pseudo-random values in [lo, hi) (stands in for Burn's `Distribution::Uniform` draws). */
export function uniform(n: number, seed: number, lo = -1, hi = 1): number[] {
  let s = (seed * 2654435761) >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + ((s >>> 8) / 16777216) * (hi - lo);
  });
}
