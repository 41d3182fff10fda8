import type { Geometry3 } from '../../../core/geometry.js';
import { gemm } from './matmul.js';

/**
 * Direct im2col / col2im convolutions for contiguous `[N, C, ...spatial]` arrays with 1 to 3
 * spatial dims (lower ranks are handled as 3-d with leading size-1 dims). One pass builds the
 * column matrix of a sample and group, one GEMM per (sample, group) does the arithmetic — far
 * fewer passes over memory than the generic slice-and-concatenate default.
 */

type Arr = Float32Array | Float64Array;

/** cols[(c·kvol + k), l] = x[c, l·stride + k·dilation − padding] (0 outside) for channels `c0..c0+cs`. */
function im2col(x: Arr, xOff: number, c0: number, cs: number, g: Geometry3, cols: Arr): void {
  const [d, h, w] = g.in,
    [od, oh, ow] = g.out,
    [kd, kh, kw] = g.kernel;
  const [sd, sh, sw] = g.stride,
    [pd, ph, pw] = g.padding,
    [dd, dh, dw] = g.dilation;
  const plane = d * h * w,
    l = od * oh * ow;
  let row = 0;
  for (let c = 0; c < cs; c++) {
    const base = xOff + (c0 + c) * plane;
    for (let a = 0; a < kd; a++)
      for (let b = 0; b < kh; b++)
        for (let e = 0; e < kw; e++, row++) {
          let o = row * l;
          for (let z = 0; z < od; z++) {
            const iz = z * sd + a * dd - pd;
            if (iz < 0 || iz >= d) {
              cols.fill(0, o, o + oh * ow);
              o += oh * ow;
              continue;
            }
            for (let y = 0; y < oh; y++) {
              const iy = y * sh + b * dh - ph;
              if (iy < 0 || iy >= h) {
                cols.fill(0, o, o + ow);
                o += ow;
                continue;
              }
              const rowBase = base + (iz * h + iy) * w;
              for (let xx = 0, ix = e * dw - pw; xx < ow; xx++, ix += sw)
                cols[o++] = ix >= 0 && ix < w ? x[rowBase + ix]! : 0;
            }
          }
        }
  }
}

/** The adjoint of {@link im2col}: out[c, l·stride + k·dilation − padding] += cols[(c·kvol + k), l]. */
function col2im(cols: Arr, out: Arr, outOff: number, c0: number, cs: number, g: Geometry3): void {
  // Here g.in is the (transposed) output's spatial size and g.out the columns' spatial size.
  const [d, h, w] = g.in,
    [od, oh, ow] = g.out,
    [kd, kh, kw] = g.kernel;
  const [sd, sh, sw] = g.stride,
    [pd, ph, pw] = g.padding,
    [dd, dh, dw] = g.dilation;
  const plane = d * h * w,
    l = od * oh * ow;
  let row = 0;
  for (let c = 0; c < cs; c++) {
    const base = outOff + (c0 + c) * plane;
    for (let a = 0; a < kd; a++)
      for (let b = 0; b < kh; b++)
        for (let e = 0; e < kw; e++, row++) {
          let o = row * l;
          for (let z = 0; z < od; z++) {
            const iz = z * sd + a * dd - pd;
            if (iz < 0 || iz >= d) {
              o += oh * ow;
              continue;
            }
            for (let y = 0; y < oh; y++) {
              const iy = y * sh + b * dh - ph;
              if (iy < 0 || iy >= h) {
                o += ow;
                continue;
              }
              const rowBase = base + (iz * h + iy) * w;
              for (let xx = 0, ix = e * dw - pw; xx < ow; xx++, ix += sw, o++)
                if (ix >= 0 && ix < w) out[rowBase + ix] = out[rowBase + ix]! + cols[o]!;
            }
          }
        }
  }
}

/** Forward convolution: `out[N, Cout, ...o] = conv(x[N, Cin, ...i], w[Cout, Cin/G, ...k]) + bias`. */
export function convForward(
  x: Arr,
  n: number,
  cIn: number,
  w: Arr,
  cOut: number,
  bias: Arr | undefined,
  groups: number,
  g: Geometry3,
  out: Arr,
): void {
  const cig = cIn / groups,
    cog = cOut / groups;
  const kvol = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const l = g.out[0] * g.out[1] * g.out[2];
  const ck = cig * kvol;
  const cols = new (x.constructor as new (n: number) => Arr)(ck * l);
  const plane = g.in[0] * g.in[1] * g.in[2];
  for (let s = 0; s < n; s++) {
    for (let gr = 0; gr < groups; gr++) {
      im2col(x, s * cIn * plane, gr * cig, cig, g, cols);
      gemm(cog, l, ck, w, gr * cog * ck, ck, 1, cols, 0, l, 1, out, (s * cOut + gr * cog) * l);
    }
    if (bias)
      for (let c = 0; c < cOut; c++) {
        const b = bias[c]!,
          o = (s * cOut + c) * l;
        for (let i = 0; i < l; i++) out[o + i] = out[o + i]! + b;
      }
  }
}

/**
 * Transposed convolution: `out[N, Cout, ...o]` from `x[N, Cin, ...i]` and `w[Cin, Cout/G, ...k]`:
 * columns = Wᵀ·x per (sample, group), scattered back with col2im. `g.in` is the output's spatial
 * size and `g.out` the input's (the roles of a forward conv, reversed).
 */
export function convTransposeForward(
  x: Arr,
  n: number,
  cIn: number,
  w: Arr,
  cOut: number,
  bias: Arr | undefined,
  groups: number,
  g: Geometry3,
  out: Arr,
): void {
  const cig = cIn / groups,
    cog = cOut / groups;
  const kvol = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const l = g.out[0] * g.out[1] * g.out[2];
  const plane = g.in[0] * g.in[1] * g.in[2];
  const ck = cog * kvol;
  const cols = new (x.constructor as new (n: number) => Arr)(ck * l);
  out.fill(0);
  for (let s = 0; s < n; s++) {
    for (let gr = 0; gr < groups; gr++) {
      // cols[(co, k), l] = Σ_ci w[ci, co, k] · x[ci, l]: Wᵀ is w viewed with swapped strides.
      gemm(ck, l, cig, w, gr * cig * ck, 1, ck, x, (s * cIn + gr * cig) * l, l, 1, cols, 0);
      col2im(cols, out, s * cOut * plane, gr * cog, cog, g);
    }
    if (bias)
      for (let c = 0; c < cOut; c++) {
        const b = bias[c]!,
          o = (s * cOut + c) * plane;
        for (let i = 0; i < plane; i++) out[o + i] = out[o + i]! + b;
      }
  }
}

/** im2col of a whole batch: `[N, C·kvol, L]` (PyTorch's unfold layout). */
export function unfoldForward(x: Arr, n: number, c: number, g: Geometry3, out: Arr): void {
  const kvol = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const l = g.out[0] * g.out[1] * g.out[2];
  const plane = g.in[0] * g.in[1] * g.in[2];
  for (let s = 0; s < n; s++) im2col(x, s * c * plane, 0, c, g, out.subarray(s * c * kvol * l, (s + 1) * c * kvol * l));
}
