// Builds small PyTorch checkpoints by hand (pickle opcodes + a stored zip, or the legacy layout),
// so tests can state exactly the offsets, sizes and strides a hostile file declares.
import { zipSync } from 'fflate';

const enc = new TextEncoder();

/** Pickle opcodes as byte arrays, protocol 2. */
export const P = {
  proto: [0x80, 2],
  stop: [0x2e],
  mark: [0x28],
  emptyDict: [0x7d],
  emptyList: [0x5d],
  tuple: [0x74],
  setitem: [0x73],
  reduce: [0x52],
  binpersid: [0x51],
  newfalse: [0x89],
  /** An integer: BININT1, BININT or LONG1 (two's complement), as pickle writes it. */
  int(v: number | bigint): number[] {
    const b = BigInt(v);
    if (b >= 0n && b < 256n) return [0x4b, Number(b)];
    if (b >= -(2n ** 31n) && b < 2n ** 31n) {
      const x = Number(BigInt.asUintN(32, b));
      return [0x4a, x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, x >>> 24];
    }
    const bytes: number[] = [];
    let x = b;
    for (;;) {
      bytes.push(Number(BigInt.asUintN(8, x)));
      x >>= 8n;
      if ((x === 0n && !(bytes[bytes.length - 1]! & 0x80)) || (x === -1n && bytes[bytes.length - 1]! & 0x80)) break;
    }
    return [0x8a, bytes.length, ...bytes];
  },
  /** A BINUNICODE string. */
  str(s: string): number[] {
    const b = enc.encode(s);
    return [0x58, b.length & 0xff, (b.length >>> 8) & 0xff, (b.length >>> 16) & 0xff, b.length >>> 24, ...b];
  },
  /** A GLOBAL opcode. */
  global(module: string, name: string): number[] {
    return [0x63, ...enc.encode(`${module}\n${name}\n`)];
  },
  /** MARK items… TUPLE. */
  tupleOf(...items: number[][]): number[] {
    return [0x28, ...items.flat(), 0x74];
  },
};

/** One tensor of a hand-made checkpoint: a `_rebuild_tensor_v2` over storage `key`. */
export interface HandTensor {
  readonly name: string;
  readonly key: string;
  /** Storage type name (default `FloatStorage`). */
  readonly type?: string;
  /** Elements the storage declares. */
  readonly numel: number | bigint;
  readonly offset: number | bigint;
  readonly size: readonly (number | bigint)[];
  readonly stride: readonly (number | bigint)[];
  /** Legacy format only: the storage is a view (key, offset, size) of root storage `key`. */
  readonly view?: { readonly key: string; readonly offset: number; readonly size: number };
}

function rebuild(t: HandTensor, pid: number[]): number[] {
  return [
    ...P.str(t.name),
    ...P.global('torch._utils', '_rebuild_tensor_v2'),
    ...P.mark,
    ...pid,
    ...P.binpersid,
    ...P.int(t.offset),
    ...P.tupleOf(...t.size.map((s) => P.int(s))),
    ...P.tupleOf(...t.stride.map((s) => P.int(s))),
    ...P.newfalse,
    ...P.global('collections', 'OrderedDict'),
    0x29,
    ...P.reduce,
    ...P.tuple,
    ...P.reduce,
    ...P.setitem,
  ];
}

/** The data.pkl of a zip checkpoint holding `tensors` (a dict name → tensor). */
export function statePickle(tensors: readonly HandTensor[]): Uint8Array {
  const body = tensors.flatMap((t) =>
    rebuild(
      t,
      P.tupleOf(
        P.str('storage'),
        P.global('torch', t.type ?? 'FloatStorage'),
        P.str(t.key),
        P.str('cpu'),
        P.int(t.numel),
      ),
    ),
  );
  return Uint8Array.from([...P.proto, ...P.emptyDict, ...body, ...P.stop]);
}

/** A zip checkpoint (`archive/data.pkl` + `archive/data/<key>` stored entries). */
export function zipCheckpoint(
  tensors: readonly HandTensor[],
  storages: Record<string, Uint8Array>,
  pickle: Uint8Array = statePickle(tensors),
): Uint8Array {
  const files: Record<string, [Uint8Array, { level: 0 }]> = { 'archive/data.pkl': [pickle, { level: 0 }] };
  for (const [k, v] of Object.entries(storages)) files[`archive/data/${k}`] = [v, { level: 0 }];
  files['archive/byteorder'] = [enc.encode('little'), { level: 0 }];
  return zipSync(files);
}

/** f32 little-endian bytes. */
export function f32Bytes(values: readonly number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

/** A legacy (PyTorch < 1.6) checkpoint: magic, protocol, sys info, the state pickle, the keys, then each root storage (u64 count + data). */
export function legacyCheckpoint(
  tensors: readonly HandTensor[],
  storages: Record<string, Uint8Array>,
  elementSize = 4,
): Uint8Array {
  const magic = [...P.proto, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e];
  const protocol = [...P.proto, ...P.int(1001), ...P.stop];
  const sys = [...P.proto, ...P.emptyDict, ...P.str('little_endian'), 0x88, ...P.setitem, ...P.stop];
  const body = tensors.flatMap((t) => {
    const view = t.view === undefined ? [0x4e] : P.tupleOf(P.str(t.view.key), P.int(t.view.offset), P.int(t.view.size));
    return rebuild(
      t,
      P.tupleOf(
        P.str('storage'),
        P.global('torch', t.type ?? 'FloatStorage'),
        P.str(t.key),
        P.str('cpu'),
        P.int(t.numel),
        view,
      ),
    );
  });
  const state = [...P.proto, ...P.emptyDict, ...body, ...P.stop];
  const keys = Object.keys(storages);
  const keyList = [...P.proto, ...P.mark, ...keys.flatMap((k) => P.str(k)), 0x6c, ...P.stop];
  const parts: number[] = [...magic, ...protocol, ...sys, ...state, ...keyList];
  for (const k of keys) {
    const data = storages[k]!;
    const count = BigInt(data.length / elementSize);
    for (let i = 0n; i < 8n; i++) parts.push(Number((count >> (8n * i)) & 0xffn));
    parts.push(...data);
  }
  return Uint8Array.from(parts);
}
