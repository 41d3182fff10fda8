import { TensorData } from '../core/data.js';
import { dtypeSize, type DType } from '../core/dtype.js';
import { numel } from '../core/shape.js';
import { paramIdFromText, paramIdToBase32, newIdText } from './param-id.js';
import { brief } from './brief.js';
import { DEFAULT_LOAD_LIMITS } from './limits.js';
import type { JsonValue, PrecisionSettings, RecordTensor, TensorRecord } from './recorder.js';

/**
 * The serde shape of Burn's recorders (`BurnRecord { metadata, item }`): `metadata` is
 * `{float, int, format, version, settings}`; `item` nests the record by field name, each tensor
 * as `ParamSerde { id, param: TensorData { bytes, shape, dtype } }` with the id in Burn's base32
 * text and the dtype as Burn's serde names (`"F32"`, `{"Bool": "Native"}`).
 */

const NAMES: Record<Exclude<DType, 'bool'>, string> = {
  f64: 'F64',
  f32: 'F32',
  f16: 'F16',
  bf16: 'BF16',
  i64: 'I64',
  i32: 'I32',
  i16: 'I16',
  i8: 'I8',
  u32: 'U32',
  u16: 'U16',
  u8: 'U8',
};
const FROM = new Map<string, DType>(Object.entries(NAMES).map(([k, v]) => [v, k as DType]));

/** Burn's serde value of a dtype. */
export function dtypeToSerde(dtype: DType): string | { Bool: string } {
  return dtype === 'bool' ? { Bool: 'Native' } : NAMES[dtype];
}

/** Parses Burn's serde value of a dtype, or undefined. */
export function dtypeFromSerde(v: unknown): DType | undefined {
  if (typeof v === 'string') return v === 'Bool' ? 'bool' : v === 'Flex32' ? 'f32' : FROM.get(v);
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const store = (v as Record<string, unknown>).Bool;
    if (store === 'Native' || store === 'U8') return 'bool';
  }
  return undefined;
}

/** `BurnRecord.metadata` for a recorder. */
export function burnMetadata(format: string, settings: PrecisionSettings, version: string): Record<string, string> {
  return {
    float: settings.floatName,
    int: settings.intName,
    format: `burn_core::record::file::${format}<burn_core::record::settings::${settings.name}>`,
    version,
    settings: settings.name,
  };
}

/** Builds `{metadata, item[, meta]}` with tensors as `{id, param: {bytes, shape, dtype}}`; `bytes` maps the raw bytes (Uint8Array for MessagePack, numbers for JSON). */
export function toNamedRecord(
  record: TensorRecord,
  metadata: Record<string, string>,
  bytes: (b: Uint8Array) => unknown,
): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, t] of record.tensors) {
    const parts = key.split('.');
    let node = root;
    parts.forEach((p, i) => {
      if (i === parts.length - 1) {
        node[p] = {
          id: paramIdToBase32(t.id ?? newIdText()),
          param: { bytes: bytes(t.data.bytes), shape: [...t.data.shape], dtype: dtypeToSerde(t.data.dtype) },
        };
      } else {
        node = (node[p] ??= {}) as Record<string, unknown>;
      }
    });
  }
  const arrays = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null || isLeaf(v)) return v;
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    const mapped = Object.fromEntries(keys.map((k) => [k, arrays(obj[k])]));
    if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => mapped[k]);
    return mapped;
  };
  const out: Record<string, unknown> = { metadata, item: arrays(root) };
  if (record.meta !== undefined) out.meta = record.meta;
  return out;
}

function isLeaf(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const p = o.param as Record<string, unknown> | undefined;
  return 'id' in o && typeof p === 'object' && p !== null && 'bytes' in p && 'shape' in p && 'dtype' in p;
}

/**
 * Reads `{metadata, item[, meta]}` back; `fail(message)` throws the caller's error naming the
 * source. The item tree is followed `maxDepth` levels deep at most (`LoadLimits.maxNestingDepth`).
 */
export function fromNamedRecord(
  root: unknown,
  fail: (message: string) => never,
  maxDepth: number = DEFAULT_LOAD_LIMITS.maxNestingDepth,
): TensorRecord {
  if (typeof root !== 'object' || root === null || Array.isArray(root))
    fail('expected a record {metadata, item} at the top level');
  const r = root as Record<string, unknown>;
  if (!('item' in r)) fail("the record has no 'item' field");
  const tensors = new Map<string, RecordTensor>();
  const walk = (v: unknown, path: string, depth: number): void => {
    if (v === null || v === undefined) return; // Option::None
    if (depth > maxDepth) {
      fail(
        `item.${path.length > 80 ? `${path.slice(0, 80)}…` : path}: the record nests deeper than ${maxDepth} levels; expected a module tree of modest depth (raise the maxNestingDepth limit to read it)`,
      );
    }
    if (isLeaf(v)) {
      const leaf = v as { id: unknown; param: { bytes: unknown; shape: unknown; dtype: unknown } };
      const at = path === '' ? 'item' : `item.${path}`;
      const dtype = dtypeFromSerde(leaf.param.dtype);
      if (dtype === undefined) fail(`${at}.param.dtype: unsupported dtype ${brief(leaf.param.dtype)}`);
      const shape = leaf.param.shape;
      if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0))
        fail(`${at}.param.shape: expected non-negative integers, found ${brief(shape)}`);
      let bytes: Uint8Array;
      const raw = leaf.param.bytes;
      if (raw instanceof Uint8Array) bytes = raw;
      else if (Array.isArray(raw) && raw.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
        bytes = Uint8Array.from(raw as number[]);
      else return fail(`${at}.param.bytes: expected bytes`);
      const need = numel(shape as number[]) * (dtype === 'bool' ? 1 : dtypeSize(dtype!));
      if (bytes.byteLength !== need)
        fail(
          `${at}.param.bytes: ${bytes.byteLength} bytes, but shape [${(shape as number[]).join(', ')}] of ${dtype} needs ${need} (truncated or corrupt)`,
        );
      const id = typeof leaf.id === 'string' ? paramIdFromText(leaf.id) : undefined;
      tensors.set(path, {
        data: TensorData.fromBytes(bytes.slice(), shape as number[], dtype!),
        ...(id !== undefined ? { id } : {}),
      });
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, path === '' ? String(i) : `${path}.${i}`, depth + 1));
      return;
    }
    if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>))
        walk(x, path === '' ? k : `${path}.${k}`, depth + 1);
      return;
    }
    // Constants of Rust records (numbers, strings) carry no tensor.
  };
  walk(r.item, '', 0);
  return r.meta === undefined ? { tensors } : { tensors, meta: r.meta as JsonValue };
}
