/**
 * The native engine's op tables: the addon's codes matched by name (see ../op-codes.ts), and the
 * cost class of each op, which picks the size from which a call into the addon pays.
 */
import {
  BINARY_OPS,
  COMPARE_OPS,
  REDUCE_OPS,
  UNARY_OPS,
  type BinaryOp,
  type CompareOp,
  type ReduceOp,
  type UnaryOp,
} from '../../../backend/ops.js';
import { opCodesByName, type OpCodes } from '../op-codes.js';
import type { NativeOpNames } from './addon.js';

/** The addon's binary op `a <= 0 ? 0 : b` (the ReLU gradient from its output; not a tensor op of its own). */
export type NativeBinaryOp = BinaryOp | 'reluGrad';

/** The addon's op codes, one table per op family, keyed by every TypeScript op name. */
export interface NativeOpCodes {
  readonly unary: OpCodes<UnaryOp>;
  readonly binary: OpCodes<NativeBinaryOp>;
  readonly reduce: OpCodes<ReduceOp>;
  readonly compare: OpCodes<CompareOp>;
}

/** The codes of `ops` (the addon's `ops` export); throws on a name the TypeScript side does not know. */
export function nativeOpCodes(ops: NativeOpNames): NativeOpCodes {
  return {
    unary: opCodesByName('native addon ops.unary', UNARY_OPS, ops.unary),
    binary: opCodesByName('native addon ops.binary', [...BINARY_OPS, 'reluGrad'], ops.binary),
    reduce: opCodesByName('native addon ops.reduce', REDUCE_OPS, ops.reduce),
    compare: opCodesByName('native addon ops.compare', COMPARE_OPS, ops.compare),
  };
}

/** `costly`: a libm call per element in JavaScript, worth the addon from a few elements; `cheap`: worth it from thousands. */
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
