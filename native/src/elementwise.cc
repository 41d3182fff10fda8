#include "elementwise.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels.h"
#include "pool.h"

namespace burn {
namespace {

/** Elements below which a memory-bound op stays on one thread. */
constexpr int64_t kCheapSerial = 1 << 15;
/** Elements below which a transcendental op stays on one thread. */
constexpr int64_t kCostlySerial = 1 << 11;

bool costly_unary(int op) {
  return !(op == kNeg || op == kAbs || op == kSign || op == kRecip || op == kSqrt || op == kFloor || op == kCeil ||
           op == kTrunc || op == kRound);
}

bool costly_binary(int op) { return !(op == kAdd || op == kSub || op == kMul || op == kDiv || op == kMax || op == kMin); }

/** Runs `f(begin, end)` over [0, n) split into cache-line aligned parts, serially when `serial`. */
template <class F>
void split(int64_t n, bool serial, F&& f) {
  if (serial) {
    f(int64_t{0}, n);
    return;
  }
  parallel([&](int tid, int nt) {
    int64_t b, e;
    split_range(n, tid, nt, 16, &b, &e);
    if (e > b) f(b, e);
  });
}

/** Calls `f(outer index, offsets)` for every innermost run of an odometer over dims [0, rank-1). */
template <class F>
void for_runs(int rank, const int64_t* shape, int64_t begin, int64_t end, int nops, const int64_t* const* strides, F&& f) {
  // Position of `begin` in the outer dims.
  int64_t idx[kMaxRank] = {0};
  int64_t off[3] = {0, 0, 0};
  int64_t rem = begin;
  for (int d = rank - 2; d >= 0; d--) {
    idx[d] = rem % shape[d];
    rem /= shape[d];
    for (int o = 0; o < nops; o++) off[o] += idx[d] * strides[o][d];
  }
  for (int64_t r = begin; r < end; r++) {
    f(r, off);
    for (int d = rank - 2; d >= 0; d--) {
      for (int o = 0; o < nops; o++) off[o] += strides[o][d];
      if (++idx[d] < shape[d]) break;
      for (int o = 0; o < nops; o++) off[o] -= strides[o][d] * shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

template <class T>
void ew_binary(int op, T* out, const T* a, const T* b, int64_t n) {
  const auto& k = ew_of<T>(kernels());
  split(n, n < (costly_binary(op) ? kCostlySerial : kCheapSerial), [&](int64_t s, int64_t e) { k.binary(op, out + s, a + s, b + s, e - s); });
}

template <class T>
void ew_binary_scalar(int op, T* out, const T* a, double v, int64_t n) {
  const auto& k = ew_of<T>(kernels());
  split(n, n < (costly_binary(op) ? kCostlySerial : kCheapSerial), [&](int64_t s, int64_t e) { k.binary_scalar(op, out + s, a + s, v, e - s); });
}

template <class T>
void ew_unary(int op, T* out, const T* a, int64_t n) {
  const auto& k = ew_of<T>(kernels());
  split(n, n < (costly_unary(op) ? kCostlySerial : kCheapSerial), [&](int64_t s, int64_t e) { k.unary(op, out + s, a + s, e - s); });
}

template <class T>
void ew_reduce_rows(int op, T* out, const T* a, int64_t rows, int64_t len) {
  const auto& k = ew_of<T>(kernels());
  const int64_t total = rows * len;
  const int threads = total < kCheapSerial ? 1 : pool_size();
  if (rows >= threads || threads == 1) {
    split(rows, threads == 1, [&](int64_t s, int64_t e) {
      for (int64_t r = s; r < e; r++) out[r] = static_cast<T>(k.reduce(op, a + r * len, len));
    });
    return;
  }
  // Few long rows: each row split over the threads, partial results combined.
  std::vector<double> parts(static_cast<size_t>(threads));
  for (int64_t r = 0; r < rows; r++) {
    const T* row = a + r * len;
    int used = 0;
    parallel([&](int tid, int nt) {
      if (tid == 0) used = nt;
      int64_t s, e;
      split_range(len, tid, nt, 16, &s, &e);
      parts[tid] = e > s ? k.reduce(op, row + s, e - s) : (op == kSum ? 0.0 : op == kProd ? 1.0 : NAN);
    });
    double acc = parts[0];
    for (int t = 1; t < used; t++) {
      const double v = parts[t];
      switch (op) {
        case kSum: acc += v; break;
        case kProd: acc *= v; break;
        case kRMax: if (acc == acc && (v != v || v > acc)) acc = v; break;
        default: if (acc == acc && (v != v || v < acc)) acc = v; break;
      }
    }
    out[r] = static_cast<T>(acc);
  }
}

template <class T>
void ew_softmax_rows(T* out, const T* a, int64_t rows, int64_t len, bool log) {
  const auto& k = ew_of<T>(kernels());
  split(rows, rows * len < kCostlySerial * 4 || rows == 1, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; r++) k.softmax(out + r * len, a + r * len, len, log);
  });
}

template <class T>
void ew_binary_strided(int op, T* out, int rank, const int64_t* shape, const T* a, const int64_t* as, const T* b, const int64_t* bs) {
  const auto& k = ew_of<T>(kernels());
  const int64_t inner = shape[rank - 1];
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; d++) outer *= shape[d];
  const int64_t ai = as[rank - 1], bi = bs[rank - 1];
  const int64_t* strides[2] = {as, bs};
  const bool serial = outer * inner < (costly_binary(op) ? kCostlySerial : kCheapSerial) || outer == 1;
  split(outer, serial, [&](int64_t s, int64_t e) {
    std::vector<T> tmp;
    for_runs(rank, shape, s, e, 2, strides, [&](int64_t r, const int64_t* off) {
      T* o = out + r * inner;
      const T* pa = a + off[0];
      const T* pb = b + off[1];
      if (ai == 1 && bi == 1) {
        k.binary(op, o, pa, pb, inner);
      } else if (ai == 1 && bi == 0) {
        k.binary_scalar(op, o, pa, static_cast<double>(*pb), inner);
      } else if (ai == 0 && bi == 1 && (op == kAdd || op == kMul || op == kMax || op == kMin)) {
        k.binary_scalar(op, o, pb, static_cast<double>(*pa), inner);  // commutative
      } else {
        if (tmp.size() < static_cast<size_t>(2 * inner)) tmp.resize(static_cast<size_t>(2 * inner));
        T* ta = tmp.data();
        T* tb = ta + inner;
        for (int64_t j = 0; j < inner; j++) ta[j] = pa[j * ai];
        for (int64_t j = 0; j < inner; j++) tb[j] = pb[j * bi];
        k.binary(op, o, ta, tb, inner);
      }
    });
  });
}

template <class T>
void copy_strided(int rank, const int64_t* shape, T* dst, const int64_t* ds, const T* src, const int64_t* ss) {
  const int64_t inner = shape[rank - 1];
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; d++) outer *= shape[d];
  const int64_t di = ds[rank - 1], si = ss[rank - 1];
  const int64_t* strides[2] = {ds, ss};
  // A transpose-like copy (rank 2, strided source rows) goes through cache-sized tiles.
  if (rank == 2 && di == 1 && si != 1 && ss[0] == 1) {
    const int64_t rows = shape[0], cols = shape[1], tile = 32;
    split((rows + tile - 1) / tile, rows * cols < kCheapSerial, [&](int64_t s, int64_t e) {
      for (int64_t tr = s * tile; tr < std::min(rows, e * tile); tr += tile) {
        const int64_t r1 = std::min(rows, tr + tile);
        for (int64_t tc = 0; tc < cols; tc += tile) {
          const int64_t c1 = std::min(cols, tc + tile);
          for (int64_t r = tr; r < r1; r++) {
            T* d = dst + r * ds[0];
            const T* p = src + r;
            for (int64_t c = tc; c < c1; c++) d[c] = p[c * si];
          }
        }
      }
    });
    return;
  }
  split(outer, outer * inner < kCheapSerial || outer == 1, [&](int64_t s, int64_t e) {
    for_runs(rank, shape, s, e, 2, strides, [&](int64_t, const int64_t* off) {
      T* d = dst + off[0];
      const T* p = src + off[1];
      if (di == 1 && si == 1) {
        std::memcpy(d, p, sizeof(T) * inner);
      } else if (si == 0) {
        if (di == 1) std::fill_n(d, inner, *p);
        else for (int64_t j = 0; j < inner; j++) d[j * di] = *p;
      } else {
        for (int64_t j = 0; j < inner; j++) d[j * di] = p[j * si];
      }
    });
  });
}

double copy_bandwidth(int64_t n, int reps) {
  float* a = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n));
  float* b = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n));
  std::memset(a, 1, sizeof(float) * n);
  std::memset(b, 0, sizeof(float) * n);
  double best = 0;
  for (int r = 0; r < reps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    split(n, false, [&](int64_t s, int64_t e) { std::memcpy(b + s, a + s, sizeof(float) * (e - s)); });
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * sizeof(float) * n / t);
  }
  std::free(a);
  std::free(b);
  return best;
}

#define BURN_INSTANTIATE(T)                                                                                  \
  template void ew_binary<T>(int, T*, const T*, const T*, int64_t);                                          \
  template void ew_binary_scalar<T>(int, T*, const T*, double, int64_t);                                     \
  template void ew_unary<T>(int, T*, const T*, int64_t);                                                     \
  template void ew_reduce_rows<T>(int, T*, const T*, int64_t, int64_t);                                      \
  template void ew_softmax_rows<T>(T*, const T*, int64_t, int64_t, bool);                                    \
  template void ew_binary_strided<T>(int, T*, int, const int64_t*, const T*, const int64_t*, const T*, const int64_t*); \
  template void copy_strided<T>(int, const int64_t*, T*, const int64_t*, const T*, const int64_t*);
BURN_INSTANTIATE(float)
BURN_INSTANTIATE(double)

}  // namespace burn
