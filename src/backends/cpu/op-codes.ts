/**
 * Matching an accelerated engine's op codes by name. The native addon and the wasm module each
 * define their op codes once, by name (native/src/ops.h, wasm/assembly/*); the engines look every
 * op of a TypeScript op list up in that table, so a code is never kept in two places. An op the
 * engine lacks gets `undefined` (the engine declines it and the `js` kernels run); a name the
 * TypeScript side does not know means the engine was built from other sources, and is an error.
 */

/** `codes[op]`: the engine's code for `op`, or undefined where the engine lacks it. */
export type OpCodes<Op extends string> = Readonly<Record<Op, number | undefined>>;

/**
 * The codes of `known` ops in the engine's `table` (name → code). Throws an Error naming every
 * name of `table` that `known` lacks (`what` names the table in the message).
 */
export function opCodesByName<Op extends string>(
  what: string,
  known: readonly Op[],
  table: Readonly<Record<string, number>>,
): OpCodes<Op> {
  const names = new Set<string>(known);
  const unknown = Object.keys(table).filter((name) => !names.has(name));
  if (unknown.length > 0)
    throw new Error(
      `${what}: the engine defines ops this build does not know: ${unknown.join(', ')} (expected a subset of ${known.join(', ')})`,
    );
  const codes = {} as Record<Op, number | undefined>;
  for (const op of known) {
    const code = table[op];
    if (code !== undefined && !(Number.isInteger(code) && code >= 0))
      throw new Error(`${what}: the code of ${op} is ${String(code)}; expected a non-negative integer`);
    codes[op] = code;
  }
  return codes;
}
