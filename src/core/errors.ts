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

/**
 * Describes any JavaScript value for an error message, never throwing: numbers as they print,
 * BigInts as `1n`, strings quoted, arrays and objects by their kind (a value of the wrong type is
 * what the message is about, so its type must show: `"2"` is not `2`).
 */
export function describeValue(v: unknown): string {
  switch (typeof v) {
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(v);
    case 'bigint':
      return `${v}n`;
    case 'string':
      return JSON.stringify(v);
    case 'symbol':
    case 'function':
      return `a ${typeof v}`;
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return `${/^[AEIOU]/.test(v.constructor.name) ? 'an' : 'a'} ${v.constructor.name}`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return 'an object';
  }
}

/** Formats a list that may hold non-numbers (a shape given by a user) as `[a, b, c]`. */
export function fmtValues(values: readonly unknown[]): string {
  return `[${values.map(describeValue).join(', ')}]`;
}

/**
 * The error to rethrow when an op built on other ops fails in one of them: a {@link BurnError} of
 * the inner op (`gather`, `where`, …) becomes one of `op`, the op the user called, with the same
 * explanation and `context` appended; anything else is returned as it is.
 */
export function renameError(e: unknown, op: string, context?: string): unknown {
  if (!(e instanceof BurnError) || (e.op === op && context === undefined)) return e;
  const detail = e.message.startsWith(`${e.op}: `) ? e.message.slice(e.op.length + 2) : e.message;
  const renamed = new BurnError(op, context === undefined ? detail : `${detail} (${context})`);
  if (e.stack !== undefined)
    renamed.stack = `${renamed.name}: ${renamed.message}\n${e.stack.split('\n').slice(1).join('\n')}`;
  return renamed;
}

/**
 * The op the user called, while it runs (see {@link enterUserOp}). Backends that find an error only
 * later — an index a GPU kernel flags when its batch settles, a command a remote server runs — keep
 * it with the deferred check, so the error they raise at the read names `take` or `embedding`, not
 * the internal `select` or `gather` that ran.
 */
let userOp: string | undefined;

/** The user op running now (undefined outside {@link enterUserOp}); backends keep it with a deferred check. */
export function currentUserOp(): string | undefined {
  return userOp;
}

/**
 * Marks `op`, the op the user called, as running until {@link leaveUserOp} is given the returned
 * value, so that backends label what they defer with it. Call both around the op's body, beside
 * the {@link renameError} of its immediate errors:
 *
 * ```ts
 * const outer = enterUserOp('take');
 * try { ... } catch (e) { throw renameError(e, 'take'); } finally { leaveUserOp(outer); }
 * ```
 *
 * The outermost op wins (the ops a composite op runs are its implementation). Only synchronous
 * bodies: an await inside would leave the label on for unrelated work. Costs two assignments.
 */
export function enterUserOp(op: string): string | undefined {
  const outer = userOp;
  if (outer === undefined) userOp = op;
  return outer;
}

/** Ends the op {@link enterUserOp} started (`outer` is what it returned). */
export function leaveUserOp(outer: string | undefined): void {
  userOp = outer;
}

/** A deferred error `e` of work labelled `op` (by {@link currentUserOp} when it was queued), renamed to that op. */
export function relabelError(e: Error, op: string | undefined): Error {
  // renameError returns a BurnError for a BurnError and anything else as it is: an Error here.
  return op === undefined ? e : (renameError(e, op) as Error);
}
