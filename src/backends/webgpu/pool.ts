import { BufferUsage, type GPUBuffer, type GPUDevice } from './gpu-types.js';

/** The pool's byte counters (see {@link BufferPool.stats}). */
export interface PoolStats {
  /** Bytes of every GPU buffer the pool created and has not destroyed (in use + free). */
  readonly allocatedBytes: number;
  /** Bytes of buffers held by live tensors. */
  readonly liveBytes: number;
  /** Bytes of free buffers kept for reuse. */
  readonly freeBytes: number;
  /** Highest `allocatedBytes` seen. */
  readonly peakBytes: number;
  /** Number of buffers held by live tensors. */
  readonly liveBuffers: number;
  /** Buffers created since the start (a reuse hit creates none). */
  readonly created: number;
  /** Garbage collections requested because dropped tensors held too much memory. */
  readonly collections: number;
  /** Requests served from the free lists. */
  readonly reused: number;
}

/** Storage buffer usage: read/written by kernels, copied to and from. */
const USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/**
 * Rounds a request up to its size class: multiples of 256 bytes up to 64 KiB, then four classes
 * per power of two (at most 25% waste), so freed buffers serve later requests of similar size.
 */
export function sizeClass(bytes: number): number {
  const b = Math.max(bytes, 16);
  if (b <= 65536) return Math.ceil(b / 256) * 256;
  const p = 2 ** Math.floor(Math.log2(b));
  const quarter = p / 4;
  return Math.ceil(b / quarter) * quarter;
}

/**
 * GPU storage buffers, recycled: a freed buffer goes to the free list of its size class and serves
 * the next request of that class. Buffers are only reused by work queued after the free, so the
 * queue's ordering keeps earlier readers correct. Free bytes above `maxFreeBytes` are destroyed.
 */
export class BufferPool {
  private readonly free = new Map<number, GPUBuffer[]>();
  private allocated = 0;
  private live = 0;
  private freeBytes = 0;
  private peak = 0;
  private liveCount = 0;
  private created = 0;
  private reused = 0;
  private lowSinceCollect = 0;
  private collections = 0;
  /**
   * The largest storage buffer the device accepts: tensors are bound whole, so both its
   * `maxBufferSize` and its `maxStorageBufferBindingSize` apply (a multiple of 4 bytes).
   */
  readonly maxBytes: number;

  /**
   * `collect`, when given, asks the JavaScript engine for a garbage collection (Node: `gc()`), so
   * that tensors dropped without `dispose()` reach the finalizer: it runs when the bytes held by
   * live tensors exceed both `pressureBytes` and twice their low point since the last collection.
   */
  constructor(
    private readonly device: GPUDevice,
    private readonly maxFreeBytes = 512 * 1024 * 1024,
    private readonly collect?: () => void,
    private readonly pressureBytes = 64 * 1024 * 1024,
  ) {
    const l = device.limits;
    this.maxBytes =
      Math.floor(
        Math.min(l.maxBufferSize || 256 * 1024 * 1024, l.maxStorageBufferBindingSize || 128 * 1024 * 1024) / 4,
      ) * 4;
  }

  /**
   * A buffer of at least `bytes` bytes (its size is the size class, capped at {@link maxBytes});
   * the caller checks `bytes` against {@link maxBytes} first.
   */
  acquire(bytes: number): GPUBuffer {
    const size = Math.min(sizeClass(bytes), Math.max(this.maxBytes, Math.ceil(bytes / 4) * 4));
    const list = this.free.get(size);
    let buffer = list?.pop();
    if (buffer) {
      this.freeBytes -= size;
      this.reused++;
    } else {
      buffer = this.device.createBuffer({ size, usage: USAGE });
      this.allocated += size;
      this.created++;
      if (this.allocated > this.peak) this.peak = this.allocated;
    }
    this.live += size;
    this.liveCount++;
    if (this.collect && this.live > this.pressureBytes && this.live > 2 * this.lowSinceCollect) {
      this.collections++;
      this.lowSinceCollect = this.live;
      this.collect();
    }
    return buffer;
  }

  /** Returns a buffer from {@link acquire} to its free list. */
  release(buffer: GPUBuffer): void {
    const size = buffer.size;
    this.live -= size;
    this.liveCount--;
    if (this.live < this.lowSinceCollect) this.lowSinceCollect = this.live;
    if (this.freeBytes + size > this.maxFreeBytes) {
      buffer.destroy();
      this.allocated -= size;
      return;
    }
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(buffer);
    this.freeBytes += size;
  }

  /** Destroys every free buffer (live ones are untouched). */
  trim(): void {
    for (const list of this.free.values()) for (const b of list) b.destroy();
    this.allocated -= this.freeBytes;
    this.freeBytes = 0;
    this.free.clear();
  }

  /** The byte counters. */
  stats(): PoolStats {
    return {
      allocatedBytes: this.allocated,
      liveBytes: this.live,
      freeBytes: this.freeBytes,
      peakBytes: this.peak,
      liveBuffers: this.liveCount,
      created: this.created,
      reused: this.reused,
      collections: this.collections,
    };
  }
}
