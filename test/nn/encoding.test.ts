// Positional (sinusoidal) and rotary encodings. PyTorch has neither as a module: the generator
// (test/fixtures/gen_nn_sequence.py) computes Burn's sinusoid table in float32, and the rotary
// encoding with the LLaMA-style complex rotation (torch.polar / view_as_complex) — an independent
// formulation of Burn's pairwise rotation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor } from '../../src/index.js';
import { generateSinusoids, PositionalEncodingConfig, RotaryEncodingConfig } from '../../src/nn/index.js';
import { expectClose } from '../helpers/fixtures.js';
import { forwardDevices, fx, gradDevice, seqCase, throwsBurn } from './sequence-helpers.js';

const TOL = { rtol: 1e-4, atol: 1e-5 };

describe('PositionalEncoding', () => {
  it("has Burn's defaults and display", () => {
    const cfg = new PositionalEncodingConfig({ dModel: 4 });
    assert.deepEqual([cfg.maxSequenceSize, cfg.maxTimescale], [5000, 10000]);
    const layer = cfg.init(Device.cpu());
    assert.deepEqual(layer.sinusoids.dims(), [1, 5000, 4]);
    assert.equal(layer.numParams(), 0);
    assert.equal(layer.toString(), 'PositionalEncoding {dModel: 4, maxSequenceSize: 5000, maxTimescale: 10000}');
  });

  for (const { name, device } of forwardDevices()) {
    it(`adds Burn's sinusoids (${name})`, async () => {
      const c = seqCase('positional');
      const d = device();
      const layer = new PositionalEncodingConfig({ dModel: 6, maxSequenceSize: 7, maxTimescale: 100 }).init(d);
      await expectClose(layer.sinusoids.squeezeDim(0), c.outputs.table!, TOL, 'table');
      const pe = new PositionalEncodingConfig({ dModel: 6 }).init(d);
      await expectClose(pe.forward(fx(c, 'x', d)), c.outputs.out!, TOL, 'forward');
    });
  }

  it('passes the gradient through unchanged', async () => {
    const d = gradDevice();
    const x = Tensor.zeros([1, 3, 4], d).requireGrad();
    const grads = new PositionalEncodingConfig({ dModel: 4, maxSequenceSize: 8 })
      .init(d)
      .forward(x)
      .mul(3)
      .sum()
      .backward();
    await expectClose(x.grad(grads)!, { shape: [1, 3, 4], data: new Array(12).fill(3) });
  });

  it('rejects bad shapes and configs', () => {
    const device = Device.cpu();
    const layer = new PositionalEncodingConfig({ dModel: 4, maxSequenceSize: 3 }).init(device);
    throwsBurn(() => layer.forward(Tensor.zeros([1, 4, 4], device)), /PositionalEncoding/, /\[1, 4, 4\]/, /seq <= 3/);
    throwsBurn(() => layer.forward(Tensor.zeros([1, 2, 5], device)), /\[1, 2, 5\]/, /4 \(dModel\)/);
    throwsBurn(() => new PositionalEncodingConfig({ dModel: 5 }).init(device), /dModel 5 is odd/);
    throwsBurn(() => generateSinusoids(20, 4, 10), /maxTimescale 10 is less than the length 20/);
  });
});

describe('RotaryEncoding', () => {
  it("has Burn's default theta, tables and display", async () => {
    const cfg = new RotaryEncodingConfig({ maxSequenceLength: 4, dModel: 4 });
    assert.equal(cfg.theta, 10000);
    const layer = cfg.init(Device.cpu());
    assert.deepEqual(layer.freqComplex.dims(), [4, 4, 2]);
    assert.equal(layer.toString(), 'RotaryEncoding {dModel: 4, maxSequenceLength: 4}');
    // θ = [1, 10000^(-1/2)]; position 1 of features 2 and 3: (cos θ₁, sin θ₁).
    const t1 = 1 / 100;
    await expectClose(layer.freqComplex.slice([1, [2, 4]]), {
      shape: [1, 2, 2],
      data: [Math.cos(t1), Math.sin(t1), Math.cos(t1), Math.sin(t1)],
    });
    await expectClose(layer.theta, { shape: [2], data: [1, 0.01] });
  });

  for (const { name, device } of forwardDevices()) {
    it(`rotates feature pairs by position (${name})`, async () => {
      const c = seqCase('rotary');
      const d = device();
      const layer = new RotaryEncodingConfig({ maxSequenceLength: 10, dModel: 8 }).init(d);
      await expectClose(layer.forward(fx<4>(c, 'x', d)), c.outputs.out!, TOL, 'forward [b, h, s, d]');
      const small = new RotaryEncodingConfig({ maxSequenceLength: 10, dModel: 6, theta: 500 }).init(d);
      await expectClose(small.apply(fx<3>(c, 'x3', d), 2), c.outputs.out3_start2!, TOL, 'apply at 2, [b, s, d]');
    });
  }

  it("input gradient equals PyTorch's", async () => {
    const c = seqCase('rotary');
    const d = gradDevice();
    const x = fx<4>(c, 'x', d).requireGrad();
    const grads = new RotaryEncodingConfig({ maxSequenceLength: 10, dModel: 8 })
      .init(d)
      .forward(x)
      .mul(fx(c, 'R', d))
      .sum()
      .backward();
    await expectClose(x.grad(grads)!, c.outputs['grad.x']!, TOL, 'grad.x');
  });

  it('shift moves the window (new module) and reset returns to 0; frequency scaling', async () => {
    const device = Device.cpu({ engine: 'js' });
    const layer = new RotaryEncodingConfig({ maxSequenceLength: 6, dModel: 4 }).init(device);
    const far = new RotaryEncodingConfig({ maxSequenceLength: 20, dModel: 4 }).init(device);
    for (const start of [2, 9]) {
      const shifted = layer.shift(start);
      assert.equal(shifted.startOffset, start);
      assert.equal(layer.startOffset, 0);
      await expectClose(
        shifted.freqComplex,
        {
          shape: [6, 4, 2],
          data: Array.from(
            far.freqComplex
              .slice([[start, start + 6]])
              .toDataSync()
              .toArray(),
          ),
        },
        TOL,
        `shift ${start}`,
      );
      const back = shifted.reset();
      await expectClose(
        back.freqComplex,
        { shape: [6, 4, 2], data: Array.from(layer.freqComplex.toDataSync().toArray()) },
        TOL,
        'reset',
      );
    }
    throwsBurn(() => layer.shift(2).shift(1), /start 1; expected an integer greater than the current offset 2/);
    const scaled = new RotaryEncodingConfig({ maxSequenceLength: 2, dModel: 4 }).initWithFrequencyScaling(
      (t) => t.mul(2),
      device,
    );
    await expectClose(scaled.theta, { shape: [2], data: [2, 0.02] });
    throwsBurn(
      () =>
        new RotaryEncodingConfig({ maxSequenceLength: 2, dModel: 4 }).initWithFrequencyScaling(
          (t) => t.slice([[0, 1]]),
          device,
        ),
      /frequency scaling returned shape \[1\]/,
    );
  });

  it('rejects bad shapes and configs', () => {
    const device = Device.cpu();
    const layer = new RotaryEncodingConfig({ maxSequenceLength: 4, dModel: 4 }).init(device);
    throwsBurn(
      () => layer.forward(Tensor.zeros([1, 5, 4], device)),
      /RotaryEncoding/,
      /positions 0..5/,
      /4 precomputed/,
    );
    throwsBurn(() => layer.apply(Tensor.zeros([1, 2, 4], device), 3), /positions 3..5/);
    throwsBurn(() => layer.forward(Tensor.zeros([1, 2, 6], device)), /\[1, 2, 6\]/, /dModel 4/);
    throwsBurn(() => new RotaryEncodingConfig({ maxSequenceLength: 4, dModel: 3 }).init(device), /dModel 3 is odd/);
    throwsBurn(() => new RotaryEncodingConfig({ maxSequenceLength: 4, dModel: 4, theta: 0 }), /theta/);
  });
});
