import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../tensor/errors.js';
import type { Bool, Float, Int } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import { expectFloatArg, expectIntArg, expectRank, peekValues } from './check.js';
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

type T2 = Tensor<2, Float>;

/** `log(Σ e^x_i)` of same-shape tensors, stable, with all-`-∞` inputs giving `-∞` and finite (zero) gradients. */
function logSumExp(xs: readonly T2[]): T2 {
  let m = xs[0]!;
  for (const x of xs.slice(1)) m = m.maxPair(x);
  // The maximum only shifts the exponents: as a constant it keeps the graph small and exact.
  m = m.detach();
  const empty = m.equal(-Infinity);
  const shift = m.maskFill(empty, 0);
  let sum = xs[0]!.sub(shift).exp();
  for (const x of xs.slice(1)) sum = sum.add(x.sub(shift).exp());
  // log(0) would send 0 · ∞ = NaN back through the unreachable states: take log(1) there and mask.
  return sum.maskFill(empty, 1).log().add(shift).maskFill(empty, -Infinity);
}

/**
 * Connectionist temporal classification loss (Burn's `CTCLoss`, PyTorch's `ctc_loss`): the
 * negative log of the total probability of every alignment of each target sequence to its input
 * frames. The forward (alpha) recursion runs in log space over tensor ops, one step per frame
 * for the whole batch, so autodiff differentiates it.
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
  forward(logProbs: Tensor<3, Float>, targets: Tensor<2, Int>, inputLengths: Tensor<1, Int>, targetLengths: Tensor<1, Int>): Tensor<1, Float> {
    const [time, batch] = this.check(logProbs, targets, inputLengths, targetLengths);
    const device = logProbs.device();
    const maxTarget = targets.dims()[1]!;
    const ext = 2 * maxTarget + 1;
    const blank = this.blank;

    // Targets with the padding replaced by blanks, then interleaved with blanks: [batch, ext].
    const positions = Tensor.arange(0, maxTarget, device).reshape([1, maxTarget]).expand([batch, maxTarget]);
    const lengths2d = targetLengths.reshape([batch, 1]).expand([batch, maxTarget]);
    const padded = targets.maskFill(positions.greaterEqual(lengths2d), blank);
    const blanks = Tensor.full([batch, maxTarget], blank, { device, dtype: targets.dtype() }) as Tensor<2, Int>;
    const labels = Tensor.cat([Tensor.stack([blanks, padded], 2).reshape([batch, 2 * maxTarget]), blanks.sliceDim(1, [0, 1])], 1) as Tensor<2, Int>;

    // The log-probability of each extended label at each frame: [time, batch, ext].
    const emissions = logProbs.gather(2, labels.reshape([1, batch, ext]).expand([time, batch, ext]));
    // A label may be reached from two places back unless it is a blank or repeats that label.
    let noSkip: Tensor<2, Bool> | undefined;
    if (ext >= 3) {
      const repeats = labels.sliceDim(1, [2, ext]).equal(labels.sliceDim(1, [0, ext - 2]));
      const first = Tensor.full([batch, 2], false, { device, dtype: 'bool' }) as Tensor<2, Bool>;
      noSkip = labels.equal(blank).boolOr(Tensor.cat([first, repeats], 1));
    }
    const frame = (t: number): T2 => emissions.sliceDim(0, [t, t + 1]).reshape([batch, ext]) as T2;
    const none = (width: number): T2 => Tensor.full([batch, width], -Infinity, { device, dtype: logProbs.dtype() }) as T2;

    const slots = Tensor.arange(0, ext, device).reshape([1, ext]).expand([batch, ext]);
    const inputs2d = inputLengths.reshape([batch, 1]).expand([batch, ext]);
    let alpha = frame(0).maskFill(slots.greaterEqual(2), -Infinity);
    // An empty input emits nothing: only the empty alignment (probability 1) remains.
    alpha = alpha.maskWhere(inputs2d.equal(0), none(ext).maskFill(slots.equal(0), 0));
    const steps = Math.min(time, maxOf(peekValues(inputLengths)) ?? time);
    for (let t = 1; t < steps; t++) {
      const terms = [alpha];
      if (ext >= 2) terms.push(Tensor.cat([none(1), alpha.sliceDim(1, [0, ext - 1])], 1));
      if (noSkip) terms.push(Tensor.cat([none(2), alpha.sliceDim(1, [0, ext - 2])], 1).maskFill(noSkip, -Infinity));
      const next = logSumExp(terms).add(frame(t));
      alpha = alpha.maskWhere(inputs2d.greater(t), next);
    }

    // End in the last label or the blank after it: slots 2·len and 2·len - 1.
    const last = targetLengths.mul(2).reshape([batch, 1]);
    const ends = alpha.gather(1, Tensor.cat([last, last.sub(1).clampMin(0)], 1));
    const endLabel = ends.sliceDim(1, [1, 2]).maskFill(targetLengths.reshape([batch, 1]).equal(0), -Infinity);
    let loss = logSumExp([ends.sliceDim(1, [0, 1]), endLabel]).neg().reshape([batch]) as Tensor<1, Float>;
    if (this.zeroInfinity) loss = loss.maskFill(loss.isInf(), 0);
    return loss;
  }

  /**
   * The reduced loss: `mean`/`auto` divides each sequence's loss by its target length (at least 1)
   * and averages over the batch, as PyTorch and Burn; `sum` adds them.
   */
  forwardWithReduction(logProbs: Tensor<3, Float>, targets: Tensor<2, Int>, inputLengths: Tensor<1, Int>, targetLengths: Tensor<1, Int>, reduction: Reduction): Tensor<1, Float> {
    const loss = this.forward(logProbs, targets, inputLengths, targetLengths);
    if (reduction === 'mean' || reduction === 'auto') return loss.div(targetLengths.float(loss.dtype()).clampMin(1)).mean();
    return reduceLoss(loss, reduction, 'CTCLoss');
  }

  /** Checks kinds, shapes and (where readable) the lengths and labels; returns `[time, batch, classes]`. */
  private check(logProbs: Tensor<3, Float>, targets: Tensor<2, Int>, inputLengths: Tensor<1, Int>, targetLengths: Tensor<1, Int>): [number, number, number] {
    const L = 'CTCLoss';
    expectFloatArg(logProbs, L, 'logProbs');
    expectRank(logProbs, 3, L, 'logProbs', '[time, batch, classes]');
    expectIntArg(targets, L, 'targets', 'class indices');
    expectRank(targets, 2, L, 'targets', '[batch, maxTargetLength]');
    expectIntArg(inputLengths, L, 'inputLengths', 'lengths');
    expectIntArg(targetLengths, L, 'targetLengths', 'lengths');
    const [time, batch, classes] = logProbs.dims() as [number, number, number];
    if (this.blank >= classes) throw new BurnError(L, `blank index ${this.blank} for ${classes} classes; expected blank < classes`);
    if (targets.dims()[0] !== batch) throw new BurnError(L, `targets of shape ${fmt(targets.dims())} for logProbs of shape ${fmt(logProbs.dims())}; expected [${batch}, maxTargetLength]`);
    for (const [t, name] of [[inputLengths, 'inputLengths'], [targetLengths, 'targetLengths']] as const) {
      if (t.dims().length !== 1 || t.dims()[0] !== batch) throw new BurnError(L, `${name} of shape ${fmt(t.dims())}; expected [${batch}] (the batch size)`);
    }
    const maxTarget = targets.dims()[1]!;
    const il = peekValues(inputLengths), tl = peekValues(targetLengths);
    if (il && tl) {
      for (let i = 0; i < batch; i++) {
        if (!(tl[i]! >= 0 && tl[i]! <= maxTarget)) throw new BurnError(L, `targetLengths[${i}] = ${tl[i]}; expected 0 <= length <= ${maxTarget} (the targets' width)`);
        if (!(il[i]! <= time)) throw new BurnError(L, `inputLengths[${i}] = ${il[i]} exceeds the ${time} frames of logProbs`);
        if (!(il[i]! >= tl[i]!)) throw new BurnError(L, `inputLengths[${i}] = ${il[i]} is shorter than targetLengths[${i}] = ${tl[i]}; no alignment is possible`);
      }
      const labels = peekValues(targets);
      if (labels) {
        for (let i = 0; i < batch; i++) {
          for (let s = 0; s < tl[i]!; s++) {
            const v = labels[i * maxTarget + s]!;
            if (!(v >= 0 && v < classes)) throw new BurnError(L, `targets[${i}][${s}] = ${v}; expected a class index in [0, ${classes})`);
          }
        }
      }
    }
    return [time, batch, classes];
  }

  override displayAttributes(): Record<string, unknown> {
    return { blank: this.blank, zeroInfinity: this.zeroInfinity };
  }
}

function maxOf(values: number[] | undefined): number | undefined {
  return values && values.length > 0 ? Math.max(...values) : undefined;
}
