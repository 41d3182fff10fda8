import { fusedLayerNorm } from './fast-paths.js';
import type { AnyTensor, FloatT, OpContext, OpFamily } from './types.js';
import { inferSame } from './unary.js';
import { asF, axisOf, castTo, optTensorAt, tensorAt } from './util.js';

/** A per-channel vector `[C]` shaped to broadcast over `[N, C, ...spatial]`. */
function perChannel(v: AnyTensor, rank: number): FloatT {
  return asF(v.reshape([1, v.numel(), ...new Array<number>(Math.max(0, rank - 2)).fill(1)]));
}

function batchNorm(ctx: OpContext, inputs: Parameters<OpFamily[string]['run']>[1]): AnyTensor[] {
  const x = asF(tensorAt(ctx, inputs, 0));
  const rank = x.rank();
  const scale = perChannel(tensorAt(ctx, inputs, 1), rank);
  const bias = perChannel(tensorAt(ctx, inputs, 2), rank);
  const eps = ctx.attrs.float('epsilon', 1e-5);
  const training =
    ctx.opset >= 14 ? ctx.attrs.int('training_mode', 0) === 1 : ctx.node.outputs.filter((o) => o).length > 1;
  const runMean = tensorAt(ctx, inputs, 3);
  const runVar = tensorAt(ctx, inputs, 4);
  if (!training) {
    const mean = perChannel(runMean, rank);
    const v = perChannel(runVar, rank);
    return [x.sub(mean).div(v.add(eps).sqrt()).mul(scale).add(bias) as AnyTensor];
  }
  const axes = [0, ...Array.from({ length: rank - 2 }, (_, i) => i + 2)];
  const mean = x.meanDims(axes);
  const centered = x.sub(mean);
  const v = centered.mul(centered).meanDims(axes);
  const y = centered.div(v.add(eps).sqrt()).mul(scale).add(bias);
  const momentum = ctx.attrs.float('momentum', 0.9);
  const c = runMean.numel();
  const newMean = asF(runMean)
    .mul(momentum)
    .add(mean.reshape([c]).mul(1 - momentum));
  const newVar = asF(runVar)
    .mul(momentum)
    .add(v.reshape([c]).mul(1 - momentum));
  return [y as AnyTensor, newMean as AnyTensor, newVar as AnyTensor];
}

function layerNorm(ctx: OpContext, inputs: Parameters<OpFamily[string]['run']>[1]): AnyTensor[] {
  const x = asF(tensorAt(ctx, inputs, 0));
  const rank = x.rank();
  const axis = axisOf(ctx, ctx.attrs.int('axis', -1), rank);
  const eps = ctx.attrs.float('epsilon', 1e-5);
  // Only Y wanted, over the last axis: one pass per row where the backend has the kernel.
  if (axis === rank - 1 && !ctx.node.outputs[1] && !ctx.node.outputs[2]) {
    const fused = fusedLayerNorm(x as AnyTensor, tensorAt(ctx, inputs, 1), optTensorAt(ctx, inputs, 2), eps);
    if (fused !== undefined) return [fused];
  }
  const axes = Array.from({ length: rank - axis }, (_, i) => axis + i);
  // stash_type 1 (the default) computes the statistics in f32.
  const work = x.dtype() === 'f16' || x.dtype() === 'bf16' ? asF(castTo(x as AnyTensor, 'f32')) : x;
  const mean = work.meanDims(axes);
  const centered = work.sub(mean);
  const inv = centered.mul(centered).meanDims(axes).add(eps).sqrt().recip();
  let y = centered.mul(inv);
  if (work !== x) y = asF(castTo(y as AnyTensor, x.dtype()));
  y = y.mul(asF(tensorAt(ctx, inputs, 1)));
  const b = optTensorAt(ctx, inputs, 2);
  if (b) y = y.add(asF(b));
  return [y as AnyTensor, mean as AnyTensor, inv as AnyTensor];
}

function groupNorm(ctx: OpContext, inputs: Parameters<OpFamily[string]['run']>[1]): AnyTensor {
  const x = asF(tensorAt(ctx, inputs, 0));
  const dims = x.dims();
  const [n, c] = dims as [number, number];
  const groups = ctx.attrs.int('num_groups', 1);
  const eps = ctx.attrs.float('epsilon', 1e-5);
  const g = x.reshape([n, groups, -1]);
  const mean = g.meanDim(2);
  const centered = g.sub(mean);
  const normed = centered.div(centered.mul(centered).meanDim(2).add(eps).sqrt()).reshape(dims);
  let scale = tensorAt(ctx, inputs, 1);
  let bias = tensorAt(ctx, inputs, 2);
  // Opset 18 gives one scale and bias per group; opset 21 one per channel.
  if (scale.numel() === groups && groups !== c) {
    scale = scale
      .reshape([groups, 1])
      .expand([groups, c / groups])
      .reshape([c]);
    bias = bias
      .reshape([groups, 1])
      .expand([groups, c / groups])
      .reshape([c]);
  }
  return normed.mul(perChannel(scale, dims.length)).add(perChannel(bias, dims.length)) as AnyTensor;
}

function lrn(ctx: OpContext, x: FloatT): FloatT {
  const size = ctx.attrs.int('size', 1);
  const alpha = ctx.attrs.float('alpha', 1e-4);
  const beta = ctx.attrs.float('beta', 0.75);
  const bias = ctx.attrs.float('bias', 1);
  const before = Math.floor((size - 1) / 2);
  const after = Math.ceil((size - 1) / 2);
  const sq = x.mul(x);
  const dims = x.dims();
  const pairs = dims.map((_, i) => (i === 1 ? [before, after] : [0, 0]) as [number, number]);
  const padded = sq.pad(pairs, 0);
  // Sum over the channel window: unfold channels into windows of `size`.
  const win = padded.unfold(1, size, 1) as FloatT;
  const sum = win.sumDim(win.rank() - 1).reshape(dims);
  return x.div(
    sum
      .mul(alpha / size)
      .add(bias)
      .powf(beta),
  );
}

/**
 * RMSNormalization (opset 23): `x / sqrt(mean(x²) + epsilon) · scale` over the dims from `axis` to
 * the last; the mean square is computed in f32 for half-precision inputs (`stash_type` 1, the default).
 */
function rmsNorm(ctx: OpContext, inputs: Parameters<OpFamily[string]['run']>[1]): AnyTensor {
  const x = asF(tensorAt(ctx, inputs, 0));
  const rank = x.rank();
  const axis = axisOf(ctx, ctx.attrs.int('axis', -1), rank);
  const axes = Array.from({ length: rank - axis }, (_, i) => axis + i);
  const work = x.dtype() === 'f16' || x.dtype() === 'bf16' ? asF(castTo(x as AnyTensor, 'f32')) : x;
  const inv = work.mul(work).meanDims(axes).add(ctx.attrs.float('epsilon', 1e-5)).sqrt().recip();
  let y = work.mul(inv);
  if (work !== x) y = asF(castTo(y as AnyTensor, x.dtype()));
  const scale = asF(tensorAt(ctx, inputs, 1));
  const lifted =
    scale.rank() < rank ? scale.reshape([...new Array<number>(rank - scale.rank()).fill(1), ...scale.dims()]) : scale;
  return y.mul(lifted) as AnyTensor;
}

/** Normalizations: batch, instance, layer, group, RMS, Lp, mean-variance, local response. */
export const normOps: OpFamily = {
  BatchNormalization: {
    run: (ctx, inputs) => batchNorm(ctx, inputs),
    minOpset: 7,
    check: (_node, attrs, opset) =>
      opset < 9 && attrs.int('spatial', 1) === 0
        ? 'spatial = 0 (per-activation statistics) is not supported'
        : undefined,
    infer: (ctx) => [inferSame(ctx)[0], ctx.inputs[3], ctx.inputs[4]],
  },
  InstanceNormalization: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const rank = x.rank();
      const axes = Array.from({ length: rank - 2 }, (_, i) => i + 2);
      const mean = x.meanDims(axes);
      const centered = x.sub(mean);
      const v = centered.mul(centered).meanDims(axes);
      const y = centered.div(v.add(ctx.attrs.float('epsilon', 1e-5)).sqrt());
      return [
        y.mul(perChannel(tensorAt(ctx, inputs, 1), rank)).add(perChannel(tensorAt(ctx, inputs, 2), rank)) as AnyTensor,
      ];
    },
    infer: inferSame,
  },
  LayerNormalization: {
    run: (ctx, inputs) => layerNorm(ctx, inputs),
    infer: (ctx) => [inferSame(ctx)[0]],
  },
  RMSNormalization: {
    run: (ctx, inputs) => [rmsNorm(ctx, inputs)],
    minOpset: 23,
    infer: (ctx) => [inferSame(ctx)[0]],
  },
  GroupNormalization: {
    run: (ctx, inputs) => [groupNorm(ctx, inputs)],
    infer: inferSame,
  },
  LpNormalization: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const axis = axisOf(ctx, ctx.attrs.int('axis', -1), x.rank());
      const p = ctx.attrs.int('p', 2);
      const norm = p === 1 ? x.abs().sumDim(axis) : x.mul(x).sumDim(axis).sqrt();
      return [x.div(norm) as AnyTensor];
    },
    infer: inferSame,
  },
  MeanVarianceNormalization: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const axes = (ctx.attrs.ints('axes') ?? [0, 2, 3]).map((a) => axisOf(ctx, a, x.rank()));
      const mean = x.meanDims(axes);
      const centered = x.sub(mean);
      const std = centered.mul(centered).meanDims(axes).sqrt();
      return [centered.div(std.add(1e-9)) as AnyTensor];
    },
    infer: inferSame,
  },
  LRN: {
    run: (ctx, inputs) => [lrn(ctx, asF(tensorAt(ctx, inputs, 0))) as AnyTensor],
    infer: inferSame,
  },
};
