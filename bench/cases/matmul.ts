/** Dense f32 matrix products, in GFLOP/s (2·M·N·K flops per product). */
import type { BenchCase, Target } from '../lib/types.js';
import { inputsOf } from './common.js';

/** The engines' matmul targets: native ≥ 1.0× PyTorch, wasm ≥ 2× tfjs-backend-wasm (speed ratios in the same run). */
const ENGINE_TARGETS: readonly Target[] = [
  { cmp: '>=', value: 1, source: 'engines goal', impl: 'burn-ts(native)', peer: 'torch' },
  { cmp: '>=', value: 2, source: 'engines goal', impl: 'burn-ts(wasm)', peer: 'tfjs-wasm' },
];

function square(n: number, extra: Partial<BenchCase> = {}): BenchCase {
  return {
    id: `matmul/${n}`,
    family: 'matmul',
    title: `matmul ${n}³`,
    op: 'matmul',
    inputs: inputsOf([n, n], [n, n]),
    metric: { kind: 'flops', flops: 2 * n * n * n },
    ...extra,
  };
}

/** Matmul cases. */
export const matmulCases: readonly BenchCase[] = [
  square(256, { target: ENGINE_TARGETS }),
  square(1024, { target: [{ cmp: '>=', value: 4, source: 'js engine goal', impl: 'burn-ts' }, ...ENGINE_TARGETS] }),
];
