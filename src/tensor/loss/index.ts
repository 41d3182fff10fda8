/**
 * Loss functions over tensors (Burn's `burn::tensor::loss`): `crossEntropyWithLogits` against
 * target probabilities, and `ctcLoss` (also in `functional`, where Burn keeps it as
 * `module::ctc_loss`). The layers of `nn` (`CrossEntropyLoss`, `CTCLoss`, …) add configs and
 * reductions on top.
 *
 * ```ts
 * import { loss, Tensor } from 'burn-ts';
 * const l = loss.crossEntropyWithLogits(Tensor.fromFloats([[0, 1]]), Tensor.fromFloats([[0.8, 0.2]]));
 * ```
 */
export { crossEntropyWithLogits } from './cross-entropy.js';
export { ctcLoss } from '../functional/ctc.js';
