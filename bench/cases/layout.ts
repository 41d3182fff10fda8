/** Layout: a transpose made contiguous (a strided copy), in GB/s (bytes read + written). */
import type { BenchCase } from '../lib/types.js';
import { f32Bytes, inputsOf } from './common.js';

/** Layout cases. */
export const layoutCases: readonly BenchCase[] = [
  {
    id: 'layout/transpose-copy-2048',
    family: 'layout',
    title: 'transpose+copy 2048²',
    op: 'transposeCopy',
    inputs: inputsOf([2048, 2048]),
    metric: { kind: 'bytes', bytes: f32Bytes(2 * 2048 * 2048) },
  },
];
