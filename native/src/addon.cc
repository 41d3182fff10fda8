// The N-API surface of the native CPU engine (loaded by src/backends/cpu/native/addon.ts). Every kernel
// works in place on the tensors' typed arrays (no copies); numeric parameters come as numbers or,
// for the variable-length ones, in a Float64Array. Every index range is checked against the
// arrays' lengths before any kernel runs, so a wrong call throws instead of corrupting memory.
#include <node_api.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "conv.h"
#include "elementwise.h"
#include "fused_program.h"
#include "gemm.h"
#include "kernels.h"
#include "pool.h"

namespace burn {
namespace {

struct Array {
  napi_typedarray_type type = napi_int8_array;
  void* data = nullptr;
  int64_t length = 0;
  bool present = false;
};

class Call {
 public:
  Call(napi_env env, napi_callback_info info) : env_(env) {
    argc_ = kMax;
    napi_get_cb_info(env, info, &argc_, argv_, nullptr, nullptr);
  }

  bool failed() const { return failed_; }

  napi_value fail(const char* message) {
    if (!failed_) napi_throw_error(env_, "BURN_NATIVE", message);
    failed_ = true;
    return nullptr;
  }

  double num(size_t i) {
    double v = 0;
    if (i >= argc_ || napi_get_value_double(env_, argv_[i], &v) != napi_ok) fail("expected a number argument");
    return v;
  }

  int64_t integer(size_t i) {
    double v = num(i);
    if (!failed_ && (v != std::floor(v) || std::fabs(v) > 9007199254740992.0)) fail("expected an integer argument");
    return static_cast<int64_t>(v);
  }

  /** A typed array argument; `optional` accepts null/undefined. */
  Array array(size_t i, bool optional = false) {
    Array a;
    if (i >= argc_) {
      if (!optional) fail("missing typed array argument");
      return a;
    }
    napi_valuetype t;
    napi_typeof(env_, argv_[i], &t);
    if (optional && (t == napi_null || t == napi_undefined)) return a;
    bool is = false;
    napi_is_typedarray(env_, argv_[i], &is);
    if (!is) {
      fail("expected a typed array argument");
      return a;
    }
    size_t length = 0;
    napi_get_typedarray_info(env_, argv_[i], &a.type, &length, &a.data, nullptr, nullptr);
    a.length = static_cast<int64_t>(length);
    a.present = true;
    return a;
  }

  /** A Float64Array of parameters. */
  const double* params(size_t i, int64_t need) {
    Array a = array(i);
    if (failed_) return nullptr;
    if (a.type != napi_float64_array || a.length < need) {
      fail("expected a Float64Array of parameters");
      return nullptr;
    }
    return static_cast<const double*>(a.data);
  }

  napi_value undefined() {
    napi_value v;
    napi_get_undefined(env_, &v);
    return v;
  }

  napi_env env() const { return env_; }
  size_t argc() const { return argc_; }
  napi_value arg(size_t i) const { return argv_[i]; }

 private:
  static constexpr size_t kMax = 16;
  napi_env env_;
  size_t argc_;
  napi_value argv_[kMax];
  bool failed_ = false;
};

bool is_float(const Array& a) { return a.type == napi_float32_array || a.type == napi_float64_array; }

/** True when every index `off + Σ i_d·stride_d` (0 ≤ i_d < count_d) lies inside [0, len). */
bool span_ok(int64_t len, int64_t off, int rank, const int64_t* counts, const int64_t* strides) {
  int64_t lo = off, hi = off;
  for (int d = 0; d < rank; d++) {
    if (counts[d] <= 0) return true;  // empty: nothing is read
    int64_t ext = (counts[d] - 1) * strides[d];
    if (ext < 0) lo += ext;
    else hi += ext;
  }
  return lo >= 0 && hi < len;
}

template <class T>
T* ptr(const Array& a, int64_t off = 0) {
  return static_cast<T*>(a.data) + off;
}

#define SAME_FLOAT_TYPE(call, ...)                                                          \
  do {                                                                                      \
    const Array* list_[] = {__VA_ARGS__};                                                   \
    for (const Array* x_ : list_)                                                           \
      if (x_->present && (x_->type != list_[0]->type || !is_float(*x_)))                    \
        return call.fail("expected Float32Array or Float64Array arguments of one type");   \
  } while (0)

napi_value Info(napi_env env, napi_callback_info info) {
  Call call(env, info);
  napi_value obj, isa, threads;
  napi_create_object(env, &obj);
  napi_create_string_utf8(env, kernels().isa, NAPI_AUTO_LENGTH, &isa);
  napi_create_int32(env, pool_size(), &threads);
  napi_set_named_property(env, obj, "isa", isa);
  napi_set_named_property(env, obj, "threads", threads);
  return obj;
}

napi_value SetIsa(napi_env env, napi_callback_info info) {
  Call call(env, info);
  char name[32] = {0};
  size_t len = 0;
  if (call.argc() < 1 || napi_get_value_string_utf8(env, call.arg(0), name, sizeof name, &len) != napi_ok) return call.fail("expected an ISA name");
  napi_value result;
  napi_get_boolean(env, select_isa(name), &result);
  return result;
}

/** Products up to this many multiply-adds run without packing (many tiny batched products). */
constexpr int64_t kSmallGemm = 16384;

template <class T>
void gemm_typed(const double* p, int64_t batch, const Array& a, const Array& b, const Array& c) {
  const int64_t m = p[0], n = p[1], k = p[2];
  if (m * n * k <= kSmallGemm && k > 0) {
    const Gemm<T>& g = gemm_of<T>(kernels());
    const T* ap = ptr<T>(a);
    const T* bp = ptr<T>(b);
    T* cp = ptr<T>(c);
    const int64_t ars = p[3], acs = p[4], brs = p[5], bcs = p[6];
    parallel_for(batch, chunk_for(batch, 1, 1), [&](int64_t b0, int64_t b1, int) {
      for (int64_t i = b0; i < b1; i++) {
        g.small(m, n, k, ap + static_cast<int64_t>(p[8 + i]), ars, acs, bp + static_cast<int64_t>(p[8 + batch + i]), brs, bcs, cp + i * m * n, n);
      }
    }, batch * m * n * k < 65536);
    return;
  }
  StridedOp<T> op{ptr<T>(a), p + 8, static_cast<int64_t>(p[3]), static_cast<int64_t>(p[4]),
                  ptr<T>(b), p + 8 + batch, static_cast<int64_t>(p[5]), static_cast<int64_t>(p[6]), ptr<T>(c), m * n};
  gemm_run(gemm_of<T>(kernels()), op, batch, m, n, k, n, false);
}

/** gemm(p = [m, n, k, aRs, aCs, bRs, bCs, batch, aOffsets…, bOffsets…], a, b, c). */
napi_value Gemm(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const double* p = call.params(0, 8);
  if (call.failed()) return nullptr;
  const int64_t batch = static_cast<int64_t>(p[7]);
  p = call.params(0, 8 + 2 * batch);
  Array a = call.array(1), b = call.array(2), c = call.array(3);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &a, &b, &c);
  const int64_t m = p[0], n = p[1], k = p[2];
  if (m < 0 || n < 0 || k < 0 || c.length < batch * m * n) return call.fail("gemm: output too small");
  const int64_t ac[2] = {m, k}, as[2] = {static_cast<int64_t>(p[3]), static_cast<int64_t>(p[4])};
  const int64_t bc[2] = {k, n}, bs[2] = {static_cast<int64_t>(p[5]), static_cast<int64_t>(p[6])};
  for (int64_t i = 0; i < batch; i++) {
    if (!span_ok(a.length, static_cast<int64_t>(p[8 + i]), 2, ac, as) || !span_ok(b.length, static_cast<int64_t>(p[8 + batch + i]), 2, bc, bs)) {
      return call.fail("gemm: operand out of range");
    }
  }
  if (c.type == napi_float32_array) gemm_typed<float>(p, batch, a, b, c);
  else gemm_typed<double>(p, batch, a, b, c);
  return call.undefined();
}

/** binary(op, out, a, aOffset, b, bOffset, n). */
napi_value Binary(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t op = call.integer(0);
  Array out = call.array(1), a = call.array(2);
  const int64_t ao = call.integer(3);
  Array b = call.array(4);
  const int64_t bo = call.integer(5), n = call.integer(6);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a, &b);
  if (op < 0 || op >= kBinaryCount || n < 0 || out.length < n || ao < 0 || ao + n > a.length || bo < 0 || bo + n > b.length) return call.fail("binary: bad arguments");
  if (out.type == napi_float32_array) ew_binary<float>(op, ptr<float>(out), ptr<float>(a, ao), ptr<float>(b, bo), n);
  else ew_binary<double>(op, ptr<double>(out), ptr<double>(a, ao), ptr<double>(b, bo), n);
  return call.undefined();
}

/** random(h, out, n); h as ew_random's. */
napi_value Random(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const double* h = call.params(0, 6);
  Array out = call.array(1);
  const int64_t n = call.integer(2);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out);
  if (n < 0 || out.length < n || h[0] < 0 || h[0] > 2) return call.fail("random: bad arguments");
  if (out.type == napi_float32_array) ew_random<float>(h, ptr<float>(out), n);
  else ew_random<double>(h, ptr<double>(out), n);
  return call.undefined();
}

/** adamStep(h, outP, outM, outV, p, pOffset, g, gOffset, m, mOffset, v, vOffset, n); h as ew_adam's. */
napi_value AdamStep(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const double* h = call.params(0, 7);
  Array po = call.array(1), mo = call.array(2), vo = call.array(3), p = call.array(4);
  const int64_t pOff = call.integer(5);
  Array g = call.array(6);
  const int64_t gOff = call.integer(7);
  Array m = call.array(8);
  const int64_t mOff = call.integer(9);
  Array v = call.array(10);
  const int64_t vOff = call.integer(11), n = call.integer(12);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &po, &mo, &vo, &p, &g, &m, &v);
  const auto in = [n](const Array& a, int64_t off) { return off >= 0 && off + n <= a.length; };
  if (n < 0 || po.length < n || mo.length < n || vo.length < n || !in(p, pOff) || !in(g, gOff) || !in(m, mOff) || !in(v, vOff)) return call.fail("adamStep: bad arguments");
  if (po.type == napi_float32_array) {
    ew_adam<float>(h, ptr<float>(po), ptr<float>(mo), ptr<float>(vo), ptr<float>(p, pOff), ptr<float>(g, gOff), ptr<float>(m, mOff), ptr<float>(v, vOff), n);
  } else {
    ew_adam<double>(h, ptr<double>(po), ptr<double>(mo), ptr<double>(vo), ptr<double>(p, pOff), ptr<double>(g, gOff), ptr<double>(m, mOff), ptr<double>(v, vOff), n);
  }
  return call.undefined();
}

/** binaryScalar(op, out, a, aOffset, scalar, n). */
napi_value BinaryScalar(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t op = call.integer(0);
  Array out = call.array(1), a = call.array(2);
  const int64_t ao = call.integer(3);
  const double s = call.num(4);
  const int64_t n = call.integer(5);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  if (op < 0 || op >= kBinaryCount || n < 0 || out.length < n || ao < 0 || ao + n > a.length) return call.fail("binaryScalar: bad arguments");
  if (out.type == napi_float32_array) ew_binary_scalar<float>(op, ptr<float>(out), ptr<float>(a, ao), s, n);
  else ew_binary_scalar<double>(op, ptr<double>(out), ptr<double>(a, ao), s, n);
  return call.undefined();
}

/** unary(op, out, a, aOffset, n). */
napi_value Unary(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t op = call.integer(0);
  Array out = call.array(1), a = call.array(2);
  const int64_t ao = call.integer(3), n = call.integer(4);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  if (op < 0 || op >= kUnaryCount || n < 0 || out.length < n || ao < 0 || ao + n > a.length) return call.fail("unary: bad arguments");
  if (out.type == napi_float32_array) ew_unary<float>(op, ptr<float>(out), ptr<float>(a, ao), n);
  else ew_unary<double>(op, ptr<double>(out), ptr<double>(a, ao), n);
  return call.undefined();
}

/** clamp(out, a, aOffset, n, lo, hi): one pass of min(max(a, lo), hi) (lo, hi exact in the dtype, or ±∞). */
napi_value Clamp(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Array out = call.array(0), a = call.array(1);
  const int64_t ao = call.integer(2), n = call.integer(3);
  const double* lh = call.params(4, 2);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  if (n < 0 || out.length < n || ao < 0 || ao + n > a.length) return call.fail("clamp: bad arguments");
  if (out.type == napi_float32_array) ew_clamp<float>(ptr<float>(out), ptr<float>(a, ao), n, static_cast<float>(lh[0]), static_cast<float>(lh[1]));
  else ew_clamp<double>(ptr<double>(out), ptr<double>(a, ao), n, lh[0], lh[1]);
  return call.undefined();
}

/** gelu(out, a, aOffset, n): the exact GELU in one pass. */
napi_value Gelu(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Array out = call.array(0), a = call.array(1);
  const int64_t ao = call.integer(2), n = call.integer(3);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  if (n < 0 || out.length < n || ao < 0 || ao + n > a.length) return call.fail("gelu: bad arguments");
  if (out.type == napi_float32_array) ew_gelu<float>(ptr<float>(out), ptr<float>(a, ao), n);
  else ew_gelu<double>(ptr<double>(out), ptr<double>(a, ao), n);
  return call.undefined();
}

/** layerNorm(out, a, aOffset, gamma, beta | null, rows, len, eps): layer normalization over the last dim. */
napi_value LayerNorm(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Array out = call.array(0), a = call.array(1);
  const int64_t ao = call.integer(2);
  Array gamma = call.array(3), beta = call.array(4, true);
  const int64_t rows = call.integer(5), len = call.integer(6);
  const double* eps = call.params(7, 1);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a, &gamma, &beta);
  if (rows < 0 || len < 1 || out.length < rows * len || ao < 0 || ao + rows * len > a.length || gamma.length < len || (beta.present && beta.length < len)) {
    return call.fail("layerNorm: bad arguments");
  }
  if (out.type == napi_float32_array) ew_layer_norm<float>(ptr<float>(out), ptr<float>(a, ao), ptr<float>(gamma), beta.present ? ptr<float>(beta) : nullptr, rows, len, eps[0]);
  else ew_layer_norm<double>(ptr<double>(out), ptr<double>(a, ao), ptr<double>(gamma), beta.present ? ptr<double>(beta) : nullptr, rows, len, eps[0]);
  return call.undefined();
}

/** reduceRows(op, out, a, aOffset, rows, len). */
napi_value ReduceRows(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t op = call.integer(0);
  Array out = call.array(1), a = call.array(2);
  const int64_t ao = call.integer(3), rows = call.integer(4), len = call.integer(5);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  if (op < 0 || op >= kReduceCount || rows < 0 || len < 1 || out.length < rows || ao < 0 || ao + rows * len > a.length) return call.fail("reduceRows: bad arguments");
  if (out.type == napi_float32_array) ew_reduce_rows<float>(op, ptr<float>(out), ptr<float>(a, ao), rows, len);
  else ew_reduce_rows<double>(op, ptr<double>(out), ptr<double>(a, ao), rows, len);
  return call.undefined();
}

/** softmaxRows(out, a, aOffset, rows, len, log). */
napi_value SoftmaxRows(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Array out = call.array(0), a = call.array(1);
  const int64_t ao = call.integer(2), rows = call.integer(3), len = call.integer(4);
  const bool log = call.num(5) != 0;
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  if (rows < 0 || len < 1 || out.length < rows * len || ao < 0 || ao + rows * len > a.length) return call.fail("softmaxRows: bad arguments");
  if (out.type == napi_float32_array) ew_softmax_rows<float>(ptr<float>(out), ptr<float>(a, ao), rows, len, log);
  else ew_softmax_rows<double>(ptr<double>(out), ptr<double>(a, ao), rows, len, log);
  return call.undefined();
}

/** Reads `rank, shape…` then per operand `offset, strides…` from a parameter block. */
struct StridedParams {
  int rank = 0;
  int64_t shape[kMaxRank];
  int64_t off[3];
  int64_t strides[3][kMaxRank];
};

bool read_strided(Call& call, size_t index, int first, StridedParams* s, int operands = 2) {
  const double* p = call.params(index, first + 1);
  if (call.failed()) return false;
  const int rank = static_cast<int>(p[first]);
  if (rank < 1 || rank > kMaxRank) {
    call.fail("strided: rank must be 1..8");
    return false;
  }
  p = call.params(index, first + 1 + rank + operands * (1 + rank));
  if (call.failed()) return false;
  s->rank = rank;
  const double* q = p + first + 1;
  for (int d = 0; d < rank; d++) {
    s->shape[d] = static_cast<int64_t>(q[d]);
    if (s->shape[d] < 0) {
      call.fail("strided: negative size");
      return false;
    }
  }
  q += rank;
  for (int o = 0; o < operands; o++) {
    s->off[o] = static_cast<int64_t>(q[0]);
    for (int d = 0; d < rank; d++) s->strides[o][d] = static_cast<int64_t>(q[1 + d]);
    q += 1 + rank;
  }
  return true;
}

int64_t numel(const StridedParams& s) {
  int64_t n = 1;
  for (int d = 0; d < s.rank; d++) n *= s.shape[d];
  return n;
}

/** binaryStrided(p = [op, rank, shape…, aOffset, aStrides…, bOffset, bStrides…], out, a, b): contiguous out. */
napi_value BinaryStrided(napi_env env, napi_callback_info info) {
  Call call(env, info);
  StridedParams s;
  if (!read_strided(call, 0, 1, &s)) return nullptr;
  const double* p = call.params(0, 1);
  const int64_t op = static_cast<int64_t>(p[0]);
  Array out = call.array(1), a = call.array(2), b = call.array(3);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a, &b);
  const int64_t n = numel(s);
  if (op < 0 || op >= kBinaryCount || out.length < n || !span_ok(a.length, s.off[0], s.rank, s.shape, s.strides[0]) ||
      !span_ok(b.length, s.off[1], s.rank, s.shape, s.strides[1])) {
    return call.fail("binaryStrided: bad arguments");
  }
  if (n == 0) return call.undefined();
  if (out.type == napi_float32_array) {
    ew_binary_strided<float>(op, ptr<float>(out), s.rank, s.shape, ptr<float>(a, s.off[0]), s.strides[0], ptr<float>(b, s.off[1]), s.strides[1]);
  } else {
    ew_binary_strided<double>(op, ptr<double>(out), s.rank, s.shape, ptr<double>(a, s.off[0]), s.strides[0], ptr<double>(b, s.off[1]), s.strides[1]);
  }
  return call.undefined();
}

/** copyStrided(p = [rank, shape…, dstOffset, dstStrides…, srcOffset, srcStrides…], dst, src). */
napi_value CopyStrided(napi_env env, napi_callback_info info) {
  Call call(env, info);
  StridedParams s;
  if (!read_strided(call, 0, 0, &s)) return nullptr;
  Array dst = call.array(1), src = call.array(2);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &dst, &src);
  if (!span_ok(dst.length, s.off[0], s.rank, s.shape, s.strides[0]) || !span_ok(src.length, s.off[1], s.rank, s.shape, s.strides[1])) {
    return call.fail("copyStrided: bad arguments");
  }
  if (numel(s) == 0) return call.undefined();
  if (dst.type == napi_float32_array) copy_strided<float>(s.rank, s.shape, ptr<float>(dst, s.off[0]), s.strides[0], ptr<float>(src, s.off[1]), s.strides[1]);
  else copy_strided<double>(s.rank, s.shape, ptr<double>(dst, s.off[0]), s.strides[0], ptr<double>(src, s.off[1]), s.strides[1]);
  return call.undefined();
}

/** compareScalar(op, out (Uint8Array), a, aOffset, scalar, n). */
napi_value CompareScalar(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t op = call.integer(0);
  Array out = call.array(1), a = call.array(2);
  const int64_t ao = call.integer(3);
  const double s = call.num(4);
  const int64_t n = call.integer(5);
  if (call.failed()) return nullptr;
  if (out.type != napi_uint8_array || !is_float(a) || op < 0 || op >= kCompareCount || n < 0 || out.length < n || ao < 0 || ao + n > a.length) {
    return call.fail("compareScalar: bad arguments");
  }
  if (a.type == napi_float32_array) ew_compare_scalar<float>(op, ptr<uint8_t>(out), ptr<float>(a, ao), s, n);
  else ew_compare_scalar<double>(op, ptr<uint8_t>(out), ptr<double>(a, ao), s, n);
  return call.undefined();
}

/** whereStrided(p = [rank, shape…, cOffset, cStrides…, aOffset, aStrides…, bOffset, bStrides…], out, cond (Uint8Array), a, b). */
napi_value WhereStrided(napi_env env, napi_callback_info info) {
  Call call(env, info);
  StridedParams s;
  if (!read_strided(call, 0, 0, &s, 3)) return nullptr;
  Array out = call.array(1), c = call.array(2), a = call.array(3), b = call.array(4);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a, &b);
  const int64_t n = numel(s);
  if (c.type != napi_uint8_array || out.length < n || !span_ok(c.length, s.off[0], s.rank, s.shape, s.strides[0]) ||
      !span_ok(a.length, s.off[1], s.rank, s.shape, s.strides[1]) || !span_ok(b.length, s.off[2], s.rank, s.shape, s.strides[2])) {
    return call.fail("whereStrided: bad arguments");
  }
  if (n == 0) return call.undefined();
  const uint8_t* cp = ptr<uint8_t>(c, s.off[0]);
  if (out.type == napi_float32_array) {
    ew_where_strided<float>(ptr<float>(out), s.rank, s.shape, cp, s.strides[0], ptr<float>(a, s.off[1]), s.strides[1], ptr<float>(b, s.off[2]), s.strides[2]);
  } else {
    ew_where_strided<double>(ptr<double>(out), s.rank, s.shape, cp, s.strides[0], ptr<double>(a, s.off[1]), s.strides[1], ptr<double>(b, s.off[2]), s.strides[2]);
  }
  return call.undefined();
}

/** reduceStrided(p = [op, rank, shape…, aOffset, aStrides…, 0, outStrides…], out, a): out[Σ idx·outStride] (op)= a[…]. */
napi_value ReduceStrided(napi_env env, napi_callback_info info) {
  Call call(env, info);
  StridedParams s;
  if (!read_strided(call, 0, 1, &s)) return nullptr;
  const int64_t op = static_cast<int64_t>(call.params(0, 1)[0]);
  Array out = call.array(1), a = call.array(2);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &a);
  int64_t outMax = 0;
  for (int d = 0; d < s.rank; d++) {
    if (s.strides[1][d] < 0) return call.fail("reduceStrided: negative output stride");
    outMax += (s.shape[d] - 1) * s.strides[1][d];
  }
  if (op < 0 || op >= kReduceCount || numel(s) == 0 || s.off[1] != 0 || outMax >= out.length || !span_ok(a.length, s.off[0], s.rank, s.shape, s.strides[0])) {
    return call.fail("reduceStrided: bad arguments");
  }
  if (out.type == napi_float32_array) ew_reduce_strided<float>(op, ptr<float>(out), out.length, s.rank, s.shape, ptr<float>(a, s.off[0]), s.strides[0], s.strides[1]);
  else ew_reduce_strided<double>(op, ptr<double>(out), out.length, s.rank, s.shape, ptr<double>(a, s.off[0]), s.strides[0], s.strides[1]);
  return call.undefined();
}

/** [n, cin, h, w, cout, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, groups] */
bool read_conv(Call& call, Conv2dShape* s) {
  const double* p = call.params(0, 16);
  if (call.failed()) return false;
  int64_t v[16];
  for (int i = 0; i < 16; i++) {
    v[i] = static_cast<int64_t>(p[i]);
    if (v[i] < 0 || static_cast<double>(v[i]) != p[i]) {
      call.fail("conv: bad geometry");
      return false;
    }
  }
  *s = Conv2dShape{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]};
  if (s->groups < 1 || s->sh < 1 || s->sw < 1 || s->dh < 1 || s->dw < 1 || s->cin % s->groups != 0 || s->cout % s->groups != 0) {
    call.fail("conv: bad geometry");
    return false;
  }
  return true;
}

/** The layout tag of conv2d's packed weights for this geometry and the instruction set in use (0: none). */
double conv_layout_tag(const Conv2dShape& s, bool f32) {
  return static_cast<double>(f32 ? conv2d_packed_layout<float>(s) : conv2d_packed_layout<double>(s));
}

/**
 * convPackWeights(p, w, packed | null): with `packed`, writes w packed for conv2d calls of the
 * geometry p (the 16 values of conv2d's p) and returns the layout tag to pass to them; without,
 * returns the length `packed` needs (0: this geometry's conv2d does not read packed weights).
 */
napi_value ConvPackWeights(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Conv2dShape s;
  if (!read_conv(call, &s)) return nullptr;
  Array w = call.array(1), packed = call.array(2, true);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &w, &packed);
  const bool f32 = w.type == napi_float32_array;
  const int64_t need = f32 ? conv2d_packed_length<float>(s) : conv2d_packed_length<double>(s);
  double result = static_cast<double>(need);
  if (packed.present) {
    if (need == 0 || packed.length < need || w.length < s.cout * (s.cin / s.groups) * s.kh * s.kw) return call.fail("convPackWeights: arrays too small");
    if (f32) conv2d_pack_weights<float>(s, ptr<float>(w), ptr<float>(packed));
    else conv2d_pack_weights<double>(s, ptr<double>(w), ptr<double>(packed));
    result = conv_layout_tag(s, f32);
  }
  napi_value v;
  napi_create_double(env, result, &v);
  return v;
}

/** conv2d(p, x, w, bias | null, out, packed | null, residual | null) and convTranspose2d(p, x, w, bias | null, out). */
template <bool Transposed>
napi_value Conv(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Conv2dShape s;
  if (!read_conv(call, &s)) return nullptr;
  Array x = call.array(1), w = call.array(2), bias = call.array(3, true), out = call.array(4);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &x, &w, &bias);
  const int64_t wlen = Transposed ? s.cin * (s.cout / s.groups) * s.kh * s.kw : s.cout * (s.cin / s.groups) * s.kh * s.kw;
  if (x.length < s.n * s.cin * s.h * s.w || w.length < wlen || (bias.present && bias.length < s.cout) || out.length < s.n * s.cout * s.oh * s.ow) {
    return call.fail("conv: arrays too small");
  }
  if (Transposed) {
    // Every output position must be reachable from the geometry (as the JavaScript kernel assumes).
    if (out.type == napi_float32_array) conv_transpose2d<float>(s, ptr<float>(x), ptr<float>(w), bias.present ? ptr<float>(bias) : nullptr, ptr<float>(out));
    else conv_transpose2d<double>(s, ptr<double>(x), ptr<double>(w), bias.present ? ptr<double>(bias) : nullptr, ptr<double>(out));
  } else {
    // Parameters 16 and 17: the activation's clamp bounds (exact in the dtype; ±∞ for none);
    // 18: the layout tag convPackWeights returned for `packed` (argument 5, optional); argument 6:
    // a residual of the output's shape, added before the activation (optional).
    const double* p = call.params(0, 19);
    if (call.failed()) return nullptr;
    const double lo = p[16], hi = p[17];
    if (lo != lo || hi != hi) return call.fail("conv: NaN clamp bounds");
    Array packed = call.array(5, true), residual = call.array(6, true);
    if (call.failed()) return nullptr;
    SAME_FLOAT_TYPE(call, &out, &packed, &residual);
    if (residual.present && residual.length < s.n * s.cout * s.oh * s.ow) return call.fail("conv: residual too small");
    const bool f32 = out.type == napi_float32_array;
    // Packed weights of another layout (another geometry or instruction set) are not read.
    const bool usePacked = packed.present && p[18] == conv_layout_tag(s, f32) &&
                           packed.length >= (f32 ? conv2d_packed_length<float>(s) : conv2d_packed_length<double>(s));
    if (f32) conv2d<float>(s, ptr<float>(x), ptr<float>(w), bias.present ? ptr<float>(bias) : nullptr, ptr<float>(out), static_cast<float>(lo), static_cast<float>(hi), usePacked ? ptr<float>(packed) : nullptr, residual.present ? ptr<float>(residual) : nullptr);
    else conv2d<double>(s, ptr<double>(x), ptr<double>(w), bias.present ? ptr<double>(bias) : nullptr, ptr<double>(out), lo, hi, usePacked ? ptr<double>(packed) : nullptr, residual.present ? ptr<double>(residual) : nullptr);
  }
  return call.undefined();
}

/** unfold2d(p, x, out): out[N, C·kh·kw, OH·OW]. */
napi_value Unfold(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Conv2dShape s;
  if (!read_conv(call, &s)) return nullptr;
  Array x = call.array(1), out = call.array(2);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &x);
  if (x.length < s.n * s.cin * s.h * s.w || out.length < s.n * s.cin * s.kh * s.kw * s.oh * s.ow) return call.fail("unfold: arrays too small");
  if (out.type == napi_float32_array) unfold2d<float>(s, ptr<float>(x), ptr<float>(out));
  else unfold2d<double>(s, ptr<double>(x), ptr<double>(out));
  return call.undefined();
}

/** conv2dWeightGrad(p, x, g, dw): the weight gradient of conv2d (p as for conv2d). */
napi_value ConvWeightGrad(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Conv2dShape s;
  if (!read_conv(call, &s)) return nullptr;
  Array x = call.array(1), g = call.array(2), dw = call.array(3);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &dw, &x, &g);
  if (x.length < s.n * s.cin * s.h * s.w || g.length < s.n * s.cout * s.oh * s.ow || dw.length < s.cout * (s.cin / s.groups) * s.kh * s.kw) {
    return call.fail("conv2dWeightGrad: arrays too small");
  }
  if (dw.type == napi_float32_array) conv2d_weight_grad<float>(s, ptr<float>(x), ptr<float>(g), ptr<float>(dw));
  else conv2d_weight_grad<double>(s, ptr<double>(x), ptr<double>(g), ptr<double>(dw));
  return call.undefined();
}

/** maxPool2d(p, x, out, indices | null). */
napi_value MaxPool(napi_env env, napi_callback_info info) {
  Call call(env, info);
  Conv2dShape s;
  if (!read_conv(call, &s)) return nullptr;
  Array x = call.array(1), out = call.array(2), ind = call.array(3, true);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &out, &x);
  const int64_t n = s.n * s.cin * s.oh * s.ow;
  if (x.length < s.n * s.cin * s.h * s.w || out.length < n || (ind.present && (ind.type != napi_int32_array || ind.length < n))) {
    return call.fail("maxPool2d: bad arrays");
  }
  int32_t* ip = ind.present ? ptr<int32_t>(ind) : nullptr;
  if (out.type == napi_float32_array) max_pool2d<float>(s, ptr<float>(x), ptr<float>(out), ip);
  else max_pool2d<double>(s, ptr<double>(x), ptr<double>(out), ip);
  return call.undefined();
}

/** maxPoolBackward(planes, plane, g, indices, dx): the input gradient of max pooling (see conv.h). */
napi_value MaxPoolBackward(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t planes = call.integer(0), plane = call.integer(1);
  Array g = call.array(2), ind = call.array(3), dx = call.array(4);
  if (call.failed()) return nullptr;
  SAME_FLOAT_TYPE(call, &dx, &g);
  if (planes <= 0 || plane <= 0 || ind.type != napi_int32_array || g.length % planes != 0 || ind.length < g.length || dx.length < planes * plane) {
    return call.fail("maxPoolBackward: bad sizes");
  }
  const int64_t l = g.length / planes;
  if (dx.type == napi_float32_array) max_pool_backward<float>(planes, plane, l, ptr<float>(g), ptr<int32_t>(ind), ptr<float>(dx));
  else max_pool_backward<double>(planes, plane, l, ptr<double>(g), ptr<int32_t>(ind), ptr<double>(dx));
  return call.undefined();
}

/** bandwidth(n, reps): bytes/s (read + written) of a multi-threaded copy of n floats. */
napi_value Bandwidth(napi_env env, napi_callback_info info) {
  Call call(env, info);
  const int64_t n = call.integer(0), reps = call.integer(1);
  if (call.failed()) return nullptr;
  if (n < 16 || reps < 1) return call.fail("bandwidth: bad arguments");
  napi_value result;
  napi_create_double(env, copy_bandwidth(n, static_cast<int>(reps)), &result);
  return result;
}

/**
 * Keeps large freed blocks in the process for reuse (glibc only; BURN_NATIVE_MALLOC=default
 * opts out). By default glibc maps blocks above a threshold freshly from the kernel and unmaps them
 * on free, so every large tensor pays a page fault per 4 KiB on first touch — on a VM several times
 * the cost of the op that fills it. Blocks up to 64 MiB now come from the heap, and up to 512 MiB
 * of free heap stay mapped (as PyTorch's allocators keep their memory).
 */
void tune_malloc() {
#if defined(__GLIBC__)
  const char* env = std::getenv("BURN_NATIVE_MALLOC");
  if (env != nullptr && std::strcmp(env, "default") == 0) return;
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // Warm the heap once: touch a block and free it, so the first tensors (before any garbage
  // collection hands memory back) do not fault page by page.
  const char* mb = std::getenv("BURN_NATIVE_PREFAULT_MB");
  const long size = (mb != nullptr && *mb != '\0' ? std::strtol(mb, nullptr, 10) : 48) << 20;
  if (size > 0 && size < (64 << 20)) {  // below the mmap threshold: from the heap, and back to it
    char* p = static_cast<char*>(std::malloc(static_cast<size_t>(size)));
    if (p != nullptr) {
      // Not zeros: the compiler would turn malloc + memset(0) into a calloc, which skips the touch.
      std::memset(p, 0x5a, static_cast<size_t>(size));
      __asm__ __volatile__("" : : "r"(p) : "memory");
      std::free(p);
    }
  }
#endif
}

/** `{ name: code, … }` of one op list of ops.h. */
napi_value op_table(napi_env env, const char* const* names, int count) {
  napi_value obj;
  napi_create_object(env, &obj);
  for (int i = 0; i < count; i++) {
    napi_value code;
    napi_create_int32(env, i, &code);
    napi_set_named_property(env, obj, names[i], code);
  }
  return obj;
}

#define BURN_OP_NAME_(id, name) #name,

/**
 * The op codes by name (`ops.unary.exp` …), from the lists of ops.h: the TypeScript side looks
 * each op up by its name, so the codes are defined here alone.
 */
napi_value op_tables(napi_env env) {
  static const char* const unary[] = {BURN_UNARY_OPS(BURN_OP_NAME_)};
  static const char* const binary[] = {BURN_BINARY_OPS(BURN_OP_NAME_)};
  static const char* const reduce[] = {BURN_REDUCE_OPS(BURN_OP_NAME_)};
  static const char* const compare[] = {BURN_COMPARE_OPS(BURN_OP_NAME_)};
  static_assert(sizeof unary / sizeof unary[0] == kUnaryCount, "one name per unary op");
  static_assert(sizeof binary / sizeof binary[0] == kBinaryCount, "one name per binary op");
  static_assert(sizeof reduce / sizeof reduce[0] == kReduceCount, "one name per reduction");
  static_assert(sizeof compare / sizeof compare[0] == kCompareCount, "one name per comparison");
  napi_value obj;
  napi_create_object(env, &obj);
  napi_set_named_property(env, obj, "unary", op_table(env, unary, kUnaryCount));
  napi_set_named_property(env, obj, "binary", op_table(env, binary, kBinaryCount));
  napi_set_named_property(env, obj, "reduce", op_table(env, reduce, kReduceCount));
  napi_set_named_property(env, obj, "compare", op_table(env, compare, kCompareCount));
  return obj;
}

napi_value Init(napi_env env, napi_value exports) {
  static bool tuned = false;
  if (!tuned) {
    tuned = true;
    tune_malloc();
  }
  const napi_property_descriptor props[] = {
      {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"setIsa", nullptr, SetIsa, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"gemm", nullptr, Gemm, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"binary", nullptr, Binary, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"adamStep", nullptr, AdamStep, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"random", nullptr, Random, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"binaryScalar", nullptr, BinaryScalar, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"unary", nullptr, Unary, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"clamp", nullptr, Clamp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"gelu", nullptr, Gelu, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"layerNorm", nullptr, LayerNorm, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"reduceRows", nullptr, ReduceRows, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"softmaxRows", nullptr, SoftmaxRows, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"binaryStrided", nullptr, BinaryStrided, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"copyStrided", nullptr, CopyStrided, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"compareScalar", nullptr, CompareScalar, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"whereStrided", nullptr, WhereStrided, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"reduceStrided", nullptr, ReduceStrided, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"conv2d", nullptr, Conv<false>, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"convPackWeights", nullptr, ConvPackWeights, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"convTranspose2d", nullptr, Conv<true>, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"unfold2d", nullptr, Unfold, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"conv2dWeightGrad", nullptr, ConvWeightGrad, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"maxPool2d", nullptr, MaxPool, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"maxPoolBackward", nullptr, MaxPoolBackward, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"fused", nullptr, FusedProgramCall, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"bandwidth", nullptr, Bandwidth, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"ops", nullptr, nullptr, nullptr, nullptr, op_tables(env), napi_enumerable, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

}  // namespace
}  // namespace burn

NAPI_MODULE_INIT() { return burn::Init(env, exports); }
