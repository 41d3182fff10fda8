#include "conv.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "gemm.h"

namespace burn {
namespace {

/** Keeps short copy loops as inline vector moves (GCC would turn them into memmove calls, whose call cost dominates a 28-float copy). */
#define BURN_INLINE_COPIES __attribute__((optimize("no-tree-loop-distribute-patterns")))

/** Copies `N` values (a compile-time count, so the compiler emits straight vector moves). */
template <int N, class T>
BURN_INLINE_COPIES inline void copy_fixed(T* __restrict d, const T* __restrict s) {
  for (int i = 0; i < N; i++) d[i] = s[i];
}

/** Copies one packed-panel row of `nr` values (the micro-kernel widths get fixed-size copies). */
template <class T>
BURN_INLINE_COPIES inline void copy_panel_row(T* __restrict d, const T* __restrict s, int64_t nr) {
  switch (nr) {
    case 64: copy_fixed<64>(d, s); return;
    case 32: copy_fixed<32>(d, s); return;
    case 16: copy_fixed<16>(d, s); return;
    case 8: copy_fixed<8>(d, s); return;
    case 4: copy_fixed<4>(d, s); return;
    default: for (int64_t i = 0; i < nr; i++) d[i] = s[i];
  }
}

/** Values in one shifted plane: the rows every output row reads (row stride 1) × the output columns. */
inline int64_t shifted_plane_size(const Conv2dShape& s) { return (s.oh + (s.kh - 1) * s.dh) * s.ow; }

/** Where im2col row k = (c, ky, kx) starts in shifted planes built from channel c0 on (see shifted_planes). */
template <class T>
inline const T* shifted_row(const Conv2dShape& s, const T* planes, int64_t c0, int64_t k) {
  const int64_t kvol = s.kh * s.kw, c = k / kvol, r = k % kvol, ky = r / s.kw, kx = r % s.kw;
  return planes + ((c - c0) * s.kw + kx) * shifted_plane_size(s) + ky * s.dh * s.ow;
}

/**
 * "Shifted planes" of channels [c0, c1) of an image group `xg` (convolutions with row stride 1):
 * per channel c and kernel column kx, the plane P[r][ox] = x[c][r − ph][ox·sw + kx·dw − pw] (zero
 * outside the image) over the rows every output row reads. The im2col row (c, ky, kx) is then P
 * of (c, kx) from row ky·dh on, contiguous over the output positions (oy, ox).
 */
template <class T>
BURN_INLINE_COPIES void shifted_planes(const Conv2dShape& s, const T* xg, int64_t c0, int64_t c1, T* planes) {
  const int64_t rows = s.oh + (s.kh - 1) * s.dh, plane = rows * s.ow;
  for (int64_t c = c0; c < c1; c++) {
    const T* img = xg + c * s.h * s.w;
    for (int64_t kx = 0; kx < s.kw; kx++) {
      T* pl = planes + ((c - c0) * s.kw + kx) * plane;
      // Output columns whose input column lies inside the image: 0 <= ox·sw + kx·dw − pw < w.
      const int64_t dx = kx * s.dw - s.pw;
      const int64_t lo = std::min(s.ow, dx >= 0 ? int64_t(0) : (-dx + s.sw - 1) / s.sw);
      const int64_t hi = std::max(lo, s.w - dx <= 0 ? int64_t(0) : std::min(s.ow, (s.w - dx + s.sw - 1) / s.sw));
      for (int64_t r = 0; r < rows; r++) {
        T* row = pl + r * s.ow;
        const int64_t iy = r - s.ph;
        if (iy < 0 || iy >= s.h) {
          for (int64_t ox = 0; ox < s.ow; ox++) row[ox] = T(0);
          continue;
        }
        const T* src = img + iy * s.w + dx;
        for (int64_t ox = 0; ox < lo; ox++) row[ox] = T(0);
        if (s.sw == 1) {
          for (int64_t ox = lo; ox < hi; ox++) row[ox] = src[ox];
        } else {
          for (int64_t ox = lo; ox < hi; ox++) row[ox] = src[ox * s.sw];
        }
        for (int64_t ox = hi; ox < s.ow; ox++) row[ox] = T(0);
      }
    }
  }
}

/** The forward convolution as a batched GEMM: batch (n, group), A = the group's weights, B = im2col. */
template <class T>
struct ConvOp {
  const Conv2dShape& s;
  const T* x;
  const T* w;
  const T* bias;
  T* out;
  int64_t cig, cog, ck, l;
  /** The weights packed ahead (conv_pack_weights' layout for `packedBy`), or null. */
  const T* packed;
  const Gemm<T>* packedBy;
  const T* pack_a(const Gemm<T>& g, T* dst, int64_t b, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const {
    const int64_t gr = b % s.groups;
    // A block of the packed weights when it is one: rows from a sliver edge, a whole K block.
    if (packed && packedBy->mr == g.mr && packedBy->kc == g.kc && i0 % g.mr == 0 && k0 % g.kc == 0 && kc == std::min(g.kc, ck - k0)) {
      return packed + (gr * ck + k0) * round_up(cog, g.mr) + i0 * kc;
    }
    g.pack_a(dst, w + (gr * cog + i0) * ck + k0, ck, 1, mc, kc);
    return dst;
  }
  void pack_b(const Gemm<T>& g, T* dst, int64_t b, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const {
    const int64_t n = b / s.groups, gr = b % s.groups;
    const T* xg = x + (n * s.cin + gr * cig) * s.h * s.w;
    const int64_t kvol = s.kh * s.kw;
    const int64_t c0 = k0 / kvol, c1 = (k0 + kc - 1) / kvol + 1;
    if (kvol == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 && s.pw == 0) {
      // A pointwise convolution: the im2col matrix is the image itself, [channels][positions].
      g.pack_b(dst, xg + k0 * s.h * s.w + j0, s.h * s.w, 1, kc, nc);
      return;
    }
    if (s.sh == 1) {
      pack_shifted(g, dst, xg, c0, c1, k0, kc, j0, nc);
      return;
    }
    Im2col geo{s.h, s.w, s.kh, s.kw, s.sh, s.sw, s.dh, s.dw, s.ow};
    if (s.ph == 0 && s.pw == 0 && (s.oh - 1) * s.sh + (s.kh - 1) * s.dh < s.h && (s.ow - 1) * s.sw + (s.kw - 1) * s.dw < s.w) {
      g.pack_im2col(dst, xg, geo, k0, kc, j0, nc);
      return;
    }
    // Zero-pad the channels this block reads (rows and columns the windows reach past the image too).
    const int64_t hp = std::max(s.h + 2 * s.ph, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
    const int64_t wp = std::max(s.w + 2 * s.pw, (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1);
    T* xp = static_cast<T*>(scratch(5, sizeof(T) * (c1 - c0) * hp * wp));
    for (int64_t c = c0; c < c1; c++) {
      T* pl = xp + (c - c0) * hp * wp;
      const T* src = xg + c * s.h * s.w;
      std::fill(pl, pl + s.ph * wp, T(0));
      for (int64_t y = 0; y < s.h; y++) {
        T* row = pl + (s.ph + y) * wp;
        std::fill(row, row + s.pw, T(0));
        std::copy(src + y * s.w, src + (y + 1) * s.w, row + s.pw);
        std::fill(row + s.pw + s.w, row + wp, T(0));
      }
      std::fill(pl + (s.ph + s.h) * wp, pl + hp * wp, T(0));
    }
    geo.hp = hp;
    geo.wp = wp;
    g.pack_im2col(dst, xp, geo, k0 - c0 * kvol, kc, j0, nc);
  }
  /**
   * The im2col block for a row stride of 1, from shifted planes: each packed panel row is one
   * fixed-size copy (instead of a short copy per output row), and the planes hold kw, not kh·kw,
   * copies of the image.
   */
  BURN_INLINE_COPIES void pack_shifted(const Gemm<T>& g, T* dst, const T* xg, int64_t c0, int64_t c1, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const {
    T* planes = static_cast<T*>(scratch(5, sizeof(T) * (c1 - c0) * s.kw * shifted_plane_size(s)));
    shifted_planes(s, xg, c0, c1, planes);
    const int64_t nr = g.nr;
    for (int64_t kk = 0; kk < kc; kk++) {
      const T* src = shifted_row(s, static_cast<const T*>(planes), c0, k0 + kk) + j0;
      T* d = dst + kk * nr;
      for (int64_t p0 = 0; p0 < nc; p0 += nr, d += kc * nr) {
        const int64_t len = std::min(nr, nc - p0);
        if (len == nr) {
          copy_panel_row(d, src + p0, nr);
        } else {
          for (int64_t t = 0; t < len; t++) d[t] = src[p0 + t];
          for (int64_t t = len; t < nr; t++) d[t] = T(0);
        }
      }
    }
  }
  T* c(int64_t b) const {
    const int64_t n = b / s.groups, gr = b % s.groups;
    return out + (n * s.cout + gr * cog) * l;
  }
  /** The bias of the group's output channels (added by the micro-kernel, so the output is written once). */
  const T* rows(int64_t b) const { return bias ? bias + (b % s.groups) * cog : nullptr; }
};

/** out[co, oy, ox] += cols[(co, ky, kx), y·W + x] where (oy, ox) = (y, x)·stride + (ky, kx)·dilation − padding. */
template <class T>
void col2im(const Conv2dShape& s, const T* cols, T* out, int64_t c0, int64_t c1) {
  const int64_t lin = s.h * s.w, lout = s.oh * s.ow;
  for (int64_t co = c0; co < c1; co++) {
    T* plane = out + co * lout;
    for (int64_t ky = 0; ky < s.kh; ky++) {
      for (int64_t kx = 0; kx < s.kw; kx++) {
        const T* src = cols + ((co * s.kh + ky) * s.kw + kx) * lin;
        // x range with 0 <= x·sw + kx·dw − pw < ow
        const int64_t off = kx * s.dw - s.pw;
        int64_t x0 = off >= 0 ? 0 : (-off + s.sw - 1) / s.sw;
        int64_t x1 = s.ow - off <= 0 ? 0 : std::min(s.w, (s.ow - off + s.sw - 1) / s.sw);
        if (x1 <= x0) continue;
        for (int64_t y = 0; y < s.h; y++) {
          const int64_t oy = y * s.sh + ky * s.dh - s.ph;
          if (oy < 0 || oy >= s.oh) continue;
          T* orow = plane + oy * s.ow + off;
          const T* irow = src + y * s.w;
          if (s.sw == 1) {
            for (int64_t x = x0; x < x1; x++) orow[x] += irow[x];
          } else {
            for (int64_t x = x0; x < x1; x++) orow[x * s.sw] += irow[x];
          }
        }
      }
    }
  }
}

/** Cols = Wᵀ·x for one (sample, group) of a transposed convolution: wg its weights [cig][rowlen], x its rows of `lin` values. */
template <class T>
struct ConvTOp {
  const T* wg;
  const T* x;
  T* cols;
  int64_t rowlen, lin;
  const T* pack_a(const Gemm<T>& g, T* dst, int64_t, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const {
    g.pack_a(dst, wg + i0 + k0 * rowlen, 1, rowlen, mc, kc);
    return dst;
  }
  void pack_b(const Gemm<T>& g, T* dst, int64_t, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const { g.pack_b(dst, x + k0 * lin + j0, lin, 1, kc, nc); }
  T* c(int64_t) const { return cols; }
  const T* rows(int64_t) const { return nullptr; }
};

/**
 * The products of a transposed convolution: for every (sample, group) b, cols = Wᵀ·x_b with x_b
 * the `lin` values per input channel that `input(b, buffer)` returns (in place, or prepared in a
 * per-thread buffer of `bufferLen` values), then `finish(b, cols, c0, c1)` for output channels
 * [c0, c1). Samples go to the threads when there are enough; otherwise one product at a time runs
 * over the pool, and so does its finish.
 */
template <class T, class Input, class Finish>
void transposed_products(const Conv2dShape& s, const T* w, int64_t lin, int64_t bufferLen, Input input, Finish finish) {
  const Gemm<T>& g = gemm_of<T>(kernels());
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups, kvol = s.kh * s.kw, m = cog * kvol, batch = s.n * s.groups;
  // Cols of b into `cols` (x_b prepared in `buffer`); `serial`: on this thread only.
  auto product = [&](int64_t b, T* cols, T* buffer, bool serial) {
    ConvTOp<T> op{w + (b % s.groups) * cig * m, input(b, buffer), cols, m, lin};
    if (cig == 0) {
      std::memset(cols, 0, sizeof(T) * m * lin);
    } else if (serial) {
      GemmJob<T, ConvTOp<T>> job{g, op, m, lin, cig, lin, false};
      gemm_serial(job, b, 0, m, 0, lin, 0, cig, cols, false, static_cast<const T*>(nullptr));
    } else {
      gemm_run(g, op, 1, m, lin, cig, lin, false);
    }
  };
  const int threads = pool_size();
  if (threads > 1 && batch >= threads && 2.0 * batch * m * lin * cig >= kGemmParallelFlops) {
    parallel_for(batch, 1, [&](int64_t b0, int64_t b1, int) {
      T* cols = static_cast<T*>(scratch(4, sizeof(T) * m * lin));
      T* buffer = static_cast<T*>(scratch(5, sizeof(T) * bufferLen));
      for (int64_t b = b0; b < b1; b++) {
        product(b, cols, buffer, true);
        finish(b, cols, int64_t(0), cog);
      }
    });
    return;
  }
  T* cols = static_cast<T*>(scratch(4, sizeof(T) * m * lin));
  T* buffer = static_cast<T*>(scratch(5, sizeof(T) * bufferLen));
  for (int64_t b = 0; b < batch; b++) {
    product(b, cols, buffer, false);
    parallel_for(cog, chunk_for(cog, 1, 1), [&](int64_t c0, int64_t c1, int) { finish(b, cols, c0, c1); }, cog * kvol * lin < 32768);
  }
}

/**
 * The weight gradient of a convolution as one GEMM per group, contracting over (sample, position):
 * dW[co, (ci, ky, kx)] = Σ_{n, l} g[n, co, l] · x[n, ci, oy·sh + ky·dh − ph, ox·sw + kx·dw − pw]
 * with l = (oy, ox). A is the output gradient read sample after sample; B, the transposed im2col
 * matrix, is packed straight from the image (zero outside it), so no column matrix is built.
 */
template <class T>
struct ConvWeightGradOp {
  const Conv2dShape& s;
  const T* x;
  const T* g;
  T* dw;
  int64_t cig, cog, kvol, l;
  const T* pack_a(const Gemm<T>& gm, T* dst, int64_t b, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const {
    const int64_t mr = gm.mr;
    const Elementwise<T>& ew = ew_of<T>(kernels());
    for (int64_t r0 = 0; r0 < mc; r0 += mr) {
      T* d = dst + r0 * kc;
      const int64_t rows = std::min(mr, mc - r0);
      int64_t n = k0 / l, pos = k0 % l;
      for (int64_t p = 0; p < kc;) {
        // The sliver's rows are contiguous along a sample's positions: one blocked transpose per sample.
        const int64_t run = std::min(kc - p, l - pos);
        ew.transpose(d + p * mr, mr, g + (n * s.cout + b * cog + i0 + r0) * l + pos, l, run, rows);
        if (rows < mr) {
          for (int64_t t = 0; t < run; t++) std::fill(d + (p + t) * mr + rows, d + (p + t + 1) * mr, T(0));
        }
        p += run;
        pos += run;
        if (pos == l) {
          pos = 0;
          n++;
        }
      }
    }
    return dst;
  }
  void pack_b(const Gemm<T>& gm, T* dst, int64_t b, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const {
    const int64_t nr = gm.nr, plane = s.h * s.w;
    // Per column of a panel (every micro-kernel has nr <= 64): its channel plane, kernel shift and
    // the output columns whose input column lies inside the image; per output row, where it reads.
    int64_t chan[128], dy[128], lo[128], hi[128];
    constexpr int64_t kStage = 64;
    alignas(64) T stage[128 * kStage];
    const Elementwise<T>& ew = ew_of<T>(kernels());
    for (int64_t c0 = 0; c0 < nc; c0 += nr) {
      T* d = dst + c0 * kc;
      const int64_t cols = std::min(nr, nc - c0);
      for (int64_t q = 0; q < cols; q++) {
        const int64_t j = j0 + c0 + q, ci = j / kvol, ky = (j / s.kw) % s.kh, kx = j % s.kw;
        const int64_t dx = kx * s.dw - s.pw;
        chan[q] = (b * cig + ci) * plane + dx;
        dy[q] = ky * s.dh - s.ph;
        // 0 <= ox·sw + dx < w
        lo[q] = dx >= 0 ? 0 : (-dx + s.sw - 1) / s.sw;
        hi[q] = s.w - dx <= 0 ? 0 : std::min(s.ow, (s.w - dx + s.sw - 1) / s.sw);
      }
      int64_t n = k0 / l, pos = k0 % l;
      // 64 positions at a time (across output rows and samples): each column's values are copied
      // into a row of `stage`, one output row's run at a time (zeros outside the image), then one
      // blocked transpose writes them interleaved into the panel.
      for (int64_t p = 0; p < kc;) {
        const int64_t len = std::min<int64_t>(kStage, kc - p);
        for (int64_t filled = 0; filled < len;) {
          const int64_t oy = pos / s.ow, ox0 = pos % s.ow;
          const int64_t run = std::min(len - filled, s.ow - ox0);
          const T* img = x + n * s.cin * plane;
          for (int64_t q = 0; q < nr; q++) {
            T* st = stage + q * kStage + filled;
            int64_t a = run, e = run;
            if (q < cols) {
              const int64_t iy = oy * s.sh + dy[q];
              const bool inside = iy >= 0 && iy < s.h;
              a = std::clamp(lo[q] - ox0, int64_t(0), run);
              e = inside ? std::clamp(hi[q] - ox0, a, run) : a;
              if (a < e) {
                const T* src = img + chan[q] + iy * s.w + ox0 * s.sw;
                if (s.sw == 1) std::copy(src + a, src + e, st + a);
                else for (int64_t t = a; t < e; t++) st[t] = src[t * s.sw];
              }
            }
            std::fill(st, st + a, T(0));
            std::fill(st + e, st + run, T(0));
          }
          filled += run;
          pos += run;
          if (pos == l) {
            pos = 0;
            n++;
          }
        }
        ew.transpose(d + p * nr, nr, stage, kStage, len, nr);
        p += len;
      }
    }
  }
  T* c(int64_t b) const { return dw + b * cog * cig * kvol; }
  const T* rows(int64_t) const { return nullptr; }
};

}  // namespace

/**
 * The weight gradient (row stride 1) as dot products along the output positions, without packing:
 * dW[co, (ci, ky, kx)] = Σ_n ⟨g[n, co, ·], P_{n, ci, kx}[ky·dh·ow + ·]⟩ with the shifted planes P
 * of each sample, built once per sample (kw copies of its image) instead of gathering the
 * transposed im2col matrix. Threads take chunks of samples, each chunk with lane-wise partial sums
 * per tile; lanes and chunks are summed at the end. False where the shape does not suit it (few positions,
 * or a sample's gradient, planes or partial sums too large for the caches).
 */
template <class T>
bool weight_grad_dot(const Conv2dShape& s, const T* x, const T* g, T* dw) {
  const Dot<T>& dot = dot_of<T>(kernels());
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups, kvol = s.kh * s.kw, l = s.oh * s.ow, cols = cig * kvol;
  const int64_t tm = (cog + dot.m - 1) / dot.m, tn = (cols + dot.n - 1) / dot.n, tile = int64_t(dot.m) * dot.n * dot.w;
  const int64_t plane = shifted_plane_size(s), per = s.groups * tm * tn * tile;
  if (s.sh != 1 || l < 4 * dot.w) return false;
  if (per > 32 * 1024 || sizeof(T) * cig * s.kw * plane > (512 << 10) || sizeof(T) * cog * l > (256 << 10)) return false;
  // Threads claim chunks of samples (at most 8, whatever the thread count); each chunk keeps its
  // own partial sums (summed in chunk order at the end, so the result depends neither on which
  // thread ran which chunk nor on the number of threads) and runs over its samples a few at a
  // time, so that their planes and gradients stay in L2 while every tile uses them.
  const int64_t chunk = (s.n + 7) / 8, chunks = (s.n + chunk - 1) / chunk;
  const int64_t sample = sizeof(T) * (cig * s.kw * plane + cog * l);
  const int64_t batch = std::max<int64_t>(1, std::min<int64_t>(chunk, (512 << 10) / sample));
  T* partial = static_cast<T*>(scratch(3, sizeof(T) * per * chunks));
  std::memset(partial, 0, sizeof(T) * per * chunks);
  parallel_for(s.n, chunk, [&](int64_t c0, int64_t c1, int) {
    T* acc = partial + (c0 / chunk) * per;
    const int64_t planeSet = cig * s.kw * plane;
    T* planes = static_cast<T*>(scratch(5, sizeof(T) * batch * planeSet));
    const T** a = static_cast<const T**>(scratch(4, sizeof(T*) * batch * (dot.m + dot.n)));
    const T** b = a + batch * dot.m;
    for (int64_t n0 = c0; n0 < c1; n0 += batch) {
      const int64_t n1 = std::min(c1, n0 + batch), segs = n1 - n0;
      for (int64_t gr = 0; gr < s.groups; gr++) {
        for (int64_t n = n0; n < n1; n++) shifted_planes(s, x + (n * s.cin + gr * cig) * s.h * s.w, int64_t(0), cig, planes + (n - n0) * planeSet);
        for (int64_t tj = 0; tj < tn; tj++) {
          // Columns past the last repeat it (their sums are never read); likewise rows below.
          for (int j = 0; j < dot.n; j++) {
            const T* at = shifted_row(s, static_cast<const T*>(planes), int64_t(0), std::min(tj * dot.n + j, cols - 1));
            for (int64_t seg = 0; seg < segs; seg++) b[seg * dot.n + j] = at + seg * planeSet;
          }
          for (int64_t ti = 0; ti < tm; ti++) {
            for (int i = 0; i < dot.m; i++) {
              const T* row = g + (n0 * s.cout + gr * cog + std::min(ti * dot.m + i, cog - 1)) * l;
              for (int64_t seg = 0; seg < segs; seg++) a[seg * dot.m + i] = row + seg * s.cout * l;
            }
            dot.tile(l, segs, a, b, acc + ((gr * tm + ti) * tn + tj) * tile);
          }
        }
      }
    }
  });
  for (int64_t gr = 0; gr < s.groups; gr++) {
    for (int64_t co = 0; co < cog; co++) {
      for (int64_t col = 0; col < cols; col++) {
        const int64_t ti = co / dot.m, i = co % dot.m, tj = col / dot.n, j = col % dot.n;
        const T* lanes = partial + ((gr * tm + ti) * tn + tj) * tile + (i * dot.n + j) * dot.w;
        T sum = T(0);
        for (int64_t c = 0; c < chunks; c++) {
          for (int lane = 0; lane < dot.w; lane++) sum += lanes[c * per + lane];
        }
        dw[(gr * cog + co) * cols + col] = sum;
      }
    }
  }
  return true;
}

template <class T>
void conv2d_weight_grad(const Conv2dShape& s, const T* x, const T* g, T* dw) {
  if (weight_grad_dot(s, x, g, dw)) return;
  const Gemm<T>& gm = gemm_of<T>(kernels());
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups, kvol = s.kh * s.kw, l = s.oh * s.ow;
  ConvWeightGradOp<T> op{s, x, g, dw, cig, cog, kvol, l};
  gemm_run(gm, op, s.groups, cog, cig * kvol, s.n * l, cig * kvol, false);
}

/** Whether conv2d takes the depthwise path (one filter per channel, kernels up to 7×7). */
inline bool is_depthwise(const Conv2dShape& s) {
  return s.groups != 1 && s.groups == s.cin && s.cout == s.cin && s.kh * s.kw <= 49;
}

/** The GEMM kernels of a forward convolution's product (both paths pick by the output positions). */
template <class T>
const Gemm<T>& conv_gemm(const Conv2dShape& s) {
  return pick_gemm(gemm_of<T>(kernels()), s.oh * s.ow);
}

/**
 * The weights of every group as `g`'s MR-row slivers per K block: group gr's block at K offset pc
 * starts at (gr·ck + pc)·round_up(cog, MR), the sliver of rows from i at i·kc in it (rows past
 * cog are zero). ConvOp reads its blocks in place; conv2d_rows reads them per sample.
 */
template <class T>
void pack_conv_rows(const Gemm<T>& g, const Conv2dShape& s, const T* w, T* dst) {
  const int64_t cog = s.cout / s.groups, ck = (s.cin / s.groups) * s.kh * s.kw, mpad = round_up(cog, g.mr);
  for (int64_t gr = 0; gr < s.groups; gr++) {
    for (int64_t pc = 0; pc < ck; pc += g.kc) g.pack_a(dst + (gr * ck + pc) * mpad, w + gr * cog * ck + pc, ck, 1, cog, std::min(g.kc, ck - pc));
  }
}

/**
 * The forward convolution with row stride 1 as an indirect GEMM: per sample the shifted planes are
 * built once and the micro-kernel reads each im2col row in place through a row pointer, instead of
 * a packed copy of the im2col block (which costs as much as the product when there are few output
 * channels); the weights are packed once for every sample. Threads take samples. False where it
 * does not apply (row stride ≠ 1, fewer samples than threads, planes beyond L2).
 */
template <class T>
bool conv2d_rows(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out, T lo, T hi, bool clamp, const T* packed, const T* residual) {
  const int threads = pool_size();
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups, kvol = s.kh * s.kw, ck = cig * kvol, l = s.oh * s.ow, batch = s.n * s.groups;
  const int64_t plane = shifted_plane_size(s), planeSet = cig * s.kw * plane;
  if (s.sh != 1 || batch < threads || ck == 0 || l == 0 || cog == 0 || sizeof(T) * planeSet > (1 << 20)) return false;
  const Gemm<T>& g = pick_gemm(gemm_of<T>(kernels()), l);
  // The weights of every group as MR-row slivers per K block, packed once (or ahead of the call).
  const int64_t mpad = round_up(cog, g.mr);
  const T* apack = packed;
  if (apack == nullptr) {
    T* fresh = static_cast<T*>(scratch(2, sizeof(T) * s.groups * mpad * ck));
    pack_conv_rows(g, s, w, fresh);
    apack = fresh;
  }
  parallel_for(batch, 1, [&](int64_t b0, int64_t b1, int) {
    // The planes, then NR readable values past their end (micro_rows reads whole panel rows).
    T* planes = static_cast<T*>(scratch(5, sizeof(T) * (planeSet + g.nr)));
    std::fill(planes + planeSet, planes + planeSet + g.nr, T(0));
    const T** rowsOf = static_cast<const T**>(scratch(4, sizeof(T*) * ck));
    for (int64_t k = 0; k < ck; k++) rowsOf[k] = shifted_row(s, static_cast<const T*>(planes), int64_t(0), k);
    for (int64_t b = b0; b < b1; b++) {
      const int64_t n = b / s.groups, gr = b % s.groups;
      shifted_planes(s, x + (n * s.cin + gr * cig) * s.h * s.w, int64_t(0), cig, planes);
      T* cb = out + (n * s.cout + gr * cog) * l;
      const T* start = bias ? bias + gr * cog : nullptr;
      for (int64_t pc = 0; pc < ck; pc += g.kc) {
        const int64_t kc = std::min(g.kc, ck - pc);
        const bool acc = pc > 0;
        const T* ab = apack + (gr * ck + pc) * mpad;
        for (int64_t jr = 0; jr < l; jr += g.nr) {
          const int nr = static_cast<int>(std::min<int64_t>(g.nr, l - jr));
          for (int64_t ir = 0; ir < cog; ir += g.mr) {
            const int mr = static_cast<int>(std::min<int64_t>(g.mr, cog - ir));
            g.micro_rows(kc, ab + ir * kc, rowsOf + pc, jr, cb + ir * l + jr, l, mr, nr, acc, acc || start == nullptr ? nullptr : start + ir);
          }
        }
      }
      // The residual and the activation while the sample's output is still in cache.
      if (residual) ew_of<T>(kernels()).binary(kAdd, cb, cb, residual + (cb - out), cog * l, false);
      if (clamp) ew_of<T>(kernels()).clamp(cb, cb, cog * l, lo, hi, false);
    }
  });
  return true;
}

/**
 * Depthwise convolution (one filter per channel: groups = input = output channels): plane by
 * plane with the vector kernel of the table, the bias and the activation in the same pass. The
 * im2col GEMM would multiply a 1 × kh·kw matrix per plane, mostly packing overhead.
 */
template <class T>
bool conv2d_depthwise(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out, T lo, T hi) {
  if (!is_depthwise(s)) return false;
  const Plane2d g{s.h, s.w, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.oh, s.ow};
  const Elementwise<T>& ew = ew_of<T>(kernels());
  const int64_t planes = s.n * s.cin, need = depthwise_scratch(g), kvol = s.kh * s.kw, in = s.h * s.w, l = s.oh * s.ow;
  const bool serial = planes * l * kvol < 32768;
  parallel_for(planes, chunk_for(planes, 1, 1), [&](int64_t p0, int64_t p1, int) {
    T* buf = static_cast<T*>(scratch(5, sizeof(T) * need));
    for (int64_t p = p0; p < p1; p++) {
      const int64_t c = p % s.cin;
      ew.depthwise(g, x + p * in, w + c * kvol, bias ? bias[c] : T(0), out + p * l, lo, hi, buf);
    }
  }, serial);
  return true;
}

template <class T>
int64_t conv2d_packed_length(const Conv2dShape& s) {
  if (is_depthwise(s) || s.groups <= 0) return 0;
  const Gemm<T>& g = conv_gemm<T>(s);
  return s.groups * round_up(s.cout / s.groups, g.mr) * (s.cin / s.groups) * s.kh * s.kw;
}

template <class T>
int64_t conv2d_packed_layout(const Conv2dShape& s) {
  if (conv2d_packed_length<T>(s) == 0) return 0;
  const Gemm<T>& g = conv_gemm<T>(s);
  return g.mr * 65536 + g.kc;
}

template <class T>
void conv2d_pack_weights(const Conv2dShape& s, const T* w, T* packed) {
  pack_conv_rows(conv_gemm<T>(s), s, w, packed);
}

template <class T>
void conv2d(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out, T lo, T hi, const T* packed, const T* residual) {
  const T inf = std::numeric_limits<T>::infinity();
  const bool clamp = !(lo == -inf && hi == inf);
  const int64_t total = s.n * s.cout * s.oh * s.ow;
  // One in-place pass over the output: the residual, then the activation (for the paths whose
  // blocks are not per sample).
  auto epilogue = [&]() {
    const Elementwise<T>& ew = ew_of<T>(kernels());
    parallel_for(total, chunk_for(total, 16384, 64), [&](int64_t a, int64_t b, int) {
      if (residual) ew.binary(kAdd, out + a, out + a, residual + a, b - a, false);
      if (clamp) ew.clamp(out + a, out + a, b - a, lo, hi, false);
    }, total < 65536);
  };
  // With a residual the activation follows the sum, so the depthwise pass runs without it.
  if (conv2d_depthwise(s, x, w, bias, out, residual ? -inf : lo, residual ? inf : hi)) {
    if (residual) epilogue();
    return;
  }
  if (conv2d_rows(s, x, w, bias, out, lo, hi, clamp, packed, residual)) return;
  const Gemm<T>& g = gemm_of<T>(kernels());
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups;
  const int64_t ck = cig * s.kh * s.kw, l = s.oh * s.ow;
  ConvOp<T> op{s, x, w, bias, out, cig, cog, ck, l, packed, packed ? &conv_gemm<T>(s) : nullptr};
  gemm_run(g, op, s.n * s.groups, cog, l, ck, l, false);
  if (clamp || residual) epilogue();
}

/**
 * A transposed convolution with stride 1 (the input gradient of a stride-1 convolution). Wᵀ·x is
 * computed over x's rows padded with zeros to the full output width wf = w + (kw − 1)·dw, so each
 * column row (co, ky, kx) adds to the full (uncropped) output plane as one contiguous run at
 * ky·dh·wf + kx·dw (the zeros after each row land harmlessly in the next), instead of one short
 * run per input row; the padding is then cropped off.
 */
template <class T>
void conv_transpose_flat(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out) {
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups;
  const int64_t wf = s.w + (s.kw - 1) * s.dw, hf = s.h + (s.kh - 1) * s.dh, lin = s.h * wf, full = hf * wf, lout = s.oh * s.ow;
  const bool crop = s.ph != 0 || s.pw != 0;
  const Elementwise<T>& ew = ew_of<T>(kernels());
  // The output planes of channels [c0, c1) of (sample, group) b from its columns (vector adds of the ISA's kernels).
  auto planes = [&](int64_t b, const T* cols, int64_t c0, int64_t c1) {
    const int64_t n = b / s.groups, gr = b % s.groups;
    T* region = out + (n * s.cout + gr * cog) * lout;
    T* tmp = crop ? static_cast<T*>(scratch(3, sizeof(T) * full)) : nullptr;
    for (int64_t co = c0; co < c1; co++) {
      const T start = bias ? bias[gr * cog + co] : T(0);
      T* dst = crop ? tmp : region + co * lout;
      std::fill(dst, dst + full, crop ? T(0) : start);
      for (int64_t ky = 0; ky < s.kh; ky++) {
        for (int64_t kx = 0; kx < s.kw; kx++) {
          const T* src = cols + ((co * s.kh + ky) * s.kw + kx) * lin;
          T* d = dst + ky * s.dh * wf + kx * s.dw;
          ew.binary(kAdd, d, d, src, lin - kx * s.dw, false);
        }
      }
      if (crop) {
        T* o = region + co * lout;
        for (int64_t oy = 0; oy < s.oh; oy++) {
          const T* row = tmp + (oy + s.ph) * wf + s.pw;
          for (int64_t ox = 0; ox < s.ow; ox++) o[oy * s.ow + ox] = row[ox] + start;
        }
      }
    }
  };
  // x of (sample, group) b with each row padded to wf.
  auto padded = [&](int64_t b, T* xpad) -> const T* {
    const int64_t n = b / s.groups, gr = b % s.groups;
    const T* xg = x + (n * s.cin + gr * cig) * s.h * s.w;
    for (int64_t r = 0; r < cig * s.h; r++) {
      std::copy(xg + r * s.w, xg + (r + 1) * s.w, xpad + r * wf);
      std::fill(xpad + r * wf + s.w, xpad + (r + 1) * wf, T(0));
    }
    return xpad;
  };
  transposed_products(s, w, lin, cig * lin, padded, planes);
}

template <class T>
void conv_transpose2d(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out) {
  // Stride 1 without output padding: the contiguous-run path.
  if (s.sh == 1 && s.sw == 1 && s.oh == s.h + (s.kh - 1) * s.dh - 2 * s.ph && s.ow == s.w + (s.kw - 1) * s.dw - 2 * s.pw && s.oh > 0 && s.ow > 0) {
    conv_transpose_flat(s, x, w, bias, out);
    return;
  }
  const int64_t cig = s.cin / s.groups, cog = s.cout / s.groups, lin = s.h * s.w, lout = s.oh * s.ow;
  auto inPlace = [&](int64_t b, T*) -> const T* { return x + ((b / s.groups) * s.cin + (b % s.groups) * cig) * lin; };
  // Channels [c0, c1) of b: the bias, then the columns added back to the image.
  auto image = [&](int64_t b, const T* cols, int64_t c0, int64_t c1) {
    const int64_t gr = b % s.groups;
    T* region = out + ((b / s.groups) * s.cout + gr * cog) * lout;
    for (int64_t co = c0; co < c1; co++) std::fill(region + co * lout, region + (co + 1) * lout, bias ? bias[gr * cog + co] : T(0));
    col2im(s, cols, region, c0, c1);
  };
  transposed_products(s, w, lin, int64_t(0), inPlace, image);
}

template <class T>
void unfold2d(const Conv2dShape& s, const T* x, T* out) {
  const int64_t kvol = s.kh * s.kw, l = s.oh * s.ow, plane = s.h * s.w;
  const int64_t rows = s.n * s.cin;
  parallel_for(rows, chunk_for(rows, 1, 1), [&](int64_t r0, int64_t r1, int) {
    for (int64_t r = r0; r < r1; r++) {
      const T* img = x + r * plane;
      T* dst = out + r * kvol * l;
      for (int64_t ky = 0; ky < s.kh; ky++) {
        for (int64_t kx = 0; kx < s.kw; kx++, dst += l) {
          T* d = dst;
          for (int64_t oy = 0; oy < s.oh; oy++, d += s.ow) {
            const int64_t iy = oy * s.sh + ky * s.dh - s.ph;
            if (iy < 0 || iy >= s.h) {
              std::memset(d, 0, sizeof(T) * s.ow);
              continue;
            }
            const T* row = img + iy * s.w;
            const int64_t ix0 = kx * s.dw - s.pw;
            if (s.sw == 1) {
              const int64_t t0 = std::min(s.ow, std::max<int64_t>(0, -ix0));
              const int64_t t1 = std::max(t0, std::min(s.ow, s.w - ix0));
              if (t0 > 0) std::memset(d, 0, sizeof(T) * t0);
              if (t1 > t0) std::memcpy(d + t0, row + ix0 + t0, sizeof(T) * (t1 - t0));
              if (s.ow > t1) std::memset(d + t1, 0, sizeof(T) * (s.ow - t1));
            } else {
              for (int64_t t = 0; t < s.ow; t++) {
                const int64_t ix = ix0 + t * s.sw;
                d[t] = ix >= 0 && ix < s.w ? row[ix] : T(0);
              }
            }
          }
        }
      }
    }
  }, rows * kvol * l < 32768);
}

/** Whether `n` values hold a NaN (a vectorizable pass, far cheaper than NaN checks in the window loop). */
template <class T>
bool has_nan(const T* v, int64_t n) {
  bool nan = false;
  for (int64_t i = 0; i < n; i++) nan |= v[i] != v[i];
  return nan;
}

/**
 * 2×2 windows with stride 2, every window inside the plane and no NaN: comparisons turned into
 * arithmetic (random data mispredicts every branch of the general loop); the first of equal
 * maxima wins, as there.
 */
template <class T>
void pool2x2(const T* img, int64_t w, int64_t oh, int64_t ow, T* out, int32_t* indices) {
  for (int64_t oy = 0; oy < oh; oy++) {
    const T* r0 = img + 2 * oy * w;
    const T* r1 = r0 + w;
    T* o = out + oy * ow;
    for (int64_t ox = 0; ox < ow; ox++) {
      const T a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], d = r1[2 * ox + 1];
      o[ox] = std::max(std::max(a, b), std::max(c, d));
    }
    if (indices == nullptr) continue;
    int32_t* ind = indices + oy * ow;
    const int32_t base = static_cast<int32_t>(2 * oy * w), down = static_cast<int32_t>(w);
    for (int64_t ox = 0; ox < ow; ox++) {
      const T a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], d = r1[2 * ox + 1];
      const int32_t first = static_cast<int32_t>(b > a), second = down + static_cast<int32_t>(d > c);
      const int32_t lower = static_cast<int32_t>(std::max(c, d) > std::max(a, b));
      ind[ox] = base + static_cast<int32_t>(2 * ox) + first + (second - first) * lower;
    }
  }
}

template <class T>
void max_pool_backward(int64_t planes, int64_t plane, int64_t l, const T* g, const int32_t* indices, T* dx) {
  parallel_for(planes, chunk_for(planes, 1, 1), [&](int64_t p0, int64_t p1, int) {
    for (int64_t p = p0; p < p1; p++) {
      T* d = dx + p * plane;
      const T* gp = g + p * l;
      const int32_t* ip = indices + p * l;
      std::fill(d, d + plane, T(0));
      for (int64_t o = 0; o < l; o++) {
        const int64_t at = ip[o];
        if (at >= 0 && at < plane) d[at] += gp[o];
      }
    }
  }, planes * l < 16384);
}

template <class T>
void max_pool2d(const Conv2dShape& s, const T* x, T* out, int32_t* indices) {
  const int64_t planes = s.n * s.cin, plane = s.h * s.w, l = s.oh * s.ow;
  const T ninf = -std::numeric_limits<T>::infinity();
  const bool inside = s.ph == 0 && s.pw == 0 && s.oh > 0 && s.ow > 0 && (s.oh - 1) * s.sh + (s.kh - 1) * s.dh < s.h &&
                      (s.ow - 1) * s.sw + (s.kw - 1) * s.dw < s.w && s.dh == 1 && s.dw == 1;
  const Plane2d g{s.h, s.w, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.oh, s.ow};
  const Elementwise<T>& ew = ew_of<T>(kernels());
  const int64_t need = depthwise_scratch(g);
  // Padding must leave every window at least one image value (as PyTorch and ONNX require), so −∞ never wins alone.
  const bool vector = s.kh * s.kw <= 49 && s.ph <= (s.kh - 1) * s.dh / 2 && s.pw <= (s.kw - 1) * s.dw / 2 && s.ow >= 4;
  parallel_for(planes, chunk_for(planes, 1, 1), [&](int64_t p0, int64_t p1, int) {
    for (int64_t p = p0; p < p1; p++) {
      const T* img = x + p * plane;
      T* o = out + p * l;
      int32_t* ind = indices ? indices + p * l : nullptr;
      if (!ind && vector && !has_nan(img, plane)) {
        // Values only, no NaN: whole vectors of windows over the plane padded with −∞.
        if (ew.maxpool(g, img, o, static_cast<T*>(scratch(5, sizeof(T) * need)))) continue;
      }
      if (inside && !has_nan(img, plane)) {
        // Every window lies in the image and holds no NaN (the usual case): plain comparisons,
        // no bounds checks, offsets relative to the window.
        const int64_t w = s.w, kh = s.kh, kw = s.kw, sh = s.sh, sw = s.sw, ow = s.ow;
        if (kh == 2 && kw == 2 && sh == 2 && sw == 2) {
          pool2x2(img, w, s.oh, ow, o, ind);
          continue;
        }
        for (int64_t oy = 0; oy < s.oh; oy++) {
          for (int64_t ox = 0; ox < ow; ox++) {
            const int64_t origin = oy * sh * w + ox * sw;
            const T* win = img + origin;
            T best = win[0];
            int64_t at = 0;
            for (int64_t ky = 0; ky < kh; ky++) {
              const T* row = win + ky * w;
              for (int64_t kx = 0; kx < kw; kx++) {
                if (row[kx] > best) {
                  best = row[kx];
                  at = ky * w + kx;
                }
              }
            }
            o[oy * ow + ox] = best;
            if (ind) ind[oy * ow + ox] = static_cast<int32_t>(origin + at);
          }
        }
        continue;
      }
      for (int64_t oy = 0; oy < s.oh; oy++) {
        for (int64_t ox = 0; ox < s.ow; ox++) {
          T best = ninf;
          int64_t at = 0;
          bool first = true, nan = false;
          for (int64_t ky = 0; ky < s.kh && !nan; ky++) {
            const int64_t iy = oy * s.sh + ky * s.dh - s.ph;
            const bool rowIn = iy >= 0 && iy < s.h;
            for (int64_t kx = 0; kx < s.kw; kx++) {
              const int64_t ix = ox * s.sw + kx * s.dw - s.pw;
              const T v = rowIn && ix >= 0 && ix < s.w ? img[iy * s.w + ix] : ninf;
              if (v != v) {
                best = v;
                at = iy * s.w + ix;
                nan = true;
                break;
              }
              if (first || v > best) {
                best = v;
                at = iy * s.w + ix;
                first = false;
              }
            }
          }
          o[oy * s.ow + ox] = best;
          if (ind) ind[oy * s.ow + ox] = static_cast<int32_t>(at);
        }
      }
    }
  }, planes * l * s.kh * s.kw < 32768);
}

template void conv2d<float>(const Conv2dShape&, const float*, const float*, const float*, float*, float, float, const float*, const float*);
template void conv2d<double>(const Conv2dShape&, const double*, const double*, const double*, double*, double, double, const double*, const double*);
template int64_t conv2d_packed_length<float>(const Conv2dShape&);
template int64_t conv2d_packed_length<double>(const Conv2dShape&);
template int64_t conv2d_packed_layout<float>(const Conv2dShape&);
template int64_t conv2d_packed_layout<double>(const Conv2dShape&);
template void conv2d_pack_weights<float>(const Conv2dShape&, const float*, float*);
template void conv2d_pack_weights<double>(const Conv2dShape&, const double*, double*);
template void conv_transpose2d<float>(const Conv2dShape&, const float*, const float*, const float*, float*);
template void conv_transpose2d<double>(const Conv2dShape&, const double*, const double*, const double*, double*);
template void unfold2d<float>(const Conv2dShape&, const float*, float*);
template void unfold2d<double>(const Conv2dShape&, const double*, double*);
template void conv2d_weight_grad<float>(const Conv2dShape&, const float*, const float*, float*);
template void conv2d_weight_grad<double>(const Conv2dShape&, const double*, const double*, double*);
template void max_pool2d<float>(const Conv2dShape&, const float*, float*, int32_t*);
template void max_pool_backward<float>(int64_t, int64_t, int64_t, const float*, const int32_t*, float*);
template void max_pool_backward<double>(int64_t, int64_t, int64_t, const double*, const int32_t*, double*);
template void max_pool2d<double>(const Conv2dShape&, const double*, double*, int32_t*);

}  // namespace burn
