// Initializers (src/nn/init.ts, Burn's `Initializer`): on large samples the statistics match the
// formulas — bounds, mean and variance of the uniform and normal rules, which fan (fanIn, fanOut,
// or both) Kaiming and Xavier use, orthogonality and gain of Orthogonal — plus the constant rules,
// config serialization and the errors for missing fans and bad shapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float } from '../../src/index.js';
import { Initializer, initializerSchema, initTensor, LinearConfig } from '../../src/nn/index.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { throwsBurn } from './loss-helpers.js';

const N = 200_000;

interface Stats {
  mean: number;
  variance: number;
  min: number;
  max: number;
}

async function stats(t: Tensor<number, Float>): Promise<Stats> {
  const v = (await t.toData()).toArray();
  let sum = 0,
    min = Infinity,
    max = -Infinity;
  for (const x of v) {
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  const mean = sum / v.length;
  let sq = 0;
  for (const x of v) sq += (x - mean) ** 2;
  return { mean, variance: sq / (v.length - 1), min, max };
}

/** Mean within 5 standard errors of `mean`, variance within 3 % of `variance`. */
function expectMoments(s: Stats, mean: number, variance: number, label: string): void {
  const se = Math.sqrt(variance / N);
  assert.ok(Math.abs(s.mean - mean) <= 5 * se, `${label}: mean ${s.mean}, expected ${mean} ± ${5 * se}`);
  assert.ok(Math.abs(s.variance / variance - 1) <= 0.03, `${label}: variance ${s.variance}, expected ${variance}`);
}

/** Uniform on [-a, a]: inside the bounds, reaching close to them, variance a²/3. */
function expectUniform(s: Stats, a: number, label: string): void {
  assert.ok(s.min >= -a && s.max <= a, `${label}: range [${s.min}, ${s.max}] outside ±${a}`);
  assert.ok(s.min < -0.999 * a && s.max > 0.999 * a, `${label}: range [${s.min}, ${s.max}] does not reach ±${a}`);
  expectMoments(s, 0, (a * a) / 3, label);
}

const DEVICES: [string, () => Device][] = [
  ['cpu', () => Device.cpu()],
  ['required-only', requiredOnlyDevice],
];

for (const [dev, makeDevice] of DEVICES) {
  describe(`initializers on ${dev}: statistics match the formulas`, () => {
    const device = makeDevice();
    device.seed(1234);
    // fanIn 50 and fanOut 800 differ enough that using the wrong one is obvious.
    const fans = { fanIn: 50, fanOut: 800 };
    const shape = [400, 500] as const;

    it('Constant, Ones, Zeros fill exactly', async () => {
      for (const [init, value] of [
        [Initializer.Constant(0.3), 0.3],
        [Initializer.Ones, 1],
        [Initializer.Zeros, 0],
      ] as const) {
        const t = initTensor(init, [3, 4], {}, device);
        assert.deepEqual(t.dims(), [3, 4]);
        assert.ok(
          Array.from((await t.toData()).toArray()).every((v) => Math.abs(v - value) < 1e-7),
          init.kind,
        );
      }
    });

    it('Uniform(min, max): bounds, mean (min + max) / 2, variance (max - min)² / 12', async () => {
      const s = await stats(initTensor(Initializer.Uniform(-0.5, 1.5), shape, {}, device));
      assert.ok(s.min >= -0.5 && s.max <= 1.5 && s.min < -0.499 && s.max > 1.499, `range [${s.min}, ${s.max}]`);
      expectMoments(s, 0.5, 4 / 12, 'uniform');
    });

    it('Normal(mean, std): mean and variance', async () => {
      expectMoments(await stats(initTensor(Initializer.Normal(2, 0.5), shape, {}, device)), 2, 0.25, 'normal');
    });

    it('KaimingUniform: U(±gain·√(3 / fanIn)), or fanOut with fanOutOnly', async () => {
      expectUniform(
        await stats(initTensor(Initializer.KaimingUniform({ gain: 2 }), shape, fans, device)),
        2 * Math.sqrt(3 / 50),
        'kaiming uniform fanIn',
      );
      expectUniform(
        await stats(initTensor(Initializer.KaimingUniform({ gain: 2, fanOutOnly: true }), shape, fans, device)),
        2 * Math.sqrt(3 / 800),
        'kaiming uniform fanOut',
      );
      // Burn's default gain 1/√3 gives PyTorch's Linear bound 1/√fanIn.
      expectUniform(
        await stats(initTensor(Initializer.KaimingUniform(), shape, fans, device)),
        1 / Math.sqrt(50),
        'kaiming uniform default gain',
      );
    });

    it('KaimingNormal: N(0, (gain / √fan)²) with fanIn, or fanOut with fanOutOnly', async () => {
      expectMoments(
        await stats(initTensor(Initializer.KaimingNormal({ gain: Math.SQRT2 }), shape, fans, device)),
        0,
        2 / 50,
        'kaiming normal fanIn',
      );
      expectMoments(
        await stats(initTensor(Initializer.KaimingNormal({ gain: Math.SQRT2, fanOutOnly: true }), shape, fans, device)),
        0,
        2 / 800,
        'kaiming normal fanOut',
      );
    });

    it('XavierUniform: U(±gain·√(6 / (fanIn + fanOut)))', async () => {
      expectUniform(
        await stats(initTensor(Initializer.XavierUniform({ gain: 1.5 }), shape, fans, device)),
        1.5 * Math.sqrt(6 / 850),
        'xavier uniform',
      );
    });

    it('XavierNormal: N(0, (gain·√(2 / (fanIn + fanOut)))²)', async () => {
      expectMoments(
        await stats(initTensor(Initializer.XavierNormal({ gain: 3 }), shape, fans, device)),
        0,
        9 * (2 / 850),
        'xavier normal',
      );
    });

    it('Orthogonal: W·Wᵀ = gain²·I for wide, Wᵀ·W = gain²·I for tall, over dims ≥ 1 flattened', async () => {
      for (const [s, gain] of [
        [[6, 10], 1],
        [[12, 5], 2],
        [[8, 8], 0.5],
        [[4, 2, 3], 1.5],
      ] as const) {
        const w = initTensor(Initializer.Orthogonal({ gain }), s, {}, device);
        assert.deepEqual(w.dims(), [...s]);
        const m = w.reshape([s[0], -1]) as Tensor<2, Float>;
        const [rows, cols] = m.dims() as [number, number];
        const gram = rows <= cols ? m.matmul(m.transpose()) : m.transpose().matmul(m);
        const k = Math.min(rows, cols);
        const g = (await gram.toData()).toArray();
        for (let i = 0; i < k; i++) {
          for (let j = 0; j < k; j++) {
            const want = i === j ? gain * gain : 0;
            assert.ok(
              Math.abs(g[i * k + j]! - want) < 1e-5,
              `${JSON.stringify(s)} gram[${i}][${j}] = ${g[i * k + j]}, expected ${want}`,
            );
          }
        }
      }
    });

    it('Orthogonal draws differ between calls (random, not a fixed basis)', async () => {
      const a = (await initTensor(Initializer.Orthogonal(), [5, 5], {}, device).toData()).toArray();
      const b = (await initTensor(Initializer.Orthogonal(), [5, 5], {}, device).toData()).toArray();
      assert.ok(a.some((v, i) => Math.abs(v - b[i]!) > 1e-3));
    });
  });
}

describe('initializers: layer defaults, serialization and errors', () => {
  const device = Device.cpu();

  it("Linear's default (Burn: KaimingUniform gain 1/√3 over fanIn) bounds the weight and bias by 1/√dInput", async () => {
    device.seed(5);
    const linear = new LinearConfig({ dInput: 64, dOutput: 3000 }).init(device);
    const w = await stats(linear.weight.val());
    expectUniform(w, 1 / 8, 'linear weight');
    const b = await stats(linear.bias!.val());
    assert.ok(b.min >= -1 / 8 && b.max <= 1 / 8);
  });

  it('initializers are plain tagged values that round-trip through JSON and the schema', () => {
    for (const init of [
      Initializer.Constant(2),
      Initializer.Ones,
      Initializer.Zeros,
      Initializer.Uniform(-1, 1),
      Initializer.Normal(0, 2),
      Initializer.KaimingUniform({ gain: 2, fanOutOnly: true }),
      Initializer.KaimingNormal(),
      Initializer.XavierUniform(),
      Initializer.XavierNormal({ gain: 0.5 }),
      Initializer.Orthogonal({ gain: 3 }),
    ]) {
      assert.deepEqual(initializerSchema.parse(JSON.parse(JSON.stringify(init))), init);
    }
    assert.deepEqual(Initializer.KaimingUniform(), {
      kind: 'kaimingUniform',
      gain: 1 / Math.sqrt(3),
      fanOutOnly: false,
    });
    assert.deepEqual(Initializer.KaimingNormal(), { kind: 'kaimingNormal', gain: 1, fanOutOnly: false });
    assert.ok(!initializerSchema.safeParse({ kind: 'normal', mean: 0, std: -1 }).success);
    assert.ok(!initializerSchema.safeParse({ kind: 'lecun' }).success);
  });

  it('missing fans and bad shapes are errors naming the rule', () => {
    throwsBurn(
      () => initTensor(Initializer.KaimingUniform(), [3, 3], {}, device),
      'Initializer',
      'kaimingUniform needs a positive fanIn',
    );
    throwsBurn(
      () => initTensor(Initializer.KaimingNormal({ fanOutOnly: true }), [3, 3], { fanIn: 3 }, device),
      'Initializer',
      'kaimingNormal needs a positive fanOut',
    );
    throwsBurn(
      () => initTensor(Initializer.XavierUniform(), [3, 3], { fanIn: 3 }, device),
      'Initializer',
      'xavierUniform needs a positive fanOut',
    );
    throwsBurn(
      () => initTensor(Initializer.XavierNormal(), [3, 3], { fanOut: 3 }, device),
      'Initializer',
      'xavierNormal needs a positive fanIn',
    );
    throwsBurn(
      () => initTensor(Initializer.Orthogonal(), [5], {}, device),
      'Initializer',
      'orthogonal needs a shape of rank >= 2',
      '[5]',
    );
  });
});
