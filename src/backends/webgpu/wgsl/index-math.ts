import type { Params } from './params.js';

/**
 * Flat index → strided offsets, the one piece of index arithmetic every strided kernel needs: a
 * thread's linear position is split into coordinates (last dim fastest) and each operand's offset
 * advances by coordinate × stride. Sizes and strides are uniform words ({@link Params}), so the
 * generated text depends on the rank and the number of operands only and the pipeline cache keyed
 * by shader text holds one entry per rank.
 */

/** One dim of a decomposition: its size and the stride of each offset variable (WGSL expressions). */
export interface IndexDim {
  readonly size: string;
  readonly strides: readonly string[];
  /** WGSL run once the dim's i32 coordinate `c` is known (e.g. a flag set off coordinate 0). */
  readonly extra?: string;
}

/**
 * Appends each dim's size (u32) then its stride in every set (i32) to `p`, dim by dim, and returns
 * the dims for {@link decomposeIndex}.
 */
export function indexDims(p: Params, shape: readonly number[], strideSets: readonly (readonly number[])[]): IndexDim[] {
  return shape.map((size, d) => ({ size: p.u(size), strides: strideSets.map((s) => p.i(s[d]!)) }));
}

/**
 * WGSL lines that declare `var rem = index;` and add, per dim from the last, `c · stride` to each
 * of `offsets` (i32 variables the caller declared), consuming `rem`. `index` must be below the
 * product of the sizes: the first dim then takes the remainder without a modulo.
 */
export function decomposeIndex(
  index: string,
  rem: string,
  offsets: readonly string[],
  dims: readonly IndexDim[],
  indent = '  ',
): string[] {
  const lines = [`${indent}var ${rem} = ${index};`];
  for (let d = dims.length - 1; d >= 0; d--) {
    const dim = dims[d]!;
    const coord =
      d === 0 ? `let c = i32(${rem});` : `let c = i32(${rem} % ${dim.size}); ${rem} = ${rem} / ${dim.size};`;
    const steps = offsets.map((o, k) => ` ${o} = ${o} + c * ${dim.strides[k]!};`).join('');
    lines.push(`${indent}{ ${coord}${steps}${dim.extra === undefined ? '' : ` ${dim.extra}`} }`);
  }
  return lines;
}
