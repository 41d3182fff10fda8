import type { ArgOp, ReduceOp, ScanOp } from '../../../backend/ops.js';
import type { CpuArray } from '../storage.js';
import { contiguousStrides } from '../../../core/shape.js';
import { splitReduced } from '../../../core/strided.js';
import type { Operand } from './strided.js';
import { forEachOffset, forEachOffset2 } from './walk.js';

/**
 * Reductions, index reductions and scans over strided inputs. The kept dims form an outer
 * odometer, the reduced dims an inner one; both are collapsed, so a reduction over the last
 * contiguous dim is a flat loop.
 */

type ReduceKernel = (
  out: CpuArray,
  outerShape: number[],
  outerStrides: number[],
  innerShape: number[],
  innerStrides: number[],
  a: CpuArray,
  offset: number,
) => void;

const ACC: Record<ReduceOp, { init: string; step: string }> = {
  sum: { init: 'acc = 0;', step: 'acc += v;' },
  prod: { init: 'acc = 1;', step: 'acc *= v;' },
  max: { init: 'acc = a[p];', step: 'if (v > acc || v !== v) acc = v;' },
  min: { init: 'acc = a[p];', step: 'if (v < acc || v !== v) acc = v;' },
  any: { init: 'acc = 0;', step: 'if (v !== 0) acc = 1;' },
  all: { init: 'acc = 1;', step: 'if (v === 0) acc = 0;' },
};

const reduceCache = new Map<string, ReduceKernel>();

function reduceKernel(op: ReduceOp, key: string): ReduceKernel {
  const k = `${op}:${key}`;
  let kernel = reduceCache.get(k);
  if (kernel) return kernel;
  const { init, step } = ACC[op];
  // The inner odometer runs over the reduced dims; `p` is the input position.
  const body = `
const oRank = outerShape.length, iRank = innerShape.length;
let outerN = 1; for (let d = 0; d < oRank; d++) outerN *= outerShape[d];
let innerN = 1; for (let d = 0; d < iRank; d++) innerN *= innerShape[d];
const oIdx = new Int32Array(oRank), iIdx = new Int32Array(iRank);
const iLast = iRank - 1, iInner = iRank > 0 ? innerShape[iLast] : 1, iStep = iRank > 0 ? innerStrides[iLast] : 0;
const iOuter = iInner > 0 ? innerN / iInner : 0;
let base = offset;
for (let o = 0; o < outerN; o++) {
  let acc, p = base;
  ${init}
  if (innerN === 0) { out[o] = acc; } else {
  let rowBase = base;
  for (let r = 0; r < iOuter; r++) {
    p = rowBase;
    for (let j = 0; j < iInner; j++) { const v = a[p]; ${step} p += iStep; }
    for (let d = iLast - 1; d >= 0; d--) {
      rowBase += innerStrides[d];
      if (++iIdx[d] < innerShape[d]) break;
      iIdx[d] = 0; rowBase -= innerStrides[d] * innerShape[d];
    }
  }
  out[o] = acc; }
  for (let d = oRank - 1; d >= 0; d--) {
    base += outerStrides[d];
    if (++oIdx[d] < outerShape[d]) break;
    oIdx[d] = 0; base -= outerStrides[d] * outerShape[d];
  }
}`;
  kernel = new Function(
    'out',
    'outerShape',
    'outerStrides',
    'innerShape',
    'innerStrides',
    'a',
    'offset',
    `"use strict";${body}`,
  ) as ReduceKernel;
  reduceCache.set(k, kernel);
  return kernel;
}

/** Reduces `a` over `dims` into `out` (contiguous, sized like the kept dims). */
export function reduceInto(
  op: ReduceOp,
  out: CpuArray,
  a: Operand,
  shape: readonly number[],
  dims: readonly number[],
  key: string,
): void {
  // Kept dims are the outer walk, reduced dims the inner one; a zero-size reduced group is `[0]`.
  const { kept, reduced } = splitReduced(shape, a.strides, dims);
  reduceKernel(op, key)(out, kept.shape, kept.strides, reduced.shape, reduced.strides, a.data, a.offset);
}

/** Index of the max/min along `dim` (first occurrence; NaN wins) into `out` (contiguous). */
export function argReduceInto(op: ArgOp, out: CpuArray, a: Operand, shape: readonly number[], dim: number): void {
  const size = shape[dim]!;
  const stride = a.strides[dim]!;
  const keptShape = shape.filter((_, d) => d !== dim);
  const keptStrides = a.strides.filter((_, d) => d !== dim);
  const isMax = op === 'argmax';
  const data = a.data;
  forEachOffset(keptShape, keptStrides, a.offset, (base, o) => {
    let best = 0;
    let bestV = data[base]!;
    if (bestV === bestV) {
      for (let j = 1; j < size; j++) {
        const v = data[base + j * stride]!;
        if (v !== v) {
          best = j;
          break;
        }
        if (isMax ? v > bestV : v < bestV) {
          best = j;
          bestV = v;
        }
      }
    }
    out[o] = best;
  });
}

/** Inclusive scan along `dim` of `a` into contiguous `out` of the same shape. */
export function scanInto(op: ScanOp, out: CpuArray, a: Operand, shape: readonly number[], dim: number): void {
  const size = shape[dim]!;
  // An empty scanned dim: the walk below is over the other dims, which may be huge.
  if (size === 0) return;
  const stride = a.strides[dim]!;
  const outStrides = contiguousStrides(shape);
  const oStride = outStrides[dim]!;
  const keptShape = shape.filter((_, d) => d !== dim);
  const keptStrides = a.strides.filter((_, d) => d !== dim);
  const keptOut = outStrides.filter((_, d) => d !== dim);
  const data = a.data;
  forEachOffset2(keptShape, keptStrides, a.offset, keptOut, 0, (base, ob) => {
    let acc = 0;
    for (let j = 0; j < size; j++) {
      const v = data[base + j * stride]!;
      // Once NaN, max/min stay NaN (as in PyTorch's cummax/cummin).
      if (j === 0) acc = v;
      else if (op === 'sum') acc += v;
      else if (op === 'prod') acc *= v;
      else if (op === 'max') {
        if (acc === acc && (v > acc || v !== v)) acc = v;
      } else {
        op satisfies 'min';
        if (acc === acc && (v < acc || v !== v)) acc = v;
      } // every other ScanOp has its branch
      out[ob + j * oStride] = acc;
    }
  });
}
