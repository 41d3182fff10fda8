import type { ScatterOp } from '../../../backend/ops.js';
import { BurnError } from '../../../core/errors.js';
import type { CpuArray } from '../storage.js';
import { contiguousStrides } from '../../../core/shape.js';
import { isContiguous } from '../../../core/strided.js';
import type { Operand } from './strided.js';
import { forEachOffset3 } from './walk.js';

/** Gather, scatter and sort kernels over strided operands. */

function badIndex(op: string, index: number, dim: number, size: number): BurnError {
  return new BurnError(
    op,
    `index ${index} is out of bounds for dim ${dim} of size ${size}; expected 0 <= index < ${size}`,
  );
}

/** `out[m] = src[m with m[dim] = idx[m]]` over idx's shape; `out` is contiguous. */
export function gatherInto(
  out: CpuArray,
  src: Operand,
  srcShape: readonly number[],
  dim: number,
  idx: Operand,
  idxShape: readonly number[],
): void {
  const size = srcShape[dim]!;
  const dimStride = src.strides[dim]!;
  const srcStrides = src.strides.map((s, d) => (d === dim ? 0 : s));
  const outStrides = contiguousStrides(idxShape);
  const data = src.data,
    ind = idx.data;
  forEachOffset3(idxShape, srcStrides, src.offset, idx.strides, idx.offset, outStrides, 0, (sp, ip, op) => {
    const k = ind[ip]!;
    if (k < 0 || k >= size || k !== Math.floor(k)) throw badIndex('gather', k, dim, size);
    out[op] = data[sp + k * dimStride]!;
  });
}

/** Combines `values[m]` into `out[m with m[dim] = idx[m]]` over idx's shape; `out` is contiguous with `outShape`. */
export function scatterInto(
  op: ScatterOp,
  out: CpuArray,
  outShape: readonly number[],
  dim: number,
  idx: Operand,
  idxShape: readonly number[],
  values: Operand,
): void {
  const size = outShape[dim]!;
  if (
    (op === 'add' || op === 'assign') &&
    isContiguous(idxShape, idx.strides) &&
    isContiguous(idxShape, values.strides) &&
    sameOuter(outShape, idxShape, dim)
  ) {
    scatterDense(op, out, size, dim, idx, idxShape, values);
    return;
  }
  const full = contiguousStrides(outShape);
  const dimStride = full[dim]!;
  const outStrides = full.map((s, d) => (d === dim ? 0 : s));
  const ind = idx.data,
    val = values.data;
  forEachOffset3(idxShape, outStrides, 0, idx.strides, idx.offset, values.strides, values.offset, (tp, ip, vp) => {
    const k = ind[ip]!;
    if (k < 0 || k >= size || k !== Math.floor(k)) throw badIndex('scatter', k, dim, size);
    const t = tp + k * dimStride;
    const v = val[vp]!;
    switch (op) {
      case 'assign':
        out[t] = v;
        break;
      case 'add':
        out[t] = out[t]! + v;
        break;
      case 'mul':
        out[t] = out[t]! * v;
        break;
      case 'min': {
        const c = out[t]!;
        out[t] = v < c || v !== v ? v : c;
        break;
      }
      case 'max': {
        const c = out[t]!;
        out[t] = v > c || v !== v ? v : c;
        break;
      }
      default:
        op satisfies never; // every ScatterOp has a case
    }
  });
}

/** Whether the index tensor spans the whole output in every dim but `dim` (the common scatter: a gradient, a one-hot). */
function sameOuter(outShape: readonly number[], idxShape: readonly number[], dim: number): boolean {
  return outShape.length === idxShape.length && outShape.every((s, d) => d === dim || s === idxShape[d]);
}

/**
 * {@link scatterInto} for dense indices and values that cover the output in every dim but `dim`
 * (max-pooling gradients, one-hot builds): plain loops over `[outer, dim, inner]`.
 */
function scatterDense(
  op: 'add' | 'assign',
  out: CpuArray,
  size: number,
  dim: number,
  idx: Operand,
  idxShape: readonly number[],
  values: Operand,
): void {
  const outer = idxShape.slice(0, dim).reduce((a, s) => a * s, 1);
  const inner = idxShape.slice(dim + 1).reduce((a, s) => a * s, 1);
  const along = idxShape[dim]!;
  const ind = idx.data,
    val = values.data;
  let ip = idx.offset,
    vp = values.offset;
  for (let o = 0; o < outer; o++) {
    const base = o * size * inner;
    for (let j = 0; j < along; j++) {
      for (let q = 0; q < inner; q++, ip++, vp++) {
        const k = ind[ip]!;
        if (k < 0 || k >= size || k !== Math.floor(k)) throw badIndex('scatter', k, dim, size);
        const t = base + k * inner + q;
        out[t] = op === 'add' ? out[t]! + val[vp]! : val[vp]!;
      }
    }
  }
}

/** Stable sort of every line along `dim`; NaN sorts as the largest value (as in PyTorch). */
export function sortInto(
  values: CpuArray,
  indices: Int32Array,
  src: Operand,
  shape: readonly number[],
  dim: number,
  descending: boolean,
): void {
  // No element, no line to sort: the scratch below is sized by the dim, which may be huge.
  if (values.length === 0) return;
  const n = shape[dim]!;
  const stride = src.strides[dim]!;
  const outStrides = contiguousStrides(shape);
  const oStride = outStrides[dim]!;
  const kept = shape.map((s, d) => (d === dim ? 1 : s));
  const line = new Float64Array(n);
  const order = new Int32Array(n);
  const cmp = (i: number, j: number): number => {
    const a = line[i]!,
      b = line[j]!;
    const an = a !== a,
      bn = b !== b;
    let c = an || bn ? (an ? (bn ? 0 : 1) : -1) : a < b ? -1 : a > b ? 1 : 0;
    if (descending) c = -c;
    return c !== 0 ? c : i - j;
  };
  forEachOffset3(kept, src.strides, src.offset, outStrides, 0, outStrides, 0, (sp, op) => {
    for (let j = 0; j < n; j++) {
      line[j] = src.data[sp + j * stride]!;
      order[j] = j;
    }
    order.sort(cmp);
    for (let j = 0; j < n; j++) {
      values[op + j * oStride] = line[order[j]!]!;
      indices[op + j * oStride] = order[j]!;
    }
  });
}
