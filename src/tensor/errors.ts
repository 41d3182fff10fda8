/**
 * The one error type of burn-ts. Its message names the operation, the offending values and what
 * was expected, e.g. `matmul: inner dimensions differ: lhs [2, 3] and rhs [4, 5]; expected lhs[-1] == rhs[-2]`.
 */
export class BurnError extends Error {
  /** The operation that failed (`matmul`, `reshape`, `Tensor.fromData`, …). */
  readonly op: string;

  constructor(op: string, message: string) {
    super(`${op}: ${message}`);
    this.name = 'BurnError';
    this.op = op;
  }
}

/** Throws a {@link BurnError} for `op` when `condition` is false; the message is built lazily. */
export function check(condition: boolean, op: string, message: () => string): asserts condition {
  if (!condition) throw new BurnError(op, message());
}

/** Formats a shape or index list as `[a, b, c]` for error messages. */
export function fmt(values: readonly (number | bigint)[]): string {
  return `[${values.join(', ')}]`;
}
