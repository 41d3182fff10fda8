// Autodiff gradients against PyTorch's autograd (test/fixtures/autodiff.json, written by
// test/fixtures/gen_autodiff.py) for the nontrivial rules: conv family, pools, interpolate, grid
// sampling, attention, norms, ordering, gather/scatter, scans, statistics and linalg.
//
// Each case builds `loss = sum(f(inputs) · R)` with the fixture's fixed R and compares the loss and
// the gradient of every listed input, on autodiff over the CPU backend, over the required-only
// backend (composite ops differentiated through the shared defaults) and with gradient
// checkpointing, in float32 (the fixture's inputs; rtol 1e-4, atol 1e-5 against the float64
// reference) and in float64 (the same float32 values widened; rtol 1e-8, atol 1e-9).
//
// Where Burn differs from PyTorch the generator builds the torch side to follow burn-ts: linear's
// weight is [dIn, dOut]; interpolate's alignCorners defaults to true (the
// `interpolate_bilinear_align_up` case relies on that default); attention is Burn's formula (softcap
// before the mask, bottom-right causal alignment, bias after masking, a fully masked row gives
// zeros); max/min share the gradient among tied extremes (torch's amax/amin) while
// maxDimWithIndices gives it to the first occurrence; sort is stable; var is unbiased; QR uses
// Burn's Householder signs. See the generator's docstring.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Device,
  functional as F,
  linalg,
  Tensor,
  type Bool,
  type DType,
  type Float,
  type Int,
  type Kind,
} from '../../src/index.js';
import type { Norm } from '../../src/tensor/linalg/vector-norm.js';
import { expectClose, fxTensor, fxValues, loadFixture, type FixtureCase, type Tol } from '../helpers/fixtures.js';
import { bestCpuTestDevice, webgpu } from '../helpers/devices.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

type T<D extends number = number> = Tensor<D, Float>;

/** A case's inputs on the device under test, and its parameters. */
class Inputs {
  constructor(
    private readonly tensors: Record<string, Tensor<number, Kind>>,
    private readonly params: Record<string, unknown>,
  ) {}
  /** A float input (a gradient leaf when the case lists it). */
  f<D extends number = number>(name: string): T<D> {
    const t = this.tensors[name];
    assert.ok(t, `missing input ${name}`);
    return t as T<D>;
  }
  /** A float input that may be absent (optional bias or mask). */
  opt<D extends number = number>(name: string): T<D> | undefined {
    return this.tensors[name] as T<D> | undefined;
  }
  /** An index input. */
  i<D extends number = number>(name: string): Tensor<D, Int> {
    return this.f(name) as unknown as Tensor<D, Int>;
  }
  /** A mask input. */
  b<D extends number = number>(name: string): Tensor<D, Bool> {
    return this.f(name) as unknown as Tensor<D, Bool>;
  }
  /** A parameter as a list of numbers. */
  nums(name: string): number[] {
    const v = this.params[name];
    assert.ok(Array.isArray(v), `missing param ${name}`);
    return v as number[];
  }
  /** A scalar parameter. */
  get<V>(name: string): V {
    assert.ok(name in this.params, `missing param ${name}`);
    return this.params[name] as V;
  }
}

/** The output of a case, plus tensors compared exactly with fixture inputs (e.g. pool indices). */
type Built = T | { y: T; check: Record<string, Tensor<number, Kind>> };
type Build = (x: Inputs) => Built;

const conv: Build = (x) => {
  const o = {
    stride: x.nums('stride'),
    padding: x.nums('padding'),
    dilation: x.nums('dilation'),
    groups: x.get<number>('groups'),
  };
  const fn = [F.conv1d, F.conv2d, F.conv3d][x.get<number>('nd') - 1] as (
    a: T,
    w: T,
    b: T<1> | undefined,
    o: object,
  ) => T;
  return fn(x.f('x'), x.f('weight'), x.opt('bias'), o);
};
const convTranspose: Build = (x) => {
  const o = {
    stride: x.nums('stride'),
    padding: x.nums('padding'),
    dilation: x.nums('dilation'),
    paddingOut: x.nums('output_padding'),
    groups: x.get<number>('groups'),
  };
  const fn = [F.convTranspose1d, F.convTranspose2d, F.convTranspose3d][x.get<number>('nd') - 1] as (
    a: T,
    w: T,
    b: T<1> | undefined,
    o: object,
  ) => T;
  return fn(x.f('x'), x.f('weight'), x.opt('bias'), o);
};
const deform: Build = (x) =>
  F.deformConv2d(x.f('x'), x.f('offset'), x.f('weight'), x.opt('mask'), x.opt('bias'), {
    stride: x.nums('stride'),
    padding: x.nums('padding'),
    dilation: x.nums('dilation'),
    weightGroups: x.get('weightGroups'),
    offsetGroups: x.get('offsetGroups'),
  });
const poolOptions = (x: Inputs) => ({
  stride: x.nums('stride'),
  padding: x.nums('padding'),
  dilation: x.nums('dilation'),
  ceilMode: x.get<boolean>('ceilMode'),
});
const maxPool1d: Build = (x) =>
  F.maxPool1d(x.f('x'), x.nums('kernel')[0]!, {
    ...poolOptions(x),
    stride: x.nums('stride')[0],
    padding: x.nums('padding')[0],
    dilation: x.nums('dilation')[0],
  });
const maxPool2d: Build = (x) => F.maxPool2d(x.f('x'), x.nums('kernel'), poolOptions(x));
const avgOptions = (x: Inputs) => ({
  stride: x.nums('stride'),
  padding: x.nums('padding'),
  countIncludePad: x.get<boolean>('countIncludePad'),
  ceilMode: x.get<boolean>('ceilMode'),
});
const avgPool1d: Build = (x) => F.avgPool1d(x.f('x'), x.nums('kernel')[0]!, avgOptions(x));
const avgPool2d: Build = (x) => F.avgPool2d(x.f('x'), x.nums('kernel'), avgOptions(x));
const interpolate: Build = (x) =>
  F.interpolate(x.f('x'), x.nums('size'), { mode: x.get('mode'), alignCorners: x.get('alignCorners') });
const nearest: Build = (x) => F.interpolate(x.f('x'), x.nums('size'), { mode: 'nearest' });
const gridSample: Build = (x) =>
  x.f<4>('x').gridSample2d(x.f('grid'), {
    mode: 'bilinear',
    paddingMode: x.get('paddingMode'),
    alignCorners: x.get('alignCorners'),
  });
const batchNorm: Build = (x) => {
  const w = x.f<1>('weight');
  return F.batchNorm(x.f('x'), w.detach().zerosLike(), w.detach().onesLike(), {
    training: true,
    weight: w,
    bias: x.f('bias'),
  });
};
const layerNorm: Build = (x) =>
  F.layerNorm(x.f('x'), x.nums('normalizedShape'), { weight: x.f('weight'), bias: x.f('bias') });
const det: Build = (x) => linalg.det(x.f('x'));
const NORMS: Record<string, Norm> = { L1: 'L1', L2: 'L2', p3: 3, p4: 4, p1_5: 1.5, LInf: 'LInf' };
const vectorNorm: Build = (x) => linalg.vectorNorm(x.f('x'), NORMS[x.get<string>('norm')]!, 1);

/** Every fixture case, by name. */
const BUILDERS: Record<string, Build> = {
  linear: (x) => F.linear(x.f('x'), x.f('weight'), x.f('bias')),
  embedding: (x) => F.embedding(x.f('weights'), x.i('indices')),
  softmax: (x) => x.f('x').softmax(1),
  logSoftmax: (x) => x.f('x').logSoftmax(0),

  conv1d_stride_pad_dil_bias: conv,
  conv1d_groups: conv,
  conv2d_stride_pad_dil_bias: conv,
  conv2d_depthwise_bias: conv,
  conv2d_groups: conv,
  conv3d_stride_pad_dil_bias: conv,
  conv3d_groups: conv,
  convTranspose1d_stride_pad_outpad_bias: convTranspose,
  convTranspose1d_groups_dil: convTranspose,
  convTranspose2d_stride_pad_outpad_bias: convTranspose,
  convTranspose2d_groups_dil_bias: convTranspose,
  convTranspose3d_stride_pad_outpad_bias: convTranspose,
  convTranspose3d_groups_dil: convTranspose,
  deformConv2d_mask_bias: deform,
  deformConv2d_stride_pad_dil: deform,
  deformConv2d_groups_mask_bias: deform,

  maxPool1d: maxPool1d,
  maxPool1d_pad_dil_ceil: maxPool1d,
  maxPool2d_overlap_pad: maxPool2d,
  maxPool2d_dil_ceil: maxPool2d,
  maxPool2dWithIndices: (x) => {
    const [y, indices] = F.maxPool2dWithIndices(x.f('x'), x.nums('kernel'), poolOptions(x));
    return { y, check: { expectedIndices: indices } };
  },
  avgPool1d_include_floor: avgPool1d,
  avgPool1d_exclude_ceil: avgPool1d,
  avgPool2d_include_ceil: avgPool2d,
  avgPool2d_exclude_floor: avgPool2d,
  avgPool2d_exclude_ceil: avgPool2d,
  // No stride, padding or options: the defaults (stride = kernel, countIncludePad true).
  avgPool2d_default_stride: (x) => F.avgPool2d(x.f('x'), x.nums('kernel')),
  adaptiveAvgPool1d_down: (x) => F.adaptiveAvgPool1d(x.f('x'), x.nums('size')[0]!),
  adaptiveAvgPool1d_up: (x) => F.adaptiveAvgPool1d(x.f('x'), x.nums('size')[0]!),
  adaptiveAvgPool2d: (x) => F.adaptiveAvgPool2d(x.f('x'), x.nums('size')),
  adaptiveAvgPool2d_up: (x) => F.adaptiveAvgPool2d(x.f('x'), x.nums('size')),
  adaptiveAvgPool3d: (x) => F.adaptiveAvgPool3d(x.f('x'), x.nums('size')),

  interpolate_nearest_up: nearest,
  interpolate_nearest_down: nearest,
  // Burn's default alignCorners is true (PyTorch's is false): this case leaves it out.
  interpolate_bilinear_align_up: (x) => F.interpolate(x.f('x'), x.nums('size'), { mode: 'bilinear' }),
  interpolate_bilinear_noalign_up: interpolate,
  interpolate_bicubic_align_up: interpolate,
  interpolate_bicubic_noalign_up: interpolate,
  interpolate_bilinear_align_down: interpolate,
  interpolate_bilinear_noalign_down: interpolate,
  interpolate_bicubic_align_down: interpolate,
  interpolate_bicubic_noalign_down: interpolate,
  gridSample2d_zeros_align: gridSample,
  gridSample2d_zeros_noalign: gridSample,
  gridSample2d_border_align: gridSample,
  gridSample2d_border_noalign: gridSample,
  gridSample2d_reflection_align: gridSample,
  gridSample2d_reflection_noalign: gridSample,

  attention: (x) => F.attention(x.f('q'), x.f('k'), x.f('v')),
  attention_mask_bias_softcap: (x) =>
    F.attention(x.f('q'), x.f('k'), x.f('v'), { mask: x.b('mask'), bias: x.f('bias'), softcap: x.get('softcap') }),
  attention_causal_scale: (x) => F.attention(x.f('q'), x.f('k'), x.f('v'), { isCausal: true, scale: x.get('scale') }),
  batchNorm_training_3d: batchNorm,
  batchNorm_training_4d: batchNorm,
  layerNorm_last: layerNorm,
  layerNorm_last2: layerNorm,

  sort: (x) => x.f('x').sort(1),
  sortDescending: (x) => x.f('x').sortDescending(0),
  topk: (x) => x.f('x').topk(3, 1),
  max_min: (x) => x.f('x').max().mul(2).add(x.f('x').min()),
  maxDim_minDim_ties: (x) => x.f('x').maxDim(1).mul(2).add(x.f('x').minDim(1)),
  max_ties: (x) => x.f('x').max(),
  maxDimWithIndices_ties: (x) => x.f('x').maxDimWithIndices(0)[0],
  median_odd: (x) => x.f('x').median(1),
  median_even: (x) => x.f('x').median(0),

  gather_dim1: (x) => x.f('x').gather(1, x.i('indices')),
  gather_dim0: (x) => x.f('x').gather(0, x.i('indices')),
  scatter_add: (x) => x.f('x').scatter(1, x.i('indices'), x.f('values'), 'add'),
  scatter_assign: (x) => x.f('x').scatter(1, x.i('indices'), x.f('values'), 'assign'),
  scatter_assign_dim0: (x) => x.f('x').scatter(0, x.i('indices'), x.f('values'), 'assign'),
  scatter_mul: (x) => x.f('x').scatter(1, x.i('indices'), x.f('values'), 'mul'),
  scatter_max: (x) => x.f('x').scatter(1, x.i('indices'), x.f('values'), 'max'),
  selectAssign_add: (x) => x.f('x').selectAssign(0, x.i('indices'), x.f('values'), 'add'),
  selectAssign_assign: (x) => x.f('x').selectAssign(1, x.i('indices'), x.f('values'), 'assign'),

  cumsum: (x) => x.f('x').cumsum(1),
  cumsum_dim0: (x) => x.f('x').cumsum(0),
  cumprod_zeros: (x) => x.f('x').cumprod(1),
  cumprod_dim0: (x) => x.f('x').cumprod(0),
  cummax: (x) => x.f('x').cummax(1),
  cummin: (x) => x.f('x').cummin(1),

  var: (x) => x.f('x').var(1),
  varBias: (x) => x.f('x').varBias(0),
  cov_dim1: (x) => x.f('x').cov(1, 1),
  cov_dim0_population: (x) => x.f('x').cov(0, 0),

  det_2x2: det,
  det_3x3: det,
  det_4x4_lu: det,
  det_5x5_unbatched: det,
  vectorNorm_L1: vectorNorm,
  vectorNorm_L2: vectorNorm,
  vectorNorm_p3: vectorNorm,
  vectorNorm_p4: vectorNorm,
  vectorNorm_p1_5: vectorNorm,
  vectorNorm_LInf: vectorNorm,
  cosineSimilarity: (x) => linalg.cosineSimilarity(x.f('x1'), x.f('x2'), 1),
  cosineSimilarity_broadcast: (x) => linalg.cosineSimilarity(x.f('x1'), x.f('x2'), 2),
  trace: (x) => linalg.trace(x.f('x')),
  qr_tall_r: (x) => linalg.qr(x.f('x')).r,
  qr_tall_q: (x) => linalg.qr(x.f('x')).q,
  qr_square_r: (x) => linalg.qr(x.f('x')).r,
  qr_square_q: (x) => linalg.qr(x.f('x')).q,
};

/** Tolerances: float32 arithmetic against a float64 reference; float64 against float64. */
const TOL: Record<'f32' | 'f64', Tol> = {
  f32: { rtol: 1e-4, atol: 1e-5 },
  f64: { rtol: 1e-8, atol: 1e-9 },
};

/** Runs one case on `device` in `dtype` and compares the loss and every input gradient. */
async function runCase(name: string, fx: FixtureCase, device: Device, dtype: 'f32' | 'f64'): Promise<void> {
  const grad = (fx.params?.grad ?? []) as string[];
  const tensors: Record<string, Tensor<number, Kind>> = {};
  for (const [key, t] of Object.entries(fx.inputs)) {
    if (key === 'R') continue;
    const isFloat = t.dtype === 'f32' || t.dtype === 'f64';
    const v = fxTensor<number, Kind>(t, device, isFloat ? dtype : t.dtype);
    tensors[key] = isFloat && grad.includes(key) ? (v as T).requireGrad() : v;
  }
  const built = BUILDERS[name]!(new Inputs(tensors, fx.params ?? {}));
  const y = built instanceof Tensor ? built : built.y;
  const r = fxTensor<number, Float>(fx.inputs.R!, device, dtype);
  assert.deepEqual(y.dims(), r.dims(), `${name}: output shape`);
  assert.equal(y.dtype(), dtype, `${name}: output dtype`);
  const loss = y.mul(r).sum();
  const tol = TOL[dtype];
  await expectClose(loss, fx.outputs.loss!, tol, `${name} loss`);
  if (!(built instanceof Tensor)) {
    for (const [key, t] of Object.entries(built.check)) {
      assert.deepEqual(Array.from((await t.toData()).toArray(), Number), fxValues(fx.inputs[key]!), `${name}: ${key}`);
    }
  }
  const grads = loss.backward();
  for (const key of grad) {
    const g = (tensors[key] as T).grad(grads);
    assert.ok(g, `${name}: no gradient for ${key}`);
    assert.equal(g.device(), device.inner(), `${name}: gradient of ${key} lives on the inner device`);
    await expectClose(g, fx.outputs[`grad_${key}`]!, tol, `${name} grad ${key} (${dtype})`);
  }
}

const cases = loadFixture('autodiff');

describe('PyTorch gradient fixtures: coverage', () => {
  it('every fixture case has a builder and every builder a case', () => {
    assert.deepEqual(Object.keys(BUILDERS).sort(), Object.keys(cases).sort());
  });
  it('every case lists the inputs it differentiates and has their expected gradients', () => {
    for (const [name, fx] of Object.entries(cases)) {
      const grad = fx.params?.grad as string[] | undefined;
      assert.ok(grad && grad.length > 0, name);
      for (const key of grad) {
        assert.ok(fx.inputs[key] && fx.outputs[`grad_${key}`], `${name}: ${key}`);
        assert.deepEqual(fx.outputs[`grad_${key}`]!.shape, fx.inputs[key]!.shape, `${name}: grad_${key} shape`);
      }
    }
  });
});

// WebGPU (when an adapter is available) runs the f32 cases: it has no f64.
const gpu = webgpu.device;
const best = bestCpuTestDevice();
const BOTH = ['f32', 'f64'] as const satisfies readonly DType[];
const devices: [string, () => Device, readonly ('f32' | 'f64')[]][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff(), BOTH],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff(), BOTH],
  ['checkpointing<cpu(js)>', () => Device.cpu({ engine: 'js' }).gradientCheckpointing(), BOTH],
  // The fusion decorator under autodiff, over js and the best engine (its kernels at every size).
  ['autodiff<fusion<cpu(js)>>', () => Device.cpu({ engine: 'js' }).fusion().autodiff(), BOTH],
  [`autodiff<fusion<${best.name}>>`, () => best.device.fusion().autodiff(), BOTH],
  ...(gpu
    ? [
        ['autodiff<webgpu>', () => gpu.autodiff(), ['f32']] as [string, () => Device, readonly ('f32' | 'f64')[]],
        ['autodiff<fusion<webgpu>>', () => gpu.fusion().autodiff(), ['f32']] as [
          string,
          () => Device,
          readonly ('f32' | 'f64')[],
        ],
      ]
    : []),
];

for (const [deviceName, device, dtypes] of devices) {
  for (const dtype of dtypes) {
    describe(`PyTorch gradients on ${deviceName} (${dtype})`, () => {
      for (const [name, fx] of Object.entries(cases)) {
        it(name, async () => {
          await runCase(name, fx, device(), dtype);
        });
      }
    });
  }
}
