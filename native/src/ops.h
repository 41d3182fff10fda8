// The op codes of the native CPU engine, each list written once: it generates the enum the
// kernels switch on and the name table the addon exports (`addon.ops`), which the TypeScript side
// matches by name (src/backends/cpu/native/ops.ts), so no number list is kept in two places.
// X(enumerator, name): `name` is the op's name in src/backend/ops.ts (or an engine-only op).
#pragma once

/** Elementwise binary ops (reluGrad: `a <= 0 ? 0 : b`, the ReLU gradient from its output). */
#define BURN_BINARY_OPS(X) \
  X(kAdd, add) X(kSub, sub) X(kMul, mul) X(kDiv, div) X(kRem, rem) X(kFmod, fmod) X(kPow, pow) X(kAtan2, atan2) \
  X(kMax, max) X(kMin, min) X(kReluGrad, reluGrad)

/** Elementwise unary ops. */
#define BURN_UNARY_OPS(X) \
  X(kNeg, neg) X(kAbs, abs) X(kSign, sign) X(kExp, exp) X(kExpm1, expm1) X(kLog, log) X(kLog1p, log1p) X(kSqrt, sqrt) \
  X(kRecip, recip) X(kSigmoid, sigmoid) X(kSin, sin) X(kCos, cos) X(kTan, tan) X(kAsin, asin) X(kAcos, acos) X(kAtan, atan) \
  X(kSinh, sinh) X(kCosh, cosh) X(kTanh, tanh) X(kAsinh, asinh) X(kAcosh, acosh) X(kAtanh, atanh) X(kErf, erf) \
  X(kRound, round) X(kFloor, floor) X(kCeil, ceil) X(kTrunc, trunc)

/** Reductions (rows and strided). */
#define BURN_REDUCE_OPS(X) X(kSum, sum) X(kProd, prod) X(kRMax, max) X(kRMin, min)

/** Comparisons against a scalar. */
#define BURN_COMPARE_OPS(X) X(kEq, eq) X(kNe, ne) X(kGt, gt) X(kGe, ge) X(kLt, lt) X(kLe, le)

#define BURN_OP_ENUMERATOR_(id, name) id,

namespace burn {

/** Elementwise binary ops. */
enum BinaryOp : int { BURN_BINARY_OPS(BURN_OP_ENUMERATOR_) kBinaryCount };

/** Elementwise unary ops. */
enum UnaryOp : int { BURN_UNARY_OPS(BURN_OP_ENUMERATOR_) kUnaryCount };

/** Reductions. */
enum ReduceOp : int { BURN_REDUCE_OPS(BURN_OP_ENUMERATOR_) kReduceCount };

/** Comparisons. */
enum CompareOp : int { BURN_COMPARE_OPS(BURN_OP_ENUMERATOR_) kCompareCount };

}  // namespace burn
