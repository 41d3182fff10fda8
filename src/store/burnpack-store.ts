import {
  burnpackChunks,
  encodeBurnpack,
  planBurnpack,
  readBurnpack,
  withDefaultExtension,
  type BurnpackTensorInput,
} from '../record/burnpack.js';
import { paramIdToU64, u64ToParamId } from '../record/param-id.js';
import type { LoadLimits } from '../record/limits.js';
import { owned, type ByteSource } from '../record/source.js';
import { BURN_TS_VERSION } from '../record/version.js';
import { TensorData } from '../core/data.js';
import { MetadataFileStore } from './file-store.js';
import { TensorSnapshot } from './snapshot.js';

/** Snapshots of every tensor of a burnpack source (lazy reads). */
export function burnpackSnapshots(source: ByteSource, op: string, limits?: LoadLimits): TensorSnapshot[] {
  const contents = readBurnpack(source, op, limits);
  return contents.tensors.map(
    (t) =>
      new TensorSnapshot(
        t.dtype,
        t.shape,
        t.name.split('.'),
        () => owned(source, TensorData.fromBytes(t.read(), t.shape, t.dtype)),
        t.paramId === undefined ? {} : { paramId: u64ToParamId(t.paramId) },
      ),
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
export class BurnpackStore extends MetadataFileStore {
  protected readonly op = 'BurnpackStore';
  protected readonly memoryName = '<burnpack bytes>';
  private autoExt = true;

  /** A store over a file path, or over bytes (a `Uint8Array`; none to save into memory). */
  constructor(source?: string | Uint8Array) {
    super(
      source,
      new Map([
        ['format', 'burnpack'],
        ['producer', 'burn-ts'],
        ['version', BURN_TS_VERSION],
      ]),
    );
  }

  /** A store over a file. */
  static fromFile(path: string): BurnpackStore {
    return new BurnpackStore(path);
  }

  /** A store over bytes in memory (none: saving fills it; read back with {@link getBytes}). */
  static fromBytes(bytes?: Uint8Array): BurnpackStore {
    return new BurnpackStore(bytes ?? new Uint8Array(0));
  }

  /** Whether `.bpk` is appended to a path without extension (default true). */
  autoExtension(enable: boolean): this {
    this.autoExt = enable;
    return this;
  }

  /** The file path used (with the extension appended), or undefined for memory. */
  override filePath(): string | undefined {
    return this.path === undefined ? undefined : this.autoExt ? withDefaultExtension(this.path, 'bpk') : this.path;
  }

  /** The metadata stored in the source. */
  readMetadata(): Map<string, string> {
    return readBurnpack(this.source(), this.op, this.limits).metadata;
  }

  protected readSnapshots(): TensorSnapshot[] {
    return burnpackSnapshots(this.source(), this.op, this.limits);
  }

  protected writeSnapshots(snapshots: TensorSnapshot[]): void {
    const inputs = burnpackInputs(snapshots);
    this.writeBytes(
      () => encodeBurnpack(inputs, this.meta),
      () => burnpackChunks(planBurnpack(inputs, this.meta), inputs),
    );
  }
}
