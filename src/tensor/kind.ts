import type { DType, FloatDType } from '../core/dtype.js';

/** The float kind of tensor (Burn's `Float`), the default. */
export type Float = 'float';
/** The integer kind of tensor (Burn's `Int`). */
export type Int = 'int';
/** The boolean kind of tensor (Burn's `Bool`). */
export type Bool = 'bool';
/** A tensor kind. */
export type Kind = Float | Int | Bool;
/** The kinds that support arithmetic. */
export type Numeric = Float | Int;

/** The kind a dtype belongs to. */
export type KindOf<T extends DType> = T extends FloatDType ? Float : T extends 'bool' ? Bool : Int;

/** The element value a kind reads back as. */
export type ElementOf<K extends Kind> = K extends Bool ? boolean : number;

/** The runtime kind of a dtype. */
export function kindOf(dtype: DType): Kind {
  return dtype === 'bool'
    ? 'bool'
    : dtype === 'f32' || dtype === 'f64' || dtype === 'f16' || dtype === 'bf16'
      ? 'float'
      : 'int';
}

// --- type-level rank arithmetic (ranks up to 12; beyond that, or for unknown ranks, `number`) ---

type Tup = [
  [],
  [0],
  [0, 0],
  [0, 0, 0],
  [0, 0, 0, 0],
  [0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];
type TupOf<N extends number> = N extends keyof Tup ? Tup[N] : never;
/** Narrows a computed length to a number. */
type N<T> = T extends number ? T : never;
type Known<N extends number> = number extends N ? false : N extends keyof Tup ? true : false;

/** `D + 1`. */
export type Inc<D extends number> = Known<D> extends true ? N<[...TupOf<D>, 0]['length']> : number;
/** `D - 1` (never below 0). */
export type Dec<D extends number> =
  Known<D> extends true ? (TupOf<D> extends [0, ...infer R] ? N<R['length']> : 0) : number;
/** `A + B`. */
export type Add<A extends number, B extends number> =
  Known<A> extends true ? (Known<B> extends true ? N<[...TupOf<A>, ...TupOf<B>]['length']> : number) : number;
/** `A - B` (never below 0). */
export type Sub<A extends number, B extends number> =
  Known<A> extends true
    ? Known<B> extends true
      ? TupOf<A> extends [...TupOf<B>, ...infer R]
        ? N<R['length']>
        : 0
      : number
    : number;

/** The rank of a shape literal: `[2, 3]` → 2; a `number[]` → number. */
export type RankOf<S extends readonly number[]> = number extends S['length'] ? number : S['length'];

/** Depth of nested arrays: `[[1, 2]]` → 2. */
export type DepthOf<A> = A extends readonly (infer E)[] ? Inc<DepthOf<E>> : 0;

/** The rank after flattening dims `S..E` of a rank-`D` tensor (both non-negative literals). */
export type FlattenRank<D extends number, S extends number, E extends number> =
  Known<S> extends true ? (Known<E> extends true ? Sub<D, Sub<E, S>> : number) : number;
