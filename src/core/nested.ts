import { BurnError, describeValue, fmt } from './errors.js';

/** A scalar or arbitrarily nested array of scalars, as accepted by `Tensor.fromFloats`. */
export type Nested<T> = T | readonly Nested<T>[];

/** The kind of leaf a nested array holds, as named in messages. */
export type LeafKind = 'number' | 'boolean';

/**
 * Flattens a rectangular nested array into values and a shape; throws a BurnError for ragged
 * input and for a leaf that is not a `leaf` (`undefined`: the kind of the first leaf, so numbers
 * and booleans never mix).
 */
export function flattenNested<T extends number | boolean>(
  value: Nested<T>,
  op: string,
  leaf?: LeafKind,
): { values: T[]; shape: number[] } {
  const shape: number[] = [];
  let probe: unknown = value;
  while (Array.isArray(probe)) {
    shape.push(probe.length);
    probe = probe[0];
  }
  const kind: LeafKind = leaf ?? (typeof probe === 'boolean' ? 'boolean' : 'number');
  const values: T[] = [];
  const walk = (v: unknown, depth: number, path: number[]): void => {
    if (depth === shape.length) {
      if (typeof v !== kind) {
        const nesting = Array.isArray(v) ? `; the nesting must be rectangular with shape ${fmt(shape)}` : '';
        throw new BurnError(op, `element at ${fmt(path)} is ${describeValue(v)}; expected a ${kind}${nesting}`);
      }
      values.push(v as T);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[depth]) {
      throw new BurnError(
        op,
        `ragged nested array at ${fmt(path)}: expected ${shape[depth]} elements, got ${Array.isArray(v) ? v.length : 'a scalar'}`,
      );
    }
    for (let i = 0; i < v.length; i++) walk(v[i], depth + 1, [...path, i]);
  };
  walk(value, 0, []);
  return { values, shape };
}

/** Builds nested arrays of `shape` from flat values. */
export function unflatten<T>(values: ArrayLike<T>, shape: readonly number[]): Nested<T> {
  if (shape.length === 0) return values[0]!;
  let offset = 0;
  const build = (depth: number): Nested<T>[] => {
    const out: Nested<T>[] = [];
    for (let i = 0; i < shape[depth]!; i++) out.push(depth === shape.length - 1 ? values[offset++]! : build(depth + 1));
    return out;
  };
  return build(0);
}
