// A silent trap in untyped JavaScript: a dim passed to a no-argument full reduction (`t.mean(1)`,
// PyTorch's habit) must not be ignored with the full mean coming back. Every such method
// throws a BurnError naming the op and the Dim variant to use; the no-argument calls still work.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor } from '../../src/index.js';

const d = Device.cpu({ engine: 'js' });
// Untyped calls, as plain JavaScript makes them.
const call = (t: unknown, method: string, ...args: unknown[]): unknown =>
  (t as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
const throwsBurn = (fn: () => unknown, op: string, ...parts: string[]) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, op);
    for (const p of parts)
      assert.ok(e.message.includes(p), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });

describe('no-argument full reductions refuse arguments', () => {
  const x = Tensor.fromFloats(
    [
      [1, -2, 3],
      [4, 5, -6],
    ],
    d,
  );
  const cases: [string, string][] = [
    ['mean', 'meanDim(1)'],
    ['prod', 'prodDim(1)'],
    ['max', 'maxDim(1)'],
    ['min', 'minDim(1)'],
    ['maxAbs', 'maxAbsDim(1)'],
    ['any', 'anyDim(1)'],
    ['all', 'allDim(1)'],
  ];
  for (const [method, variant] of cases) {
    it(`${method}(1) throws and points to ${variant}`, () => {
      throwsBurn(() => call(x, method, 1), method, variant, '1 argument');
    });
  }

  it('sum(dim) stays sumDim(dim); sum(0, 1) throws and points to sumDims', async () => {
    assert.deepEqual(Array.from((await x.sum(1).toData()).toArray()), [2, 3]);
    throwsBurn(() => call(x, 'sum', 0, 1), 'sum', 'sumDims([0, 1])', '2 arguments');
    throwsBurn(() => call(x, 'sum', [0, 1]), 'sum', 'sumDims([0, 1])', '1 argument');
  });

  it('mean([0]) names the array and suggests meanDims', () => {
    throwsBurn(() => call(x, 'mean', [0]), 'mean', 'meanDims([0])');
  });

  it('squeeze(1), transpose(0, 1) and t(0) refuse their arguments', () => {
    const y = Tensor.zeros([2, 1, 1], d);
    throwsBurn(() => call(y, 'squeeze', 1), 'squeeze', 'squeezeDim(1)');
    throwsBurn(() => call(x, 'transpose', 0, 1), 'transpose', 'swapDims(0, 1)');
    throwsBurn(() => call(x, 't', 0), 't', 'swapDims');
  });

  it('the no-argument forms still give their values', async () => {
    const v = async (t: { toData(): Promise<{ toArray(): ArrayLike<number> }> }) =>
      Array.from((await t.toData()).toArray());
    assert.deepEqual(await v(x.mean()), [Math.fround(5 / 6)]);
    assert.deepEqual(await v(x.sum()), [5]);
    assert.deepEqual(await v(x.prod()), [720]);
    assert.deepEqual(await v(x.max()), [5]);
    assert.deepEqual(await v(x.min()), [-6]);
    assert.deepEqual(await v(x.maxAbs()), [6]);
    assert.deepEqual(await v(x.any()), [1]);
    assert.deepEqual(await v(x.all()), [1]);
    assert.deepEqual(Tensor.zeros([2, 1, 3], d).squeeze().dims(), [2, 3]);
    assert.deepEqual(x.transpose().dims(), [3, 2]);
    assert.deepEqual(x.t().dims(), [3, 2]);
  });

  it('explicit undefined (an optional argument passed through) is not refused', async () => {
    assert.deepEqual(Array.from((await (call(x, 'sum', undefined) as Tensor<1>).toData()).toArray()), [5]);
  });
});
