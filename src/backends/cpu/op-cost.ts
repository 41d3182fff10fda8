import type { BinaryOp, UnaryOp } from '../../backend/ops.js';

/**
 * How much work an elementwise op does per element, which decides from what size an accelerated
 * engine's kernel (and its threads) pays: `costly` is transcendental (a libm call per element in
 * JavaScript), `cheap` is memory-bound. A property of the op, shared by the native and wasm engines.
 */
export type OpCost = 'cheap' | 'costly';

/** The cost class of each unary op. */
export const UNARY_COST: Readonly<Record<UnaryOp, OpCost>> = {
  neg: 'cheap',
  abs: 'cheap',
  sign: 'cheap',
  exp: 'costly',
  expm1: 'costly',
  log: 'costly',
  log1p: 'costly',
  sqrt: 'cheap',
  recip: 'cheap',
  sigmoid: 'costly',
  sin: 'costly',
  cos: 'costly',
  tan: 'costly',
  asin: 'costly',
  acos: 'costly',
  atan: 'costly',
  sinh: 'costly',
  cosh: 'costly',
  tanh: 'costly',
  asinh: 'costly',
  acosh: 'costly',
  atanh: 'costly',
  erf: 'costly',
  round: 'cheap',
  floor: 'cheap',
  ceil: 'cheap',
  trunc: 'cheap',
  not: 'cheap',
};

/** The cost class of each binary op. */
export const BINARY_COST: Readonly<Record<BinaryOp, OpCost>> = {
  add: 'cheap',
  sub: 'cheap',
  mul: 'cheap',
  div: 'cheap',
  rem: 'costly',
  fmod: 'costly',
  pow: 'costly',
  atan2: 'costly',
  hypot: 'costly',
  max: 'cheap',
  min: 'cheap',
  and: 'cheap',
  or: 'cheap',
  xor: 'cheap',
  shl: 'cheap',
  shr: 'cheap',
};
