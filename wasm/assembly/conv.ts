// im2col for NCHW convolutions and 2-d max pooling.

// im2col argument block (u32 fields).
const C = 0, H = 4, W = 8, KH = 12, KW = 16, SH = 20, SW = 24, PH = 28, PW = 32, DH = 36, DW = 40, OH = 44, OW = 48;
const X = 52, COL = 56, CH_PER_JOB = 60, JOBS_PER_IMAGE = 64;

/**
 * Writes the rows of one block of input channels of one image into its column matrix
 * `[C·kh·kw, OH·OW]` (row (c·kh + ky)·kw + kx holds input (c, oy·sh - ph + ky·dh, ox·sw - pw +
 * kx·dw), zero outside the input).
 */
export function im2colJob(args: usize, job: i32): void {
  const c = load<i32>(args, C), h = load<i32>(args, H), w = load<i32>(args, W), kh = load<i32>(args, KH), kw = load<i32>(args, KW);
  const sh = load<i32>(args, SH), sw = load<i32>(args, SW), ph = load<i32>(args, PH), pw = load<i32>(args, PW);
  const dh = load<i32>(args, DH), dw = load<i32>(args, DW), oh = load<i32>(args, OH), ow = load<i32>(args, OW);
  const per = load<i32>(args, CH_PER_JOB), jobsPerImage = load<i32>(args, JOBS_PER_IMAGE);
  const image = job / jobsPerImage, c0 = (job % jobsPerImage) * per, c1 = min(c, c0 + per);
  const l = oh * ow;
  const xImage = <usize>load<u32>(args, X) + <usize>image * <usize>(c * h * w) * 4;
  const colImage = <usize>load<u32>(args, COL) + <usize>image * <usize>(c * kh * kw) * <usize>l * 4;
  for (let ch = c0; ch < c1; ch++) {
    const plane = xImage + <usize>(ch * h * w) * 4;
    for (let ky = 0; ky < kh; ky++) {
      for (let kx = 0; kx < kw; kx++) {
        let dst = colImage + <usize>((ch * kh + ky) * kw + kx) * <usize>l * 4;
        const xOff = kx * dw - pw;
        // Output columns whose input column lies inside [0, w): ox in [lo, hi).
        let lo = 0, hi = ow;
        if (xOff < 0) lo = (-xOff + sw - 1) / sw;
        const lastIn = w - 1 - xOff; // ox · sw <= lastIn
        hi = lastIn < 0 ? 0 : min(ow, lastIn / sw + 1);
        if (lo > hi) lo = hi;
        for (let oy = 0; oy < oh; oy++) {
          const iy = oy * sh - ph + ky * dh;
          if (iy < 0 || iy >= h) {
            memory.fill(dst, 0, <usize>ow * 4);
          } else {
            const row = plane + <usize>(iy * w) * 4;
            if (lo > 0) memory.fill(dst, 0, <usize>lo * 4);
            if (sw == 1) {
              if (hi > lo) memory.copy(dst + <usize>lo * 4, row + <usize>(lo + xOff) * 4, <usize>(hi - lo) * 4);
            } else {
              for (let ox = lo; ox < hi; ox++) store<f32>(dst + <usize>ox * 4, load<f32>(row + <usize>(ox * sw + xOff) * 4));
            }
            if (hi < ow) memory.fill(dst + <usize>hi * 4, 0, <usize>(ow - hi) * 4);
          }
          dst += <usize>ow * 4;
        }
      }
    }
  }
}

// max pool argument block (u32 fields).
const P_PLANES = 0, P_H = 4, P_W = 8, P_OH = 12, P_OW = 16, P_KH = 20, P_KW = 24, P_SH = 28, P_SW = 32;
const P_PH = 36, P_PW = 40, P_DH = 44, P_DW = 48, P_X = 52, P_OUT = 56, P_IDX = 60, P_PER_JOB = 64;

/**
 * 2-d max pooling of a block of planes: each output is the maximum of its window, padding counts
 * as -inf, NaN wins, ties keep the first position; the index (when asked) is the flat position
 * iy·W + ix of that first maximum in the unpadded plane.
 */
export function maxPoolJob(args: usize, job: i32): void {
  const planes = load<i32>(args, P_PLANES), h = load<i32>(args, P_H), w = load<i32>(args, P_W), oh = load<i32>(args, P_OH), ow = load<i32>(args, P_OW);
  const kh = load<i32>(args, P_KH), kw = load<i32>(args, P_KW), sh = load<i32>(args, P_SH), sw = load<i32>(args, P_SW);
  const ph = load<i32>(args, P_PH), pw = load<i32>(args, P_PW), dh = load<i32>(args, P_DH), dw = load<i32>(args, P_DW);
  const x = <usize>load<u32>(args, P_X), out = <usize>load<u32>(args, P_OUT), idx = <usize>load<u32>(args, P_IDX), per = load<i32>(args, P_PER_JOB);
  const p1 = min(planes, (job + 1) * per);
  for (let p = job * per; p < p1; p++) {
    const plane = x + <usize>(p * h * w) * 4;
    let o = <usize>(p * oh * ow);
    for (let oy = 0; oy < oh; oy++) {
      for (let ox = 0; ox < ow; ox++) {
        let best: f32 = 0, bestAt = 0;
        let first = true;
        for (let ky = 0; ky < kh; ky++) {
          const iy = oy * sh - ph + ky * dh;
          const rowOk = iy >= 0 && iy < h;
          for (let kx = 0; kx < kw; kx++) {
            const ix = ox * sw - pw + kx * dw;
            const v: f32 = rowOk && ix >= 0 && ix < w ? load<f32>(plane + <usize>(iy * w + ix) * 4) : -Infinity;
            if (first || (best == best && (v > best || v != v))) {
              best = v;
              bestAt = iy * w + ix;
              first = false;
            }
          }
        }
        store<f32>(out + o * 4, best);
        if (idx != 0) store<i32>(idx + o * 4, bestAt);
        o++;
      }
    }
  }
}
