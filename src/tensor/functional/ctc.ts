import { isFloatDType, isIntDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Bool, Float, Int, Kind } from '../kind.js';
import { Tensor } from '../tensor.js';

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
 * The values of `t` where the device reads them synchronously (CPU), else undefined: the
 * data-dependent checks run where they cost no device round trip, as Burn runs them only in
 * debug builds.
 */
function peekValues(t: Tensor<number, Kind>): number[] | undefined {
  try {
    return Array.from(t.toDataSync().toArray(), Number);
  } catch (e) {
    if (e instanceof BurnError && e.op === 'toDataSync') return undefined;
    throw e;
  }
}

/** @internal How {@link ctcLossAs} checks its arguments. */
export interface CtcCheckOptions {
  /** The operation named in errors (`ctcLoss`, or the `CTCLoss` layer). */
  readonly op: string;
  /**
   * Rejects `inputLengths[i] < targetLengths[i]` (Burn's `CTCLoss` layer asserts it); the
   * functional form returns an infinite loss there, as Burn's `module::ctc_loss`.
   */
  readonly requireAlignableLengths: boolean;
}

/** Checks kinds, shapes and (where readable) the lengths and labels; returns `[time, batch, classes]`. */
function check(
  logProbs: Tensor<3, Float>,
  targets: Tensor<2, Int>,
  inputLengths: Tensor<1, Int>,
  targetLengths: Tensor<1, Int>,
  blank: number,
  o: CtcCheckOptions,
): [number, number, number] {
  const L = o.op;
  const kind = (t: Tensor<number, Kind>, name: string, float: boolean, what: string) => {
    logProbs.sameDevice(t, L);
    if (float ? !isFloatDType(t.dtype()) : !isIntDType(t.dtype()))
      throw new BurnError(
        L,
        `${name} must be ${float ? 'a Float tensor' : `an Int tensor of ${what}`}, got ${t.dtype()}`,
      );
  };
  kind(logProbs, 'logProbs', true, '');
  if (logProbs.rank() !== 3)
    throw new BurnError(L, `logProbs of shape ${fmt(logProbs.dims())}; expected [time, batch, classes]`);
  kind(targets, 'targets', false, 'class indices');
  if (targets.rank() !== 2)
    throw new BurnError(L, `targets of shape ${fmt(targets.dims())}; expected [batch, maxTargetLength]`);
  kind(inputLengths, 'inputLengths', false, 'lengths');
  kind(targetLengths, 'targetLengths', false, 'lengths');
  const [time, batch, classes] = logProbs.dims() as [number, number, number];
  if (!(Number.isInteger(blank) && blank >= 0))
    throw new BurnError(L, `blank index ${blank}; expected a non-negative integer`);
  if (blank >= classes) throw new BurnError(L, `blank index ${blank} for ${classes} classes; expected blank < classes`);
  if (targets.dims()[0] !== batch)
    throw new BurnError(
      L,
      `targets of shape ${fmt(targets.dims())} for logProbs of shape ${fmt(logProbs.dims())}; expected [${batch}, maxTargetLength]`,
    );
  for (const [t, name] of [
    [inputLengths, 'inputLengths'],
    [targetLengths, 'targetLengths'],
  ] as const) {
    if (t.dims().length !== 1 || t.dims()[0] !== batch)
      throw new BurnError(L, `${name} of shape ${fmt(t.dims())}; expected [${batch}] (the batch size)`);
  }
  const maxTarget = targets.dims()[1]!;
  const il = peekValues(inputLengths),
    tl = peekValues(targetLengths);
  if (il && tl) {
    for (let i = 0; i < batch; i++) {
      if (!(tl[i]! >= 0 && tl[i]! <= maxTarget))
        throw new BurnError(
          L,
          `targetLengths[${i}] = ${tl[i]}; expected 0 <= length <= ${maxTarget} (the targets' width)`,
        );
      if (!(il[i]! >= 0)) throw new BurnError(L, `inputLengths[${i}] = ${il[i]}; expected a non-negative length`);
      if (!(il[i]! <= time))
        throw new BurnError(L, `inputLengths[${i}] = ${il[i]} exceeds the ${time} frames of logProbs`);
      if (o.requireAlignableLengths && !(il[i]! >= tl[i]!))
        throw new BurnError(
          L,
          `inputLengths[${i}] = ${il[i]} is shorter than targetLengths[${i}] = ${tl[i]}; no alignment is possible`,
        );
    }
    const labels = peekValues(targets);
    if (labels) {
      for (let i = 0; i < batch; i++) {
        for (let s = 0; s < tl[i]!; s++) {
          const v = labels[i * maxTarget + s]!;
          if (!(v >= 0 && v < classes))
            throw new BurnError(L, `targets[${i}][${s}] = ${v}; expected a class index in [0, ${classes})`);
        }
      }
    }
  }
  return [time, batch, classes];
}

/** @internal {@link ctcLoss} with the checks of `options` (shared with the `CTCLoss` layer: one implementation). */
export function ctcLossAs(
  logProbs: Tensor<3, Float>,
  targets: Tensor<2, Int>,
  inputLengths: Tensor<1, Int>,
  targetLengths: Tensor<1, Int>,
  blank: number,
  options: CtcCheckOptions,
): Tensor<1, Float> {
  const [time, batch] = check(logProbs, targets, inputLengths, targetLengths, blank, options);
  const device = logProbs.device();
  const maxTarget = targets.dims()[1]!;
  const ext = 2 * maxTarget + 1;

  // Targets with the padding replaced by blanks, then interleaved with blanks: [batch, ext].
  const positions = Tensor.arange(0, maxTarget, device).reshape([1, maxTarget]).expand([batch, maxTarget]);
  const lengths2d = targetLengths.reshape([batch, 1]).expand([batch, maxTarget]);
  const padded = targets.maskFill(positions.greaterEqual(lengths2d), blank);
  const blanks = Tensor.full([batch, maxTarget], blank, { device, dtype: targets.dtype() }) as Tensor<2, Int>;
  const labels = Tensor.cat(
    [Tensor.stack([blanks, padded], 2).reshape([batch, 2 * maxTarget]), blanks.sliceDim(1, [0, 1])],
    1,
  ) as Tensor<2, Int>;

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
  // With no frames there is nothing to recurse over: only an empty target can be aligned.
  let alpha = time === 0 ? none(ext) : frame(0).maskFill(slots.greaterEqual(2), -Infinity);
  // An empty input emits nothing: only the empty alignment (probability 1) remains.
  alpha = alpha.maskWhere(inputs2d.equal(0), none(ext).maskFill(slots.equal(0), 0));
  const il = peekValues(inputLengths);
  const steps = Math.min(time, il && il.length > 0 ? Math.max(...il) : time);
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
  return logSumExp([ends.sliceDim(1, [0, 1]), endLabel])
    .neg()
    .reshape([batch]) as Tensor<1, Float>;
}

/**
 * Connectionist temporal classification loss (Burn's `module::ctc_loss`, PyTorch's `ctc_loss`
 * with `reduction='none'`): the negative log of the total probability of every alignment of each
 * target sequence to its input frames. A target no alignment fits (too few frames for its labels
 * and repeats) gives `+∞`, with finite gradients. The forward (alpha) recursion runs in log space
 * over tensor ops, one step per frame for the whole batch, so autodiff differentiates it.
 *
 * ```ts
 * const loss = functional.ctcLoss(logits.logSoftmax(2), targets, inputLengths, targetLengths); // [batch]
 * ```
 *
 * @param logProbs `[time, batch, classes]` log-probabilities (e.g. from `logSoftmax`), blank included
 * @param targets `[batch, maxTargetLength]` class indices, padded (entries past a row's length are ignored)
 * @param inputLengths `[batch]` frames used per sequence (at most `time`)
 * @param targetLengths `[batch]` labels per target (at most `maxTargetLength`)
 * @param blank the class index of the blank label (default 0)
 * @returns the loss of each sequence, `[batch]`
 */
export function ctcLoss(
  logProbs: Tensor<3, Float>,
  targets: Tensor<2, Int>,
  inputLengths: Tensor<1, Int>,
  targetLengths: Tensor<1, Int>,
  blank = 0,
): Tensor<1, Float> {
  return ctcLossAs(logProbs, targets, inputLengths, targetLengths, blank, {
    op: 'ctcLoss',
    requireAlignableLengths: false,
  });
}
