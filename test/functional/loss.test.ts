// The tensor-level losses: loss.crossEntropyWithLogits and functional.ctcLoss (also loss.ctcLoss)
// with the values of Burn's backend tests (crates/burn-backend-tests at 2c06be35:
// tests/autodiff/cross_entropy.rs, tests/tensor/float/module/ctc.rs, tests/autodiff/ctc.rs; each
// case names its Burn test) on every conformance device, gradients against Burn's PyTorch values
// and against finite differences, and the CTCLoss layer built on the functional form.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { it as plainIt } from 'node:test';
import { activation, Device, functional, loss, Tensor, type Float, type Int, type Nested } from '../../src/index.js';
import { CTCLossConfig } from '../../src/nn/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { assertApproxEq, BALANCED, PERMISSIVE, relAbs } from './burn-helpers.js';
import { GRAD_MIXED_INPUT_LENGTHS, GRAD_REPEATED_LABELS } from './ctc-burn-values.js';
import { throwsBurn } from './helpers.js';

type T3 = Tensor<3, Float>;

/** Burn's deterministic CTC logits, `sin((t·7 + n·13 + c·3) · 0.1)` at `[t, n, c]` (f32 values). */
function sinLogits(t: number, n: number, c: number, device: Device): T3 {
  const v = new Float32Array(t * n * c);
  for (let i = 0; i < t; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < c; k++) v[(i * n + j) * c + k] = Math.sin((i * 7 + j * 13 + k * 3) * 0.1);
  return Tensor.fromFloats(v, device).reshape([t, n, c]) as T3;
}

/** The `[B, T, C]` logits of Burn's swap-dims tests, `sin((b·31 + t·7 + c·3) · 0.1)`. */
function btcLogits(b: number, t: number, c: number, device: Device): T3 {
  const v = new Float32Array(b * t * c);
  for (let i = 0; i < b; i++)
    for (let j = 0; j < t; j++)
      for (let k = 0; k < c; k++) v[(i * t + j) * c + k] = Math.sin((i * 31 + j * 7 + k * 3) * 0.1);
  return Tensor.fromFloats(v, device).reshape([b, t, c]) as T3;
}

const ints = <const A extends Nested<number>>(values: A, device: Device) => Tensor.fromInts(values, device);
const values = async (t: Tensor<number, Float>) => Array.from((await t.toData()).toArray(), Number);

/** Targets of Burn's long-sequence tests: `i % 35 + 1`, row 1 zero past `len1`. */
function longTargets(n: number, width: number, len1: number, device: Device): Tensor<2, Int> {
  const v: number[] = [];
  for (let i = 0; i < width; i++) v.push((i % 35) + 1);
  for (let i = 0; i < width; i++) v.push(i < len1 ? (i % 35) + 1 : 0);
  return Tensor.fromInts(v, device).reshape([n, width]) as Tensor<2, Int>;
}

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`loss on ${name}`, () => {
    it('crossEntropyWithLogits: -mean(Σ targets · logSoftmax(logits)) over the last dim', async () => {
      const d = device();
      const logits = Tensor.fromFloats(
        [
          [0, 1, 2],
          [3, 1, -1],
        ],
        d,
      );
      const targets = Tensor.fromFloats(
        [
          [0.2, 0.3, 0.5],
          [1, 0, 0],
        ],
        d,
      );
      const lse = (r: number[]) => Math.log(r.reduce((a, x) => a + Math.exp(x), 0));
      const row0 = 0.2 * (0 - lse([0, 1, 2])) + 0.3 * (1 - lse([0, 1, 2])) + 0.5 * (2 - lse([0, 1, 2]));
      const row1 = 3 - lse([3, 1, -1]);
      await assertApproxEq(loss.crossEntropyWithLogits(logits, targets), [-(row0 + row1) / 2], relAbs(1e-6, 1e-6));
      // Rank 3: the mean runs over both leading dims.
      const l3 = loss.crossEntropyWithLogits(logits.reshape([1, 2, 3]), targets.reshape([1, 2, 3]));
      await assertApproxEq(l3, [-(row0 + row1) / 2], relAbs(1e-6, 1e-6));
    });

    it('test_ctc_loss_unreachable_target_is_inf', async () => {
      const d = device();
      const lp = Tensor.full([2, 1, 3], Math.log(1 / 3), d) as T3;
      const l = functional.ctcLoss(lp, ints([[1, 1]], d), ints([2], d), ints([2], d), 0);
      assert.deepEqual(await values(l), [Infinity]);
    });

    it('test_ctc_loss_empty_target and test_ctc_loss_uniform: 3·ln 2', async () => {
      const d = device();
      const lp = Tensor.full([3, 1, 2], Math.log(0.5), d) as T3;
      await assertApproxEq(
        functional.ctcLoss(lp, ints([[0]], d), ints([3], d), ints([0], d), 0),
        [3 * Math.LN2],
        relAbs(1e-3, 1e-3),
      );
      await assertApproxEq(
        functional.ctcLoss(lp, ints([[1, 1]], d), ints([3], d), ints([2], d), 0),
        [3 * Math.LN2],
        relAbs(1e-3, 1e-3),
      );
    });

    it('test_ctc_loss_matches_pytorch', async () => {
      const d = device();
      const lp = activation.logSoftmax(sinLogits(5, 3, 4, d), 2);
      const l = loss.ctcLoss(
        lp,
        ints(
          [
            [1, 2, 0],
            [1, 0, 0],
            [3, 2, 1],
          ],
          d,
        ),
        ints([5, 5, 5], d),
        ints([2, 1, 3], d),
        0,
      );
      await assertApproxEq(l, [3.5236570835113525, 3.495313882827759, 4.262677192687988], relAbs(1e-3, 1e-3));
    });

    it('test_ctc_loss_long_sequence and test_ctc_loss_long_mixed_input_lengths: finite, in [10, 10000]', async () => {
      const d = device();
      const a = functional.ctcLoss(
        activation.logSoftmax(sinLogits(400, 2, 36, d), 2),
        longTargets(2, 60, 40, d),
        ints([400, 400], d),
        ints([60, 40], d),
        0,
      );
      const b = functional.ctcLoss(
        activation.logSoftmax(sinLogits(494, 2, 36, d), 2),
        longTargets(2, 64, 43, d),
        ints([494, 390], d),
        ints([64, 43], d),
        0,
      );
      for (const v of [...(await values(a)), ...(await values(b))])
        assert.ok(Number.isFinite(v) && v > 10 && v < 10000, `loss ${v}`);
    });

    it('test_ctc_loss_narrowed_input and test_ctc_loss_swap_dims_then_narrow: views give the loss of their copies', async () => {
      const d = device();
      const full = activation.logSoftmax(sinLogits(10, 1, 4, d), 2);
      const narrowed = full.narrow(0, 3, 7);
      const copy = Tensor.fromData(await narrowed.toData(), d) as T3;
      const args = [ints([[1, 2]], d), ints([7], d), ints([2], d)] as const;
      await assertApproxEq(
        functional.ctcLoss(narrowed, ...args),
        await values(functional.ctcLoss(copy, ...args)),
        relAbs(0, 1e-3),
      );
      const tbc = activation
        .logSoftmax(btcLogits(2, 8, 4, d), 2)
        .swapDims(0, 1)
        .narrow(0, 2, 6);
      const tbcCopy = Tensor.fromData(await tbc.toData(), d) as T3;
      const args2 = [
        ints(
          [
            [1, 2],
            [2, 3],
          ],
          d,
        ),
        ints([6, 6], d),
        ints([2, 2], d),
      ] as const;
      await assertApproxEq(
        functional.ctcLoss(tbc, ...args2),
        await values(functional.ctcLoss(tbcCopy, ...args2)),
        relAbs(0, 1e-3),
      );
    });

    it('a functional ctcLoss with inputLengths < targetLengths is +∞ (Burn: the layer rejects it)', async () => {
      const d = device();
      const lp = activation.logSoftmax(sinLogits(4, 1, 3, d), 2);
      assert.deepEqual(await values(functional.ctcLoss(lp, ints([[1, 2, 1]], d), ints([2], d), ints([3], d))), [
        Infinity,
      ]);
    });
  });
}

// Gradients (Burn's autodiff tests, then finite differences in float64).
const gradDevices: [string, () => Device][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
  ['checkpointing<cpu(js)>', () => Device.cpu({ engine: 'js' }).gradientCheckpointing()],
];

/** Burn's `run_comparison`: the gradient of `sum(ctcLoss(logSoftmax(logits)))` with respect to the logits. */
async function ctcGrad(
  d: Device,
  t: number,
  n: number,
  c: number,
  targets: number[],
  width: number,
  inputLengths: number[],
  targetLengths: number[],
): Promise<Tensor<3, Float>> {
  const logits = sinLogits(t, n, c, d).requireGrad();
  const lp = activation.logSoftmax(logits, 2);
  const l = functional
    .ctcLoss(
      lp,
      Tensor.fromInts(targets, d).reshape([n, width]),
      Tensor.fromInts(inputLengths, d),
      Tensor.fromInts(targetLengths, d),
      0,
    )
    .sum();
  return logits.grad(l.backward())!;
}

for (const [name, device] of gradDevices) {
  describe(`loss gradients on ${name}`, () => {
    plainIt('test_cross_entropy_loss_grad', async () => {
      const d = device();
      const a = Tensor.fromFloats(
        [
          [0, 1],
          [3, 4],
        ],
        d,
      ).requireGrad();
      const b = Tensor.fromFloats(
        [
          [6, 7],
          [9, 10],
        ],
        d,
      ).requireGrad();
      const targets = Tensor.fromFloats(
        [
          [0.8, 0.2],
          [0.9, 0.1],
        ],
        d,
      ).requireGrad();
      const grads = loss.crossEntropyWithLogits(a.matmul(b), targets).backward();
      await assertApproxEq(
        a.grad(grads)!,
        [
          [0.26553, 0.26553],
          [0.44954, 0.44954],
        ],
        PERMISSIVE,
      );
      await assertApproxEq(
        b.grad(grads)!,
        [
          [-1.34863, 1.34863],
          [-2.06371, 2.06371],
        ],
        PERMISSIVE,
      );
      assert.ok(targets.grad(grads), 'the targets get a gradient too');
    });

    plainIt('test_ctc_loss_grad (first row)', async () => {
      const g = await ctcGrad(device(), 5, 3, 4, [1, 2, 0, 1, 0, 0, 3, 2, 1], 3, [5, 5, 5], [2, 1, 3]);
      await assertApproxEq(
        g.reshape([-1]).sliceDim(0, [0, 4]),
        [-0.1679008007, -0.4595540464, 0.2795598209, 0.3478950262],
        relAbs(1e-3, 1e-3),
      );
    });

    plainIt('test_ctc_loss_grad_mixed_input_lengths', async () => {
      const g = await ctcGrad(device(), 12, 3, 5, [1, 4, 2, 0, 3, 1, 0, 0, 2, 4, 1, 3], 4, [12, 7, 10], [3, 2, 4]);
      await assertApproxEq(g.reshape([-1]), [...GRAD_MIXED_INPUT_LENGTHS], relAbs(1e-3, 1e-3));
    });

    plainIt('test_ctc_loss_grad_repeated_labels', async () => {
      const g = await ctcGrad(
        device(),
        8,
        4,
        6,
        [1, 1, 2, 0, 2, 3, 2, 1, 5, 0, 0, 0, 1, 2, 3, 4],
        4,
        [8, 8, 8, 8],
        [3, 4, 1, 4],
      );
      await assertApproxEq(g.reshape([-1]), [...GRAD_REPEATED_LABELS], relAbs(1e-3, 1e-3));
    });

    plainIt('test_ctc_loss_grad_empty_target', async () => {
      const d = device();
      const logits = Tensor.zeros([3, 1, 2], d).requireGrad() as T3;
      const l = functional
        .ctcLoss(activation.logSoftmax(logits, 2), ints([[0]], d), ints([3], d), ints([0], d), 0)
        .sum();
      await assertApproxEq(
        logits.grad(l.backward())!,
        [[[-0.5, 0.5]], [[-0.5, 0.5]], [[-0.5, 0.5]]],
        relAbs(1e-4, 1e-4),
      );
    });

    plainIt('test_ctc_loss_grad_unreachable_is_finite', async () => {
      const d = device();
      const lp = Tensor.full([2, 1, 3], Math.log(1 / 3), d).requireGrad() as T3;
      const l = functional.ctcLoss(lp, ints([[1, 1]], d), ints([2], d), ints([2], d), 0).sum();
      // Burn asserts finite; burn-ts gives exactly 0, as Burn's direct ctc_loss_backward does.
      assert.deepEqual(await values(lp.grad(l.backward())!), [0, 0, 0, 0, 0, 0]);
    });

    plainIt('test_ctc_loss_grad_swap_dims_then_narrow', async () => {
      const d = device();
      const btc = btcLogits(2, 8, 4, d).requireGrad();
      const args = (dd: Device) =>
        [
          ints(
            [
              [1, 2],
              [2, 3],
            ],
            dd,
          ),
          ints([6, 6], dd),
          ints([2, 2], dd),
        ] as const;
      const la = functional.ctcLoss(activation.logSoftmax(btc, 2).swapDims(0, 1).narrow(0, 2, 6), ...args(d)).sum();
      const ga = btc.grad(la.backward())!;
      const tbc = btcLogits(2, 8, 4, d).swapDims(0, 1);
      const tbcLeaf = (Tensor.fromData(await tbc.toData(), d) as T3).requireGrad();
      const lb = functional.ctcLoss(activation.logSoftmax(tbcLeaf, 2).narrow(0, 2, 6), ...args(d)).sum();
      const gb = tbcLeaf.grad(lb.backward())!;
      await assertApproxEq(ga.swapDims(0, 1), await values(gb).then((v) => reshape3(v, [8, 2, 4])), relAbs(0, 1e-3));
    });

    plainIt('test_ctc_loss_scaled_swap_dims_then_narrow_autodiff', async () => {
      const d = device();
      const targets: number[] = new Array<number>(2 * 64).fill(0);
      for (let b = 0; b < 2; b++)
        for (let s = 0; s < (b === 0 ? 64 : 43); s++) targets[b * 64 + s] = ((s * 3 + b * 7) % 35) + 1;
      const args = [
        Tensor.fromInts(targets, d).reshape([2, 64]) as Tensor<2, Int>,
        ints([402, 402], d),
        ints([64, 43], d),
      ] as const;
      const a = functional.ctcLoss(
        activation
          .logSoftmax(btcLogits(2, 494, 36, d).requireGrad(), 2)
          .swapDims(0, 1)
          .narrow(0, 92, 402),
        ...args,
      );
      const inner = d.inner();
      const tbc = Tensor.fromData(await btcLogits(2, 494, 36, inner).swapDims(0, 1).toData(), inner) as T3;
      const b = functional.ctcLoss(
        activation.logSoftmax(tbc, 2).narrow(0, 92, 402),
        args[0].inner(),
        args[1].inner(),
        args[2].inner(),
      );
      const va = await values(a),
        vb = await values(b);
      va.forEach((v, i) => assert.ok(v > 0 && Math.abs(v - vb[i]!) < 1, `sample ${i}: ${v} vs ${vb[i]}`));
    });

    plainIt('finite differences: crossEntropyWithLogits (logits and targets), ctcLoss', async () => {
      const d = device();
      const ce = await gradCheck(d, [{ shape: [3, 4] }, { shape: [3, 4], range: [0, 1] }], (x, p) =>
        loss.crossEntropyWithLogits(x as Tensor<2, Float>, p as Tensor<2, Float>),
      );
      assert.ok(ce < 1e-6, `crossEntropyWithLogits: ${ce}`);
      const ctc = await gradCheck(d, [{ shape: [6, 2, 4] }], (x) => {
        const dd = x.device();
        return functional.ctcLoss(
          activation.logSoftmax(x as T3, 2),
          ints(
            [
              [1, 1, 2],
              [3, 2, 0],
            ],
            dd,
          ),
          ints([6, 5], dd),
          ints([3, 2], dd),
          0,
        );
      });
      assert.ok(ctc < 1e-6, `ctcLoss: ${ctc}`);
    });
  });
}

function reshape3(v: number[], [a, b, c]: [number, number, number]): number[][][] {
  return Array.from({ length: a }, (_, i) =>
    Array.from({ length: b }, (_, j) => v.slice((i * b + j) * c, (i * b + j + 1) * c)),
  );
}

describe('loss errors and the CTCLoss layer over functional.ctcLoss', () => {
  const d = Device.cpu();
  plainIt('crossEntropyWithLogits and ctcLoss name the operation, the values and what was expected', () => {
    const x = Tensor.fromFloats([[0, 1]], d);
    throwsBurn(
      () => loss.crossEntropyWithLogits(x, Tensor.fromFloats([[0, 1, 0]], d)),
      'crossEntropyWithLogits',
      'logits of shape [1, 2] and targetProbs of shape [1, 3]',
      'same shape',
    );
    throwsBurn(() => loss.crossEntropyWithLogits(Tensor.fromInts([[0, 1]], d) as never, x), 'crossEntropyWithLogits');
    throwsBurn(
      () =>
        loss.crossEntropyWithLogits(
          Tensor.fromFloats([1], d).reshape([]) as never,
          Tensor.fromFloats([1], d).reshape([]) as never,
        ),
      'crossEntropyWithLogits',
      'rank >= 1',
    );
    const lp = Tensor.zeros([4, 2, 3], d).logSoftmax(2) as T3;
    const targets = ints(
        [
          [1, 2],
          [2, 0],
        ],
        d,
      ),
      il = ints([4, 3], d),
      tl = ints([2, 1], d);
    throwsBurn(() => functional.ctcLoss(lp, targets, il, tl, 3), 'ctcLoss', 'blank index 3 for 3 classes');
    throwsBurn(() => functional.ctcLoss(lp, targets, il, tl, -1), 'ctcLoss', 'blank index -1');
    throwsBurn(
      () => functional.ctcLoss(lp, ints([[1, 2]], d), il, tl),
      'ctcLoss',
      'targets of shape [1, 2]',
      'expected [2, maxTargetLength]',
    );
    throwsBurn(
      () => functional.ctcLoss(lp, targets, ints([5, 3], d), tl),
      'ctcLoss',
      'inputLengths[0] = 5',
      '4 frames',
    );
    throwsBurn(() => functional.ctcLoss(lp, targets, il, ints([3, 1], d)), 'ctcLoss', 'targetLengths[0] = 3');
    throwsBurn(
      () =>
        functional.ctcLoss(
          lp,
          ints(
            [
              [1, 5],
              [2, 0],
            ],
            d,
          ),
          il,
          tl,
        ),
      'ctcLoss',
      'targets[0][1] = 5',
      '[0, 3)',
    );
  });

  plainIt(
    'CTCLoss.forward equals functional.ctcLoss (zeroInfinity aside); forwardWithReduction defaults to mean',
    async () => {
      const lp = activation.logSoftmax(sinLogits(5, 3, 4, d), 2);
      const args = [
        ints(
          [
            [1, 2, 0],
            [1, 0, 0],
            [3, 2, 1],
          ],
          d,
        ),
        ints([5, 5, 5], d),
        ints([2, 1, 3], d),
      ] as const;
      const layer = new CTCLossConfig().init();
      await assertApproxEq(layer.forward(lp, ...args), await values(functional.ctcLoss(lp, ...args)), relAbs(0, 0));
      const perTarget = (await values(functional.ctcLoss(lp, ...args))).map((v, i) => v / [2, 1, 3][i]!);
      await assertApproxEq(layer.forwardWithReduction(lp, ...args), [perTarget.reduce((a, b) => a + b) / 3], BALANCED);
      const unreachable = Tensor.full([2, 1, 3], Math.log(1 / 3), d) as T3;
      const zeroed = new CTCLossConfig({ zeroInfinity: true })
        .init()
        .forward(unreachable, ints([[1, 1]], d), ints([2], d), ints([2], d));
      assert.deepEqual(await values(zeroed), [0]);
      throwsBurn(
        () =>
          layer.forward(
            lp,
            ints(
              [
                [1, 2, 1],
                [1, 0, 0],
                [3, 2, 1],
              ],
              d,
            ),
            ints([2, 5, 5], d),
            ints([3, 1, 3], d),
          ),
        'CTCLoss',
        'inputLengths[0] = 2 is shorter than targetLengths[0] = 3',
      );
    },
  );
});
