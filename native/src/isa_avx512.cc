// The AVX-512F kernels (compiled with -mavx512f -mavx512dq -mfma; only called when the CPU has them).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
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
#define BURN_NARROW_MR 16
#define BURN_DOT_M 4
#define BURN_DOT_N 6
#define BURN_STREAM(p, v) _mm512_stream_si512(reinterpret_cast<__m512i*>(p), reinterpret_cast<__m512i>(v))
#define BURN_SFENCE() _mm_sfence()
#define BURN_DGEMM_NC 2048
namespace burn {
namespace avx512 {
typedef float vf_ __attribute__((vector_size(64)));
typedef double vd_ __attribute__((vector_size(64)));
static inline vf_ fma_(vf_ a, vf_ b, vf_ c) { return (vf_)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c); }
static inline vd_ fma_(vd_ a, vd_ b, vd_ c) { return (vd_)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c); }
static inline vf_ splat_(float s) { return (vf_)_mm512_set1_ps(s); }
static inline vd_ splat_(double s) { return (vd_)_mm512_set1_pd(s); }
/** dst[r·ldd + c] = src[c·lds + r] for a 16×16 block, in registers (unpack, then 128-bit lane shuffles). */
static inline void transpose16_(float* dst, int64_t ldd, const float* src, int64_t lds) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(src + i * lds);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
  }
  for (int h = 0; h < 16; h += 8) {
    for (int i = 0; i < 4; i++) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xdd);
    }
  }
  for (int i = 0; i < 8; i++) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
  for (int i = 0; i < 16; i++) _mm512_storeu_ps(dst + i * ldd, r[i]);
}
}  // namespace avx512
}  // namespace burn
#define BURN_SCALEF_F32(y, n) ((vf_)_mm512_scalef_ps((__m512)(y), (__m512)(n)))
#define BURN_TRANSPOSE16_F32(dst, ldd, src, lds) transpose16_(reinterpret_cast<float*>(dst), ldd, reinterpret_cast<const float*>(src), lds)
#include "kernels.inc"
namespace burn {
const Kernels& kernels_avx512() { return avx512::table; }
}  // namespace burn
