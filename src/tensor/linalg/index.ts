/**
 * Linear algebra over the last dims of tensors (Burn's `burn::tensor::linalg`): products
 * (`matvec`, `outer`), `diag` and `trace`, vector norms, `cosineSimilarity`, and the `lu`, `qr`
 * and `det` decompositions, batched over leading dims. Everything is written over tensor ops, so
 * it runs on every device without reading data back.
 *
 * ```ts
 * import { linalg, Tensor } from 'burn-ts';
 * const a = Tensor.fromFloats([[3, 2], [4, 6]]);
 * const { q, r } = linalg.qr(a); // q [[-0.6, 0.8], [-0.8, -0.6]], r [[-5, -6], [0, -2]]
 * ```
 */
export { matvec } from './matvec.js';
export { outer, outerDim } from './outer.js';
export { diag } from './diag.js';
export { trace } from './trace.js';
export {
  type Norm,
  normExponent,
  vectorNorm,
  lpNorm,
  vectorNormalize,
  l0Norm,
  l1Norm,
  l2Norm,
  maxAbsNorm,
  minAbsNorm,
} from './vector-norm.js';
export { cosineSimilarity } from './cosine-similarity.js';
export { lu, type LuDecomposition } from './lu.js';
export { det, type DetRank } from './det.js';
export { qr, type QrDecomposition } from './qr.js';
