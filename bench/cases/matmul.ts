/** Dense f32 matrix products, in GFLOP/s (2·M·N·K flops per product). */
import type { BenchCase } from '../lib/types.js';
import { inputsOf } from './common.js';

function square(n: number, extra: Partial<BenchCase> = {}): BenchCase {
  return {
    id: `matmul/${n}`, family: 'matmul', title: `matmul ${n}³`, op: 'matmul',
    inputs: inputsOf([n, n], [n, n]), metric: { kind: 'flops', flops: 2 * n * n * n }, ...extra,
  };
}

/** Matmul cases. */
export const matmulCases: readonly BenchCase[] = [
  square(256),
  square(1024, { target: { cmp: '>=', value: 4, source: 'issue 2', impl: 'burn-ts' } }),
];
