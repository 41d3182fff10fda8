// Optimizer configs: Burn's defaults, nesting in other configs (`optimizer: AdamConfig.schema`),
// JSON round trips, and BurnErrors naming the field and the value for bad settings.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BurnError, Config, z } from '../../src/index.js';
import {
  AdaGradConfig,
  AdamConfig,
  AdamWConfig,
  AdanConfig,
  AdjustLrFn,
  GradientClippingConfig,
  LbfgsConfig,
  LineSearchFn,
  ModuleOptimizer,
  MomentumConfig,
  MuonConfig,
  RmsPropConfig,
  SgdConfig,
  WeightDecayConfig,
  adjustmentRatio,
} from '../../src/optim/index.js';

class TrainingConfig extends Config.define({
  optimizer: AdamConfig.schema,
  sgd: SgdConfig.nested().optional(),
  learningRate: z.number().default(1e-3),
}) {}

describe('optimizer configs', () => {
  it("have Burn's defaults", () => {
    assert.deepEqual(new AdamConfig({}).toJSON(), { beta1: 0.9, beta2: 0.999, epsilon: 1e-5, amsgrad: false });
    assert.deepEqual(new AdamWConfig().toJSON(), {
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-5,
      weightDecay: 1e-4,
      cautiousWeightDecay: false,
      amsgrad: false,
    });
    assert.deepEqual(new AdaGradConfig().toJSON(), { lrDecay: 0, epsilon: 1e-5 });
    assert.deepEqual(new RmsPropConfig().toJSON(), { alpha: 0.99, momentum: 0.9, epsilon: 1e-5, centered: false });
    assert.deepEqual(new AdanConfig().toJSON(), {
      beta1: 0.98,
      beta2: 0.92,
      beta3: 0.99,
      epsilon: 1e-8,
      weightDecay: 0,
      noProx: false,
    });
    assert.deepEqual(new MuonConfig().toJSON(), {
      momentum: { momentum: 0.95, dampening: 0, nesterov: true },
      nsCoefficients: [3.4445, -4.775, 2.0315],
      epsilon: 1e-7,
      nsSteps: 5,
      adjustLrFn: 'original',
    });
    assert.deepEqual(new LbfgsConfig().toJSON(), {
      maxIter: 20,
      historySize: 100,
      toleranceGrad: 1e-7,
      toleranceChange: 1e-9,
      lineSearchFn: 'none',
    });
    assert.deepEqual(new MomentumConfig().toJSON(), { momentum: 0.9, dampening: 0.1, nesterov: false });
    assert.deepEqual(new SgdConfig().toJSON(), {});
    assert.equal(LineSearchFn.StrongWolfe, 'strongWolfe');
    assert.equal(AdjustLrFn.MatchRmsAdamW, 'matchRmsAdamW');
    assert.equal(adjustmentRatio('original', [1024, 512]), Math.SQRT2);
    assert.equal(adjustmentRatio('original', [512, 1024]), 1);
    assert.equal(adjustmentRatio('matchRmsAdamW', [1024, 512]), 0.2 * 32);
    assert.equal(adjustmentRatio('original', [7]), 1);
  });

  it('init() gives a ModuleOptimizer for any module; build() the per-tensor optimizer', () => {
    for (const c of [
      new SgdConfig(),
      new AdamConfig(),
      new AdamWConfig(),
      new AdaGradConfig(),
      new RmsPropConfig(),
      new AdanConfig(),
      new MuonConfig(),
    ]) {
      assert.ok(c.init() instanceof ModuleOptimizer, c.constructor.name);
      assert.equal(typeof c.build().step, 'function');
    }
    assert.equal(new AdamConfig({ gradClipping: GradientClippingConfig.Norm(1) }).init().gradClipping()?.kind, 'norm');
  });

  it('nest in other configs (AdamConfig.schema), with plain values or instances, and save / load', () => {
    const a = new TrainingConfig({ optimizer: new AdamConfig({}) });
    // Typed as AdamConfig without narrowing (the API contract calls config.optimizer.init()).
    const optim: ModuleOptimizer = a.optimizer.init();
    assert.ok(optim instanceof ModuleOptimizer);
    assert.ok(a.optimizer instanceof AdamConfig);
    const b = new TrainingConfig({
      optimizer: { beta1: 0.5, weightDecay: { penalty: 0.01 } },
      sgd: { momentum: { nesterov: true } },
    });
    assert.ok(b.optimizer instanceof AdamConfig && b.optimizer.beta1 === 0.5);
    assert.ok(b.sgd?.momentum instanceof MomentumConfig && b.sgd.momentum.nesterov && b.sgd.momentum.momentum === 0.9);
    const dir = mkdtempSync(join(tmpdir(), 'burn-ts-optim-'));
    try {
      b.save(join(dir, 'config.json'));
      const loaded = TrainingConfig.load(join(dir, 'config.json'));
      assert.deepEqual(loaded.toJSON(), b.toJSON());
      assert.ok(loaded.optimizer.weightDecay instanceof WeightDecayConfig);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(
      () => new TrainingConfig({ optimizer: { beta2: 1 } }),
      /TrainingConfig: invalid config: optimizer.beta2: must be in \[0, 1\), got 1/,
    );
  });

  it('bad settings are BurnErrors naming the field and the value', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => new AdamConfig({ beta1: 1 }), /AdamConfig: invalid config: beta1: must be in \[0, 1\), got 1/],
      [() => new AdamConfig({ beta2: -0.1 }), /beta2: must be in \[0, 1\), got -0.1/],
      [() => new AdamConfig({ epsilon: 0 }), /epsilon: must be > 0, got 0/],
      [() => new AdamConfig({ weightDecay: { penalty: -1 } }), /weightDecay.penalty: must be >= 0, got -1/],
      [() => new AdamConfig({ lr: 0.1 } as never), /AdamConfig: invalid config: .*lr/],
      [
        () => new AdamWConfig({ weightDecay: -1e-4 }),
        /AdamWConfig: invalid config: weightDecay: must be >= 0, got -0.0001/,
      ],
      [() => new AdaGradConfig({ lrDecay: -1 }), /lrDecay: must be >= 0, got -1/],
      [() => new RmsPropConfig({ alpha: 1.5 }), /RmsPropConfig: invalid config: alpha: must be in \[0, 1\], got 1.5/],
      [() => new RmsPropConfig({ momentum: -0.5 }), /momentum: must be >= 0, got -0.5/],
      [
        () => new SgdConfig({ momentum: { dampening: 2 } }),
        /SgdConfig: invalid config: momentum.dampening: must be in \[0, 1\], got 2/,
      ],
      [() => new AdanConfig({ beta3: 1 }), /AdanConfig: invalid config: beta3: must be in \[0, 1\), got 1/],
      [() => new MuonConfig({ nsSteps: 0 }), /MuonConfig: invalid config: nsSteps: must be an integer >= 1, got 0/],
      [() => new MuonConfig({ epsilon: -1 }), /epsilon: must be > 0, got -1/],
      [() => new MuonConfig({ adjustLrFn: 'sqrt' as never }), /MuonConfig: invalid config: adjustLrFn/],
      [
        () => new LbfgsConfig({ historySize: 0 }),
        /LbfgsConfig: invalid config: historySize: must be an integer >= 1, got 0/,
      ],
      [() => new LbfgsConfig({ maxIter: 1.5 }), /maxIter: must be an integer, got 1.5/],
      [() => new LbfgsConfig({ lineSearchFn: 'armijo' as never }), /LbfgsConfig: invalid config: lineSearchFn/],
    ];
    for (const [f, message] of cases)
      assert.throws(f, (e: unknown) => e instanceof BurnError && message.test(e.message), String(message));
  });
});
