/** Memory-bound elementwise ops on 4M floats, in GB/s (bytes read + written, once each). */
import type { BenchCase, Target } from '../lib/types.js';
import { f32Bytes, FOUR_M, inputsOf } from './common.js';

/** The engines' target: at least 60% of the memory bandwidth, measured the same way (a copy of 4M f32, bytes read + written). */
const OF_BANDWIDTH: Target = {
  cmp: '>=',
  value: 0.6,
  source: 'engines goal',
  impl: 'burn-ts(native)',
  reference: 'memcpy',
};

/** Elementwise cases. */
export const elementwiseCases: readonly BenchCase[] = [
  {
    id: 'elementwise/add-4M',
    family: 'elementwise',
    title: 'add 4M',
    op: 'add',
    inputs: inputsOf([FOUR_M], [FOUR_M]),
    metric: { kind: 'bytes', bytes: f32Bytes(3 * FOUR_M) },
    target: OF_BANDWIDTH,
  },
  {
    id: 'elementwise/mul-4M',
    family: 'elementwise',
    title: 'mul 4M',
    op: 'mul',
    inputs: inputsOf([FOUR_M], [FOUR_M]),
    metric: { kind: 'bytes', bytes: f32Bytes(3 * FOUR_M) },
    target: OF_BANDWIDTH,
  },
  {
    id: 'elementwise/exp-4M',
    family: 'elementwise',
    title: 'exp 4M',
    op: 'exp',
    inputs: inputsOf([FOUR_M]),
    metric: { kind: 'bytes', bytes: f32Bytes(2 * FOUR_M) },
    target: OF_BANDWIDTH,
  },
];
