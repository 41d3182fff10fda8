/**
 * The native engine's op tables: the addon's codes matched by name (see ../op-codes.ts); the ops'
 * cost classes, which pick the size from which a call into the addon pays, are in ../op-cost.ts.
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
