// matvec, outer/outerDim, diag and trace against PyTorch (gen_linalg.py) on every conformance
// device: batched and broadcast operands, f64, Int, transposed (non-contiguous) inputs, errors.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { linalg, Tensor, type Float, type Int } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { expectClose, expectEqual, fxTensor } from '../helpers/fixtures.js';
import { casesOf, throwsBurn, tolFor, view } from './helpers.js';

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  // On WebGPU the f64 cases stop at the BurnError refusing f64 (see itOn).
  const it = itOn(entry);
  describe(`linalg products on ${name}`, () => {
    for (const [caseName, c] of casesOf('matvec')) {
      it(caseName, async () => {
        const m = view(fxTensor<number, Float>(c.inputs['m']!, device()), c);
        const v = fxTensor<number, Float>(c.inputs['v']!, device());
        const y = linalg.matvec(m, v);
        assert.equal(y.dtype(), c.outputs['y']!.dtype);
        await expectClose(y, c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
    for (const [caseName, c] of [...casesOf('outer'), ...casesOf('outerDim')]) {
      it(caseName, async () => {
        const a = fxTensor<number, Float>(c.inputs['a']!, device());
        const b = fxTensor<number, Float>(c.inputs['b']!, device());
        const y = c.params!['fn'] === 'outer' ? linalg.outer(a, b) : linalg.outerDim(a, b, c.params!['dim'] as number);
        await expectClose(y, c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
    for (const [caseName, c] of casesOf('diag')) {
      it(caseName, async () => {
        const x = view(fxTensor<number, Float>(c.inputs['x']!, device()), c);
        const y = linalg.diag(x);
        assert.equal(y.dtype(), c.outputs['y']!.dtype);
        await expectClose(y, c.outputs['y']!, { rtol: 0, atol: 0 }, caseName);
      });
    }
    for (const [caseName, c] of casesOf('trace')) {
      it(caseName, async () => {
        const x = view(fxTensor<number, Float>(c.inputs['x']!, device()), c);
        await expectClose(linalg.trace(x), c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }

    it('diag works for Bool tensors and empty matrices; ranks are in the types', async () => {
      const b = Tensor.fromBools(
        [
          [true, false],
          [true, false],
        ],
        device(),
      );
      await expectEqual(linalg.diag(b), [2], [true, false]);
      const e: Tensor<2> = linalg.diag(Tensor.zeros([2, 0, 3], device()));
      assert.deepEqual(e.dims(), [2, 0]);
      const t: Tensor<1> = linalg.trace(Tensor.eye(3, device()));
      await expectEqual(t, [1], [3]);
      const mv: Tensor<2, Int> = linalg.matvec(
        Tensor.fromInts([[[1, 2]]], device()),
        Tensor.fromInts([[3, 4]], device()),
      );
      await expectEqual(mv, [1, 1], [11]);
      const o: Tensor<3> = linalg.outer(Tensor.zeros([2, 3], device()), Tensor.zeros([2, 4], device()));
      assert.deepEqual(o.dims(), [2, 3, 4]);
    });

    it('errors name the op and the shapes', () => {
      const m = Tensor.zeros([3, 4], device());
      throwsBurn(
        () => linalg.matvec(m, Tensor.zeros([3], device())),
        'matvec',
        /4 columns but the vector \[3\] has 3 entries/,
      );
      throwsBurn(
        () => linalg.matvec(m, Tensor.zeros([1, 4], device()) as never),
        'matvec',
        /expected the vector's rank to be 1/,
      );
      throwsBurn(
        () => linalg.matvec(Tensor.zeros([4], device()) as never, Tensor.zeros([4], device()) as never),
        'matvec',
        /expected rank >= 2/,
      );
      throwsBurn(
        () => linalg.matvec(Tensor.zeros([2, 3, 4], device()), Tensor.zeros([3, 4], device())),
        'matvec',
        /shapes \[2\] and \[3\] cannot be broadcast/,
      );
      throwsBurn(
        () => linalg.outer(Tensor.zeros([2, 3], device()), Tensor.zeros([3, 3], device())),
        'outer',
        /cannot be broadcast/,
      );
      throwsBurn(
        () => linalg.outer(Tensor.zeros([3], device()) as never, Tensor.zeros([2, 3], device())),
        'outer',
        /same rank/,
      );
      throwsBurn(() => linalg.outerDim(m, m, 2), 'outer', /out of range/);
      throwsBurn(() => linalg.diag(Tensor.zeros([3], device())), 'diag', /rank >= 2/);
      throwsBurn(() => linalg.trace(Tensor.zeros([3], device())), 'trace', /rank >= 2/);
      throwsBurn(() => linalg.trace(Tensor.fromInts([[1]], device()) as unknown as Tensor<2>), 'trace', /Float/);
    });
  });
}
