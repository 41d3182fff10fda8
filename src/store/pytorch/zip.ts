import { Inflate } from 'fflate';
import type { ByteSource } from '../../record/source.js';
import { BurnError } from '../../core/errors.js';

/**
 * A defensive ZIP reader (the container of PyTorch ≥ 1.6 files, which stores entries
 * uncompressed): central directory and ZIP64, ranged reads of stored entries (no copy for
 * in-memory sources), and refusal of entry names that escape the archive, of entries outside
 * the file, and of deflated entries that inflate past their declared size or an implausible
 * ratio (zip bombs).
 */

/** One archive entry. */
export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  /** Offset of the local header. */
  readonly headerOffset: number;
}

/** Limits of {@link ZipReader}. */
export interface ZipLimits {
  /** Largest inflated entry (default 1 GiB; `readPytorch` passes its `limits.maxDecompressedBytes`). */
  readonly maxInflatedSize?: number;
  /** Largest inflated/compressed ratio (default 200). */
  readonly maxRatio?: number;
  /** Most entries (default 100,000). */
  readonly maxEntries?: number;
}

/** True when the bytes start with a ZIP local header signature. */
export function isZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** Reads entries of a ZIP archive. */
export class ZipReader {
  readonly entries = new Map<string, ZipEntry>();
  /** The last deflated entry read by {@link readStored}, while something still holds its bytes. */
  private inflated: { readonly entry: ZipEntry; readonly data: WeakRef<Uint8Array> } | undefined;

  constructor(
    private readonly source: ByteSource,
    private readonly op: string,
    private readonly limits: ZipLimits = {},
  ) {
    this.parse();
  }

  private fail(message: string): never {
    throw new BurnError(this.op, `${this.source.name}: not a valid PyTorch zip archive: ${message}`);
  }

  private parse(): void {
    const size = this.source.size;
    const tailLen = Math.min(size, 65557);
    const tail = this.source.read(size - tailLen, tailLen);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0)
      this.fail(`no end-of-central-directory record in the last ${tailLen} bytes (truncated or not a zip file)`);
    const dv = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    let count = dv.getUint16(eocd + 10, true);
    let cdSize = dv.getUint32(eocd + 12, true);
    let cdOffset = dv.getUint32(eocd + 16, true);
    const eocdAbs = size - tailLen + eocd;
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      // ZIP64 end of central directory locator, just before the EOCD.
      if (eocdAbs < 20) this.fail('ZIP64 locator missing');
      const loc = this.source.read(eocdAbs - 20, 20);
      const lv = new DataView(loc.buffer, loc.byteOffset, 20);
      if (lv.getUint32(0, true) !== 0x07064b50)
        this.fail(`ZIP64 locator signature missing at byte offset ${eocdAbs - 20}`);
      const recOff = Number(lv.getBigUint64(8, true));
      if (recOff + 56 > size) this.fail(`ZIP64 record at byte offset ${recOff} lies outside the ${size}-byte file`);
      const rec = this.source.read(recOff, 56);
      const rv = new DataView(rec.buffer, rec.byteOffset, 56);
      if (rv.getUint32(0, true) !== 0x06064b50) this.fail(`ZIP64 record signature missing at byte offset ${recOff}`);
      count = Number(rv.getBigUint64(32, true));
      cdSize = Number(rv.getBigUint64(40, true));
      cdOffset = Number(rv.getBigUint64(48, true));
    }
    if (count > (this.limits.maxEntries ?? 100_000))
      this.fail(`${count} entries exceed the limit of ${this.limits.maxEntries ?? 100_000}`);
    if (cdOffset + cdSize > size)
      this.fail(
        `the central directory (byte offset ${cdOffset}, ${cdSize} bytes) lies outside the ${size}-byte file (truncated?)`,
      );
    const cd = this.source.read(cdOffset, cdSize);
    const cv = new DataView(cd.buffer, cd.byteOffset, cd.byteLength);
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (p + 46 > cd.length || cv.getUint32(p, true) !== 0x02014b50)
        this.fail(`central directory entry ${i} is malformed at byte offset ${cdOffset + p}`);
      const method = cv.getUint16(p + 10, true);
      let comp = cv.getUint32(p + 20, true);
      let uncomp = cv.getUint32(p + 24, true);
      const nameLen = cv.getUint16(p + 28, true);
      const extraLen = cv.getUint16(p + 30, true);
      const commentLen = cv.getUint16(p + 32, true);
      let local = cv.getUint32(p + 42, true);
      if (p + 46 + nameLen + extraLen + commentLen > cd.length)
        this.fail(`central directory entry ${i} runs past the directory`);
      const name = new TextDecoder().decode(cd.subarray(p + 46, p + 46 + nameLen));
      // ZIP64 extended information.
      let e = p + 46 + nameLen;
      const eEnd = e + extraLen;
      while (e + 4 <= eEnd) {
        const id = cv.getUint16(e, true);
        const len = cv.getUint16(e + 2, true);
        if (id === 0x0001) {
          let q = e + 4;
          const end = Math.min(e + 4 + len, eEnd);
          const next = () => {
            if (q + 8 > end)
              this.fail(
                `central directory entry ${i} ('${name}'): its ZIP64 extra field holds ${len} bytes, too few for the sizes and offset it must give`,
              );
            const v = Number(cv.getBigUint64(q, true));
            q += 8;
            return v;
          };
          if (uncomp === 0xffffffff) uncomp = next();
          if (comp === 0xffffffff) comp = next();
          if (local === 0xffffffff) local = next();
        }
        e += 4 + len;
      }
      p += 46 + nameLen + extraLen + commentLen;
      checkName(name, (m) => this.fail(m));
      if (method !== 0 && method !== 8)
        this.fail(`entry '${name}' uses compression method ${method}; only stored (0) and deflate (8) are supported`);
      if (this.entries.has(name)) this.fail(`duplicate entry '${name}'`);
      this.entries.set(name, { name, method, compressedSize: comp, size: uncomp, headerOffset: local });
    }
  }

  /** The entry named `name`, or undefined. */
  get(name: string): ZipEntry | undefined {
    return this.entries.get(name);
  }

  /** Absolute offset of an entry's data (after its local header). */
  dataOffset(entry: ZipEntry): number {
    if (entry.headerOffset + 30 > this.source.size)
      this.fail(
        `entry '${entry.name}': local header at byte offset ${entry.headerOffset} lies outside the ${this.source.size}-byte file (truncated?)`,
      );
    const h = this.source.read(entry.headerOffset, 30);
    const hv = new DataView(h.buffer, h.byteOffset, 30);
    if (hv.getUint32(0, true) !== 0x04034b50)
      this.fail(`entry '${entry.name}': no local header signature at byte offset ${entry.headerOffset}`);
    const start = entry.headerOffset + 30 + hv.getUint16(26, true) + hv.getUint16(28, true);
    if (start + entry.compressedSize > this.source.size) {
      this.fail(
        `entry '${entry.name}' needs bytes ${start}..${start + entry.compressedSize}, but the file has ${this.source.size} bytes (truncated?)`,
      );
    }
    return start;
  }

  /** `length` bytes of a stored entry at `offset` within it (ranged, no inflation). */
  readStored(entry: ZipEntry, offset: number, length: number): Uint8Array {
    if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0))
      this.fail(
        `entry '${entry.name}': bytes ${offset}..${offset + length} were asked for; expected a range inside its ${entry.size} bytes`,
      );
    if (entry.method !== 0) {
      // Many tensors may share one deflated storage: inflate it once while its bytes are alive.
      let data = this.inflated?.entry === entry ? this.inflated.data.deref() : undefined;
      if (data === undefined) {
        data = this.read(entry);
        this.inflated = { entry, data: new WeakRef(data) };
      }
      return data.subarray(offset, offset + length);
    }
    if (offset + length > entry.size)
      this.fail(`entry '${entry.name}' has ${entry.size} bytes; bytes ${offset}..${offset + length} were asked for`);
    return this.source.read(this.dataOffset(entry) + offset, length);
  }

  /** An entry's whole content (inflated when deflated, with the bomb checks). */
  read(entry: ZipEntry): Uint8Array {
    const start = this.dataOffset(entry);
    const raw = this.source.read(start, entry.compressedSize);
    if (entry.method === 0) {
      if (entry.compressedSize !== entry.size)
        this.fail(`stored entry '${entry.name}' declares ${entry.size} bytes but holds ${entry.compressedSize}`);
      return raw;
    }
    const max = this.limits.maxInflatedSize ?? 1 << 30;
    const ratio = this.limits.maxRatio ?? 200;
    if (entry.size > max)
      this.fail(`entry '${entry.name}' would inflate to ${entry.size} bytes, over the ${max}-byte limit (zip bomb?)`);
    if (entry.size > 1 << 20 && entry.size > ratio * Math.max(1, entry.compressedSize)) {
      this.fail(
        `entry '${entry.name}' would inflate ${entry.compressedSize} bytes to ${entry.size} (ratio over ${ratio}; zip bomb?)`,
      );
    }
    const past = (inflated?: number): never =>
      this.fail(
        `entry '${entry.name}' inflates past its declared ${entry.size} bytes${inflated === undefined ? '' : ` (stopped after ${inflated})`} (zip bomb?)`,
      );
    const corrupt = (message: string): never => this.fail(`entry '${entry.name}': corrupt deflate data (${message})`);
    let out: Uint8Array;
    if (nodeZlib?.inflateRawSync !== undefined) {
      // Native, and it stops as soon as the output passes the declared size.
      try {
        const b = nodeZlib.inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) });
        out = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return past();
        return corrupt((e as Error).message);
      }
    } else {
      out = inflateBounded(raw, entry.size, past, corrupt);
    }
    if (out.length !== entry.size)
      this.fail(`entry '${entry.name}' inflated to ${out.length} bytes, its header declares ${entry.size}`);
    return out;
  }
}

/**
 * @internal Inflates raw deflate data that must fill `size` bytes, with fflate (browsers): the
 * input is pushed in slices of about size/1024 bytes (1 to 64 KiB), because fflate inflates a
 * whole push before calling back and deflate expands up to ~1032x, so a bomb whose header
 * understates its size inflates at most about max(size, 1 MiB) before `past(inflated)` stops it.
 */
export function inflateBounded(
  raw: Uint8Array,
  size: number,
  past: (inflated: number) => never,
  corrupt: (message: string) => never,
): Uint8Array {
  const out = new Uint8Array(size);
  let filled = 0;
  let over = false;
  const inflater = new Inflate((chunk) => {
    if (filled + chunk.length > size) {
      filled += chunk.length;
      over = true;
      throw new Error('past the declared size');
    }
    out.set(chunk, filled);
    filled += chunk.length;
  });
  const slice = Math.min(64 << 10, Math.max(1 << 10, Math.ceil(size / 1024)));
  try {
    for (let i = 0; i < raw.length; i += slice) inflater.push(raw.subarray(i, i + slice), i + slice >= raw.length);
    if (raw.length === 0) inflater.push(raw, true);
  } catch (e) {
    if (over) return past(filled);
    return corrupt((e as Error).message);
  }
  return out.subarray(0, filled);
}

/** Refuses entry names that are absolute or climb out of the archive. */
export function checkName(name: string, fail: (m: string) => never): void {
  if (
    name.startsWith('/') ||
    name.startsWith('\\') ||
    /^[A-Za-z]:/.test(name) ||
    name.split(/[\\/]/).includes('..') ||
    name.includes('\0')
  ) {
    fail(`entry name '${name}' escapes the archive (absolute path or '..')`);
  }
}

/** CRC-32 lookup tables for slicing by 8: table k maps a byte seen k positions earlier. */
const CRC_TABLES = (() => {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!;
  }
  return t;
})();

/** Node's zlib, reached without a static import so browsers need no shim: its CRC-32 (Node ≥ 20.15, about 8× the JavaScript loop) and its bounded inflate. */
const nodeZlib = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule?.(
  'node:zlib',
) as
  | {
      crc32?: (data: Uint8Array, value?: number) => number;
      inflateRawSync?: (data: Uint8Array, options: { maxOutputLength: number }) => Uint8Array;
    }
  | undefined;
const zlibCrc32 = nodeZlib?.crc32;

/** CRC-32 (ZIP's): zlib's where Node has it, else eight bytes per step in JavaScript (slicing by 8). */
export function crc32(data: Uint8Array, crc = 0): number {
  return zlibCrc32 ? zlibCrc32(data, crc) : crc32Js(data, crc);
}

/** @internal CRC-32 in JavaScript, slicing by 8. */
export function crc32Js(data: Uint8Array, crc = 0): number {
  const t = CRC_TABLES;
  let c = ~crc;
  let i = 0;
  const n = data.length;
  for (const end = n - (n % 8); i < end; i += 8) {
    const lo = c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    c =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + data[i + 4]!]! ^
      t[512 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!;
  }
  for (; i < n; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * Writes a stored (uncompressed) ZIP archive as PyTorch does: each entry's data aligned to 64
 * bytes with a padding extra field. Entries are produced lazily, one at a time.
 */
export function* zipChunks(entries: Iterable<{ name: string; data: () => Uint8Array }>): Generator<Uint8Array> {
  const central: Uint8Array[] = [];
  let offset = 0;
  let count = 0;
  const enc = new TextEncoder();
  for (const e of entries) {
    const data = e.data();
    const name = enc.encode(e.name);
    const crc = crc32(data);
    const base = offset + 30 + name.length;
    const padLen = (64 - ((base + 4) % 64)) % 64;
    const extra = new Uint8Array(padLen === 0 ? 0 : 4 + padLen);
    if (extra.length > 0) {
      new DataView(extra.buffer).setUint16(0, 0x4246, true); // 'FB', PyTorch's padding record
      new DataView(extra.buffer).setUint16(2, padLen, true);
    }
    if (offset > 0xffffffff || data.length > 0xffffffff)
      throw new BurnError('zip', `entry '${e.name}' lies beyond 4 GiB; ZIP64 writing is not supported`);
    const local = new Uint8Array(30 + name.length + extra.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, name.length, true);
    lv.setUint16(28, extra.length, true);
    local.set(name, 30);
    local.set(extra, 30 + name.length);
    const cen = new Uint8Array(46 + name.length);
    const cv = new DataView(cen.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    cen.set(name, 46);
    central.push(cen);
    yield local;
    yield data;
    offset += local.length + data.length;
    count++;
  }
  let cdSize = 0;
  for (const c of central) {
    yield c;
    cdSize += c.length;
  }
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, count, true);
  ev.setUint16(10, count, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  yield end;
}
