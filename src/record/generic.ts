import { TensorData } from '../core/data.js';
import { BurnError } from '../core/errors.js';
import { DefaultRecorder } from './burnpack-recorder.js';
import type { JsonValue, Recorder, RecordTensor, TensorRecord } from './recorder.js';

/**
 * A record as optimizers and schedulers give it: named `TensorData` under `tensors`, and any
 * other fields made of JSON values (an optimizer's `scalars` and `paths`, a scheduler's state).
 */
export interface TensorsWithJson {
  readonly tensors: { readonly [name: string]: TensorData };
}

/** The tensors, and the other fields as JSON metadata (a non-JSON field is a BurnError naming it). */
export function toTensorRecord<T extends TensorsWithJson>(value: T): TensorRecord {
  const tensors = new Map<string, RecordTensor>();
  for (const [k, d] of Object.entries(value.tensors)) {
    if (!(d instanceof TensorData)) throw new BurnError('toTensorRecord', `tensors.${k} is not TensorData`);
    tensors.set(k, { data: d });
  }
  const meta: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'tensors') continue;
    let text: string | undefined;
    try {
      text = JSON.stringify(v);
    } catch (e) {
      throw new BurnError('toTensorRecord', `field '${k}' is not JSON: ${(e as Error).message}`);
    }
    if (text === undefined) throw new BurnError('toTensorRecord', `field '${k}' is not JSON (${typeof v})`);
    meta[k] = JSON.parse(text) as JsonValue;
  }
  return { tensors, meta };
}

/** The inverse of {@link toTensorRecord}. */
export function fromTensorRecord<T extends TensorsWithJson = TensorsWithJson>(record: TensorRecord): T {
  const tensors = Object.fromEntries([...record.tensors].map(([k, t]) => [k, t.data]));
  const meta = record.meta;
  const fields = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {};
  return { ...fields, tensors } as unknown as T;
}

/** Saves an optimizer's or scheduler's record (or any {@link TensorsWithJson}); returns the path written. */
export function saveRecordFile<T extends TensorsWithJson>(
  value: T,
  path: string,
  recorder: Recorder = new DefaultRecorder(),
): string {
  return recorder.save(toTensorRecord(value), path);
}

/** Loads a record written by {@link saveRecordFile}. */
export function loadRecordFile<T extends TensorsWithJson = TensorsWithJson>(
  path: string,
  recorder: Recorder = new DefaultRecorder(),
): T {
  return fromTensorRecord<T>(recorder.load(path));
}

/** Asynchronous {@link saveRecordFile}. */
export function saveRecordFileAsync<T extends TensorsWithJson>(
  value: T,
  path: string,
  recorder: Recorder = new DefaultRecorder(),
): Promise<string> {
  return recorder.saveAsync(toTensorRecord(value), path);
}

/** Asynchronous {@link loadRecordFile}. */
export async function loadRecordFileAsync<T extends TensorsWithJson = TensorsWithJson>(
  path: string,
  recorder: Recorder = new DefaultRecorder(),
): Promise<T> {
  return fromTensorRecord<T>(await recorder.loadAsync(path));
}
