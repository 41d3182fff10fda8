// The AVX-512F kernels (compiled with -mavx512f -mavx512dq -mfma; only called when the CPU has them).
#include <immintrin.h>
#define BURN_ISA_NS avx512
#define BURN_ISA_NAME "avx512"
#define BURN_VBYTES 64
#define BURN_FMA(a, b, c) fma_(a, b, c)
#define BURN_SPLAT(s) splat_(s)
#define BURN_SGEMM_MR 6
#define BURN_SGEMM_NV 4
#define BURN_SGEMM_MC 72
#define BURN_SGEMM_KC 512
#define BURN_SGEMM_NC 4096
#define BURN_DGEMM_MR 6
#define BURN_DGEMM_NV 4
#define BURN_DGEMM_MC 72
#define BURN_DGEMM_KC 256
#define BURN_DGEMM_NC 2048
namespace burn {
namespace avx512 {
typedef float vf_ __attribute__((vector_size(64)));
typedef double vd_ __attribute__((vector_size(64)));
static inline vf_ fma_(vf_ a, vf_ b, vf_ c) { return (vf_)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c); }
static inline vd_ fma_(vd_ a, vd_ b, vd_ c) { return (vd_)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c); }
static inline vf_ splat_(float s) { return (vf_)_mm512_set1_ps(s); }
static inline vd_ splat_(double s) { return (vd_)_mm512_set1_pd(s); }
}  // namespace avx512
}  // namespace burn
#include "kernels.inc"
namespace burn {
const Kernels& kernels_avx512() { return avx512::table; }
}  // namespace burn
