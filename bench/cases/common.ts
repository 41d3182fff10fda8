/** Helpers for writing cases. */
import type { InputSpec } from '../lib/types.js';

/** Inputs of the given shapes with distinct, fixed seeds (the same on every implementation). */
export function inputsOf(...shapes: (readonly number[])[]): InputSpec[] {
  return shapes.map((shape, k) => ({ shape, seed: 0x1234567 + 7919 * (k + 1) }));
}

/** Four mebi-elements: the size of the memory-bound cases (16 MiB of f32). */
export const FOUR_M = 4 * 1024 * 1024;

/** Bytes of `n` f32 values. */
export function f32Bytes(n: number): number {
  return 4 * n;
}
