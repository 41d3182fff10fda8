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

// col2im argument block (u32 fields).
const T_C = 0, T_OH = 4, T_OW = 8, T_H = 12, T_W = 16, T_KH = 20, T_KW = 24, T_SH = 28, T_SW = 32, T_PH = 36, T_PW = 40;
const T_DH = 44, T_DW = 48, T_COL = 52, T_OUT = 56, T_BIAS = 60, T_CH_PER_JOB = 64, T_JOBS_PER_IMAGE = 68;

/**
 * col2im of a transposed convolution: for a block of output channels of one image, sums the column
 * matrix `[C·kh·kw, H·W]` into the output planes (bias first, 0 without): column (iy, ix) of row
 * (c·kh + ky)·kw + kx lands on (iy·sh - ph + ky·dh, ix·sw - pw + kx·dw) when inside the output.
 * A job owns its output planes, so jobs never write the same element.
 */
export function col2imJob(args: usize, job: i32): void {
  const c = load<i32>(args, T_C), oh = load<i32>(args, T_OH), ow = load<i32>(args, T_OW), h = load<i32>(args, T_H), w = load<i32>(args, T_W);
  const kh = load<i32>(args, T_KH), kw = load<i32>(args, T_KW), sh = load<i32>(args, T_SH), sw = load<i32>(args, T_SW);
  const ph = load<i32>(args, T_PH), pw = load<i32>(args, T_PW), dh = load<i32>(args, T_DH), dw = load<i32>(args, T_DW);
  const bias = <usize>load<u32>(args, T_BIAS), per = load<i32>(args, T_CH_PER_JOB), jobsPerImage = load<i32>(args, T_JOBS_PER_IMAGE);
  const image = job / jobsPerImage, c0 = (job % jobsPerImage) * per, c1 = min(c, c0 + per);
  const l = h * w, planeSize = oh * ow;
  const colImage = <usize>load<u32>(args, T_COL) + <usize>image * <usize>(c * kh * kw) * <usize>l * 4;
  const outImage = <usize>load<u32>(args, T_OUT) + <usize>image * <usize>(c * planeSize) * 4;
  for (let ch = c0; ch < c1; ch++) {
    const plane = outImage + <usize>(ch * planeSize) * 4;
    const b: f32 = bias != 0 ? load<f32>(bias + <usize>ch * 4) : 0;
    for (let i = 0; i < planeSize; i++) store<f32>(plane + <usize>i * 4, b);
    for (let ky = 0; ky < kh; ky++) {
      for (let kx = 0; kx < kw; kx++) {
        const row = colImage + <usize>((ch * kh + ky) * kw + kx) * <usize>l * 4;
        const xOff = kx * dw - pw;
        // Input columns ix whose output column ix·sw + xOff lies inside [0, ow).
        let lo = 0;
        if (xOff < 0) lo = (-xOff + sw - 1) / sw;
        const last = ow - 1 - xOff;
        let hi = last < 0 ? 0 : min(w, last / sw + 1);
        if (lo > hi) lo = hi;
        for (let iy = 0; iy < h; iy++) {
          const oy = iy * sh - ph + ky * dh;
          if (oy < 0 || oy >= oh) continue;
          const src = row + <usize>(iy * w) * 4;
          const dst = plane + <usize>(oy * ow) * 4;
          if (sw == 1) {
            let ix = lo;
            for (; ix + 4 <= hi; ix += 4) {
              const d = dst + <usize>(ix + xOff) * 4;
              v128.store(d, f32x4.add(v128.load(d), v128.load(src + <usize>ix * 4)));
            }
            for (; ix < hi; ix++) {
              const d = dst + <usize>(ix + xOff) * 4;
              store<f32>(d, load<f32>(d) + load<f32>(src + <usize>ix * 4));
            }
          } else {
            for (let ix = lo; ix < hi; ix++) {
              const d = dst + <usize>(ix * sw + xOff) * 4;
              store<f32>(d, load<f32>(d) + load<f32>(src + <usize>ix * 4));
            }
          }
        }
      }
    }
  }
}
