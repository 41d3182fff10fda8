// vectorNorm (every Burn Norm and p), lpNorm, vectorNormalize and cosineSimilarity against
// PyTorch (gen_linalg.py; Burn keeps the reduced dim, so the expected values use keepdim=True)
// on every conformance device: zeros in the input, negative dims, f64, transposed inputs, errors.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { linalg, Tensor, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { expectClose, fxTensor } from '../helpers/fixtures.js';
import { casesOf, throwsBurn, tolFor, view } from './helpers.js';

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  // On WebGPU the f64 cases stop at the BurnError refusing f64 (see itOn).
  const it = itOn(entry);
  describe(`linalg norms on ${name}`, () => {
    for (const [caseName, c] of casesOf('vectorNorm')) {
      it(caseName, async () => {
        const x = view(fxTensor<2, Float>(c.inputs['x']!, device()), c);
        const y = linalg.vectorNorm(x, c.params!['norm'] as linalg.Norm, c.params!['dim'] as number);
        await expectClose(y, c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
    for (const [caseName, c] of casesOf('lpNorm')) {
      it(caseName, async () => {
        const x = fxTensor<2, Float>(c.inputs['x']!, device());
        await expectClose(
          linalg.lpNorm(x, c.params!['p'] as number, c.params!['dim'] as number),
          c.outputs['y']!,
          tolFor('f64'),
          caseName,
        );
      });
    }
    for (const [caseName, c] of casesOf('vectorNormalize')) {
      it(caseName, async () => {
        const p = c.params!;
        const x = fxTensor<2, Float>(c.inputs['x']!, device());
        const y = linalg.vectorNormalize(x, p['norm'] as linalg.Norm, p['dim'] as number, p['epsilon'] as number);
        await expectClose(y, c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
    for (const [caseName, c] of casesOf('cosineSimilarity')) {
      it(caseName, async () => {
        const x1 = fxTensor<2, Float>(c.inputs['x1']!, device());
        const x2 = fxTensor<2, Float>(c.inputs['x2']!, device());
        await expectClose(
          linalg.cosineSimilarity(x1, x2, c.params!['dim'] as number),
          c.outputs['y']!,
          tolFor(c.outputs['y']!.dtype),
          caseName,
        );
      });
    }

    it('named norms equal their exponents, and the single-norm helpers agree', async () => {
      const x = Tensor.fromFloats(
        [
          [3, -4, 0],
          [1, 1, -1],
        ],
        device(),
      );
      const read = async (t: Tensor<2>) => Array.from((await t.toData()).toArray());
      assert.deepEqual(await read(linalg.vectorNorm(x, 'L2', 1)), await read(linalg.vectorNorm(x, 2, 1)));
      assert.deepEqual(await read(linalg.vectorNorm(x, 'LInf', 1)), await read(linalg.lpNorm(x, Infinity, 1)));
      assert.deepEqual(await read(linalg.l0Norm(x, 1)), [2, 3]);
      assert.deepEqual(await read(linalg.l1Norm(x, 1)), [7, 3]);
      await expectClose(linalg.l2Norm(x, 1), { shape: [2, 1], data: [5, Math.sqrt(3)] }, { rtol: 1e-6 });
      assert.deepEqual(await read(linalg.maxAbsNorm(x, 1)), [4, 1]);
      assert.deepEqual(await read(linalg.minAbsNorm(x, 1)), [0, 1]);
      assert.deepEqual([0, 1, 2, Infinity, -Infinity, 3].map(linalg.normExponent), [0, 1, 2, Infinity, -Infinity, 3]);
      assert.deepEqual((['L0', 'L1', 'L2', 'LInf', 'LNegInf'] as const).map(linalg.normExponent), [
        0,
        1,
        2,
        Infinity,
        -Infinity,
      ]);
    });

    it('cosineSimilarity of a zero vector is 0 with the default epsilon (f32 and f64)', async () => {
      for (const dtype of ['f32', 'f64'] as const) {
        const z = Tensor.zeros([2, 3], { device: device(), dtype });
        const o = Tensor.ones([2, 3], { device: device(), dtype });
        await expectClose(linalg.cosineSimilarity(z, o, 1), { shape: [2, 1], data: [0, 0] }, { rtol: 0, atol: 0 });
        await expectClose(linalg.cosineSimilarity(o, o.mul(-2), -1), { shape: [2, 1], data: [-1, -1] }, { rtol: 1e-6 });
      }
    });

    it('vectorNormalize keeps NaN rows NaN and leaves short vectors divided by epsilon', async () => {
      const x = Tensor.fromFloats(
        [
          [NaN, 1],
          [1e-3, 0],
        ],
        device(),
      );
      await expectClose(
        linalg.vectorNormalize(x, 'L2', 1, 0.1),
        { shape: [2, 2], data: [NaN, NaN, 0.01, 0] },
        { rtol: 1e-6 },
      );
    });

    it('errors name the op and the offending values', () => {
      const x = Tensor.zeros([2, 3], device());
      throwsBurn(() => linalg.vectorNorm(x, 'L3' as linalg.Norm, 1), 'vectorNorm', /norm "L3"; expected 'L0'/);
      throwsBurn(() => linalg.vectorNorm(x, NaN, 1), 'vectorNorm', /norm NaN;/);
      throwsBurn(() => linalg.vectorNorm(x, 2, 2), 'vectorNorm', /dim 2 is out of range/);
      throwsBurn(() => linalg.lpNorm(x, NaN, 0), 'lpNorm', /p = NaN/);
      throwsBurn(() => linalg.lpNorm(x, 2, -3), 'lpNorm', /out of range/);
      throwsBurn(() => linalg.vectorNormalize(x, 'L2', 1, NaN), 'vectorNormalize', /epsilon = NaN/);
      throwsBurn(
        () => linalg.cosineSimilarity(x, Tensor.zeros([3], device()) as never, 0),
        'cosineSimilarity',
        /same rank/,
      );
      throwsBurn(() => linalg.cosineSimilarity(x, x, 2), 'cosineSimilarity', /out of range/);
      throwsBurn(() => linalg.l2Norm(Tensor.fromInts([[1]], device()) as unknown as Tensor<2>, 0), 'l2Norm', /Float/);
    });
  });
}
