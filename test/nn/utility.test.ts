// Interpolate1d/2d, PixelShuffle/PixelUnshuffle, Unfold4d/Fold4d, CosineSimilarity, PairwiseDistance
// and GaussianNoise against PyTorch (nn_layers.json): outputs and input gradients. Burn-specific:
// alignCorners defaults to true; a scale factor gives floor(size · scale) and the resize then uses
// that size (the generator passes the size to PyTorch); 1-d cubic is bicubic on a height-1 image.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Distribution, Tensor, type Float } from '../../src/index.js';
import {
  CosineSimilarityConfig,
  Fold4dConfig,
  GaussianNoiseConfig,
  Interpolate1dConfig,
  Interpolate2dConfig,
  InterpolateMode,
  PairwiseDistanceConfig,
  PixelShuffleConfig,
  PixelUnshuffleConfig,
  Unfold4dConfig,
} from '../../src/nn/index.js';
import { checkLayer, lcase, lparam, throwsBurn, values } from './layers-helpers.js';

const cpu = Device.cpu();
type T2 = Tensor<2, Float>;
type T3 = Tensor<3, Float>;
type T4 = Tensor<4, Float>;

describe('Interpolate1d / Interpolate2d', () => {
  checkLayer({
    name: 'interp1d_linear',
    layer: () => new Interpolate1dConfig({ outputSize: 8, mode: InterpolateMode.Linear }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'interp1d_nearest',
    layer: () => new Interpolate1dConfig({ outputSize: 12 }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'interp1d_cubic',
    layer: () => new Interpolate1dConfig({ outputSize: 9, mode: 'cubic', alignCorners: false }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'interp1d_scale_nearest_exact',
    layer: () => new Interpolate1dConfig({ scaleFactor: 1.5, mode: 'nearestExact' }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'interp2d_bilinear',
    layer: () => new Interpolate2dConfig({ outputSize: [7, 3], mode: 'linear', alignCorners: false }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'interp2d_bicubic',
    layer: () => new Interpolate2dConfig({ outputSize: [6, 8], mode: 'cubic' }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'interp2d_scale_nearest',
    layer: () => new Interpolate2dConfig({ scaleFactor: [2, 1.5] }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });

  it('defaults and display as Burn (`Interpolate1d {mode: Nearest, output_size: Some(20), scale_factor: None}`)', () => {
    const c = new Interpolate2dConfig({ outputSize: [20, 20] });
    assert.deepEqual([c.mode, c.alignCorners, c.scaleFactor], ['nearest', true, undefined]);
    assert.equal(
      `${new Interpolate1dConfig({ outputSize: 20 }).init()}`,
      'Interpolate1d {mode: Nearest, outputSize: 20}',
    );
    assert.equal(`${c.init()}`, 'Interpolate2d {mode: Nearest, outputSize: [20, 20]}');
    assert.equal(
      `${new Interpolate2dConfig({ scaleFactor: [2, 3], mode: 'cubic' }).init()}`,
      'Interpolate2d {mode: Cubic, scaleFactor: [2, 3]}',
    );
  });

  it('errors: no size, a wrong rank, an unknown mode', () => {
    throwsBurn(
      () => new Interpolate1dConfig({}).init().forward(Tensor.zeros([1, 1, 4], cpu)),
      'Interpolate1d',
      'neither outputSize nor scaleFactor',
    );
    throwsBurn(
      () =>
        new Interpolate2dConfig({ outputSize: [2, 2] }).init().forward(Tensor.zeros([1, 4, 4], cpu) as unknown as T4),
      'Interpolate2d',
      '[1, 4, 4]',
      'expected [batch, channels, height, width]',
    );
    throwsBurn(
      () => new Interpolate2dConfig({ scaleFactor: [0.1, 1] }).init().forward(Tensor.zeros([1, 1, 4, 4], cpu)),
      'Interpolate2d',
      'gives [0, 4]',
    );
    throwsBurn(
      () => new Interpolate1dConfig({ outputSize: 3, mode: 'lanczos' as never }),
      'Interpolate1dConfig',
      'mode',
    );
  });
});

describe('PixelShuffle / PixelUnshuffle', () => {
  checkLayer({
    name: 'pixel_shuffle',
    layer: () => new PixelShuffleConfig({ upscaleFactor: 2 }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'pixel_unshuffle',
    layer: () => new PixelUnshuffleConfig({ downscaleFactor: 2 }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });

  it('are inverse; display and errors as Burn', async () => {
    const x = Tensor.random([2, 3, 4, 6], Distribution.Uniform(-1, 1), cpu);
    const back = new PixelShuffleConfig({ upscaleFactor: 2 })
      .init()
      .forward(new PixelUnshuffleConfig({ downscaleFactor: 2 }).init().forward(x));
    assert.deepEqual(await values(back), await values(x));
    assert.equal(`${new PixelShuffleConfig({ upscaleFactor: 2 }).init()}`, 'PixelShuffle {upscaleFactor: 2}');
    assert.equal(`${new PixelUnshuffleConfig({ downscaleFactor: 2 }).init()}`, 'PixelUnshuffle {downscaleFactor: 2}');
    throwsBurn(
      () => new PixelShuffleConfig({ upscaleFactor: 2 }).init().forward(Tensor.zeros([1, 6, 2, 2], cpu)),
      'PixelShuffle',
      '[1, 6, 2, 2]',
      'divisible by upscaleFactor² = 4',
    );
    throwsBurn(
      () => new PixelUnshuffleConfig({ downscaleFactor: 2 }).init().forward(Tensor.zeros([1, 1, 3, 2], cpu)),
      'PixelUnshuffle',
      '[1, 1, 3, 2]',
      'divisible by downscaleFactor 2',
    );
  });
});

describe('Unfold4d / Fold4d', () => {
  checkLayer({
    name: 'unfold',
    layer: () => new Unfold4dConfig({ kernelSize: [2, 3], stride: [2, 1], padding: [1, 0] }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'fold',
    layer: () => new Fold4dConfig({ outputSize: [4, 5], kernelSize: [2, 2], dilation: [1, 2], padding: [1, 0] }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });

  it("display as Burn's `Fold4d {output_size: [4, 4], kernel_size: [2, 2], stride: [1, 1], dilation: [1, 1], padding: [0, 0]}`; errors", () => {
    assert.equal(
      `${new Fold4dConfig({ outputSize: [4, 4], kernelSize: [2, 2] }).init()}`,
      'Fold4d {outputSize: [4, 4], kernelSize: [2, 2], stride: [1, 1], dilation: [1, 1], padding: [0, 0]}',
    );
    assert.equal(
      `${new Unfold4dConfig({ kernelSize: [2, 2] }).init()}`,
      'Unfold4d {kernelSize: [2, 2], stride: [1, 1], dilation: [1, 1], padding: [0, 0]}',
    );
    throwsBurn(
      () => new Unfold4dConfig({ kernelSize: [2, 2] }).init().forward(Tensor.zeros([3, 3], cpu) as unknown as T4),
      'Unfold4d',
      'rank 2',
    );
    throwsBurn(
      () => new Fold4dConfig({ outputSize: [4, 4], kernelSize: [2, 2] }).init().forward(Tensor.zeros([1, 4, 3], cpu)),
      'fold4d',
      '3 blocks',
      'expected 3 × 3 = 9',
    );
  });
});

describe('CosineSimilarity / PairwiseDistance', () => {
  checkLayer({
    name: 'cosine',
    layer: () => new CosineSimilarityConfig().init(),
    forward: (l, i) => l.forward(i.x1 as T2, i.x2 as T2),
    inputs: ['x1', 'x2'],
  });
  checkLayer({
    name: 'cosine_dim_neg',
    layer: () => new CosineSimilarityConfig({ dim: -1 }).init(),
    forward: (l, i) => l.forward(i.x1 as T3, i.x2 as T3),
    inputs: ['x1', 'x2'],
  });
  for (const name of ['pairwise_p2', 'pairwise_p1', 'pairwise_p3']) {
    checkLayer({
      name,
      layer: () => new PairwiseDistanceConfig({ p: lparam<number>(lcase(name), 'p') }).init(),
      forward: (l, i) => l.forward(i.x1 as T2, i.x2 as T2),
      inputs: ['x1', 'x2'],
    });
  }

  it('defaults, display and errors as Burn', async () => {
    const cos = new CosineSimilarityConfig().init();
    assert.deepEqual([cos.dim, cos.eps], [1, 1e-8]);
    assert.equal(`${new CosineSimilarityConfig({ dim: -1, eps: 0.5 }).init()}`, 'CosineSimilarity {dim: -1, eps: 0.5}');
    const pd = new PairwiseDistanceConfig().init();
    assert.deepEqual([pd.p, pd.eps], [2, 1e-6]);
    assert.equal(`${new PairwiseDistanceConfig({ eps: 0.5 }).init()}`, 'PairwiseDistance {p: 2, eps: 0.5}');
    const zero = cos.forward(Tensor.zeros([1, 3], cpu), Tensor.ones([1, 3], cpu));
    assert.deepEqual(await values(zero), [0], 'a zero vector gives 0 (norms clamped by eps)');
    throwsBurn(
      () => cos.forward(Tensor.zeros([2, 3], cpu), Tensor.zeros([2, 4], cpu)),
      'CosineSimilarity',
      '[2, 3] and [2, 4]',
    );
    throwsBurn(
      () => new CosineSimilarityConfig({ dim: 2 }).init().forward(Tensor.zeros([2, 3], cpu), Tensor.zeros([2, 3], cpu)),
      'CosineSimilarity',
      'dim 2',
      '[-2, 2)',
    );
    throwsBurn(
      () => pd.forward(Tensor.zeros([2, 3], cpu), Tensor.zeros([3, 3], cpu)),
      'PairwiseDistance',
      '[2, 3] and [3, 3]',
    );
  });
});

describe('GaussianNoise', () => {
  it('adds N(0, std²) noise on an autodiff device only (like Dropout), gradient 1', async () => {
    const noise = new GaussianNoiseConfig({ std: 0.5 }).init();
    const x = Tensor.ones([100, 100], cpu);
    assert.equal(noise.forward(x), x, 'identity without autodiff');
    const ad = cpu.autodiff();
    const xa = Tensor.ones([100, 100], ad).requireGrad();
    const y = noise.forward(xa);
    const v = await values(y);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
    assert.ok(Math.abs(mean - 1) < 0.02 && Math.abs(std - 0.5) < 0.02, `mean ${mean}, std ${std}`);
    const g = await values(xa.grad(y.sum().backward())!);
    assert.ok(g.every((e) => e === 1));
    assert.equal(new GaussianNoiseConfig({ std: 0 }).init().forward(xa), xa, 'std 0 is the identity');
    assert.equal(`${noise}`, 'GaussianNoise {std: 0.5}');
    throwsBurn(() => new GaussianNoiseConfig({ std: -1 }), 'GaussianNoiseConfig', 'std');
  });
});
