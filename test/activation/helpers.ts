import { activation, type Tensor } from '../../src/index.js';
import type { Tol } from '../helpers/fixtures.js';

type F = Tensor<number>;

/** The elementwise functions of the fixtures, called with the fixture's scalar arguments (Burn's order). */
export const ELEMENTWISE: Record<string, (x: F, args: number[]) => F> = {
  relu: (x) => activation.relu(x),
  relu6: (x) => activation.relu6(x),
  leakyRelu: (x, [s]) => activation.leakyRelu(x, s),
  gelu: (x) => activation.gelu(x),
  geluApproximate: (x) => activation.geluApproximate(x),
  hardtanh: (x, [lo, hi]) => activation.hardtanh(x, lo, hi),
  tanhshrink: (x) => activation.tanhshrink(x),
  softplus: (x, [b]) => activation.softplus(x, b),
  sigmoid: (x) => activation.sigmoid(x),
  hardSigmoid: (x, [a, b]) => activation.hardSigmoid(x, a, b),
  logSigmoid: (x) => activation.logSigmoid(x),
  silu: (x) => activation.silu(x),
  hardSwish: (x) => activation.hardSwish(x),
  mish: (x) => activation.mish(x),
  tanh: (x) => activation.tanh(x),
  elu: (x, [a]) => activation.elu(x, a),
  celu: (x, [a]) => activation.celu(x, a),
  selu: (x) => activation.selu(x),
  thresholdedRelu: (x, [a]) => activation.thresholdedRelu(x, a),
  threshold: (x, [t, v]) => activation.threshold(x, t!, v!),
  softsign: (x) => activation.softsign(x),
  hardShrink: (x, [l]) => activation.hardShrink(x, l),
  softShrink: (x, [l]) => activation.softShrink(x, l),
  shrink: (x, [l, b]) => activation.shrink(x, l, b),
};

/** The along-dim functions of the fixtures. */
export const ALONG_DIM: Record<string, (x: F, dim: number) => F> = {
  softmax: (x, d) => activation.softmax(x, d),
  softmin: (x, d) => activation.softmin(x, d),
  logSoftmax: (x, d) => activation.logSoftmax(x, d),
  quietSoftmax: (x, d) => activation.quietSoftmax(x, d),
  glu: (x, d) => activation.glu(x, d),
};

/** Builds the input view a fixture case asks for (non-contiguous inputs). */
export function view(x: F, kind: unknown): F {
  if (kind === 'transpose') return x.transpose();
  if (kind === 'step') return x.slice([null, [0, 6, 2]]);
  return x;
}

/** Tolerance by dtype: f32 ops round at every step, f64 agree to near double precision. */
export function tolFor(dtype: string): Tol {
  return dtype === 'f64' ? { rtol: 1e-10, atol: 1e-12 } : { rtol: 1e-5, atol: 2e-6 };
}
