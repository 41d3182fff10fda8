/**
 * @internal Shared pieces of the spatial layers (conv, pool, fold): per-dim config schemas, input
 * checks with layer-named errors, explicit padding, and Burn's display of per-dim values.
 */
import { z } from 'zod';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ResolvedPadding } from './padding.js';

const positive = z.number().int().positive();
const nonNegative = z.number().int().nonnegative();

/** `[a, b]` of positive integers. */
export const pair = z.tuple([positive, positive]);
/** `[a, b, c]` of positive integers. */
export const triple = z.tuple([positive, positive, positive]);
/** `[a, b]` of non-negative integers. */
export const pair0 = z.tuple([nonNegative, nonNegative]);
/** `[a, b, c]` of non-negative integers. */
export const triple0 = z.tuple([nonNegative, nonNegative, nonNegative]);

const SPATIAL = ['', 'length', 'height, width', 'depth, height, width'];

/** The layout of a channels-first input: `[batch, 4, height, width]`. */
export function layoutOf(nd: number, channels: number | string = 'channels'): string {
  return `[batch, ${channels}, ${SPATIAL[nd]}]`;
}

/**
 * Checks that `input` is `[batch, channels, ...spatial]` with `nd` spatial dims (and `channels`
 * channels when given), or throws a BurnError naming the layer, the shape and the layout expected.
 */
export function expectSpatialInput(
  input: Tensor<number, Float>,
  nd: number,
  channels: number | undefined,
  layer: string,
): number[] {
  const dims = input.dims();
  if (dims.length !== nd + 2 || (channels !== undefined && dims[1] !== channels)) {
    const what = dims.length !== nd + 2 ? `has rank ${dims.length}` : `has ${dims[1]} channels`;
    throw new BurnError(layer, `input of shape ${fmt(dims)} ${what}; expected ${layoutOf(nd, channels)}`);
  }
  return dims;
}

/** Pads the last `start.length` dims of `x` with `value` (zeros for convolutions, -inf for max pooling). */
export function padSpatial<D extends number>(
  x: Tensor<D, Float>,
  padding: ResolvedPadding,
  value: number,
): Tensor<D, Float> {
  return x.pad(
    padding.start.map((s, i) => [s, padding.end[i]!] as const),
    value,
  );
}

/** Burn's display of a per-dim value: the number itself for 1-d layers, the list otherwise. */
export function perDimDisplay(values: readonly number[]): number | readonly number[] {
  return values.length === 1 ? values[0]! : values;
}

/** A per-dim list from a 1-d layer's scalar option (a list is copied). */
export function listOf(value: number | readonly number[]): number[] {
  return typeof value === 'number' ? [value] : [...value];
}
