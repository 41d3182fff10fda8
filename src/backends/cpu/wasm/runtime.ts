/**
 * One instance of the engine's module: its memory, the layout of that memory, and task dispatch.
 *
 * Memory layout: the module's static data (none today) ends at `heapBase()`; then one gemm scratch
 * block per thread (packed panels); then the **arena**, where each engine call lays out its
 * inputs, outputs and argument blocks. An engine call starts with `reset()`: the arena is reused
 * by every call, so the memory grows only to the largest single call and never with the number of
 * calls (tensors themselves stay in JavaScript typed arrays, see kernels.ts).
 */
import type { Compiled, WasmVariant } from './loader.js';
import { MAX_JOBS, ThreadPool, type TaskHooks } from './pool.js';
import { webAssembly, type WasmMemory, type WasmModule } from './wasm-api.js';

/** The module's exported functions. */
interface KernelExports {
  run(kind: number, args: number, job: number, tid: number): void;
  runRange(kind: number, args: number, first: number, last: number): void;
  heapBase(): number;
  gemmScratchBytes(mt: number, nt: number): number;
}

/** What the copies use of a Node `Buffer` (see {@link WasmRuntime.write}). */
interface ByteView {
  fill(value: Uint8Array, offset: number, end: number): unknown;
  subarray(start: number, end: number): Uint8Array;
}
/** Node's `Buffer` class, where there is one (not in browsers). */
const NodeBuffer = (
  globalThis as { Buffer?: { from(buffer: ArrayBufferLike, byteOffset?: number, length?: number): ByteView } }
).Buffer;

/** A typed array of 4-byte elements the engine copies in and out. */
export type Array32 = Float32Array | Int32Array | Uint32Array;

const PAGE = 65536;
/** The memory's maximum, in pages (4 GiB: all a 32-bit module can address). */
const MAX_PAGES = 65536;
/** Largest gemm tile (rows × columns) one job computes; the per-thread scratch is sized for it. */
export const GEMM_MAX_TILE = { m: 128, n: 256 } as const;

/** An instantiated engine module with its memory, arena and threads. */
export class WasmRuntime {
  readonly memory: WasmMemory;
  readonly variant: WasmVariant;
  private readonly kernels: KernelExports;
  private readonly constants: Map<string, number>;
  /** Views of the whole memory (refreshed after growth). */
  f32!: Float32Array;
  u32!: Uint32Array;
  i32!: Int32Array;
  f64!: Float64Array;
  /** A Node `Buffer` over the whole shared memory (undefined: copies use `TypedArray.set`). */
  private bytes: ByteView | undefined;
  /** Start of the per-thread gemm scratch, and its size per thread. */
  readonly scratch: number;
  readonly scratchStride: number;
  private readonly arena: number;
  private top: number;
  private readonly pool: ThreadPool | undefined;
  /** Threads used for large tasks (1: everything on the calling thread). */
  readonly threads: number;

  constructor(compiled: Extract<Compiled, { module: WasmModule }>, threads: number) {
    const wasm = webAssembly();
    if (!wasm) throw new Error('this JavaScript environment has no WebAssembly');
    this.variant = compiled.variant;
    this.threads = compiled.variant === 'mt' ? Math.max(1, threads) : 1;
    const shared = compiled.variant === 'mt';
    this.memory = new wasm.Memory({ initial: 32, maximum: MAX_PAGES, shared });
    const instance = new wasm.Instance(compiled.module, { env: { memory: this.memory } });
    this.kernels = instance.exports as unknown as KernelExports;
    this.constants = new Map();
    for (const [name, value] of Object.entries(instance.exports)) {
      if (value instanceof wasm.Global) this.constants.set(name, Number(value.value));
    }
    this.refreshViews();
    this.scratch = align(this.kernels.heapBase());
    this.scratchStride = align(this.kernels.gemmScratchBytes(GEMM_MAX_TILE.m, GEMM_MAX_TILE.n));
    this.arena = this.scratch + this.scratchStride * this.threads;
    this.top = this.arena;
    this.ensure(this.arena + (1 << 20));
    this.pool =
      this.threads > 1 ? new ThreadPool(compiled.module, this.memory, this.threads, this.kernels.run) : undefined;
  }

  /** A constant the module exports (op codes, task kinds, micro-kernel sizes). */
  constant(name: string): number {
    const v = this.constants.get(name);
    if (v === undefined) throw new Error(`wasm engine: the module exports no constant ${name}`);
    return v;
  }

  /** The constants named `${prefix}_<name>`, by `<name>` (the module's op codes and task kinds of one family). */
  constantsNamed(prefix: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, value] of this.constants)
      if (name.startsWith(`${prefix}_`)) out[name.slice(prefix.length + 1)] = value;
    return out;
  }

  /** Frees everything the previous engine call laid out in the arena. */
  reset(): void {
    this.top = this.arena;
  }

  /**
   * Reserves `bytes` (64-byte aligned) in the arena, growing the memory when needed; -1 when the
   * memory cannot hold it (the caller then declines the op and the JavaScript kernels run).
   */
  alloc(bytes: number): number {
    const at = this.top;
    const end = align(at + bytes);
    if (!this.ensure(end)) return -1;
    this.top = end;
    return at;
  }

  /** Writes u32 fields (an argument block) at byte address `at`. */
  fields(at: number, values: readonly number[]): void {
    this.u32.set(values, at >>> 2);
  }

  /** Copies `src[lo, hi)` into a fresh arena block; its address, or -1. */
  copyIn(src: Float32Array, lo: number, hi: number): number {
    const at = this.alloc((hi - lo) * 4);
    if (at >= 0) this.write(at, src, lo, hi);
    return at;
  }

  /**
   * Copies `src[lo, hi)` to byte address `at`. Into a shared memory, `TypedArray.set` copies with
   * relaxed atomics: 27 GB/s for 256 KiB, and byte by byte when the two sides' alignments differ
   * (3 GB/s); Node's `Buffer.fill` with a byte-array value is a plain memcpy (100 GB/s).
   */
  write(at: number, src: Array32, lo: number, hi: number): void {
    if (hi <= lo) return;
    if (this.bytes !== undefined)
      this.bytes.fill(new Uint8Array(src.buffer, src.byteOffset + lo * 4, (hi - lo) * 4), at, at + (hi - lo) * 4);
    else this.viewOf(src).set(src.subarray(lo, hi), at >>> 2);
  }

  /** Copies `n` 4-byte elements at byte address `at` into `dst` from index `dstOffset` (a memcpy, as in {@link write}). */
  read(at: number, dst: Array32, n: number, dstOffset = 0): void {
    if (n <= 0) return;
    if (this.bytes !== undefined && NodeBuffer !== undefined)
      NodeBuffer.from(dst.buffer, dst.byteOffset + dstOffset * 4, n * 4).fill(
        this.bytes.subarray(at, at + n * 4),
        0,
        n * 4,
      );
    else dst.set(this.viewOf(dst).subarray(at >>> 2, (at >>> 2) + n), dstOffset);
  }

  /** The whole-memory view of `a`'s element type. */
  private viewOf(a: Array32): Array32 {
    return a instanceof Float32Array ? this.f32 : a instanceof Int32Array ? this.i32 : this.u32;
  }

  /**
   * Runs jobs 0..jobs-1 of a task; spread over the threads when `parallel` and there are several.
   * `hooks` run on the calling thread (on one thread: before the jobs, and after them for each job).
   */
  run(kind: number, args: number, jobs: number, parallel: boolean, hooks?: TaskHooks): void {
    if (jobs <= 0) return;
    if (parallel && this.pool && jobs > 1 && jobs <= MAX_JOBS) {
      this.pool.run(kind, args, jobs, hooks);
      return;
    }
    hooks?.beforeJobs?.();
    this.kernels.runRange(kind, args, 0, jobs);
    if (hooks?.jobDone) for (let j = 0; j < jobs; j++) hooks.jobDone(j);
  }

  /** Bytes the memory holds now (it grows to the largest engine call, never with the number of calls). */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Jobs each thread has run so far (index 0: the calling thread; just [0] without workers). */
  jobsRun(): number[] {
    return this.pool?.jobsRun() ?? [0];
  }

  /** Stops the worker threads (they never keep a Node process alive; this is for explicit cleanup). */
  close(): void {
    this.pool?.close();
  }

  private ensure(end: number): boolean {
    const have = this.memory.buffer.byteLength;
    if (end <= have) return true;
    if (end > MAX_PAGES * PAGE) return false;
    // Grow geometrically so that a slowly rising high-water mark does not grow the memory per call.
    const want = Math.min(MAX_PAGES, Math.max(Math.ceil(end / PAGE), Math.ceil((have * 1.5) / PAGE)));
    try {
      this.memory.grow(want - have / PAGE);
    } catch {
      try {
        this.memory.grow(Math.ceil(end / PAGE) - have / PAGE);
      } catch {
        return false;
      }
    }
    this.refreshViews();
    return true;
  }

  private refreshViews(): void {
    const buffer = this.memory.buffer;
    this.f32 = new Float32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.bytes =
      NodeBuffer !== undefined && typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer
        ? NodeBuffer.from(buffer)
        : undefined;
  }
}

function align(n: number): number {
  return Math.ceil(n / 64) * 64;
}
