// The per-ISA kernel table of the native CPU engine. Each instruction set (AVX-512F, AVX2+FMA,
// generic C) compiles the same templated kernels (kernels.inc) in its own translation unit with
// its own -m flags and exports one table; `kernels()` picks the table for this CPU at run time.
#pragma once

#include <cstdint>

#include "ops.h"

namespace burn {

/**
 * The geometry of an im2col matrix over a zero-padded image group: `channels` planes of `hp × wp`
 * (padding already applied), a `kh × kw` kernel with strides and dilations, `ow` output columns.
 * Row k = (c, ky, kx), column j = (oy, ox): value xp[c][oy·sh + ky·dh][ox·sw + kx·dw].
 */
struct Im2col {
  int64_t hp, wp, kh, kw, sh, sw, dh, dw, ow;
};

/**
 * The geometry of one plane of a depthwise convolution (one input channel, one filter): an
 * `h × w` image, a `kh × kw` kernel with strides, symmetric padding and dilations, `oh × ow` out.
 */
struct Plane2d {
  int64_t h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};

/**
 * The GEMM micro-kernel of one dtype: `C[mr×nr] (+)= Ã·B̃` over `kc`, where Ã is a packed
 * `[kc][MR]` panel and B̃ a packed `[kc][NR]` panel; C has row stride `ldc`. `accumulate` adds to
 * C instead of overwriting it; otherwise `rows` (when not null) gives each row's starting value
 * (a convolution's bias), so C = rows + Ã·B̃ is written once.
 */
template <class T>
struct Gemm {
  int mr;
  int nr;
  int64_t mc;
  int64_t kc;
  int64_t nc;
  void (*micro)(int64_t kc, const T* a, const T* b, T* c, int64_t ldc, int mr, int nr, bool accumulate, const T* rows);
  /** Packs `A[mc×kc]` (row stride rs, column stride cs) into MR-row panels, zero-padded. */
  void (*pack_a)(T* dst, const T* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc);
  /** Packs `B[kc×nc]` (row stride rs, column stride cs) into NR-column panels, zero-padded. */
  void (*pack_b)(T* dst, const T* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc);
  /** Packs rows [k0, k0+kc) × columns [j0, j0+nc) of an im2col matrix into NR-column panels. */
  void (*pack_im2col)(T* dst, const T* xp, const Im2col& g, int64_t k0, int64_t kc, int64_t j0, int64_t nc);
  /** A small product without packing: C[m×n] (row stride ldc) = A·B for strided A and B. */
  void (*small)(int64_t m, int64_t n, int64_t k, const T* a, int64_t ars, int64_t acs, const T* b, int64_t brs, int64_t bcs, T* c, int64_t ldc);
  /** `micro` with B unpacked: row k at `b[k] + j` (NR values readable there, even past column nr). */
  void (*micro_rows)(int64_t kc, const T* a, const T* const* b, int64_t j, T* c, int64_t ldc, int mr, int nr, bool accumulate, const T* rows);
};

/**
 * Dot-product tiles, for products whose operands both run contiguously along K (a convolution's
 * weight gradient: output-gradient rows against shifted image rows). `tile` adds, for i < m and
 * j < n, the lane-wise partial sums of Σ_seg a[seg·m + i][k]·b[seg·n + j][k] over k < len to the
 * `w` values at acc + (i·n + j)·w: the sums stay in registers across `segs` row sets (samples),
 * and the caller sums the lanes once at the end.
 */
template <class T>
struct Dot {
  int m;
  int n;
  int w;
  void (*tile)(int64_t len, int64_t segs, const T* const* a, const T* const* b, T* acc);
};

/** Contiguous elementwise kernels, reductions and softmax of one dtype. */
template <class T>
struct Elementwise {
  /** `out[i] = a[i] op b[i]`; `stream`: write `out` with non-temporal stores (outputs far larger than the caches). */
  void (*binary)(int op, T* out, const T* a, const T* b, int64_t n, bool stream);
  /** `out[i] = a[i] op s`, computed as JavaScript would from a double scalar. */
  void (*binary_scalar)(int op, T* out, const T* a, double s, int64_t n, bool stream);
  /** `out[i] = op(a[i])`. */
  void (*unary)(int op, T* out, const T* a, int64_t n, bool stream);
  /** The reduction of `n` contiguous values (sum/prod accumulate in double). */
  double (*reduce)(int op, const T* a, int64_t n);
  /** Softmax (or log-softmax) of one contiguous row. */
  void (*softmax)(T* out, const T* a, int64_t n, bool log);
  /** `out[i] = a[i] (op) s ? 1 : 0` (ops eq, ne, gt, ge, lt, le), compared as doubles. */
  void (*compare_scalar)(int op, uint8_t* out, const T* a, double s, int64_t n);
  /** `dst[r·ldd + c] = src[c·lds + r]` for r < rows, c < cols (a blocked transpose). */
  void (*transpose)(T* dst, int64_t ldd, const T* src, int64_t lds, int64_t rows, int64_t cols);
  /** `out[i] = c[i] ? a[i·as] : b[i·bs]` with as, bs ∈ {0, 1}. */
  void (*select)(T* out, const uint8_t* c, const T* a, int64_t as, const T* b, int64_t bs, int64_t n);
  /** Uniform-type random values of the shared Philox stream (see ew_random in elementwise.h); `first` % 4 == 0. */
  void (*random)(const double* h, T* out, int64_t first, int64_t n);
  /** One Adam step of `n` values (see ew_adam in elementwise.h). */
  void (*adam)(const double* h, T* po, T* mo, T* vo, const T* p, const T* g, const T* m, const T* v, int64_t n);
  /** `out[i] = min(max(a[i], lo), hi)` with JavaScript's max/min (NaN stays NaN), in one pass; `out` may be `a`. */
  void (*clamp)(T* out, const T* a, int64_t n, T lo, T hi, bool stream);
  /** The exact GELU `x · (1 + erf(x / √2)) / 2` in one pass (f32: the vectorized erf, within a few ulp). */
  void (*gelu)(T* out, const T* a, int64_t n, bool stream);
  /**
   * One plane of a depthwise convolution: out[oy][ox] = clamp(bias + Σ w[ky][kx]·x[oy·sh + ky·dh −
   * ph][ox·sw + kx·dw − pw], lo, hi) (zero outside the image). `scratch` holds at least
   * `depthwise_scratch(g)` values. False when the kernel is too large for it (kh·kw > 49).
   */
  bool (*depthwise)(const Plane2d& g, const T* x, const T* w, T bias, T* out, T lo, T hi, T* scratch);
  /** One plane of max pooling of an image without NaN (−∞ outside it), `scratch` as for depthwise; false when kh·kw > 49. */
  bool (*maxpool)(const Plane2d& g, const T* x, T* out, T* scratch);
  /** Layer normalization of one row of `len` values: (a − mean)/√(var + eps)·gamma (+ beta unless null). */
  void (*layer_norm)(T* out, const T* a, const T* gamma, const T* beta, int64_t len, double eps);
};

/** Values of scratch a depthwise plane needs: the padded image split by column phase (stride), with room for whole vectors. */
inline int64_t depthwise_scratch(const Plane2d& g) {
  const int64_t rows = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const int64_t width = (g.ow + 16) + ((g.kw - 1) * g.dw) / g.sw + 1;
  return g.sw * rows * width + 64;
}

/** Everything one instruction set provides. */
struct Kernels {
  const char* isa;
  Gemm<float> sgemm;
  Gemm<double> dgemm;
  /** Micro-kernels one vector wide (and taller), for products with few columns. */
  Gemm<float> sgemm_narrow;
  Gemm<double> dgemm_narrow;
  Dot<float> sdot;
  Dot<double> ddot;
  Elementwise<float> f32;
  Elementwise<double> f64;
};

const Kernels& kernels_generic();
#if defined(__x86_64__)
const Kernels& kernels_avx2();
const Kernels& kernels_avx512();
#endif

/** The best table for this CPU (BURN_NATIVE_ISA=generic|avx2|avx512 restricts it). */
const Kernels& kernels();

/** Selects the table by name (`generic`, `avx2`, `avx512`); false when this CPU lacks it. */
bool select_isa(const char* name);

/** Templated accessors so drivers can be written once for float and double. */
template <class T> const Gemm<T>& gemm_of(const Kernels& k);
template <> inline const Gemm<float>& gemm_of<float>(const Kernels& k) { return k.sgemm; }
template <> inline const Gemm<double>& gemm_of<double>(const Kernels& k) { return k.dgemm; }
template <class T> const Gemm<T>& narrow_of(const Kernels& k);
template <> inline const Gemm<float>& narrow_of<float>(const Kernels& k) { return k.sgemm_narrow; }
template <> inline const Gemm<double>& narrow_of<double>(const Kernels& k) { return k.dgemm_narrow; }
template <class T> const Dot<T>& dot_of(const Kernels& k);
template <> inline const Dot<float>& dot_of<float>(const Kernels& k) { return k.sdot; }
template <> inline const Dot<double>& dot_of<double>(const Kernels& k) { return k.ddot; }
template <class T> const Elementwise<T>& ew_of(const Kernels& k);
template <> inline const Elementwise<float>& ew_of<float>(const Kernels& k) { return k.f32; }
template <> inline const Elementwise<double>& ew_of<double>(const Kernels& k) { return k.f64; }

}  // namespace burn
