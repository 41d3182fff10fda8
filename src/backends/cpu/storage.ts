import type { TensorPrimitive } from '../../backend/backend.js';
import { inScope, trackAllocation } from '../../backend/memory.js';
import type { DType } from '../../core/dtype.js';
import type { NumericArray } from '../../core/element.js';
import { BurnError } from '../../core/errors.js';
import { contiguousStrides, numel } from '../../core/shape.js';
import { isContiguous } from '../../core/strided.js';

/**
 * The typed array a CPU tensor computes in. f16/bf16 live in a Float32Array holding values already
 * rounded to half precision (every op rounds its result), i64 in a Float64Array (exact within
 * ±2^53), bool in a Uint8Array of 0/1.
 */
export type CpuArray = NumericArray;

type CpuArrayCtor = new (n: number) => CpuArray;

const CTORS: Record<DType, CpuArrayCtor> = {
  f32: Float32Array,
  f16: Float32Array,
  bf16: Float32Array,
  f64: Float64Array,
  i64: Float64Array,
  i32: Int32Array,
  i16: Int16Array,
  i8: Int8Array,
  u32: Uint32Array,
  u16: Uint16Array,
  u8: Uint8Array,
  bool: Uint8Array,
};

/** Allocates a zeroed compute array for `n` elements of `dtype`; a failed allocation is a BurnError. */
export function allocCpu(dtype: DType, n: number): CpuArray {
  try {
    return new CTORS[dtype](n);
  } catch (e) {
    throw allocError(e, dtype, n);
  }
}

/**
 * The error for an allocation of `n` elements of `dtype` that failed: the tensor API refuses
 * impossible sizes up front, so what is left is a lack of memory, said as a BurnError.
 */
export function allocError(e: unknown, dtype: DType, n: number): unknown {
  if (!(e instanceof RangeError)) return e;
  const bytes = n * new CTORS[dtype](0).BYTES_PER_ELEMENT;
  return new BurnError('cpu', `cannot allocate ${n} elements of ${dtype} (${bytes} bytes): ${e.message}`);
}

/** Constructor of the compute array for `dtype`. */
export function cpuArrayCtor(dtype: DType): CpuArrayCtor {
  return CTORS[dtype];
}

/** Where an array goes when its last handle is released: the backend's pool. */
export interface ArrayRecycler {
  give(array: CpuArray): void;
}

/**
 * Ownership of an array the backend allocated: the number of live tensor handles over it. When
 * the last one is released the array goes to `recycler` for another output — unless it escaped
 * (its memory was handed out, e.g. to a file writer); then the garbage collector keeps it.
 */
export class Lease {
  /** Live handles over the array. */
  refs = 0;
  /** Set once the array was handed out of the backend: it is then never reused. */
  escaped = false;

  constructor(readonly recycler: ArrayRecycler) {}
}

/**
 * A CPU tensor: a strided view (shape, strides, offset) over a typed array. Outputs of the backend
 * carry a {@link Lease} shared with their views; handles over arrays from elsewhere (adopted user
 * data, internal scratch views) carry none and are left to the garbage collector.
 */
export class CpuTensor implements TensorPrimitive {
  private readonly array: CpuArray;
  private released = false;

  constructor(
    data: CpuArray,
    readonly shape: readonly number[],
    readonly strides: readonly number[],
    readonly offset: number,
    readonly dtype: DType,
    /** The ownership this handle shares (absent: not reusable). */
    readonly lease?: Lease,
  ) {
    this.array = data;
    if (lease) {
      lease.refs++;
      // Inside `Tensor.scope` every handle is recorded, so the scope can release the ones its result does not reach.
      if (inScope()) trackAllocation(this);
    }
  }

  /** The values; throws once this handle was released (its array may hold another tensor by then). */
  get data(): CpuArray {
    if (this.released)
      throw new BurnError('cpu', `a tensor of shape [${this.shape.join(', ')}] was used after dispose()`);
    return this.array;
  }

  /** A contiguous tensor over `data`. */
  static contiguous(data: CpuArray, shape: readonly number[], dtype: DType): CpuTensor {
    return new CpuTensor(data, shape, contiguousStrides(shape), 0, dtype);
  }

  /** A contiguous tensor that owns `data`, a fresh array no one else holds; released arrays go to `recycler`. */
  static owned(data: CpuArray, shape: readonly number[], dtype: DType, recycler: ArrayRecycler): CpuTensor {
    return new CpuTensor(data, shape, contiguousStrides(shape), 0, dtype, new Lease(recycler));
  }

  /** A new handle on the same values and view, sharing this one's lease. */
  view(shape: readonly number[], strides: readonly number[], offset: number): CpuTensor {
    return new CpuTensor(this.data, shape, strides, offset, this.dtype, this.lease);
  }

  /**
   * Releases this handle (idempotent; `dispose()`, the end of a scope). When it was the last
   * handle over a backend-owned array that never escaped, the array goes back for reuse.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    const lease = this.lease;
    if (lease !== undefined && --lease.refs === 0 && !lease.escaped) lease.recycler.give(this.array);
  }

  /** True once {@link release} ran. */
  get isReleased(): boolean {
    return this.released;
  }

  /** Number of elements. */
  get numel(): number {
    return numel(this.shape);
  }

  /** True when elements are densely packed in row-major order (any offset). */
  isContiguous(): boolean {
    return isContiguous(this.shape, this.strides);
  }

  /** True when this view covers its whole array in row-major order, so `data` can be used as is. */
  isDense(): boolean {
    return this.offset === 0 && this.data.length === this.numel && this.isContiguous();
  }
}
