import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';

/**
 * The cross entropy of logits against target probabilities (Burn's
 * `loss::cross_entropy_with_logits`): `-mean(Σ_c targets · logSoftmax(logits))`, the sum over the
 * last dim (the classes) and the mean over every other element. Targets are probabilities (soft
 * labels, e.g. from label smoothing or distillation), not class indices; gradients flow to both.
 *
 * ```ts
 * const l = loss.crossEntropyWithLogits(Tensor.fromFloats([[0, 1]]), Tensor.fromFloats([[0.8, 0.2]]));
 * ```
 *
 * @param logits `[..., classes]` unnormalized scores
 * @param targetProbs target probabilities, shaped like `logits`
 * @returns the mean loss, `[1]`
 */
export function crossEntropyWithLogits<D extends number>(
  logits: Tensor<D, Float>,
  targetProbs: Tensor<D, Float>,
): Tensor<1, Float> {
  const op = 'crossEntropyWithLogits';
  logits.expectFloat(op);
  logits.sameDevice(targetProbs, op);
  targetProbs.expectFloat(op);
  const shape = logits.dims();
  if (shape.length === 0) throw new BurnError(op, 'logits of shape []; expected rank >= 1 (classes in the last dim)');
  if (!sameShape(shape, targetProbs.dims())) {
    throw new BurnError(
      op,
      `logits of shape ${fmt(shape)} and targetProbs of shape ${fmt(targetProbs.dims())}; expected the same shape`,
    );
  }
  const last = shape.length - 1;
  return logits.logSoftmax(last).mul(targetProbs).sumDim(last).mean().neg();
}
