import { resolveLimits, type LoadLimits } from '../../record/limits.js';
import type { ByteSource } from '../../record/source.js';
import { TensorData } from '../../core/data.js';
import { dtypeSize, type DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { handOver } from '../../core/ownership.js';
import { TensorSnapshot } from '../snapshot.js';
import {
  describePy,
  PyDict,
  PyGlobal,
  PyTuple,
  STORAGE_TYPES,
  TorchStorage,
  TorchTensor,
  unpickle,
  type PyValue,
} from './pickle.js';
import { checkName, isZip, ZipReader, type ZipLimits } from './zip.js';

/**
 * Reads PyTorch checkpoints (`torch.save`): the zip format (PyTorch ≥ 1.6), the legacy format
 * (sequential pickles + raw storages; PyTorch < 1.6, or `_use_new_zipfile_serialization=False`)
 * and the older tar format, through the restricted unpickler. Tensors become lazy snapshots:
 * each reads only its storage range, and views (offsets, strides) are gathered into contiguous
 * data, except stride-0 (expanded) dims, which stay broadcast views of the small storage. Every
 * offset, size and stride is checked against its storage before anything is read.
 */

/** The container a checkpoint uses. */
export type PytorchFormat = 'zip' | 'legacy' | 'tar';

/** Options of {@link readPytorch}. */
export interface ReadPytorchOptions {
  /** Take the tensors under this key of the top-level dict (`'state_dict'`, `'model'`). */
  readonly topLevelKey?: string;
  /** The operation named in errors (default `PytorchStore`). */
  readonly op?: string;
  /** Limits of the zip container; `maxInflatedSize` defaults to `limits.maxDecompressedBytes`. */
  readonly zipLimits?: ZipLimits;
  /** Resource limits (decompressed size, nesting depth, overlapping-view copies); see {@link LoadLimits}. */
  readonly limits?: LoadLimits;
}

/** What a checkpoint holds. */
export interface PytorchContents {
  readonly format: PytorchFormat;
  /** Tensors by dot-joined dict path. */
  readonly tensors: Map<string, TensorSnapshot>;
}

/** Most dims a tensor may have (as the tar reader): far beyond real checkpoints, and it keeps error messages short. */
const MAX_RANK = 64;

const LEGACY_MAGIC = [0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e];

/** Reads a storage's bytes: `count` elements from element `start`. */
/** Reads `count` elements of a storage from element `start`; `fresh` when each read returns new memory (a zip in a file). */
type StorageReader = ((storage: TorchStorage, start: number, count: number) => Uint8Array) & {
  readonly fresh?: boolean;
};

function elemSize(dtype: DType): number {
  return dtype === 'bool' ? 1 : dtypeSize(dtype);
}

function storageType(v: PyValue, fail: (m: string) => never): DType {
  if (v instanceof PyGlobal && v.name in STORAGE_TYPES) return STORAGE_TYPES[v.name]!;
  if (typeof v === 'string' && v.replace(/^torch\./, '') in STORAGE_TYPES)
    return STORAGE_TYPES[v.replace(/^torch\./, '')]!;
  return fail(`unsupported storage type ${describePy(v)} (expected ${Object.keys(STORAGE_TYPES).join(', ')})`);
}

function asNumber(v: PyValue, what: string, fail: (m: string) => never): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  return fail(`${what} must be a non-negative integer, found ${describePy(v)}`);
}

function asText(v: PyValue): string {
  return v instanceof Uint8Array ? new TextDecoder().decode(v) : String(v);
}

/** Reads a checkpoint. Errors are BurnErrors naming the source and what failed where. */
export function readPytorch(source: ByteSource, options: ReadPytorchOptions = {}): PytorchContents {
  const op = options.op ?? 'PytorchStore';
  const fail = (m: string): never => {
    throw new BurnError(op, `${source.name}: ${m}`);
  };
  const limits = resolveLimits(options.limits, op);
  const zipLimits: ZipLimits = { maxInflatedSize: limits.maxDecompressedBytes, ...options.zipLimits };
  if (source.size === 0) fail('the file is empty');
  const head = source.read(0, Math.min(source.size, 512));
  let format: PytorchFormat;
  let root: PyValue;
  let read: StorageReader;
  if (isZip(head)) {
    format = 'zip';
    [root, read] = readZip(source, op, fail, zipLimits, limits.maxNestingDepth);
  } else if (source.size >= 512 && new TextDecoder('latin1').decode(source.read(257, 5)) === 'ustar') {
    format = 'tar';
    [root, read] = readTar(source, op, fail, limits.maxNestingDepth);
  } else if (LEGACY_MAGIC.every((b, i) => head[i] === b)) {
    format = 'legacy';
    [root, read] = readLegacy(source, op, fail, limits.maxNestingDepth);
  } else {
    const shown = [...head.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    return fail(
      `not a PyTorch checkpoint: it starts with ${shown}; expected a zip archive (50 4b 03 04), a tar archive or the legacy pickle magic (80 02 8a 0a)`,
    );
  }
  return { format, tensors: extract(root, read, options.topLevelKey, fail, limits) };
}

function extract(
  root: PyValue,
  read: StorageReader,
  topLevelKey: string | undefined,
  fail: (m: string) => never,
  limits: Required<LoadLimits>,
): Map<string, TensorSnapshot> {
  if (!(root instanceof PyDict))
    fail(
      `expected a dict (a state_dict) at the top level, found ${describePy(root)}; full-model pickles are not supported`,
    );
  let dict = root as PyDict;
  if (topLevelKey !== undefined) {
    const inner = dict.map.get(topLevelKey);
    if (!(inner instanceof PyDict)) {
      fail(
        `top-level key '${topLevelKey}' ${inner === undefined ? 'is not in the file' : `is ${describePy(inner)}, not a dict`}; the top-level keys are ${[...dict.map.keys()].map((k) => `'${String(k)}'`).join(', ')}`,
      );
    }
    dict = inner as PyDict;
  }
  const out = new Map<string, TensorSnapshot>();
  const seen = new Set<PyDict>([dict]);
  // Depth-first in dict order with an explicit stack (a hostile file may nest dicts 100k deep).
  const stack: { entries: Iterator<[unknown, PyValue]>; prefix: string }[] = [
    { entries: dict.map.entries(), prefix: '' },
  ];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const next = top.entries.next();
    if (next.done === true) {
      stack.pop();
      continue;
    }
    const [k, v] = next.value;
    const path = top.prefix === '' ? String(k) : `${top.prefix}.${String(k)}`;
    if (v instanceof PyDict) {
      if (seen.has(v)) continue;
      seen.add(v);
      if (stack.length > limits.maxNestingDepth) {
        fail(
          `dicts nested deeper than ${limits.maxNestingDepth} levels (at '${path.slice(0, 80)}${path.length > 80 ? '…' : ''}'); expected a state dict of modest depth (raise the maxNestingDepth limit to read it)`,
        );
      }
      stack.push({ entries: v.map.entries(), prefix: path });
    } else if (v instanceof TorchTensor) out.set(path, snapshot(path, v, read, fail, limits));
  }
  return out;
}

function snapshot(
  path: string,
  t: TorchTensor,
  read: StorageReader,
  fail: (m: string) => never,
  limits: Required<LoadLimits>,
): TensorSnapshot {
  const { dtype, numel: storageNumel } = t.storage;
  const es = elemSize(dtype);
  if (t.shape.length > MAX_RANK) fail(`tensor '${path}' has ${t.shape.length} dims; expected at most ${MAX_RANK}`);
  const where = () => `tensor '${path}' (size ${fmt(t.shape)}, stride ${fmt(t.stride)}, storage offset ${t.offset})`;
  // Validate everything the file declares before any read: a negative offset read the zip header.
  if (!Number.isSafeInteger(t.offset) || t.offset < 0 || t.offset > storageNumel) {
    fail(
      `${where()}: storage offset ${t.offset} is outside its storage; expected an integer in 0..${storageNumel} (the storage has ${storageNumel} elements)`,
    );
  }
  if (!t.shape.every((d) => Number.isSafeInteger(d) && d >= 0))
    fail(`${where()}: size ${fmt(t.shape)} must be non-negative integers`);
  if (!t.stride.every((d) => Number.isSafeInteger(d) && d >= 0))
    fail(`${where()}: stride ${fmt(t.stride)} must be non-negative integers (negative strides are not supported)`);
  const rank = t.shape.length;
  const n = t.shape.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(n)) fail(`${where()}: ${n} elements, beyond 2^53`);
  // Stride-0 dims (expand) stay broadcast: only the compact part is read, bounded by the storage.
  const compact = t.shape.map((d, i) => (t.stride[i] === 0 && d > 1 ? 1 : d));
  const cn = compact.reduce((a, b) => a * b, 1);
  let last = t.offset;
  if (n > 0) {
    for (let i = 0; i < rank; i++) last += (compact[i]! - 1) * t.stride[i]!;
    if (!(last < storageNumel)) {
      fail(
        `${where()} reaches element ${Number.isSafeInteger(last) ? last : 'beyond 2^53'} of a storage of ${storageNumel} elements (corrupt file)`,
      );
    }
    if (cn > storageNumel && cn * es > limits.maxStridedCopyBytes) {
      fail(
        `${where()} reads its ${storageNumel}-element storage as ${cn} overlapping elements: copying them needs ${cn * es} bytes, over the maxStridedCopyBytes limit of ${limits.maxStridedCopyBytes} bytes; expected a view no larger than its storage (raise the limit to read it)`,
      );
    }
  }
  const dataFn = () => {
    if (n === 0) return TensorData.fromBytes(new Uint8Array(0), t.shape, dtype);
    let contiguous = true;
    let expect = 1;
    for (let i = rank - 1; i >= 0; i--) {
      if (compact[i] !== 1 && t.stride[i] !== expect) contiguous = false;
      expect *= compact[i]!;
    }
    if (contiguous) {
      const bytes = read(t.storage, t.offset, cn);
      const data = TensorData.fromBytes(bytes, compact, dtype);
      // Hand over only a whole fresh buffer (a stored entry read from a file), never a part of a larger one.
      return read.fresh && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? handOver(data)
        : data;
    }
    // A view: read the span it touches and gather its elements in row-major order.
    const span = read(t.storage, t.offset, last - t.offset + 1);
    const out = new Uint8Array(cn * es);
    const idx = new Array<number>(rank).fill(0);
    let src = 0;
    for (let o = 0; o < cn; o++) {
      out.set(span.subarray(src * es, src * es + es), o * es);
      for (let d = rank - 1; d >= 0; d--) {
        idx[d]!++;
        src += t.stride[d]!;
        if (idx[d]! < compact[d]!) break;
        src -= t.stride[d]! * compact[d]!;
        idx[d] = 0;
      }
    }
    return handOver(TensorData.fromBytes(out, compact, dtype));
  };
  return new TensorSnapshot(dtype, t.shape, path.split('.'), dataFn, n > 0 && cn < n ? { compactShape: compact } : {});
}

function readZip(
  source: ByteSource,
  op: string,
  fail: (m: string) => never,
  limits: ZipLimits,
  maxNestingDepth: number,
): [PyValue, StorageReader] {
  const zip = new ZipReader(source, op, limits);
  const pkl = [...zip.entries.keys()].find((k) => k === 'data.pkl' || k.endsWith('/data.pkl'));
  if (pkl === undefined)
    fail(`the zip archive has no data.pkl (entries: ${[...zip.entries.keys()].slice(0, 10).join(', ')})`);
  const prefix = pkl!.slice(0, pkl!.length - 'data.pkl'.length);
  const order = zip.get(`${prefix}byteorder`);
  if (order && asText(zip.read(order)).trim() === 'big') fail('big-endian checkpoints are not supported');
  const storages = new Map<string, TorchStorage>();
  const persistentLoad = (pid: PyValue): PyValue => {
    if (!(pid instanceof PyTuple) || pid.items[0] !== 'storage' || pid.items.length < 5)
      throw new Error(`unexpected persistent id ${describePy(pid)}`);
    const [, type, key, , numel] = pid.items;
    const k = asText(key);
    let s = storages.get(k);
    if (!s) {
      const dtype = storageType(type, (m) => {
        throw new Error(m);
      });
      s = new TorchStorage(
        dtype,
        k,
        asNumber(numel, 'storage size', (m) => {
          throw new Error(m);
        }),
      );
      const entry = zip.get(`${prefix}data/${k}`);
      if (!entry) throw new Error(`storage '${k}' has no entry '${prefix}data/${k}' in the archive`);
      if (entry.size < s.numel * elemSize(dtype))
        throw new Error(
          `storage '${k}' holds ${entry.size} bytes but ${s.numel} elements of ${dtype} need ${s.numel * elemSize(dtype)} (truncated?)`,
        );
      storages.set(k, s);
    }
    return s;
  };
  const entry = zip.get(pkl!)!;
  const root = unpickle(zip.read(entry), {
    source: `${source.name}:${pkl}`,
    persistentLoad,
    op,
    maxNestingDepth,
  }).value;
  const read: StorageReader = Object.assign(
    (s: TorchStorage, start: number, count: number) => {
      const es = elemSize(s.dtype);
      return zip.readStored(zip.get(`${prefix}data/${s.key}`)!, start * es, count * es);
    },
    { fresh: source.fresh === true },
  );
  return [root, read];
}

function readLegacy(
  source: ByteSource,
  op: string,
  fail: (m: string) => never,
  maxNestingDepth: number,
): [PyValue, StorageReader] {
  const all = source.read(0, source.size);
  let pos = 0;
  const next = (what: string, persistentLoad?: (pid: PyValue) => PyValue) => {
    const r = unpickle(all.subarray(pos), {
      source: source.name,
      baseOffset: pos,
      op,
      maxNestingDepth,
      ...(persistentLoad ? { persistentLoad } : {}),
    });
    pos += r.end;
    void what;
    return r.value;
  };
  next('magic number');
  const protocol = next('protocol version');
  if (protocol !== 1001) fail(`legacy protocol version ${describePy(protocol)} is not supported (expected 1001)`);
  const sys = next('system info');
  if (sys instanceof PyDict && sys.map.get('little_endian') === false) fail('big-endian checkpoints are not supported');
  const storages = new Map<string, TorchStorage>();
  const roots = new Map<string, { dtype: DType; numel: number }>();
  const persistentLoad = (pid: PyValue): PyValue => {
    if (!(pid instanceof PyTuple)) throw new Error(`unexpected persistent id ${describePy(pid)}`);
    const kind = asText(pid.items[0]);
    if (kind === 'module') return pid.items[1];
    if (kind !== 'storage' || pid.items.length < 6) throw new Error(`unexpected persistent id ${describePy(pid)}`);
    const [, type, rootKey, , numel, view] = pid.items;
    const err = (m: string): never => {
      throw new Error(m);
    };
    const dtype = storageType(type, err);
    const k = asText(rootKey);
    if (!roots.has(k)) roots.set(k, { dtype, numel: asNumber(numel, 'storage size', err) });
    if (view instanceof PyTuple) {
      const [viewKey, offset, size] = view.items;
      const vk = asText(viewKey);
      let s = storages.get(vk);
      if (!s) {
        const at = asNumber(offset, 'view offset', err);
        const count = asNumber(size, 'view size', err);
        const rootNumel = roots.get(k)!.numel;
        if (at + count > rootNumel)
          err(
            `storage view '${vk}' of '${k}' covers elements ${at}..${at + count}, past the end of its root storage of ${rootNumel} elements`,
          );
        storages.set(vk, (s = new TorchStorage(dtype, k, count, at)));
      }
      return s;
    }
    let s = storages.get(k);
    if (!s) storages.set(k, (s = new TorchStorage(dtype, k, roots.get(k)!.numel)));
    return s;
  };
  const root = next('the checkpoint', persistentLoad);
  const keys = next('storage keys');
  if (!Array.isArray(keys))
    fail(`expected the list of storage keys after the checkpoint pickle, found ${describePy(keys)}`);
  const offsets = new Map<string, number>();
  const dv = new DataView(all.buffer, all.byteOffset, all.byteLength);
  for (const key of keys as PyValue[]) {
    const k = asText(key);
    const info = roots.get(k);
    if (!info) fail(`storage key '${k}' at byte offset ${pos} is not used by the checkpoint`);
    if (pos + 8 > all.length)
      fail(`truncated: storage '${k}' header expected at byte offset ${pos}, the file has ${all.length} bytes`);
    const count = Number(dv.getBigUint64(pos, true));
    if (count !== info!.numel)
      fail(`storage '${k}' at byte offset ${pos} holds ${count} elements, the checkpoint expects ${info!.numel}`);
    pos += 8;
    const bytes = count * elemSize(info!.dtype);
    if (pos + bytes > all.length)
      fail(`truncated: storage '${k}' needs bytes ${pos}..${pos + bytes}, the file has ${all.length} bytes`);
    offsets.set(k, pos);
    pos += bytes;
  }
  for (const k of roots.keys()) if (!offsets.has(k)) fail(`storage '${k}' is used by the checkpoint but has no data`);
  const read: StorageReader = (s, start, count) => {
    const es = elemSize(s.dtype);
    const at = offsets.get(s.key)! + (s.viewOffset + start) * es;
    return source.read(at, count * es);
  };
  return [root, read];
}

function readTar(
  source: ByteSource,
  op: string,
  fail: (m: string) => never,
  maxNestingDepth: number,
): [PyValue, StorageReader] {
  // Tar entries: 512-byte headers, data padded to 512.
  const entries = new Map<string, { offset: number; size: number }>();
  let pos = 0;
  while (pos + 512 <= source.size) {
    const h = source.read(pos, 512);
    if (h.every((b) => b === 0)) break;
    const name = new TextDecoder('latin1').decode(h.subarray(0, 100)).replace(/\0.*$/s, '');
    const size = parseInt(
      new TextDecoder('latin1').decode(h.subarray(124, 136)).replace(/\0.*$/s, '').trim() || '0',
      8,
    );
    if (!Number.isFinite(size) || size < 0) fail(`tar entry '${name}' at byte offset ${pos} has an invalid size`);
    checkName(name, fail);
    if (pos + 512 + size > source.size)
      fail(`truncated: tar entry '${name}' needs bytes up to ${pos + 512 + size}, the file has ${source.size}`);
    entries.set(name.replace(/^\.\//, ''), { offset: pos + 512, size });
    pos += 512 + Math.ceil(size / 512) * 512;
  }
  const get = (name: string) =>
    entries.get(name) ?? fail(`the tar archive has no '${name}' entry (entries: ${[...entries.keys()].join(', ')})`);
  const st = get('storages');
  const sBytes = source.read(st.offset, st.size);
  let p = 0;
  const next = (buf: Uint8Array, base: number) => {
    const r = unpickle(buf.subarray(p), { source: source.name, baseOffset: base + p, op, maxNestingDepth });
    p += r.end;
    return r.value;
  };
  const count = asNumber(next(sBytes, st.offset), 'storage count', fail);
  const storages = new Map<string, TorchStorage>();
  const offsets = new Map<string, number>();
  const dv = new DataView(sBytes.buffer, sBytes.byteOffset, sBytes.byteLength);
  for (let i = 0; i < count; i++) {
    const args = next(sBytes, st.offset);
    if (!(args instanceof PyTuple) || args.items.length !== 3)
      fail(`storage record ${i} is ${describePy(args)}, expected (key, location, storage_type)`);
    const [key, , type] = (args as PyTuple).items;
    const dtype = storageType(type, fail);
    if (p + 8 > sBytes.length) fail(`truncated storage ${i}`);
    const n = Number(dv.getBigUint64(p, true));
    p += 8;
    if (p + n * elemSize(dtype) > sBytes.length)
      fail(`truncated: storage ${i} needs ${n * elemSize(dtype)} bytes at byte offset ${st.offset + p}`);
    const k = asText(key);
    storages.set(k, new TorchStorage(dtype, k, n));
    offsets.set(k, st.offset + p);
    p += n * elemSize(dtype);
  }
  // Real torch tar files end the storages entry with a list of storage views; hand-made ones may not.
  const views = p < sBytes.length ? next(sBytes, st.offset) : [];
  if (Array.isArray(views)) {
    for (const v of views) {
      if (!(v instanceof PyTuple) || v.items.length !== 4) continue;
      const [target, rootKey, offset, numel] = v.items;
      const r = storages.get(asText(rootKey));
      if (!r) fail(`storage view of unknown storage '${asText(rootKey)}'`);
      const at = asNumber(offset, 'view offset', fail);
      const count = asNumber(numel, 'view size', fail);
      if (at + count > r!.numel)
        fail(
          `storage view '${asText(target)}' of '${r!.key}' covers elements ${at}..${at + count}, past the end of its root storage of ${r!.numel} elements`,
        );
      storages.set(asText(target), new TorchStorage(r!.dtype, r!.key, count, at));
    }
  }
  const te = entries.get('tensors') ?? { offset: 0, size: 0 };
  const tBytes = source.read(te.offset, te.size);
  const tv = new DataView(tBytes.buffer, tBytes.byteOffset, tBytes.byteLength);
  p = 0;
  const tensors = new Map<string, TorchTensor>();
  const nt = te.size === 0 ? 0 : asNumber(next(tBytes, te.offset), 'tensor count', fail);
  for (let i = 0; i < nt; i++) {
    const args = next(tBytes, te.offset);
    if (!(args instanceof PyTuple) || args.items.length < 2) fail(`tensor record ${i} is ${describePy(args)}`);
    const [key, storageId] = (args as PyTuple).items;
    const s = storages.get(asText(storageId)) ?? fail(`tensor ${i} uses unknown storage '${asText(storageId)}'`);
    if (p + 8 > tBytes.length) fail(`truncated tensor record ${i}`);
    const ndim = tv.getInt32(p, true);
    p += 8;
    if (ndim < 0 || ndim > 64 || p + 16 * ndim + 8 > tBytes.length)
      fail(`tensor record ${i} has an invalid rank ${ndim} at byte offset ${te.offset + p - 8}`);
    const i64 = () => {
      const v = Number(tv.getBigInt64(p, true));
      p += 8;
      return v;
    };
    const shape = Array.from({ length: ndim }, i64);
    const stride = Array.from({ length: ndim }, i64);
    const offset = i64();
    tensors.set(asText(key), new TorchTensor(s, offset, shape, stride, false));
  }
  const pk = get('pickle');
  const storageTuple = (pid: PyValue): PyValue => {
    // ('storage', type, key, location, numel), as in the zip format.
    const k = asText((pid as PyTuple).items[2]);
    const s = storages.get(k);
    if (!s) throw new Error(`storage tuple names unknown storage '${k}'`);
    return s;
  };
  const root = unpickle(source.read(pk.offset, pk.size), {
    source: source.name,
    baseOffset: pk.offset,
    op,
    maxNestingDepth,
    inlineStorage: (pid) => ((pid as PyTuple).items[0] === 'storage' ? storageTuple(pid) : pid),
    persistentLoad: (pid) => {
      if (pid instanceof PyTuple && pid.items[0] === 'storage') return storageTuple(pid);
      if (pid instanceof PyTuple) return pid.items[0];
      const t = tensors.get(asText(pid));
      if (!t) throw new Error(`persistent id '${asText(pid)}' names no tensor of the archive`);
      return t;
    },
  }).value;
  const read: StorageReader = (s, start, count) => {
    const es = elemSize(s.dtype);
    return source.read(offsets.get(s.key)! + (s.viewOffset + start) * es, count * es);
  };
  return [root, read];
}
