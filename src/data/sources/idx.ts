import { kMaxLength } from 'node:buffer';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { BurnError } from '../../core/errors.js';

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

/** The default of {@link IdxReadOptions.maxBytes}: 1 GiB (the largest IDX data sets, EMNIST's, are about 0.55 GB). */
export const DEFAULT_IDX_MAX_BYTES = 1 << 30;

/** Options of {@link decodeIdx} and {@link readIdx}. */
export interface IdxReadOptions {
  /**
   * The most bytes the IDX array may take, header included (after decompression for `.gz`);
   * default {@link DEFAULT_IDX_MAX_BYTES}. A file declaring more is refused before it is inflated.
   */
  readonly maxBytes?: number;
}

const OP = 'readIdx';

function maxBytesOf(options: IdxReadOptions): number {
  const max = options.maxBytes ?? DEFAULT_IDX_MAX_BYTES;
  if (!Number.isSafeInteger(max) || max < 1) throw new BurnError(OP, `maxBytes ${max}; expected a positive integer`);
  return max;
}

const isGzip = (buf: Uint8Array): boolean => buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;

/** Element type, dims and sizes of an IDX header. */
interface IdxHeader {
  readonly type: IdxType;
  readonly dims: number[];
  readonly headerSize: number;
  /** Header plus data bytes, as the header declares. */
  readonly total: number;
}

/** Parses the IDX header at the start of `buf`; with `partial`, `undefined` when `buf` is too short to hold it. */
function parseHeader(buf: Uint8Array, file: string, partial: boolean): IdxHeader | undefined {
  if (buf.length < 4) {
    if (partial) return undefined;
    throw new BurnError(OP, `${file} has ${buf.length} bytes; an IDX file starts with a 4-byte magic number`);
  }
  const type = IDX_TYPES[buf[2]! as keyof typeof IDX_TYPES];
  if (buf[0] !== 0 || buf[1] !== 0 || type === undefined) {
    const hex = [...buf.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new BurnError(
      OP,
      `${file} is not an IDX file: magic bytes ${hex}; expected 00 00 <type 08|09|0b|0c|0d|0e> <ndims>`,
    );
  }
  const ndims = buf[3]!;
  const headerSize = 4 + 4 * ndims;
  if (partial && ndims > 0 && buf.length < headerSize) return undefined;
  if (ndims === 0 || buf.length < headerSize)
    throw new BurnError(
      OP,
      `${file} is truncated in its header: ${ndims} dims need ${headerSize} header bytes, the file has ${buf.length}`,
    );
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const dims = Array.from({ length: ndims }, (_, k) => view.getUint32(4 + 4 * k, false));
  const count = dims.reduce((a, b) => a * b, 1);
  return { type, dims, headerSize, total: headerSize + count * SIZES[type] };
}

function checkDeclared(header: IdxHeader, file: string, max: number): void {
  if (header.total > max) {
    throw new BurnError(
      OP,
      `${file} declares dims [${header.dims.join(', ')}] of ${header.type} (${header.total} bytes with its header), over the limit of ${max} bytes; pass a larger maxBytes option to read it`,
    );
  }
}

/** Compressed prefixes tried in turn to read a gzip file's IDX header (deflate expands a prefix at most about 1032-fold). */
const HEADER_PROBES = [256, 4096, 65536];

/**
 * Inflates gzip bytes holding an IDX array, never past the size its header declares: the header
 * is read from a short compressed prefix first, so a small file cannot expand without limit.
 */
function gunzipIdx(buf: Uint8Array, file: string, max: number): Uint8Array {
  let header: IdxHeader | undefined;
  for (const probe of HEADER_PROBES) {
    const whole = probe >= buf.length;
    let head: Uint8Array;
    try {
      // Z_SYNC_FLUSH: a cut stream gives what it holds instead of an error.
      head = gunzipSync(buf.subarray(0, probe), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch (e) {
      throw new BurnError(OP, `${file} is a corrupt gzip file: ${(e as Error).message}`);
    }
    header = parseHeader(head, file, !whole);
    if (header || whole) break;
  }
  if (!header)
    throw new BurnError(
      OP,
      `${file}: the first ${HEADER_PROBES.at(-1)} compressed bytes do not hold a whole IDX header; expected a gzip-compressed IDX file`,
    );
  checkDeclared(header, file, max);
  try {
    return gunzipSync(buf, { maxOutputLength: Math.min(header.total, kMaxLength) });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BurnError(
        OP,
        `${file} inflates to more than the ${header.total} bytes its header declares (dims [${header.dims.join(', ')}] of ${header.type}); the gzip data is longer than the IDX array, so it was not inflated further`,
      );
    }
    throw new BurnError(OP, `${file} is a corrupt gzip file: ${(e as Error).message}`);
  }
}

/**
 * Decodes the bytes of an IDX file (the format of MNIST and Fashion-MNIST): magic `0 0 type
 * ndims`, `ndims` big-endian u32 dims, then the values. Gzip-compressed bytes (`.gz`) are
 * inflated first, never beyond the size the header declares, and a header declaring more than
 * `options.maxBytes` is refused. Throws a `BurnError` naming `file` and what is wrong.
 */
export function decodeIdx(bytes: Uint8Array, file: string, options: IdxReadOptions = {}): IdxArray {
  const max = maxBytesOf(options);
  const buf = isGzip(bytes) ? gunzipIdx(bytes, file, max) : bytes;
  const header = parseHeader(buf, file, false)!;
  checkDeclared(header, file, max);
  const { type, dims, headerSize, total: expected } = header;
  const count = dims.reduce((a, b) => a * b, 1);
  const size = SIZES[type];
  if (buf.length !== expected) {
    const what = buf.length < expected ? 'truncated' : 'longer than its header says';
    throw new BurnError(
      OP,
      `${file} is ${what}: dims [${dims.join(', ')}] of ${type} need ${count * size} data bytes, found ${buf.length - headerSize}`,
    );
  }
  const body = buf.subarray(headerSize);
  let data: IdxArray['data'];
  if (type === 'u8') data = new Uint8Array(body);
  else if (type === 'i8') data = new Int8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  else {
    const out =
      type === 'i16'
        ? new Int16Array(count)
        : type === 'i32'
          ? new Int32Array(count)
          : type === 'f32'
            ? new Float32Array(count)
            : new Float64Array(count);
    const bv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    for (let i = 0; i < count; i++) {
      out[i] =
        type === 'i16'
          ? bv.getInt16(2 * i, false)
          : type === 'i32'
            ? bv.getInt32(4 * i, false)
            : type === 'f32'
              ? bv.getFloat32(4 * i, false)
              : bv.getFloat64(8 * i, false);
    }
    data = out;
  }
  return { dims, type, data };
}

/**
 * Reads an IDX file (raw or gzip-compressed), refusing one over `options.maxBytes` (default
 * {@link DEFAULT_IDX_MAX_BYTES}); a `BurnError` names the file and what is wrong.
 */
export function readIdx(path: string, options: IdxReadOptions = {}): IdxArray {
  const max = maxBytesOf(options);
  let bytes: Uint8Array;
  try {
    // A raw file is its array, and gzip grows incompressible data by under 1/1024 plus its header:
    // a file past that is over the limit either way, and is refused unread.
    const size = statSync(path).size;
    if (size > max + (max >> 10) + 1024)
      throw new BurnError(
        OP,
        `${path} has ${size} bytes, over the limit of ${max} bytes; pass a larger maxBytes option to read it`,
      );
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof BurnError) throw e;
    throw new BurnError(OP, `cannot read ${path}: ${(e as Error).message}`);
  }
  return decodeIdx(bytes, path, options);
}

/** Encodes an array as IDX bytes (`u8` unless `type` says otherwise). */
export function encodeIdx(dims: readonly number[], data: ArrayLike<number>, type: IdxType = 'u8'): Uint8Array {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== data.length)
    throw new BurnError('writeIdx', `dims [${dims.join(', ')}] hold ${count} values, data has ${data.length}`);
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
