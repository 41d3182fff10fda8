import type { TensorPrimitive } from '../../backend/backend.js';
import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { contiguousStrides, numel } from '../../core/shape.js';
import { isContiguous } from '../../core/strided.js';
import type { GPUBuffer } from './gpu-types.js';

/** Where a storage goes when its last reference is dropped (the backend's buffer pool). */
export interface StorageOwner {
  free(storage: GpuStorage): void;
}

/**
 * A GPU buffer shared by the tensors that view it, reference-counted: each {@link WebGpuTensor}
 * over it holds one reference; the buffer returns to the pool when the last one is released.
 */
export class GpuStorage {
  private refs = 0;

  constructor(
    readonly buffer: GPUBuffer,
    private readonly owner: StorageOwner,
  ) {}

  /** Adds a reference. */
  retain(): void {
    this.refs++;
  }

  /** Drops a reference; the last one frees the buffer. */
  release(): void {
    if (--this.refs === 0) this.owner.free(this);
  }

  /** Number of tensors holding this storage. */
  get references(): number {
    return this.refs;
  }
}

/** The safety net: a tensor handle collected without `dispose()` drops its reference then. */
const finalizer = new FinalizationRegistry<GpuStorage>((storage) => storage.release());

/**
 * A WebGPU tensor: a strided view (shape, strides, offset in elements) over a {@link GpuStorage},
 * like the CPU backend's tensors, so transpose, slice, expand and flip are views. Each handle
 * holds one reference to its storage, released by {@link release} (dispose, scope end) or, as a
 * safety net, when the handle is garbage-collected.
 */
export class WebGpuTensor implements TensorPrimitive {
  private released = false;

  constructor(
    readonly storage: GpuStorage,
    readonly shape: readonly number[],
    readonly strides: readonly number[],
    readonly offset: number,
    readonly dtype: DType,
  ) {
    storage.retain();
    finalizer.register(this, storage, this);
  }

  /** A contiguous tensor over `storage`. */
  static contiguous(storage: GpuStorage, shape: readonly number[], dtype: DType): WebGpuTensor {
    return new WebGpuTensor(storage, shape, contiguousStrides(shape), 0, dtype);
  }

  /** Number of elements. */
  get numel(): number {
    return numel(this.shape);
  }

  /** The GPU buffer, checking that this handle was not released. */
  get buffer(): GPUBuffer {
    if (this.released)
      throw new BurnError('webgpu', `a tensor of shape [${this.shape.join(', ')}] was used after dispose()`);
    return this.storage.buffer;
  }

  /** True once {@link release} ran. */
  get isReleased(): boolean {
    return this.released;
  }

  /** Drops this handle's reference (idempotent). */
  release(): void {
    if (this.released) return;
    this.released = true;
    finalizer.unregister(this);
    this.storage.release();
  }

  /** True when elements are densely packed in row-major order (any offset). */
  isContiguous(): boolean {
    return isContiguous(this.shape, this.strides);
  }
}
