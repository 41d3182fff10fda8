import { fileExists, writeBinaryFileAtomic } from '../config/files.js';
import type { LoadLimits } from '../record/limits.js';
import { bytesSource, fileSource, type ByteSource, type FileSourceOptions } from '../record/source.js';
import { BurnError } from '../core/errors.js';
import { ModuleStore } from './store.js';

/**
 * The plumbing shared by the stores over a file or over bytes in memory (burnpack, SafeTensors,
 * PyTorch): the source, {@link overwrite}, {@link getBytes}, and saving into memory or
 * atomically into a file that is only replaced when allowed.
 */
export abstract class FileStore extends ModuleStore {
  /** The file path as given, or undefined for memory. */
  protected readonly path: string | undefined;
  /** The bytes read from or saved into (memory stores). */
  protected bytes: Uint8Array | undefined;
  /** Resource limits applied while reading (see {@link LoadLimits}; unset fields take the defaults). */
  protected limits: LoadLimits = {};
  private replace = false;

  /** The name of the in-memory source in messages, e.g. `'<burnpack bytes>'`. */
  protected abstract readonly memoryName: string;

  /** A store over a file path, or over bytes (a `Uint8Array`; none to save into memory). */
  constructor(source?: string | Uint8Array) {
    super();
    if (typeof source === 'string') this.path = source;
    else this.bytes = source;
  }

  /** Whether saving may replace an existing file (default false). */
  overwrite(overwrite: boolean): this {
    this.replace = overwrite;
    return this;
  }

  /**
   * Resource limits for reading hostile or corrupt files (decompressed size, nesting depth,
   * overlapping-view copies); unset fields keep their defaults (`DEFAULT_LOAD_LIMITS`).
   */
  withLimits(limits: LoadLimits): this {
    this.limits = { ...this.limits, ...limits };
    return this;
  }

  /** The bytes of a memory store (after saving into it). */
  getBytes(): Uint8Array {
    if (this.path !== undefined || this.bytes === undefined)
      throw new BurnError(this.op, 'getBytes: this store writes to a file, not to memory');
    return this.bytes;
  }

  /** The file read and written (the path as given unless a store adds to it), or undefined for memory. */
  protected filePath(): string | undefined {
    return this.path;
  }

  /** The options of the file source (none unless a store sets them). */
  protected fileSourceOptions(): FileSourceOptions {
    return {};
  }

  /** The bytes to read from: the file, or the memory (which must not be empty). */
  protected source(): ByteSource {
    const file = this.filePath();
    if (file !== undefined) return fileSource(file, this.op, this.fileSourceOptions());
    if (this.bytes === undefined || this.bytes.length === 0)
      throw new BurnError(this.op, 'no bytes to read from (an empty memory store)');
    return bytesSource(this.bytes, this.memoryName, this.op);
  }

  protected describe(): string {
    return this.filePath() ?? this.memoryName;
  }

  /**
   * Saves: into memory (`toBytes()`), or atomically into the file (`toChunks()`, written one
   * chunk at a time), refusing to replace an existing file unless {@link overwrite} is set.
   */
  protected writeBytes(toBytes: () => Uint8Array, toChunks: () => Iterable<Uint8Array>): void {
    const file = this.filePath();
    if (file === undefined) {
      this.bytes = toBytes();
      return;
    }
    if (!this.replace && fileExists(file, this.op))
      throw new BurnError(this.op, `file already exists: ${file}; use .overwrite(true) to replace it`);
    writeBinaryFileAtomic(file, toChunks(), this.op);
  }
}

/** A {@link FileStore} that writes metadata entries with the tensors (burnpack, SafeTensors). */
export abstract class MetadataFileStore extends FileStore {
  /** The metadata written with the tensors. */
  protected readonly meta: Map<string, string>;

  /** A store over a file path or bytes, writing the default metadata `format`, `producer` and `version`. */
  constructor(source: string | Uint8Array | undefined, defaults: ReadonlyMap<string, string>) {
    super(source);
    this.meta = new Map(defaults);
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
}
