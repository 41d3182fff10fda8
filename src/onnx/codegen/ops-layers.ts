import { TensorData } from '../../core/data.js';
import { poolPaddingFits } from '../../core/geometry.js';
import { windowOf } from '../ops/conv.js';
import { literal, num, type EmitContext, type Emitter } from './context.js';

/**
 * Emitters that turn ONNX operators into `burn-ts/nn` layers, Burn's way: the layer is a field
 * made from its config in the constructor (`new Conv2dConfig({ channels: [3, 64], … }).init(device)`),
 * its weights go to the `.bpk` under the layer's own parameter names, and `forward` calls it.
 */

/** A weight input as host data; a layer needs its values at generation time. */
function weight(ctx: EmitContext, i: number, what: string): TensorData {
  const w = ctx.constant(i);
  if (!w) return ctx.fail(`has a ${what} computed at run time (a layer needs constant weights)`);
  return w.dtype === 'f32' ? w : w.convert('f32');
}

/** One entry per spatial dim (`[a, b]`), or the number itself in 1-d configs. */
const perDim = (v: readonly number[], oneD: boolean): number | number[] => (oneD ? v[0]! : [...v]);
const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const ones = (v: readonly number[]) => v.every((x) => x === 1);

/** The padding option of a conv or pool config from ONNX's pads / auto_pad, or undefined for none. */
function paddingOf(ctx: EmitContext, kernel: readonly number[]): unknown {
  const autoPad = ctx.attrs.string('auto_pad', 'NOTSET');
  const nd = kernel.length;
  if (autoPad === 'SAME_UPPER') return 'same';
  if (autoPad === 'VALID') return undefined;
  let begin: number[];
  let end: number[];
  if (autoPad === 'SAME_LOWER') {
    const spatial = ctx.info(0).dims.slice(2);
    if (!spatial.every((d) => typeof d === 'number'))
      return ctx.fail('pads SAME_LOWER over spatial dims whose size varies');
    const win = windowOf(ctx.node, ctx.attrs, spatial as number[], kernel);
    begin = win.begin;
    end = win.end;
  } else {
    const pads = ctx.attrs.ints('pads') ?? new Array<number>(2 * nd).fill(0);
    begin = pads.slice(0, nd);
    end = pads.slice(nd);
  }
  if (begin.every((p) => p === 0) && end.every((p) => p === 0)) return undefined;
  return { explicit: same(begin, end) ? begin : [...begin, ...end] };
}

const CONV_CLS = ['', 'Conv1d', 'Conv2d', 'Conv3d'];

/** A convolution's `strides` and `dilations` attributes, 1 per spatial dim where absent. */
function stepsOf(ctx: EmitContext, nd: number): { strides: number[]; dilations: number[] } {
  const unit = (): number[] => new Array<number>(nd).fill(1);
  return {
    strides: ctx.attrs.ints('strides')?.slice() ?? unit(),
    dilations: ctx.attrs.ints('dilations')?.slice() ?? unit(),
  };
}

const conv: Emitter = (ctx) => {
  const nd = ctx.info(0).rank - 2;
  if (nd < 1 || nd > 3) return ctx.fail(`convolves ${nd} spatial dims`);
  if (!ctx.constant(1) || (ctx.has(2) && !ctx.constant(2))) return convFunctional(ctx, nd);
  const w = weight(ctx, 1, 'weight');
  const b = ctx.has(2) ? weight(ctx, 2, 'bias') : undefined;
  const kernel = w.shape.slice(2);
  const groups = ctx.attrs.int('group', 1);
  const { strides, dilations } = stepsOf(ctx, kernel.length);
  const oneD = nd === 1;
  const cIn = w.shape[1]! * groups;
  const cOut = w.shape[0]!;
  const config: Record<string, unknown> = oneD ? { channelsIn: cIn, channelsOut: cOut } : { channels: [cIn, cOut] };
  config.kernelSize = perDim(kernel, oneD);
  if (!ones(strides)) config.stride = perDim(strides, oneD);
  if (!ones(dilations)) config.dilation = perDim(dilations, oneD);
  if (groups !== 1) config.groups = groups;
  const padding = paddingOf(ctx, kernel);
  if (padding !== undefined) config.padding = padding;
  if (!b) config.bias = false;
  const weights = new Map([['weight', w]]);
  if (b) weights.set('bias', b);
  const cls = CONV_CLS[nd]!;
  const field = ctx.layer(ctx.hint, {
    cls,
    configCls: `${cls}Config`,
    config,
    device: true,
    weights,
    sources: ctx.node.inputs.slice(1),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/** A Conv whose weights are computed: `functional.convNd` (asymmetric padding is applied to the input first). */
function convFunctional(ctx: EmitContext, nd: number): string[] {
  const kernel = ctx.info(1).dims.slice(2);
  if (!kernel.every((k) => typeof k === 'number')) return ctx.fail('has a kernel whose size varies');
  const k = kernel as number[];
  const { strides, dilations } = stepsOf(ctx, k.length);
  const spatial = ctx.info(0).dims.slice(2);
  const autoPad = ctx.attrs.string('auto_pad', 'NOTSET');
  if (autoPad !== 'NOTSET' && autoPad !== 'VALID' && !spatial.every((d) => typeof d === 'number'))
    return ctx.fail(`pads ${autoPad} over dims whose size varies`);
  const win = windowOf(
    ctx.node,
    ctx.attrs,
    spatial.map((d) => (typeof d === 'number' ? d : 0)),
    k,
  );
  const symmetric = same(win.begin, win.end);
  let x = ctx.tensor(0);
  if (!symmetric) x = `${x}.pad(${literal([[0, 0], [0, 0], ...win.begin.map((p, i) => [p, win.end[i]!])])}, 0)`;
  ctx.use('burn-ts', 'functional');
  const opts = {
    stride: strides,
    padding: symmetric ? win.begin : k.map(() => 0),
    dilation: dilations,
    groups: ctx.attrs.int('group', 1),
  };
  return [
    `functional.conv${nd}d(${x}, ${ctx.tensor(1)}, ${ctx.has(2) ? ctx.tensor(2) : 'undefined'}, ${literal(opts)})`,
  ];
}

const convTranspose: Emitter = (ctx) => {
  const nd = ctx.info(0).rank - 2;
  if (nd < 1 || nd > 3) return ctx.fail(`convolves ${nd} spatial dims`);
  if (ctx.attrs.has('output_shape')) return ctx.fail('has output_shape (give pads instead)');
  const autoPad = ctx.attrs.string('auto_pad', 'NOTSET');
  if (autoPad !== 'NOTSET' && autoPad !== 'VALID') return ctx.fail(`has auto_pad ${autoPad}`);
  const w = weight(ctx, 1, 'weight');
  const b = ctx.has(2) ? weight(ctx, 2, 'bias') : undefined;
  const kernel = w.shape.slice(2);
  const groups = ctx.attrs.int('group', 1);
  const { strides, dilations } = stepsOf(ctx, kernel.length);
  const pads =
    autoPad === 'VALID'
      ? new Array<number>(2 * nd).fill(0)
      : (ctx.attrs.ints('pads')?.slice() ?? new Array<number>(2 * nd).fill(0));
  if (!same(pads.slice(0, nd), pads.slice(nd))) return ctx.fail('has asymmetric pads');
  const outPad = ctx.attrs.ints('output_padding')?.slice() ?? kernel.map(() => 0);
  const oneD = nd === 1;
  const config: Record<string, unknown> = {
    channels: [w.shape[0]!, w.shape[1]! * groups],
    kernelSize: perDim(kernel, oneD),
  };
  if (!ones(strides)) config.stride = perDim(strides, oneD);
  if (!ones(dilations)) config.dilation = perDim(dilations, oneD);
  if (groups !== 1) config.groups = groups;
  if (pads.some((p) => p !== 0)) config.padding = perDim(pads.slice(0, nd), oneD);
  if (outPad.some((p) => p !== 0)) config.paddingOut = perDim(outPad, oneD);
  if (!b) config.bias = false;
  const weights = new Map([['weight', w]]);
  if (b) weights.set('bias', b);
  const cls = `ConvTranspose${nd}d`;
  const field = ctx.layer(ctx.hint, {
    cls,
    configCls: `${cls}Config`,
    config,
    device: true,
    weights,
    sources: ctx.node.inputs.slice(1),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/** burn-ts.Linear (MatMul + Add, Gemm): an `nn.Linear` in Burn's `[dIn, dOut]` layout. */
const linear: Emitter = (ctx) => {
  let w = weight(ctx, 1, 'weight');
  if (ctx.attrs.int('transB', 0) === 1) {
    const [o, i] = w.shape as [number, number];
    const v = w.toArray();
    const t = new Float32Array(o * i);
    for (let r = 0; r < o; r++) for (let c = 0; c < i; c++) t[c * o + r] = v[r * i + c]!;
    w = new TensorData(t, [i, o], 'f32');
  }
  const b = ctx.has(2) ? weight(ctx, 2, 'bias') : undefined;
  const [dInput, dOutput] = w.shape as [number, number];
  const config: Record<string, unknown> = { dInput, dOutput };
  if (!b) config.bias = false;
  const weights = new Map([['weight', w]]);
  if (b) weights.set('bias', b);
  const field = ctx.layer(ctx.hint, {
    cls: 'Linear',
    configCls: 'LinearConfig',
    config,
    device: true,
    weights,
    sources: ctx.node.inputs.slice(1),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/** A Gemm whose weights are not constants: products of the tensor API. */
const gemm: Emitter = (ctx) => {
  const alpha = ctx.attrs.float('alpha', 1);
  const beta = ctx.attrs.float('beta', 1);
  const a = ctx.attrs.int('transA', 0) ? `${ctx.tensor(0)}.transpose()` : ctx.tensor(0);
  const b = ctx.attrs.int('transB', 0) ? `${ctx.tensor(1)}.transpose()` : ctx.tensor(1);
  let e = `${a}.matmul(${b})`;
  if (alpha !== 1) e = `${e}.mul(${num(alpha)})`;
  if (ctx.has(2) && beta !== 0) {
    const s = ctx.scalar(2);
    e =
      s !== undefined
        ? `${e}.add(${num(s * beta)})`
        : `${e}.add(${ctx.lifted(2, 2)}${beta !== 1 ? `.mul(${num(beta)})` : ''})`;
  }
  return [e];
};

const batchNorm: Emitter = (ctx) => {
  if (ctx.node.outputs.filter((o) => o).length > 1 || ctx.attrs.int('training_mode', 0) === 1)
    return ctx.fail('runs in training mode');
  const [scale, bias, mean, variance] = [1, 2, 3, 4].map((i) => weight(ctx, i, 'statistic'));
  const config: Record<string, unknown> = { numFeatures: scale!.shape[0]! };
  const eps = ctx.attrs.float('epsilon', 1e-5);
  if (Math.abs(eps - 1e-5) > 1e-12) config.epsilon = eps;
  const m = ctx.attrs.float('momentum', 0.9);
  if (Math.abs(m - 0.9) > 1e-7) config.momentum = 1 - m;
  const weights = new Map([
    ['gamma', scale!],
    ['beta', bias!],
    ['runningMean', mean!],
    ['runningVar', variance!],
  ]);
  const field = ctx.layer(ctx.hint, {
    cls: 'BatchNorm',
    configCls: 'BatchNormConfig',
    config,
    device: true,
    weights,
    sources: ctx.node.inputs.slice(1),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/** LayerNormalization / RMSNormalization over the last dim: `nn.LayerNorm` / `nn.RmsNorm`. */
function lastDimNorm(rms: boolean): Emitter {
  return (ctx) => {
    const rank = ctx.info(0).rank;
    const raw = ctx.attrs.int('axis', -1);
    const axis = raw < 0 ? raw + rank : raw;
    if (ctx.node.outputs.slice(1).some((o, i) => o && ctx.used(i + 1))) return ctx.fail('returns its statistics');
    if (!rms && (axis !== rank - 1 || !ctx.constant(1) || (ctx.has(2) && !ctx.constant(2))))
      return layerNormOver(ctx, axis);
    if (rms && (axis !== rank - 1 || !ctx.constant(1))) return rmsNormOver(ctx, axis);
    const scale = weight(ctx, 1, 'scale');
    const bias = !rms && ctx.has(2) ? weight(ctx, 2, 'bias') : undefined;
    const config: Record<string, unknown> = { dModel: scale.shape[scale.shape.length - 1]! };
    if (scale.shape.length !== 1) return ctx.fail(`has a scale of shape [${scale.shape.join(', ')}]`);
    const eps = ctx.attrs.float('epsilon', 1e-5);
    if (Math.abs(eps - 1e-5) > 1e-12) config.epsilon = eps;
    if (!rms && !bias) config.bias = false;
    const weights = new Map([['gamma', scale]]);
    if (bias) weights.set('beta', bias);
    const cls = rms ? 'RmsNorm' : 'LayerNorm';
    const field = ctx.layer(ctx.hint, {
      cls,
      configCls: `${cls}Config`,
      config,
      device: true,
      weights,
      sources: ctx.node.inputs.slice(1),
    });
    return [`this.${field}.forward(${ctx.tensor(0)})`];
  };
}

/** RMSNormalization from `axis` (or with a computed scale): the formula over the tensor API. */
function rmsNormOver(ctx: EmitContext, axis: number): string[] {
  const rank = ctx.info(0).rank;
  const axes = Array.from({ length: rank - axis }, (_, i) => axis + i);
  const x = ctx.tensor(0, false);
  const mean = axes.length === 1 ? `meanDim(${axes[0]})` : `meanDims(${literal(axes)})`;
  const eps = ctx.attrs.float('epsilon', 1e-5);
  return [`${x}.div(${x}.square().${mean}.add(${num(eps)}).sqrt()).mul(${ctx.lifted(1, rank)})`];
}

/** LayerNormalization over several trailing dims (or with computed weights): `functional.layerNorm`. */
function layerNormOver(ctx: EmitContext, axis: number): string[] {
  const dims = ctx.info(0).dims.slice(axis);
  if (!dims.every((d) => typeof d === 'number')) return ctx.fail('normalizes over dims whose size varies');
  const shape = dims as number[];
  const scale = ctx.info(1);
  if (scale.rank !== shape.length || scale.dims.some((d, i) => d !== shape[i]))
    return ctx.fail(`has a scale of another shape than the normalized dims`);
  const w = ctx.tensor(1);
  const b = ctx.has(2) ? ctx.tensor(2) : undefined;
  const eps = ctx.attrs.float('epsilon', 1e-5);
  ctx.use('burn-ts', 'functional');
  const opts = [
    `weight: ${w}`,
    ...(b ? [`bias: ${b}`] : []),
    ...(Math.abs(eps - 1e-5) > 1e-12 ? [`epsilon: ${num(eps)}`] : []),
  ];
  return [`functional.layerNorm(${ctx.tensor(0)}, ${literal(shape)}, { ${opts.join(', ')} })`];
}

const instanceNorm: Emitter = (ctx) => {
  const scale = weight(ctx, 1, 'scale');
  const bias = weight(ctx, 2, 'bias');
  const config: Record<string, unknown> = { numChannels: scale.shape[0]! };
  const eps = ctx.attrs.float('epsilon', 1e-5);
  if (Math.abs(eps - 1e-5) > 1e-12) config.epsilon = eps;
  const field = ctx.layer(ctx.hint, {
    cls: 'InstanceNorm',
    configCls: 'InstanceNormConfig',
    config,
    device: true,
    weights: new Map([
      ['gamma', scale],
      ['beta', bias],
    ]),
    sources: ctx.node.inputs.slice(1),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

const groupNorm: Emitter = (ctx) => {
  let scale = weight(ctx, 1, 'scale');
  let bias = weight(ctx, 2, 'bias');
  const groups = ctx.attrs.int('num_groups', 1);
  const c = ctx.info(0).dims[1];
  if (typeof c !== 'number') return ctx.fail('has a channel count that varies');
  if (scale.shape[0] === groups && groups !== c) {
    // Opset 18: one scale and bias per group; the layer has one per channel.
    const per = (t: TensorData) =>
      new TensorData(
        Float32Array.from({ length: c }, (_, i) => t.toArray()[Math.floor(i / (c / groups))]!),
        [c],
        'f32',
      );
    scale = per(scale);
    bias = per(bias);
  }
  const config: Record<string, unknown> = { numGroups: groups, numChannels: c };
  const eps = ctx.attrs.float('epsilon', 1e-5);
  if (Math.abs(eps - 1e-5) > 1e-12) config.epsilon = eps;
  const field = ctx.layer(ctx.hint, {
    cls: 'GroupNorm',
    configCls: 'GroupNormConfig',
    config,
    device: true,
    weights: new Map([
      ['gamma', scale],
      ['beta', bias],
    ]),
    sources: ctx.node.inputs.slice(1),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/** Gather from a constant 2-d float table with `[batch, seq]` integer indices: an `nn.Embedding`. */
export function embedding(ctx: EmitContext): string | undefined {
  const table = ctx.value(0);
  if (
    !table ||
    (table.kind !== 'param' && table.kind !== 'const') ||
    table.data.shape.length !== 2 ||
    !table.data.dtype.startsWith('f')
  )
    return undefined;
  if (ctx.attrs.int('axis', 0) !== 0 || ctx.info(1).rank !== 2 || ctx.value(1)?.kind !== 'tensor') return undefined;
  const w = weight(ctx, 0, 'table');
  const [nEmbedding, dModel] = w.shape as [number, number];
  const field = ctx.layer(ctx.hint, {
    cls: 'Embedding',
    configCls: 'EmbeddingConfig',
    config: { nEmbedding, dModel },
    device: true,
    weights: new Map([['weight', w]]),
    sources: [ctx.node.inputs[0]!],
  });
  return `this.${field}.forward(${ctx.tensor(1)})`;
}

function poolConfig(ctx: EmitContext, avg: boolean): { cls: string; config: Record<string, unknown> } {
  const nd = ctx.info(0).rank - 2;
  if (nd !== 1 && nd !== 2) return ctx.fail(`pools ${nd} spatial dims (the nn pools are 1-d and 2-d)`);
  const kernel = ctx.attrs.ints('kernel_shape')?.slice();
  if (!kernel) return ctx.fail('has no kernel_shape');
  const { strides, dilations } = stepsOf(ctx, kernel.length);
  const oneD = nd === 1;
  const config: Record<string, unknown> = { kernelSize: perDim(kernel, oneD) };
  // Burn's default stride is the kernel size; ONNX's is 1.
  config[oneD ? 'stride' : 'strides'] = perDim(strides, oneD);
  if (!ctx.info(0).dtype.startsWith('f'))
    return ctx.fail(`pools a ${ctx.info(0).dtype} tensor (the nn pools take floats)`);
  const padding = paddingOf(ctx, kernel);
  if (padding !== undefined) config.padding = padding;
  const explicit = padding !== undefined && padding !== 'same' ? (padding as { explicit: number[] }).explicit : [];
  if (explicit.some((p, i) => !poolPaddingFits(p, kernel[i % nd]!))) return ctx.fail('pads more than half the kernel');
  const asymmetric = padding === 'same' || explicit.length === 2 * nd;
  if (avg) {
    if (!ones(dilations)) return ctx.fail('averages with dilations');
    config.countIncludePad = ctx.attrs.int('count_include_pad', 0) === 1;
    // Burn counts asymmetric padding in the divisor; ONNX (count_include_pad 0) does not.
    if (asymmetric && !config.countIncludePad) return ctx.fail('averages over asymmetric padding without counting it');
  } else if (!ones(dilations)) config.dilation = perDim(dilations, oneD);
  if (ctx.attrs.int('ceil_mode', 0) === 1) config.ceilMode = true;
  return { cls: `${avg ? 'AvgPool' : 'MaxPool'}${nd}d`, config };
}

function pool(avg: boolean): Emitter {
  return (ctx) => {
    if (!avg && ctx.node.outputs[1]) return ctx.fail('returns indices');
    if (!avg && ctx.attrs.int('storage_order', 0) === 1) return ctx.fail('has storage_order 1');
    const { cls, config } = poolConfig(ctx, avg);
    const field = ctx.layer(ctx.hint, { cls, configCls: `${cls}Config`, config, device: false, weights: new Map() });
    return [`this.${field}.forward(${ctx.tensor(0)})`];
  };
}

const globalAvgPool: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  if (rank === 3 || rank === 4) {
    const cls = rank === 3 ? 'AdaptiveAvgPool1d' : 'AdaptiveAvgPool2d';
    const field = ctx.layer(ctx.hint, {
      cls,
      configCls: `${cls}Config`,
      config: { outputSize: rank === 3 ? 1 : [1, 1] },
      device: false,
      weights: new Map(),
    });
    return [`this.${field}.forward(${ctx.tensor(0)})`];
  }
  return [`${ctx.tensor(0)}.meanDims(${literal(Array.from({ length: rank - 2 }, (_, i) => i + 2))})`];
};

const globalMaxPool: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  return [`${ctx.tensor(0)}.maxDims(${literal(Array.from({ length: rank - 2 }, (_, i) => i + 2))})`];
};

/** Resize of `[N, C, H, W]` (or `[N, C, L]`) over the spatial dims: `nn.Interpolate2d` / `Interpolate1d`. */
const resize: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  if (rank !== 3 && rank !== 4)
    return ctx.fail(`resizes a tensor of rank ${rank} (the nn layers resize [N, C, L] and [N, C, H, W])`);
  if (ctx.opset < 11) return ctx.fail(`is the opset-${ctx.opset} form`);
  if (
    ctx.attrs.int('antialias', 0) === 1 ||
    (ctx.has(1) && ctx.info(1).rank > 0 && ctx.constant(1)?.numElements() !== 0)
  )
    return ctx.fail('crops (roi) or antialiases');
  const mode = ctx.attrs.string('mode', 'nearest');
  const coord = ctx.attrs.string('coordinate_transformation_mode', 'half_pixel');
  const nearest = ctx.attrs.string('nearest_mode', 'round_prefer_floor');
  let m: string;
  let alignCorners: boolean | undefined;
  if (mode === 'nearest') {
    if (coord === 'asymmetric' && nearest === 'floor') m = 'nearest';
    else if ((coord === 'half_pixel' || coord === 'pytorch_half_pixel') && nearest === 'round_prefer_ceil')
      m = 'nearestExact';
    else return ctx.fail(`is a nearest resize with ${coord} coordinates and ${nearest} rounding`);
  } else if (mode === 'linear' || mode === 'cubic') {
    if (mode === 'cubic' && Math.abs(ctx.attrs.float('cubic_coeff_a', -0.75) + 0.75) > 1e-6)
      return ctx.fail('has a cubic coefficient other than -0.75');
    if (coord === 'align_corners') alignCorners = true;
    else if (
      coord === 'half_pixel' ||
      (coord === 'pytorch_half_pixel' &&
        ctx
          .out(0)
          .dims.slice(2)
          .every((d) => d !== 1))
    )
      alignCorners = false;
    else return ctx.fail(`is a ${mode} resize with ${coord} coordinates`);
    m = mode;
  } else return ctx.fail(`has mode '${mode}'`);
  const nd = rank - 2;
  const scales = ctx.has(2) ? ctx.constant(2) : undefined;
  const sizes = ctx.has(3) ? ctx.host(3) : undefined;
  const config: Record<string, unknown> = {};
  const outDims = ctx.out(0).dims.slice(2);
  if (scales && scales.numElements() > 0) {
    const s = Array.from(scales.toArray()).slice(2);
    const inDims = ctx.info(0).dims.slice(2);
    // Burn maps coordinates with the size ratio; ONNX with the given scale: the same when the sizes divide exactly.
    const exact = inDims.every((d, i) => typeof d !== 'number' || Number.isInteger(d * s[i]!));
    if (!exact) return ctx.fail('has scales that do not give whole sizes');
    config.scaleFactor = nd === 1 ? s[0] : s;
  } else if (sizes) {
    const tail = sizes.slice(2);
    if (!tail.every((e) => /^\d+$/.test(e))) return ctx.fail('has output sizes that vary');
    config.outputSize = nd === 1 ? Number(tail[0]) : tail.map(Number);
  } else if (outDims.every((d) => typeof d === 'number')) config.outputSize = nd === 1 ? outDims[0] : outDims;
  else return ctx.fail('has neither scales nor sizes');
  config.mode = m;
  if (alignCorners !== undefined) config.alignCorners = alignCorners;
  const cls = `Interpolate${nd}d`;
  const field = ctx.layer(ctx.hint, { cls, configCls: `${cls}Config`, config, device: false, weights: new Map() });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/** The layer emitters, by ONNX op type (`burn-ts.Linear` under `Linear`). */
export const layerEmitters: Readonly<Record<string, Emitter>> = {
  Conv: conv,
  ConvTranspose: convTranspose,
  Linear: linear,
  Gemm: gemm,
  BatchNormalization: batchNorm,
  LayerNormalization: lastDimNorm(false),
  RMSNormalization: lastDimNorm(true),
  InstanceNormalization: instanceNorm,
  GroupNormalization: groupNorm,
  MaxPool: pool(false),
  AveragePool: pool(true),
  GlobalAveragePool: globalAvgPool,
  GlobalMaxPool: globalMaxPool,
  Resize: resize,
};
