import { dtypeSize, type DType } from '../core/dtype.js';
import { BurnError, fmt } from '../core/errors.js';
import { numel } from '../core/shape.js';
import { CborFloat, decodeCbor, encodeCbor, type CborMap, type CborValue } from './cbor.js';
import { brief } from './brief.js';
import { resolveLimits, type LoadLimits } from './limits.js';
import type { ByteSource } from './source.js';

/**
 * The burnpack container (`.bpk`), Burn's native format (crate `burn-pack`), byte for byte:
 *
 * - header, 10 bytes, little-endian: magic `0x4255524E` ("NRUB" on disk), version `u16` = 1,
 *   metadata size `u32`;
 * - CBOR metadata: `{tensors: {name: {dtype, shape, data_offsets: [start, end], param_id?}},
 *   metadata?: {string: string}, scalars?: {name: {Int|UInt|Float|Bool: value}}}`, tensor names
 *   in byte order (Rust's BTreeMap), empty maps and absent ids left out;
 * - zero padding to the next 256-byte boundary, then the data section: each tensor's raw
 *   little-endian bytes at a 256-byte aligned offset (relative to the section start), in write
 *   order, with no trailing padding.
 */

/** The magic number, "BURN" read as a little-endian u32. */
export const BURNPACK_MAGIC = 0x4255524e;
/** The format version written and the newest one read. */
export const BURNPACK_VERSION = 1;
/** Header size in bytes. */
export const BURNPACK_HEADER_SIZE = 10;
/** Alignment of the data section and of every tensor. */
export const BURNPACK_ALIGNMENT = 256;
/** Largest metadata accepted (100 MB, as Burn's reader). */
export const BURNPACK_MAX_METADATA_SIZE = 100 * 1024 * 1024;
/** Most tensors accepted (as Burn's reader). */
export const BURNPACK_MAX_TENSORS = 100_000;
/** The file extension, without the dot. */
export const BURNPACK_EXTENSION = 'bpk';

/** A typed scalar kept in the metadata (Burn's `burn_pack::Scalar`). */
export type BurnpackScalar =
  | { readonly type: 'Int'; readonly value: bigint }
  | { readonly type: 'UInt'; readonly value: bigint }
  | { readonly type: 'Float'; readonly value: number }
  | { readonly type: 'Bool'; readonly value: boolean };

/** A tensor to write: bytes in hand, or produced when the writer reaches it (bounded memory). */
export interface BurnpackTensorInput {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  /** Burn's `ParamId` (a u64). */
  readonly paramId?: bigint;
  /** The little-endian bytes, or a function producing them. */
  readonly bytes: Uint8Array | (() => Uint8Array);
}

/** A tensor listed in a burnpack file; `read()` reads its bytes (a view for in-memory sources). */
export interface BurnpackTensorEntry {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: number[];
  readonly paramId?: bigint;
  /** Absolute byte offset in the file. */
  readonly offset: number;
  readonly byteLength: number;
  read(): Uint8Array;
}

/** What a burnpack file holds. */
export interface BurnpackContents {
  /** In the file's metadata order (sorted by name). */
  readonly tensors: BurnpackTensorEntry[];
  readonly metadata: Map<string, string>;
  readonly scalars: Map<string, BurnpackScalar>;
}

const DTYPE_NAMES: Record<Exclude<DType, 'bool'>, string> = {
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
const FROM_NAMES = new Map<string, DType>(Object.entries(DTYPE_NAMES).map(([k, v]) => [v, k as DType]));

/** Burn's serde form of a dtype (`"F32"`; bool as `{"Bool": "Native"}`, Burn's default store). */
export function burnDTypeValue(dtype: DType): CborValue {
  return dtype === 'bool' ? new Map([['Bool', 'Native']]) : DTYPE_NAMES[dtype];
}

/** Reads Burn's serde form of a dtype: the dtype and its element size in the file. */
function parseDType(value: CborValue, where: () => string): { dtype: DType; size: number } {
  if (typeof value === 'string') {
    const dt = FROM_NAMES.get(value);
    if (dt) return { dtype: dt, size: dtypeSize(dt) };
    if (value === 'Flex32') return { dtype: 'f32', size: 4 };
    if (value === 'Bool') return { dtype: 'bool', size: 1 };
  } else if (value instanceof Map && value.size === 1 && value.has('Bool')) {
    const store = value.get('Bool');
    if (store === 'Native' || store === 'U8') return { dtype: 'bool', size: 1 };
    if (store === 'U32') return { dtype: 'bool', size: 4 };
  }
  const shown = brief(value instanceof CborFloat ? value.value : value);
  throw new Error(
    `${where()}: dtype ${shown} is not supported (expected one of ${[...FROM_NAMES.keys(), '{"Bool": "Native"|"U8"|"U32"}'].join(', ')}; U64 and quantized tensors are not supported by burn-ts)`,
  );
}

function compareUtf8(a: string, b: string): number {
  // Byte order of the UTF-8 encodings, as Rust's BTreeMap<String, _>; equal to code point order.
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i]!.codePointAt(0)!;
    const y = cb[i]!.codePointAt(0)!;
    if (x !== y) return x - y;
  }
  return ca.length - cb.length;
}

function sortedMap<V>(entries: Iterable<[string, V]>): Map<string, V> {
  return new Map([...entries].sort(([a], [b]) => compareUtf8(a, b)));
}

function alignUp(n: number): number {
  return Math.ceil(n / BURNPACK_ALIGNMENT) * BURNPACK_ALIGNMENT;
}

/** A planned container: header + metadata, and where each tensor goes. */
export interface BurnpackPlan {
  readonly head: Uint8Array;
  readonly dataStart: number;
  readonly offsets: number[];
  readonly totalSize: number;
}

/** Lays out a container (Burn's `Writer::plan`): descriptors, offsets, metadata bytes, total size. */
export function planBurnpack(
  tensors: readonly BurnpackTensorInput[],
  metadata: ReadonlyMap<string, string> = new Map(),
  scalars: ReadonlyMap<string, BurnpackScalar> = new Map(),
): BurnpackPlan {
  const descriptors = new Map<string, CborValue>();
  const offsets: number[] = [];
  let offset = 0;
  for (const t of tensors) {
    if (descriptors.has(t.name)) throw new BurnError('burnpack', `duplicate tensor name '${t.name}'`);
    const byteLength = numel(t.shape) * dtypeSize(t.dtype);
    if (t.bytes instanceof Uint8Array && t.bytes.byteLength !== byteLength) {
      throw new BurnError(
        'burnpack',
        `tensor '${t.name}' has ${t.bytes.byteLength} bytes but its shape ${fmt(t.shape)} and dtype ${t.dtype} need ${byteLength}`,
      );
    }
    const start = alignUp(offset);
    const d: CborMap = new Map<string, CborValue>([
      ['dtype', burnDTypeValue(t.dtype)],
      ['shape', [...t.shape]],
      ['data_offsets', [start, start + byteLength]],
    ]);
    if (t.paramId !== undefined) d.set('param_id', t.paramId);
    descriptors.set(t.name, d);
    offsets.push(start);
    offset = start + byteLength;
  }
  const root: CborMap = new Map<string, CborValue>([['tensors', sortedMap(descriptors)]]);
  if (metadata.size > 0) root.set('metadata', sortedMap(metadata));
  if (scalars.size > 0) {
    root.set(
      'scalars',
      sortedMap(
        [...scalars].map(([k, s]): [string, CborValue] => [
          k,
          new Map<string, CborValue>([[s.type, s.type === 'Float' ? new CborFloat(s.value) : s.value]]),
        ]),
      ),
    );
  }
  const meta = encodeCbor(root);
  const dataStart = alignUp(BURNPACK_HEADER_SIZE + meta.length);
  const head = new Uint8Array(dataStart);
  const view = new DataView(head.buffer);
  view.setUint32(0, BURNPACK_MAGIC, true);
  view.setUint16(4, BURNPACK_VERSION, true);
  view.setUint32(6, meta.length, true);
  head.set(meta, BURNPACK_HEADER_SIZE);
  return { head, dataStart, offsets, totalSize: dataStart + offset };
}

/**
 * The container as a sequence of chunks (header and padding, then each tensor's bytes and the
 * padding after it), producing lazy tensors one at a time: write them to a file in order.
 */
export function* burnpackChunks(plan: BurnpackPlan, tensors: readonly BurnpackTensorInput[]): Generator<Uint8Array> {
  yield plan.head;
  let pos = 0;
  for (let i = 0; i < tensors.length; i++) {
    const t = tensors[i]!;
    const start = plan.offsets[i]!;
    if (start > pos) yield new Uint8Array(start - pos);
    const bytes = typeof t.bytes === 'function' ? t.bytes() : t.bytes;
    const expected = numel(t.shape) * dtypeSize(t.dtype);
    if (bytes.byteLength !== expected) {
      throw new BurnError(
        'burnpack',
        `tensor '${t.name}' produced ${bytes.byteLength} bytes; its shape ${fmt(t.shape)} and dtype ${t.dtype} need ${expected}`,
      );
    }
    yield bytes;
    pos = start + bytes.byteLength;
  }
}

/** Writes a whole container into one buffer. */
export function encodeBurnpack(
  tensors: readonly BurnpackTensorInput[],
  metadata?: ReadonlyMap<string, string>,
  scalars?: ReadonlyMap<string, BurnpackScalar>,
): Uint8Array {
  const plan = planBurnpack(tensors, metadata, scalars);
  const out = new Uint8Array(plan.totalSize);
  let pos = 0;
  for (const chunk of burnpackChunks(plan, tensors)) {
    out.set(chunk, pos);
    pos += chunk.byteLength;
  }
  return out;
}

function asMap(v: CborValue, where: () => string): CborMap {
  if (!(v instanceof Map)) throw new Error(`${where()}: expected a map, found ${describe(v)}`);
  return v;
}

function describe(v: CborValue): string {
  if (v instanceof Map) return 'a map';
  if (v instanceof CborFloat) return `float ${v.value}`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v instanceof Uint8Array) return 'a byte string';
  return `${typeof v} ${brief(v)}`;
}

function asUint(v: CborValue, where: () => string): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint') throw new Error(`${where()}: ${v} exceeds the largest supported offset or size (2^53)`);
  throw new Error(`${where()}: expected an unsigned integer, found ${describe(v)}`);
}

/**
 * Reads a burnpack container's header and metadata, validating every descriptor against the
 * source's size (a truncated or corrupt file is a BurnError naming the source, the field and the
 * byte offset). Tensor bytes are read only when `read()` is called. `limits.maxNestingDepth`
 * bounds the CBOR metadata's nesting (default 128, as Burn's reader).
 */
export function readBurnpack(source: ByteSource, op = 'burnpack', limits?: LoadLimits): BurnpackContents {
  const fail = (message: string): never => {
    throw new BurnError(op, `${source.name}: ${message}`);
  };
  if (source.size < BURNPACK_HEADER_SIZE)
    fail(`not a burnpack file: ${source.size} bytes, the header alone needs ${BURNPACK_HEADER_SIZE} (truncated?)`);
  const header = source.read(0, BURNPACK_HEADER_SIZE);
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (view.getUint32(0, true) !== BURNPACK_MAGIC) {
    fail(
      `not a burnpack file: bytes 0..4 are ${[...header.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}, expected 4e 52 55 42 ("NRUB")`,
    );
  }
  const version = view.getUint16(4, true);
  if (version > BURNPACK_VERSION)
    fail(`burnpack format version ${version} (byte offset 4) is newer than the supported version ${BURNPACK_VERSION}`);
  const metaSize = view.getUint32(6, true);
  if (metaSize > BURNPACK_MAX_METADATA_SIZE)
    fail(`metadata size ${metaSize} (byte offset 6) exceeds the ${BURNPACK_MAX_METADATA_SIZE}-byte limit`);
  if (BURNPACK_HEADER_SIZE + metaSize > source.size) {
    fail(
      `truncated: the header announces ${metaSize} bytes of metadata at byte offset ${BURNPACK_HEADER_SIZE}, but the file has ${source.size} bytes`,
    );
  }
  const { maxNestingDepth } = resolveLimits(limits, op);
  const root = decodeCbor(source.read(BURNPACK_HEADER_SIZE, metaSize), {
    source: source.name,
    baseOffset: BURNPACK_HEADER_SIZE,
    op,
    maxDepth: maxNestingDepth,
  });
  const dataStart = alignUp(BURNPACK_HEADER_SIZE + metaSize);
  try {
    const top = asMap(root, () => 'metadata');
    const tensors = asMap(
      top.get('tensors') ?? fail("metadata has no 'tensors' field"),
      () => "metadata field 'tensors'",
    );
    if (tensors.size > BURNPACK_MAX_TENSORS)
      fail(`${tensors.size} tensors exceed the limit of ${BURNPACK_MAX_TENSORS}`);
    const entries: BurnpackTensorEntry[] = [];
    for (const [name, raw] of tensors) {
      const at = (field: string) => () => `tensor '${name}' field '${field}'`;
      const d = asMap(raw, () => `tensor '${name}'`);
      const { dtype, size } = parseDType(d.get('dtype') ?? fail(`tensor '${name}' has no 'dtype'`), at('dtype'));
      const shapeRaw = d.get('shape');
      if (!Array.isArray(shapeRaw)) throw new Error(`${at('shape')()}: expected an array, found ${describe(shapeRaw)}`);
      const shape = shapeRaw.map((s, i) => asUint(s, () => `${at('shape')()}[${i}]`));
      const offs = d.get('data_offsets');
      if (!Array.isArray(offs) || offs.length !== 2)
        throw new Error(`${at('data_offsets')()}: expected [start, end], found ${describe(offs)}`);
      const start = asUint(offs[0], at('data_offsets'));
      const end = asUint(offs[1], at('data_offsets'));
      if (end < start) fail(`tensor '${name}': data_offsets [${start}, ${end}] end before they start`);
      const need = numel(shape) * size;
      if (end - start !== need)
        fail(
          `tensor '${name}': data_offsets [${start}, ${end}] hold ${end - start} bytes, but shape ${fmt(shape)} of ${dtype} needs ${need}`,
        );
      if (dataStart + end > source.size) {
        fail(
          `truncated: tensor '${name}' needs bytes ${dataStart + start}..${dataStart + end}, but the file has ${source.size} bytes`,
        );
      }
      const pid = d.get('param_id');
      let paramId: bigint | undefined;
      if (pid !== undefined && pid !== null) {
        if (typeof pid === 'number' && Number.isInteger(pid) && pid >= 0) paramId = BigInt(pid);
        else if (typeof pid === 'bigint') paramId = pid;
        else throw new Error(`${at('param_id')()}: expected an unsigned integer, found ${describe(pid)}`);
      }
      const offset = dataStart + start;
      const byteLength = end - start;
      const read =
        size === 4 && dtype === 'bool'
          ? () => {
              // Bool stored as u32: one byte per element in burn-ts.
              const raw4 = source.read(offset, byteLength);
              const v = new DataView(raw4.buffer, raw4.byteOffset, raw4.byteLength);
              return Uint8Array.from({ length: byteLength / 4 }, (_, i) => (v.getUint32(i * 4, true) !== 0 ? 1 : 0));
            }
          : () => source.read(offset, byteLength);
      entries.push({ name, dtype, shape, ...(paramId !== undefined ? { paramId } : {}), offset, byteLength, read });
    }
    const metadata = new Map<string, string>();
    const m = top.get('metadata');
    if (m !== undefined && m !== null) {
      for (const [k, v] of asMap(m, () => "metadata field 'metadata'")) {
        if (typeof v !== 'string') throw new Error(`metadata entry '${k}': expected a string, found ${describe(v)}`);
        metadata.set(k, v);
      }
    }
    const scalars = new Map<string, BurnpackScalar>();
    const s = top.get('scalars');
    if (s !== undefined && s !== null) {
      for (const [k, v] of asMap(s, () => "metadata field 'scalars'")) scalars.set(k, parseScalar(v, k));
    }
    return { tensors: entries, metadata, scalars };
  } catch (e) {
    if (e instanceof BurnError) throw e;
    return fail(`invalid metadata: ${(e as Error).message}`);
  }
}

function parseScalar(v: CborValue, key: string): BurnpackScalar {
  const m = asMap(v, () => `scalar '${key}'`);
  const [[type, value] = ['', undefined]] = [...m];
  if (m.size === 1) {
    if ((type === 'Int' || type === 'UInt') && (typeof value === 'number' || typeof value === 'bigint'))
      return { type, value: BigInt(value) };
    if (type === 'Float' && typeof value === 'number') return { type, value };
    if (type === 'Bool' && typeof value === 'boolean') return { type, value };
  }
  throw new Error(`scalar '${key}': expected {Int|UInt|Float|Bool: value}, found ${describe(v)}`);
}

/** Appends `.ext` when the last path segment has no extension (Rust's `Path::extension().is_none()`). */
export function withDefaultExtension(path: string, ext: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? path : `${path}.${ext}`;
}
