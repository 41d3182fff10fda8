import type { BinaryOp, CompareOp, PredicateOp, ReduceOp, ScanOp, UnaryOp } from '../../../backend/ops.js';
import { isUnsignedDType, type DType } from '../../../core/dtype.js';
import { entryOf, notDefined, type NotDefined } from '../../../backend/op-table.js';
import { BurnError } from '../../../core/errors.js';
import { ctype } from './types.js';

/**
 * WGSL expressions of the elementwise ops over compute-type operands `x`, `y`, with the same
 * semantics as the CPU backend's JavaScript expressions (src/backends/cpu/js/expressions.ts):
 * ints divide truncating (0 for a zero divisor), `rem` takes the divisor's sign, `fmod` the
 * dividend's, max/min propagate NaN.
 */
export interface Expr {
  readonly expr: string;
  readonly helpers: readonly string[];
  /** Extra WGSL functions the expression calls. */
  readonly code?: string;
}

const e = (expr: string, ...helpers: string[]): Expr => ({ expr, helpers });

const FLOAT_UNARY: Record<Exclude<UnaryOp, 'not'>, Expr> = {
  neg: e('-x'),
  abs: e('abs(x)'),
  // sign: NaN stays NaN, ±0 gives +0 (Burn's sign(-0.0) is +0.0).
  sign: e('select(select(select(x, 0.0, x == 0.0), -1.0, x < 0.0), 1.0, x > 0.0)'),
  exp: e('f_exp(x)', 'f_exp'),
  expm1: e('f_expm1(x)', 'f_expm1'),
  log: e('f_log(x)', 'f_log'),
  log1p: e('f_log1p(x)', 'f_log1p'),
  sqrt: e('f_sqrt(x)', 'f_sqrt'),
  recip: e('1.0 / x'),
  sigmoid: e('f_sigmoid(x)', 'f_sigmoid'),
  sin: e('f_sin(x)', 'f_sin'),
  cos: e('f_cos(x)', 'f_cos'),
  tan: e('f_tan(x)', 'f_tan'),
  asin: e('f_asin(x)', 'f_asin'),
  acos: e('f_acos(x)', 'f_acos'),
  atan: e('f_atan(x)', 'f_atan'),
  sinh: e('f_sinh(x)', 'f_sinh'),
  cosh: e('f_cosh(x)', 'f_cosh'),
  tanh: e('f_tanh(x)', 'f_tanh'),
  asinh: e('f_asinh(x)', 'f_asinh'),
  acosh: e('f_acosh(x)', 'f_acosh'),
  atanh: e('f_atanh(x)', 'f_atanh'),
  erf: e('f_erf(x)', 'f_erf'),
  round: e('round(x)'),
  floor: e('floor(x)'),
  ceil: e('ceil(x)'),
  trunc: e('trunc(x)'),
};

/** The expression of a unary op on `dtype`. */
export function unaryExpr(op: UnaryOp, dtype: DType): Expr {
  const t = ctype(dtype, op);
  if (op === 'not') {
    if (dtype === 'bool') return e('(1u - x)');
    if (t === 'f32') throw new BurnError('not', `bitwise not needs an int or bool tensor, got ${dtype}`);
    return e('~x');
  }
  if (dtype === 'bool') throw new BurnError(op, 'needs a numeric tensor, got bool');
  if (t === 'f32') return FLOAT_UNARY[op];
  if (op === 'round' || op === 'floor' || op === 'ceil' || op === 'trunc') return e('x');
  if (t === 'u32') {
    if (op === 'abs') return e('x');
    if (op === 'neg') return e('(0u - x)');
    if (op === 'sign') return e('select(0u, 1u, x > 0u)');
  } else {
    if (op === 'abs') return e('abs(x)');
    if (op === 'neg') return e('-x');
    if (op === 'sign') return e('sign(x)');
  }
  // Other math on ints: computed in f32, truncated back (the CPU truncates its double result).
  const f = FLOAT_UNARY[op];
  const conv = t === 'i32' ? 'sat_i32' : 'sat_u32';
  return {
    expr: `${conv}(trunc(unary_f(f32(x))))`,
    helpers: [...f.helpers, conv],
    code: `fn unary_f(x: f32) -> f32 { return ${f.expr}; }`,
  };
}

const PREDICATE: Record<PredicateOp, Expr> = {
  isnan: e('select(0u, 1u, is_nan(x))', 'is_nan'),
  isinf: e('select(0u, 1u, is_inf(x))', 'is_inf'),
};

/** The expression of a predicate (result u32 0/1); ints and bools are never NaN nor infinite. */
export function predicateExpr(op: PredicateOp, dtype: DType): Expr {
  if (ctype(dtype, op) !== 'f32') return e('0u');
  return PREDICATE[op];
}

// Bool: the logical ops, and max/min as or/and.
const notForBool = notDefined(() => 'is not defined for bool tensors');
const BOOL_BINARY: Record<BinaryOp, Expr | NotDefined> = {
  and: e('(x & y)'),
  min: e('(x & y)'),
  or: e('(x | y)'),
  max: e('(x | y)'),
  xor: e('(x ^ y)'),
  add: notForBool,
  sub: notForBool,
  mul: notForBool,
  div: notForBool,
  rem: notForBool,
  fmod: notForBool,
  pow: notForBool,
  atan2: notForBool,
  shl: notForBool,
  shr: notForBool,
  hypot: notForBool,
};

const intOrBoolOnly = notDefined((dtype) => `needs int or bool tensors, got ${dtype}`);
const FLOAT_BINARY: Record<BinaryOp, Expr | NotDefined> = {
  add: e('x + y'),
  sub: e('x - y'),
  mul: e('x * y'),
  div: e('x / y'),
  rem: e('x - floor(x / y) * y'),
  fmod: e('f_fmod(x, y)', 'f_fmod'),
  pow: e('f_pow(x, y)', 'f_pow'),
  atan2: e('f_atan2(x, y)', 'f_atan2'),
  hypot: e('f_hypot(x, y)', 'f_hypot'),
  max: e('f_max(x, y)', 'f_max'),
  min: e('f_min(x, y)', 'f_min'),
  and: intOrBoolOnly,
  or: intOrBoolOnly,
  xor: intOrBoolOnly,
  shl: intOrBoolOnly,
  shr: intOrBoolOnly,
};

// Ints in compute type `t` (i32 or u32); `unsigned` is the storage dtype's signedness.
type IntCompute = { readonly t: 'i32' | 'u32'; readonly zero: string; readonly unsigned: boolean };
const INT_BINARY: Record<BinaryOp, (c: IntCompute) => Expr> = {
  add: () => e('x + y'),
  sub: () => e('x - y'),
  mul: () => e('x * y'),
  div: ({ zero }) => e(`select(x / y, ${zero}, y == ${zero})`),
  rem: ({ unsigned }) =>
    unsigned
      ? e(`select(x % y, 0u, y == 0u)`)
      : e('select(select(x % y, (x % y) + y, (x % y) != 0 && (((x % y) < 0) != (y < 0))), 0, y == 0)'),
  fmod: ({ zero }) => e(`select(x % y, ${zero}, y == ${zero})`),
  pow: ({ t }) => (t === 'i32' ? e('i_pow(x, y)', 'i_pow') : e('u_pow(x, y)', 'u_pow')),
  atan2: ({ t }) =>
    t === 'i32'
      ? e('sat_i32(trunc(f_atan2(f32(x), f32(y))))', 'sat_i32', 'f_atan2')
      : e('sat_u32(trunc(f_atan2(f32(x), f32(y))))', 'sat_u32', 'f_atan2'),
  hypot: ({ t }) =>
    t === 'i32'
      ? e('sat_i32(trunc(f_hypot(f32(x), f32(y))))', 'sat_i32', 'f_hypot')
      : e('sat_u32(trunc(f_hypot(f32(x), f32(y))))', 'sat_u32', 'f_hypot'),
  max: () => e('max(x, y)'),
  min: () => e('min(x, y)'),
  and: () => e('(x & y)'),
  or: () => e('(x | y)'),
  xor: () => e('(x ^ y)'),
  shl: () => e('(x << (u32(y) & 31u))'),
  shr: () => e('(x >> (u32(y) & 31u))'),
};

/** The expression of a binary op on `dtype` (both operands in its compute type). */
export function binaryExpr(op: BinaryOp, dtype: DType): Expr {
  const t = ctype(dtype, op);
  if (dtype === 'bool') return entryOf(BOOL_BINARY, op, dtype);
  if (t === 'f32') return entryOf(FLOAT_BINARY, op, dtype);
  return INT_BINARY[op]({ t, zero: t === 'i32' ? '0' : '0u', unsigned: isUnsignedDType(dtype) });
}

const COMPARE: Record<CompareOp, string> = { eq: '==', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' };

/**
 * The expression of a comparison (result u32 0/1) in compute type `t`. Float comparisons test NaN
 * on the bits: compilers may fold `x != x` or emit ordered compares where IEEE wants unordered.
 */
export function compareExpr(op: CompareOp, t: 'f32' | 'i32' | 'u32'): Expr {
  if (t !== 'f32') return e(`select(0u, 1u, x ${COMPARE[op]} y)`);
  if (op === 'ne') return e('select(0u, 1u, is_nan(x) || is_nan(y) || x != y)', 'is_nan');
  return e(`select(0u, 1u, !(is_nan(x) || is_nan(y)) && x ${COMPARE[op]} y)`, 'is_nan');
}

/** A reduction's identity, accumulation step (`acc`, `v`) and pairwise combine (`a`, `b`). */
export interface ReduceCode {
  readonly init: string;
  readonly step: string;
  readonly combine: string;
  readonly helpers: readonly string[];
}

// The identities and steps of the reductions (scans use sum, prod, max and min) in compute type `t`.
type ReduceCtx = {
  readonly t: 'f32' | 'i32' | 'u32';
  readonly dtype: DType;
  readonly zero: string;
  readonly one: string;
};
const extreme =
  (op: 'max' | 'min') =>
  ({ t, dtype }: ReduceCtx): ReduceCode => {
    const fn = t === 'f32' ? `f_${op}` : dtype === 'bool' ? (op === 'max' ? 'max' : 'min') : op;
    // The identity is never read: the first element seeds the accumulator.
    return { init: 'FIRST', step: `${fn}(acc, v)`, combine: `${fn}(a, b)`, helpers: t === 'f32' ? [fn] : [] };
  };
const REDUCE: Record<ReduceOp, (c: ReduceCtx) => ReduceCode> = {
  sum: ({ zero }) => ({ init: zero, step: 'acc + v', combine: 'a + b', helpers: [] }),
  prod: ({ one }) => ({ init: one, step: 'acc * v', combine: 'a * b', helpers: [] }),
  max: extreme('max'),
  min: extreme('min'),
  // Floats test zero on the bits (±0), so NaN counts as true.
  any: ({ t }) => ({ init: '0u', step: `select(acc, 1u, ${nonZero(t)})`, combine: 'max(a, b)', helpers: [] }),
  all: ({ t }) => ({ init: '1u', step: `select(acc, 0u, !(${nonZero(t)}))`, combine: 'min(a, b)', helpers: [] }),
};

/** The accumulation code of a reduction in compute type `t`. */
export function reduceCode(op: ReduceOp | ScanOp, dtype: DType): ReduceCode {
  const t = ctype(dtype, op);
  return REDUCE[op]({
    t,
    dtype,
    zero: t === 'f32' ? '0.0' : t === 'i32' ? '0' : '0u',
    one: t === 'f32' ? '1.0' : t === 'i32' ? '1' : '1u',
  });
}

function nonZero(t: 'f32' | 'i32' | 'u32'): string {
  return t === 'f32' ? '(bitcast<u32>(v) & 0x7fffffffu) != 0u' : t === 'i32' ? 'v != 0' : 'v != 0u';
}
