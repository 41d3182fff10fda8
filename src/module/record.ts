import type { TensorData } from '../core/data.js';

/**
 * A module's record: its parameters and running states as `TensorData`, nested like the module
 * (field name → record item; arrays of sub-modules as arrays). This is what recorders and stores
 * save and load.
 */
export interface ModuleRecord {
  readonly [field: string]: RecordItem;
}

/** One entry of a {@link ModuleRecord}. */
export type RecordItem = TensorData | ModuleRecord | readonly RecordItem[] | undefined;

/** Flattens a record into `path → TensorData` (`conv1.weight`, `layers.0.bias`). */
export function flattenRecord(record: ModuleRecord, prefix = ''): Map<string, TensorData> {
  const out = new Map<string, TensorData>();
  const walk = (item: RecordItem, path: string): void => {
    if (item === undefined) return;
    if (Array.isArray(item)) {
      item.forEach((v, i) => walk(v as RecordItem, path === '' ? String(i) : `${path}.${i}`));
    } else if (isData(item)) {
      out.set(path, item);
    } else {
      for (const [k, v] of Object.entries(item as ModuleRecord)) walk(v, path === '' ? k : `${path}.${k}`);
    }
  };
  walk(record, prefix);
  return out;
}

/** Rebuilds a nested record from `path → TensorData` entries (numeric segments become array indices). */
export function unflattenRecord(entries: Iterable<[string, TensorData]>): ModuleRecord {
  const root: Record<string, unknown> = {};
  for (const [path, data] of entries) {
    const parts = path.split('.');
    let node: Record<string, unknown> = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = data;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (isData(v) || typeof v !== 'object' || v === null) return v;
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    const mapped = Object.fromEntries(keys.map((k) => [k, arrays(obj[k])]));
    if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => mapped[k]);
    return mapped;
  };
  return arrays(root) as ModuleRecord;
}

function isData(v: unknown): v is TensorData {
  return typeof v === 'object' && v !== null && 'dtype' in v && 'shape' in v && 'values' in v;
}
