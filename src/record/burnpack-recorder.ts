import { readBinaryFileAsync, writeBinaryFileAtomic } from '../config/files.js';
import { TensorData } from '../core/data.js';
import {
  burnpackChunks,
  encodeBurnpack,
  planBurnpack,
  readBurnpack,
  withDefaultExtension,
  type BurnpackTensorInput,
} from './burnpack.js';
import { paramIdToU64, u64ToParamId } from './param-id.js';
import {
  applyPrecision,
  Recorder,
  type JsonValue,
  type PrecisionSettings,
  type RecordTensor,
  type TensorRecord,
} from './recorder.js';
import { bytesSource, fileSource, owned, type ByteSource } from './source.js';
import { BURN_TS_VERSION } from './version.js';

/** The metadata key holding a record's JSON metadata. */
const META_KEY = 'burn-ts.meta';

/**
 * Burnpack (`.bpk`), Burn's current format (Burn's `ModuleRecord` save/load): tensors with
 * their parameter ids, stored in the dtype they have (or in `settings`' precision when given).
 * `.bpk` is appended to a path without extension, as Burn's writer does. Files are written one
 * tensor at a time and read by ranges.
 */
export class BurnpackRecorder extends Recorder {
  readonly extension = 'bpk';
  protected readonly op: string = 'BurnpackRecorder';

  constructor(readonly settings?: PrecisionSettings) {
    super();
  }

  override filePath(path: string): string {
    return withDefaultExtension(path, this.extension);
  }

  private parts(record: TensorRecord): [BurnpackTensorInput[], Map<string, string>] {
    const r = applyPrecision(record, this.settings);
    const inputs: BurnpackTensorInput[] = [...r.tensors].map(([name, t]) => ({
      name,
      dtype: t.data.dtype,
      shape: t.data.shape,
      ...(t.id !== undefined ? { paramId: paramIdToU64(t.id) } : {}),
      bytes: t.data.bytes,
    }));
    const meta = new Map([
      ['format', 'burnpack'],
      ['producer', 'burn-ts'],
      ['version', BURN_TS_VERSION],
    ]);
    if (r.meta !== undefined) meta.set(META_KEY, JSON.stringify(r.meta));
    return [inputs, meta];
  }

  override toBytes(record: TensorRecord): Uint8Array {
    return encodeBurnpack(...this.parts(record));
  }

  override fromBytes(bytes: Uint8Array, source = '<bytes>'): TensorRecord {
    return this.read(bytesSource(bytes, source, this.op));
  }

  override save(record: TensorRecord, path: string): string {
    const file = this.filePath(path);
    const [inputs, meta] = this.parts(record);
    writeBinaryFileAtomic(file, burnpackChunks(planBurnpack(inputs, meta), inputs), this.op);
    return file;
  }

  override load(path: string): TensorRecord {
    return this.read(fileSource(this.filePath(path), this.op));
  }

  override async loadAsync(path: string): Promise<TensorRecord> {
    const file = this.filePath(path);
    return this.fromBytes(await readBinaryFileAsync(file, this.op), file);
  }

  private read(source: ByteSource): TensorRecord {
    const contents = readBurnpack(source, this.op, this.limits());
    const tensors = new Map<string, RecordTensor>();
    for (const t of contents.tensors) {
      tensors.set(t.name, {
        data: owned(source, TensorData.fromBytes(t.read(), t.shape, t.dtype)),
        ...(t.paramId !== undefined ? { id: u64ToParamId(t.paramId) } : {}),
      });
    }
    const text = contents.metadata.get(META_KEY);
    if (text === undefined) return { tensors };
    try {
      return { tensors, meta: JSON.parse(text) as JsonValue };
    } catch (e) {
      throw this.corrupt(source.name, `metadata entry '${META_KEY}' is not valid JSON: ${(e as Error).message}`);
    }
  }
}

/** The default recorder: burnpack, dtypes as they are. */
export class DefaultRecorder extends BurnpackRecorder {}

/** Burnpack to and from bytes, no file system. */
export class BurnpackBytesRecorder extends BurnpackRecorder {
  protected override readonly op: string = 'BurnpackBytesRecorder';
}
