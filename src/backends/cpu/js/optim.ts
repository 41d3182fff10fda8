import type { AdamStepOptions } from '../../../backend/options.js';
import type { FloatArray } from '../engine.js';

/**
 * The arrays of one fused Adam step over `n` contiguous values: inputs from their offsets
 * (`m` and `v` undefined on the first step: zero moments), outputs from 0.
 */
export interface AdamArrays {
  readonly n: number;
  readonly p: FloatArray;
  readonly pOffset: number;
  readonly g: FloatArray;
  readonly gOffset: number;
  readonly m: FloatArray | undefined;
  readonly mOffset: number;
  readonly v: FloatArray | undefined;
  readonly vOffset: number;
  readonly outP: FloatArray;
  readonly outM: FloatArray;
  readonly outV: FloatArray;
}

const same = (x: number): number => x;

/**
 * One Adam step (see `Backend.adamStep`), rounding after each op where the op-by-op update
 * (optim/adam.ts) rounds (Math.fround for f32), so the values are identical to it.
 */
export function adamStepInto(a: AdamArrays, o: AdamStepOptions): void {
  const r = a.outP instanceof Float32Array ? Math.fround : same;
  const { beta1, beta2, factor, epsilon } = o;
  const c1 = 1 - beta1, c2 = 1 - beta2;
  const { n, p, g, m, v, outP, outM, outV } = a;
  for (let i = 0; i < n; i++) {
    const gi = g[a.gOffset + i]!;
    const gm = r(gi * c1);
    const g2 = r(r(gi * gi) * c2);
    const mi = m ? r(r(m[a.mOffset + i]! * beta1) + gm) : gm;
    const vi = v ? r(r(v[a.vOffset + i]! * beta2) + g2) : g2;
    outP[i] = p[a.pOffset + i]! - r(r(mi * factor) / r(r(Math.sqrt(vi)) + epsilon));
    outM[i] = mi;
    outV[i] = vi;
  }
}
