// Module ops, activations and linalg: autodiff gradients equal central finite differences in
// float64, on autodiff over the CPU backend (dedicated rules where the decorator has them) and
// over the required-only backend (differentiating the shared default implementations).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activation, Device, functional as F, linalg, Tensor, type FloatDType, type Int } from '../../src/index.js';
import { bestCpuTestDevice, webgpu } from '../helpers/devices.js';
import { gradCheck, type GradCheckOptions, type GradInput } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

type T = Tensor<number>;
type Case = [name: string, inputs: GradInput[], f: (...xs: T[]) => T];
const s = (...shape: number[]): GradInput => ({ shape });
const t4 = (x: T) => x as Tensor<4>;
const t3 = (x: T) => x as Tensor<3>;
const t1 = (x: T) => x as Tensor<1>;
const distinct = (...shape: number[]): GradInput => {
  const n = shape.reduce((a, b) => a * b, 1);
  // Distinct values so max-pool windows have a unique maximum.
  return { shape, values: Array.from({ length: n }, (_, i) => Math.sin(i * 1.7 + 0.3) + i * 1e-3) };
};

const CASES: Case[] = [
  ['linear', [s(2, 3), s(3, 4), s(4)], (x, w, b) => F.linear(x, w as Tensor<2>, t1(b))],
  [
    'embedding',
    [s(5, 3)],
    (w) =>
      F.embedding(
        w as Tensor<2>,
        Tensor.fromInts(
          [
            [0, 4],
            [4, 2],
          ],
          w.device(),
        ) as Tensor<2, Int>,
      ),
  ],
  [
    'conv1d stride padding dilation',
    [s(2, 2, 7), s(3, 2, 3), s(3)],
    (x, w, b) => F.conv1d(t3(x), t3(w), t1(b), { stride: 2, padding: 2, dilation: 2 }),
  ],
  [
    'conv2d groups',
    [s(1, 4, 5, 5), s(4, 2, 3, 3), s(4)],
    (x, w, b) => F.conv2d(t4(x), t4(w), t1(b), { padding: 1, groups: 2, stride: [1, 2] }),
  ],
  [
    'conv3d',
    [s(1, 2, 3, 4, 4), s(2, 2, 2, 2, 2)],
    (x, w) => F.conv3d(x as Tensor<5>, w as Tensor<5>, undefined, { padding: 1 }),
  ],
  [
    'convTranspose1d',
    [s(1, 2, 5), s(2, 3, 3), s(3)],
    (x, w, b) => F.convTranspose1d(t3(x), t3(w), t1(b), { stride: 2, padding: 1, paddingOut: 1 }),
  ],
  [
    'convTranspose2d groups dilation',
    [s(1, 4, 3, 3), s(4, 1, 2, 3)],
    (x, w) => F.convTranspose2d(t4(x), t4(w), undefined, { stride: 2, groups: 2, dilation: [2, 1] }),
  ],
  [
    'deformConv2d',
    [
      s(1, 2, 4, 4),
      { shape: [1, 8, 3, 3], range: [-0.4, 0.4] },
      s(2, 2, 2, 2),
      { shape: [1, 4, 3, 3], range: [0.2, 1] },
    ],
    (x, off, w, m) => F.deformConv2d(t4(x), t4(off), t4(w), t4(m), undefined, {}),
  ],
  ['unfold4d fold4d', [s(1, 2, 4, 4)], (x) => F.fold4d(F.unfold4d(t4(x), 2, { stride: 1 }), [4, 4], 2, { stride: 1 })],
  ['maxPool2d', [distinct(1, 2, 5, 5)], (x) => F.maxPool2d(t4(x), 2, { stride: 2, padding: 1 })],
  [
    'maxPool1d dilation ceil',
    [distinct(2, 1, 9)],
    (x) => F.maxPool1d(t3(x), 3, { stride: 2, dilation: 2, ceilMode: true }),
  ],
  ['maxPool2dWithIndices', [distinct(1, 1, 4, 4)], (x) => F.maxPool2dWithIndices(t4(x), 2)[0]],
  [
    'avgPool2d',
    [s(1, 2, 5, 5)],
    (x) => F.avgPool2d(t4(x), 3, { stride: 2, padding: 1, countIncludePad: false, ceilMode: true }),
  ],
  ['avgPool1d', [s(2, 2, 6)], (x) => F.avgPool1d(t3(x), 2)],
  [
    'adaptiveAvgPool1d/2d',
    [s(1, 2, 5, 7)],
    (x) =>
      F.adaptiveAvgPool2d(t4(x), [3, 4])
        .sum()
        .add(F.adaptiveAvgPool1d(x.reshape([1, 10, 7]) as Tensor<3>, 3).sum()),
  ],
  [
    'interpolate bilinear',
    [s(1, 2, 3, 4)],
    (x) => F.interpolate(t4(x), [5, 3], { mode: 'bilinear', alignCorners: false }),
  ],
  ['interpolate bicubic', [s(1, 1, 4, 4)], (x) => F.interpolate(t4(x), [6, 5], { mode: 'bicubic' })],
  ['interpolate nearest', [s(1, 1, 3, 3)], (x) => F.interpolate(t4(x), [5, 4], { mode: 'nearest' })],
  [
    'gridSample2d',
    [s(1, 2, 4, 4), { shape: [1, 3, 2, 2], range: [-0.9, 0.9] }],
    (x, g) => t4(x).gridSample2d(t4(g), { mode: 'bilinear', paddingMode: 'border' }),
  ],
  [
    'attention mask bias',
    [s(1, 2, 3, 4), s(1, 2, 5, 4), s(1, 2, 5, 3), s(1, 2, 3, 5)],
    (q, k, v, b) =>
      F.attention(t4(q), t4(k), t4(v), {
        mask: Tensor.fromBools([false, true, false, false, true], q.device())
          .reshape([1, 1, 1, 5])
          .expand([1, 2, 3, 5]),
        bias: t4(b),
        softcap: 2,
      }),
  ],
  [
    'attention causal',
    [s(1, 1, 4, 3), s(1, 1, 4, 3), s(1, 1, 4, 2)],
    (q, k, v) => F.attention(t4(q), t4(k), t4(v), { isCausal: true, scale: 0.7 }),
  ],
  [
    'batchNorm training',
    [s(3, 2, 4), s(2), s(2)],
    (x, g, b) =>
      F.batchNorm(
        t3(x),
        Tensor.zeros([2], { device: x.device(), dtype: x.dtype() as FloatDType }),
        Tensor.ones([2], { device: x.device(), dtype: x.dtype() as FloatDType }),
        { training: true, weight: t1(g), bias: t1(b) },
      ),
  ],
  ['layerNorm', [s(2, 3, 4), s(3, 4), s(3, 4)], (x, g, b) => F.layerNorm(x, [3, 4], { weight: g, bias: b })],
  [
    'activations',
    [s(2, 6)],
    (x) =>
      activation
        .silu(x)
        .add(activation.mish(x))
        .add(activation.softplus(x, 2))
        .add(activation.logSigmoid(x))
        .add(activation.elu(x, 0.7))
        .add(activation.selu(x))
        .add(activation.geluApproximate(x))
        .add(activation.glu(x, 1).repeat([1, 2])),
  ],
  ['softmin quietSoftmax', [s(2, 5)], (x) => activation.softmin(x, 1).add(activation.quietSoftmax(x, 0))],
  [
    'linalg norms',
    [s(3, 4)],
    (x) =>
      linalg
        .vectorNorm(x, 'L2', 1)
        .add(linalg.vectorNorm(x, 3, 1))
        .sum()
        .add(linalg.cosineSimilarity(x, x.flip([1]), 1).sum()),
  ],
  ['linalg det', [s(2, 3, 3)], (x) => linalg.det(x as Tensor<3>)],
  [
    'linalg matvec outer trace',
    [s(3, 4), s(4)],
    (m, v) =>
      linalg
        .matvec(m as Tensor<2>, t1(v))
        .sum()
        .add(linalg.outer(t1(v), t1(v)).sum())
        .add(linalg.trace(m.matmul(m.transpose())).sum()),
  ],
  [
    'linalg qr',
    [s(4, 3)],
    (x) => {
      const { q, r } = linalg.qr(x as Tensor<2>);
      return q.sum().add(r.mul(r).sum());
    },
  ],
];

// WebGPU has no f64: there the autodiff pass runs in f32, checked against the CPU's f64 finite differences.
const gpu = webgpu.device;
const best = bestCpuTestDevice();
const devices: [string, () => Device, GradCheckOptions, number][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff(), {}, 1e-5],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff(), {}, 1e-5],
  // The fusion decorator under autodiff (Burn's Autodiff<Fusion<B>>): forward and backward recorded
  // lazily and run as fused programs, over js and the best engine (its kernels at every size).
  ['autodiff<fusion<cpu(js)>>', () => Device.cpu({ engine: 'js' }).fusion().autodiff(), {}, 1e-5],
  [`autodiff<fusion<${best.name}>>`, () => best.device.fusion().autodiff(), {}, 1e-5],
  ...(gpu
    ? [
        [
          'autodiff<webgpu> (f32)',
          () => gpu.autodiff(),
          { dtype: 'f32', reference: Device.cpu({ engine: 'js' }) },
          2e-3,
        ] as [string, () => Device, GradCheckOptions, number],
        [
          'autodiff<fusion<webgpu>> (f32)',
          () => gpu.fusion().autodiff(),
          { dtype: 'f32', reference: Device.cpu({ engine: 'js' }) },
          2e-3,
        ] as [string, () => Device, GradCheckOptions, number],
      ]
    : []),
];

for (const [deviceName, device, options, tol] of devices) {
  describe(`finite differences (module ops, activations, linalg) on ${deviceName}`, () => {
    for (const [name, inputs, f] of CASES) {
      it(name, async () => {
        const err = await gradCheck(device(), inputs, f, 1, options);
        assert.ok(err < tol, `${name}: max relative error ${err}`);
      });
    }
  });
}
