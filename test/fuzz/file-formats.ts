// Valid small files written by the project's own writers (burnpack, SafeTensors, PyTorch .pt,
// named MessagePack, bincode, JSON records, gzip'd variants) and structure-aware mutations of
// them: container fields (zip headers, length prefixes), metadata trees (CBOR, JSON, MessagePack)
// and pickle programs are taken apart, mutated where it matters (sizes, offsets, shapes, dtypes,
// names, nesting) and put back together, so a mutation reaches the parser layer it targets.
import { gunzipSync, gzipSync } from 'node:zlib';
import { decode as decodeMsgpack, encode as encodeMsgpack } from '@msgpack/msgpack';
import { deflateSync } from 'fflate';
import { Device, Module, TensorData } from '../../src/index.js';
import { BatchNormConfig, LinearConfig, type BatchNorm, type Linear } from '../../src/nn/index.js';
import {
  BinBytesRecorder,
  BurnpackBytesRecorder,
  encodeBurnpack,
  NamedMpkBytesRecorder,
  NamedMpkGzFileRecorder,
  BinGzFileRecorder,
  PrettyJsonFileRecorder,
  type TensorRecord,
} from '../../src/record/index.js';
import { decodeCbor, encodeCbor, type CborValue } from '../../src/record/cbor.js';
import type { LoadLimits } from '../../src/record/limits.js';
import { BurnpackStore, PytorchStore, SafetensorsStore, TensorSnapshot } from '../../src/store/index.js';
import { encodeSafetensors } from '../../src/store/safetensors/format.js';
import { pytorchChunks } from '../../src/store/pytorch/writer.js';
import { zipChunks } from '../../src/store/pytorch/zip.js';
import {
  applyByteMutations,
  concat,
  HOSTILE_U32,
  HOSTILE_U64,
  mutateTree,
  Rng,
  type ByteMutation,
} from './arbitraries.js';

/** The file formats fuzzed. */
export const FILE_FORMATS = ['burnpack', 'safetensors', 'pytorch', 'mpk', 'mpk.gz', 'bin', 'bin.gz', 'json'] as const;
/** One file format. */
export type FileFormat = (typeof FILE_FORMATS)[number];

// --- the worker's protocol (file-worker.ts) ---

/** A request: load `bytes` as `format`. */
export interface LoadRequest {
  readonly id: number;
  readonly format: FileFormat;
  readonly bytes: Uint8Array;
}

/** A reply. */
export interface LoadReply {
  readonly id: number;
  /** `ok`: loaded; `burn`: refused with a BurnError; `other`: anything else thrown; `bound`: a tensor past the bound was announced. */
  readonly kind: 'ok' | 'burn' | 'other' | 'bound';
  readonly message: string;
  /** Bytes of tensor data produced (stored, compact form). */
  readonly produced: number;
  readonly ms: number;
  /** Growth of the process's peak resident memory during the load. */
  readonly peakGrowth: number;
}

/** The limits the loads run with (the stated bounds of what a file may make a loader allocate). */
export const FUZZ_LIMITS: LoadLimits = {
  maxDecompressedBytes: 32 << 20,
  maxStridedCopyBytes: 16 << 20,
  maxNestingDepth: 128,
};
/** Most tensor bytes one successful load may produce. */
export const PRODUCED_BOUND = 64 << 20;

/** A small module saved through the stores (a Linear, a BatchNorm with running states, a list). */
export class FuzzNet extends Module {
  linear: Linear;
  norm: BatchNorm;
  blocks: Linear[];
  constructor(device: Device) {
    super();
    this.linear = new LinearConfig({ dInput: 3, dOutput: 2 }).init(device);
    this.norm = new BatchNormConfig({ numFeatures: 2 }).init(device);
    this.blocks = [new LinearConfig({ dInput: 2, dOutput: 2, bias: false }).init(device)];
  }
}

/** Tensors of many dtypes and shapes (zero-size and rank 0 included). */
function sampleTensors(): [string, TensorData][] {
  return [
    ['enc.weight', new TensorData([0.5, -1, 2, 3.25, -0, 7], [3, 2], 'f32')],
    ['enc.bias', new TensorData([1e-3, -2], [2], 'f64')],
    ['enc.half', new TensorData([1, 2, 3, 4, 5], [5], 'f16')],
    ['enc.brain', new TensorData([1, -2], [1, 2], 'bf16')],
    ['ids', new TensorData([1, -5, 7, 2 ** 40], [4], 'i64')],
    ['small', new TensorData([1, 2, 3], [3], 'i32')],
    ['bytes', new TensorData([0, 255, 7], [3, 1], 'u8')],
    ['mask', new TensorData([1, 0, 1, 1], [2, 2], 'bool')],
    ['empty', new TensorData([], [0, 3], 'f32')],
    ['scalar', new TensorData([4.5], [], 'f32')],
  ];
}

function sampleRecord(): TensorRecord {
  return {
    tensors: new Map(sampleTensors().map(([k, data], i) => [k, { data, id: `id${i}` }])),
    meta: { step: 3, name: 'fuzz', nested: { list: [1, 2, 3] } },
  };
}

let net: FuzzNet | undefined;
function fuzzNet(): FuzzNet {
  const device = Device.cpu({ engine: 'js' });
  device.seed(18);
  return (net ??= new FuzzNet(device));
}

/** The valid base files of a format (written once, then cached). */
const bases = new Map<FileFormat, Uint8Array[]>();
export function baseFiles(format: FileFormat): Uint8Array[] {
  const cached = bases.get(format);
  if (cached) return cached;
  const record = sampleRecord();
  const tensors = sampleTensors();
  let out: Uint8Array[];
  switch (format) {
    case 'burnpack': {
      const store = BurnpackStore.fromBytes();
      fuzzNet().saveInto(store);
      const inputs = tensors.map(([name, d]) => ({ name, dtype: d.dtype, shape: d.shape, bytes: d.bytes.slice() }));
      out = [
        store.getBytes(),
        new BurnpackBytesRecorder().toBytes(record),
        encodeBurnpack(
          inputs,
          new Map([['format', 'fuzz']]),
          new Map([['lr', { type: 'Float', value: 0.5 } as const]]),
        ),
      ];
      break;
    }
    case 'safetensors': {
      const store = SafetensorsStore.fromBytes();
      fuzzNet().saveInto(store);
      const inputs = tensors.map(([name, d]) => ({
        name,
        dtype: d.dtype,
        shape: d.shape,
        bytes: () => d.bytes.slice(),
      }));
      out = [store.getBytes(), encodeSafetensors(inputs, new Map([['format', 'pt']]))];
      break;
    }
    case 'pytorch': {
      const store = PytorchStore.fromBytes();
      fuzzNet().saveInto(store);
      out = [
        store.getBytes(),
        concat([...pytorchChunks(tensors.map(([name, d]) => TensorSnapshot.fromData(d, name)))]),
      ];
      break;
    }
    case 'mpk':
      out = [new NamedMpkBytesRecorder().toBytes(record)];
      break;
    case 'mpk.gz':
      out = [new NamedMpkGzFileRecorder().toBytes(record)];
      break;
    case 'bin':
      out = [new BinBytesRecorder().toBytes(record)];
      break;
    case 'bin.gz':
      out = [new BinGzFileRecorder().toBytes(record)];
      break;
    case 'json':
      out = [new PrettyJsonFileRecorder().toBytes(record)];
      break;
  }
  bases.set(format, out);
  return out;
}

/** Deeply nested arrays around `inner`, as raw bytes of the format (no recursive encoder involved). */
function deepBytes(kind: 'json' | 'cbor' | 'msgpack', depth: number): Uint8Array {
  switch (kind) {
    case 'json':
      return new TextEncoder().encode(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
    case 'cbor':
      return concat([new Uint8Array(depth).fill(0x81), Uint8Array.of(0x01)]);
    case 'msgpack':
      return concat([new Uint8Array(depth).fill(0x91), Uint8Array.of(0x01)]);
  }
}

// --- burnpack ---

function burnpackParts(b: Uint8Array): { meta: Uint8Array; rest: Uint8Array } | undefined {
  if (b.length < 10) return undefined;
  const size = new DataView(b.buffer, b.byteOffset).getUint32(6, true);
  if (10 + size > b.length) return undefined;
  return { meta: b.subarray(10, 10 + size), rest: b.subarray(10 + size) };
}

function withBurnpackMeta(b: Uint8Array, meta: Uint8Array, rnd: Rng): Uint8Array {
  const parts = burnpackParts(b)!;
  const head = b.slice(0, 10);
  // Usually the size field follows the new metadata; sometimes the old one stays (a lie).
  if (!rnd.chance(0.15)) new DataView(head.buffer).setUint32(6, meta.length, true);
  // Keep the data section 256-aligned relative to the file start when the size changes.
  const pad = new Uint8Array((256 - ((10 + meta.length) % 256)) % 256);
  const oldPad = (256 - ((10 + parts.meta.length) % 256)) % 256;
  return concat([head, meta, pad, parts.rest.subarray(Math.min(oldPad, parts.rest.length))]);
}

function mutateBurnpack(b: Uint8Array, kind: string, rnd: Rng): Uint8Array {
  const parts = burnpackParts(b);
  if (!parts) return b;
  switch (kind) {
    case 'header': {
      const out = b.slice();
      const dv = new DataView(out.buffer);
      const field = rnd.pick([0, 4, 6] as const);
      if (field === 0) dv.setUint32(0, rnd.pick([0, 0x4255524f, 0x4e525542]), true);
      else if (field === 4) dv.setUint16(4, rnd.pick([0, 2, 0xffff]), true);
      else dv.setUint32(6, rnd.pick(HOSTILE_U32), true);
      return out;
    }
    case 'meta-tree': {
      let tree: CborValue;
      try {
        tree = decodeCbor(parts.meta);
      } catch {
        return b;
      }
      for (let i = 0, n = rnd.int(1, 3); i < n; i++) mutateTree(tree, rnd, true);
      let meta: Uint8Array;
      try {
        meta = encodeCbor(tree);
      } catch {
        return b;
      }
      return withBurnpackMeta(b, meta, rnd);
    }
    case 'meta-deep':
      return withBurnpackMeta(b, deepBytes('cbor', rnd.pick([200, 5000, 200000])), rnd);
    case 'meta-raw': {
      // CBOR heads claiming huge lengths (strings, byte strings, arrays, maps) spliced in.
      const head = rnd.pick([[0x5b], [0x7b], [0x9b], [0xbb], [0x5a], [0x9a]]);
      const len = rnd.pick([
        [0xff, 0xff, 0xff, 0xff],
        [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0, 0, 0, 0x40],
      ]);
      const at = rnd.int(0, parts.meta.length);
      return withBurnpackMeta(
        b,
        concat([parts.meta.subarray(0, at), Uint8Array.from([...head, ...len]), parts.meta.subarray(at)]),
        rnd,
      );
    }
    default: {
      // The data section cut short or grown.
      const dataStart = b.length - parts.rest.length;
      return rnd.chance(0.5) ? b.slice(0, rnd.int(dataStart, b.length)) : concat([b, new Uint8Array(rnd.int(1, 600))]);
    }
  }
}

// --- SafeTensors ---

function mutateSafetensors(b: Uint8Array, kind: string, rnd: Rng): Uint8Array {
  if (b.length < 8) return b;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  if (8 + n > b.length) return b;
  const json = b.subarray(8, 8 + n);
  const data = b.subarray(8 + n);
  const rebuild = (header: Uint8Array) => {
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, BigInt(rnd.chance(0.1) ? n : header.length), true);
    return concat([prefix, header, data]);
  };
  switch (kind) {
    case 'prefix': {
      const out = b.slice();
      new DataView(out.buffer).setBigUint64(
        0,
        rnd.pick([
          0n,
          1n,
          BigInt(n - 1),
          BigInt(n + 1),
          2n ** 32n,
          99_999_999n,
          100_000_001n,
          2n ** 63n,
          2n ** 64n - 1n,
        ]),
        true,
      );
      return out;
    }
    case 'header-tree': {
      let tree: unknown;
      try {
        tree = JSON.parse(new TextDecoder().decode(json));
      } catch {
        return b;
      }
      for (let i = 0, k = rnd.int(1, 3); i < k; i++) mutateTree(tree, rnd, false);
      return rebuild(new TextEncoder().encode(JSON.stringify(tree)));
    }
    case 'header-deep':
      return rebuild(deepBytes('json', rnd.pick([200, 5000, 100_000])));
    default: {
      // Raw text edits: a duplicated key, an unterminated string, a number too long for a double.
      const text = new TextDecoder().decode(json).trimEnd();
      const edits = [
        () =>
          text.replace(
            /"data_offsets":\[(\d+),(\d+)\]/,
            (_m, a: string, c: string) => `"data_offsets":[${a},${c}],"data_offsets":[0,${Number(c) * 1000}]`,
          ),
        () => text.replace(/"shape":\[/, '"shape":[1e400,'),
        () => text.replace(/"dtype":"(\w+)"/, '"dtype":"$1","dtype":"F64"'),
        () => text.slice(0, rnd.int(0, text.length)),
        () => text.replace(/\}$/, `,"evil":{"dtype":"F32","shape":[${2 ** 31},${2 ** 31}],"data_offsets":[0,0]}}`),
        () => text.replace(/\}$/, `,"evil":{"dtype":"F32","shape":[0],"data_offsets":[${2 ** 53},${2 ** 53}]}}`),
      ];
      return rebuild(new TextEncoder().encode(rnd.pick(edits)()));
    }
  }
}

// --- PyTorch zip archives ---

interface ZipEntryInfo {
  readonly local: number;
  readonly central: number;
  readonly name: string;
}

/** The entries of a zip written by zipChunks (found through the central directory). */
function zipEntries(b: Uint8Array): { entries: ZipEntryInfo[]; eocd: number } | undefined {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let eocd = -1;
  for (let i = b.length - 22; i >= 0; i--)
    if (dv.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) return undefined;
  const count = dv.getUint16(eocd + 10, true);
  let p = dv.getUint32(eocd + 16, true);
  const entries: ZipEntryInfo[] = [];
  for (let i = 0; i < count && p + 46 <= b.length && dv.getUint32(p, true) === 0x02014b50; i++) {
    const nameLen = dv.getUint16(p + 28, true),
      extra = dv.getUint16(p + 30, true),
      comment = dv.getUint16(p + 32, true);
    entries.push({
      local: dv.getUint32(p + 42, true),
      central: p,
      name: new TextDecoder().decode(b.subarray(p + 46, p + 46 + nameLen)),
    });
    p += 46 + nameLen + extra + comment;
  }
  return { entries, eocd };
}

/** The stored entries of an archive written by zipChunks, as name and data; undefined once earlier mutations broke the archive. */
function zipContents(b: Uint8Array): { name: string; data: Uint8Array }[] | undefined {
  try {
    return zipContentsOf(b);
  } catch {
    return undefined;
  }
}

function zipContentsOf(b: Uint8Array): { name: string; data: Uint8Array }[] | undefined {
  const z = zipEntries(b);
  if (!z) return undefined;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return z.entries.map((e) => {
    const start = e.local + 30 + dv.getUint16(e.local + 26, true) + dv.getUint16(e.local + 28, true);
    return { name: e.name, data: b.subarray(start, start + dv.getUint32(e.local + 22, true)) };
  });
}

const rezip = (entries: { name: string; data: Uint8Array }[]) =>
  concat([...zipChunks(entries.map((e) => ({ name: e.name, data: () => e.data })))]);

/** A zip archive with deflated entries (method 8), built by hand (zipChunks writes stored entries only). */
function deflatedZip(
  entries: { name: string; data: Uint8Array; lieSize?: number }[],
  crc: (d: Uint8Array) => number,
): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const comp = deflateCached(e.data);
    const name = new TextEncoder().encode(e.name);
    const size = e.lieSize ?? e.data.length;
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, 8, true);
    lv.setUint32(14, crc(e.data), true);
    lv.setUint32(18, comp.length, true);
    lv.setUint32(22, size, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const cen = new Uint8Array(46 + name.length);
    const cv = new DataView(cen.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, 8, true);
    cv.setUint32(16, crc(e.data), true);
    cv.setUint32(20, comp.length, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    cen.set(name, 46);
    parts.push(local, comp);
    central.push(cen);
    offset += local.length + comp.length;
  }
  const cd = concat(central);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cd.length, true);
  ev.setUint32(16, offset, true);
  return concat([...parts, cd, end]);
}

let zeros: Uint8Array | undefined;

/** Pickle opcodes the walker steps over: opcode → argument bytes (-1: newline-terminated lines, 'n4': u32 length prefix). */
const PICKLE_ARGS: Record<number, number | 'line2' | 'len4' | 'len1'> = {
  0x80: 1,
  0x63: 'line2',
  0x29: 0,
  0x52: 0,
  0x28: 0,
  0x58: 'len4',
  0x4b: 1,
  0x4d: 2,
  0x4a: 4,
  0x8a: 'len1',
  0x74: 0,
  0x51: 0,
  0x89: 0,
  0x88: 0,
  0x75: 0,
  0x2e: 0,
  0x7d: 0,
  0x5d: 0,
  0x71: 1,
  0x72: 4,
  0x68: 1,
  0x6a: 4,
  0x85: 0,
  0x86: 0,
  0x87: 0,
  0x4e: 0,
  0x65: 0,
  0x61: 0,
  0x73: 0,
};

/** Opcode boundaries and int literals of a pickle (stops at an unknown opcode). */
function pickleOps(p: Uint8Array): { starts: number[]; ints: { at: number; end: number }[] } {
  const starts: number[] = [];
  const ints: { at: number; end: number }[] = [];
  let i = 0;
  while (i < p.length) {
    const op = p[i]!;
    const arg = PICKLE_ARGS[op];
    if (arg === undefined) break;
    starts.push(i);
    let end = i + 1;
    if (typeof arg === 'number') end += arg;
    else if (arg === 'len1') end += 1 + (p[i + 1] ?? 0);
    else if (arg === 'len4') end += 4 + new DataView(p.buffer, p.byteOffset + i + 1, 4).getUint32(0, true);
    else {
      let lines = 0;
      while (end < p.length && lines < 2) if (p[end++] === 0x0a) lines++;
    }
    if (op === 0x4b || op === 0x4d || op === 0x4a || op === 0x8a) ints.push({ at: i, end });
    i = end;
  }
  return { starts, ints };
}

/** A pickle int literal: BININT for 32-bit values, LONG1 otherwise. */
function pickleInt(v: bigint): Uint8Array {
  if (v >= -(2n ** 31n) && v < 2n ** 31n) {
    const out = new Uint8Array(5);
    out[0] = 0x4a;
    new DataView(out.buffer).setInt32(1, Number(v), true);
    return out;
  }
  const bytes: number[] = [];
  let x = v;
  for (let i = 0; i < 9; i++, x >>= 8n) bytes.push(Number(x & 0xffn));
  return Uint8Array.from([0x8a, bytes.length, ...bytes]);
}

/** Hostile opcode sequences spliced into a pickle. */
function hostileOpcodes(rnd: Rng): Uint8Array {
  const enc = new TextEncoder();
  const choices: (() => Uint8Array)[] = [
    () => new Uint8Array(rnd.pick([1000, 100_000])).fill(0x28), // MARK, many
    () => concat([new Uint8Array(50_000).fill(0x5d), new Uint8Array(49_999).fill(0x61)]), // EMPTY_LIST ... APPEND: deep lists
    () => concat([new Uint8Array(20_000).fill(0x7d)]), // EMPTY_DICT, many
    () => Uint8Array.of(0x58, 0xff, 0xff, 0xff, 0x7f), // BINUNICODE claiming 2 GiB
    () => Uint8Array.of(0x42, 0xff, 0xff, 0xff, 0xff), // BINBYTES claiming 4 GiB
    () => Uint8Array.of(0x8e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), // BINBYTES8
    () => Uint8Array.of(0x8d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), // BINUNICODE8
    () => Uint8Array.of(0x95, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), // FRAME
    () => Uint8Array.of(0x8b, 0xff, 0xff, 0xff, 0x7f), // LONG4 claiming 2 GiB
    () => Uint8Array.of(0x72, 0xff, 0xff, 0xff, 0xff, 0x6a, 0xff, 0xff, 0xff, 0xff), // LONG_BINPUT/GET huge ids
    () => Uint8Array.of(0x68, 0xc8), // BINGET of a missing memo
    () => enc.encode('cos\nsystem\n'), // GLOBAL outside the allow-list
    () => enc.encode('cbuiltins\neval\n'),
    () => Uint8Array.of(0x30, 0x30, 0x30), // POP x3
    () => Uint8Array.of(0x31), // POP_MARK
    () => Uint8Array.of(0x32, 0x32), // DUP
    () => Uint8Array.of(0x52, 0x52), // REDUCE on anything
    () => Uint8Array.of(0x62), // BUILD
    () => Uint8Array.of(0x81), // NEWOBJ
    () => Uint8Array.of(0x2e), // STOP early
    () => Uint8Array.of(0x80, 0x05), // PROTO 5
    () => Uint8Array.of(0xff), // unknown
    () => enc.encode('I99999999999999999999999999\n'), // INT text
    () => enc.encode('L-1' + '9'.repeat(5000) + 'L\n'), // LONG text, long
    () => concat([new Uint8Array(30_000).fill(0x28), new Uint8Array(30_000).fill(0x74)]), // nested tuples
  ];
  return rnd.pick(choices)();
}

function mutatePytorch(b: Uint8Array, kind: string, rnd: Rng, crc: (d: Uint8Array) => number): Uint8Array {
  let z: ReturnType<typeof zipEntries>;
  try {
    z = zipEntries(b);
  } catch {
    return b;
  }
  const contents = zipContents(b);
  if (!z || !contents || z.entries.length === 0) return b;
  switch (kind) {
    case 'local-field': {
      const e = rnd.pick(z.entries);
      const out = b.slice();
      const v = new DataView(out.buffer);
      const field = rnd.pick([4, 6, 8, 14, 18, 22, 26, 28]);
      if (field === 8) v.setUint16(e.local + 8, rnd.pick([1, 8, 12, 14, 99, 0xffff]), true);
      else if (field === 26 || field === 28 || field === 4 || field === 6)
        v.setUint16(e.local + field, rnd.pick([0, 1, 0x7fff, 0xffff, 0x0800]), true);
      else v.setUint32(e.local + field, rnd.pick(HOSTILE_U32), true);
      return out;
    }
    case 'central-field': {
      const e = rnd.pick(z.entries);
      const out = b.slice();
      const v = new DataView(out.buffer);
      const field = rnd.pick([8, 10, 16, 20, 24, 28, 30, 32, 34, 42]);
      if (field === 20 || field === 24 || field === 42 || field === 16)
        v.setUint32(e.central + field, rnd.pick(HOSTILE_U32), true);
      else v.setUint16(e.central + field, rnd.pick([0, 1, 8, 0x7fff, 0xffff]), true);
      return out;
    }
    case 'eocd-field': {
      const out = b.slice();
      const v = new DataView(out.buffer);
      const field = rnd.pick([4, 6, 8, 10, 12, 16, 20]);
      if (field === 12 || field === 16) v.setUint32(z.eocd + field, rnd.pick(HOSTILE_U32), true);
      else v.setUint16(z.eocd + field, rnd.pick([0, 1, 2, 0xffff]), true);
      return out;
    }
    case 'names': {
      const entries = contents.map((e) => ({ ...e }));
      const i = rnd.int(0, entries.length - 1);
      const choice = rnd.int(0, 5);
      if (choice === 0)
        entries[i]!.name = rnd.pick(['../evil', '/abs/data.pkl', 'C:\\x', 'a\u0000b', 'archive/../../x', '']);
      else if (choice === 1)
        entries.push({ ...entries[i]! }); // a duplicated name
      else if (choice === 2)
        entries.splice(i, 1); // an entry missing (data.pkl, a storage, version)
      else if (choice === 3) entries[i]!.name = entries[(i + 1) % entries.length]!.name;
      else if (choice === 4)
        entries.forEach((e) => {
          e.name = e.name.replace(/^archive\//, 'other/');
        });
      else entries[i]!.name = 'x'.repeat(60_000);
      return rezip(entries);
    }
    case 'deflate': {
      // Legit deflated entries, sizes that lie, and a bomb (a small entry inflating to 64 MiB).
      const entries = contents.map((e) => ({ ...e, lieSize: undefined as number | undefined }));
      const i = rnd.int(0, entries.length - 1);
      const choice = rnd.int(0, 2);
      if (choice === 1) entries[i]!.lieSize = rnd.pick([0, 1, entries[i]!.data.length - 1, 0xffffffff]);
      if (choice === 2) {
        const bomb = (zeros ??= new Uint8Array(64 << 20));
        entries[i] = { name: entries[i]!.name, data: bomb, lieSize: rnd.pick([undefined, 100, 0xffffffff]) };
      }
      return deflatedZip(entries, crc);
    }
    case 'pickle-int':
    case 'pickle-insert':
    case 'pickle-cut': {
      const entries = contents.map((e) => ({ ...e }));
      const pkl = entries.find((e) => e.name.endsWith('data.pkl'));
      if (!pkl) return b;
      const { starts, ints } = pickleOps(pkl.data);
      if (kind === 'pickle-int' && ints.length > 0) {
        for (let k = 0, n = rnd.int(1, 3); k < n; k++) {
          const lit = rnd.pick(pickleOps(pkl.data).ints);
          if (!lit) break;
          const v = rnd.pick([
            -1n,
            0n,
            1n,
            7n,
            2n ** 31n - 1n,
            2n ** 31n,
            2n ** 32n,
            2n ** 53n,
            2n ** 62n,
            2n ** 63n - 1n,
            -(2n ** 63n),
            2n ** 64n,
          ]);
          pkl.data = concat([pkl.data.subarray(0, lit.at), pickleInt(v), pkl.data.subarray(lit.end)]);
        }
      } else if (kind === 'pickle-insert' && starts.length > 0) {
        const at = rnd.pick(starts);
        pkl.data = concat([pkl.data.subarray(0, at), hostileOpcodes(rnd), pkl.data.subarray(at)]);
      } else {
        pkl.data = pkl.data.slice(0, rnd.pick(starts.length > 0 ? starts : [0]));
      }
      return rezip(entries);
    }
    default: {
      // A storage entry cut short, grown, or emptied.
      const entries = contents.map((e) => ({ ...e }));
      const storages = entries.filter((e) => /\/data\/\d+$/.test(e.name));
      if (storages.length === 0) return b;
      const s = rnd.pick(storages);
      s.data = rnd.chance(0.5)
        ? s.data.slice(0, rnd.int(0, s.data.length))
        : concat([s.data, new Uint8Array(rnd.int(1, 64))]);
      return rezip(entries);
    }
  }
}

// --- records (named MessagePack, bincode, JSON) ---

function mutateMsgpack(b: Uint8Array, kind: string, rnd: Rng): Uint8Array {
  if (kind === 'deep') return deepBytes('msgpack', rnd.pick([200, 5000, 200_000]));
  if (kind === 'heads') {
    // Containers and blobs claiming more elements or bytes than the file has.
    const head = rnd.pick([
      [0xdd, 0xff, 0xff, 0xff, 0xff],
      [0xdf, 0x7f, 0xff, 0xff, 0xff],
      [0xc6, 0xff, 0xff, 0xff, 0xf0],
      [0xdb, 0x7f, 0xff, 0xff, 0xff],
      [0xdc, 0xff, 0xff],
    ]);
    const at = rnd.int(0, b.length);
    return concat([b.subarray(0, at), Uint8Array.from(head), b.subarray(at)]);
  }
  let tree: unknown;
  try {
    tree = decodeMsgpack(b, { useBigInt64: true });
  } catch {
    return b;
  }
  for (let i = 0, n = rnd.int(1, 3); i < n; i++) mutateTree(tree, rnd, true);
  try {
    return encodeMsgpack(tree, { useBigInt64: true });
  } catch {
    return b;
  }
}

function mutateJson(b: Uint8Array, kind: string, rnd: Rng): Uint8Array {
  if (kind === 'deep') return deepBytes('json', rnd.pick([200, 5000, 100_000]));
  let tree: unknown;
  try {
    tree = JSON.parse(new TextDecoder().decode(b));
  } catch {
    return b;
  }
  for (let i = 0, n = rnd.int(1, 3); i < n; i++) mutateTree(tree, rnd, false);
  return new TextEncoder().encode(JSON.stringify(tree));
}

function gunzipSafe(b: Uint8Array): Uint8Array | undefined {
  try {
    // The base files are ours and small: plain gunzip is fine here.
    return new Uint8Array(gunzipSync(b));
  } catch {
    return undefined;
  }
}

/** A few byte mutations drawn from `rnd` (inside a gzip'd file, or on bincode). */
function rndBytes(b: Uint8Array, rnd: Rng): Uint8Array {
  const muts: ByteMutation[] = [];
  for (let i = 0, n = rnd.int(1, 3); i < n; i++) {
    const at = rnd.next() ** 2;
    switch (rnd.int(0, 3)) {
      case 0:
        muts.push({ kind: 'u64', at, value: rnd.pick(HOSTILE_U64) });
        break;
      case 1:
        muts.push({ kind: 'u32', at, value: rnd.pick(HOSTILE_U32) });
        break;
      case 2:
        muts.push({ kind: 'flip', at, mask: rnd.int(1, 255) });
        break;
      default:
        muts.push({ kind: 'truncate', at: rnd.next() });
        break;
    }
  }
  return applyByteMutations(b, muts);
}

let bombGz: Uint8Array | undefined;
const deflated = new WeakMap<Uint8Array, Uint8Array>();
/** deflateSync, cached per input (the 64 MiB bomb is compressed once). */
function deflateCached(data: Uint8Array): Uint8Array {
  let out = deflated.get(data);
  if (!out) deflated.set(data, (out = deflateSync(data, { level: 1 })));
  return out;
}

/** The structure-aware mutation kinds of each format. */
export const MUTATION_KINDS: Record<FileFormat, readonly string[]> = {
  burnpack: ['header', 'meta-tree', 'meta-tree', 'meta-tree', 'meta-deep', 'meta-raw', 'data'],
  safetensors: ['prefix', 'header-tree', 'header-tree', 'header-tree', 'header-deep', 'text'],
  pytorch: [
    'local-field',
    'central-field',
    'eocd-field',
    'names',
    'deflate',
    'pickle-int',
    'pickle-int',
    'pickle-insert',
    'pickle-insert',
    'pickle-cut',
    'storage',
  ],
  mpk: ['tree', 'tree', 'tree', 'deep', 'heads'],
  'mpk.gz': ['tree', 'tree', 'deep', 'heads', 'bytes', 'bomb', 'gzip-cut'],
  bin: ['bytes'],
  'bin.gz': ['bytes', 'bomb', 'gzip-cut'],
  json: ['tree', 'tree', 'deep'],
};

/**
 * Kinds that replace the file with something no longer of its structure (deep nesting, a bomb):
 * structure-aware mutations after them are skipped (byte mutations still apply).
 */
export const TERMINAL_KINDS: ReadonlySet<string> = new Set(['deep', 'meta-deep', 'header-deep', 'bomb', 'gzip-cut']);

/** Applies one structure-aware mutation of `kind` to a file of `format`. */
export function mutateFile(
  format: FileFormat,
  b: Uint8Array,
  kind: string,
  rnd: Rng,
  crc: (d: Uint8Array) => number,
): Uint8Array {
  try {
    return mutateFileOf(format, b, kind, rnd, crc);
  } catch {
    // An earlier mutation moved a structure this one relies on (an offset past the end): leave the file as is.
    return b;
  }
}

function mutateFileOf(
  format: FileFormat,
  b: Uint8Array,
  kind: string,
  rnd: Rng,
  crc: (d: Uint8Array) => number,
): Uint8Array {
  switch (format) {
    case 'burnpack':
      return mutateBurnpack(b, kind, rnd);
    case 'safetensors':
      return mutateSafetensors(b, kind, rnd);
    case 'pytorch':
      return mutatePytorch(b, kind, rnd, crc);
    case 'mpk':
      return mutateMsgpack(b, kind, rnd);
    case 'json':
      return mutateJson(b, kind, rnd);
    case 'bin':
      return rndBytes(b, rnd); // bincode has no self-describing structure: length fields and bytes
    case 'mpk.gz':
    case 'bin.gz': {
      if (kind === 'bomb')
        return (bombGz ??= new Uint8Array(gzipSync((zeros ??= new Uint8Array(64 << 20)), { level: 1 })));
      if (kind === 'gzip-cut') return b.slice(0, rnd.int(0, b.length));
      const inner = gunzipSafe(b);
      if (!inner) return b;
      const mutated = kind === 'bytes' ? rndBytes(inner, rnd) : mutateMsgpack(inner, kind, rnd);
      return new Uint8Array(gzipSync(mutated));
    }
  }
}
