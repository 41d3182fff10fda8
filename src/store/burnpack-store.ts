import { fileExists, writeBinaryFileAtomic } from '../config/files.js';
import { burnpackChunks, encodeBurnpack, planBurnpack, readBurnpack, withDefaultExtension, type BurnpackTensorInput } from '../record/burnpack.js';
import { paramIdToU64, u64ToParamId } from '../record/param-id.js';
import { bytesSource, fileSource, type ByteSource } from '../record/source.js';
import { BURN_TS_VERSION } from '../record/version.js';
import { TensorData } from '../tensor/data.js';
import { BurnError } from '../tensor/errors.js';
import { TensorSnapshot } from './snapshot.js';
import { ModuleStore } from './store.js';

/** Snapshots of every tensor of a burnpack source (lazy reads). */
export function burnpackSnapshots(source: ByteSource, op: string): TensorSnapshot[] {
  const contents = readBurnpack(source, op);
  return contents.tensors.map((t) =>
    new TensorSnapshot(t.dtype, t.shape, t.name.split('.'), () => TensorData.fromBytes(t.read(), t.shape, t.dtype), t.paramId === undefined ? {} : { paramId: u64ToParamId(t.paramId) }),
  );
}

/** Burnpack entries for snapshots (bytes produced one tensor at a time while writing). */
export function burnpackInputs(snapshots: readonly TensorSnapshot[]): BurnpackTensorInput[] {
  return snapshots.map((s) => ({
    name: s.fullPath(),
    dtype: s.dtype,
    shape: s.shape,
    ...(s.paramId !== undefined ? { paramId: paramIdToU64(s.paramId) } : {}),
    bytes: () => s.toData().bytes,
  }));
}

/**
 * Burn's native format as a store (Burn's `BurnpackStore`): a `.bpk` file (the extension is
 * appended when the path has none) or bytes in memory. Saving refuses to replace an existing
 * file unless {@link overwrite} is set, and writes atomically; loading reads each tensor's range
 * only (zero-copy views for bytes in memory).
 */
export class BurnpackStore extends ModuleStore {
  protected readonly op = 'BurnpackStore';
  private path: string | undefined;
  private bytes: Uint8Array | undefined;
  private meta = new Map<string, string>([['format', 'burnpack'], ['producer', 'burn-ts'], ['version', BURN_TS_VERSION]]);
  private replace = false;
  private autoExt = true;

  /** A store over a file path, or over bytes (a `Uint8Array`; none to save into memory). */
  constructor(source?: string | Uint8Array) {
    super();
    if (typeof source === 'string') this.path = source;
    else this.bytes = source;
  }

  /** A store over a file. */
  static fromFile(path: string): BurnpackStore {
    return new BurnpackStore(path);
  }

  /** A store over bytes in memory (none: saving fills it; read back with {@link getBytes}). */
  static fromBytes(bytes?: Uint8Array): BurnpackStore {
    return new BurnpackStore(bytes ?? new Uint8Array(0));
  }

  /** Adds a metadata entry written with the tensors (defaults: format, producer, version). */
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

  /** Whether `.bpk` is appended to a path without extension (default true). */
  autoExtension(enable: boolean): this {
    this.autoExt = enable;
    return this;
  }

  /** The file path used (with the extension appended), or undefined for memory. */
  filePath(): string | undefined {
    return this.path === undefined ? undefined : this.autoExt ? withDefaultExtension(this.path, 'bpk') : this.path;
  }

  /** The bytes of a memory store (after saving into it). */
  getBytes(): Uint8Array {
    if (this.bytes === undefined || this.path !== undefined) throw new BurnError(this.op, 'getBytes: this store writes to a file, not to memory');
    return this.bytes;
  }

  /** The metadata stored in the source. */
  readMetadata(): Map<string, string> {
    return readBurnpack(this.source(), this.op).metadata;
  }

  private source(): ByteSource {
    const file = this.filePath();
    if (file !== undefined) return fileSource(file, this.op);
    if (this.bytes === undefined || this.bytes.length === 0) throw new BurnError(this.op, 'no bytes to read from (an empty memory store)');
    return bytesSource(this.bytes, '<burnpack bytes>', this.op);
  }

  protected describe(): string {
    return this.filePath() ?? '<burnpack bytes>';
  }

  protected readSnapshots(): TensorSnapshot[] {
    return burnpackSnapshots(this.source(), this.op);
  }

  protected writeSnapshots(snapshots: TensorSnapshot[]): void {
    const inputs = burnpackInputs(snapshots);
    const file = this.filePath();
    if (file === undefined) {
      this.bytes = encodeBurnpack(inputs, this.meta);
      return;
    }
    if (!this.replace && fileExists(file, this.op)) throw new BurnError(this.op, `file already exists: ${file}; use .overwrite(true) to replace it`);
    const plan = planBurnpack(inputs, this.meta);
    writeBinaryFileAtomic(file, burnpackChunks(plan, inputs), this.op);
  }
}
