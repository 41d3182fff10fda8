// Every differentiable tensor op: autodiff gradients equal central finite differences in float64,
// on the autodiff decorator over the CPU backend, over the required-only backend (so composite
// ops are differentiated through the shared defaults), with gradient checkpointing, and over
// WebGPU when an adapter is available (in f32).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, type Int } from '../../src/index.js';
import { bestCpuTestDevice, webgpu } from '../helpers/devices.js';
import { gradCheck, type GradCheckOptions, type GradInput } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

type T = Tensor<number>;
type Case = [name: string, inputs: GradInput[], f: (...xs: T[]) => T];

const s = (...shape: number[]): GradInput => ({ shape });
const pos = (...shape: number[]): GradInput => ({ shape, range: [0.5, 2] });
const within = (lo: number, hi: number, ...shape: number[]): GradInput => ({ shape, range: [lo, hi] });
const ints =
  (values: number[], shape: number[] = [values.length]) =>
  (x: T) =>
    Tensor.fromInts(values, x.device()).reshape(shape) as unknown as Tensor<number, Int>;
const bools = (values: boolean[], shape: number[], x: T) => Tensor.fromBools(values, x.device()).reshape(shape);

const CASES: Case[] = [
  // unary
  ['neg', [s(2, 3)], (x) => x.neg()],
  ['abs', [within(0.2, 1, 2, 3)], (x) => x.neg().abs()],
  ['exp', [s(2, 3)], (x) => x.exp()],
  ['expm1', [s(2, 3)], (x) => x.expm1()],
  ['log', [pos(2, 3)], (x) => x.log()],
  ['log1p', [within(0, 1, 5)], (x) => x.log1p()],
  ['sqrt', [pos(5)], (x) => x.sqrt()],
  ['recip', [pos(5)], (x) => x.recip()],
  ['sigmoid', [s(5)], (x) => x.sigmoid()],
  ['sin cos tan', [s(4)], (x) => x.sin().add(x.cos()).add(x.tan())],
  ['asin acos atan', [within(-0.9, 0.9, 4)], (x) => x.asin().add(x.acos().mul(2)).add(x.atan().mul(3))],
  ['sinh cosh tanh', [s(4)], (x) => x.sinh().add(x.cosh().mul(2)).add(x.tanh().mul(3))],
  ['asinh atanh', [within(-0.9, 0.9, 4)], (x) => x.asinh().add(x.atanh())],
  ['acosh', [within(1.5, 3, 4)], (x) => x.acosh()],
  ['erf', [s(6)], (x) => x.erf()],
  ['square powi', [s(2, 3)], (x) => x.square().add(x.powi(3))],
  ['powf scalar', [pos(4)], (x) => x.powf(2.5)],
  ['relu gelu', [within(0.1, 1, 4)], (x) => x.relu().add(x.neg().relu()).add(x.gelu())],
  ['softmax logSoftmax', [s(2, 4)], (x) => x.softmax(1).add(x.logSoftmax(0))],
  ['deg2rad', [s(3)], (x) => x.deg2rad()],
  // binary with broadcasting, scalars
  ['add sub', [s(2, 3), s(3)], (a, b) => a.add(b).sub(b.mul(2))],
  ['mul broadcast', [s(2, 1), s(1, 3)], (a, b) => a.mul(b)],
  ['div', [s(2, 3), pos(2, 3)], (a, b) => a.div(b)],
  ['scalar ops', [s(3)], (x) => x.add(2).mul(3).sub(1).div(4)],
  ['powf tensor', [pos(3), s(3)], (a, b) => a.powf(b)],
  ['atan2 hypot', [s(4), pos(4)], (a, b) => a.atan2(b).add(a.hypot(b))],
  ['remainder fmod', [within(0.1, 0.9, 4), within(1.5, 2, 4)], (a, b) => a.add(3).remainder(b).add(a.fmod(b))],
  [
    'maxPair minPair',
    [
      { shape: [4], values: [0.1, 0.9, -0.4, 0.3] },
      { shape: [4], values: [0.5, 0.2, -0.6, 0.7] },
    ],
    (a, b) => a.maxPair(b).add(a.minPair(b).mul(3)),
  ],
  ['clamp', [{ shape: [5], values: [-2, -0.5, 0.1, 0.7, 3] }], (x) => x.clamp(-1, 1)],
  // reductions and scans
  ['sum mean', [s(2, 3)], (x) => x.sum().add(x.mean())],
  ['sumDim meanDims', [s(2, 3, 2)], (x) => x.sumDim(1).add(x.meanDims([0, 2]))],
  ['prod prodDim', [pos(2, 3)], (x) => x.prod().add(x.prodDim(1).sum())],
  ['prod with zeros', [{ shape: [2, 3], values: [1, 0, 2, 0, 0, 3] }], (x) => x.prodDim(1)],
  [
    'max min',
    [{ shape: [2, 3], values: [0.1, 0.9, -0.4, 0.3, 0.5, 0.2] }],
    (x) => x.max().add(x.min()).add(x.maxDim(0).sum()).add(x.minDim(1).sum()),
  ],
  ['maxDimWithIndices', [{ shape: [2, 3], values: [0.1, 0.9, -0.4, 0.3, 0.5, 0.2] }], (x) => x.maxDimWithIndices(1)[0]],
  ['var varBias', [s(3, 4)], (x) => x.var(1).add(x.varBias(0).sum())],
  ['median', [{ shape: [2, 5], values: [0.1, 0.9, -0.4, 0.3, 0.5, 0.2, 0.7, -0.1, 0.6, 0.4] }], (x) => x.median(1)],
  ['cumsum', [s(2, 4)], (x) => x.cumsum(1)],
  ['cumprod', [s(2, 4)], (x) => x.cumprod(1)],
  ['cumprod with zero', [{ shape: [5], values: [0.5, 2, 0, 3, 1.5] }], (x) => x.cumprod(0)],
  ['cummax cummin', [{ shape: [6], values: [0.1, 0.9, -0.4, 1.3, 0.5, 2] }], (x) => x.cummax(0).add(x.cummin(0))],
  // layout
  [
    'reshape transpose permute',
    [s(2, 3, 4)],
    (x) => x.reshape([4, 6]).transpose().reshape([2, 3, 4]).permute([2, 0, 1]).swapDims(0, 1),
  ],
  ['flip roll', [s(3, 4)], (x) => x.flip([0, 1]).add(x.roll([1, -2], [0, 1]))],
  ['expand repeat', [s(1, 3)], (x) => x.expand([2, 3]).add(x.repeat([2, 1]))],
  ['unfold', [s(2, 6)], (x) => x.unfold(1, 3, 2)],
  [
    'narrow chunk split',
    [s(4, 3)],
    (x) => Tensor.cat([...x.chunk(2, 0).map((c, i) => c.mul(i + 1)), x.narrow(0, 1, 2), ...x.split(3, 0)], 0),
  ],
  [
    'slice with steps',
    [s(5, 6)],
    (x) =>
      x
        .slice([
          [0, 5, 2],
          [0, 6, -2],
        ])
        .add(
          x
            .slice([
              [-3, 5, -1],
              [1, 4],
            ])
            .sum(),
        ),
  ],
  [
    'sliceAssign',
    [s(3, 4), s(2, 2)],
    (x, v) =>
      x.sliceAssign(
        [
          [1, 3],
          [0, 4, 2],
        ],
        v.mul(2),
      ),
  ],
  [
    'cat stack',
    [s(2, 3), s(1, 3)],
    (a, b) =>
      Tensor.cat([a, b, a], 0)
        .add(0)
        .sum()
        .add(Tensor.stack([a.sum(), b.sum()], 0).sum()),
  ],
  [
    'pad',
    [s(2, 3)],
    (x) =>
      x
        .pad(
          [
            [1, 1],
            [2, 1],
          ],
          'reflect',
        )
        .sum()
        .add(
          x
            .pad(
              [
                [0, 0],
                [1, 2],
              ],
              'edge',
            )
            .sum(),
        )
        .add(
          x
            .pad([1, 0, 0, 1], 2)
            .mul(x.pad([1, 0, 0, 1], 2))
            .sum(),
        ),
  ],
  ['squeeze unsqueeze flatten', [s(2, 1, 3)], (x) => x.squeezeDim(1).unsqueezeDim(0).flatten(0, 2)],
  // indexing
  ['select', [s(4, 3)], (x) => x.select(0, ints([3, 0, 3])(x) as unknown as Tensor<1, Int>)],
  ['gather', [s(2, 3)], (x) => x.gather(1, ints([2, 0, 0, 1, 1, 2], [2, 3])(x))],
  [
    'scatter assign add',
    [s(2, 3), s(2, 2)],
    (x, v) =>
      x
        .scatter(1, ints([2, 0, 1, 2], [2, 2])(x), v, 'assign')
        .add(x.scatter(1, ints([2, 2, 0, 0], [2, 2])(x), v, 'add')),
  ],
  ['scatter mul', [s(2, 3), s(2, 2)], (x, v) => x.scatter(1, ints([2, 0, 1, 2], [2, 2])(x), v, 'mul')],
  [
    'scatter min max',
    [
      { shape: [2, 3], values: [0.1, 0.9, -0.4, 0.3, 0.5, 0.2] },
      { shape: [2, 2], values: [0.6, -0.7, 0.45, 0.15] },
    ],
    (x, v) =>
      x.scatter(1, ints([1, 0, 1, 2], [2, 2])(x), v, 'max').add(x.scatter(1, ints([1, 0, 1, 2], [2, 2])(x), v, 'min')),
  ],
  [
    'selectAssign',
    [s(4, 2), s(2, 2)],
    (x, v) => x.selectAssign(0, ints([3, 1])(x) as unknown as Tensor<1, Int>, v, 'add'),
  ],
  [
    'maskWhere maskFill',
    [s(2, 3), s(2, 3)],
    (x, y) =>
      x
        .maskWhere(bools([true, false, true, false, false, true], [2, 3], x), y)
        .add(x.maskFill(bools([false, true, true, false, true, false], [2, 3], x), 5)),
  ],
  ['take', [s(3, 4)], (x) => x.take(1, ints([0, 3, 3, 1], [2, 2])(x))],
  [
    'gatherNd scatterNd',
    [s(3, 2), s(2, 2)],
    (x, v) =>
      x
        .gatherNd(ints([2, 0, 1], [3, 1])(x))
        .sum()
        .add(
          x
            .scatterNd(ints([2, 0], [2, 1])(x), v, 'add')
            .mul(x)
            .sum(),
        ),
  ],
  ['triu tril', [s(3, 3)], (x) => x.triu(1).add(x.tril(-1).mul(2))],
  // matmul
  ['matmul', [s(3, 4), s(4, 2)], (a, b) => a.matmul(b)],
  ['batched matmul broadcast', [s(2, 3, 4), s(1, 4, 5)], (a, b) => a.matmul(b)],
  ['dot', [s(4), s(4)], (a, b) => a.dot(b)],
  // ordering
  ['sort', [s(2, 5)], (x) => x.sort(1).add(x.sortDescending(0))],
  ['topk', [s(2, 5)], (x) => x.topk(2, 1)],
  // statistics and misc float ops
  ['cross', [s(2, 3), s(2, 3)], (a, b) => a.cross(b, 1)],
  ['cov', [s(3, 5)], (x) => x.cov(1, 1)],
];

// WebGPU has no f64: there the autodiff pass runs in f32 and is checked against the f64 finite
// differences of the CPU, within f32 accuracy.
const gpu = webgpu.device;
const best = bestCpuTestDevice();
const devices: [string, () => Device, GradCheckOptions, number][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff(), {}, 1e-5],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff(), {}, 1e-5],
  // The fusion decorator under autodiff (Burn's Autodiff<Fusion<B>>): forward and backward recorded
  // lazily and run as fused programs, over js and the best engine (its kernels at every size).
  ['autodiff<fusion<cpu(js)>>', () => Device.cpu({ engine: 'js' }).fusion().autodiff(), {}, 1e-5],
  [`autodiff<fusion<${best.name}>>`, () => best.device.fusion().autodiff(), {}, 1e-5],
  ['checkpointing<cpu(js)>', () => Device.cpu({ engine: 'js' }).gradientCheckpointing(), {}, 1e-5],
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
  describe(`finite differences on ${deviceName}`, () => {
    for (const [name, inputs, f] of CASES) {
      it(name, async () => {
        const err = await gradCheck(device(), inputs, f, 1, options);
        assert.ok(err < tol, `${name}: max relative error ${err}`);
      });
    }
  });
}
