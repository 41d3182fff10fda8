import { gzipSync } from 'fflate';
import { TensorData } from '../core/data.js';
import { dtypeSize, type DType } from '../core/dtype.js';
import { numel } from '../core/shape.js';
import { gunzip } from './mpk.js';
import { paramIdFromText, paramIdToBase32, newIdText } from './param-id.js';
import { burnMetadata } from './named.js';
import {
  applyPrecision,
  FullPrecisionSettings,
  HalfPrecisionSettings,
  Recorder,
  type JsonValue,
  type PrecisionSettings,
  type RecordTensor,
  type TensorRecord,
} from './recorder.js';
import { BURN_TS_VERSION } from './version.js';

/** Burn's DType variant indices (serde enum order) for bincode. */
const VARIANTS: DType[] = [
  'f64',
  'f32',
  'f32' /* Flex32 */,
  'f16',
  'bf16',
  'i64',
  'i32',
  'i16',
  'i8',
  'u8' /* U64: refused */,
  'u32',
  'u16',
  'u8',
];
const INDEX: Record<DType, number> = {
  f64: 0,
  f32: 1,
  f16: 3,
  bf16: 4,
  i64: 5,
  i32: 6,
  i16: 7,
  i8: 8,
  u32: 10,
  u16: 11,
  u8: 12,
  bool: 13,
};

class Out {
  parts: Uint8Array[] = [];
  private small: number[] = [];
  flush(): void {
    if (this.small.length) this.parts.push(Uint8Array.from(this.small));
    this.small = [];
  }
  varint(v: number): void {
    if (v < 251) this.small.push(v);
    else if (v <= 0xffff) this.small.push(251, v & 0xff, v >>> 8);
    else if (v <= 0xffffffff) this.small.push(252, v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
    else {
      this.small.push(253);
      let x = BigInt(v);
      for (let i = 0; i < 8; i++, x >>= 8n) this.small.push(Number(x & 0xffn));
    }
  }
  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.flush();
    this.parts.push(b);
  }
  str(s: string): void {
    this.bytes(new TextEncoder().encode(s));
  }
}

class In {
  pos = 0;
  constructor(
    private readonly b: Uint8Array,
    private readonly fail: (m: string) => never,
  ) {}
  need(n: number, what: string): void {
    if (this.pos + n > this.b.length)
      this.fail(
        `unexpected end of data at byte offset ${this.pos} while reading ${what} (needs ${n} more byte(s); truncated?)`,
      );
  }
  varint(what: string): number {
    this.need(1, what);
    const t = this.b[this.pos++]!;
    if (t < 251) return t;
    const n =
      t === 251
        ? 2
        : t === 252
          ? 4
          : t === 253
            ? 8
            : this.fail(`invalid integer tag ${t} at byte offset ${this.pos - 1} while reading ${what}`);
    this.need(n, what);
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + this.b[this.pos + i]!;
    this.pos += n;
    if (!Number.isSafeInteger(v)) this.fail(`integer too large at byte offset ${this.pos - n} while reading ${what}`);
    return v;
  }
  bytes(what: string): Uint8Array {
    const n = this.varint(`${what} length`);
    this.need(n, what);
    const out = this.b.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  str(what: string): string {
    const b = this.bytes(what);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(b);
    } catch {
      return this.fail(`invalid UTF-8 in ${what} before byte offset ${this.pos}`);
    }
  }
}

/**
 * Binary records in bincode's encoding (Burn's `BinFileRecorder`, `.bin`): varint integers,
 * length-prefixed strings and bytes, Burn's `BurnRecord` metadata. Rust's positional structs
 * need a schema, which burn-ts modules do not have, so the item is a list of
 * `(key, ParamSerde { id, TensorData })` entries plus the optional JSON metadata.
 */
export class BinFileRecorder extends Recorder {
  readonly extension: string = 'bin';
  protected readonly op: string = 'BinFileRecorder';

  constructor(readonly settings: PrecisionSettings = FullPrecisionSettings) {
    super();
  }

  override toBytes(record: TensorRecord): Uint8Array {
    const o = new Out();
    const md = burnMetadata('BinFileRecorder', this.settings, BURN_TS_VERSION);
    for (const k of ['float', 'int', 'format', 'version', 'settings']) o.str(md[k]!);
    const r = applyPrecision(record, this.settings);
    o.varint(r.tensors.size);
    for (const [key, t] of r.tensors) {
      o.str(key);
      o.str(paramIdToBase32(t.id ?? newIdText()));
      o.bytes(t.data.bytes);
      o.varint(t.data.shape.length);
      for (const d of t.data.shape) o.varint(d);
      o.varint(INDEX[t.data.dtype]);
      if (t.data.dtype === 'bool') o.varint(0); // BoolStore::Native
    }
    if (r.meta === undefined) o.varint(0);
    else {
      o.varint(1);
      o.str(JSON.stringify(r.meta));
    }
    o.flush();
    const total = o.parts.reduce((s, p) => s + p.length, 0);
    const out = new Uint8Array(total);
    let pos = 0;
    for (const p of o.parts) {
      out.set(p, pos);
      pos += p.length;
    }
    return out;
  }

  override fromBytes(bytes: Uint8Array, source = '<bytes>'): TensorRecord {
    const fail = (m: string): never => {
      throw this.corrupt(source, m);
    };
    const r = new In(bytes, fail);
    for (const k of ['float', 'int', 'format', 'version', 'settings']) r.str(`metadata.${k}`);
    const n = r.varint('the tensor count');
    const tensors = new Map<string, RecordTensor>();
    for (let i = 0; i < n; i++) {
      const key = r.str(`the key of tensor ${i}`);
      const id = paramIdFromText(r.str(`'${key}'.id`));
      const data = r.bytes(`'${key}'.param.bytes`);
      const rank = r.varint(`'${key}'.param.shape length`);
      if (rank > 64) fail(`'${key}': rank ${rank} at byte offset ${r.pos} is not plausible (corrupt?)`);
      const shape = Array.from({ length: rank }, () => r.varint(`'${key}'.param.shape`));
      const at = r.pos;
      const v = r.varint(`'${key}'.param.dtype`);
      let dtype: DType;
      if (v === 13) {
        const store = r.varint(`'${key}'.param.dtype bool store`);
        if (store > 1) fail(`'${key}': bool store ${store} at byte offset ${r.pos - 1} is not supported`);
        dtype = 'bool';
      } else if (v < VARIANTS.length && v !== 9) dtype = VARIANTS[v]!;
      else return fail(`'${key}': unknown dtype variant ${v} at byte offset ${at}`);
      const need = numel(shape) * (dtype === 'bool' ? 1 : dtypeSize(dtype));
      if (data.length !== need)
        fail(`'${key}': ${data.length} data bytes, but shape [${shape.join(', ')}] of ${dtype} needs ${need}`);
      tensors.set(key, { data: TensorData.fromBytes(data, shape, dtype), ...(id !== undefined ? { id } : {}) });
    }
    const hasMeta = r.varint('the metadata flag');
    let meta: JsonValue | undefined;
    if (hasMeta === 1) {
      const text = r.str('the JSON metadata');
      try {
        meta = JSON.parse(text) as JsonValue;
      } catch (e) {
        fail(`the JSON metadata is invalid: ${(e as Error).message}`);
      }
    } else if (hasMeta !== 0) fail(`invalid option tag ${hasMeta} at byte offset ${r.pos - 1}`);
    if (r.pos !== bytes.length)
      fail(`${bytes.length - r.pos} trailing byte(s) after the record at byte offset ${r.pos}`);
    return meta === undefined ? { tensors } : { tensors, meta };
  }
}

/** bincode compressed with gzip (Burn's `BinGzFileRecorder`, `.bin.gz`). */
export class BinGzFileRecorder extends BinFileRecorder {
  override readonly extension: string = 'bin.gz';
  protected override readonly op: string = 'BinGzFileRecorder';

  override toBytes(record: TensorRecord): Uint8Array {
    return gzipSync(super.toBytes(record));
  }

  override fromBytes(bytes: Uint8Array, source = '<bytes>'): TensorRecord {
    return super.fromBytes(
      gunzip(
        bytes,
        source,
        (m) => {
          throw this.corrupt(source, m);
        },
        this.limits().maxDecompressedBytes,
      ),
      source,
    );
  }
}

/** Half precision gzip'd bincode, the smallest files (Burn's `SensitiveCompactRecorder`). */
export class SensitiveCompactRecorder extends BinGzFileRecorder {
  constructor() {
    super(HalfPrecisionSettings);
  }
}

/** bincode to and from bytes, no file system (Burn's `BinBytesRecorder`). */
export class BinBytesRecorder extends BinFileRecorder {
  protected override readonly op: string = 'BinBytesRecorder';
}
