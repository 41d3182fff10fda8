import type { GPUBuffer } from './gpu-types.js';
import type { DType } from '../../core/dtype.js';

/** A strided operand of a kernel: a buffer, an element offset and per-dim strides (in elements). */
export interface Operand {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly strides: readonly number[];
  readonly dtype: DType;
}
