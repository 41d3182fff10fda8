import { Tensor } from '../tensor/tensor.js';
import type { Kind } from '../tensor/kind.js';
import { Param, RunningState } from './param.js';

/**
 * Generic traversal of a module's fields: parameters (`Param`), running states, sub-modules (any
 * object with a `mapLeaves` method — the Module base class), arrays and plain objects of them.
 * Everything else is a constant, carried over unchanged.
 */

/** A leaf of the module tree. */
export type Leaf = Param | RunningState;

/** Rewrites leaves; returns a new leaf (or the same one). */
export interface LeafMapper {
  param?(param: Param, path: string): Param;
  state?(state: RunningState, path: string): RunningState;
  /** Plain tensor fields (constants that still move with the module). */
  tensor?(tensor: Tensor<number, Kind>, path: string): Tensor<number, Kind>;
}

/** Something that maps its own leaves (the Module base class). */
export interface Mappable {
  mapLeaves(mapper: LeafMapper, path: string): unknown;
  visitLeaves(visitor: (leaf: Leaf, path: string) => void, path: string): void;
}

/** Joins a path and a field name: `conv1.weight`, `layers.0`. */
export function joinPath(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

function isMappable(value: unknown): value is Mappable {
  return typeof value === 'object' && value !== null && typeof (value as Partial<Mappable>).mapLeaves === 'function';
}

/** True for `{}`-literal objects (not class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Maps every leaf inside `value`, rebuilding arrays, plain objects and modules; constants are shared. */
export function mapValue(value: unknown, path: string, mapper: LeafMapper): unknown {
  if (value instanceof Param) return mapper.param ? mapper.param(value, path) : value;
  if (value instanceof RunningState) return mapper.state ? mapper.state(value, path) : value;
  if (value instanceof Tensor) return mapper.tensor ? mapper.tensor(value, path) : value;
  if (isMappable(value)) return value.mapLeaves(mapper, path);
  if (Array.isArray(value)) return value.map((v, i) => mapValue(v, joinPath(path, i), mapper));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapValue(v, joinPath(path, k), mapper);
    return out;
  }
  return value;
}

/**
 * Moves the fields of `source` — a copy of `target` rebuilt by {@link mapValue} — into `target`,
 * descending into sub-modules, arrays and plain objects of the same shape, so that whoever holds
 * `target` or a part of it sees the new leaves. Frozen parts are replaced whole.
 */
export function assignInPlace(target: object, source: object): void {
  const t = target as Record<string, unknown>,
    s = source as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    const from = s[key],
      to = t[key];
    if (from === to) continue;
    const sameShape =
      typeof to === 'object' &&
      to !== null &&
      typeof from === 'object' &&
      from !== null &&
      !Object.isFrozen(to) &&
      ((isMappable(to) && isMappable(from) && Object.getPrototypeOf(to) === Object.getPrototypeOf(from)) ||
        (Array.isArray(to) && Array.isArray(from) && to.length === from.length) ||
        (isPlainObject(to) && isPlainObject(from)));
    if (sameShape) assignInPlace(to, from);
    else t[key] = from;
  }
}

/** Visits every parameter and running state inside `value`, in field order. */
export function visitValue(value: unknown, path: string, visitor: (leaf: Leaf, path: string) => void): void {
  if (value instanceof Param || value instanceof RunningState) return visitor(value, path);
  if (isMappable(value)) return value.visitLeaves(visitor, path);
  if (Array.isArray(value)) return value.forEach((v, i) => visitValue(v, joinPath(path, i), visitor));
  if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) visitValue(v, joinPath(path, k), visitor);
}
