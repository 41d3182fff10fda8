// det, lu and qr on every conformance device, against PyTorch (gen_linalg.py): closed forms and
// LU-based determinants, batched and transposed inputs, f64, singular matrices (Burn: exactly 0),
// LU factors exactly as torch.linalg.lu (A = P·L·U), and QR checked for Q·R = A, QᵀQ = I, an
// exactly upper-triangular R and torch.linalg.qr's values up to the sign of each column of Q
// (Burn's Householder convention differs from LAPACK's there; see qr.ts).
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { linalg, Tensor, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { expectClose, expectEqual, fxTensor } from '../helpers/fixtures.js';
import { casesOf, throwsBurn, tolFor, view } from './helpers.js';

type T = Tensor<number, Float>;

/** Flips the signs of Q's columns / R's rows so that diag(R) >= 0 (the fixtures are normalized so). */
function signNormalized(q: T, r: T): [T, T] {
  const d = linalg.diag(r);
  const s = d.onesLike().maskFill(d.lower(0), -1);
  return [q.mul(s.unsqueezeDim(-2)), r.mul(s.unsqueezeDim(-1))];
}

const values = async (t: T) => Array.from((await t.toData()).toArray());

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  // On WebGPU the f64 cases stop at the BurnError refusing f64 (see itOn).
  const it = itOn(entry);
  describe(`linalg decompositions on ${name}`, () => {
    for (const [caseName, c] of casesOf('det')) {
      it(caseName, async () => {
        const x = view(fxTensor<number, Float>(c.inputs['x']!, device()), c);
        const y = linalg.det(x);
        assert.equal(y.dtype(), x.dtype());
        await expectClose(
          y,
          c.outputs['y']!,
          { ...tolFor(c.outputs['y']!.dtype, true), atol: caseName === 'det/singular' ? 0 : 1e-5 },
          caseName,
        );
      });
    }

    for (const [caseName, c] of casesOf('lu')) {
      it(caseName, async () => {
        const x = view(fxTensor<number, Float>(c.inputs['x']!, device()), c);
        const { p, l, u } = linalg.lu(x);
        const tol = tolFor(c.outputs['p']!.dtype, true);
        await expectClose(p, c.outputs['p']!, { rtol: 0, atol: 0 }, `${caseName} P`);
        await expectClose(l, c.outputs['l']!, tol, `${caseName} L`);
        await expectClose(u, c.outputs['u']!, tol, `${caseName} U`);
        await expectClose(p.matmul(l).matmul(u), { shape: x.dims(), data: await values(x) }, tol, `${caseName} P·L·U`);
      });
    }

    for (const [caseName, c] of casesOf('qr')) {
      it(caseName, async () => {
        const x = view(fxTensor<number, Float>(c.inputs['x']!, device()), c);
        const { q, r } = linalg.qr(x);
        const tol = tolFor(c.outputs['q']!.dtype, true);
        const [rows, cols] = x.dims().slice(-2) as [number, number];
        const k = Math.min(rows, cols);
        await expectClose(q.matmul(r), { shape: x.dims(), data: await values(x) }, tol, `${caseName} Q·R`);
        const eye = (Tensor.eye(k, { device: device(), dtype: x.dtype() }) as T).expand([
          ...x.dims().slice(0, -2),
          k,
          k,
        ]);
        await expectClose(
          q.transpose().matmul(q),
          { shape: eye.dims(), data: await values(eye) },
          tol,
          `${caseName} QᵀQ`,
        );
        await expectEqual(
          r.mul(Tensor.triuMask(r.dims(), 0, device()).float(r.dtype())),
          r.dims(),
          new Array<number>(r.numel()).fill(0),
          `${caseName} R below the diagonal`,
        );
        const [qn, rn] = signNormalized(q, r);
        await expectClose(qn, c.outputs['q']!, tol, `${caseName} Q`);
        await expectClose(rn, c.outputs['r']!, tol, `${caseName} R`);
      });
    }

    it("qr matches Burn's documented example exactly (sign convention included)", async () => {
      const { q, r } = linalg.qr(
        Tensor.fromFloats(
          [
            [3, 2],
            [4, 6],
          ],
          { device: device(), dtype: 'f64' },
        ),
      );
      await expectClose(q, { shape: [2, 2], data: [-0.6, 0.8, -0.8, -0.6] }, { rtol: 1e-12, atol: 1e-15 });
      await expectClose(r, { shape: [2, 2], data: [-5, -6, 0, -2] }, { rtol: 1e-12, atol: 1e-15 });
    });

    it('qr: complete mode of a tall matrix gives a square orthogonal Q; zero and rank-deficient matrices reconstruct', async () => {
      const a = Tensor.fromFloats(
        [
          [1, 2],
          [3, 4],
          [5, 6],
          [7, 9],
        ],
        { device: device(), dtype: 'f64' },
      );
      const { q, r } = linalg.qr(a, false);
      assert.deepEqual(
        [q.dims(), r.dims()],
        [
          [4, 4],
          [4, 2],
        ],
      );
      await expectClose(
        q.transpose().matmul(q),
        { shape: [4, 4], data: await values(Tensor.eye(4, { device: device(), dtype: 'f64' })) },
        { rtol: 1e-12, atol: 1e-12 },
      );
      await expectClose(q.matmul(r), { shape: [4, 2], data: await values(a) }, { rtol: 1e-12, atol: 1e-12 });
      const reduced = linalg.qr(a);
      assert.deepEqual(
        [reduced.q.dims(), reduced.r.dims()],
        [
          [4, 2],
          [2, 2],
        ],
      );
      for (const m of [
        Tensor.zeros([3, 3], device()),
        Tensor.ones([4, 4], device()),
        Tensor.fromFloats(
          [
            [0, 4, 2],
            [1, 2, 2],
            [2, 3, 9],
          ],
          device(),
        ),
      ]) {
        const f = linalg.qr(m);
        await expectClose(f.q.matmul(f.r), { shape: m.dims(), data: await values(m) }, { rtol: 1e-5, atol: 1e-5 });
      }
    });

    it("lu matches Burn's documented example; f16 inputs are factorized in f32 and cast back", async () => {
      const a = Tensor.fromFloats(
        [
          [4, 3],
          [6, 3],
        ],
        device(),
      );
      const { p, l, u } = linalg.lu(a);
      await expectEqual(p, [2, 2], [0, 1, 1, 0]);
      await expectClose(l, { shape: [2, 2], data: [1, 0, 2 / 3, 1] }, { rtol: 1e-6 });
      await expectClose(u, { shape: [2, 2], data: [6, 3, 0, 1] }, { rtol: 1e-6 });
      const h = linalg.lu(a.cast('f16'));
      assert.deepEqual([h.p.dtype(), h.l.dtype(), h.u.dtype()], ['f16', 'f16', 'f16']);
      await expectClose(h.u, { shape: [2, 2], data: [6, 3, 0, 1] }, { rtol: 1e-3 });
    });

    it('det: a single matrix gives [1]; 0×0 gives 1; f16 is computed in f32; NaN propagates', async () => {
      const one: Tensor<1> = linalg.det(
        Tensor.fromFloats(
          [
            [2, 1],
            [1, 3],
          ],
          device(),
        ),
      );
      await expectEqual(one, [1], [5]);
      const batch: Tensor<2> = linalg.det(Tensor.zeros([2, 3, 0, 0], device()));
      await expectEqual(batch, [2, 3], [1, 1, 1, 1, 1, 1]);
      const big = Tensor.fromFloats(
        [
          [
            [2, 0, 0, 0, 0],
            [0, 3, 0, 0, 0],
            [0, 0, 4, 0, 0],
            [0, 0, 0, 5, 0],
            [0, 0, 0, 0, 0.5],
          ],
        ],
        device(),
      );
      const half = linalg.det(big.cast('f16'));
      assert.equal(half.dtype(), 'f16');
      await expectEqual(half, [1], [60]);
      const nan = Tensor.fromFloats(
        [
          [
            [1, 2, 3, 4],
            [5, NaN, 7, 8],
            [9, 1, 2, 3],
            [4, 5, 6, 8],
          ],
        ],
        device(),
      );
      await expectClose(linalg.det(nan), { shape: [1], data: [NaN] });
      // A row swap flips the sign.
      const swapped = Tensor.fromFloats(
        [
          [
            [0, 1, 0, 0],
            [1, 0, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 1],
          ],
        ],
        device(),
      );
      await expectEqual(linalg.det(swapped), [1], [-1]);
    });

    it('errors name the op and the shapes', () => {
      throwsBurn(
        () => linalg.det(Tensor.zeros([2, 3, 4], device())),
        'det',
        /\[2, 3, 4\] holds 3×4 matrices; expected square/,
      );
      throwsBurn(() => linalg.det(Tensor.zeros([3], device()) as never), 'det', /rank >= 2/);
      throwsBurn(() => linalg.lu(Tensor.zeros([3], device()) as never), 'lu', /rank >= 2/);
      throwsBurn(() => linalg.qr(Tensor.zeros([3], device()) as never), 'qr', /rank >= 2/);
      const ints = Tensor.fromInts(
        [
          [1, 2],
          [3, 4],
        ],
        device(),
      ) as unknown as Tensor<2>;
      throwsBurn(() => linalg.det(ints), 'det', /Float/);
      throwsBurn(() => linalg.lu(ints), 'lu', /Float/);
      throwsBurn(() => linalg.qr(ints), 'qr', /Float/);
    });
  });
}
