import type { BinaryOp, CompareOp, PredicateOp, UnaryOp } from '../../../backend/ops.js';
import { entryOf, notDefined, type NotDefined } from '../../../backend/op-table.js';
import { BurnError } from '../../../core/errors.js';
import { intRange, isFloatDType, isUnsignedDType, type DType, type IntDType } from '../../../core/dtype.js';

/**
 * JavaScript expressions of the elementwise ops over the operands `x`, `y` (and `c` for where),
 * per dtype class. The elementwise code generator pastes them into strided loops; `H` is the
 * helper table of ./math.ts.
 */

type DTypeClass = 'float' | 'int32' | 'i64' | 'bool';

function classOf(dtype: DType): DTypeClass {
  if (isFloatDType(dtype)) return 'float';
  if (dtype === 'bool') return 'bool';
  if (dtype === 'i64') return 'i64';
  return 'int32';
}

// sign: `x + 0` keeps NaN and turns -0 into +0 (Burn's sign(-0.0) is +0.0).
const FLOAT_UNARY: Record<Exclude<UnaryOp, 'not'>, string> = {
  neg: '-x',
  abs: 'Math.abs(x)',
  sign: '(x > 0 ? 1 : x < 0 ? -1 : x + 0)',
  exp: 'Math.exp(x)',
  expm1: 'Math.expm1(x)',
  log: 'Math.log(x)',
  log1p: 'Math.log1p(x)',
  sqrt: 'Math.sqrt(x)',
  recip: '1 / x',
  sigmoid: '1 / (1 + Math.exp(-x))',
  sin: 'Math.sin(x)',
  cos: 'Math.cos(x)',
  tan: 'Math.tan(x)',
  asin: 'Math.asin(x)',
  acos: 'Math.acos(x)',
  atan: 'Math.atan(x)',
  sinh: 'Math.sinh(x)',
  cosh: 'Math.cosh(x)',
  tanh: 'Math.tanh(x)',
  asinh: 'Math.asinh(x)',
  acosh: 'Math.acosh(x)',
  atanh: 'Math.atanh(x)',
  erf: 'H.erf(x)',
  round: 'H.roundHalfEven(x)',
  floor: 'Math.floor(x)',
  ceil: 'Math.ceil(x)',
  trunc: 'Math.trunc(x)',
};

/** The expression of a unary op for `dtype`. */
export function unaryExpr(op: UnaryOp, dtype: DType): string {
  const cls = classOf(dtype);
  if (op === 'not') {
    if (cls === 'bool') return '(x ? 0 : 1)';
    if (cls === 'float') throw new BurnError('not', `bitwise not needs an int or bool tensor, got ${dtype}`);
    return cls === 'i64' ? '(-x - 1)' : '~x';
  }
  if (cls === 'bool') throw new BurnError(op, `needs a numeric tensor, got bool`);
  if (cls !== 'float' && (op === 'round' || op === 'floor' || op === 'ceil' || op === 'trunc')) return 'x';
  if (isUnsignedDType(dtype) && op === 'abs') return 'x';
  return FLOAT_UNARY[op];
}

const PREDICATE: Record<PredicateOp, string> = {
  isnan: '(x !== x ? 1 : 0)',
  isinf: '(x === Infinity || x === -Infinity ? 1 : 0)',
};

/** The expression of a predicate. */
export function predicateExpr(op: PredicateOp): string {
  return PREDICATE[op];
}

// Bool: the logical ops, and max/min as or/and.
const notForBool = notDefined(() => 'is not defined for bool tensors');
const BOOL_BINARY: Record<BinaryOp, string | NotDefined> = {
  and: '(x & y)',
  or: '(x | y)',
  xor: '(x ^ y)',
  max: '(x | y)',
  min: '(x & y)',
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
const FLOAT_BINARY: Record<BinaryOp, string | NotDefined> = {
  add: 'x + y',
  sub: 'x - y',
  mul: 'x * y',
  div: 'x / y',
  rem: 'x - Math.floor(x / y) * y',
  fmod: 'x % y',
  pow: 'Math.pow(x, y)',
  atan2: 'Math.atan2(x, y)',
  hypot: 'H.hypot(x, y)',
  max: 'Math.max(x, y)',
  min: 'Math.min(x, y)',
  and: intOrBoolOnly,
  or: intOrBoolOnly,
  xor: intOrBoolOnly,
  shl: intOrBoolOnly,
  shr: intOrBoolOnly,
};

// Ints: i64 values are doubles (helpers for the bit ops); 32-bit ones multiply with Math.imul.
const isI64 = (dtype: DType) => dtype === 'i64';
const INT_BINARY: Record<BinaryOp, (dtype: DType) => string> = {
  add: () => 'x + y',
  sub: () => 'x - y',
  mul: (dtype) =>
    isI64(dtype) || dtype === 'i16' || dtype === 'i8' || dtype === 'u16' || dtype === 'u8'
      ? 'x * y'
      : 'Math.imul(x, y)',
  div: () => '(y === 0 ? 0 : Math.trunc(x / y))',
  rem: () => '(y === 0 ? 0 : ((x % y) + y) % y)',
  fmod: () => '(y === 0 ? 0 : x % y)',
  pow: (dtype) => (isI64(dtype) ? 'H.i64.pow(x, y)' : 'H.powInt32(x, y)'),
  atan2: () => 'Math.trunc(Math.atan2(x, y))',
  hypot: () => 'Math.trunc(H.hypot(x, y))',
  max: () => 'Math.max(x, y)',
  min: () => 'Math.min(x, y)',
  and: (dtype) => (isI64(dtype) ? 'H.i64.and(x, y)' : '(x & y)'),
  or: (dtype) => (isI64(dtype) ? 'H.i64.or(x, y)' : '(x | y)'),
  xor: (dtype) => (isI64(dtype) ? 'H.i64.xor(x, y)' : '(x ^ y)'),
  shl: (dtype) => (isI64(dtype) ? 'H.i64.shl(x, y)' : '(x << y)'),
  shr: (dtype) => (isI64(dtype) ? 'H.i64.shr(x, y)' : isUnsignedDType(dtype) ? '(x >>> y)' : '(x >> y)'),
};

/** The expression of a binary op for `dtype` (both operands already of that dtype). */
export function binaryExpr(op: BinaryOp, dtype: DType): string {
  const cls = classOf(dtype);
  if (cls === 'bool') return entryOf(BOOL_BINARY, op, dtype);
  if (cls === 'float') return entryOf(FLOAT_BINARY, op, dtype);
  return INT_BINARY[op](dtype);
}

const COMPARE: Record<CompareOp, string> = {
  eq: '(x === y ? 1 : 0)',
  ne: '(x !== y ? 1 : 0)',
  gt: '(x > y ? 1 : 0)',
  ge: '(x >= y ? 1 : 0)',
  lt: '(x < y ? 1 : 0)',
  le: '(x <= y ? 1 : 0)',
};

/** The expression of a comparison. */
export function compareExpr(op: CompareOp): string {
  return COMPARE[op];
}

/** The expression converting a value of `from` into `to`, with Burn's cast rules. */
export function castExpr(from: DType, to: DType): string {
  if (to === 'bool') return '(x !== 0 ? 1 : 0)';
  if (isFloatDType(to) || !isFloatDType(from)) return 'x';
  const [lo, hi] = intRange(to as IntDType);
  return `H.saturate(x, ${lo}, ${hi})`;
}
