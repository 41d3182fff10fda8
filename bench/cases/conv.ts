/** 2-D convolution (NCHW, OIHW weights, no bias), in GFLOP/s (2·N·Cout·H·W·Cin·kh·kw flops). */
import type { BenchCase } from '../lib/types.js';
import { inputsOf } from './common.js';

const [N, CIN, COUT, H, W, K] = [32, 32, 64, 28, 28, 3];

/** Convolution cases. */
export const convCases: readonly BenchCase[] = [
  {
    id: 'conv/conv2d-32x32x28x28-64-3x3',
    family: 'conv',
    title: 'conv2d N32 32→64 28² 3×3 p1',
    op: 'conv2d',
    inputs: inputsOf([N, CIN, H, W], [COUT, CIN, K, K]),
    attrs: { padding: 1 },
    metric: { kind: 'flops', flops: 2 * N * COUT * H * W * CIN * K * K },
    target: { cmp: '>=', value: 0.8, source: 'engines goal', impl: 'burn-ts(native)', peer: 'torch' },
  },
];
