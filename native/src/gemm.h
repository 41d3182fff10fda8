// The GEMM driver: GotoBLAS/BLIS blocking (NC columns of B packed per KC-deep slice, MC rows of A
// packed per block, the micro-kernel over MR×NR tiles) and the split of one call over the pool:
// batches across threads, or one product split over M (threads share the packed B block), over N
// (small M), or over K (small M and N, long K: partial products summed at the end).
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

/** A thread's growable, 64-byte aligned scratch buffers (slot 0: packed A, 1: packed B, 2: shared B, 3: split-K partials, 4: convolution columns). */
void* scratch(int slot, size_t bytes);

/**
 * One batched product as the driver sees it. `Op` provides:
 *   void pack_a(const Gemm<T>&, T* dst, int64_t batch, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const;
 *   void pack_b(const Gemm<T>&, T* dst, int64_t batch, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const;
 *   T* c(int64_t batch) const;   // row stride ldc
 *   bool init(int64_t batch) const;  // prepares C of a batch before its product; true: accumulate onto it
 */
template <class T, class Op>
struct GemmJob {
  const Gemm<T>& g;
  const Op& op;
  int64_t m, n, k, ldc;
  bool accumulate;
};

inline int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/** The whole product of one batch, or the sub-block [i0, i0+m) × [j0, j0+n) × [k0, k0+k), on this thread. */
template <class T, class Op>
void gemm_serial(const GemmJob<T, Op>& job, int64_t b, int64_t i0, int64_t m, int64_t j0, int64_t n, int64_t k0, int64_t k, T* c, bool accumulate) {
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
      for (int64_t ic = 0; ic < m; ic += g.mc) {
        const int64_t mc = std::min(g.mc, m - ic);
        job.op.pack_a(g, abuf, b, i0 + ic, mc, k0 + pc, kc);
        for (int64_t jr = 0; jr < nc; jr += g.nr) {
          const int nr = static_cast<int>(std::min<int64_t>(g.nr, nc - jr));
          const T* bp = bbuf + jr * kc;
          for (int64_t ir = 0; ir < mc; ir += g.mr) {
            const int mr = static_cast<int>(std::min<int64_t>(g.mr, mc - ir));
            g.micro(kc, abuf + ir * kc, bp, c + (ic + ir) * ldc + jc + jr, ldc, mr, nr, acc);
          }
        }
      }
    }
  }
}

/** One batch split over M: the threads pack each B block together, then each computes its rows. */
template <class T, class Op>
void gemm_team_m(const GemmJob<T, Op>& job, int64_t b, int tid, int nt, T* bshared, Barrier& barrier, bool accumulate) {
  const Gemm<T>& g = job.g;
  int64_t r0, r1;
  split_range(job.m, tid, nt, g.mr, &r0, &r1);
  T* c = job.op.c(b);
  const int64_t ldc = job.ldc;
  const int64_t m = r1 - r0;
  T* abuf = static_cast<T*>(scratch(0, sizeof(T) * round_up(std::max<int64_t>(1, std::min(g.mc, m)), g.mr) * std::min(g.kc, job.k)));
  for (int64_t jc = 0; jc < job.n; jc += g.nc) {
    const int64_t nc = std::min(g.nc, job.n - jc);
    for (int64_t pc = 0; pc < job.k; pc += g.kc) {
      const int64_t kc = std::min(g.kc, job.k - pc);
      int64_t p0, p1;
      split_range((nc + g.nr - 1) / g.nr, tid, nt, 1, &p0, &p1);
      if (p1 > p0) job.op.pack_b(g, bshared + p0 * g.nr * kc, b, pc, kc, jc + p0 * g.nr, std::min(nc, p1 * g.nr) - p0 * g.nr);
      barrier.wait();
      const bool acc = accumulate || pc > 0;
      for (int64_t ic = 0; ic < m; ic += g.mc) {
        const int64_t mc = std::min(g.mc, m - ic);
        job.op.pack_a(g, abuf, b, r0 + ic, mc, pc, kc);
        for (int64_t jr = 0; jr < nc; jr += g.nr) {
          const int nr = static_cast<int>(std::min<int64_t>(g.nr, nc - jr));
          for (int64_t ir = 0; ir < mc; ir += g.mr) {
            const int mr = static_cast<int>(std::min<int64_t>(g.mr, mc - ir));
            g.micro(kc, abuf + ir * kc, bshared + jr * kc, c + (r0 + ic + ir) * ldc + jc + jr, ldc, mr, nr, acc);
          }
        }
      }
      barrier.wait();
    }
  }
}

/** Fraction of useful work when `count` items are split over `parts` threads in `tile` multiples. */
inline double split_efficiency(int64_t count, int parts, int64_t tile) {
  int64_t per = (count + parts - 1) / parts;
  int64_t padded = round_up(per, tile) * parts;
  return static_cast<double>(count) / static_cast<double>(std::max(padded, count));
}

/** Products below this many flops run on the calling thread only. */
constexpr double kGemmParallelFlops = 1.5e6;

/** Runs a batched product on the pool (or inline when small). */
template <class T, class Op>
void gemm_run(const Gemm<T>& g, const Op& op, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t ldc, bool accumulate) {
  GemmJob<T, Op> job{g, op, m, n, k, ldc, accumulate};
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t b = 0; b < batch; b++) {
      if (op.init(b) || accumulate) continue;
      T* c = op.c(b);
      for (int64_t i = 0; i < m; i++) std::memset(c + i * ldc, 0, sizeof(T) * n);
    }
    return;
  }
  const double flops = 2.0 * static_cast<double>(batch) * m * n * k;
  const int threads = pool_size();
  if (threads == 1 || flops < kGemmParallelFlops) {
    for (int64_t b = 0; b < batch; b++) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), op.init(b) || accumulate);
    return;
  }
  if (batch >= threads) {
    std::atomic<int64_t> next{0};
    parallel([&](int, int) {
      for (int64_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < batch;) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), op.init(b) || accumulate);
    });
    return;
  }
  const double effM = split_efficiency(m, threads, g.mr);
  const double effN = split_efficiency(n, threads, g.nr);
  const bool splitM = m >= 2 * g.mr * threads / 2 && effM >= effN;
  const bool splitN = !splitM && n >= g.nr * threads;
  if (splitM) {
    T* bshared = static_cast<T*>(scratch(2, sizeof(T) * round_up(std::min(g.nc, n), g.nr) * std::min(g.kc, k)));
    for (int64_t b = 0; b < batch; b++) {
      Barrier barrier(threads);
      const bool acc = op.init(b) || accumulate;
      bool ok = true;
      parallel([&](int tid, int nt) {
        if (nt != threads) {  // the pool was busy: run the whole batch here
          ok = false;
          return;
        }
        gemm_team_m(job, b, tid, nt, bshared, barrier, acc);
      });
      if (!ok) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), acc);
    }
    return;
  }
  if (splitN) {
    for (int64_t b = 0; b < batch; b++) {
      T* c = op.c(b);
      const bool acc = op.init(b) || accumulate;
      parallel([&](int tid, int nt) {
        int64_t c0, c1;
        split_range(n, tid, nt, g.nr, &c0, &c1);
        if (c1 > c0) gemm_serial(job, b, 0, m, c0, c1 - c0, 0, k, c + c0, acc);
      });
    }
    return;
  }
  // Small M and N: split K, each thread into its own partial product, then sum the partials.
  const int64_t kparts = std::min<int64_t>(threads, (k + 63) / 64);
  if (kparts < 2) {
    for (int64_t b = 0; b < batch; b++) gemm_serial(job, b, 0, m, 0, n, 0, k, op.c(b), op.init(b) || accumulate);
    return;
  }
  T* partials = static_cast<T*>(scratch(3, sizeof(T) * (threads - 1) * m * n));
  for (int64_t b = 0; b < batch; b++) {
    T* c = op.c(b);
    const bool acc = op.init(b) || accumulate;
    Barrier barrier(threads);
    bool ok = true;
    parallel([&](int tid, int nt) {
      if (nt != threads) {
        ok = false;
        return;
      }
      int64_t k0, k1;
      split_range(k, tid, nt, 16, &k0, &k1);
      GemmJob<T, Op> part{g, op, m, n, k, tid == 0 ? ldc : n, false};
      if (tid == 0) {
        if (k1 > k0) gemm_serial(part, b, 0, m, 0, n, k0, k1 - k0, c, acc);
        else if (!acc) for (int64_t i = 0; i < m; i++) std::memset(c + i * ldc, 0, sizeof(T) * n);
      } else {
        T* mine = partials + (tid - 1) * m * n;
        if (k1 > k0) gemm_serial(part, b, 0, m, 0, n, k0, k1 - k0, mine, false);
        else std::memset(mine, 0, sizeof(T) * m * n);
      }
      barrier.wait();
      int64_t r0, r1;
      split_range(m, tid, nt, 1, &r0, &r1);
      for (int64_t i = r0; i < r1; i++) {
        T* row = c + i * ldc;
        for (int t = 1; t < nt; t++) {
          const T* p = partials + (t - 1) * m * n + i * n;
          for (int64_t j = 0; j < n; j++) row[j] += p[j];
        }
      }
    });
    if (!ok) gemm_serial(job, b, 0, m, 0, n, 0, k, c, acc);
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
  void pack_a(const Gemm<T>& g, T* dst, int64_t b, int64_t i0, int64_t mc, int64_t k0, int64_t kc) const {
    g.pack_a(dst, a + static_cast<int64_t>(aoff[b]) + i0 * ars + k0 * acs, ars, acs, mc, kc);
  }
  void pack_b(const Gemm<T>& g, T* dst, int64_t b, int64_t k0, int64_t kc, int64_t j0, int64_t nc) const {
    g.pack_b(dst, bm + static_cast<int64_t>(boff[b]) + k0 * brs + j0 * bcs, brs, bcs, kc, nc);
  }
  T* c(int64_t b) const { return cbase + b * cstride; }
  bool init(int64_t) const { return false; }
};

}  // namespace burn
