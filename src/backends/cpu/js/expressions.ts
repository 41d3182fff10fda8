import type { BinaryOp, CompareOp, PredicateOp, UnaryOp } from '../../../backend/ops.js';
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
  neg: '-x', abs: 'Math.abs(x)', sign: '(x > 0 ? 1 : x < 0 ? -1 : x + 0)', exp: 'Math.exp(x)', expm1: 'Math.expm1(x)',
  log: 'Math.log(x)', log1p: 'Math.log1p(x)', sqrt: 'Math.sqrt(x)', recip: '1 / x', sigmoid: '1 / (1 + Math.exp(-x))',
  sin: 'Math.sin(x)', cos: 'Math.cos(x)', tan: 'Math.tan(x)', asin: 'Math.asin(x)', acos: 'Math.acos(x)', atan: 'Math.atan(x)',
  sinh: 'Math.sinh(x)', cosh: 'Math.cosh(x)', tanh: 'Math.tanh(x)', asinh: 'Math.asinh(x)', acosh: 'Math.acosh(x)', atanh: 'Math.atanh(x)',
  erf: 'H.erf(x)', round: 'H.roundHalfEven(x)', floor: 'Math.floor(x)', ceil: 'Math.ceil(x)', trunc: 'Math.trunc(x)',
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

/** The expression of a predicate. */
export function predicateExpr(op: PredicateOp): string {
  return op === 'isnan' ? '(x !== x ? 1 : 0)' : '(x === Infinity || x === -Infinity ? 1 : 0)';
}

/** The expression of a binary op for `dtype` (both operands already of that dtype). */
export function binaryExpr(op: BinaryOp, dtype: DType): string {
  const cls = classOf(dtype);
  if (cls === 'bool') {
    switch (op) {
      case 'and': return '(x & y)';
      case 'or': return '(x | y)';
      case 'xor': return '(x ^ y)';
      case 'max': return '(x | y)';
      case 'min': return '(x & y)';
      default: throw new BurnError(op, `is not defined for bool tensors`);
    }
  }
  if (cls === 'float') {
    switch (op) {
      case 'add': return 'x + y';
      case 'sub': return 'x - y';
      case 'mul': return 'x * y';
      case 'div': return 'x / y';
      case 'rem': return 'x - Math.floor(x / y) * y';
      case 'fmod': return 'x % y';
      case 'pow': return 'Math.pow(x, y)';
      case 'atan2': return 'Math.atan2(x, y)';
      case 'max': return 'Math.max(x, y)';
      case 'min': return 'Math.min(x, y)';
      default: throw new BurnError(op, `needs int or bool tensors, got ${dtype}`);
    }
  }
  const i64 = cls === 'i64';
  switch (op) {
    case 'add': return 'x + y';
    case 'sub': return 'x - y';
    case 'mul': return i64 || dtype === 'i16' || dtype === 'i8' || dtype === 'u16' || dtype === 'u8' ? 'x * y' : 'Math.imul(x, y)';
    case 'div': return '(y === 0 ? 0 : Math.trunc(x / y))';
    case 'rem': return '(y === 0 ? 0 : ((x % y) + y) % y)';
    case 'fmod': return '(y === 0 ? 0 : x % y)';
    case 'pow': return i64 ? 'H.i64.pow(x, y)' : 'H.powInt32(x, y)';
    case 'atan2': return 'Math.trunc(Math.atan2(x, y))';
    case 'max': return 'Math.max(x, y)';
    case 'min': return 'Math.min(x, y)';
    case 'and': return i64 ? 'H.i64.and(x, y)' : '(x & y)';
    case 'or': return i64 ? 'H.i64.or(x, y)' : '(x | y)';
    case 'xor': return i64 ? 'H.i64.xor(x, y)' : '(x ^ y)';
    case 'shl': return i64 ? 'H.i64.shl(x, y)' : '(x << y)';
    case 'shr': return i64 ? 'H.i64.shr(x, y)' : isUnsignedDType(dtype) ? '(x >>> y)' : '(x >> y)';
  }
}

const COMPARE: Record<CompareOp, string> = {
  eq: '(x === y ? 1 : 0)', ne: '(x !== y ? 1 : 0)', gt: '(x > y ? 1 : 0)', ge: '(x >= y ? 1 : 0)', lt: '(x < y ? 1 : 0)', le: '(x <= y ? 1 : 0)',
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
