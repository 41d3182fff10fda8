/**
 * Strided layouts shared by every backend: a tensor is a view `(shape, strides, offset)` into flat
 * storage, in elements. Views (permute, expand, slice) only rewrite these three; kernels collapse
 * the dims their operands walk together first so they index as few dims as possible. Row-major
 * strides of a shape are {@link contiguousStrides} in `shape.ts`.
 */

/** A strided view into flat storage: per-dim sizes and strides and the first element's offset. */
export interface StridedView {
  readonly shape: number[];
  readonly strides: number[];
  readonly offset: number;
}

/** One dim of a slice: the first index, the element count and a signed step. */
export interface SliceRange {
  readonly start: number;
  readonly size: number;
  readonly step: number;
}

/**
 * True when `strides` are the row-major strides of `shape`, ignoring size-1 dims (their stride
 * never moves): such a view is one dense run from its offset.
 */
export function isContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  let expected = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const size = shape[i]!;
    if (size !== 1 && strides[i] !== expected) return false;
    expected *= size;
  }
  return true;
}

/**
 * Strides of a view of `shape`/`strides` broadcast to `outShape` (aligned on the right, NumPy
 * rules): 0 on the leading dims it lacks and on its size-1 dims that `outShape` widens.
 */
export function alignStrides(
  shape: readonly number[],
  strides: readonly number[],
  outShape: readonly number[],
): number[] {
  const rank = outShape.length;
  const off = rank - shape.length;
  const out = new Array<number>(rank);
  for (let i = 0; i < rank; i++)
    out[i] = i < off || (shape[i - off] === 1 && outShape[i] !== 1) ? 0 : strides[i - off]!;
  return out;
}

/**
 * Drops size-1 dims and merges adjacent dims that are contiguous in every stride set; returns the
 * collapsed shape and the strides of each set. A shape with a 0 collapses to `[0]` (strides `[1]`):
 * every walk over it then ends at once instead of stepping through the rows of the non-zero dims,
 * which may number 2^32 or more.
 */
export function collapse(
  shape: readonly number[],
  strideSets: readonly (readonly number[])[],
): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = strideSets.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    const size = shape[d]!;
    if (size === 1) continue;
    if (size === 0) return { shape: [0], strides: strideSets.map(() => [1]) };
    const last = outShape.length - 1;
    if (last >= 0 && strideSets.every((s, k) => outStrides[k]![last] === s[d]! * size)) {
      outShape[last] = outShape[last]! * size;
      for (let k = 0; k < strideSets.length; k++) outStrides[k]![last] = strideSets[k]![d]!;
    } else {
      outShape.push(size);
      for (let k = 0; k < strideSets.length; k++) outStrides[k]!.push(strideSets[k]![d]!);
    }
  }
  return { shape: outShape, strides: outStrides };
}

/**
 * Splits the dims of a strided operand into the kept dims and the reduced `dims` (each in dim
 * order) and collapses each group: a reduction walks the kept group as its outer loop and the
 * reduced group as its inner one. An empty group collapses to rank 0, a zero-size one to `[0]`.
 */
export function splitReduced(
  shape: readonly number[],
  strides: readonly number[],
  dims: readonly number[],
): {
  kept: { shape: number[]; strides: number[] };
  reduced: { shape: number[]; strides: number[] };
} {
  const red = new Set(dims);
  const keptShape: number[] = [],
    keptStrides: number[] = [],
    redShape: number[] = [],
    redStrides: number[] = [];
  for (let d = 0; d < shape.length; d++) {
    if (red.has(d)) {
      redShape.push(shape[d]!);
      redStrides.push(strides[d]!);
    } else {
      keptShape.push(shape[d]!);
      keptStrides.push(strides[d]!);
    }
  }
  const kept = collapse(keptShape, [keptStrides]);
  const reduced = collapse(redShape, [redStrides]);
  return {
    kept: { shape: kept.shape, strides: kept.strides[0]! },
    reduced: { shape: reduced.shape, strides: reduced.strides[0]! },
  };
}

/** The view with its dims reordered: dim `i` of the result is dim `axes[i]` of the input. */
export function permuteView(
  shape: readonly number[],
  strides: readonly number[],
  offset: number,
  axes: readonly number[],
): StridedView {
  return { shape: axes.map((a) => shape[a]!), strides: axes.map((a) => strides[a]!), offset };
}

/**
 * The view of a slice: per dim, `size` elements from `start` every `step` (negative steps walk
 * backwards). The offset moves only along non-empty dims, so an empty slice never points past
 * the storage. Dims without a range keep their size and stride.
 */
export function sliceView(
  shape: readonly number[],
  strides: readonly number[],
  offset: number,
  ranges: readonly SliceRange[],
): StridedView {
  const outShape = [...shape];
  const outStrides = [...strides];
  let at = offset;
  ranges.forEach((r, d) => {
    if (r.size > 0) at += r.start * strides[d]!;
    outShape[d] = r.size;
    outStrides[d] = strides[d]! * r.step;
  });
  return { shape: outShape, strides: outStrides, offset: at };
}
