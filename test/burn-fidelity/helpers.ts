// Helpers of the Burn-fidelity tests: Burn's backend tests (crates/burn-backend-tests at
// 2c06be35) ported value for value; each case names the Burn test it follows.
import assert from 'node:assert/strict';
import { BurnError, type Kind, type Tensor, type TensorData } from '../../src/index.js';

/** Flattens nested number/boolean arrays into [shape, values]. */
export function flat(nested: unknown): [number[], number[]] {
  const shape: number[] = [];
  let level: unknown = nested;
  while (Array.isArray(level)) {
    shape.push(level.length);
    level = level[0];
  }
  const values = (Array.isArray(nested) ? (nested as unknown[]).flat(Infinity) : [nested]).map(Number);
  return [shape, values];
}

/** Burn's `into_data().assert_eq(expected, false)`: the same shape and exactly the same values (dtype not compared). */
export async function assertData(
  actual: Tensor<number, Kind> | TensorData,
  expected: unknown,
  label = '',
): Promise<void> {
  const data = 'toData' in actual ? await actual.toData() : actual;
  const [shape, want] = flat(expected);
  // An empty nested array has no inner level to read: the shape comes from the data then.
  if (want.length > 0 || shape.length === data.shape.length) assert.deepEqual(data.shape, shape, `${label}: shape`);
  assert.deepEqual(Array.from(data.toArray(), Number), want, `${label}: values`);
}

/** Asserts that `fn` throws a BurnError of `op` whose message contains every part. */
export function throwsBurn(fn: () => unknown, op: string, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(
      e instanceof BurnError,
      `expected a BurnError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
    );
    assert.equal(e.op, op, e.message);
    for (const p of parts)
      assert.match(e.message, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
    return true;
  });
}
