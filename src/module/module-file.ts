import type { Device } from '../device/device.js';
import type { Recorder, RecordTensor, TensorRecord } from '../record/recorder.js';
import { BurnError, fmt } from '../core/errors.js';
import type { TensorData } from '../core/data.js';
import { isFloatDType, isIntDType, type DType } from '../core/dtype.js';
import { sameShape } from '../core/shape.js';
import { Tensor } from '../tensor/tensor.js';
import type { Kind } from '../tensor/kind.js';
import { dataForWriting, leafTensor, moduleLeaves, readModuleData, replaceLeaves, type ModuleLike } from './leaves.js';
import { snakePath } from './naming.js';

/**
 * Module ↔ {@link TensorRecord}: the record keys are Burn's snake_case paths, each tensor with its
 * parameter id. Loading is strict (every parameter present, nothing unused, shapes equal, floats
 * cast to the module's dtype), builds a new module and leaves the original untouched on error.
 * This is the module layer's own loader (Burn's `load_record`), not burn-ts/store's, which sits above.
 */

/** The module's tensors as a record (synchronous reads; `data` supplies them for asynchronous devices). */
export function moduleToRecord(module: ModuleLike, data?: ReadonlyMap<string, TensorData>): TensorRecord {
  return toRecord(module, data, false);
}

/** @internal {@link moduleToRecord} for serializing at once: CPU tensors are read as views of their storage, not copied. */
export function moduleToRecordForWriting(module: ModuleLike): TensorRecord {
  return toRecord(module, undefined, true);
}

function toRecord(
  module: ModuleLike,
  data: ReadonlyMap<string, TensorData> | undefined,
  forWriting: boolean,
): TensorRecord {
  const tensors = new Map<string, RecordTensor>();
  for (const { path, key, leaf } of moduleLeaves(module)) {
    const t = leafTensor(leaf);
    tensors.set(key, { data: data?.get(path) ?? (forWriting ? dataForWriting(t) : t.toDataSync()), id: leaf.id });
  }
  return { tensors };
}

/** Asynchronous {@link moduleToRecord} (reads with `await toData()`, every device). */
export async function moduleToRecordAsync(module: ModuleLike): Promise<TensorRecord> {
  return moduleToRecord(module, await readModuleData(module));
}

function kindOf(dtype: DType): string {
  return isFloatDType(dtype) ? 'float' : isIntDType(dtype) ? 'int' : 'bool';
}

/** At most ten items of a list, one a line, for an error message. */
function listed(title: string, items: readonly string[]): string[] {
  if (items.length === 0) return [];
  const more = items.length > 10 ? [`    ... and ${items.length - 10} more`] : [];
  return [title, ...items.slice(0, 10).map((p) => `    • ${p}`), ...more];
}

/** A new module loaded from `record` onto `device` (strict; see the file comment). `source` names the file in errors. */
export function moduleFromRecord<M extends ModuleLike>(
  module: M,
  record: TensorRecord,
  device: Device | undefined,
  source: string,
): M {
  const leaves = new Map(moduleLeaves(module).map((l) => [l.path, l]));
  const used = new Set<string>();
  const missing: string[] = [];
  const errors: string[] = [];
  const loaded = replaceLeaves(module, (path, current) => {
    const key = leaves.get(path)?.key ?? snakePath(path);
    // Burn's snake_case key first, then the burn-ts path (records written by hand).
    const found = [key, path].find((k) => record.tensors.has(k));
    if (found === undefined) {
      missing.push(path);
      return undefined;
    }
    used.add(found);
    const entry = record.tensors.get(found)!;
    let data = entry.data;
    if (!sameShape(data.shape, current.dims())) {
      errors.push(`Shape mismatch for '${path}': expected ${fmt(current.dims())}, found ${fmt(data.shape)}`);
      return undefined;
    }
    if (kindOf(data.dtype) !== kindOf(current.dtype())) {
      errors.push(`DType mismatch for '${path}': expected ${current.dtype()}, found ${data.dtype}`);
      return undefined;
    }
    if (data.dtype !== current.dtype()) data = data.convert(current.dtype());
    return { tensor: Tensor.fromData(data, device ?? current.device()) as Tensor<number, Kind>, id: entry.id };
  });
  const unused = [...record.tensors.keys()].filter((k) => !used.has(k)).sort();
  const problems: string[] = [];
  if (errors.length > 0) problems.push(`${errors.length} error(s)`);
  if (missing.length > 0) problems.push(`${missing.length} tensor(s) missing from the file`);
  if (unused.length > 0) problems.push(`${unused.length} tensor(s) in the file that the module does not have`);
  if (problems.length > 0) {
    const details = [
      ...listed('  Errors:', errors),
      ...listed('  Missing from the file (module paths):', missing.sort()),
      ...listed('  In the file but not in the module (file keys):', unused),
    ];
    throw new BurnError(
      'loadFile',
      `${source} does not match the module (${problems.join(', ')}); the module is unchanged:\n${details.join('\n')}`,
    );
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
export function loadModuleFile<M extends ModuleLike>(
  module: M,
  path: string,
  device: Device | undefined,
  recorder: Recorder,
): M {
  return moduleFromRecord(module, recorder.load(path), device, recorder.filePath(path));
}

/** Asynchronous {@link loadModuleFile}. */
export async function loadModuleFileAsync<M extends ModuleLike>(
  module: M,
  path: string,
  device: Device | undefined,
  recorder: Recorder,
): Promise<M> {
  return moduleFromRecord(module, await recorder.loadAsync(path), device, recorder.filePath(path));
}
