// Values that pin down numerical stability and Burn-specific definitions, plus every error path,
// on every conformance device.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { activation, BurnError, Tensor } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { expectClose, expectEqual } from '../helpers/fixtures.js';

const throwsBurn = (fn: () => unknown, op: string, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof BurnError && e.op === op && pattern.test(e.message));

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  // On WebGPU the f64 cases stop at the BurnError refusing f64 (see itOn).
  const it = itOn(entry);
  describe(`activation properties on ${name}`, () => {
    it('softplus, logSigmoid and mish stay finite and exact for large |x| (f32 and f64)', async () => {
      for (const dtype of ['f32', 'f64'] as const) {
        const x = Tensor.fromFloats([-1e4, -800, 800, 1e4], { device: device(), dtype });
        await expectClose(
          activation.softplus(x),
          { shape: [4], data: [0, 0, 800, 1e4] },
          { rtol: 1e-7, atol: 0 },
          `softplus ${dtype}`,
        );
        await expectClose(
          activation.softplus(x, 3),
          { shape: [4], data: [0, 0, 800, 1e4] },
          { rtol: 1e-7, atol: 0 },
          `softplus beta ${dtype}`,
        );
        await expectClose(
          activation.logSigmoid(x),
          { shape: [4], data: [-1e4, -800, 0, 0] },
          { rtol: 1e-7, atol: 0 },
          `logSigmoid ${dtype}`,
        );
        await expectClose(
          activation.mish(x),
          { shape: [4], data: [-0, -0, 800, 1e4] },
          { rtol: 1e-7, atol: 0 },
          `mish ${dtype}`,
        );
        await expectClose(
          activation.sigmoid(x),
          { shape: [4], data: [0, 0, 1, 1] },
          { rtol: 0, atol: 0 },
          `sigmoid ${dtype}`,
        );
      }
    });

    it('softplus with a negative beta is log(1 + e^(beta x)) / beta', async () => {
      const x = Tensor.fromFloats([-2, 0, 3], { device: device(), dtype: 'f64' });
      const want = [-2, 0, 3].map((v) => Math.log1p(Math.exp(-0.5 * v)) / -0.5);
      await expectClose(activation.softplus(x, -0.5), { shape: [3], data: want }, { rtol: 1e-12, atol: 0 });
    });

    it('quietSoftmax lets every output go to zero, unlike softmax (Burn: e^x / (1 + Σ e^x))', async () => {
      const x = Tensor.fromFloats(
        [
          [-50, -60, -70],
          [0, 0, 0],
          [1000, 1000, -1000],
        ],
        device(),
      );
      const y = activation.quietSoftmax(x, 1);
      const e = Math.exp(-50);
      await expectClose(
        y,
        { shape: [3, 3], data: [e, Math.exp(-60), Math.exp(-70), 0.25, 0.25, 0.25, 0.5, 0.5, 0] },
        { rtol: 1e-5, atol: 1e-30 },
      );
      await expectClose(activation.softmax(x, 1).sumDim(1), { shape: [3, 1], data: [1, 1, 1] }, { rtol: 1e-6 });
    });

    it('softmin is softmax of -x; logSoftmax is log of softmax', async () => {
      const x = Tensor.fromFloats(
        [
          [1, 2, 3],
          [-1, 5, 0.5],
        ],
        { device: device(), dtype: 'f64' },
      );
      const a = await activation.softmin(x, -1).toData();
      const b = await activation.softmax(x.neg(), -1).toData();
      assert.deepEqual(Array.from(a.toArray()), Array.from(b.toArray()));
      await expectClose(
        activation.logSoftmax(x, 0).exp(),
        { shape: [2, 3], data: Array.from((await activation.softmax(x, 0).toData()).toArray()) },
        { rtol: 1e-12 },
      );
    });

    it('hardSigmoid defaults to Burn/ONNX (alpha 0.2, beta 0.5), hardSwish uses 1/6', async () => {
      const x = Tensor.fromFloats([-4, -1, 0, 1, 2.5, 4], device());
      await expectClose(activation.hardSigmoid(x), { shape: [6], data: [0, 0.3, 0.5, 0.7, 1, 1] });
      await expectClose(activation.hardSwish(x), {
        shape: [6],
        data: [-0, -1 / 3, 0, 2 / 3, 2.5 * (2.5 / 6 + 0.5), 4],
      });
    });

    it('shrink takes (lambda, bias) in Burn order; softShrink = shrink(lambda, lambda); hardShrink keeps x', async () => {
      const x = Tensor.fromFloats([-3, -1, -0.5, 0, 0.5, 1, 3], device());
      await expectEqual(activation.shrink(x, 1, 0.25), [7], [-2.75, 0, 0, 0, 0, 0, 2.75]);
      await expectEqual(activation.shrink(x), [7], [-2.5, -0.5, 0, 0, 0, 0.5, 2.5]);
      await expectEqual(activation.softShrink(x, 1), [7], [-2, 0, 0, 0, 0, 0, 2]);
      await expectEqual(activation.hardShrink(x, 1), [7], [-3, 0, 0, 0, 0, 0, 3]);
      await expectEqual(activation.hardShrink(x), [7], [-3, -1, 0, 0, 0, 1, 3]);
    });

    it('defaults: leakyRelu 0.01, hardtanh [-1, 1], elu/celu alpha 1, thresholdedRelu 1, glu on the last dim', async () => {
      const x = Tensor.fromFloats([-2, -0.5, 0.5, 1, 2], { device: device(), dtype: 'f64' });
      await expectClose(activation.leakyRelu(x), { shape: [5], data: [-0.02, -0.005, 0.5, 1, 2] }, { rtol: 1e-12 });
      await expectEqual(activation.hardtanh(x), [5], [-1, -0.5, 0.5, 1, 1]);
      await expectClose(
        activation.elu(x),
        { shape: [5], data: [Math.expm1(-2), Math.expm1(-0.5), 0.5, 1, 2] },
        { rtol: 1e-12 },
      );
      await expectClose(
        activation.celu(x),
        { shape: [5], data: [Math.expm1(-2), Math.expm1(-0.5), 0.5, 1, 2] },
        { rtol: 1e-12 },
      );
      await expectEqual(activation.thresholdedRelu(x), [5], [0, 0, 0, 0, 2]);
      const g = activation.glu(Tensor.fromFloats([[1, 2, 0, 100]], device()));
      await expectClose(g, { shape: [1, 2], data: [0.5, 2] }, { rtol: 1e-6 });
    });

    it('ranks are kept in the types', () => {
      const x = Tensor.zeros([2, 4], device());
      const a: Tensor<2> = activation.glu(x, 1);
      const b: Tensor<2> = activation.quietSoftmax(x, -1);
      const c: Tensor<2> = activation.prelu(x, Tensor.fromFloats([0.1, 0.2, 0.3, 0.4], device()));
      assert.deepEqual(
        [a.dims(), b.dims(), c.dims()],
        [
          [2, 2],
          [2, 4],
          [2, 4],
        ],
      );
    });

    it('errors name the op and the offending values', () => {
      const x = Tensor.zeros([2, 3], device());
      throwsBurn(() => activation.glu(x, 1), 'glu', /odd size 3/);
      throwsBurn(() => activation.glu(x, 2), 'glu', /dim 2 is out of range/);
      throwsBurn(
        () => activation.prelu(x, Tensor.fromFloats([1, 2], device())),
        'prelu',
        /alpha has 2 weights .* 3 channels/,
      );
      throwsBurn(
        () => activation.prelu(Tensor.zeros([3], device()), Tensor.fromFloats([1, 2, 3], device())),
        'prelu',
        /alpha has 3 weights/,
      );
      throwsBurn(() => activation.prelu(x, Tensor.zeros([1, 3], device()) as unknown as Tensor<1>), 'prelu', /rank-1/);
      throwsBurn(() => activation.softmax(x, -3), 'softmax', /out of range/);
      throwsBurn(() => activation.softmin(x, 2), 'softmin', /out of range/);
      throwsBurn(() => activation.quietSoftmax(x, 5), 'quietSoftmax', /out of range/);
      throwsBurn(() => activation.logSoftmax(x, 2), 'logSoftmax', /out of range/);
      throwsBurn(() => activation.celu(x, 0), 'celu', /alpha = 0; expected a non-zero number/);
      throwsBurn(() => activation.softplus(x, 0), 'softplus', /beta = 0/);
      throwsBurn(() => activation.hardtanh(x, 1, -1), 'hardtanh', /min 1 is greater than max -1/);
      throwsBurn(() => activation.leakyRelu(x, NaN), 'leakyRelu', /negativeSlope = NaN/);
      const ints = Tensor.fromInts([1, -2], device()) as unknown as Tensor<1>;
      throwsBurn(() => activation.relu(ints), 'relu', /needs a Float tensor, got i32/);
      throwsBurn(() => activation.selu(ints), 'selu', /needs a Float tensor/);
      throwsBurn(() => activation.shrink(ints), 'shrink', /needs a Float tensor/);
    });
  });
}
