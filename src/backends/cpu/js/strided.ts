import type { CpuArray } from '../storage.js';
import { helpers } from './math.js';

/**
 * Generated strided loops. An elementwise kernel walks any number of strided operands (the output
 * included) in row-major order of a shape: the innermost dim is a tight loop, the outer dims an
 * odometer. Dims are collapsed first, so contiguous operands run as one flat loop. Each
 * (expression, dtypes) pair gets its own generated function, which keeps V8's call sites
 * monomorphic.
 */

/** One strided operand: array, offset, strides. */
export interface Operand {
  readonly data: CpuArray;
  readonly offset: number;
  readonly strides: readonly number[];
}

/**
 * Drops size-1 dims and merges adjacent dims that are contiguous in every operand; returns the
 * collapsed shape and per-operand strides.
 */
export function collapse(shape: readonly number[], strides: readonly (readonly number[])[]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = strides.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    const size = shape[d]!;
    if (size === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && strides.every((s, k) => outStrides[k]![last] === s[d]! * size)) {
      outShape[last] = outShape[last]! * size;
      for (let k = 0; k < strides.length; k++) outStrides[k]![last] = strides[k]![d]!;
    } else {
      outShape.push(size);
      for (let k = 0; k < strides.length; k++) outStrides[k]!.push(strides[k]![d]!);
    }
  }
  return { shape: outShape, strides: outStrides };
}

type MapKernel = (shape: readonly number[], out: Operand, ...inputs: (Operand | number)[]) => void;

const cache = new Map<string, MapKernel>();

/**
 * Returns the kernel computing `out = expr(x, y, c)` elementwise over strided operands. `inputs`
 * names the operands: `'x'`, `'y'`, `'c'` (strided arrays) or `'s'` for a scalar bound to `y`.
 * `key` must identify the expression and the array types.
 */
export function mapKernel(key: string, expr: string, inputs: readonly ('x' | 'y' | 'c' | 's')[]): MapKernel {
  const cached = cache.get(key);
  if (cached) return cached;
  const arrays = inputs.filter((v) => v !== 's') as ('x' | 'y' | 'c')[];
  const all = ['o', ...arrays];
  const params = ['shape', 'O', ...inputs.map((v) => (v === 's' ? 'scalar' : v.toUpperCase()))];
  const reads = arrays.map((v) => `const ${v} = ${v}a[${v}p];`).join(' ') + (inputs.includes('s') ? ' const y = scalar;' : '');
  const unpack = all
    .map((v) => `const ${v}a = ${v.toUpperCase()}.data, ${v}s = ${v.toUpperCase()}.strides; let ${v}b = ${v.toUpperCase()}.offset;`)
    .join('\n');
  const body = `
${unpack}
const rank = shape.length;
if (rank === 0) { ${all.map((v) => `const ${v}p = ${v}b;`).join(' ')} ${reads} oa[op] = ${expr}; return; }
const last = rank - 1, inner = shape[last];
${all.map((v) => `const ${v}i = ${v}s[last];`).join(' ')}
let outer = 1; for (let d = 0; d < last; d++) outer *= shape[d];
const idx = last > 0 ? new Int32Array(last) : null;
for (let r = 0; r < outer; r++) {
  ${all.map((v) => `let ${v}p = ${v}b;`).join(' ')}
  if (${all.map((v) => `${v}i === 1`).join(' && ')}) {
    for (let j = 0; j < inner; j++) { ${reads} oa[op] = ${expr}; ${all.map((v) => `${v}p++;`).join(' ')} }
  } else {
    for (let j = 0; j < inner; j++) { ${reads} oa[op] = ${expr}; ${all.map((v) => `${v}p += ${v}i;`).join(' ')} }
  }
  for (let d = last - 1; d >= 0; d--) {
    ${all.map((v) => `${v}b += ${v}s[d];`).join(' ')}
    if (++idx[d] < shape[d]) break;
    idx[d] = 0;
    ${all.map((v) => `${v}b -= ${v}s[d] * shape[d];`).join(' ')}
  }
}`;
  const kernel = new Function('H', `"use strict"; return function map(${params.join(', ')}) {${body}\n};`)(helpers) as MapKernel;
  cache.set(key, kernel);
  return kernel;
}
