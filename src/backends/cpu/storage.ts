import type { TensorPrimitive } from '../../backend/backend.js';
import type { DType } from '../../tensor/dtype.js';
import { contiguousStrides, numel } from '../../tensor/shape.js';

/**
 * The typed array a CPU tensor computes in. f16/bf16 live in a Float32Array holding values already
 * rounded to half precision (every op rounds its result), i64 in a Float64Array (exact within
 * ±2^53), bool in a Uint8Array of 0/1.
 */
export type CpuArray = Float32Array | Float64Array | Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array;

type CpuArrayCtor = new (n: number) => CpuArray;

const CTORS: Record<DType, CpuArrayCtor> = {
  f32: Float32Array, f16: Float32Array, bf16: Float32Array, f64: Float64Array, i64: Float64Array,
  i32: Int32Array, i16: Int16Array, i8: Int8Array, u32: Uint32Array, u16: Uint16Array, u8: Uint8Array, bool: Uint8Array,
};

/** Allocates a zeroed compute array for `n` elements of `dtype`. */
export function allocCpu(dtype: DType, n: number): CpuArray {
  return new CTORS[dtype](n);
}

/** Constructor of the compute array for `dtype`. */
export function cpuArrayCtor(dtype: DType): CpuArrayCtor {
  return CTORS[dtype];
}

/** A CPU tensor: a strided view (shape, strides, offset) over a typed array. */
export class CpuTensor implements TensorPrimitive {
  constructor(
    readonly data: CpuArray,
    readonly shape: readonly number[],
    readonly strides: readonly number[],
    readonly offset: number,
    readonly dtype: DType,
  ) {}

  /** A contiguous tensor over `data`. */
  static contiguous(data: CpuArray, shape: readonly number[], dtype: DType): CpuTensor {
    return new CpuTensor(data, shape, contiguousStrides(shape), 0, dtype);
  }

  /** Number of elements. */
  get numel(): number {
    return numel(this.shape);
  }

  /** True when elements are densely packed in row-major order (any offset). */
  isContiguous(): boolean {
    let expected = 1;
    for (let i = this.shape.length - 1; i >= 0; i--) {
      const size = this.shape[i]!;
      if (size !== 1 && this.strides[i] !== expected) return false;
      expected *= size;
    }
    return true;
  }

  /** True when this view covers its whole array in row-major order, so `data` can be used as is. */
  isDense(): boolean {
    return this.offset === 0 && this.data.length === this.numel && this.isContiguous();
  }
}
