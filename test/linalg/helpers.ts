import assert from 'node:assert/strict';
import { BurnError, type Kind, type Tensor } from '../../src/index.js';
import { loadFixture, type FixtureCase, type Tol } from '../helpers/fixtures.js';

/** The linalg fixture cases (gen_linalg.py) for function `fn`. */
export function casesOf(fn: string): [string, FixtureCase][] {
  return Object.entries(loadFixture('linalg')).filter(([, c]) => c.params?.['fn'] === fn);
}

/** Builds the input view a case asks for: the test transposes the stored matrix (non-contiguous). */
export function view<D extends number, K extends Kind>(x: Tensor<D, K>, c: FixtureCase): Tensor<D, K> {
  return c.params?.['view'] === 'transpose' ? x.transpose() : x;
}

/** Tolerance by dtype. */
export function tolFor(dtype: string, loose = false): Tol {
  if (dtype === 'f64') return { rtol: 1e-9, atol: 1e-11 };
  return loose ? { rtol: 2e-4, atol: 2e-5 } : { rtol: 1e-5, atol: 1e-6 };
}

/** Asserts that `fn` throws a BurnError of `op` whose message matches `pattern`. */
export function throwsBurn(fn: () => unknown, op: string, pattern: RegExp): void {
  assert.throws(
    fn,
    (e: unknown) => e instanceof BurnError && e.op === op && pattern.test(e.message),
    `expected BurnError(${op}) matching ${pattern}`,
  );
}
