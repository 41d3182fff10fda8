import { BurnError } from '../core/errors.js';

/**
 * A small, strict CBOR (RFC 8949) codec for burnpack metadata. It writes what Rust's `ciborium`
 * writes for serde data (definite lengths, shortest integer heads, floats in the shortest
 * lossless width, maps in insertion order) and reads any well-formed CBOR up to a nesting depth,
 * reporting the byte offset of the first problem.
 */

/** A CBOR value: maps keep their key order (`Map`); integers beyond 2^53 are bigints. */
export type CborValue =
  | number
  | bigint
  | string
  | boolean
  | null
  | undefined
  | Uint8Array
  | CborFloat
  | CborValue[]
  | CborMap;

/** A number always written as a float (serde's `f64`), even when it is integral. */
export class CborFloat {
  constructor(readonly value: number) {}
}
/** A CBOR map with text keys, in order. */
export type CborMap = Map<string, CborValue>;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

class Writer {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  head(major: number, value: number | bigint): void {
    const m = major << 5;
    if (typeof value === 'bigint' || value > 0xffffffff) {
      const v = BigInt(value);
      this.reserve(9);
      this.buf[this.length++] = m | 27;
      this.view.setBigUint64(this.length, v);
      this.length += 8;
    } else if (value < 24) {
      this.byte(m | value);
    } else if (value <= 0xff) {
      this.byte(m | 24);
      this.byte(value);
    } else if (value <= 0xffff) {
      this.reserve(3);
      this.buf[this.length++] = m | 25;
      this.view.setUint16(this.length, value);
      this.length += 2;
    } else {
      this.reserve(5);
      this.buf[this.length++] = m | 26;
      this.view.setUint32(this.length, value);
      this.length += 4;
    }
  }

  float(v: number): void {
    // ciborium writes the shortest width that round-trips the value.
    const half = toHalfExact(v);
    if (half !== undefined) {
      this.reserve(3);
      this.buf[this.length++] = 0xf9;
      this.view.setUint16(this.length, half);
      this.length += 2;
    } else if (Math.fround(v) === v || Number.isNaN(v)) {
      this.reserve(5);
      this.buf[this.length++] = 0xfa;
      this.view.setFloat32(this.length, v);
      this.length += 4;
    } else {
      this.reserve(9);
      this.buf[this.length++] = 0xfb;
      this.view.setFloat64(this.length, v);
      this.length += 8;
    }
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** The IEEE half bits of `v` when it is exactly representable, else undefined. */
function toHalfExact(v: number): number | undefined {
  if (Number.isNaN(v)) return 0x7e00;
  if (v === Infinity) return 0x7c00;
  if (v === -Infinity) return 0xfc00;
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const exp = Math.floor(Math.log2(a));
  if (exp > 15 || exp < -24) return undefined;
  if (exp >= -14) {
    const mant = a / 2 ** exp - 1;
    const m = mant * 1024;
    if (!Number.isInteger(m) || m >= 1024) return undefined;
    return sign | ((exp + 15) << 10) | m;
  }
  const m = a / 2 ** -24;
  if (!Number.isInteger(m)) return undefined;
  return sign | m;
}

function encodeInto(w: Writer, value: CborValue): void {
  if (value === null || value === undefined) return w.byte(0xf6);
  if (value === false) return w.byte(0xf4);
  if (value === true) return w.byte(0xf5);
  if (typeof value === 'bigint') {
    if (value >= 0n) return w.head(0, value);
    return w.head(1, -1n - value);
  }
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER && !Object.is(value, -0)) {
      return value >= 0 ? w.head(0, value) : w.head(1, -1 - value);
    }
    return w.float(value);
  }
  if (typeof value === 'string') {
    const b = utf8.encode(value);
    w.head(3, b.length);
    return w.bytes(b);
  }
  if (value instanceof CborFloat) return w.float(value.value);
  if (value instanceof Uint8Array) {
    w.head(2, value.length);
    return w.bytes(value);
  }
  if (Array.isArray(value)) {
    w.head(4, value.length);
    for (const v of value) encodeInto(w, v);
    return;
  }
  w.head(5, value.size);
  for (const [k, v] of value) {
    encodeInto(w, k);
    encodeInto(w, v);
  }
}

/** Encodes a value as CBOR. */
export function encodeCbor(value: CborValue): Uint8Array {
  const w = new Writer();
  encodeInto(w, value);
  return w.result();
}

/** Options of {@link decodeCbor}. */
export interface DecodeCborOptions {
  /** Names the input in errors (a file path). */
  readonly source?: string;
  /** Byte offset of `bytes[0]` in the source, for error messages. */
  readonly baseOffset?: number;
  /** Deepest nesting accepted (default 128, as burnpack's reader). */
  readonly maxDepth?: number;
  /** The operation named in errors. */
  readonly op?: string;
}

class Reader {
  pos = 0;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly opts: Required<DecodeCborOptions>,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(message: string, at = this.pos): never {
    throw new BurnError(
      this.opts.op,
      `${this.opts.source}: invalid CBOR metadata at byte offset ${this.opts.baseOffset + at}: ${message}`,
    );
  }

  need(n: number): void {
    if (this.pos + n > this.bytes.length)
      this.fail(`expected ${n} more byte(s) but the metadata ends (${this.bytes.length} bytes; truncated?)`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }

  arg(info: number, start: number): number | bigint {
    if (info < 24) return info;
    if (info === 24) return this.u8();
    if (info === 25) {
      this.need(2);
      const v = this.view.getUint16(this.pos);
      this.pos += 2;
      return v;
    }
    if (info === 26) {
      this.need(4);
      const v = this.view.getUint32(this.pos);
      this.pos += 4;
      return v;
    }
    if (info === 27) {
      this.need(8);
      const v = this.view.getBigUint64(this.pos);
      this.pos += 8;
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    return this.fail(`reserved additional information ${info}`, start);
  }

  length(info: number, start: number): number {
    const n = this.arg(info, start);
    if (typeof n === 'bigint' || n > this.bytes.length)
      this.fail(`length ${n} exceeds the ${this.bytes.length}-byte metadata`, start);
    return n as number;
  }

  value(depth: number): CborValue {
    const start = this.pos;
    if (depth > this.opts.maxDepth) this.fail(`nesting deeper than ${this.opts.maxDepth} levels`);
    const ib = this.u8();
    const major = ib >> 5;
    const info = ib & 31;
    switch (major) {
      case 0:
        return this.arg(info, start);
      case 1: {
        const n = this.arg(info, start);
        return typeof n === 'bigint' ? -1n - n : -1 - n;
      }
      case 2:
      case 3: {
        let data: Uint8Array;
        if (info === 31) {
          const parts: Uint8Array[] = [];
          for (;;) {
            this.need(1);
            if (this.bytes[this.pos] === 0xff) {
              this.pos++;
              break;
            }
            const part = this.value(depth + 1);
            if (major === 3 && typeof part === 'string') parts.push(utf8.encode(part));
            else if (major === 2 && part instanceof Uint8Array) parts.push(part);
            else this.fail('indefinite string chunk of the wrong type', start);
          }
          data = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
          let o = 0;
          for (const p of parts) {
            data.set(p, o);
            o += p.length;
          }
        } else {
          const n = this.length(info, start);
          this.need(n);
          data = this.bytes.subarray(this.pos, this.pos + n);
          this.pos += n;
        }
        if (major === 2) return data.slice();
        try {
          return utf8Decoder.decode(data);
        } catch {
          return this.fail('text string is not valid UTF-8', start);
        }
      }
      case 4: {
        const out: CborValue[] = [];
        if (info === 31) {
          while (this.peekBreak() === false) out.push(this.value(depth + 1));
        } else {
          const n = this.length(info, start);
          for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
        }
        return out;
      }
      case 5: {
        const out: CborMap = new Map();
        const entry = () => {
          const keyAt = this.pos;
          const k = this.value(depth + 1);
          if (typeof k !== 'string') this.fail('map key is not a text string', keyAt);
          if (out.has(k)) this.fail(`duplicate map key ${JSON.stringify(k)}`, keyAt);
          out.set(k, this.value(depth + 1));
        };
        if (info === 31) {
          while (this.peekBreak() === false) entry();
        } else {
          const n = this.length(info, start);
          for (let i = 0; i < n; i++) entry();
        }
        return out;
      }
      case 6:
        this.arg(info, start); // tags carry no meaning for serde data: read the tagged value
        return this.value(depth + 1);
      default: {
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22 || info === 23) return null;
        if (info === 25) {
          this.need(2);
          const bits = this.view.getUint16(this.pos);
          this.pos += 2;
          return halfToNumber(bits);
        }
        if (info === 26) {
          this.need(4);
          const v = this.view.getFloat32(this.pos);
          this.pos += 4;
          return v;
        }
        if (info === 27) {
          this.need(8);
          const v = this.view.getFloat64(this.pos);
          this.pos += 8;
          return v;
        }
        return this.fail(info === 31 ? 'unexpected break' : `unsupported simple value ${info}`, start);
      }
    }
  }

  peekBreak(): boolean {
    this.need(1);
    if (this.bytes[this.pos] === 0xff) {
      this.pos++;
      return true;
    }
    return false;
  }
}

function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Decodes one CBOR value that must fill `bytes` exactly; errors name the source and byte offset. */
export function decodeCbor(bytes: Uint8Array, options: DecodeCborOptions = {}): CborValue {
  const opts: Required<DecodeCborOptions> = {
    source: options.source ?? '<bytes>',
    baseOffset: options.baseOffset ?? 0,
    maxDepth: options.maxDepth ?? 128,
    op: options.op ?? 'cbor',
  };
  const r = new Reader(bytes, opts);
  const value = r.value(0);
  if (r.pos !== bytes.length) r.fail(`${bytes.length - r.pos} trailing byte(s) after the metadata value`);
  return value;
}
