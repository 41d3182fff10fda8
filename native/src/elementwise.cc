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
/**
 * Output bytes from which contiguous elementwise ops write with non-temporal stores: far beyond
 * the per-core caches, where the result will not be read again from cache anyway.
 */
constexpr int64_t kStreamBytes = 8 << 20;

bool costly_unary(int op) {
  return !(op == kNeg || op == kAbs || op == kSign || op == kRecip || op == kSqrt || op == kFloor || op == kCeil ||
           op == kTrunc || op == kRound);
}

bool costly_binary(int op) { return !(op == kAdd || op == kSub || op == kMul || op == kDiv || op == kMax || op == kMin || op == kReluGrad); }

/** Runs `f(begin, end)` over [0, n) in dynamically claimed, cache-line aligned chunks; serially when `serial`. */
template <class F>
void split(int64_t n, bool serial, F&& f, int64_t align = 1) {
  parallel_for(n, serial ? n : chunk_for(n, 1, align), [&](int64_t b, int64_t e, int) { f(b, e); }, serial);
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
  const bool stream = n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  const auto& k = ew_of<T>(kernels());
  split(n, n < (costly_binary(op) ? kCostlySerial : kCheapSerial), [&](int64_t s, int64_t e) { k.binary(op, out + s, a + s, b + s, e - s, stream); }, 16);
}

template <class T>
void ew_random(const double* h, T* out, int64_t n) {
  const auto& k = ew_of<T>(kernels());
  // Chunks start at multiples of 64: whole Philox blocks.
  split(n, n < kCostlySerial, [&](int64_t s, int64_t e) { k.random(h, out + s, s, e - s); }, 64);
}

template <class T>
void ew_adam(const double* h, T* po, T* mo, T* vo, const T* p, const T* g, const T* m, const T* v, int64_t n) {
  const auto& k = ew_of<T>(kernels());
  split(n, n < kCheapSerial, [&](int64_t s, int64_t e) { k.adam(h, po + s, mo + s, vo + s, p + s, g + s, m + s, v + s, e - s); }, 16);
}

template <class T>
void ew_binary_scalar(int op, T* out, const T* a, double v, int64_t n) {
  const bool stream = n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  const auto& k = ew_of<T>(kernels());
  split(n, n < (costly_binary(op) ? kCostlySerial : kCheapSerial), [&](int64_t s, int64_t e) { k.binary_scalar(op, out + s, a + s, v, e - s, stream); }, 16);
}

template <class T>
void ew_unary(int op, T* out, const T* a, int64_t n) {
  const bool stream = n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  const auto& k = ew_of<T>(kernels());
  split(n, n < (costly_unary(op) ? kCostlySerial : kCheapSerial), [&](int64_t s, int64_t e) { k.unary(op, out + s, a + s, e - s, stream); }, 16);
}

template <class T>
void ew_clamp(T* out, const T* a, int64_t n, T lo, T hi) {
  const bool stream = n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  const auto& k = ew_of<T>(kernels());
  split(n, n < kCheapSerial, [&](int64_t s, int64_t e) { k.clamp(out + s, a + s, e - s, lo, hi, stream); }, 16);
}

template <class T>
void ew_gelu(T* out, const T* a, int64_t n) {
  const bool stream = n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  const auto& k = ew_of<T>(kernels());
  split(n, n < kCostlySerial, [&](int64_t s, int64_t e) { k.gelu(out + s, a + s, e - s, stream); }, 16);
}

template <class T>
void ew_layer_norm(T* out, const T* a, const T* gamma, const T* beta, int64_t rows, int64_t len, double eps) {
  const auto& k = ew_of<T>(kernels());
  split(rows, rows * len < kCostlySerial, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; r++) k.layer_norm(out + r * len, a + r * len, gamma, beta, len, eps);
  });
}

template <class T>
void ew_reduce_rows(int op, T* out, const T* a, int64_t rows, int64_t len) {
  const auto& k = ew_of<T>(kernels());
  const int64_t total = rows * len;
  const int threads = total < kCheapSerial ? 1 : pool_size();
  if (rows >= 4 * threads || threads == 1) {
    split(rows, threads == 1, [&](int64_t s, int64_t e) {
      for (int64_t r = s; r < e; r++) out[r] = static_cast<T>(k.reduce(op, a + r * len, len));
    });
    return;
  }
  // Few long rows: each row split over the threads, partial results combined.
  const int64_t chunk = chunk_for(len, 4096, 16);
  const int64_t nparts = (len + chunk - 1) / chunk;
  std::vector<double> parts(static_cast<size_t>(nparts));
  for (int64_t r = 0; r < rows; r++) {
    const T* row = a + r * len;
    parallel_for(len, chunk, [&](int64_t s, int64_t e, int) { parts[s / chunk] = k.reduce(op, row + s, e - s); });
    double acc = parts[0];
    for (int64_t t = 1; t < nparts; t++) {
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
  if (rank == 1 && ai == 1 && bi == 0) {
    ew_binary_scalar<T>(op, out, a, static_cast<double>(*b), inner);
    return;
  }
  const bool serial = outer * inner < (costly_binary(op) ? kCostlySerial : kCheapSerial) || outer == 1;
  split(outer, serial, [&](int64_t s, int64_t e) {
    std::vector<T> tmp;
    for_runs(rank, shape, s, e, 2, strides, [&](int64_t r, const int64_t* off) {
      T* o = out + r * inner;
      const T* pa = a + off[0];
      const T* pb = b + off[1];
      if (ai == 1 && bi == 1) {
        k.binary(op, o, pa, pb, inner, false);
      } else if (ai == 1 && bi == 0) {
        k.binary_scalar(op, o, pa, static_cast<double>(*pb), inner, false);
      } else if (ai == 0 && bi == 1 && (op == kAdd || op == kMul || op == kMax || op == kMin)) {
        k.binary_scalar(op, o, pb, static_cast<double>(*pa), inner, false);  // commutative
      } else {
        if (tmp.size() < static_cast<size_t>(2 * inner)) tmp.resize(static_cast<size_t>(2 * inner));
        T* ta = tmp.data();
        T* tb = ta + inner;
        for (int64_t j = 0; j < inner; j++) ta[j] = pa[j * ai];
        for (int64_t j = 0; j < inner; j++) tb[j] = pb[j * bi];
        k.binary(op, o, ta, tb, inner, false);
      }
    });
  });
}

template <class T>
void ew_compare_scalar(int op, uint8_t* out, const T* a, double s, int64_t n) {
  const auto& k = ew_of<T>(kernels());
  split(n, n < kCheapSerial, [&](int64_t b, int64_t e) { k.compare_scalar(op, out + b, a + b, s, e - b); }, 64);
}

template <class T>
void ew_where_strided(T* out, int rank, const int64_t* shape, const uint8_t* c, const int64_t* cs, const T* a, const int64_t* as, const T* b, const int64_t* bs) {
  const auto& k = ew_of<T>(kernels());
  const int64_t inner = shape[rank - 1];
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; d++) outer *= shape[d];
  const int64_t ci = cs[rank - 1], ai = as[rank - 1], bi = bs[rank - 1];
  const int64_t* strides[3] = {cs, as, bs};
  if (rank == 1 && ci == 1 && (ai == 0 || ai == 1) && (bi == 0 || bi == 1)) {
    split(inner, inner < kCheapSerial, [&](int64_t s, int64_t e) { k.select(out + s, c + s, a + s * ai, ai, b + s * bi, bi, e - s); }, 16);
    return;
  }
  split(outer, outer * inner < kCheapSerial || outer == 1, [&](int64_t s, int64_t e) {
    for_runs(rank, shape, s, e, 3, strides, [&](int64_t r, const int64_t* off) {
      T* o = out + r * inner;
      const uint8_t* pc = c + off[0];
      const T* pa = a + off[1];
      const T* pb = b + off[2];
      if (ci == 1 && (ai == 0 || ai == 1) && (bi == 0 || bi == 1)) {
        k.select(o, pc, pa, ai, pb, bi, inner);
      } else {
        for (int64_t j = 0; j < inner; j++) o[j] = pc[j * ci] ? pa[j * ai] : pb[j * bi];
      }
    });
  });
}

namespace {

inline double reduce_identity(int op) {
  switch (op) {
    case kSum: return 0.0;
    case kProd: return 1.0;
    case kRMax: return -INFINITY;
    default: return INFINITY;
  }
}

inline double reduce_combine(int op, double acc, double v) {
  switch (op) {
    case kSum: return acc + v;
    case kProd: return acc * v;
    case kRMax: return acc == acc && (v > acc || v != v) ? v : acc;
    default: return acc == acc && (v < acc || v != v) ? v : acc;
  }
}

}  // namespace

template <class T>
void ew_reduce_strided(int op, T* out, int64_t outN, int rank, const int64_t* shape, const T* a, const int64_t* as, const int64_t* os) {
  const auto& k = ew_of<T>(kernels());
  const int64_t inner = shape[rank - 1];
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; d++) outer *= shape[d];
  const int64_t ai = as[rank - 1], oi = os[rank - 1];
  const int64_t* strides[2] = {as, os};
  const double identity = reduce_identity(op);
  const int threads = outer * inner < kCheapSerial || outer == 1 || outN * 8 > outer * inner ? 1 : pool_size();
  std::vector<double> accs(static_cast<size_t>(threads * outN), identity);
  parallel_for(outer, threads == 1 ? outer : chunk_for(outer, 1, 1), [&](int64_t s, int64_t e, int tid) {
    double* acc = accs.data() + tid * outN;
    std::vector<T> tmp;
    for_runs(rank, shape, s, e, 2, strides, [&](int64_t, const int64_t* off) {
      const T* p = a + off[0];
      double* o = acc + off[1];
      if (oi == 0) {
        double v;
        if (ai == 1) {
          v = k.reduce(op, p, inner);
        } else {
          if (tmp.size() < static_cast<size_t>(inner)) tmp.resize(static_cast<size_t>(inner));
          for (int64_t j = 0; j < inner; j++) tmp[j] = p[j * ai];
          v = k.reduce(op, tmp.data(), inner);
        }
        *o = reduce_combine(op, *o, v);
      } else if (op == kSum) {
        for (int64_t j = 0; j < inner; j++) o[j * oi] += static_cast<double>(p[j * ai]);
      } else {
        for (int64_t j = 0; j < inner; j++) o[j * oi] = reduce_combine(op, o[j * oi], static_cast<double>(p[j * ai]));
      }
    });
  }, threads == 1);
  for (int64_t i = 0; i < outN; i++) {
    double v = accs[i];
    for (int t = 1; t < threads; t++) v = reduce_combine(op, v, accs[t * outN + i]);
    out[i] = static_cast<T>(v);
  }
}

template <class T>
void copy_strided(int rank, const int64_t* shape, T* dst, const int64_t* ds, const T* src, const int64_t* ss) {
  const int64_t inner = shape[rank - 1];
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; d++) outer *= shape[d];
  const int64_t di = ds[rank - 1], si = ss[rank - 1];
  const int64_t* strides[2] = {ds, ss};
  // A transpose-like copy (the source's unit-stride dim `u` is not the innermost one): tiles of
  // dims (u, innermost), so both the reads and the writes stay within cache lines.
  int u = -1;
  if (di == 1 && si != 1) {
    for (int d = rank - 2; d >= 0; d--) {
      if (ss[d] == 1) {
        u = d;
        break;
      }
    }
  }
  if (u >= 0) {
    // The other dims form an odometer of blocks; each block is a [shape[u], inner] transpose,
    // split into bands of rows for the threads.
    int64_t oshape[kMaxRank], odst[kMaxRank], osrc[kMaxRank];
    int orank = 0;
    for (int d = 0; d < rank - 1; d++) {
      if (d == u) continue;
      oshape[orank] = shape[d];
      odst[orank] = ds[d];
      osrc[orank] = ss[d];
      orank++;
    }
    oshape[orank] = 1;  // a unit innermost dim for the odometer helper
    odst[orank] = 0;
    osrc[orank] = 0;
    orank++;
    int64_t blocks = 1;
    for (int d = 0; d < orank - 1; d++) blocks *= oshape[d];
    const int64_t rows = shape[u], cols = inner, dr = ds[u];
    const int64_t* ostrides[2] = {odst, osrc};
    const int64_t band = 64;
    const int64_t bands = (rows + band - 1) / band;
    const auto& k = ew_of<T>(kernels());
    split(blocks * bands, blocks * rows * cols < kCheapSerial, [&](int64_t s0, int64_t e0) {
      for (int64_t item = s0; item < e0; item++) {
        const int64_t block = item / bands, r0 = (item % bands) * band;
        const int64_t nrows = std::min(band, rows - r0);
        for_runs(orank, oshape, block, block + 1, 2, ostrides, [&](int64_t, const int64_t* off) {
          k.transpose(dst + off[0] + r0 * dr, dr, src + off[1] + r0, si, nrows, cols);
        });
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
    split(n, false, [&](int64_t s, int64_t e) { std::memcpy(b + s, a + s, sizeof(float) * (e - s)); }, 16);
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
  template void ew_random<T>(const double*, T*, int64_t);                                                    \
  template void ew_adam<T>(const double*, T*, T*, T*, const T*, const T*, const T*, const T*, int64_t);      \
  template void ew_unary<T>(int, T*, const T*, int64_t);                                                     \
  template void ew_clamp<T>(T*, const T*, int64_t, T, T);                                                      \
  template void ew_gelu<T>(T*, const T*, int64_t);                                                             \
  template void ew_layer_norm<T>(T*, const T*, const T*, const T*, int64_t, int64_t, double);                   \
  template void ew_reduce_rows<T>(int, T*, const T*, int64_t, int64_t);                                      \
  template void ew_softmax_rows<T>(T*, const T*, int64_t, int64_t, bool);                                    \
  template void ew_binary_strided<T>(int, T*, int, const int64_t*, const T*, const int64_t*, const T*, const int64_t*); \
  template void copy_strided<T>(int, const int64_t*, T*, const int64_t*, const T*, const int64_t*);                \
  template void ew_compare_scalar<T>(int, uint8_t*, const T*, double, int64_t);                               \
  template void ew_where_strided<T>(T*, int, const int64_t*, const uint8_t*, const int64_t*, const T*, const int64_t*, const T*, const int64_t*); \
  template void ew_reduce_strided<T>(int, T*, int64_t, int, const int64_t*, const T*, const int64_t*, const int64_t*);
BURN_INSTANTIATE(float)
BURN_INSTANTIATE(double)

}  // namespace burn
