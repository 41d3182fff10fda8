// The generic kernels: plain C++ over 16-byte vector extensions (SSE2 on any x86-64, NEON on
// arm64, scalar code elsewhere). Always available.
#define BURN_ISA_NS generic
#define BURN_ISA_NAME "generic"
#define BURN_VBYTES 16
#define BURN_FMA(a, b, c) ((a) * (b) + (c))
#define BURN_SPLAT(s) splat_(s)
namespace burn {
namespace generic {
typedef float vf_ __attribute__((vector_size(16)));
typedef double vd_ __attribute__((vector_size(16)));
static inline vf_ splat_(float s) { return vf_{s, s, s, s}; }
static inline vd_ splat_(double s) { return vd_{s, s}; }
}  // namespace generic
}  // namespace burn
#define BURN_SGEMM_MR 6
#define BURN_SGEMM_NV 2
#define BURN_SGEMM_MC 120
#define BURN_SGEMM_KC 256
#define BURN_SGEMM_NC 4096
#define BURN_DGEMM_MR 6
#define BURN_DGEMM_NV 2
#define BURN_DGEMM_MC 96
#define BURN_DGEMM_KC 256
#define BURN_NARROW_MR 8
#define BURN_DOT_M 2
#define BURN_DOT_N 5
#if defined(__SSE2__)
#include <emmintrin.h>
#define BURN_STREAM(p, v) _mm_stream_si128(reinterpret_cast<__m128i*>(p), reinterpret_cast<__m128i>(v))
#define BURN_SFENCE() _mm_sfence()
#endif
#define BURN_DGEMM_NC 4096
#include "kernels.inc"
namespace burn {
const Kernels& kernels_generic() { return generic::table; }
}  // namespace burn
