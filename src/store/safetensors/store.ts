import { owned, type FileSourceOptions } from '../../record/source.js';
import { BURN_TS_VERSION } from '../../record/version.js';
import { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import { MetadataFileStore } from '../file-store.js';
import { TensorSnapshot } from '../snapshot.js';
import {
  encodeSafetensors,
  planSafetensors,
  readSafetensors,
  safetensorsChunks,
  type SafetensorsInput,
} from './format.js';

/**
 * SafeTensors as a store (Burn's `SafetensorsStore`), reading and writing: a file (read by
 * ranges, so files larger than memory or 2 GB load tensor by tensor) or bytes in memory (loaded
 * as zero-copy views where the data is aligned). Metadata (`format`, `producer`, `version` and
 * your own entries) goes into `__metadata__`. SafeTensors has no parameter ids.
 */
export class SafetensorsStore extends MetadataFileStore {
  protected readonly op = 'SafetensorsStore';
  protected readonly memoryName = '<safetensors bytes>';
  private chunk: number | undefined;

  /** A store over a file path, or over bytes (none to save into memory). */
  constructor(source?: string | Uint8Array) {
    super(
      source,
      new Map([
        ['format', 'safetensors'],
        ['producer', 'burn-ts'],
        ['version', BURN_TS_VERSION],
      ]),
    );
  }

  /** A store over a file. */
  static fromFile(path: string): SafetensorsStore {
    return new SafetensorsStore(path);
  }

  /** A store over bytes (none: saving fills it; read back with {@link getBytes}). */
  static fromBytes(bytes?: Uint8Array): SafetensorsStore {
    return new SafetensorsStore(bytes ?? new Uint8Array(0));
  }

  /** Caps each file read call at `bytes` (default 1 GiB); reads of larger tensors are split. */
  withReadChunkSize(bytes: number): this {
    if (!Number.isInteger(bytes) || bytes <= 0)
      throw new BurnError(this.op, `read chunk size must be a positive integer, got ${bytes}`);
    this.chunk = bytes;
    return this;
  }

  /** The `__metadata__` of the source. */
  readMetadata(): Map<string, string> {
    return readSafetensors(this.source(), this.op).metadata;
  }

  protected override fileSourceOptions(): FileSourceOptions {
    return this.chunk === undefined ? {} : { chunkSize: this.chunk };
  }

  protected readSnapshots(): TensorSnapshot[] {
    const source = this.source();
    return readSafetensors(source, this.op).tensors.map(
      (t) =>
        new TensorSnapshot(t.dtype, t.shape, t.name.split('.'), () =>
          owned(source, TensorData.fromBytes(t.read(), t.shape, t.dtype)),
        ),
    );
  }

  protected writeSnapshots(snapshots: TensorSnapshot[]): void {
    const inputs: SafetensorsInput[] = snapshots.map((s) => ({
      name: s.fullPath(),
      dtype: s.dtype,
      shape: s.shape,
      bytes: () => s.toData().bytes,
    }));
    this.writeBytes(
      () => encodeSafetensors(inputs, this.meta),
      () => safetensorsChunks(planSafetensors(inputs, this.meta)),
    );
  }
}
