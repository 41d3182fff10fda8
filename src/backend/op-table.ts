import type { DType } from '../core/dtype.js';
import { BurnError } from '../core/errors.js';

/**
 * Per-op tables (kernels, expressions, gradient rules) are `Record<Op, …>` over the unions of
 * ./ops.ts, so adding an op without an entry is a compile error. An op that some dtypes do not
 * define still has an entry, made with {@link notDefined}: looking it up with {@link entryOf}
 * throws a `BurnError` that names the op and the dtype.
 */

/** A table entry for an op that is not defined for the table's dtypes; `reason` gets the dtype. */
export interface NotDefined {
  readonly notDefined: (dtype: DType) => string;
}

/** The entry of an op that the table's dtypes do not define, with the error's reason. */
export function notDefined(reason: (dtype: DType) => string): NotDefined {
  return { notDefined: reason };
}

/** The entry of `op` in `table`, or a `BurnError` naming `op` and `dtype` where it is {@link notDefined}. */
export function entryOf<Op extends string, T>(table: Readonly<Record<Op, T | NotDefined>>, op: Op, dtype: DType): T {
  const entry = table[op];
  if (typeof entry === 'object' && entry !== null && 'notDefined' in entry)
    throw new BurnError(op, (entry as NotDefined).notDefined(dtype));
  return entry as T;
}
