// The AVX2+FMA kernels (compiled with -mavx2 -mfma; only called when the CPU has them).
#include <immintrin.h>
#define BURN_ISA_NS avx2
#define BURN_ISA_NAME "avx2"
#define BURN_VBYTES 32
#define BURN_FMA(a, b, c) fma_(a, b, c)
#define BURN_SPLAT(s) splat_(s)
#define BURN_SGEMM_MR 6
#define BURN_SGEMM_NV 2
#define BURN_SGEMM_MC 96
#define BURN_SGEMM_KC 512
#define BURN_SGEMM_NC 4080
#define BURN_DGEMM_MR 6
#define BURN_DGEMM_NV 2
#define BURN_DGEMM_MC 72
#define BURN_DGEMM_KC 256
#define BURN_NARROW_MR 12
#define BURN_DOT_M 2
#define BURN_DOT_N 5
#define BURN_STREAM(p, v) _mm256_stream_si256(reinterpret_cast<__m256i*>(p), reinterpret_cast<__m256i>(v))
#define BURN_SFENCE() _mm_sfence()
#define BURN_DGEMM_NC 4080
namespace burn {
namespace avx2 {
typedef float vf_ __attribute__((vector_size(32)));
typedef double vd_ __attribute__((vector_size(32)));
static inline vf_ fma_(vf_ a, vf_ b, vf_ c) { return (vf_)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c); }
static inline vd_ fma_(vd_ a, vd_ b, vd_ c) { return (vd_)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c); }
static inline vf_ splat_(float s) { return (vf_)_mm256_set1_ps(s); }
static inline vd_ splat_(double s) { return (vd_)_mm256_set1_pd(s); }
}  // namespace avx2
}  // namespace burn
#include "kernels.inc"
namespace burn {
const Kernels& kernels_avx2() { return avx2::table; }
}  // namespace burn
