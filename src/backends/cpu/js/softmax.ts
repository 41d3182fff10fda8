import type { CpuArray } from '../storage.js';

/**
 * Fused softmax / log-softmax over the rows of a contiguous `[rows, len]` block: one pass for the
 * max, one for the sum of exponentials, one to write — instead of five separate ops.
 */
export function softmaxRows(out: CpuArray, x: CpuArray, offset: number, rows: number, len: number, log: boolean): void {
  for (let r = 0; r < rows; r++) {
    const base = offset + r * len,
      ob = r * len;
    let max = -Infinity;
    for (let j = 0; j < len; j++) {
      const v = x[base + j]!;
      if (v > max || v !== v) max = v;
    }
    let sum = 0;
    if (log) {
      for (let j = 0; j < len; j++) sum += Math.exp(x[base + j]! - max);
      const shift = max + Math.log(sum);
      for (let j = 0; j < len; j++) out[ob + j] = x[base + j]! - shift;
    } else {
      // The exponentials go straight into the output, then get scaled.
      for (let j = 0; j < len; j++) {
        const e = Math.exp(x[base + j]! - max);
        out[ob + j] = e;
        sum += e;
      }
      const inv = 1 / sum;
      for (let j = 0; j < len; j++) out[ob + j] = out[ob + j]! * inv;
    }
  }
}
