import { BurnError, fmt } from './errors.js';

/** How a value that is not an options object reads in a message. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value !== 'object') return String(value);
  const dims = (value as { dims?: unknown }).dims;
  const name = (value as object).constructor?.name;
  if (typeof dims === 'function') return `a ${name ?? 'Tensor'} of shape ${fmt((dims as () => number[]).call(value))}`;
  return `a ${name ?? 'value'}`;
}

/**
 * Checks that `options` (the last argument of `op`) is undefined or an options object whose keys
 * are all in `known`: a tensor passed where the options go (arguments in another order), or a
 * misspelled option, would otherwise be ignored and the call would compute something else.
 */
export function checkOptions(options: unknown, known: readonly string[], op: string): void {
  if (options === undefined) return;
  const shape = `{ ${known.join(', ')} }`;
  if (
    typeof options !== 'object' ||
    options === null ||
    Array.isArray(options) ||
    typeof (options as { dims?: unknown }).dims === 'function'
  ) {
    throw new BurnError(op, `options must be an object ${shape}, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new BurnError(op, `unknown option '${key}'; the options are ${known.join(', ')}`);
  }
}
