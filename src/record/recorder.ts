import {
  readBinaryFile,
  readBinaryFileAsync,
  writeBinaryFileAtomic,
  writeBinaryFileAtomicAsync,
} from '../config/files.js';
import type { TensorData } from '../core/data.js';
import { isFloatDType, isIntDType, type DType } from '../core/dtype.js';
import { BurnError } from '../core/errors.js';
import { resolveLimits, type LoadLimits } from './limits.js';

/** A JSON value (record metadata such as an optimizer's step count or a scheduler's state). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One tensor of a record, with its parameter id when it has one. */
export interface RecordTensor {
  readonly data: TensorData;
  readonly id?: string;
}

/**
 * What recorders save: tensors by key (dot paths such as `conv1.weight`, or optimizer state keys)
 * plus JSON metadata. Modules, optimizers and schedulers all save through this.
 */
export interface TensorRecord {
  readonly tensors: ReadonlyMap<string, RecordTensor>;
  readonly meta?: JsonValue;
}

/** The element types a recorder stores floats and ints in (Burn's `PrecisionSettings`). */
export interface PrecisionSettings {
  /** Burn's settings name (`FullPrecisionSettings`). */
  readonly name: string;
  readonly float: DType;
  readonly int: DType;
  /** Rust's element type names, written in the record metadata. */
  readonly floatName: string;
  readonly intName: string;
}

/** f32 floats, i32 ints (Burn's `FullPrecisionSettings`). */
export const FullPrecisionSettings: PrecisionSettings = {
  name: 'FullPrecisionSettings',
  float: 'f32',
  int: 'i32',
  floatName: 'f32',
  intName: 'i32',
};
/** f16 floats, i16 ints (Burn's `HalfPrecisionSettings`). */
export const HalfPrecisionSettings: PrecisionSettings = {
  name: 'HalfPrecisionSettings',
  float: 'f16',
  int: 'i16',
  floatName: 'half::binary16::f16',
  intName: 'i16',
};
/** f64 floats, i64 ints (Burn's `DoublePrecisionSettings`). */
export const DoublePrecisionSettings: PrecisionSettings = {
  name: 'DoublePrecisionSettings',
  float: 'f64',
  int: 'i64',
  floatName: 'f64',
  intName: 'i64',
};

/** Converts each tensor to the settings' float or int type (bools unchanged). */
export function applyPrecision(record: TensorRecord, settings: PrecisionSettings | undefined): TensorRecord {
  if (!settings) return record;
  const tensors = new Map<string, RecordTensor>();
  for (const [k, t] of record.tensors) {
    const dt = t.data.dtype;
    const target = isFloatDType(dt) ? settings.float : isIntDType(dt) ? settings.int : dt;
    tensors.set(k, target === dt ? t : { ...t, data: t.data.convert(target) });
  }
  return record.meta === undefined ? { tensors } : { tensors, meta: record.meta };
}

/**
 * Saves and loads {@link TensorRecord}s (Burn's `Recorder`): to bytes (`toBytes`/`fromBytes`,
 * no file system: what a browser uses) and to files with Burn's extension rule (the recorder's
 * extension replaces the path's last one, as Rust's `set_extension`; a path already ending with
 * it is kept). File writes are atomic (temporary file + rename). Loading applies resource
 * limits against hostile files ({@link withLimits}).
 */
export abstract class Recorder {
  /** The file extension, without the dot (`mpk`, `mpk.gz`, `bin`, `json`, `bpk`). */
  abstract readonly extension: string;
  /** The operation named in errors. */
  protected abstract readonly op: string;
  private loadLimits: LoadLimits = {};

  /**
   * Resource limits for loading (decompressed size of `.gz` records, nesting depth); unset fields
   * keep their defaults (`DEFAULT_LOAD_LIMITS`). Returns this recorder.
   */
  withLimits(limits: LoadLimits): this {
    this.loadLimits = { ...this.loadLimits, ...limits };
    return this;
  }

  /** The limits in force, every field set. */
  protected limits(): Required<LoadLimits> {
    return resolveLimits(this.loadLimits, this.op);
  }

  /** Encodes a record. */
  abstract toBytes(record: TensorRecord): Uint8Array;
  /** Decodes a record; `source` names the file in errors. */
  abstract fromBytes(bytes: Uint8Array, source?: string): TensorRecord;

  /** The path written and read for `path` (with this recorder's extension). */
  filePath(path: string): string {
    if (path.endsWith(`.${this.extension}`)) return path;
    const slash = path.lastIndexOf('/');
    const base = path.slice(slash + 1);
    const dot = base.lastIndexOf('.');
    const stem = dot > 0 ? path.slice(0, slash + 1 + dot) : path;
    return `${stem}.${this.extension}`;
  }

  /** Writes `record` to `path` (extension applied); returns the path written. */
  save(record: TensorRecord, path: string): string {
    const file = this.filePath(path);
    writeBinaryFileAtomic(file, this.chunks(record), this.op);
    return file;
  }

  /** Reads the record at `path` (extension applied). */
  load(path: string): TensorRecord {
    const file = this.filePath(path);
    return this.fromBytes(readBinaryFile(file, this.op), file);
  }

  /** Asynchronous {@link save}. */
  async saveAsync(record: TensorRecord, path: string): Promise<string> {
    const file = this.filePath(path);
    await writeBinaryFileAtomicAsync(file, this.toBytes(record), this.op);
    return file;
  }

  /** Asynchronous {@link load}. */
  async loadAsync(path: string): Promise<TensorRecord> {
    const file = this.filePath(path);
    return this.fromBytes(await readBinaryFileAsync(file, this.op), file);
  }

  /** The bytes as chunks written in order (override to stream large records). */
  protected chunks(record: TensorRecord): Iterable<Uint8Array> {
    return [this.toBytes(record)];
  }

  /** A BurnError naming the source, what was expected and where. */
  protected corrupt(source: string, message: string): BurnError {
    return new BurnError(this.op, `${source}: ${message}`);
  }
}
