// Reliability of the tensor API, on every device (CPU engines, their autodiff decorators, the
// required-only backend, WebGPU where an adapter is available, remote):
// - integer powi is exact and wraps like PyTorch's repeated squaring in the dtype ((2^31 - 1)^2 is
//   1 in i32, where Math.pow loses the low bits past 2^53 and gives 0), with PyTorch's
//   values (test/fixtures/int_pow.json, written by gen_int_pow.py);
// - max/min/argmax/argmin (and their Dims/WithIndices/maxAbsDim forms) of an empty tensor are
//   empty when the reduced dims are not (shape [0, 3] over dim 1 gives [0, 1], as in PyTorch and
//   Burn); only an empty reduced dim is refused.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { BurnError, Tensor, type Device, type Int, type IntDType, type Kind } from '../src/index.js';
import { conformanceDevices, itOn } from './helpers/devices.js';
import { loadFixture } from './helpers/fixtures.js';

interface PowCase {
  readonly base: number[];
  readonly exponent: number[];
  readonly pow: number[];
  readonly scalar: Record<string, number[]>;
}

const POW = loadFixture('int_pow');

/** The values of `t` as numbers (i64 through its BigInt64Array: past 2^53 they are stored rounded). */
async function numbers(t: Tensor<number, Kind>): Promise<number[]> {
  const data = await t.toData();
  return data.dtype === 'i64' ? Array.from(data.values as BigInt64Array, Number) : Array.from(data.toArray());
}

/** Asserts that `fn` throws (or its promise rejects with) a BurnError of `op` containing every part. */
async function rejectsBurn(fn: () => unknown, op: string, ...parts: string[]): Promise<void> {
  await assert.rejects(
    async () => {
      await fn();
    },
    (e: unknown) => {
      assert.ok(
        e instanceof BurnError,
        `expected a BurnError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
      );
      assert.equal(e.op, op, e.message);
      for (const p of parts) assert.ok(e.message.includes(p), `${JSON.stringify(p)} not in: ${e.message}`);
      return true;
    },
  );
}

for (const entry of conformanceDevices()) {
  const it = itOn(entry);
  const supports = (dtype: IntDType) => !entry.dtypes || entry.dtypes.has(dtype);
  describe(`reliability follow-ups on ${entry.name}`, () => {
    for (const [dtype, c] of Object.entries(POW)) {
      if (!supports(dtype as IntDType)) continue;
      it(`${dtype} powi wraps exactly as PyTorch (tensor and scalar exponents)`, async () => {
        const d: Device = entry.device();
        const p = c.params as unknown as PowCase;
        const base = Tensor.fromData(p.base, { device: d, dtype: dtype as IntDType }) as unknown as Tensor<1, Int>;
        const exponent = Tensor.fromData(p.exponent, { device: d, dtype: dtype as IntDType }) as unknown as Tensor<
          1,
          Int
        >;
        // burn-ts holds i64 exactly within ±2^53: only the results PyTorch gives there are compared.
        const held = (expected: number[]) => expected.map((v) => Math.abs(v) <= Number.MAX_SAFE_INTEGER);
        const compare = (got: number[], expected: number[], what: string) => {
          const keep = held(expected);
          assert.deepEqual(
            got.filter((_, i) => keep[i]),
            expected.filter((_, i) => keep[i]),
            what,
          );
        };
        compare(
          await numbers(base.powi(exponent)),
          p.pow,
          `${dtype}: ${p.base.map((b, i) => `${b}^${p.exponent[i]}`).join(', ')}`,
        );
        for (const [n, expected] of Object.entries(p.scalar))
          compare(await numbers(base.powi(Number(n))), expected, `${dtype} ^ ${n}`);
      });
    }

    it('(2^31 - 1)^2 in i32 is 1, as PyTorch and WebGPU give', async () => {
      const d = entry.device();
      assert.deepEqual(await numbers(Tensor.fromInts([2 ** 31 - 1, -(2 ** 31)], d).powi(2)), [1, 0]);
      assert.deepEqual(
        await numbers(Tensor.fromInts([2 ** 31 - 1, 3], d).powi(Tensor.fromInts([2, 40], d))),
        [1, 689956897],
      );
    });

    it('max/min/arg* of an empty tensor over a non-empty dim are empty', async () => {
      const d = entry.device();
      const z = Tensor.zeros([0, 3], d);
      const shapeOf = async (t: Tensor<number, Kind>) => (await t.toData()).shape;
      assert.deepEqual(await shapeOf(z.maxDim(1)), [0, 1]);
      assert.deepEqual(await shapeOf(z.minDim(-1)), [0, 1]);
      assert.deepEqual(await shapeOf(z.maxDims([1])), [0, 1]);
      assert.deepEqual(await shapeOf(z.minDims([1])), [0, 1]);
      assert.deepEqual(await shapeOf(z.maxAbsDim(1)), [0, 1]);
      const am = z.argmax(1);
      assert.equal(am.dtype(), 'i32');
      assert.deepEqual((await am.toData()).shape, [0, 1]);
      assert.deepEqual((await z.argmin(1).toData()).shape, [0, 1]);
      const [v, i] = z.maxDimWithIndices(1);
      assert.deepEqual(
        [(await v.toData()).shape, (await i.toData()).shape],
        [
          [0, 1],
          [0, 1],
        ],
      );
      const [v2, i2] = z.minDimWithIndices(1);
      assert.deepEqual(
        [(await v2.toData()).shape, (await i2.toData()).shape],
        [
          [0, 1],
          [0, 1],
        ],
      );
      // Int tensors and a middle empty dim alike.
      const zi = Tensor.zeros([2, 0, 3], { device: d, dtype: 'i32' });
      assert.deepEqual((await zi.maxDim(2).toData()).shape, [2, 0, 1]);
      assert.deepEqual((await zi.argmin(0).toData()).shape, [1, 0, 3]);
      assert.deepEqual((await zi.minDims([0, 2]).toData()).shape, [1, 0, 1]);
      if (d.isAutodiff()) {
        // The gradient of an empty max is an empty zero tensor of the input's shape.
        const x = Tensor.zeros([0, 3], d).requireGrad();
        const grads = x.maxDim(1).sum().add(x.argmax(1).float().sum()).backward();
        assert.deepEqual((await x.grad(grads)!.toData()).shape, [0, 3]);
      }
    });

    it('max/min/arg* over an empty dim are refused, naming the dim', async () => {
      const d = entry.device();
      const z = Tensor.zeros([0, 3], d);
      await rejectsBurn(() => z.maxDim(0), 'maxDim', 'dim 0 of size 0', '[0, 3]');
      await rejectsBurn(() => z.minDim(0), 'minDim', 'dim 0 of size 0');
      await rejectsBurn(() => z.argmax(0), 'argmax', 'dim 0 of size 0');
      await rejectsBurn(() => z.argmin(-2), 'argmin', 'dim 0 of size 0');
      await rejectsBurn(() => z.maxDims([0, 1]), 'maxDims', 'dim 0 of size 0');
      await rejectsBurn(() => z.maxAbsDim(0), 'maxAbsDim', 'dim 0 of size 0');
      await rejectsBurn(() => z.maxDimWithIndices(0), 'maxDimWithIndices', 'dim 0 of size 0');
      await rejectsBurn(() => z.minDimWithIndices(0), 'minDimWithIndices', 'dim 0 of size 0');
      await rejectsBurn(() => Tensor.zeros([3, 0], d).minDims([0, 1]), 'minDims', 'dim 1 of size 0');
      // Reducing everything still needs an element.
      await rejectsBurn(() => z.max(), 'max', 'empty tensor');
      await rejectsBurn(() => z.min(), 'min', 'empty tensor');
      await rejectsBurn(() => z.maxAbs(), 'maxAbs', 'empty tensor');
    });
  });
}
