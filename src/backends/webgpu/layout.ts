import { contiguousStrides } from '../../core/shape.js';
import type { GPUBuffer } from './gpu-types.js';
import type { DType } from '../../core/dtype.js';

/** A strided operand of a kernel: a buffer, an element offset and per-dim strides (in elements). */
export interface Operand {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly strides: readonly number[];
  readonly dtype: DType;
}

/** Strides of a tensor of `shape`/`strides` aligned to an output of `outShape` (0 on broadcast dims). */
export function alignStrides(shape: readonly number[], strides: readonly number[], outShape: readonly number[]): number[] {
  const rank = outShape.length;
  const off = rank - shape.length;
  const out = new Array<number>(rank);
  for (let i = 0; i < rank; i++) out[i] = i < off || (shape[i - off] === 1 && outShape[i] !== 1) ? 0 : strides[i - off]!;
  return out;
}

/**
 * Merges adjacent dims that every stride set walks as one (and drops size-1 dims), so kernels
 * index as few dims as possible: a contiguous elementwise op becomes rank 1.
 */
export function collapse(shape: readonly number[], strideSets: readonly (readonly number[])[]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = strideSets.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    const size = shape[d]!;
    if (size === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && strideSets.every((s, k) => outStrides[k]![last] === s[d]! * size)) {
      outShape[last]! *= size;
      strideSets.forEach((s, k) => (outStrides[k]![last] = s[d]!));
    } else {
      outShape.push(size);
      strideSets.forEach((s, k) => outStrides[k]!.push(s[d]!));
    }
  }
  return { shape: outShape, strides: outStrides };
}

/** True when `strides` are the row-major strides of `shape` (ignoring size-1 dims). */
export function isRowMajor(shape: readonly number[], strides: readonly number[]): boolean {
  const c = contiguousStrides(shape);
  return shape.every((s, d) => s === 1 || strides[d] === c[d]);
}
