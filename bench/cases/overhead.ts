/** Per-op overhead: ops on tiny tensors, where the time is the library's, not the arithmetic's. */
import type { BenchCase } from '../lib/types.js';
import { inputsOf } from './common.js';

/** Overhead cases: microseconds per call, median over batches of many calls. */
export const overheadCases: readonly BenchCase[] = [
  {
    id: 'overhead/add-2x2',
    family: 'overhead',
    title: 'add 2×2',
    op: 'add',
    inputs: inputsOf([2, 2], [2, 2]),
    metric: { kind: 'overhead' },
    target: [
      { cmp: '<=', value: 1.5, source: 'js engine goal', impl: 'burn-ts' },
      ...['burn-ts', 'burn-ts(native)', 'burn-ts(wasm)'].map((impl) => ({
        cmp: '<=' as const,
        value: 1,
        source: 'engines goal',
        impl,
      })),
    ],
  },
  {
    id: 'overhead/matmul-2x2',
    family: 'overhead',
    title: 'matmul 2×2',
    op: 'matmul',
    inputs: inputsOf([2, 2], [2, 2]),
    metric: { kind: 'overhead' },
  },
  {
    id: 'overhead/mul-scalar-2x2',
    family: 'overhead',
    title: 'mul 2×2 by a scalar',
    op: 'mulScalar',
    inputs: inputsOf([2, 2]),
    attrs: { scalar: 2.5 },
    metric: { kind: 'overhead' },
  },
];
