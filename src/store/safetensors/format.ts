import { dtypeSize, type DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { numel } from '../../core/shape.js';
import type { ByteSource } from '../../record/source.js';
import { brief } from '../../record/brief.js';

/**
 * The SafeTensors format, as the reference `safetensors` library writes it: an 8-byte
 * little-endian header length, a compact JSON header (`__metadata__` first, then the tensors in
 * data order: by dtype from the widest down, then by name), padded with spaces to a multiple of
 * 8, then the raw little-endian data.
 */

const NAMES: Record<DType, string> = {
  bool: 'BOOL',
  u8: 'U8',
  i8: 'I8',
  i16: 'I16',
  u16: 'U16',
  f16: 'F16',
  bf16: 'BF16',
  i32: 'I32',
  u32: 'U32',
  f32: 'F32',
  f64: 'F64',
  i64: 'I64',
};
/** The reference library's dtype order (its enum order), used to sort tensors. */
const ORDER = [
  'BOOL',
  'U8',
  'I8',
  'F8_E5M2',
  'F8_E4M3',
  'I16',
  'U16',
  'F16',
  'BF16',
  'I32',
  'U32',
  'F32',
  'F64',
  'I64',
  'U64',
];
const FROM = new Map(Object.entries(NAMES).map(([k, v]) => [v, k as DType]));

/** Largest header accepted (100 MB, as the reference library). */
export const SAFETENSORS_MAX_HEADER = 100_000_000;

/** A tensor to write. */
export interface SafetensorsInput {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly bytes: () => Uint8Array;
}

/** A tensor listed in a file; `read()` reads its bytes (a view for in-memory sources). */
export interface SafetensorsEntry {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: number[];
  readonly offset: number;
  readonly byteLength: number;
  read(): Uint8Array;
}

function byteSize(dtype: DType): number {
  return dtype === 'bool' ? 1 : dtypeSize(dtype);
}

/** The header bytes and the order and offsets of the data. */
export function planSafetensors(
  tensors: readonly SafetensorsInput[],
  metadata?: ReadonlyMap<string, string>,
): { head: Uint8Array; order: SafetensorsInput[]; totalSize: number } {
  const seen = new Set<string>();
  for (const t of tensors) {
    if (t.name === '__metadata__')
      throw new BurnError('safetensors', "'__metadata__' is reserved and cannot name a tensor");
    if (seen.has(t.name)) throw new BurnError('safetensors', `duplicate tensor name '${t.name}'`);
    seen.add(t.name);
  }
  const order = [...tensors].sort(
    (a, b) =>
      ORDER.indexOf(NAMES[b.dtype]) - ORDER.indexOf(NAMES[a.dtype]) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const header: Record<string, unknown> = {};
  if (metadata && metadata.size > 0)
    header.__metadata__ = Object.fromEntries([...metadata].sort(([a], [b]) => (a < b ? -1 : 1)));
  let offset = 0;
  for (const t of order) {
    const n = numel(t.shape) * byteSize(t.dtype);
    header[t.name] = { dtype: NAMES[t.dtype], shape: [...t.shape], data_offsets: [offset, offset + n] };
    offset += n;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const pad = (8 - (json.length % 8)) % 8;
  if (pad > 0) {
    const padded = new Uint8Array(json.length + pad).fill(0x20);
    padded.set(json);
    json = padded;
  }
  const head = new Uint8Array(8 + json.length);
  new DataView(head.buffer).setBigUint64(0, BigInt(json.length), true);
  head.set(json, 8);
  return { head, order, totalSize: head.length + offset };
}

/** The file as chunks: header, then each tensor's bytes (produced one at a time). */
export function* safetensorsChunks(plan: ReturnType<typeof planSafetensors>): Generator<Uint8Array> {
  yield plan.head;
  for (const t of plan.order) {
    const b = t.bytes();
    const n = numel(t.shape) * byteSize(t.dtype);
    if (b.byteLength !== n)
      throw new BurnError(
        'safetensors',
        `tensor '${t.name}' produced ${b.byteLength} bytes; shape ${fmt(t.shape)} of ${t.dtype} needs ${n}`,
      );
    yield b;
  }
}

/** A whole file in one buffer. */
export function encodeSafetensors(
  tensors: readonly SafetensorsInput[],
  metadata?: ReadonlyMap<string, string>,
): Uint8Array {
  const plan = planSafetensors(tensors, metadata);
  const out = new Uint8Array(plan.totalSize);
  let pos = 0;
  for (const c of safetensorsChunks(plan)) {
    out.set(c, pos);
    pos += c.byteLength;
  }
  return out;
}

/** Reads and validates the header; tensor bytes are read by `read()`. Errors name the source and the byte offset or field. */
export function readSafetensors(
  source: ByteSource,
  op = 'safetensors',
): { tensors: SafetensorsEntry[]; metadata: Map<string, string> } {
  const fail = (m: string): never => {
    throw new BurnError(op, `${source.name}: ${m}`);
  };
  if (source.size < 8)
    fail(`not a SafeTensors file: ${source.size} bytes, the header length alone needs 8 (truncated?)`);
  const n64 = new DataView(source.read(0, 8).slice().buffer).getBigUint64(0, true);
  if (n64 > BigInt(SAFETENSORS_MAX_HEADER))
    fail(`header length ${n64} (bytes 0..8) exceeds the ${SAFETENSORS_MAX_HEADER}-byte limit; not a SafeTensors file?`);
  const n = Number(n64);
  if (8 + n > source.size)
    fail(`truncated: the header announces ${n} bytes at byte offset 8, but the file has ${source.size} bytes`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(source.read(8, n)));
  } catch (e) {
    return fail(`the JSON header (bytes 8..${8 + n}) is invalid: ${(e as Error).message}`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    return fail('the JSON header is not an object');
  const dataStart = 8 + n;
  const metadata = new Map<string, string>();
  const tensors: SafetensorsEntry[] = [];
  for (const [name, info] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof info !== 'object' || info === null) fail("'__metadata__' is not an object");
      for (const [k, v] of Object.entries(info as Record<string, unknown>)) {
        if (typeof v !== 'string') fail(`'__metadata__.${k}' is not a string`);
        metadata.set(k, v as string);
      }
      continue;
    }
    const i = info as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const dtype = typeof i?.dtype === 'string' ? FROM.get(i.dtype) : undefined;
    if (dtype === undefined)
      fail(
        `tensor '${name}' field 'dtype': ${brief(i?.dtype)} is not supported (expected one of ${[...FROM.keys()].join(', ')})`,
      );
    if (!Array.isArray(i.shape) || !i.shape.every((d) => Number.isInteger(d) && d >= 0))
      fail(`tensor '${name}' field 'shape': expected non-negative integers, found ${brief(i.shape)}`);
    const o = i.data_offsets;
    if (!Array.isArray(o) || o.length !== 2 || !o.every((d) => Number.isInteger(d) && d >= 0) || o[1] < o[0])
      fail(`tensor '${name}' field 'data_offsets': expected [start, end], found ${brief(o)}`);
    const [start, end] = o as [number, number];
    const shape = i.shape as number[];
    const need = numel(shape) * byteSize(dtype!);
    if (end - start !== need)
      fail(
        `tensor '${name}': data_offsets [${start}, ${end}] hold ${end - start} bytes, but shape ${fmt(shape)} of ${dtype} needs ${need}`,
      );
    if (dataStart + end > source.size)
      fail(
        `truncated: tensor '${name}' needs bytes ${dataStart + start}..${dataStart + end}, but the file has ${source.size} bytes`,
      );
    const offset = dataStart + start;
    tensors.push({ name, dtype: dtype!, shape, offset, byteLength: need, read: () => source.read(offset, need) });
  }
  return { tensors, metadata };
}
