import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { checkOptions } from '../../core/options.js';
import { sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { expectFloatOn, expectVector } from './check.js';

/** Options of `batchNorm` / `batchNormWithStats`. */
export interface BatchNormFnOptions {
  /** Per-channel scale γ `[C]` (default: none, i.e. 1). */
  readonly weight?: Tensor<1, Float>;
  /** Per-channel shift β `[C]` (default: none, i.e. 0). */
  readonly bias?: Tensor<1, Float>;
  /** Added to the variance (default 1e-5). */
  readonly epsilon?: number;
  /** Normalize with the batch statistics instead of the running ones (default false). */
  readonly training?: boolean;
  /** Weight of the batch statistics in the updated running statistics of `batchNormWithStats` (default 0.1). */
  readonly momentum?: number;
}

/** The result of {@link batchNormWithStats}. */
export interface BatchNormOutput<D extends number> {
  /** The normalized input. */
  readonly output: Tensor<D, Float>;
  /** The running mean after this step (unchanged when not training). */
  readonly runningMean: Tensor<1, Float>;
  /** The running variance after this step (unchanged when not training). */
  readonly runningVar: Tensor<1, Float>;
}

function checkBatchNorm(
  x: Tensor<number, Float>,
  runningMean: Tensor<1, Float>,
  runningVar: Tensor<1, Float>,
  o: BatchNormFnOptions,
  op: string,
): number {
  checkOptions(o, ['weight', 'bias', 'epsilon', 'training', 'momentum'], op);
  x.expectFloat(op);
  const shape = x.primitive.shape;
  if (shape.length < 2) throw new BurnError(op, `input of shape ${fmt(shape)}; expected rank >= 2 [N, C, ...]`);
  const c = shape[1]!;
  expectVector(x, runningMean, c, 'runningMean', op);
  expectVector(x, runningVar, c, 'runningVar', op);
  expectVector(x, o.weight, c, 'weight', op);
  expectVector(x, o.bias, c, 'bias', op);
  const eps = o.epsilon ?? 1e-5;
  if (!(eps >= 0 && Number.isFinite(eps))) throw new BurnError(op, `epsilon ${eps}; expected a non-negative number`);
  const m = o.momentum ?? 0.1;
  if (!(m >= 0 && m <= 1)) throw new BurnError(op, `momentum ${m}; expected a number in [0, 1]`);
  return c;
}

function batchNormImpl<D extends number>(
  x: Tensor<D, Float>,
  runningMean: Tensor<1, Float>,
  runningVar: Tensor<1, Float>,
  o: BatchNormFnOptions,
  op: string,
  stats: boolean,
): BatchNormOutput<D> {
  const c = checkBatchNorm(x, runningMean, runningVar, o, op);
  const rank = x.primitive.shape.length;
  const perChannel = [1, c, ...new Array<number>(rank - 2).fill(1)];
  const reduceDims = Array.from({ length: rank }, (_, i) => i).filter((i) => i !== 1);
  let mean: Tensor<D, Float>, variance: Tensor<D, Float>;
  let newMean = runningMean,
    newVar = runningVar;
  if (o.training) {
    mean = x.meanDims(reduceDims);
    variance = x.sub(mean).square().meanDims(reduceDims);
    if (stats) {
      // Burn's BatchNorm: running = (1 - momentum) · running + momentum · batch (biased variance).
      const m = o.momentum ?? 0.1;
      newMean = runningMean.mul(1 - m).add(mean.reshape([c]).mul(m));
      newVar = runningVar.mul(1 - m).add(variance.reshape([c]).mul(m));
    }
  } else {
    mean = runningMean.reshape(perChannel);
    variance = runningVar.reshape(perChannel);
  }
  let y = x.sub(mean).div(variance.add(o.epsilon ?? 1e-5).sqrt());
  if (o.weight !== undefined) y = y.mul(o.weight.reshape(perChannel));
  if (o.bias !== undefined) y = y.add(o.bias.reshape(perChannel));
  return { output: y, runningMean: newMean, runningVar: newVar };
}

/**
 * Batch normalization over dim 1 of `[N, C, ...]` (PyTorch's `F.batch_norm`, Burn's
 * `batch_norm`): `(x - mean) / sqrt(var + epsilon) · weight + bias`, with the running statistics
 * `[C]`, or with the batch mean and biased batch variance when `training` is true.
 */
export function batchNorm<D extends number>(
  x: Tensor<D, Float>,
  runningMean: Tensor<1, Float>,
  runningVar: Tensor<1, Float>,
  options: BatchNormFnOptions = {},
): Tensor<D, Float> {
  return batchNormImpl(x, runningMean, runningVar, options, 'batchNorm', false).output;
}

/**
 * {@link batchNorm} that also returns the updated running statistics (tensors are immutable, so
 * nothing is updated in place): in training, `(1 - momentum) · running + momentum · batch`, with
 * the biased batch variance as Burn's `BatchNorm` (PyTorch uses the unbiased one there).
 */
export function batchNormWithStats<D extends number>(
  x: Tensor<D, Float>,
  runningMean: Tensor<1, Float>,
  runningVar: Tensor<1, Float>,
  options: BatchNormFnOptions = {},
): BatchNormOutput<D> {
  return batchNormImpl(x, runningMean, runningVar, options, 'batchNormWithStats', true);
}

/** Options of `layerNorm`. */
export interface LayerNormFnOptions {
  /** Elementwise scale γ of shape `normalizedShape` (default: none, i.e. 1). */
  readonly weight?: Tensor<number, Float>;
  /** Elementwise shift β of shape `normalizedShape` (default: none, i.e. 0). */
  readonly bias?: Tensor<number, Float>;
  /** Added to the variance (default 1e-5). */
  readonly epsilon?: number;
}

/**
 * Layer normalization over the trailing dims given by `normalizedShape` (PyTorch's
 * `F.layer_norm`): `(x - mean) / sqrt(var + epsilon) · weight + bias`, biased variance.
 */
export function layerNorm<D extends number>(
  x: Tensor<D, Float>,
  normalizedShape: readonly number[],
  options: LayerNormFnOptions = {},
): Tensor<D, Float> {
  const op = 'layerNorm';
  checkOptions(options, ['weight', 'bias', 'epsilon'], op);
  x.expectFloat(op);
  const shape = x.primitive.shape;
  const k = normalizedShape.length;
  if (k === 0 || k > shape.length || !sameShape(shape.slice(shape.length - k), normalizedShape)) {
    throw new BurnError(
      op,
      `normalizedShape ${fmt(normalizedShape)} for an input of shape ${fmt(shape)}; expected a non-empty list equal to the input's trailing dims`,
    );
  }
  for (const [name, t] of [
    ['weight', options.weight],
    ['bias', options.bias],
  ] as const) {
    if (t === undefined) continue;
    expectFloatOn(x, t, name, op);
    if (!sameShape(t.primitive.shape, normalizedShape))
      throw new BurnError(op, `${name} of shape ${fmt(t.primitive.shape)}; expected ${fmt(normalizedShape)}`);
  }
  const eps = options.epsilon ?? 1e-5;
  if (!(eps >= 0 && Number.isFinite(eps))) throw new BurnError(op, `epsilon ${eps}; expected a non-negative number`);
  const dims = Array.from({ length: k }, (_, i) => shape.length - k + i);
  const mean = x.meanDims(dims);
  const centered = x.sub(mean);
  let y = centered.div(centered.square().meanDims(dims).add(eps).sqrt());
  if (options.weight !== undefined) y = y.mul(options.weight as Tensor<D, Float>);
  if (options.bias !== undefined) y = y.add(options.bias as Tensor<D, Float>);
  return y;
}
