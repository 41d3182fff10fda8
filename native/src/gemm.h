// The GEMM driver: GotoBLAS/BLIS blocking (NC columns of B packed per KC-deep slice, MC rows of A
// packed per block, the micro-kernel over MR×NR tiles) and the split of one call over the pool:
// batches across threads, or one product split over M (threads share the packed B block), over N
// (small M), or over K (small M and N, long K: partial products summed at the end). Work is
// handed out dynamically, so a thread that is slow to wake (a busy machine) is never waited for.
//
// The operands are abstract "packers", so the same driver runs a strided matrix product and a
// convolution whose B operand is the im2col matrix of an image, packed straight from the image.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernels.h"
#include "pool.h"

namespace burn {

/** A thread's growable, 64-byte aligned scratch buffers (slot 0: packed A, 1: packed B, 2: shared B, 3: split-K partials, 4: convolution columns, 5: padded image). */
void* scratch(int slot, size_t bytes);

/**
 * One batched product as the driver sees it. `Op` provides:
 *   const T* pack_a(const Gemm<T>&, T* dst, int64_t batch, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const;
 *       // the packed rows: `dst` once filled, or a block of A packed ahead of the call (same layout)
 *   void pack_b(const Gemm<T>&, T* dst, int64_t batch, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const;
 *   T* c(int64_t batch) const;   // row stride ldc
 *   const T* rows(int64_t batch) const;  // each row's starting value (a bias; applied by the micro-kernel), or null for zero
 */
template <class T, class Op>
struct GemmJob {
  const Gemm<T>& g;
  const Op& op;
  int64_t m, n, k, ldc;
  bool accumulate;
};

inline int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/**
 * The whole product of one batch, or the sub-block [i0, i0+m) × [j0, j0+n) × [k0, k0+k), on this
 * thread; without `accumulate`, C starts from `rows` (the block's row values, or zero when null).
 */
template <class T, class Op>
void gemm_serial(const GemmJob<T, Op>& job, int64_t b, int64_t i0, int64_t m, int64_t j0, int64_t n, int64_t k0, int64_t k, T* c, bool accumulate, const T* rows) {
  const Gemm<T>& g = job.g;
  const int64_t ldc = job.ldc;
  T* abuf = static_cast<T*>(scratch(0, sizeof(T) * round_up(std::min(g.mc, m), g.mr) * std::min(g.kc, k)));
  T* bbuf = static_cast<T*>(scratch(1, sizeof(T) * round_up(std::min(g.nc, n), g.nr) * std::min(g.kc, k)));
  for (int64_t jc = 0; jc < n; jc += g.nc) {
    const int64_t nc = std::min(g.nc, n - jc);
    for (int64_t pc = 0; pc < k; pc += g.kc) {
      const int64_t kc = std::min(g.kc, k - pc);
      job.op.pack_b(g, bbuf, b, k0 + pc, kc, j0 + jc, nc);
      const bool acc = accumulate || pc > 0;
      const T* start = acc ? nullptr : rows;
      for (int64_t ic = 0; ic < m; ic += g.mc) {
        const int64_t mc = std::min(g.mc, m - ic);
        const T* ap = job.op.pack_a(g, abuf, b, i0 + ic, mc, k0 + pc, kc);
        for (int64_t jr = 0; jr < nc; jr += g.nr) {
          const int nr = static_cast<int>(std::min<int64_t>(g.nr, nc - jr));
          const T* bp = bbuf + jr * kc;
          for (int64_t ir = 0; ir < mc; ir += g.mr) {
            const int mr = static_cast<int>(std::min<int64_t>(g.mr, mc - ir));
            g.micro(kc, ap + ir * kc, bp, c + (ic + ir) * ldc + jc + jr, ldc, mr, nr, acc, start ? start + ic + ir : nullptr);
          }
        }
      }
    }
  }
}

/** Fraction of useful work when `count` items are split over `parts` threads in `tile` multiples. */
inline double split_efficiency(int64_t count, int parts, int64_t tile) {
  int64_t per = (count + parts - 1) / parts;
  int64_t padded = round_up(per, tile) * parts;
  return static_cast<double>(count) / static_cast<double>(std::max(padded, count));
}

/** Narrowest column range a split over N gives a thread while it can give each thread one (each range repacks A). */
constexpr int64_t kMinSplitColumns = 512;

/** Products below this many flops run on the calling thread only. */
constexpr double kGemmParallelFlops = 1.5e6;

/** The micro-kernel for `n` columns: the one-vector-wide one when the wide one would mostly compute padding. */
template <class T>
const Gemm<T>& pick_gemm(const Gemm<T>& g, int64_t n) {
  const Gemm<T>& narrow = narrow_of<T>(kernels());
  if (narrow.nr >= g.nr || g.micro != gemm_of<T>(kernels()).micro) return g;
  const double wide = static_cast<double>(round_up(n, g.nr));
  const double thin = 1.2 * static_cast<double>(round_up(n, narrow.nr));  // the narrow kernel is a little slower per flop
  return thin < wide ? narrow : g;
}

/** Runs a batched product on the pool (or inline when small). */
template <class T, class Op>
void gemm_run(const Gemm<T>& gwide, const Op& op, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t ldc, bool accumulate) {
  const Gemm<T>& g = pick_gemm(gwide, n);
  GemmJob<T, Op> job{g, op, m, n, k, ldc, accumulate};
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t b = 0; b < batch; b++) {
      if (accumulate) continue;
      T* c = op.c(b);
      const T* rows = op.rows(b);
      for (int64_t i = 0; i < m; i++) std::fill(c + i * ldc, c + i * ldc + n, rows ? rows[i] : T(0));
    }
    return;
  }
  const double flops = 2.0 * static_cast<double>(batch) * m * n * k;
  const int threads = pool_size();
  if (threads == 1 || flops < kGemmParallelFlops) {
    for (int64_t b = 0; b < batch; b++) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), accumulate, op.rows(b));
    return;
  }
  if (batch >= threads) {
    parallel_for(batch, 1, [&](int64_t b0, int64_t b1, int) {
      for (int64_t b = b0; b < b1; b++) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), accumulate, op.rows(b));
    });
    return;
  }
  const double effM = split_efficiency(m, threads, g.mr);
  const double effN = split_efficiency(n, threads, g.nr);
  // A long K against a small C (a linear layer's forward over a wide input): split K, so each
  // thread packs its own share of both operands once, with no synchronisation per K block.
  const bool longK = k >= 16 * std::max(m, n) && m * n <= 64 * 1024;
  const bool splitM = !longK && m >= g.mr * threads && effM >= effN;
  const bool splitN = !longK && !splitM && n >= g.nr * threads;
  if (splitM) {
    // Per KC×NC block of B: the threads pack its panels together, then take blocks of rows (each
    // packing its own rows of A). Both phases hand out work dynamically, so a thread that is slow
    // to wake is not waited for.
    T* bshared = static_cast<T*>(scratch(2, sizeof(T) * round_up(std::min(g.nc, n), g.nr) * std::min(g.kc, k)));
    const int64_t mblock = std::min(g.mc, round_up((m + 3 * threads - 1) / (3 * threads), g.mr));
    for (int64_t b = 0; b < batch; b++) {
      T* c = op.c(b);
      const T* rows = op.rows(b);
      for (int64_t jc = 0; jc < n; jc += g.nc) {
        const int64_t nc = std::min(g.nc, n - jc);
        const int64_t panels = (nc + g.nr - 1) / g.nr;
        for (int64_t pc = 0; pc < k; pc += g.kc) {
          const int64_t kc = std::min(g.kc, k - pc);
          parallel_for(panels, chunk_for(panels, 1, 1, 2), [&](int64_t p0, int64_t p1, int) {
            op.pack_b(g, bshared + p0 * g.nr * kc, b, pc, kc, jc + p0 * g.nr, std::min(nc, p1 * g.nr) - p0 * g.nr);
          });
          const bool acc = accumulate || pc > 0;
          const T* start = acc ? nullptr : rows;
          parallel_for(m, mblock, [&](int64_t r0, int64_t r1, int) {
            const int64_t mc = r1 - r0;
            T* abuf = static_cast<T*>(scratch(0, sizeof(T) * round_up(mc, g.mr) * kc));
            const T* ap = op.pack_a(g, abuf, b, r0, mc, pc, kc);
            for (int64_t jr = 0; jr < nc; jr += g.nr) {
              const int nr = static_cast<int>(std::min<int64_t>(g.nr, nc - jr));
              for (int64_t ir = 0; ir < mc; ir += g.mr) {
                const int mr = static_cast<int>(std::min<int64_t>(g.mr, mc - ir));
                g.micro(kc, ap + ir * kc, bshared + jr * kc, c + (r0 + ir) * ldc + jc + jr, ldc, mr, nr, acc, start ? start + r0 + ir : nullptr);
              }
            }
          });
        }
      }
    }
    return;
  }
  if (splitN) {
    // Column ranges claimed dynamically, two per thread when they stay wide. Each range packs its
    // own copy of A, one move per element of A against one multiply-add per element per column:
    // at 256³, four 64-column ranges ran 15-25% slower than one 128-column range per thread, and
    // at 1024³ four 256-column ranges 3-5% slower than two of 512.
    int64_t cols = round_up((n + 2 * threads - 1) / (2 * threads), g.nr);
    if (cols < kMinSplitColumns) cols = round_up((n + threads - 1) / threads, g.nr);
    for (int64_t b = 0; b < batch; b++) {
      T* c = op.c(b);
      const T* rows = op.rows(b);
      parallel_for(n, cols, [&](int64_t c0, int64_t c1, int) {
        gemm_serial(job, b, 0, m, c0, c1 - c0, 0, k, c + c0, accumulate, rows);
      });
    }
    return;
  }
  // Small M and N, long K: partial products over K ranges, then their sum.
  const int64_t kchunk = round_up(std::max<int64_t>(256, (k + 2 * threads - 1) / (2 * threads)), 16);
  const int64_t kparts = (k + kchunk - 1) / kchunk;
  if (kparts < 2) {
    for (int64_t b = 0; b < batch; b++) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), accumulate, op.rows(b));
    return;
  }
  T* partials = static_cast<T*>(scratch(3, sizeof(T) * kparts * m * n));
  for (int64_t b = 0; b < batch; b++) {
    T* c = op.c(b);
    const T* rows = op.rows(b);
    GemmJob<T, Op> part{g, op, m, n, k, n, false};
    parallel_for(k, kchunk, [&](int64_t k0, int64_t k1, int) {
      gemm_serial(part, b, 0, m, 0, n, k0, k1 - k0, partials + (k0 / kchunk) * m * n, false, static_cast<const T*>(nullptr));
    });
    parallel_for(m, chunk_for(m, 1, 1), [&](int64_t r0, int64_t r1, int) {
      for (int64_t i = r0; i < r1; i++) {
        T* row = c + i * ldc;
        const T* p0 = partials + i * n;
        if (accumulate) {
          for (int64_t j = 0; j < n; j++) row[j] += p0[j];
        } else {
          const T start = rows ? rows[i] : T(0);
          for (int64_t j = 0; j < n; j++) row[j] = start + p0[j];
        }
        for (int64_t t = 1; t < kparts; t++) {
          const T* p = partials + t * m * n + i * n;
          for (int64_t j = 0; j < n; j++) row[j] += p[j];
        }
      }
    }, m * n < 16384);
  }
}

/** A strided operand pair: batch `b` reads A at `a + aoff[b]` and B at `b + boff[b]`. */
template <class T>
struct StridedOp {
  const T* a;
  const double* aoff;
  int64_t ars, acs;
  const T* bm;
  const double* boff;
  int64_t brs, bcs;
  T* cbase;
  int64_t cstride;
  const T* pack_a(const Gemm<T>& g, T* dst, int64_t b, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const {
    g.pack_a(dst, a + static_cast<int64_t>(aoff[b]) + i0 * ars + k0 * acs, ars, acs, mc, kc);
    return dst;
  }
  void pack_b(const Gemm<T>& g, T* dst, int64_t b, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const {
    g.pack_b(dst, bm + static_cast<int64_t>(boff[b]) + k0 * brs + j0 * bcs, brs, bcs, kc, nc);
  }
  T* c(int64_t b) const { return cbase + b * cstride; }
  const T* rows(int64_t) const { return nullptr; }
};

}  // namespace burn
