import { BurnError } from '../../core/errors.js';
import type { AnyTensor, FloatT, IntT, OpContext, OpFamily, Value } from './types.js';
import { asF, asI, castTo, optTensorAt, tensorAt } from './util.js';

/**
 * Negative log-likelihood of `logp` (`[N, C, ...]`) at `target` (`[N, ...]`) with optional class
 * weights, ignoring `ignore_index`; reductions none / sum / mean (the weighted mean).
 */
function nll(ctx: OpContext, logp: FloatT, target: IntT, weight: FloatT | undefined): FloatT {
  const reduction = ctx.attrs.string('reduction', 'mean');
  const ignore = ctx.attrs.int('ignore_index');
  let valid: ReturnType<IntT['equal']> | undefined;
  let t = target;
  if (ignore !== undefined) {
    valid = t.notEqual(ignore);
    t = t.maskFill(valid.boolNot(), 0);
  }
  const picked = logp.gather(1, t.unsqueezeDim(1) as IntT).squeezeDim(1) as FloatT;
  let w: FloatT = weight ? (weight.take(0, t) as FloatT) : picked.onesLike();
  if (valid) w = w.maskFill(valid.boolNot(), 0);
  const loss = picked.neg().mul(w);
  if (reduction === 'none') return loss;
  if (reduction === 'sum') return loss.sum().reshape([]);
  if (reduction === 'mean') return loss.sum().div(w.sum()).reshape([]);
  throw new BurnError(
    'onnx',
    `node '${ctx.node.name}' (${ctx.node.opType}) has reduction '${reduction}'; expected none, sum or mean`,
  );
}

function weightsAt(ctx: OpContext, inputs: readonly (Value | undefined)[], i: number): FloatT | undefined {
  const w = optTensorAt(ctx, inputs, i);
  return w && asF(w);
}

/** Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (with the log-probabilities output). */
export const lossOps: OpFamily = {
  NegativeLogLikelihoodLoss: {
    run: (ctx, inputs) => [
      nll(
        ctx,
        asF(tensorAt(ctx, inputs, 0)),
        asI(castTo(tensorAt(ctx, inputs, 1), 'i64')),
        weightsAt(ctx, inputs, 2),
      ) as AnyTensor,
    ],
  },
  SoftmaxCrossEntropyLoss: {
    run: (ctx, inputs) => {
      const scores = asF(tensorAt(ctx, inputs, 0));
      const logp = scores.logSoftmax(1);
      const loss = nll(ctx, logp, asI(castTo(tensorAt(ctx, inputs, 1), 'i64')), weightsAt(ctx, inputs, 2));
      return [loss as AnyTensor, logp as AnyTensor];
    },
  },
};
