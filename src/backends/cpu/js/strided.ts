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

/** The strided form of an elementwise kernel: operands carry their own strides. */
export type StridedKernel = (shape: readonly number[], out: Operand, ...inputs: (Operand | number)[]) => void;
/** The flat form, for contiguous operands of the output's shape: `(n, out, x, xOffset, y, yOffset, …)`. */
export type FlatKernel = (n: number, out: CpuArray, ...inputs: (CpuArray | number)[]) => void;

/** Both forms of one generated elementwise kernel. */
export interface MapKernels {
  readonly flat: FlatKernel;
  readonly strided: StridedKernel;
}

/** Operand names: `'x'`, `'y'`, `'c'` are arrays; `'s'` is a scalar bound to `y`. */
export type OperandName = 'x' | 'y' | 'c' | 's';

/** Generates the kernels computing `out = expr(x, y, c)` elementwise. */
export function buildMapKernels(expr: string, inputs: readonly OperandName[]): MapKernels {
  return { flat: buildFlat(expr, inputs), strided: buildStrided(expr, inputs) };
}

function buildFlat(expr: string, inputs: readonly OperandName[]): FlatKernel {
  const params = inputs.map((v) => (v === 's' ? 'scalar' : `${v.toUpperCase()}, ${v}o`));
  const reads = inputs
    .map((v) => (v === 's' ? 'const y = scalar;' : `const ${v} = ${v.toUpperCase()}[${v}o + i];`))
    .join(' ');
  const src = `"use strict"; return function flat(n, O, ${params.join(', ')}) { for (let i = 0; i < n; i++) { ${reads} O[i] = ${expr}; } };`;
  return new Function('H', src)(helpers) as FlatKernel;
}

function buildStrided(expr: string, inputs: readonly OperandName[]): StridedKernel {
  const arrays = inputs.filter((v) => v !== 's') as ('x' | 'y' | 'c')[];
  const all = ['o', ...arrays];
  const params = ['shape', 'O', ...inputs.map((v) => (v === 's' ? 'scalar' : v.toUpperCase()))];
  const reads =
    arrays.map((v) => `const ${v} = ${v}a[${v}p];`).join(' ') + (inputs.includes('s') ? ' const y = scalar;' : '');
  const unpack = all
    .map(
      (v) =>
        `const ${v}a = ${v.toUpperCase()}.data, ${v}s = ${v.toUpperCase()}.strides; let ${v}b = ${v.toUpperCase()}.offset;`,
    )
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
  return new Function('H', `"use strict"; return function map(${params.join(', ')}) {${body}\n};`)(
    helpers,
  ) as StridedKernel;
}

/**
 * A cache of generated kernels keyed by two short strings (an op tag and a dtype signature) in
 * nested maps, so looking one up allocates nothing on the per-op hot path.
 */
export class KernelCache<K> {
  private readonly byOp = new Map<string, Map<string, K>>();

  /** The kernel for (op, signature), built on first use. */
  get(op: string, signature: string, build: () => K): K {
    let inner = this.byOp.get(op);
    if (!inner) this.byOp.set(op, (inner = new Map()));
    let k = inner.get(signature);
    if (!k) inner.set(signature, (k = build()));
    return k;
  }
}
