import { BurnError } from '../../tensor/errors.js';
import {
  BufferUsage, MAP_READ, type GPUBindGroupEntry, type GPUBuffer, type GPUCommandEncoder, type GPUComputePassEncoder,
  type GPUComputePipeline, type GPUDevice,
} from './gpu-types.js';
import { BufferPool } from './pool.js';

/** Size of one batch's uniform arena: every dispatch's parameters live in it at aligned offsets. */
const ARENA_BYTES = 64 * 1024;
/** Dispatches after which a batch is submitted even without a read. */
const MAX_BATCH = 192;

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
 * The command stream of one GPU device: compute dispatches are encoded into one command encoder
 * (one open compute pass) and submitted lazily — when a value is read, when the batch is full, or
 * on `sync()`. Pipelines are cached by shader text, so each shader compiles once. Each dispatch's
 * parameters (shapes, strides, scalars) go into a uniform arena mapped at creation and bound at
 * an aligned offset.
 */
export class GpuRuntime {
  readonly pool: BufferPool;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private encoder: GPUCommandEncoder | undefined;
  private pass: GPUComputePassEncoder | undefined;
  private arena: GPUBuffer | undefined;
  private arenaWords: Uint32Array | undefined;
  private arenaOffset = 0;
  private pending = 0;
  private trash: GPUBuffer[] = [];
  private readonly align: number;
  private firstError: string | undefined;
  private lost: string | undefined;
  private counters = { pipelines: 0, dispatches: 0, submits: 0 };

  constructor(readonly device: GPUDevice, collect?: () => void, pressureBytes?: number) {
    this.pool = new BufferPool(device, undefined, collect, pressureBytes);
    this.align = Math.max(16, device.limits.minUniformBufferOffsetAlignment || 256);
    void device.lost.then((info) => {
      this.lost = `${info.reason}: ${info.message}`;
    });
  }

  /** Fails fast once the device is lost. */
  private checkAlive(): void {
    if (this.lost !== undefined) throw new BurnError('webgpu', `the GPU device was lost (${this.lost}); create a new device with await Device.webgpu()`);
  }

  /** The compute pipeline of a shader, compiled once per distinct text. */
  pipeline(code: string): GPUComputePipeline {
    let p = this.pipelines.get(code);
    if (!p) {
      const d = this.device;
      d.pushErrorScope('validation');
      const module = d.createShaderModule({ code });
      p = d.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      void d.popErrorScope().then((err) => {
        if (err && this.firstError === undefined) this.firstError = `${err.message}\n--- shader ---\n${code}`;
      });
      this.pipelines.set(code, p);
      this.counters.pipelines++;
    }
    return p;
  }

  private ensureEncoder(): GPUCommandEncoder {
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
   * `meta` words as a uniform at the next binding.
   */
  dispatch(code: string, buffers: readonly GPUBuffer[], meta: ArrayLike<number>, groups: readonly [number, number?, number?]): void {
    this.checkAlive();
    const x = groups[0], y = groups[1] ?? 1, z = groups[2] ?? 1;
    if (x === 0 || y === 0 || z === 0) return;
    const pipeline = this.pipeline(code);
    const metaBytes = Math.max(16, Math.ceil(meta.length / 4) * 16);
    if (this.encoder && this.arenaOffset + metaBytes > ARENA_BYTES) this.flush();
    this.ensureEncoder();
    const offset = this.arenaOffset;
    const words = this.arenaWords!;
    const base = offset / 4;
    for (let i = 0; i < meta.length; i++) words[base + i] = meta[i]!;
    this.arenaOffset = Math.ceil((offset + metaBytes) / this.align) * this.align;
    const entries: GPUBindGroupEntry[] = buffers.map((buffer, binding) => ({ binding, resource: { buffer } }));
    entries.push({ binding: buffers.length, resource: { buffer: this.arena!, offset, size: metaBytes } });
    const group = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    this.pass ??= this.encoder!.beginComputePass();
    this.pass.setPipeline(pipeline);
    this.pass.setBindGroup(0, group);
    this.pass.dispatchWorkgroups(x, y, z);
    this.counters.dispatches++;
    if (++this.pending >= MAX_BATCH) this.flush();
  }

  /** Uploads `data` into `dst` at `dstOffset` bytes, ordered after the work encoded so far. */
  upload(dst: GPUBuffer, dstOffset: number, data: Uint8Array): void {
    this.checkAlive();
    const size = Math.ceil(data.byteLength / 4) * 4;
    if (size === 0) return;
    const staging = this.device.createBuffer({ size, usage: BufferUsage.COPY_SRC, mappedAtCreation: true });
    new Uint8Array(staging.getMappedRange()).set(data);
    staging.unmap();
    const enc = this.ensureEncoder();
    this.closePass();
    enc.copyBufferToBuffer(staging, 0, dst, dstOffset, size);
    this.trash.push(staging);
    if (++this.pending >= MAX_BATCH) this.flush();
  }

  /** Copies `bytes` from `src` at `srcOffset` to `dst` at `dstOffset` (multiples of 4). */
  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    if (bytes === 0) return;
    const enc = this.ensureEncoder();
    this.closePass();
    enc.copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
  }

  /** Submits everything encoded so far. */
  flush(): void {
    if (!this.encoder) return;
    this.closePass();
    this.arena!.unmap();
    this.device.queue.submit([this.encoder.finish()]);
    this.counters.submits++;
    this.trash.push(this.arena!);
    for (const b of this.trash) b.destroy();
    this.trash = [];
    this.encoder = undefined;
    this.arena = undefined;
    this.arenaWords = undefined;
    this.pending = 0;
  }

  /** Reads `bytes` of `src` from `srcOffset` after all queued work. */
  async read(src: GPUBuffer, srcOffset: number, bytes: number): Promise<ArrayBuffer> {
    this.checkAlive();
    const size = Math.ceil(bytes / 4) * 4;
    if (size === 0) {
      this.flush();
      return new ArrayBuffer(0);
    }
    const staging = this.device.createBuffer({ size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
    this.copy(src, srcOffset, staging, 0, size);
    this.flush();
    try {
      await staging.mapAsync(MAP_READ);
      const out = staging.getMappedRange().slice(0, bytes);
      staging.unmap();
      this.throwFirstError();
      return out;
    } finally {
      staging.destroy();
    }
  }

  /** Waits until the GPU has finished all submitted work (submitting what is pending). */
  async sync(): Promise<void> {
    this.flush();
    await this.device.queue.onSubmittedWorkDone();
    this.throwFirstError();
  }

  /** Rethrows the first validation error the device reported (a bug in a generated shader). */
  private throwFirstError(): void {
    if (this.firstError !== undefined) {
      const e = this.firstError;
      this.firstError = undefined;
      throw new BurnError('webgpu', `the device reported an error: ${e}`);
    }
  }

  /** Command-stream counters. */
  stats(): RuntimeStats {
    return { ...this.counters };
  }
}
