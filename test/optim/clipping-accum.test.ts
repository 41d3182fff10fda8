// Gradient clipping (per parameter, by value and by norm, as Burn's GradientClipping) and
// GradientsAccumulator. The end-to-end clipping trajectories against PyTorch are in
// trajectories.test.ts (clip_value_sgd, clip_norm_adam, clip_norm_sgd).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor } from '../../src/index.js';
import {
  GradientClipping,
  GradientClippingConfig,
  GradientsAccumulator,
  GradientsParams,
  SgdConfig,
} from '../../src/optim/index.js';
import { batch, flatParams, initialMlp, lossAndGrads, type Mlp } from './helpers.js';

const plain = Device.cpu({ engine: 'js' });
const device = plain.autodiff();

describe('gradient clipping', () => {
  it('by value clamps every component (NaN kept)', () => {
    const g = Tensor.fromData(
      [
        [-2, -0.5, 0],
        [0.25, 3, Number.NaN],
      ],
      plain,
    );
    const out = GradientClipping.Value(1).clipGradient(g).toDataSync().toArray();
    assert.deepEqual(Array.from(out as ArrayLike<number>), [-1, -0.5, 0, 0.25, 1, Number.NaN]);
  });

  it('by norm rescales a gradient above the norm and leaves one below it', () => {
    const g = Tensor.fromData([3, 4], plain); // norm 5
    assert.deepEqual(
      Array.from(
        GradientClippingConfig.init(GradientClippingConfig.Norm(1))
          .clipGradient(g)
          .toDataSync()
          .toArray() as ArrayLike<number>,
      ),
      [Math.fround(0.6), Math.fround(0.8)],
    );
    assert.deepEqual(
      Array.from(GradientClipping.Norm(10).clipGradient(g).toDataSync().toArray() as ArrayLike<number>),
      [3, 4],
    );
    const zeros = GradientClipping.Norm(1).clipGradient(Tensor.zeros([2, 2], plain));
    assert.deepEqual(
      Array.from(zeros.toDataSync().toArray() as ArrayLike<number>),
      [0, 0, 0, 0],
      'a zero gradient stays zero (no 0/0)',
    );
    const f64 = GradientClipping.Norm(1).clipGradient(Tensor.fromData([3, 4], { device: plain, dtype: 'f64' }));
    const [a, b] = Array.from(f64.toDataSync().toArray() as ArrayLike<number>);
    assert.ok(Math.abs(a! - 0.6) < 1e-15 && Math.abs(b! - 0.8) < 1e-15, `f64: ${a}, ${b}`);
  });

  it('applies per parameter inside the optimizer (each gradient clipped by its own norm)', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const { grads } = lossAndGrads(model, x, y);
    const clipped = new SgdConfig({ gradientClipping: GradientClippingConfig.Norm(1e-3) })
      .init<Mlp>()
      .step(1, model, grads);
    model.visit((p, path) => {
      const delta = (clipped.params().get(path)!.val() as Tensor<number>)
        .inner()
        .sub((p.val() as Tensor<number>).inner());
      const norm = delta.square().sum().sqrt().intoScalarSync();
      assert.ok(Math.abs(norm - 1e-3) < 1e-6, `${path}: update norm ${norm}`);
    });
    assert.equal(
      new SgdConfig({ gradientClipping: GradientClippingConfig.Value(1) }).init().hasGradientClipping(),
      true,
    );
    assert.equal(new SgdConfig({}).init().gradClipping(), undefined);
  });

  it('bad thresholds are BurnErrors', () => {
    assert.throws(
      () => GradientClippingConfig.Value(0),
      (e: unknown) =>
        e instanceof BurnError &&
        /GradientClippingConfig.Value: the threshold must be a positive finite number, got 0/.test(e.message),
    );
    assert.throws(
      () => GradientClipping.Norm(Number.POSITIVE_INFINITY),
      /GradientClipping: the threshold must be a positive finite number, got Infinity/,
    );
    assert.throws(
      () => new SgdConfig({ gradientClipping: { kind: 'norm', value: -1 } }),
      /SgdConfig: invalid config: gradientClipping.value: the threshold must be > 0, got -1/,
    );
  });
});

describe('GradientsAccumulator', () => {
  it('sums gradients over steps; grads() returns the sums and starts over', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const acc = new GradientsAccumulator<Mlp>();
    const g1 = lossAndGrads(model, x, y).grads;
    const g2 = lossAndGrads(model, x.mul(0.5), y).grads;
    acc.accumulate(model, g1);
    acc.accumulate(model, g2);
    assert.equal(acc.steps(), 2);
    const sum = acc.grads();
    assert.equal(acc.steps(), 0);
    assert.equal(acc.grads().isEmpty(), true);
    model.visit((p, path) => {
      const expected = g1.get(p.id)!.add(g2.get(p.id)!).toDataSync().toArray();
      assert.deepEqual(sum.get(p.id)!.toDataSync().toArray(), expected, path);
    });
    // Stepping with the sum of two batches equals stepping with twice the mean gradient.
    const a = new SgdConfig({}).init<Mlp>().step(0.1, model, sum);
    const twice = new GradientsParams();
    model.visit((p) => twice.register(p.id, g1.get(p.id)!.add(g2.get(p.id)!)));
    assert.deepEqual(flatParams(a), flatParams(new SgdConfig({}).init<Mlp>().step(0.1, model, twice)));
  });

  it('keeps gradients of parameters missing from later steps, and rejects mismatched shapes', () => {
    const model = initialMlp(device, 'f32');
    const acc = new GradientsAccumulator<Mlp>();
    const first = new GradientsParams();
    first.register(model.l1.weight.id, Tensor.ones([3, 4], plain));
    acc.accumulate(model, first);
    const second = new GradientsParams();
    second.register(model.l2.weight.id, Tensor.ones([4, 2], plain));
    acc.accumulate(model, second);
    assert.deepEqual(acc.grads().ids().sort(), [model.l1.weight.id, model.l2.weight.id].sort());
    acc.accumulate(model, first);
    const bad = new GradientsParams();
    bad.register(model.l1.weight.id, Tensor.ones([2, 2], plain));
    assert.throws(
      () => acc.accumulate(model, bad),
      /GradientsAccumulator.accumulate: gradient of shape \[2, 2\] for a parameter whose accumulated gradient has shape \[3, 4\]/,
    );
  });
});

describe('GradientsParams', () => {
  it('fromGrads reads each trainable parameter, fromParams a subset; get/remove/register/toDevice', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const loss = model.forward(x).sub(y).square().mean();
    const raw = loss.backward();
    const all = GradientsParams.fromGrads(raw, model);
    assert.equal(all.len(), 4);
    assert.deepEqual(
      all.get(model.l1.weight.id)!.toDataSync().toArray(),
      model.l1.weight.val().grad(raw)!.toDataSync().toArray(),
    );
    assert.ok(all.get(model.l1.weight.id)!.device().equals(plain), 'on the inner device');
    const some = GradientsParams.fromParams(raw, model, [model.l2.bias!.id]);
    assert.deepEqual(some.ids(), [model.l2.bias!.id]);
    assert.ok(some.remove(model.l2.bias!.id) !== undefined && some.isEmpty());
    assert.equal(GradientsParams.fromModule(raw, model).len(), 4);
    assert.equal(all.toDevice(plain).len(), 4);
    assert.throws(
      () => all.register(model.l1.weight.id, Tensor.ones([2], plain)),
      /GradientsParams.register: gradient of shape \[2\] for parameter .* which had a gradient of shape \[3, 4\]/,
    );
    assert.throws(() => GradientsParams.fromGrads(raw, initialMlp(plain, 'f32')), /grad: .* is not an autodiff device/);
  });
});
