// Conv1d/2d/3d, ConvTranspose1d/2d/3d and DeformConv2d against PyTorch/torchvision
// (nn_layers.json): outputs and input/weight/bias (and offset/mask) gradients, with groups, stride,
// dilation, explicit symmetric and asymmetric padding, and Burn's 'same' padding (even kernels and
// stride > 1 pad asymmetrically, the extra element at the end; the generator checks the rule
// against PyTorch's padding='same' at stride 1). Also Burn's initializer fans, display and errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float } from '../../src/index.js';
import {
  Conv1dConfig,
  Conv2dConfig,
  Conv3dConfig,
  ConvTranspose1dConfig,
  ConvTranspose2dConfig,
  ConvTranspose3dConfig,
  DeformConv2dConfig,
  Initializer,
  PaddingConfig1d,
  PaddingConfig2d,
  PaddingConfig3d,
} from '../../src/nn/index.js';
import { checkLayer, throwsBurn, values } from './layers-helpers.js';

const cpu = Device.cpu();
type T3 = Tensor<3, Float>;
type T4 = Tensor<4, Float>;
type T5 = Tensor<5, Float>;

describe('Conv1d', () => {
  checkLayer({
    name: 'conv1d_groups',
    layer: (d) =>
      new Conv1dConfig({
        channelsIn: 4,
        channelsOut: 6,
        kernelSize: 3,
        stride: 2,
        dilation: 2,
        groups: 2,
        padding: PaddingConfig1d.Explicit(1),
      }).init(d),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'conv1d_same_even',
    layer: (d) =>
      new Conv1dConfig({
        channelsIn: 3,
        channelsOut: 2,
        kernelSize: 4,
        bias: false,
        padding: PaddingConfig1d.Same,
      }).init(d),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'conv1d_same_stride',
    layer: (d) =>
      new Conv1dConfig({ channelsIn: 2, channelsOut: 3, kernelSize: 3, stride: 2, padding: PaddingConfig1d.Same }).init(
        d,
      ),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'conv1d_explicit_asym',
    layer: (d) =>
      new Conv1dConfig({ channelsIn: 2, channelsOut: 2, kernelSize: 3, padding: PaddingConfig1d.Explicit(2, 1) }).init(
        d,
      ),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });

  it("displays as Burn's `Conv1d {ch_in: 5, ch_out: 5, stride: 1, kernel_size: 5, ..., params: 130}`", () => {
    const conv = new Conv1dConfig({ channelsIn: 5, channelsOut: 5, kernelSize: 5 }).init(cpu);
    assert.equal(
      `${conv}`,
      'Conv1d {chIn: 5, chOut: 5, stride: 1, kernelSize: 5, dilation: 1, groups: 1, padding: Valid, params: 130}',
    );
  });
});

describe('Conv2d', () => {
  checkLayer({
    name: 'conv2d_groups',
    layer: (d) =>
      new Conv2dConfig({
        channels: [4, 6],
        kernelSize: [3, 3],
        stride: [2, 1],
        dilation: [1, 2],
        groups: 2,
        padding: PaddingConfig2d.Explicit(1, 2),
      }).init(d),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'conv2d_same_dilated_even',
    layer: (d) =>
      new Conv2dConfig({ channels: [2, 3], kernelSize: [3, 4], dilation: [2, 1] })
        .withPadding(PaddingConfig2d.Same)
        .init(d),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'conv2d_explicit_asym',
    layer: (d) =>
      new Conv2dConfig({ channels: [2, 2], kernelSize: [2, 3], padding: PaddingConfig2d.Explicit(1, 0, 2, 1) }).init(d),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'conv2d_depthwise_same_stride',
    layer: (d) =>
      new Conv2dConfig({
        channels: [3, 3],
        kernelSize: [3, 3],
        stride: [2, 2],
        groups: 3,
        padding: PaddingConfig2d.Same,
      }).init(d),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });

  it('defaults as Burn: valid padding, bias, KaimingUniform with fanIn = channelsIn / groups · kh · kw', async () => {
    const config = new Conv2dConfig({ channels: [8, 4], kernelSize: [3, 2], groups: 2 });
    assert.deepEqual(
      [config.stride, config.dilation, config.groups, config.padding, config.bias],
      [[1, 1], [1, 1], 2, 'valid', true],
    );
    assert.deepEqual(config.initializer, Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false }));
    const conv = config.init(cpu);
    assert.deepEqual(conv.weight.dims(), [4, 4, 3, 2]);
    const k = 1 / Math.sqrt((8 / 2) * 3 * 2);
    const w = await values(conv.weight.val());
    assert.ok(
      w.every((v) => Math.abs(v) <= k),
      'weight within ±1/√fanIn',
    );
    assert.ok(Math.max(...w.map(Math.abs)) > 0.7 * k, 'and spread over the range');
    assert.ok((await values(conv.bias!.val())).every((v) => Math.abs(v) <= k));
    // Xavier uses fanOut = channelsOut / groups · kh · kw: a = √(6 / (12 + 12)) = 0.5.
    const xavier = config.withInitializer(Initializer.XavierUniform()).withGroups(1).withChannels([2, 2]).init(cpu);
    assert.ok((await values(xavier.weight.val())).every((v) => Math.abs(v) <= 0.5));
  });

  it('works as the API contract writes it (withStride, withPadding(PaddingConfig2d.Same))', () => {
    const conv = new Conv2dConfig({ channels: [3, 64], kernelSize: [3, 3] })
      .withStride([1, 1])
      .withPadding(PaddingConfig2d.Same)
      .init(cpu);
    assert.deepEqual(conv.forward(Tensor.zeros([2, 3, 16, 16], cpu)).dims(), [2, 64, 16, 16]);
    assert.deepEqual(
      new Conv2dConfig({ channels: [3, 4], kernelSize: [3, 3] })
        .init(cpu)
        .forward(Tensor.zeros([1, 3, 6, 5], cpu))
        .dims(),
      [1, 4, 4, 3],
      'valid by default',
    );
  });

  it("displays as Burn's `Conv2d {ch_in: 5, ch_out: 1, stride: [1, 1], ...}`", () => {
    const conv = new Conv2dConfig({ channels: [5, 1], kernelSize: [5, 5] }).init(cpu);
    assert.equal(
      `${conv}`,
      'Conv2d {chIn: 5, chOut: 1, stride: [1, 1], kernelSize: [5, 5], dilation: [1, 1], groups: 1, padding: Valid, params: 126}',
    );
    const padded = new Conv2dConfig({
      channels: [5, 1],
      kernelSize: [5, 5],
      padding: PaddingConfig2d.Explicit(1, 2, 3, 4),
    }).init(cpu);
    assert.match(`${padded}`, /padding: Explicit\(1, 2, 3, 4\)/);
  });

  it('errors name the layer, the shapes and what was expected', () => {
    const conv = new Conv2dConfig({ channels: [4, 6], kernelSize: [3, 3], groups: 2 }).init(cpu);
    throwsBurn(
      () => conv.forward(Tensor.zeros([1, 3, 8, 8], cpu)),
      'Conv2d',
      '[1, 3, 8, 8]',
      '3 channels',
      'expected [batch, 4, height, width]',
    );
    throwsBurn(
      () => conv.forward(Tensor.zeros([4, 8, 8], cpu) as unknown as T4),
      'Conv2d',
      '[4, 8, 8]',
      'rank 3',
      'expected [batch, 4, height, width]',
    );
    throwsBurn(
      () => new Conv2dConfig({ channels: [3, 6], kernelSize: [3, 3], groups: 2 }).init(cpu),
      'Conv2dConfig',
      '[3, 6]',
      'divisible by groups 2',
    );
    throwsBurn(
      () =>
        new Conv2dConfig({ channels: [3, 6], kernelSize: [3, 3], padding: PaddingConfig3d.Explicit(1, 1, 1) }).init(
          cpu,
        ),
      'Conv2dConfig',
      'explicit padding [1, 1, 1]',
      'expected 2',
    );
    throwsBurn(() => new Conv2dConfig({ channels: [3, 6], kernelSize: [3, 0] as never }), 'Conv2dConfig', 'kernelSize');
    throwsBurn(
      () =>
        new Conv2dConfig({ channels: [1, 1], kernelSize: [5, 5] }).init(cpu).forward(Tensor.zeros([1, 1, 3, 3], cpu)),
      'conv2d',
      'smaller than the dilated kernel',
    );
  });
});

describe('Conv3d', () => {
  checkLayer({
    name: 'conv3d_groups',
    layer: (d) =>
      new Conv3dConfig({
        channels: [4, 4],
        kernelSize: [2, 3, 2],
        stride: [1, 2, 1],
        groups: 2,
        padding: PaddingConfig3d.Explicit(1, 1, 0),
      }).init(d),
    forward: (l, i) => l.forward(i.x as T5),
    inputs: ['x'],
  });
  checkLayer({
    // Burn panics on an asymmetric 3-d 'same' padding (even kernel); burn-ts pads the input first as in 1-d and 2-d.
    name: 'conv3d_same',
    layer: (d) =>
      new Conv3dConfig({ channels: [2, 2], kernelSize: [3, 2, 3], bias: false, padding: PaddingConfig3d.Same }).init(d),
    forward: (l, i) => l.forward(i.x as T5),
    inputs: ['x'],
  });

  it("displays as Burn's `Conv3d {ch_in: 5, ch_out: 1, stride: [1, 1, 1], ..., params: 626}`", () => {
    assert.equal(
      `${new Conv3dConfig({ channels: [5, 1], kernelSize: [5, 5, 5] }).init(cpu)}`,
      'Conv3d {chIn: 5, chOut: 1, stride: [1, 1, 1], kernelSize: [5, 5, 5], dilation: [1, 1, 1], groups: 1, padding: Valid, params: 626}',
    );
  });
});

describe('ConvTranspose1d/2d/3d', () => {
  checkLayer({
    name: 'convT1d',
    layer: (d) =>
      new ConvTranspose1dConfig({
        channels: [4, 6],
        kernelSize: 3,
        groups: 2,
        stride: 2,
        padding: 1,
        paddingOut: 1,
      }).init(d),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'convT2d',
    layer: (d) =>
      new ConvTranspose2dConfig({
        channels: [2, 4],
        kernelSize: [3, 2],
        stride: [2, 3],
        padding: [1, 0],
        paddingOut: [1, 2],
        dilation: [1, 2],
      }).init(d),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'convT3d',
    layer: (d) =>
      new ConvTranspose3dConfig({
        channels: [2, 4],
        kernelSize: [2, 2, 2],
        groups: 2,
        stride: [2, 1, 2],
        padding: [0, 1, 0],
        paddingOut: [1, 0, 0],
      }).init(d),
    forward: (l, i) => l.forward(i.x as T5),
    inputs: ['x'],
  });

  it('defaults as Burn: weight [channelsIn, channelsOut / groups, ...k], KaimingUniform with fanIn = channelsOut / groups · k', async () => {
    const config = new ConvTranspose2dConfig({ channels: [6, 4], kernelSize: [3, 3], groups: 2 });
    assert.deepEqual(
      [config.stride, config.padding, config.paddingOut, config.dilation, config.bias],
      [[1, 1], [0, 0], [0, 0], [1, 1], true],
    );
    const conv = config.init(cpu);
    assert.deepEqual(conv.weight.dims(), [6, 2, 3, 3]);
    const k = 1 / Math.sqrt((4 / 2) * 9);
    assert.ok((await values(conv.weight.val())).every((v) => Math.abs(v) <= k));
    assert.deepEqual(conv.forward(Tensor.zeros([1, 6, 4, 5], cpu)).dims(), [1, 4, 6, 7]);
  });

  it("displays as Burn's `ConvTranspose1d {channels: [5, 2], stride: 1, ...}`", () => {
    assert.equal(
      `${new ConvTranspose1dConfig({ channels: [5, 2], kernelSize: 5 }).init(cpu)}`,
      'ConvTranspose1d {channels: [5, 2], stride: 1, kernelSize: 5, dilation: 1, groups: 1, padding: 0, paddingOut: 0, params: 52}',
    );
    assert.equal(
      `${new ConvTranspose2dConfig({ channels: [5, 2], kernelSize: [5, 5] }).init(cpu)}`,
      'ConvTranspose2d {channels: [5, 2], stride: [1, 1], kernelSize: [5, 5], dilation: [1, 1], groups: 1, padding: [0, 0], paddingOut: [0, 0], params: 252}',
    );
  });

  it('errors: wrong channels (any paddingOut is accepted, as Burn)', () => {
    assert.deepEqual(
      new ConvTranspose1dConfig({ channels: [2, 2], kernelSize: 3, stride: 2, paddingOut: 2 })
        .init(cpu)
        .forward(Tensor.zeros([1, 2, 4], cpu))
        .dims(),
      [1, 2, 11],
    );
    const conv = new ConvTranspose1dConfig({ channels: [2, 3], kernelSize: 3 }).init(cpu);
    throwsBurn(
      () => conv.forward(Tensor.zeros([1, 3, 5], cpu)),
      'ConvTranspose1d',
      '[1, 3, 5]',
      'expected [batch, 2, length]',
    );
  });
});

describe('DeformConv2d', () => {
  checkLayer({
    name: 'deform_same_mask',
    layer: (d) =>
      new DeformConv2dConfig({ channels: [2, 4], kernelSize: [3, 3], padding: PaddingConfig2d.Same }).init(d),
    forward: (l, i) => l.forward(i.x as T4, i.offset as T4, i.mask as T4),
    inputs: ['x', 'offset', 'mask'],
  });
  checkLayer({
    name: 'deform_groups',
    layer: (d) =>
      new DeformConv2dConfig({
        channels: [4, 4],
        kernelSize: [3, 3],
        weightGroups: 2,
        offsetGroups: 2,
        stride: [2, 1],
      }).init(d),
    forward: (l, i) => l.forward(i.x as T4, i.offset as T4),
    inputs: ['x', 'offset'],
  });

  it("displays as Burn's `DeformConv2d {stride: [1, 1], kernel_size: [5, 5], ..., params: 126}`", () => {
    assert.equal(
      `${new DeformConv2dConfig({ channels: [5, 1], kernelSize: [5, 5] }).init(cpu)}`,
      'DeformConv2d {stride: [1, 1], kernelSize: [5, 5], dilation: [1, 1], weightGroups: 1, offsetGroups: 1, padding: Valid, params: 126}',
    );
  });

  it('only symmetric padding, as Burn', () => {
    throwsBurn(
      () => new DeformConv2dConfig({ channels: [2, 2], kernelSize: [2, 3], padding: 'same' }).init(cpu),
      'DeformConv2dConfig',
      "'same' padding needs odd kernel sizes",
    );
    throwsBurn(
      () =>
        new DeformConv2dConfig({
          channels: [2, 2],
          kernelSize: [3, 3],
          padding: PaddingConfig2d.Explicit(1, 1, 0, 0),
        }).init(cpu),
      'DeformConv2dConfig',
      'expected 2 (one per spatial dim)',
    );
    throwsBurn(
      () => new DeformConv2dConfig({ channels: [3, 2], kernelSize: [3, 3], offsetGroups: 2 }).init(cpu),
      'DeformConv2dConfig',
      'offsetGroups 2',
    );
    const conv = new DeformConv2dConfig({ channels: [2, 2], kernelSize: [3, 3], stride: [2, 2], padding: 'same' }).init(
      cpu,
    );
    throwsBurn(
      () => conv.forward(Tensor.zeros([1, 2, 6, 6], cpu), Tensor.zeros([1, 18, 3, 3], cpu)),
      'DeformConv2d',
      'only symmetric padding',
    );
    throwsBurn(
      () => conv.forward(Tensor.zeros([1, 3, 6, 6], cpu), Tensor.zeros([1, 18, 3, 3], cpu)),
      'DeformConv2d',
      'expected [batch, 2, height, width]',
    );
  });
});

describe('PaddingConfig1d/2d/3d', () => {
  it("constructors: Burn's Explicit(left, right) and Explicit(top, left, bottom, right); one size per dim for both sides", () => {
    assert.deepEqual(PaddingConfig1d.Explicit(2), { explicit: [2, 2] });
    assert.deepEqual(PaddingConfig1d.Explicit(2, 1), { explicit: [2, 1] });
    assert.deepEqual(PaddingConfig2d.Explicit(1, 2), { explicit: [1, 2] });
    assert.deepEqual(PaddingConfig2d.Explicit(1, 2, 3, 4), { explicit: [1, 2, 3, 4] });
    assert.deepEqual(PaddingConfig3d.Explicit(1, 2, 3), { explicit: [1, 2, 3] });
    assert.deepEqual([PaddingConfig2d.Same, PaddingConfig2d.Valid], ['same', 'valid']);
  });

  it("'same' keeps ceil(size / stride) positions for any kernel, stride and dilation", () => {
    for (const [k, s, d] of [
      [3, 1, 1],
      [4, 1, 1],
      [2, 2, 1],
      [3, 3, 2],
      [5, 2, 3],
      [1, 4, 1],
    ] as const) {
      for (const size of [5, 8, 9]) {
        const conv = new Conv1dConfig({
          channelsIn: 1,
          channelsOut: 1,
          kernelSize: k,
          stride: s,
          dilation: d,
          padding: 'same',
        }).init(cpu);
        assert.deepEqual(
          conv.forward(Tensor.zeros([1, 1, size], cpu)).dims(),
          [1, 1, Math.ceil(size / s)],
          `k ${k} s ${s} d ${d} size ${size}`,
        );
      }
    }
  });
});
