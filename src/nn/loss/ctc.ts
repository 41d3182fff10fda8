import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { ctcLossAs } from '../../tensor/functional/ctc.js';
import type { Float, Int } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** Configuration of {@link CTCLoss} (Burn's `CTCLossConfig`). */
export class CTCLossConfig extends Config.define({
  /** The class index of the blank label. */
  blank: z.number().int().nonnegative().default(0),
  /** Whether infinite losses (no possible alignment) and their gradients become 0. */
  zeroInfinity: z.boolean().default(false),
}) {
  /** Creates the loss. */
  init(): CTCLoss {
    return new CTCLoss(this);
  }
}

/**
 * Connectionist temporal classification loss (Burn's `CTCLoss`, PyTorch's `ctc_loss`): the
 * negative log of the total probability of every alignment of each target sequence to its input
 * frames, computed by `functional.ctcLoss` (Burn's `module::ctc_loss`). The layer also rejects
 * input lengths shorter than their targets (as Burn's layer) and can zero infinite losses.
 *
 * Shapes: `logProbs` `[time, batch, classes]` (log-probabilities, e.g. from `logSoftmax`, blank
 * included), `targets` `[batch, maxTargetLength]` (padded; entries past a row's length are
 * ignored), `inputLengths` and `targetLengths` `[batch]`.
 */
export class CTCLoss extends Module {
  /** The class index of the blank label. */
  readonly blank: number;
  /** Whether infinite losses become 0. */
  readonly zeroInfinity: boolean;

  constructor(config: CTCLossConfig = new CTCLossConfig()) {
    super();
    this.blank = config.blank;
    this.zeroInfinity = config.zeroInfinity;
  }

  /** The loss of each sequence, `[batch]` (Burn's `forward`: no reduction). */
  forward(
    logProbs: Tensor<3, Float>,
    targets: Tensor<2, Int>,
    inputLengths: Tensor<1, Int>,
    targetLengths: Tensor<1, Int>,
  ): Tensor<1, Float> {
    const loss = ctcLossAs(logProbs, targets, inputLengths, targetLengths, this.blank, {
      op: 'CTCLoss',
      requireAlignableLengths: true,
    });
    return this.zeroInfinity ? loss.maskFill(loss.isInf(), 0) : loss;
  }

  /**
   * The reduced loss: `mean`/`auto` divides each sequence's loss by its target length (at least 1)
   * and averages over the batch, as PyTorch and Burn; `sum` adds them. The reduction defaults to
   * `'mean'`.
   */
  forwardWithReduction(
    logProbs: Tensor<3, Float>,
    targets: Tensor<2, Int>,
    inputLengths: Tensor<1, Int>,
    targetLengths: Tensor<1, Int>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    const loss = this.forward(logProbs, targets, inputLengths, targetLengths);
    if (reduction === 'mean' || reduction === 'auto')
      return loss.div(targetLengths.float(loss.dtype()).clampMin(1)).mean();
    return reduceLoss(loss, reduction, 'CTCLoss');
  }

  override displayAttributes(): Record<string, unknown> {
    return { blank: this.blank, zeroInfinity: this.zeroInfinity };
  }
}
