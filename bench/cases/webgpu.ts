/**
 * Cases for the WebGPU column only: sizes that the CPU columns would take minutes on.
 * The WebGPU column also runs every other case (matmul 1024³, conv, the training steps).
 */
import type { BenchCase } from '../lib/types.js';
import { inputsOf } from './common.js';

const WEBGPU = ['burn-ts(webgpu)'];

/** WebGPU-only cases. */
export const webgpuCases: readonly BenchCase[] = [
  {
    id: 'webgpu/matmul-4096',
    family: 'webgpu',
    title: 'matmul 4096³ (WebGPU only)',
    op: 'matmul',
    inputs: inputsOf([4096, 4096], [4096, 4096]),
    metric: { kind: 'flops', flops: 2 * 4096 ** 3 },
    only: WEBGPU,
  },
];
