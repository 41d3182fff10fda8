// Type-level tests of Tensor.scope: an `async` function is a compile error, not
// only a run-time one; synchronous functions keep their result type. `npm run typecheck` checks
// every `@ts-expect-error` line is an error.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BurnError, Tensor } from '../../src/index.js';

it('Tensor.scope takes synchronous functions only, and keeps their result type', () => {
  const t: Tensor<2> = Tensor.scope(() => Tensor.zeros([2, 2]).add(1));
  const pair: [Tensor<1>, number] = Tensor.scope(() => [Tensor.ones([3]), 4] as [Tensor<1>, number]);
  Tensor.scope(() => {
    Tensor.ones([2]).mul(2);
  });
  const refusal = (e: unknown) => e instanceof BurnError && /synchronous/.test(e.message);
  // @ts-expect-error an async function cannot run in a scope (its awaits would escape it)
  assert.throws(() => Tensor.scope(async () => Tensor.ones([2])), refusal);
  // @ts-expect-error a function returning a promise is refused as well
  assert.throws(() => Tensor.scope(() => Promise.resolve(1)), /synchronous/);
  assert.deepEqual([t.dims(), pair[0].dims(), pair[1]], [[2, 2], [3], 4]);
});
