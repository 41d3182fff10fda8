import { Module } from '../../module/module.js';
import { isPlainObject, joinPath } from '../../module/walk.js';
import { Tensor } from '../../tensor/tensor.js';

/**
 * @internal Rebuilds the module tree of `value` with some sub-modules replaced: `replace(module,
 * path)` returns the replacement, or undefined to descend into the module's fields. Only the
 * modules, arrays and plain objects on the way to a replacement are copied (without calling
 * constructors, as the module mappers do); everything else is shared.
 */
export function replaceModules(
  value: unknown,
  path: string,
  replace: (module: Module, path: string) => Module | undefined,
): unknown {
  if (value instanceof Module) {
    const replaced = replace(value, path);
    if (replaced !== undefined) return replaced;
    const fields = value as unknown as Record<string, unknown>;
    const keys = Object.keys(fields);
    const mapped = keys.map((key) => replaceModules(fields[key], joinPath(path, key), replace));
    if (mapped.every((v, i) => v === fields[keys[i]!])) return value;
    const copy = Object.create(Object.getPrototypeOf(value) as object) as Record<string, unknown>;
    keys.forEach((key, i) => (copy[key] = mapped[i]));
    return Tensor.keep(copy);
  }
  if (Array.isArray(value)) {
    const mapped = value.map((v: unknown, i) => replaceModules(v, joinPath(path, i), replace));
    return mapped.every((v, i) => v === value[i]) ? value : mapped;
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    const mapped = entries.map(([k, v]) => [k, replaceModules(v, joinPath(path, k), replace)] as const);
    return mapped.every(([, v], i) => v === entries[i]![1]) ? value : Object.fromEntries(mapped);
  }
  return value;
}

/** @internal Every sub-module (and `value` itself) for which `take` is true, with its path, not descending into those. */
export function findModules<M extends Module>(
  value: unknown,
  path: string,
  take: (module: Module) => module is M,
): [string, M][] {
  const out: [string, M][] = [];
  replaceModules(value, path, (module, at) => {
    if (take(module)) out.push([at, module]);
    return undefined;
  });
  return out;
}
