import type { Device } from '../device/device.js';
import { Param } from '../module/param.js';
import type { Recorder, RecordTensor, TensorRecord } from '../record/recorder.js';
import { BurnError } from '../core/errors.js';
import type { TensorData } from '../core/data.js';
import { applySnapshots, dataForWriting, moduleLeaves, readModuleData, type ModuleLike } from './module-snapshot.js';
import { TensorSnapshot } from './snapshot.js';

/**
 * Module ↔ {@link TensorRecord}: the record keys are Burn's snake_case paths, each tensor with its
 * parameter id. Loading is strict (every parameter present, nothing unused, shapes equal, floats
 * cast to the module's dtype), builds a new module and leaves the original untouched on error.
 */

/** The module's tensors as a record (synchronous reads; `data` supplies them for asynchronous devices). */
export function moduleToRecord(module: ModuleLike, data?: ReadonlyMap<string, TensorData>): TensorRecord {
  return toRecord(module, data, false);
}

/** @internal {@link moduleToRecord} for serializing at once: CPU tensors are read as views of their storage, not copied. */
export function moduleToRecordForWriting(module: ModuleLike): TensorRecord {
  return toRecord(module, undefined, true);
}

function toRecord(module: ModuleLike, data: ReadonlyMap<string, TensorData> | undefined, forWriting: boolean): TensorRecord {
  const tensors = new Map<string, RecordTensor>();
  for (const { path, key, leaf } of moduleLeaves(module)) {
    const t = leaf instanceof Param ? leaf.val() : leaf.value();
    tensors.set(key, { data: data?.get(path) ?? (forWriting ? dataForWriting(t) : t.toDataSync()), id: leaf.id });
  }
  return { tensors };
}

/** Asynchronous {@link moduleToRecord} (reads with `await toData()`, every device). */
export async function moduleToRecordAsync(module: ModuleLike): Promise<TensorRecord> {
  return moduleToRecord(module, await readModuleData(module));
}

/** A new module loaded from `record` onto `device` (strict; see the file comment). `source` names the file in errors. */
export function moduleFromRecord<M extends ModuleLike>(module: M, record: TensorRecord, device: Device | undefined, source: string): M {
  const snapshots = [...record.tensors].map(([key, t]) => TensorSnapshot.fromData(t.data, key, t.id === undefined ? {} : { paramId: t.id }));
  const { module: loaded, result } = applySnapshots(module, snapshots, { castToModule: true, ...(device ? { device } : {}) });
  const problems: string[] = [];
  if (result.errors.length > 0) problems.push(`${result.errors.length} error(s)`);
  if (result.missing.length > 0) problems.push(`${result.missing.length} tensor(s) missing from the file`);
  if (result.unused.length > 0) problems.push(`${result.unused.length} tensor(s) in the file that the module does not have`);
  if (problems.length > 0) {
    throw new BurnError('loadFile', `${source} does not match the module (${problems.join(', ')}); the module is unchanged:\n${result}`);
  }
  return loaded;
}

/** Saves a module with a recorder; returns the path written. */
export function saveModuleFile(module: ModuleLike, path: string, recorder: Recorder): string {
  return recorder.save(moduleToRecordForWriting(module), path);
}

/** Asynchronous {@link saveModuleFile}. */
export async function saveModuleFileAsync(module: ModuleLike, path: string, recorder: Recorder): Promise<string> {
  return recorder.saveAsync(await moduleToRecordAsync(module), path);
}

/** Loads a module from a file written by `recorder`. */
export function loadModuleFile<M extends ModuleLike>(module: M, path: string, device: Device | undefined, recorder: Recorder): M {
  return moduleFromRecord(module, recorder.load(path), device, recorder.filePath(path));
}

/** Asynchronous {@link loadModuleFile}. */
export async function loadModuleFileAsync<M extends ModuleLike>(module: M, path: string, device: Device | undefined, recorder: Recorder): Promise<M> {
  return moduleFromRecord(module, await recorder.loadAsync(path), device, recorder.filePath(path));
}
