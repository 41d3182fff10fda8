import { fileExists, writeBinaryFileAtomic } from '../../config/files.js';
import { bytesSource, fileSource, type ByteSource } from '../../record/source.js';
import { BURN_TS_VERSION } from '../../record/version.js';
import { TensorData } from '../../tensor/data.js';
import { BurnError } from '../../tensor/errors.js';
import { TensorSnapshot } from '../snapshot.js';
import { ModuleStore } from '../store.js';
import { encodeSafetensors, planSafetensors, readSafetensors, safetensorsChunks, type SafetensorsInput } from './format.js';

/**
 * SafeTensors as a store (Burn's `SafetensorsStore`), reading and writing: a file (read by
 * ranges, so files larger than memory or 2 GB load tensor by tensor) or bytes in memory (loaded
 * as zero-copy views where the data is aligned). Metadata (`format`, `producer`, `version` and
 * your own entries) goes into `__metadata__`. SafeTensors has no parameter ids.
 */
export class SafetensorsStore extends ModuleStore {
  protected readonly op = 'SafetensorsStore';
  private readonly path: string | undefined;
  private bytes: Uint8Array | undefined;
  private meta = new Map<string, string>([['format', 'safetensors'], ['producer', 'burn-ts'], ['version', BURN_TS_VERSION]]);
  private replace = false;
  private chunk: number | undefined;

  /** A store over a file path, or over bytes (none to save into memory). */
  constructor(source?: string | Uint8Array) {
    super();
    if (typeof source === 'string') this.path = source;
    else this.bytes = source;
  }

  /** A store over a file. */
  static fromFile(path: string): SafetensorsStore {
    return new SafetensorsStore(path);
  }

  /** A store over bytes (none: saving fills it; read back with {@link getBytes}). */
  static fromBytes(bytes?: Uint8Array): SafetensorsStore {
    return new SafetensorsStore(bytes ?? new Uint8Array(0));
  }

  /** Adds a `__metadata__` entry. */
  metadata(key: string, value: string): this {
    this.meta.set(key, value);
    return this;
  }

  /** Removes every metadata entry, the defaults included. */
  clearMetadata(): this {
    this.meta.clear();
    return this;
  }

  /** Whether saving may replace an existing file (default false). */
  overwrite(overwrite: boolean): this {
    this.replace = overwrite;
    return this;
  }

  /** Caps each file read call at `bytes` (default 1 GiB); reads of larger tensors are split. */
  withReadChunkSize(bytes: number): this {
    if (!Number.isInteger(bytes) || bytes <= 0) throw new BurnError(this.op, `read chunk size must be a positive integer, got ${bytes}`);
    this.chunk = bytes;
    return this;
  }

  /** The bytes of a memory store (after saving into it). */
  getBytes(): Uint8Array {
    if (this.path !== undefined || this.bytes === undefined) throw new BurnError(this.op, 'getBytes: this store writes to a file, not to memory');
    return this.bytes;
  }

  /** The `__metadata__` of the source. */
  readMetadata(): Map<string, string> {
    return readSafetensors(this.source(), this.op).metadata;
  }

  private source(): ByteSource {
    if (this.path !== undefined) return fileSource(this.path, this.op, this.chunk === undefined ? {} : { chunkSize: this.chunk });
    if (this.bytes === undefined || this.bytes.length === 0) throw new BurnError(this.op, 'no bytes to read from (an empty memory store)');
    return bytesSource(this.bytes, '<safetensors bytes>', this.op);
  }

  protected describe(): string {
    return this.path ?? '<safetensors bytes>';
  }

  protected readSnapshots(): TensorSnapshot[] {
    return readSafetensors(this.source(), this.op).tensors.map((t) => new TensorSnapshot(t.dtype, t.shape, t.name.split('.'), () => TensorData.fromBytes(t.read(), t.shape, t.dtype)));
  }

  protected writeSnapshots(snapshots: TensorSnapshot[]): void {
    const inputs: SafetensorsInput[] = snapshots.map((s) => ({ name: s.fullPath(), dtype: s.dtype, shape: s.shape, bytes: () => s.toData().bytes }));
    if (this.path === undefined) {
      this.bytes = encodeSafetensors(inputs, this.meta);
      return;
    }
    if (!this.replace && fileExists(this.path, this.op)) throw new BurnError(this.op, `file already exists: ${this.path}; use .overwrite(true) to replace it`);
    writeBinaryFileAtomic(this.path, safetensorsChunks(planSafetensors(inputs, this.meta)), this.op);
  }
}
