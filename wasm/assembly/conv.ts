// im2col and col2im for NCHW convolutions, the weight gradient's dot products, and 2-d max pooling.

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
            zeroRun(dst, ow);
          } else {
            const row = plane + <usize>(iy * w) * 4;
            zeroRun(dst, lo);
            if (sw == 1) {
              copyRun(dst + <usize>lo * 4, row + <usize>(lo + xOff) * 4, hi - lo);
            } else {
              for (let ox = lo; ox < hi; ox++) store<f32>(dst + <usize>ox * 4, load<f32>(row + <usize>(ox * sw + xOff) * 4));
            }
            zeroRun(dst + <usize>hi * 4, ow - hi);
          }
          dst += <usize>ow * 4;
        }
      }
    }
  }
}

/** True when any of the `n` floats at `p` is NaN. */
function hasNaN(p: usize, n: i32): bool {
  let i = 0, any = v128.splat<i32>(0);
  for (; i + 4 <= n; i += 4) any = v128.or(any, f32x4.ne(v128.load(p + <usize>i * 4), v128.load(p + <usize>i * 4)));
  for (; i < n; i++) if (isNaN(load<f32>(p + <usize>i * 4))) return true;
  return v128.any_true(any);
}

/**
 * Max pooling of one NaN-free plane with 2×2 windows at stride 2 that all lie inside it, four
 * outputs per step: the window's values in row-major order a, b (top row), c, d (bottom row), the
 * first strict maximum winning as in the generic loop; `idx` 0: no indices.
 */
function pool2x2(plane: usize, w: i32, oh: i32, ow: i32, out: usize, idx: usize): void {
  const lanes = i32x4(0, 2, 4, 6);
  const one = i32x4.splat(1), down = i32x4.splat(w), diag = i32x4.splat(w + 1);
  for (let oy = 0; oy < oh; oy++) {
    const r0 = plane + <usize>(2 * oy * w) * 4, r1 = r0 + <usize>w * 4;
    const o = out + <usize>(oy * ow) * 4, ind = idx + <usize>(oy * ow) * 4;
    let ox = 0;
    for (; ox + 4 <= ow; ox += 4) {
      const at0 = r0 + <usize>(2 * ox) * 4, at1 = r1 + <usize>(2 * ox) * 4;
      const t0 = v128.load(at0), t1 = v128.load(at0, 16), u0 = v128.load(at1), u1 = v128.load(at1, 16);
      const a = v128.shuffle<f32>(t0, t1, 0, 2, 4, 6), b = v128.shuffle<f32>(t0, t1, 1, 3, 5, 7);
      const c = v128.shuffle<f32>(u0, u1, 0, 2, 4, 6), d = v128.shuffle<f32>(u0, u1, 1, 3, 5, 7);
      let best = a, pos = i32x4.splat(0);
      let m = f32x4.gt(b, best);
      best = v128.bitselect(b, best, m); pos = v128.bitselect(one, pos, m);
      m = f32x4.gt(c, best);
      best = v128.bitselect(c, best, m); pos = v128.bitselect(down, pos, m);
      m = f32x4.gt(d, best);
      best = v128.bitselect(d, best, m); pos = v128.bitselect(diag, pos, m);
      v128.store(o + <usize>ox * 4, best);
      if (idx != 0) v128.store(ind + <usize>ox * 4, i32x4.add(pos, i32x4.add(lanes, i32x4.splat(2 * oy * w + 2 * ox))));
    }
    for (; ox < ow; ox++) {
      const at0 = r0 + <usize>(2 * ox) * 4, at1 = r1 + <usize>(2 * ox) * 4;
      let best = load<f32>(at0), pos = 0;
      const b = load<f32>(at0, 4), c = load<f32>(at1), d = load<f32>(at1, 4);
      if (b > best) { best = b; pos = 1; }
      if (c > best) { best = c; pos = w; }
      if (d > best) { best = d; pos = w + 1; }
      store<f32>(o + <usize>ox * 4, best);
      if (idx != 0) store<i32>(ind + <usize>ox * 4, 2 * oy * w + 2 * ox + pos);
    }
  }
}

// Rows of a column matrix are short (an output row: tens of floats), where memory.copy and
// memory.fill cost more as calls than as copies: plain vector loops instead.

/** Copies `n` floats from `src` to `dst`. */
@inline function copyRun(dst: usize, src: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(dst + <usize>i * 4, v128.load(src + <usize>i * 4));
  for (; i < n; i++) store<f32>(dst + <usize>i * 4, load<f32>(src + <usize>i * 4));
}

/** Writes `n` zeros (none when `n` <= 0) from `dst`. */
@inline function zeroRun(dst: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(dst + <usize>i * 4, i32x4.splat(0));
  for (; i < n; i++) store<f32>(dst + <usize>i * 4, 0);
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
  // 2×2 windows at stride 2, all inside the plane (the usual down-sampling layer).
  const pairs = kh == 2 && kw == 2 && sh == 2 && sw == 2 && ph == 0 && pw == 0 && dh == 1 && dw == 1 && 2 * oh <= h && 2 * ow <= w;
  for (let p = job * per; p < p1; p++) {
    const plane = x + <usize>(p * h * w) * 4;
    let o = <usize>(p * oh * ow);
    if (pairs && !hasNaN(plane, h * w)) {
      pool2x2(plane, w, oh, ow, out + o * 4, idx != 0 ? idx + o * 4 : 0);
      continue;
    }
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

// Weight-gradient products argument block (u32 fields): rows m, columns n, length l, and a table
// of 16-byte entries (A, B, C addresses, unused) with one entry per job.
const D_M = 0, D_N = 4, D_L = 8, D_TABLE = 12;

/**
 * C[i, j] = Σₚ A[i, p] · B[j, p] for one table entry: both operands run contiguously along p (a
 * weight gradient: the output gradient's rows against the im2col rows), so 2×4 tiles of dot
 * products read them in place, with no packing; edge tiles repeat the last row or column and keep
 * only their own results.
 */
export function dotJob(args: usize, job: i32): void {
  const m = load<i32>(args, D_M), n = load<i32>(args, D_N), l = load<i32>(args, D_L);
  const entry = <usize>load<u32>(args, D_TABLE) + <usize>job * 16;
  const a = <usize>load<u32>(entry), b = <usize>load<u32>(entry, 4), c = <usize>load<u32>(entry, 8);
  const rowBytes = <usize>l * 4;
  for (let i = 0; i < m; i += 2) {
    const a0 = a + <usize>i * rowBytes, a1 = a + <usize>min(i + 1, m - 1) * rowBytes;
    for (let j = 0; j < n; j += 4) {
      const b0 = b + <usize>j * rowBytes, b1 = b + <usize>min(j + 1, n - 1) * rowBytes;
      const b2 = b + <usize>min(j + 2, n - 1) * rowBytes, b3 = b + <usize>min(j + 3, n - 1) * rowBytes;
      let s00 = f32x4.splat(0), s01 = f32x4.splat(0), s02 = f32x4.splat(0), s03 = f32x4.splat(0);
      let s10 = f32x4.splat(0), s11 = f32x4.splat(0), s12 = f32x4.splat(0), s13 = f32x4.splat(0);
      let p = 0;
      for (; p + 4 <= l; p += 4) {
        const o = <usize>p * 4;
        const x0 = v128.load(a0 + o), x1 = v128.load(a1 + o);
        let y = v128.load(b0 + o);
        s00 = f32x4.add(s00, f32x4.mul(x0, y)); s10 = f32x4.add(s10, f32x4.mul(x1, y));
        y = v128.load(b1 + o);
        s01 = f32x4.add(s01, f32x4.mul(x0, y)); s11 = f32x4.add(s11, f32x4.mul(x1, y));
        y = v128.load(b2 + o);
        s02 = f32x4.add(s02, f32x4.mul(x0, y)); s12 = f32x4.add(s12, f32x4.mul(x1, y));
        y = v128.load(b3 + o);
        s03 = f32x4.add(s03, f32x4.mul(x0, y)); s13 = f32x4.add(s13, f32x4.mul(x1, y));
      }
      const rows = min(2, m - i), cols = min(4, n - j);
      for (let r = 0; r < rows; r++) {
        const ar = r == 0 ? a0 : a1;
        for (let q = 0; q < cols; q++) {
          const s = r == 0 ? (q == 0 ? s00 : q == 1 ? s01 : q == 2 ? s02 : s03) : (q == 0 ? s10 : q == 1 ? s11 : q == 2 ? s12 : s13);
          const bq = q == 0 ? b0 : q == 1 ? b1 : q == 2 ? b2 : b3;
          let sum = (f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1)) + (f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3));
          for (let t = p; t < l; t++) sum += load<f32>(ar + <usize>t * 4) * load<f32>(bq + <usize>t * 4);
          store<f32>(c + <usize>((i + r) * n + j + q) * 4, sum);
        }
      }
    }
  }
}
