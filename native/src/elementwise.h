// Elementwise ops, row reductions, softmax and strided copies on the pool: the per-ISA kernels of
// kernels.inc run on contiguous ranges; these functions split the work over threads above a size
// threshold and walk strided (broadcast) operands as runs of their innermost dim.
#pragma once

#include <cstdint>

#include "ops.h"

namespace burn {

/** Largest rank of a strided operand (after the caller collapsed its dims). */
constexpr int kMaxRank = 8;

template <class T> void ew_binary(int op, T* out, const T* a, const T* b, int64_t n);
template <class T> void ew_binary_scalar(int op, T* out, const T* a, double s, int64_t n);
template <class T> void ew_unary(int op, T* out, const T* a, int64_t n);

/** out = min(max(a, lo), hi) with JavaScript's max/min, in one pass (a Clip or ReLU6). */
template <class T>
void ew_clamp(T* out, const T* a, int64_t n, T lo, T hi);

/** Layer normalization of `rows` rows of `len` values over the last dim (gamma, beta: `len` values; beta may be null). */
template <class T>
void ew_layer_norm(T* out, const T* a, const T* gamma, const T* beta, int64_t rows, int64_t len, double eps);

/** The exact GELU of `n` values in one pass. */
template <class T>
void ew_gelu(T* out, const T* a, int64_t n);
/** out[r] = reduce(a[r·len .. r·len + len)). */
template <class T> void ew_reduce_rows(int op, T* out, const T* a, int64_t rows, int64_t len);
template <class T> void ew_softmax_rows(T* out, const T* a, int64_t rows, int64_t len, bool log);

/** out (contiguous, `shape`) = a op b for strided (possibly broadcast, stride 0) a and b. */
template <class T>
void ew_binary_strided(int op, T* out, int rank, const int64_t* shape, const T* a, const int64_t* as, const T* b, const int64_t* bs);

/** out[i] = a[i] (op) s ? 1 : 0 (compared as doubles, as JavaScript does). */
template <class T> void ew_compare_scalar(int op, uint8_t* out, const T* a, double s, int64_t n);

/** out (contiguous, `shape`) = c ? a : b for strided (possibly broadcast) c, a and b. */
template <class T>
void ew_where_strided(T* out, int rank, const int64_t* shape, const uint8_t* c, const int64_t* cs, const T* a, const int64_t* as, const T* b, const int64_t* bs);

/**
 * Reduces the strided `a` over `shape` into `out` (`outN` values): element i goes to
 * `out[Σ idx_d · os_d]` (os_d = 0 on reduced dims). Sums and products accumulate in double;
 * max/min propagate NaN.
 */
template <class T>
void ew_reduce_strided(int op, T* out, int64_t outN, int rank, const int64_t* shape, const T* a, const int64_t* as, const int64_t* os);

/** dst[i] = src[i] over `shape` for strided dst and src. */
template <class T>
void copy_strided(int rank, const int64_t* shape, T* dst, const int64_t* ds, const T* src, const int64_t* ss);

/**
 * `n` values of a uniform-type draw of the shared Philox stream (src/backend/rng.ts), the same as
 * JavaScript's: h = [kind (0 default, 1 uniform, 2 bernoulli), low or prob, high, key0, key1, stream].
 */
template <class T>
void ew_random(const double* h, T* out, int64_t n);

/**
 * One Adam step over `n` values: m' = β₁m + (1−β₁)g, v' = β₂v + (1−β₂)g², p' = p − factor·m' / (√v' + ε),
 * rounded to T after each op as the op-by-op update; h = [β₁, 1−β₁, β₂, 1−β₂, factor, ε, first]
 * (first ≠ 0: zero moments, m and v are not read).
 */
template <class T>
void ew_adam(const double* h, T* po, T* mo, T* vo, const T* p, const T* g, const T* m, const T* v, int64_t n);

/** Bytes per second of a multi-threaded copy of `n` floats (best of `reps`), counting read + written bytes. */
double copy_bandwidth(int64_t n, int reps);

}  // namespace burn
