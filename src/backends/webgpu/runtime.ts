import { BurnError, currentUserOp, relabelError } from '../../core/errors.js';
import {
  BufferUsage,
  MAP_READ,
  type GPUBindGroupEntry,
  type GPUBuffer,
  type GPUCommandEncoder,
  type GPUComputePassEncoder,
  type GPUComputePipeline,
  type GPUDevice,
  type GPUError,
} from './gpu-types.js';
import { FaultTracker, GpuFault } from './faults.js';
import { BufferPool } from './pool.js';

/** Size of one batch's uniform arena: every dispatch's parameters live in it at aligned offsets. */
const ARENA_BYTES = 64 * 1024;
/** Dispatches after which a batch is submitted even without a read. */
const MAX_BATCH = 192;
/** Words of one index check's slot in the check buffer: count, max and ~min of the bad indices (order-preserving), pad. */
export const CHECK_WORDS = 4;

/** Counters of the command stream (for tests and stats). */
export interface RuntimeStats {
  /** Shader modules compiled (one per distinct shader text). */
  readonly pipelines: number;
  /** Kernel dispatches encoded. */
  readonly dispatches: number;
  /** Command buffers submitted. */
  readonly submits: number;
}

/**
 * What an index-checking kernel tells the runtime: the valid range `[lo, hi)`, the error a bad
 * index becomes, and the position in its parameter words where the runtime writes the word offset
 * of the kernel's slot in {@link GpuRuntime.checkBuffer}. The kernel counts indices outside the
 * range in that slot (and their extremes); the error is made when the batch settles, renamed to
 * the user op that was running when the kernel was encoded (`take`, not the `select` it ran).
 */
export interface IndexCheck {
  readonly lo: number;
  readonly hi: number;
  /** The error of the reported bad index (the largest one at or past `hi`, else the smallest) and of how many there were. */
  readonly error: (index: number, count: number) => Error;
  /** Index into the dispatch's `meta` words of the slot offset. */
  readonly word: number;
}

/** A compiled pipeline and which of its bindings it writes (bit k: binding k is `read_write`). */
interface Pipeline {
  readonly pipeline: GPUComputePipeline;
  readonly writes: number;
}

/** The batch being encoded: its log span, its index checks and the shader checks it waits for. */
interface Batch {
  readonly start: number;
  /** Index checks: the command, the check and the user op it ran for (its errors name that op). */
  readonly checks: { readonly at: number; readonly check: IndexCheck; readonly op: string | undefined }[];
  readonly shaders: Promise<string | undefined>[];
  commands: number;
}

const SCOPES = ['validation', 'out-of-memory', 'internal'] as const;

/**
 * The command stream of one GPU device: compute dispatches are encoded into one command encoder
 * (one open compute pass) and submitted lazily — when a value is read, when the batch is full, or
 * on `sync()`. Pipelines are cached by shader text, so each shader compiles once. Each dispatch's
 * parameters (shapes, strides, scalars) go into a uniform arena mapped at creation and bound at
 * an aligned offset.
 *
 * Errors: each batch runs inside error scopes (validation, out-of-memory, internal), pushed when
 * the batch opens (before its buffers are created) and popped after it is submitted; index checks
 * write to a small check buffer that is copied out with the batch. Both are awaited per batch,
 * off the hot path, and a failure is attributed by the {@link FaultTracker} to what the batch (or
 * the one faulty command) computed and what was computed from it: reads of those throw the
 * BurnError, everything else reads normally. A lost device makes every later call throw.
 */
export class GpuRuntime {
  readonly pool: BufferPool;
  /** The per-runtime buffer index-checking kernels count out-of-range indices in (one slot per dispatch of a batch). */
  readonly checkBuffer: GPUBuffer;
  private readonly pipelines = new Map<string, Pipeline>();
  private readonly faults = new FaultTracker();
  private batch: Batch | undefined;
  private encoder: GPUCommandEncoder | undefined;
  private pass: GPUComputePassEncoder | undefined;
  private arena: GPUBuffer | undefined;
  private arenaWords: Uint32Array | undefined;
  private arenaOffset = 0;
  private pending = 0;
  private trash: GPUBuffer[] = [];
  private readonly align: number;
  /** Resolves once every submitted batch has been checked and its faults recorded. */
  private settled: Promise<void> = Promise.resolve();
  private lostMessage: string | undefined;
  /** Resolves with the error every call throws once the device is lost. */
  readonly lost: Promise<BurnError>;
  private counters = { pipelines: 0, dispatches: 0, submits: 0 };

  constructor(
    readonly device: GPUDevice,
    collect?: () => void,
    pressureBytes?: number,
  ) {
    this.pool = new BufferPool(device, undefined, collect, pressureBytes);
    this.align = Math.max(16, device.limits.minUniformBufferOffsetAlignment || 256);
    this.checkBuffer = device.createBuffer({
      size: MAX_BATCH * CHECK_WORDS * 4,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
      label: 'burn-ts index checks',
    });
    this.lost = device.lost.then((info) => {
      const why = [info.reason, info.message].filter(Boolean).join(': ') || 'no reason given';
      this.lostMessage = `the GPU device was lost (${why}); its tensors are gone: create a new device with await Device.webgpu() and load the data again`;
      return new BurnError('webgpu', this.lostMessage);
    });
  }

  /** Fails fast once the device is lost. */
  checkAlive(): void {
    if (this.lostMessage !== undefined) throw new BurnError('webgpu', this.lostMessage);
  }

  /** Largest buffer the device allows for a storage tensor (its size and binding limits). */
  get maxBufferBytes(): number {
    return this.pool.maxBytes;
  }

  /**
   * A pooled storage buffer of at least `bytes` bytes, created inside the current batch's error
   * scopes (an out-of-memory error spoils what the batch computes, nothing else).
   */
  acquire(bytes: number): GPUBuffer {
    this.checkAlive();
    this.begin();
    return this.pool.acquire(bytes);
  }

  /** Returns a buffer from {@link acquire} to the pool. */
  release(buffer: GPUBuffer): void {
    this.faults.release(buffer);
    this.pool.release(buffer);
  }

  /** The compute pipeline of a shader, compiled once per distinct text. */
  private pipeline(code: string): Pipeline {
    let p = this.pipelines.get(code);
    if (!p) {
      const d = this.device;
      d.pushErrorScope('validation');
      const module = d.createShaderModule({ code });
      const pipeline = d.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      const error = d.popErrorScope().then(
        (err) => (err ? `${err.message}\n--- shader ---\n${code}` : undefined),
        () => undefined,
      );
      this.begin();
      this.batch!.shaders.push(error);
      let writes = 0;
      for (const m of code.matchAll(/@binding\((\d+)\)\s*var<storage,\s*read_write>/g)) writes |= 1 << Number(m[1]);
      p = { pipeline, writes };
      this.pipelines.set(code, p);
      this.counters.pipelines++;
    }
    return p;
  }

  /** Opens a batch: its error scopes capture everything until it is submitted. */
  private begin(): void {
    if (this.batch) return;
    for (const s of SCOPES) this.device.pushErrorScope(s);
    this.batch = { start: this.faults.position, checks: [], shaders: [], commands: 0 };
  }

  private ensureEncoder(): GPUCommandEncoder {
    this.begin();
    if (!this.encoder) {
      this.encoder = this.device.createCommandEncoder();
      this.arena = this.device.createBuffer({ size: ARENA_BYTES, usage: BufferUsage.UNIFORM, mappedAtCreation: true });
      this.arenaWords = new Uint32Array(this.arena.getMappedRange());
      this.arenaOffset = 0;
    }
    return this.encoder;
  }

  private closePass(): void {
    this.pass?.end();
    this.pass = undefined;
  }

  /**
   * Encodes one dispatch of `code` (entry point `main`) with `buffers` at bindings 0.. and the
   * `meta` words as a uniform at the next binding. With `check`, the kernel binds
   * {@link checkBuffer} and gets its slot's word offset at `meta[check.word]`.
   */
  dispatch(
    code: string,
    buffers: readonly GPUBuffer[],
    meta: ArrayLike<number>,
    groups: readonly [number, number?, number?],
    check?: IndexCheck,
  ): void {
    this.checkAlive();
    const x = groups[0],
      y = groups[1] ?? 1,
      z = groups[2] ?? 1;
    if (x === 0 || y === 0 || z === 0) return;
    const metaBytes = Math.max(16, Math.ceil(meta.length / 4) * 16);
    if (this.encoder && this.arenaOffset + metaBytes > ARENA_BYTES) this.flush();
    // Compiled inside the batch that uses it, so a shader error is reported with that batch.
    const { pipeline, writes } = this.pipeline(code);
    this.ensureEncoder();
    const batch = this.batch!;
    const offset = this.arenaOffset;
    const words = this.arenaWords!;
    const base = offset / 4;
    for (let i = 0; i < meta.length; i++) words[base + i] = meta[i]!;
    // The check buffer is bookkeeping, not data: it is left out of the log.
    const at = this.faults.command(buffers, check ? writes & ~(1 << buffers.indexOf(this.checkBuffer)) : writes);
    if (check) {
      words[base + check.word] = batch.checks.length * CHECK_WORDS;
      batch.checks.push({ at, check, op: currentUserOp() });
    }
    this.arenaOffset = Math.ceil((offset + metaBytes) / this.align) * this.align;
    const entries: GPUBindGroupEntry[] = buffers.map((buffer, binding) => ({ binding, resource: { buffer } }));
    entries.push({ binding: buffers.length, resource: { buffer: this.arena!, offset, size: metaBytes } });
    const group = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    this.pass ??= this.encoder!.beginComputePass();
    this.pass.setPipeline(pipeline);
    this.pass.setBindGroup(0, group);
    this.pass.dispatchWorkgroups(x, y, z);
    this.counters.dispatches++;
    batch.commands++;
    if (++this.pending >= MAX_BATCH) this.flush();
  }

  /** Uploads `data` into `dst` at `dstOffset` bytes (a multiple of 4), ordered after the work encoded so far. */
  upload(dst: GPUBuffer, dstOffset: number, data: Uint8Array): void {
    this.checkAlive();
    // Copies move whole 4-byte words: the staging buffer is padded (its tail stays zero).
    const size = Math.ceil(data.byteLength / 4) * 4;
    if (size === 0) return;
    this.begin();
    const staging = this.device.createBuffer({ size, usage: BufferUsage.COPY_SRC, mappedAtCreation: true });
    let range: ArrayBuffer;
    try {
      range = staging.getMappedRange();
    } catch (e) {
      // A staging buffer the device could not create (out of memory) has no mapping.
      staging.destroy();
      throw new BurnError(
        'fromData',
        `uploading ${data.byteLength} bytes failed: the device could not provide a ${size}-byte staging buffer (${e instanceof Error ? e.message : String(e)})`,
      );
    }
    new Uint8Array(range, 0, data.byteLength).set(data);
    staging.unmap();
    const enc = this.ensureEncoder();
    this.closePass();
    enc.copyBufferToBuffer(staging, 0, dst, dstOffset, size);
    this.faults.command([dst], 1);
    this.batch!.commands++;
    this.trash.push(staging);
    if (++this.pending >= MAX_BATCH) this.flush();
  }

  /** Copies `bytes` from `src` at `srcOffset` to `dst` at `dstOffset` (multiples of 4). */
  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    this.checkAlive();
    if (bytes === 0) return;
    const enc = this.ensureEncoder();
    this.closePass();
    enc.copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
    this.faults.command([dst, src], 1);
    this.batch!.commands++;
  }

  /** Submits everything encoded so far; the batch's errors and index checks are examined when they come back. */
  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    let flags: GPUBuffer | undefined;
    if (this.encoder) {
      this.closePass();
      this.arena!.unmap();
      const n = batch.checks.length * CHECK_WORDS * 4;
      if (n > 0) {
        flags = this.device.createBuffer({ size: n, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
        this.encoder.copyBufferToBuffer(this.checkBuffer, 0, flags, 0, n);
        this.encoder.clearBuffer(this.checkBuffer, 0, n);
      }
      this.device.queue.submit([this.encoder.finish()]);
      this.counters.submits++;
      this.trash.push(this.arena!);
    }
    const errors = SCOPES.map(() => this.device.popErrorScope().catch((e: unknown) => ({ message: String(e) })));
    const end = this.faults.position;
    for (const b of this.trash) b.destroy();
    this.trash = [];
    this.batch = undefined;
    this.encoder = undefined;
    this.arena = undefined;
    this.arenaWords = undefined;
    this.pending = 0;
    const words = flags ? this.mapped(flags) : undefined;
    const previous = this.settled;
    this.settled = (async () => {
      await previous;
      const found = await this.whileAlive(Promise.all([Promise.all(errors), Promise.all(batch.shaders), words]));
      if (found) this.settleBatch(batch, end, ...found);
      else this.faults.settle(end);
    })().catch(() => this.faults.settle(end));
  }

  /** The check words of a batch (undefined if they could not be read). */
  private async mapped(flags: GPUBuffer): Promise<Uint32Array | undefined> {
    try {
      await flags.mapAsync(MAP_READ);
      const out = new Uint32Array(flags.getMappedRange().slice(0));
      flags.unmap();
      return out;
    } catch {
      return undefined;
    } finally {
      flags.destroy();
    }
  }

  /** `p`'s value, or undefined when the device is lost first. */
  private whileAlive<T>(p: Promise<T>): Promise<T | undefined> {
    return Promise.race([p, this.lost.then(() => undefined)]);
  }

  /** Turns a settled batch's scope errors and flagged index checks into faults. */
  private settleBatch(
    batch: Batch,
    end: number,
    errors: (GPUError | null)[],
    shaders: (string | undefined)[],
    words: Uint32Array | undefined,
  ): void {
    batch.checks.forEach(({ at, check, op }, slot) => {
      const count = words?.[slot * CHECK_WORDS] ?? 0;
      if (count === 0) return;
      const hi = (words![slot * CHECK_WORDS + 1]! ^ 0x80000000) | 0;
      const lo = (~words![slot * CHECK_WORDS + 2]! ^ 0x80000000) | 0;
      this.faults.failCommand(at, new GpuFault(relabelError(check.error(hi >= check.hi ? hi : lo, count), op)));
    });
    const messages = [
      ...errors.filter((e): e is GPUError => e !== null).map((e) => e.message),
      ...shaders.filter((s): s is string => s !== undefined),
    ];
    if (messages.length > 0) {
      const error = new BurnError(
        'webgpu',
        `the GPU rejected a batch of ${batch.commands} commands, so the tensors computed in it (and from them) are unavailable: ${messages.join('\n')}`,
      );
      this.faults.failBatch(batch.start, end, new GpuFault(error));
    }
    this.faults.settle(end);
  }

  /** Reads `bytes` of `src` from `srcOffset` after all queued work; throws the fault that spoiled them, if any. */
  async read(src: GPUBuffer, srcOffset: number, bytes: number): Promise<ArrayBuffer> {
    return (await this.readMany([{ src, offset: srcOffset, bytes }]))[0]!;
  }

  /**
   * Reads several ranges after all queued work with one submit and one mapping: every range is
   * copied into one staging buffer (at 4-byte aligned offsets) in the batch that computes it.
   * Throws the first fault that spoiled one of them, if any.
   */
  async readMany(
    parts: readonly { readonly src: GPUBuffer; readonly offset: number; readonly bytes: number }[],
  ): Promise<ArrayBuffer[]> {
    this.checkAlive();
    for (const { src } of parts) {
      const known = this.faults.faultOf(src);
      if (known) throw this.faults.report(known);
    }
    const starts: number[] = [];
    let size = 0;
    for (const { bytes } of parts) {
      starts.push(size);
      size += Math.ceil(bytes / 4) * 4;
    }
    if (size === 0) {
      // Nothing to copy, but the work that computed an empty tensor can still fail (an index check
      // of a scatter into it): wait for its batch as a copying read does.
      this.begin();
      const tickets = parts.map(({ src }) => this.faults.read(src));
      this.flush();
      await this.whileAlive(this.settled);
      this.checkAlive();
      const fault = tickets.find((t) => t.fault)?.fault;
      if (fault) throw this.faults.report(fault);
      return parts.map(() => new ArrayBuffer(0));
    }
    this.begin();
    const staging = this.device.createBuffer({ size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
    const enc = this.ensureEncoder();
    this.closePass();
    parts.forEach(({ src, offset, bytes }, i) => {
      if (bytes > 0) enc.copyBufferToBuffer(src, offset, staging, starts[i]!, Math.ceil(bytes / 4) * 4);
    });
    const tickets = parts.map(({ src }) => this.faults.read(src));
    const spoiled = () => tickets.find((t) => t.fault)?.fault;
    this.flush();
    const settled = this.settled;
    try {
      const mapping = staging.mapAsync(MAP_READ).then(
        () => true,
        (e: unknown) => e,
      );
      const mapped = await this.whileAlive(mapping);
      this.checkAlive();
      if (mapped !== true) {
        // A failed map on a device that is being lost: wait briefly for the loss to say why.
        await Promise.race([this.lost, new Promise((r) => setTimeout(r, 100))]);
        this.checkAlive();
        await this.whileAlive(settled);
        const fault = spoiled();
        if (fault) throw this.faults.report(fault);
        throw new BurnError(
          'webgpu',
          `reading a tensor back failed: ${mapped instanceof Error ? `${mapped.name} ${mapped.message}` : String(mapped)}`,
        );
      }
      const range = staging.getMappedRange();
      const out = parts.map(({ bytes }, i) => range.slice(starts[i]!, starts[i]! + bytes));
      staging.unmap();
      await this.whileAlive(settled);
      this.checkAlive();
      const fault = spoiled();
      if (fault) throw this.faults.report(fault);
      return out;
    } finally {
      staging.destroy();
    }
  }

  /** Waits until the GPU has finished all submitted work; throws the first fault no read has thrown yet. */
  async sync(): Promise<void> {
    this.checkAlive();
    this.flush();
    const settled = this.settled;
    await this.whileAlive(this.device.queue.onSubmittedWorkDone());
    await this.whileAlive(settled);
    this.checkAlive();
    const fault = this.faults.takeUnreported();
    if (fault) throw fault.error;
  }

  /** Command-stream counters. */
  stats(): RuntimeStats {
    return { ...this.counters };
  }
}
