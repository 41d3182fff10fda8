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

/**
 * One Adam step (see `Backend.adamStep`), rounding after each op where the op-by-op update
 * (optim/adam.ts) rounds (Math.fround for f32), so the values are identical to it.
 *
 * One loop per element type and per first/later step: `Math.fround` written out at each rounding
 * is always inlined, while a rounding function chosen at run time was a call per op in some
 * processes (V8's feedback for it varied from run to run: 1.4 or 13 ms for 147k f32 values).
 */
export function adamStepInto(a: AdamArrays, o: AdamStepOptions): void {
  if (a.outP instanceof Float32Array) adamF32(a, o);
  else adamF64(a, o);
}

function adamF32(a: AdamArrays, o: AdamStepOptions): void {
  const { beta1, beta2, factor, epsilon } = o;
  const c1 = 1 - beta1,
    c2 = 1 - beta2;
  const { n, p, g, m, v, outP, outM, outV, pOffset, gOffset, mOffset, vOffset } = a;
  if (m === undefined || v === undefined) {
    for (let i = 0; i < n; i++) {
      const gi = g[gOffset + i]!;
      const mi = Math.fround(gi * c1);
      const vi = Math.fround(Math.fround(gi * gi) * c2);
      outP[i] =
        p[pOffset + i]! - Math.fround(Math.fround(mi * factor) / Math.fround(Math.fround(Math.sqrt(vi)) + epsilon));
      outM[i] = mi;
      outV[i] = vi;
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const gi = g[gOffset + i]!;
    const mi = Math.fround(Math.fround(m[mOffset + i]! * beta1) + Math.fround(gi * c1));
    const vi = Math.fround(Math.fround(v[vOffset + i]! * beta2) + Math.fround(Math.fround(gi * gi) * c2));
    outP[i] =
      p[pOffset + i]! - Math.fround(Math.fround(mi * factor) / Math.fround(Math.fround(Math.sqrt(vi)) + epsilon));
    outM[i] = mi;
    outV[i] = vi;
  }
}

function adamF64(a: AdamArrays, o: AdamStepOptions): void {
  const { beta1, beta2, factor, epsilon } = o;
  const c1 = 1 - beta1,
    c2 = 1 - beta2;
  const { n, p, g, m, v, outP, outM, outV, pOffset, gOffset, mOffset, vOffset } = a;
  for (let i = 0; i < n; i++) {
    const gi = g[gOffset + i]!;
    const mi = m === undefined ? gi * c1 : m[mOffset + i]! * beta1 + gi * c1;
    const vi = v === undefined ? gi * gi * c2 : v[vOffset + i]! * beta2 + gi * gi * c2;
    outP[i] = p[pOffset + i]! - (mi * factor) / (Math.sqrt(vi) + epsilon);
    outM[i] = mi;
    outV[i] = vi;
  }
}
