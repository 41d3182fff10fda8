import { BurnError } from '../../core/errors.js';
import type { DType } from '../../core/dtype.js';

/**
 * A restricted unpickler with PyTorch's `weights_only` semantics: it builds data (numbers,
 * strings, bytes, lists, tuples, dicts, OrderedDicts, sets) and a fixed allow-list of PyTorch
 * reconstructors (`torch._utils._rebuild_tensor_v2`, `_rebuild_parameter`, storage types, dtypes,
 * `torch.Size`, `torch.device`). It never imports or calls anything: a global outside the list
 * (`os.system`, `builtins.eval`, a custom class) is refused when it is named, before any call,
 * and malformed or truncated streams are refused with the byte offset. Decoding is linear in the
 * pickle's size (MARKs on a side stack, integers parsed in one pass, no argument spreading), and
 * nothing recurses deeper than `maxNestingDepth`.
 */

/** A Python tuple. */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** A Python dict (or OrderedDict), keys in insertion order. */
export class PyDict {
  readonly map = new Map<unknown, PyValue>();
  constructor(readonly ordered = false) {}
}

/** A reference to an allowed global (a callable or class), e.g. `torch._utils._rebuild_tensor_v2`. */
export class PyGlobal {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
  /** `module.name`. */
  get qualified(): string {
    return `${this.module}.${this.name}`;
  }
}

/** A PyTorch storage: element type, key in the archive, element count; `viewOffset` for legacy storage views. */
export class TorchStorage {
  constructor(
    readonly dtype: DType,
    readonly key: string,
    readonly numel: number,
    readonly viewOffset = 0,
  ) {}
}

/** A tensor: a strided view of a storage. */
export class TorchTensor {
  constructor(
    readonly storage: TorchStorage,
    readonly offset: number,
    readonly shape: number[],
    readonly stride: number[],
    readonly requiresGrad: boolean,
  ) {}
}

/** A value built by the unpickler. */
export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PyValue[]
  | PyTuple
  | PyDict
  | PyGlobal
  | TorchStorage
  | TorchTensor
  | Set<PyValue>
  | undefined;

/** Storage type names → dtype. */
export const STORAGE_TYPES: Record<string, DType> = {
  FloatStorage: 'f32',
  DoubleStorage: 'f64',
  HalfStorage: 'f16',
  BFloat16Storage: 'bf16',
  LongStorage: 'i64',
  IntStorage: 'i32',
  ShortStorage: 'i16',
  CharStorage: 'i8',
  ByteStorage: 'u8',
  BoolStorage: 'bool',
};
const TORCH_DTYPES: Record<string, DType> = {
  float32: 'f32',
  float: 'f32',
  float64: 'f64',
  double: 'f64',
  float16: 'f16',
  half: 'f16',
  bfloat16: 'bf16',
  int64: 'i64',
  long: 'i64',
  int32: 'i32',
  int: 'i32',
  int16: 'i16',
  short: 'i16',
  int8: 'i8',
  uint8: 'u8',
  bool: 'bool',
};

/** The globals a weights-only load may name. */
function allowed(module: string, name: string): boolean {
  if (module === 'collections' && name === 'OrderedDict') return true;
  if (
    module === 'torch._utils' &&
    ['_rebuild_tensor', '_rebuild_tensor_v2', '_rebuild_parameter', '_rebuild_parameter_with_state'].includes(name)
  )
    return true;
  if (module === 'torch' && (name in STORAGE_TYPES || name in TORCH_DTYPES || name === 'Size' || name === 'device'))
    return true;
  if (module === 'torch.storage' && name === 'UntypedStorage') return true;
  if (module === '_codecs' && name === 'encode') return true;
  if ((module === 'builtins' || module === '__builtin__') && ['set', 'frozenset', 'bytearray'].includes(name))
    return true;
  return false;
}

/** Options of {@link unpickle}. */
export interface UnpickleOptions {
  /** Names the source in errors. */
  readonly source: string;
  /** Byte offset of `bytes[0]` in the file. */
  readonly baseOffset?: number;
  /** Resolves persistent ids (storages); unset: persistent ids are refused. */
  readonly persistentLoad?: (pid: PyValue) => PyValue;
  /** The operation named in errors. */
  readonly op?: string;
  /** Resolves a storage tuple passed inline (not as a persistent id) to `_rebuild_tensor_v2`, as hand-made tar files do. */
  readonly inlineStorage?: (pid: PyValue) => PyValue;
  /** Deepest tuple used as a dict key (default 128, see `LoadLimits.maxNestingDepth`). */
  readonly maxNestingDepth?: number;
}

const MARK = Symbol('mark');
type Slot = PyValue | typeof MARK;

function asInt(v: PyValue): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER))
    return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new Error(`expected an integer, found ${describePy(v)}`);
}

/** A short description of a value for errors. */
export function describePy(v: PyValue): string {
  if (v === null || v === undefined) return 'None';
  if (v instanceof PyTuple) return `tuple(${v.items.length})`;
  if (v instanceof PyDict) return 'dict';
  if (v instanceof PyGlobal) return v.qualified;
  if (v instanceof TorchTensor) return 'tensor';
  if (v instanceof TorchStorage) return 'storage';
  if (v instanceof Uint8Array) return `bytes(${v.length})`;
  if (Array.isArray(v)) return `list(${v.length})`;
  if (v instanceof Set) return 'set';
  return `${typeof v} ${JSON.stringify(typeof v === 'bigint' ? String(v) : v)}`;
}

function call(fn: PyGlobal, args: PyValue[], maxDepth: number, inline?: (pid: PyValue) => PyValue): PyValue {
  const q = fn.qualified;
  switch (q) {
    case 'collections.OrderedDict': {
      const d = new PyDict(true);
      if (args.length > 0 && Array.isArray(args[0]))
        for (const kv of args[0]) if (kv instanceof PyTuple) d.map.set(key(kv.items[0], maxDepth), kv.items[1]);
      return d;
    }
    case 'torch._utils._rebuild_tensor':
    case 'torch._utils._rebuild_tensor_v2': {
      const [first, offset, size, stride, requiresGrad] = args;
      const storage = first instanceof PyTuple && inline ? inline(first) : first;
      if (!(storage instanceof TorchStorage)) throw new Error(`${q}: expected a storage, found ${describePy(storage)}`);
      const tuple = (v: PyValue, what: string) => {
        if (!(v instanceof PyTuple)) throw new Error(`${q}: ${what} must be a tuple, found ${describePy(v)}`);
        return v.items.map(asInt);
      };
      const shape = tuple(size!, 'size');
      const strides = tuple(stride!, 'stride');
      if (shape.length !== strides.length)
        throw new Error(`${q}: size has ${shape.length} dims but stride ${strides.length}`);
      return new TorchTensor(storage, asInt(offset!), shape, strides, requiresGrad === true);
    }
    case 'torch._utils._rebuild_parameter':
    case 'torch._utils._rebuild_parameter_with_state': {
      if (!(args[0] instanceof TorchTensor)) throw new Error(`${q}: expected a tensor, found ${describePy(args[0])}`);
      return args[0];
    }
    case 'torch.Size':
      return new PyTuple(
        args.length > 0 && (Array.isArray(args[0]) || args[0] instanceof PyTuple)
          ? [...(Array.isArray(args[0]) ? args[0] : (args[0] as PyTuple).items)]
          : [],
      );
    case 'torch.device':
      return args.map((a) => String(a)).join(':');
    case '_codecs.encode': {
      const s = args[0];
      if (typeof s !== 'string') throw new Error(`_codecs.encode: expected a string, found ${describePy(s)}`);
      return Uint8Array.from([...s].map((c) => c.charCodeAt(0) & 0xff));
    }
    case 'builtins.set':
    case 'builtins.frozenset':
    case '__builtin__.set':
    case '__builtin__.frozenset':
      return new Set(args.length > 0 && Array.isArray(args[0]) ? args[0] : []);
    case 'builtins.bytearray':
    case '__builtin__.bytearray':
      return args[0] instanceof Uint8Array ? args[0] : new Uint8Array(0);
    default:
      throw new Error(`calling ${q} is not allowed`);
  }
}

/** Most values in one tuple used as a dict key (nested ones included): memo references can make a small pickle's tuple exponentially large. */
const MAX_KEY_VALUES = 100_000;

/** A dict key: tuples become their JSON text (JavaScript maps compare objects by identity). */
function key(v: PyValue, maxDepth: number): unknown {
  if (!(v instanceof PyTuple)) return v;
  let budget = MAX_KEY_VALUES;
  const open = new Set<unknown>();
  const text = (x: PyValue, depth: number): string => {
    if (--budget < 0)
      throw new Error(`a tuple used as a dict key holds more than ${MAX_KEY_VALUES} values (nested ones included)`);
    if (depth > maxDepth)
      throw new Error(
        `a tuple used as a dict key is nested deeper than ${maxDepth} levels (the maxNestingDepth limit)`,
      );
    if (x instanceof PyTuple || Array.isArray(x)) {
      if (open.has(x)) throw new Error('a value used as a dict key contains itself (circular)');
      open.add(x);
      const out = `[${(x instanceof PyTuple ? x.items : x).map((i) => text(i, depth + 1)).join(',')}]`;
      open.delete(x);
      return out;
    }
    if (typeof x === 'bigint') return JSON.stringify(String(x));
    if (x === undefined || x === null || typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean')
      return JSON.stringify(x ?? null);
    return JSON.stringify(describePy(x));
  };
  return text(v, 0);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A little-endian two's complement integer (LONG1/LONG4) in one pass: a number when safe, else a bigint. */
function decodeLong(b: Uint8Array): number | bigint {
  const n = b.length;
  if (n === 0) return 0;
  const negative = (b[n - 1]! & 0x80) !== 0;
  if (n <= 6) {
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + b[i]!;
    return negative ? v - 2 ** (8 * n) : v;
  }
  // Shifting a bigint byte by byte is quadratic (a 1 MiB LONG4 never finished); hex parsing is linear.
  const digits = new Array<string>(n);
  for (let i = 0; i < n; i++) digits[i] = HEX[b[n - 1 - i]!]!;
  let v = BigInt(`0x${digits.join('')}`);
  if (negative) v -= 1n << BigInt(8 * n);
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/**
 * Unpickles one value from `bytes` (protocols 0–5). Returns the value and the position after
 * its STOP opcode (PyTorch's legacy format stores several pickles in a row).
 */
export function unpickle(bytes: Uint8Array, options: UnpickleOptions): { value: PyValue; end: number } {
  const op = options.op ?? 'PytorchStore';
  const base = options.baseOffset ?? 0;
  const maxDepth = options.maxNestingDepth ?? 128;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stack: Slot[] = [];
  /** Stack positions of the MARKs (the metastack of Python's unpickler): popMark is O(1), not a scan. */
  const marks: number[] = [];
  const memo = new Map<number, PyValue>();
  let pos = 0;
  let at = 0;
  const fail = (message: string): never => {
    throw new BurnError(
      op,
      `${options.source}: refused pickle at byte offset ${base + at}: ${message}; nothing was executed`,
    );
  };
  const need = (n: number) => {
    if (pos + n > bytes.length)
      fail(`truncated: the opcode needs ${n} more byte(s) but the pickle ends (malformed or truncated file)`);
  };
  const u8 = () => (need(1), bytes[pos++]!);
  const u16 = () => (need(2), (pos += 2), view.getUint16(pos - 2, true));
  const u32 = () => (need(4), (pos += 4), view.getUint32(pos - 4, true));
  const i32 = () => (need(4), (pos += 4), view.getInt32(pos - 4, true));
  const u64 = () => {
    need(8);
    const v = view.getBigUint64(pos, true);
    pos += 8;
    if (v > BigInt(bytes.length)) fail(`length ${v} exceeds the ${bytes.length}-byte pickle`);
    return Number(v);
  };
  const take = (n: number) => {
    if (n < 0) fail(`negative length ${n}`);
    need(n);
    const out = bytes.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const line = () => {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) fail('truncated: unterminated text line');
    const s = new TextDecoder('latin1').decode(bytes.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const utf8 = (b: Uint8Array) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(b);
    } catch {
      return fail('invalid UTF-8 in a string');
    }
  };
  const pop = (): PyValue => {
    if (stack.length === 0) fail('stack underflow (malformed pickle)');
    const v = stack.pop();
    if (v === MARK) fail('unexpected MARK on the stack (malformed pickle)');
    return v as PyValue;
  };
  const top = (): PyValue => {
    if (stack.length === 0) fail('stack underflow (malformed pickle)');
    const v = stack[stack.length - 1];
    if (v === MARK) fail('unexpected MARK on the stack (malformed pickle)');
    return v as PyValue;
  };
  const mark = () => {
    marks.push(stack.length);
    stack.push(MARK);
  };
  const popMark = (): PyValue[] => {
    const i = marks.pop();
    if (i === undefined) return fail('no MARK on the stack (malformed pickle)');
    const items = stack.slice(i + 1) as PyValue[];
    stack.length = i;
    return items;
  };
  const global = (module: string, name: string): PyGlobal => {
    if (!allowed(module, name)) {
      fail(
        `global '${module}.${name}' is not in the weights-only allow-list (PyTorch's weights_only=True would refuse it too)`,
      );
    }
    return new PyGlobal(module, name);
  };
  const resolve = (g: PyGlobal): PyValue => {
    if (g.module === 'torch' && g.name in TORCH_DTYPES) return `torch.${g.name}`;
    return g;
  };
  const apply = (fn: PyValue, args: PyValue): PyValue => {
    if (!(fn instanceof PyGlobal)) fail(`REDUCE on ${describePy(fn)}, which is not an allowed callable`);
    if (!(args instanceof PyTuple)) fail(`REDUCE arguments must be a tuple, found ${describePy(args)}`);
    try {
      return call(fn as PyGlobal, (args as PyTuple).items, maxDepth, options.inlineStorage);
    } catch (e) {
      return fail((e as Error).message);
    }
  };
  const setItems = (d: PyValue, items: PyValue[]) => {
    if (!(d instanceof PyDict)) fail(`SETITEM(S) on ${describePy(d)}, not a dict`);
    if (items.length % 2 !== 0) fail('SETITEMS with an odd number of items');
    for (let i = 0; i < items.length; i += 2) (d as PyDict).map.set(key(items[i], maxDepth), items[i + 1]);
  };
  const appendItems = (l: PyValue, items: PyValue[]) => {
    // No push(...items): spreading 400k arguments overflows the stack.
    if (Array.isArray(l)) for (const x of items) l.push(x);
    else if (l instanceof Set) for (const x of items) l.add(x);
    else fail(`APPEND(S) on ${describePy(l)}, not a list`);
  };
  const text = (s: string) => {
    // Protocol-0 string literal: quoted, with escapes.
    const q = s[0];
    if ((q !== "'" && q !== '"') || s[s.length - 1] !== q)
      fail(`invalid STRING literal ${JSON.stringify(s.slice(0, 40))}`);
    return s
      .slice(1, -1)
      .replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) =>
        e[0] === 'x'
          ? String.fromCharCode(parseInt(e.slice(1), 16))
          : (({ n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' } as Record<string, string>)[e] ?? e),
      );
  };

  for (;;) {
    at = pos;
    if (pos >= bytes.length) fail('truncated: the pickle ends without a STOP opcode');
    const code = bytes[pos++]!;
    try {
      const done = step(code);
      if (done) return done;
    } catch (e) {
      if (e instanceof BurnError) throw e;
      fail(`malformed pickle (${(e as Error).message})`);
    }
  }

  function step(code: number): { value: PyValue; end: number } | undefined {
    switch (code) {
      case 0x80: {
        // PROTO
        const p = u8();
        if (p > 5) fail(`unsupported pickle protocol ${p}`);
        break;
      }
      case 0x95: // FRAME
        need(8);
        pos += 8;
        break;
      case 0x2e: // STOP
        return { value: pop(), end: pos };
      case 0x28:
        mark();
        break; // MARK
      case 0x30:
        pop();
        break; // POP
      case 0x31:
        popMark();
        break; // POP_MARK
      case 0x32:
        stack.push(top());
        break; // DUP
      case 0x4e:
        stack.push(null);
        break; // NONE
      case 0x88:
        stack.push(true);
        break; // NEWTRUE
      case 0x89:
        stack.push(false);
        break; // NEWFALSE
      case 0x4a:
        stack.push(i32());
        break; // BININT
      case 0x4b:
        stack.push(u8());
        break; // BININT1
      case 0x4d:
        stack.push(u16());
        break; // BININT2
      case 0x49: {
        // INT
        const s = line().trim();
        if (s === '00') stack.push(false);
        else if (s === '01') stack.push(true);
        else if (/^[-+]?\d+$/.test(s)) stack.push(Number(s));
        else fail(`invalid INT ${JSON.stringify(s)}`);
        break;
      }
      case 0x4c: {
        // LONG
        const s = line().trim().replace(/L$/, '');
        if (!/^[-+]?\d+$/.test(s)) fail(`invalid LONG ${JSON.stringify(s)}`);
        const b = BigInt(s);
        stack.push(b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b);
        break;
      }
      case 0x8a:
      case 0x8b: {
        // LONG1, LONG4
        stack.push(decodeLong(take(code === 0x8a ? u8() : u32())));
        break;
      }
      case 0x46: {
        // FLOAT
        const s = line().trim();
        const v = Number(s);
        if (Number.isNaN(v) && s.toLowerCase() !== 'nan') fail(`invalid FLOAT ${JSON.stringify(s)}`);
        stack.push(v);
        break;
      }
      case 0x47: // BINFLOAT (big-endian)
        need(8);
        stack.push(view.getFloat64(pos, false));
        pos += 8;
        break;
      case 0x53:
        stack.push(text(line()));
        break; // STRING
      case 0x54:
        stack.push(new TextDecoder('latin1').decode(take(i32())));
        break; // BINSTRING
      case 0x55:
        stack.push(new TextDecoder('latin1').decode(take(u8())));
        break; // SHORT_BINSTRING
      case 0x56:
        stack.push(line().replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
        break; // UNICODE
      case 0x58:
        stack.push(utf8(take(u32())));
        break; // BINUNICODE
      case 0x8c:
        stack.push(utf8(take(u8())));
        break; // SHORT_BINUNICODE
      case 0x8d:
        stack.push(utf8(take(u64())));
        break; // BINUNICODE8
      case 0x42:
        stack.push(take(u32()).slice());
        break; // BINBYTES
      case 0x43:
        stack.push(take(u8()).slice());
        break; // SHORT_BINBYTES
      case 0x8e:
        stack.push(take(u64()).slice());
        break; // BINBYTES8
      case 0x96:
        stack.push(take(u64()).slice());
        break; // BYTEARRAY8
      case 0x5d:
        stack.push([]);
        break; // EMPTY_LIST
      case 0x61: {
        // APPEND
        const v = pop();
        appendItems(top(), [v]);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        appendItems(top(), items);
        break;
      }
      case 0x6c:
        stack.push(popMark());
        break; // LIST
      case 0x29:
        stack.push(new PyTuple([]));
        break; // EMPTY_TUPLE
      case 0x74:
        stack.push(new PyTuple(popMark()));
        break; // TUPLE
      case 0x85:
        stack.push(new PyTuple([pop()]));
        break; // TUPLE1
      case 0x86: {
        // TUPLE2
        const b = pop();
        stack.push(new PyTuple([pop(), b]));
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop();
        const b = pop();
        stack.push(new PyTuple([pop(), b, c]));
        break;
      }
      case 0x7d:
        stack.push(new PyDict());
        break; // EMPTY_DICT
      case 0x64: {
        // DICT
        const d = new PyDict();
        setItems(d, popMark());
        stack.push(d);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(top(), items);
        break;
      }
      case 0x8f:
        stack.push(new Set());
        break; // EMPTY_SET
      case 0x90: {
        // ADDITEMS
        const items = popMark();
        appendItems(top(), items);
        break;
      }
      case 0x91:
        stack.push(new Set(popMark()));
        break; // FROZENSET
      case 0x70:
        memo.set(Number(line()), top());
        break; // PUT
      case 0x71:
        memo.set(u8(), top());
        break; // BINPUT
      case 0x72:
        memo.set(u32(), top());
        break; // LONG_BINPUT
      case 0x94:
        memo.set(memo.size, top());
        break; // MEMOIZE
      case 0x67:
      case 0x68:
      case 0x6a: {
        // GET, BINGET, LONG_BINGET
        const i = code === 0x67 ? Number(line()) : code === 0x68 ? u8() : u32();
        if (!memo.has(i)) fail(`memo key ${i} was never stored (malformed pickle)`);
        stack.push(memo.get(i));
        break;
      }
      case 0x63: {
        // GLOBAL
        const module = line();
        const name = line();
        stack.push(resolve(global(module, name)));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') fail('STACK_GLOBAL needs two strings');
        stack.push(resolve(global(module as string, name as string)));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const fn = pop();
        stack.push(apply(fn, args));
        break;
      }
      case 0x81:
      case 0x92: {
        // NEWOBJ, NEWOBJ_EX
        if (code === 0x92) pop(); // kwargs
        const args = pop();
        const cls = pop();
        stack.push(apply(cls, args));
        break;
      }
      case 0x62: {
        // BUILD
        const state = pop();
        const obj = top();
        // Only state-less rebuilds are data: an OrderedDict's or a tensor's (empty) state.
        const empty =
          state === null ||
          (state instanceof PyDict && state.map.size === 0) ||
          (state instanceof PyTuple &&
            state.items.every((s) => s === null || (s instanceof PyDict && s.map.size === 0)));
        if (!(obj instanceof PyDict || obj instanceof TorchTensor) && !empty)
          fail(`BUILD on ${describePy(obj)} is not allowed`);
        break;
      }
      case 0x51:
      case 0x50: {
        // BINPERSID, PERSID
        const pid = code === 0x51 ? pop() : line();
        if (!options.persistentLoad) fail('persistent ids (tensor storages) are not expected here');
        try {
          stack.push(options.persistentLoad!(pid));
        } catch (e) {
          fail((e as Error).message);
        }
        break;
      }
      case 0x69:
      case 0x6f: {
        // INST, OBJ
        if (code === 0x69) {
          const module = line();
          const name = line();
          const args = popMark();
          stack.push(apply(global(module, name), new PyTuple(args)));
        } else {
          const items = popMark();
          const cls = items.shift();
          stack.push(apply(cls, new PyTuple(items)));
        }
        break;
      }
      case 0x82:
      case 0x83:
      case 0x84: // EXT1, EXT2, EXT4
        fail('extension registry opcodes (EXT1/2/4) are not allowed');
        break;
      case 0x97:
      case 0x98: // NEXT_BUFFER, READONLY_BUFFER
        fail('out-of-band buffers are not allowed');
        break;
      default:
        fail(`unknown opcode 0x${code.toString(16).padStart(2, '0')} (malformed pickle)`);
    }
    return undefined;
  }
}
