import type { BinaryOp, UnaryOp } from '../../backend/ops.js';
import { isFloatDType, type DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';

/*
 * The dtype rules of the elementwise ops, checked when an op is recorded: a lazy op must fail at
 * its call, as the eager backends do, not later when its block runs. The messages are the CPU
 * backend's (cpu/js/expressions.ts).
 */

/** Throws where `op` is not defined for `dtype` (bitwise not of floats; math of bools). */
export function checkUnary(op: UnaryOp, dtype: DType): void {
  if (op === 'not') {
    if (isFloatDType(dtype)) throw new BurnError('not', `bitwise not needs an int or bool tensor, got ${dtype}`);
    return;
  }
  if (dtype === 'bool') throw new BurnError(op, 'needs a numeric tensor, got bool');
}

const BOOL_BINARY: ReadonlySet<BinaryOp> = new Set(['and', 'or', 'xor', 'max', 'min']);
const INT_OR_BOOL_BINARY: ReadonlySet<BinaryOp> = new Set(['and', 'or', 'xor', 'shl', 'shr']);

/** Throws where binary `op` is not defined for `dtype` (arithmetic of bools; bit ops of floats). */
export function checkBinary(op: BinaryOp, dtype: DType): void {
  if (dtype === 'bool' && !BOOL_BINARY.has(op)) throw new BurnError(op, 'is not defined for bool tensors');
  if (isFloatDType(dtype) && INT_OR_BOOL_BINARY.has(op))
    throw new BurnError(op, `needs int or bool tensors, got ${dtype}`);
}
