// The per-ISA kernel table of the native CPU engine. Each instruction set (AVX-512F, AVX2+FMA,
// generic C) compiles the same templated kernels (kernels.inc) in its own translation unit with
// its own -m flags and exports one table; `kernels()` picks the table for this CPU at run time.
#pragma once

#include <cstdint>

namespace burn {

/** Elementwise binary ops, in the order of src/backends/cpu/native.ts. */
enum BinaryOp : int { kAdd, kSub, kMul, kDiv, kRem, kFmod, kPow, kAtan2, kMax, kMin, kBinaryCount };

/** Elementwise unary ops, in the order of src/backends/cpu/native.ts. */
enum UnaryOp : int {
  kNeg, kAbs, kSign, kExp, kExpm1, kLog, kLog1p, kSqrt, kRecip, kSigmoid, kSin, kCos, kTan, kAsin, kAcos, kAtan,
  kSinh, kCosh, kTanh, kAsinh, kAcosh, kAtanh, kErf, kRound, kFloor, kCeil, kTrunc, kUnaryCount
};

/** Row reductions. */
enum ReduceOp : int { kSum, kProd, kRMax, kRMin, kReduceCount };

/**
 * The GEMM micro-kernel of one dtype: `C[mr×nr] (+)= Ã·B̃` over `kc`, where Ã is a packed
 * `[kc][MR]` panel and B̃ a packed `[kc][NR]` panel; C has row stride `ldc`. `accumulate` adds to
 * C instead of overwriting it.
 */
template <class T>
struct Gemm {
  int mr;
  int nr;
  int64_t mc;
  int64_t kc;
  int64_t nc;
  void (*micro)(int64_t kc, const T* a, const T* b, T* c, int64_t ldc, int mr, int nr, bool accumulate);
  /** Packs `A[mc×kc]` (row stride rs, column stride cs) into MR-row panels, zero-padded. */
  void (*pack_a)(T* dst, const T* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc);
  /** Packs `B[kc×nc]` (row stride rs, column stride cs) into NR-column panels, zero-padded. */
  void (*pack_b)(T* dst, const T* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc);
};

/** Contiguous elementwise kernels, reductions and softmax of one dtype. */
template <class T>
struct Elementwise {
  /** `out[i] = a[i] op b[i]`. */
  void (*binary)(int op, T* out, const T* a, const T* b, int64_t n);
  /** `out[i] = a[i] op s` (`reverse`: `s op a[i]`), computed as JavaScript would from a double scalar. */
  void (*binary_scalar)(int op, T* out, const T* a, double s, int64_t n);
  /** `out[i] = op(a[i])`. */
  void (*unary)(int op, T* out, const T* a, int64_t n);
  /** The reduction of `n` contiguous values (sum/prod accumulate in double). */
  double (*reduce)(int op, const T* a, int64_t n);
  /** Softmax (or log-softmax) of one contiguous row. */
  void (*softmax)(T* out, const T* a, int64_t n, bool log);
};

/** Everything one instruction set provides. */
struct Kernels {
  const char* isa;
  Gemm<float> sgemm;
  Gemm<double> dgemm;
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
template <class T> const Elementwise<T>& ew_of(const Kernels& k);
template <> inline const Elementwise<float>& ew_of<float>(const Kernels& k) { return k.f32; }
template <> inline const Elementwise<double>& ew_of<double>(const Kernels& k) { return k.f64; }

}  // namespace burn
