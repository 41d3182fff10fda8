import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BurnError } from '../../tensor/errors.js';

/** The element types of the IDX format (type byte → name). */
const IDX_TYPES = {
  0x08: 'u8',
  0x09: 'i8',
  0x0b: 'i16',
  0x0c: 'i32',
  0x0d: 'f32',
  0x0e: 'f64',
} as const;

/** An IDX element type. */
export type IdxType = (typeof IDX_TYPES)[keyof typeof IDX_TYPES];

const SIZES: Record<IdxType, number> = { u8: 1, i8: 1, i16: 2, i32: 4, f32: 4, f64: 8 };

/** A decoded IDX array: its dims, element type and values (big-endian values converted to the platform's order). */
export interface IdxArray {
  readonly dims: readonly number[];
  readonly type: IdxType;
  readonly data: Uint8Array | Int8Array | Int16Array | Int32Array | Float32Array | Float64Array;
}

/**
 * Decodes the bytes of an IDX file (the format of MNIST and Fashion-MNIST): magic `0 0 type
 * ndims`, `ndims` big-endian u32 dims, then the values. Gzip-compressed bytes (`.gz`) are
 * inflated first. Throws a `BurnError` naming `file` and what is wrong.
 */
export function decodeIdx(bytes: Uint8Array, file: string): IdxArray {
  const op = 'readIdx';
  let buf = bytes;
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      buf = gunzipSync(buf);
    } catch (e) {
      throw new BurnError(op, `${file} is a corrupt gzip file: ${(e as Error).message}`);
    }
  }
  if (buf.length < 4) throw new BurnError(op, `${file} has ${buf.length} bytes; an IDX file starts with a 4-byte magic number`);
  const typeByte = buf[2]!;
  const type = IDX_TYPES[typeByte as keyof typeof IDX_TYPES];
  if (buf[0] !== 0 || buf[1] !== 0 || type === undefined) {
    const hex = [...buf.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new BurnError(op, `${file} is not an IDX file: magic bytes ${hex}; expected 00 00 <type 08|09|0b|0c|0d|0e> <ndims>`);
  }
  const ndims = buf[3]!;
  const headerSize = 4 + 4 * ndims;
  if (ndims === 0 || buf.length < headerSize) throw new BurnError(op, `${file} is truncated in its header: ${ndims} dims need ${headerSize} header bytes, the file has ${buf.length}`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const dims = Array.from({ length: ndims }, (_, k) => view.getUint32(4 + 4 * k, false));
  const count = dims.reduce((a, b) => a * b, 1);
  const size = SIZES[type];
  const expected = headerSize + count * size;
  if (buf.length !== expected) {
    const what = buf.length < expected ? 'truncated' : 'longer than its header says';
    throw new BurnError(op, `${file} is ${what}: dims [${dims.join(', ')}] of ${type} need ${count * size} data bytes, found ${buf.length - headerSize}`);
  }
  const body = buf.subarray(headerSize);
  let data: IdxArray['data'];
  if (type === 'u8') data = new Uint8Array(body);
  else if (type === 'i8') data = new Int8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  else {
    const out = type === 'i16' ? new Int16Array(count) : type === 'i32' ? new Int32Array(count) : type === 'f32' ? new Float32Array(count) : new Float64Array(count);
    const bv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    for (let i = 0; i < count; i++) {
      out[i] = type === 'i16' ? bv.getInt16(2 * i, false) : type === 'i32' ? bv.getInt32(4 * i, false) : type === 'f32' ? bv.getFloat32(4 * i, false) : bv.getFloat64(8 * i, false);
    }
    data = out;
  }
  return { dims, type, data };
}

/** Reads an IDX file (raw or gzip-compressed); a `BurnError` names the file and what is wrong. */
export function readIdx(path: string): IdxArray {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new BurnError('readIdx', `cannot read ${path}: ${(e as Error).message}`);
  }
  return decodeIdx(bytes, path);
}

/** Encodes an array as IDX bytes (`u8` unless `type` says otherwise). */
export function encodeIdx(dims: readonly number[], data: ArrayLike<number>, type: IdxType = 'u8'): Uint8Array {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new BurnError('writeIdx', `dims [${dims.join(', ')}] hold ${count} values, data has ${data.length}`);
  const code = Number(Object.entries(IDX_TYPES).find(([, t]) => t === type)![0]);
  const header = 4 + 4 * dims.length;
  const out = new Uint8Array(header + count * SIZES[type]);
  const view = new DataView(out.buffer);
  out[2] = code;
  out[3] = dims.length;
  dims.forEach((d, k) => view.setUint32(4 + 4 * k, d, false));
  for (let i = 0; i < count; i++) {
    const v = data[i]!;
    const at = header + i * SIZES[type];
    if (type === 'u8') view.setUint8(at, v);
    else if (type === 'i8') view.setInt8(at, v);
    else if (type === 'i16') view.setInt16(at, v, false);
    else if (type === 'i32') view.setInt32(at, v, false);
    else if (type === 'f32') view.setFloat32(at, v, false);
    else view.setFloat64(at, v, false);
  }
  return out;
}

/** Writes an IDX file atomically (temp file + rename); gzip-compressed when `path` ends with `.gz`. */
export function writeIdx(path: string, dims: readonly number[], data: ArrayLike<number>, type: IdxType = 'u8'): void {
  const raw = encodeIdx(dims, data, type);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, path.endsWith('.gz') ? gzipSync(raw) : raw);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new BurnError('writeIdx', `cannot write ${path}: ${(e as Error).message}`);
  }
}
