/**
 * Node's built-in modules, resolved at run time through `process.getBuiltinModule` instead of an
 * `import` of `node:…`: bundlers see no import, so the modules that use files also build for
 * browsers (package.json's `browser` condition), and fail there only when a Node feature is used.
 */
import { BurnError } from '../core/errors.js';

type GetBuiltin = (id: string) => unknown;

/** True in Node.js. */
export function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

/** The built-in module `id` (e.g. `'node:fs'`), or undefined outside Node (or before Node 20.16). */
export function nodeBuiltin<T>(id: string): T | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: GetBuiltin } }).process?.getBuiltinModule;
  return typeof get === 'function' ? (get(id) as T | undefined) : undefined;
}

/** The built-in module `id`, or a BurnError of `op` saying that `what` is Node-only. */
export function requireNodeBuiltin<T>(id: string, op: string, what: string): T {
  const mod = nodeBuiltin<T>(id);
  if (mod !== undefined) return mod;
  throw new BurnError(
    op,
    isNode()
      ? `${what} needs Node >= 20.16 (process.getBuiltinModule)`
      : `${what} is only available in Node.js (in a browser, pass bytes or a URL to fetch)`,
  );
}
