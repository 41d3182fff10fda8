/**
 * The names of the primitive operations every backend implements. The tables below are the single
 * source of truth for what exists; kernels and (in the autodiff decorator) gradient rules are
 * written as records keyed by these names, so a missing entry is a compile error.
 */

/** Elementwise unary ops. `not` is logical not for bool and bitwise not for ints. */
export const UNARY_OPS = [
  'neg',
  'abs',
  'sign',
  'exp',
  'expm1',
  'log',
  'log1p',
  'sqrt',
  'recip',
  'sigmoid',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'sinh',
  'cosh',
  'tanh',
  'asinh',
  'acosh',
  'atanh',
  'erf',
  'round',
  'floor',
  'ceil',
  'trunc',
  'not',
] as const;
/** An elementwise unary op. */
export type UnaryOp = (typeof UNARY_OPS)[number];

/** Elementwise predicates: the result is a bool tensor. */
export const PREDICATE_OPS = ['isnan', 'isinf'] as const;
/** An elementwise predicate. */
export type PredicateOp = (typeof PREDICATE_OPS)[number];

/**
 * Elementwise binary ops with broadcasting; the result has the dtype of the lhs.
 * `div` truncates for ints (Rust), `rem` takes the sign of the divisor (Burn's `remainder`),
 * `fmod` takes the sign of the dividend (C's fmod); `and`/`or`/`xor` are logical for bool and
 * bitwise for ints; `shl`/`shr` are bit shifts.
 */
export const BINARY_OPS = [
  'add',
  'sub',
  'mul',
  'div',
  'rem',
  'fmod',
  'pow',
  'atan2',
  'max',
  'min',
  'and',
  'or',
  'xor',
  'shl',
  'shr',
  'hypot',
] as const;
/** An elementwise binary op. */
export type BinaryOp = (typeof BINARY_OPS)[number];

/** Elementwise comparisons with broadcasting; the result is a bool tensor. */
export const COMPARE_OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
/** An elementwise comparison. */
export type CompareOp = (typeof COMPARE_OPS)[number];

/** Reductions over a set of dims (kept with size 1). `any`/`all` give bool. */
export const REDUCE_OPS = ['sum', 'prod', 'max', 'min', 'any', 'all'] as const;
/** A reduction. */
export type ReduceOp = (typeof REDUCE_OPS)[number];

/** Index reductions over one dim (kept with size 1); NaN counts as the extreme, ties take the first index. */
export const ARG_OPS = ['argmax', 'argmin'] as const;
/** An index reduction. */
export type ArgOp = (typeof ARG_OPS)[number];

/** Inclusive scans along one dim. */
export const SCAN_OPS = ['sum', 'prod', 'max', 'min'] as const;
/** A scan. */
export type ScanOp = (typeof SCAN_OPS)[number];

/** How scatter/selectAssign combine a value with what is already there (Burn's `IndexingUpdateOp`). */
export const SCATTER_OPS = ['assign', 'add', 'mul', 'min', 'max'] as const;
/** An indexing update op. */
export type ScatterOp = (typeof SCATTER_OPS)[number];
