// MaxPool1d/2d, AvgPool1d/2d and AdaptiveAvgPool1d/2d/3d against PyTorch (nn_layers.json): outputs
// and input gradients, with dilation, ceil mode, count_include_pad, and Burn's 'same' padding (an
// asymmetric one pads the input first: -inf for max pooling, zeros that always count for average
// pooling, as Burn). Also Burn's defaults (stride = kernel size), display and errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Float } from '../../src/index.js';
import {
  AdaptiveAvgPool1dConfig,
  AdaptiveAvgPool2dConfig,
  AdaptiveAvgPool3dConfig,
  AvgPool1dConfig,
  AvgPool2dConfig,
  MaxPool1dConfig,
  MaxPool2dConfig,
  PaddingConfig1d,
  PaddingConfig2d,
} from '../../src/nn/index.js';
import { checkLayer, throwsBurn, values } from './layers-helpers.js';

const cpu = Device.cpu();
type T3 = Tensor<3, Float>;
type T4 = Tensor<4, Float>;

describe('MaxPool1d/2d', () => {
  checkLayer({
    name: 'maxpool1d',
    layer: () =>
      new MaxPool1dConfig({ kernelSize: 3, stride: 2, padding: PaddingConfig1d.Explicit(1), dilation: 2 }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'maxpool1d_same_even',
    layer: () => new MaxPool1dConfig({ kernelSize: 2, padding: PaddingConfig1d.Same }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'maxpool2d_same',
    layer: () => new MaxPool2dConfig({ kernelSize: [3, 2], padding: PaddingConfig2d.Same }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'maxpool2d_ceil_dilated',
    layer: () =>
      new MaxPool2dConfig({
        kernelSize: [2, 2],
        strides: [2, 1],
        dilation: [1, 2],
        ceilMode: true,
        padding: PaddingConfig2d.Explicit(1, 1),
      }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });

  it('defaults as Burn: stride = kernel size, valid padding, dilation 1, floor mode', async () => {
    const pool = new MaxPool2dConfig({ kernelSize: [2, 3] }).init();
    assert.deepEqual([pool.stride, pool.dilation, pool.padding, pool.ceilMode], [[2, 3], [1, 1], 'valid', false]);
    const x = Tensor.fromFloats(
      [
        [
          [
            [1, 2, 3, 4, 5, 6],
            [7, 8, 9, 10, 11, 12],
            [0, 0, 0, 0, 0, 0],
          ],
        ],
      ],
      cpu,
    );
    assert.deepEqual(await values(pool.forward(x)), [9, 12]);
    assert.deepEqual(new MaxPool1dConfig({ kernelSize: 4 }).init().stride, [4]);
  });

  it("'same' padding with a dilated window wider than half the kernel pads the input with -inf", async () => {
    const pool = new MaxPool1dConfig({ kernelSize: 3, stride: 1, dilation: 2, padding: 'same' }).init();
    const x = Tensor.fromFloats([[[-1, -2, -3, -4, -5]]], cpu);
    assert.deepEqual(await values(pool.forward(x)), [-1, -2, -1, -2, -3]);
  });

  it("displays as Burn's `MaxPool2d {kernel_size: [3, 3], stride: [3, 3], padding: Valid, dilation: [1, 1], ceil_mode: false}`", () => {
    assert.equal(
      `${new MaxPool2dConfig({ kernelSize: [3, 3] }).init()}`,
      'MaxPool2d {kernelSize: [3, 3], stride: [3, 3], padding: Valid, dilation: [1, 1], ceilMode: false}',
    );
    assert.equal(
      `${new MaxPool1dConfig({ kernelSize: 3 }).init()}`,
      'MaxPool1d {kernelSize: 3, stride: 3, padding: Valid, dilation: 1, ceilMode: false}',
    );
  });

  it('errors name the layer and the expected layout', () => {
    throwsBurn(
      () => new MaxPool2dConfig({ kernelSize: [2, 2] }).init().forward(Tensor.zeros([2, 4, 4], cpu) as unknown as T4),
      'MaxPool2d',
      '[2, 4, 4]',
      'expected [batch, channels, height, width]',
    );
    throwsBurn(
      () => new MaxPool1dConfig({ kernelSize: 2 }).init().forward(Tensor.zeros([2, 4, 4, 4], cpu) as unknown as T3),
      'MaxPool1d',
      'expected [batch, channels, length]',
    );
    throwsBurn(
      () => new MaxPool1dConfig({ kernelSize: 2, padding: PaddingConfig2d.Explicit(1, 1, 1, 1) }).init(),
      'MaxPool1dConfig',
      'explicit padding [1, 1, 1, 1]',
    );
  });
});

describe('AvgPool1d/2d', () => {
  checkLayer({
    name: 'avgpool1d_exclude',
    layer: () =>
      new AvgPool1dConfig({
        kernelSize: 3,
        stride: 2,
        padding: PaddingConfig1d.Explicit(1),
        countIncludePad: false,
      }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'avgpool1d_same_even',
    layer: () => new AvgPool1dConfig({ kernelSize: 4, stride: 1, padding: PaddingConfig1d.Same }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'avgpool2d_ceil',
    layer: () =>
      new AvgPool2dConfig({
        kernelSize: [3, 2],
        strides: [2, 2],
        padding: PaddingConfig2d.Explicit(1, 1),
        ceilMode: true,
      }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'avgpool2d_exclude',
    layer: () =>
      new AvgPool2dConfig({
        kernelSize: [3, 3],
        padding: PaddingConfig2d.Explicit(1, 1),
        countIncludePad: false,
      }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });

  it("defaults and display as Burn's `AvgPool2d {kernel_size: [3, 3], stride: [3, 3], padding: Valid, count_include_pad: true, ceil_mode: false}`", () => {
    const c = new AvgPool1dConfig({ kernelSize: 3 });
    assert.deepEqual([c.countIncludePad, c.ceilMode, c.padding], [true, false, 'valid']);
    assert.equal(
      `${c.init()}`,
      'AvgPool1d {kernelSize: 3, stride: 3, padding: Valid, countIncludePad: true, ceilMode: false}',
    );
    assert.equal(
      `${new AvgPool2dConfig({ kernelSize: [3, 3] }).init()}`,
      'AvgPool2d {kernelSize: [3, 3], stride: [3, 3], padding: Valid, countIncludePad: true, ceilMode: false}',
    );
  });

  it('errors name the layer', () => {
    throwsBurn(
      () => new AvgPool2dConfig({ kernelSize: [2, 2] }).init().forward(Tensor.zeros([1, 1, 4], cpu) as unknown as T4),
      'AvgPool2d',
      '[1, 1, 4]',
      'rank 3',
    );
    throwsBurn(() => new AvgPool1dConfig({ kernelSize: 0 }), 'AvgPool1dConfig', 'kernelSize');
  });
});

describe('AdaptiveAvgPool1d/2d/3d', () => {
  checkLayer({
    name: 'adaptive1d',
    layer: () => new AdaptiveAvgPool1dConfig({ outputSize: 3 }).init(),
    forward: (l, i) => l.forward(i.x as T3),
    inputs: ['x'],
  });
  checkLayer({
    name: 'adaptive2d',
    layer: () => new AdaptiveAvgPool2dConfig({ outputSize: [3, 2] }).init(),
    forward: (l, i) => l.forward(i.x as T4),
    inputs: ['x'],
  });
  checkLayer({
    name: 'adaptive3d',
    layer: () => new AdaptiveAvgPool3dConfig({ outputSize: [2, 3, 2] }).init(),
    forward: (l, i) => l.forward(i.x as Tensor<5, Float>),
    inputs: ['x'],
  });

  it("displays as Burn's `AdaptiveAvgPool1d {output_size: 3}`", () => {
    assert.equal(`${new AdaptiveAvgPool1dConfig({ outputSize: 3 }).init()}`, 'AdaptiveAvgPool1d {outputSize: 3}');
    assert.equal(
      `${new AdaptiveAvgPool2dConfig({ outputSize: [3, 3] }).init()}`,
      'AdaptiveAvgPool2d {outputSize: [3, 3]}',
    );
    assert.equal(
      `${new AdaptiveAvgPool3dConfig({ outputSize: [3, 3, 3] }).init()}`,
      'AdaptiveAvgPool3d {outputSize: [3, 3, 3]}',
    );
  });

  it('a wrong rank names the layer', () => {
    throwsBurn(
      () =>
        new AdaptiveAvgPool3dConfig({ outputSize: [1, 1, 1] })
          .init()
          .forward(Tensor.zeros([1, 2, 3, 4], cpu) as unknown as Tensor<5, Float>),
      'AdaptiveAvgPool3d',
      'expected [batch, channels, depth, height, width]',
    );
  });
});
