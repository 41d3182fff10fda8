import { NO_SCAN } from '../../backend/memory.js';
import type { CpuArray } from './storage.js';

/** Options of a {@link BufferPool}. */
export interface BufferPoolOptions {
  /** Most bytes the pool keeps for reuse (default 1 GiB in Node, 256 MiB in a page; `BURN_CPU_POOL_MB` overrides). */
  readonly maxBytes?: number;
  /** Arrays smaller than this are left to the garbage collector (default 16 KiB in Node, 256 B in a page). */
  readonly minBytes?: number;
  /** Most arrays kept per (type, length) (default 8). */
  readonly maxPerSize?: number;
}

/**
 * Default pool limit in bytes: `BURN_CPU_POOL_MB` (0 disables reuse), else 1 GiB in Node and 256
 * MiB in a page. A model's run releases and reallocates its whole working set each time; when the
 * pool cannot hold it, the next run's outputs are fresh pages again (MobileNetV2 at batch 16, about
 * 300 MiB of activations, ran 4× slower with a 256 MiB pool than with 512 MiB).
 */
function defaultMaxBytes(): number {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined>; versions?: { node?: string } } })
    .process;
  const env = proc?.env?.BURN_CPU_POOL_MB;
  const mb = env === undefined || env === '' ? NaN : Number(env);
  const fallback = proc?.versions?.node !== undefined ? 1024 : 256;
  return (Number.isFinite(mb) && mb >= 0 ? mb : fallback) * 1024 * 1024;
}

/**
 * Default least size of a kept array: 16 KiB in Node, 256 B in a page. In Chromium every new
 * `ArrayBuffer`, small ones too, is a fresh allocation of zeroed memory: at batch 1 the MNIST
 * model's small outputs made array allocation about a sixth of its run in a page, and none in
 * Node, where reusing them gained nothing (bench/RESULTS.md).
 */
function defaultMinBytes(): number {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return proc?.versions?.node !== undefined ? 16 * 1024 : 256;
}

/**
 * Arrays of released CPU tensors, kept for the next output of the same type and length. A fresh
 * large array costs more than the op that fills it: the engine's kernels stream at memory speed,
 * while a new array makes V8 collect garbage (its external-memory accounting) and the kernel
 * touch pages the OS has not mapped yet. Only arrays whose last tensor was explicitly released
 * (`dispose()`, the end of a backward pass) come here; everything else is garbage-collected as
 * usual. Arrays come back with stale contents: callers write every element.
 *
 * When a released array would pass `maxBytes`, the least recently released arrays are dropped to
 * make room: a process that moves from one model to another (a large batch, then a small one)
 * keeps reusing the sizes it asks for now instead of holding the old sizes forever.
 */
export class BufferPool {
  /** Scopes looking for tensor handles need not search the pool. */
  readonly [NO_SCAN] = true;
  private readonly free = new Map<Function, Map<number, CpuArray[]>>();
  /** Every kept array, oldest release first (a Map keeps insertion order; deletion is O(1)). */
  private readonly order = new Map<CpuArray, CpuArray[]>();
  private readonly maxBytes: number;
  private readonly minBytes: number;
  private readonly maxPerSize: number;
  private held = 0;
  /** Arrays handed out again since the pool was made (for tests and `device.info()`). */
  reused = 0;

  constructor(options: BufferPoolOptions = {}) {
    this.maxBytes = options.maxBytes ?? defaultMaxBytes();
    this.minBytes = options.minBytes ?? defaultMinBytes();
    this.maxPerSize = options.maxPerSize ?? 8;
  }

  /** A kept array of `ctor`'s type and `length`, or undefined. */
  take(ctor: Function, length: number): CpuArray | undefined {
    const list = this.free.get(ctor)?.get(length);
    const array = list?.pop();
    if (array === undefined) return undefined;
    this.order.delete(array);
    this.held -= array.byteLength;
    this.reused++;
    return array;
  }

  /**
   * Keeps `array` for reuse when it is large enough, dropping the least recently released arrays
   * when the pool would pass its limit; an array larger than the whole limit is dropped.
   */
  give(array: CpuArray): void {
    const bytes = array.byteLength;
    if (bytes < this.minBytes || bytes > this.maxBytes) return;
    let bySize = this.free.get(array.constructor);
    if (bySize === undefined) this.free.set(array.constructor, (bySize = new Map()));
    let list = bySize.get(array.length);
    if (list === undefined) bySize.set(array.length, (list = []));
    if (list.length >= this.maxPerSize) return;
    this.evict(this.held + bytes - this.maxBytes);
    list.push(array);
    this.order.set(array, list);
    this.held += bytes;
  }

  /** Drops the oldest kept arrays until at least `bytes` are freed. */
  private evict(bytes: number): void {
    if (bytes <= 0) return;
    let freed = 0;
    for (const [array, list] of this.order) {
      if (freed >= bytes) break;
      this.order.delete(array);
      // The oldest of its size sits first in its list (lists are stacks of releases).
      const at = list.indexOf(array);
      if (at >= 0) list.splice(at, 1);
      freed += array.byteLength;
    }
    this.held -= freed;
  }

  /** Bytes currently kept for reuse. */
  get heldBytes(): number {
    return this.held;
  }

  /** Drops every kept array (they go to the garbage collector). */
  clear(): void {
    this.free.clear();
    this.order.clear();
    this.held = 0;
  }
}
