// The op table of the differential fuzz suite's tensor programs (tensor-program.ts): value
// generation, the run context (aux tensors, index tensors with out-of-range values, broadcastable
// shapes), the views, and one entry per op family with how its outputs compare across devices
// (its `Cls`). Parameters are drawn from a seeded PRNG against the shapes met at run time, so a
// program means the same calls on every device.
import {
  Tensor,
  TensorData,
  type Bool,
  type Device,
  type DType,
  type Float,
  type Int,
  type Kind,
} from '../../src/index.js';
import type { IndexingUpdateOp, SliceArg } from '../../src/index.js';
import { Rng } from './arbitraries.js';

/** The dtypes programs use. */
export const FUZZ_DTYPES = ['f32', 'f64', 'f16', 'bf16', 'i32', 'i64', 'u8', 'bool'] as const;
/** A dtype of a program. */
export type FuzzDType = (typeof FUZZ_DTYPES)[number];

/** The view kinds applied to a program's input before its ops. */
export const VIEW_KINDS = [
  'slice',
  'narrow',
  'permute',
  'swap',
  'transpose',
  'flip',
  'expand',
  'unsqueeze',
  'squeeze',
  'reshape',
] as const;
/** A view kind. */
export type ViewKind = (typeof VIEW_KINDS)[number];

/**
 * How an output compares across devices: `exact` (bit-for-bit up to NaN payload and the sign of
 * zero), `approx` (floats within a tolerance scaled by `mag`, the magnitude of what was summed),
 * `unstable` (a discontinuous op — floor, compare, argmax, cast to int, ... — met approximate
 * values, or an index output met ties: only dtype and shape must agree).
 */
export type Stability = 'exact' | 'approx' | 'unstable';

// KNOWN: the CPU engines multiply Int tensors' products (prodDim, cumprod) in doubles, so a product
// past 2^53 loses bits before it wraps to i32/i64 (WebGPU gives the exact two's-complement wrap).
// While true, an Int product that may pass 2^31 is not compared.
export const KNOWN_CPU_INT_PRODUCT_IN_DOUBLES = true;

// --- values ---

/** Any tensor. */
export type T = Tensor<number, Kind>;
type F = Tensor<number, Float>;
type I = Tensor<number, Int>;
type B = Tensor<number, Bool>;
const asF = (t: T) => t as unknown as F;
const asI = (t: T) => t as unknown as I;
const asB = (t: T) => t as unknown as B;
/** The kind of a dtype. */
export const kindOfDType = (d: DType): Kind => (d === 'bool' ? 'bool' : d[0] === 'f' || d === 'bf16' ? 'float' : 'int');

const FLOAT_SPECIALS = [NaN, Infinity, -Infinity, -0, 0, 65504, 1e-6, 3e38, -3e38];

/** Values of a dtype: k/64 in [-8, 8] for floats (sums of them stay exact), small ints, 0/1 bools; specials when asked. */
export function genValues(n: number, dtype: DType, rnd: Rng, special: boolean): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const sp = special && rnd.chance(0.15);
    switch (kindOfDType(dtype)) {
      case 'float':
        out[i] = sp ? rnd.pick(FLOAT_SPECIALS) : rnd.int(-512, 512) / 64;
        break;
      case 'bool':
        out[i] = rnd.int(0, 1);
        break;
      default:
        if (dtype === 'u8') out[i] = sp ? rnd.pick([0, 255, 128]) : rnd.int(0, 40);
        else out[i] = sp ? rnd.pick([2147483647, -2147483648, -1, 0]) : rnd.int(-20, 20);
    }
  }
  return out;
}

/** True when `data` holds a NaN, an infinity, or a magnitude beyond 1e30 or below 1e-30 (zero aside). */
export function hasSpecial(data: TensorData): boolean {
  if (data.dtype === 'bool' || kindOfDType(data.dtype) === 'int') return false;
  for (const v of data.toArray()) {
    const a = Math.abs(v);
    if (!(a <= 1e30) || (a !== 0 && a < 1e-30)) return true;
  }
  return false;
}

/** The largest finite magnitude of `data` (1 for bools). */
export function maxAbsFinite(data: TensorData): number {
  if (data.dtype === 'bool') return 1;
  let m = 0;
  const a = data.dtype === 'i64' ? Array.from(data.values as BigInt64Array, Number) : data.toArray();
  for (let i = 0; i < a.length; i++) {
    const v = Math.abs(a[i]!);
    if (Number.isFinite(v) && v > m) m = v;
  }
  return m;
}

// --- the run context ---

/** What the oracle tracks of each tensor of a run. */
export interface Meta {
  stability: Stability;
  mag: number;
  transcendental: boolean;
  special: boolean;
}

/**
 * How an op's outputs relate to its inputs' stability: `exact` ops (data movement, +, -, *, max,
 * abs, ...) keep it; `smooth` ops (transcendentals, accumulations) make floats approximate;
 * `singular` ops (log, sqrt, div, ...) and `disc` ops (floor, compare, cast to int) turn
 * approximate inputs unstable; `index` outputs (argmax, sort indices) additionally need no ties.
 */
export type Cls = 'exact' | 'smooth' | 'singular' | 'disc' | 'index';

/** One op's results with what the oracle needs to classify them. */
export interface Res {
  /** The outputs (typed loosely: ops return tensors of many ranks and kinds). */
  readonly outs: readonly unknown[];
  /** One class per output (the last repeats). */
  readonly cls: readonly Cls[];
  /** The tensors read (the current tensor first), for stability and magnitude. */
  readonly ins: readonly unknown[];
  /** Accumulation length (reduce, matmul, cumsum): scales the tolerance. */
  readonly k?: number;
  /** Products of operands (matmul, mul): magnitudes multiply. */
  readonly product?: boolean;
  /** A product of `k` elements (prod, cumprod): the magnitude is the largest one to the k-th power. */
  readonly power?: boolean;
  /** Index outputs are unstable when `input` has ties (or NaN) along `dim`. */
  readonly ties?: { readonly input: unknown; readonly dim: number };
  readonly transcendental?: boolean;
  /** What was called, for the trace (`div`, `sortDescending`, ...). */
  readonly detail?: string;
}

export class Ctx {
  oobUsed = false;
  readonly trace: string[] = [];
  readonly metas = new Map<T, Meta>();
  constructor(
    readonly device: Device,
    readonly program: { readonly oob: boolean; readonly special: boolean },
    readonly oracle: boolean,
  ) {}

  /** A contiguous tensor of `shape` with generated values. */
  tensor(shape: readonly number[], dtype: DType, rnd: Rng, special = false): T {
    const data = new TensorData(
      genValues(
        shape.reduce((a, b) => a * b, 1),
        dtype,
        rnd,
        special,
      ),
      shape,
      dtype,
    );
    const t = Tensor.fromData<number, Kind>(data, this.device);
    if (this.oracle) this.metas.set(t, { stability: 'exact', mag: 0, transcendental: false, special: false });
    return t;
  }

  /** A contiguous tensor of `shape` with ints in [lo, hi]. */
  ints(shape: readonly number[], dtype: DType, lo: number, hi: number, rnd: Rng): T {
    const values = Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rnd.int(lo, hi));
    const t = Tensor.fromData<number, Kind>(new TensorData(values, shape, dtype), this.device);
    if (this.oracle) this.metas.set(t, { stability: 'exact', mag: 0, transcendental: false, special: false });
    return t;
  }

  /** An index tensor of `shape` for a dim of size `bound` (out-of-range values when the program allows them). */
  indices(shape: readonly number[], bound: number, rnd: Rng, unique = false): T {
    const n = shape.reduce((a, b) => a * b, 1);
    const dtype = rnd.chance(0.3) ? 'i64' : 'i32';
    let values: number[];
    if (unique) {
      // Unique along the last dim (assign updates with repeated indices have no defined winner).
      const last = shape[shape.length - 1] ?? 1;
      values = [];
      for (let i = 0; i < n; i += Math.max(1, last)) values.push(...rnd.perm(bound).slice(0, last));
      values.length = n;
    } else {
      values = Array.from({ length: n }, () => rnd.int(0, bound - 1));
    }
    if (this.program.oob && n > 0 && rnd.chance(0.6)) {
      const at = rnd.int(0, n - 1);
      values[at] = rnd.pick([-1, -bound - 1, bound, bound + 3, 2 ** 31 - 1, -(2 ** 31)]);
    }
    for (let i = 0; i < n; i++) if (!(values[i]! >= 0 && values[i]! < bound)) this.oobUsed = true;
    const t = Tensor.fromData<number, Kind>(
      new TensorData(
        values.map((v) => v ?? 0),
        shape,
        dtype,
      ),
      this.device,
    );
    if (this.oracle) this.metas.set(t, { stability: 'exact', mag: 0, transcendental: false, special: false });
    return t;
  }

  /** A bool mask of `shape`. */
  mask(shape: readonly number[], rnd: Rng): T {
    return this.tensor(shape, 'bool', rnd);
  }

  /** A shape that broadcasts with `shape`: some dims 1, some leading dims dropped, rarely an incompatible one. */
  broadcastShape(shape: readonly number[], rnd: Rng): number[] {
    let s = shape.map((n) => (rnd.chance(0.3) ? 1 : n));
    if (s.length > 0 && rnd.chance(0.3)) s = s.slice(rnd.int(1, s.length));
    if (rnd.chance(0.03) && s.length > 0) s[rnd.int(0, s.length - 1)] = 7;
    return s;
  }

  /** A dim of `rank` (negative sometimes, out of range rarely). */
  dim(rank: number, rnd: Rng): number {
    if (rnd.chance(0.03)) return rnd.pick([rank, -rank - 1]);
    if (rank === 0) return 0;
    const d = rnd.int(0, rank - 1);
    return rnd.chance(0.3) ? d - rank : d;
  }

  /** Another dtype of the same kind, sometimes (operands of mixed dtypes). */
  operandDType(dtype: DType, rnd: Rng): DType {
    if (!rnd.chance(0.12)) return dtype;
    const kind = kindOfDType(dtype);
    return rnd.pick(FUZZ_DTYPES.filter((d) => kindOfDType(d) === kind));
  }

  /** A scalar operand for a tensor of `dtype`. */
  scalar(dtype: DType, rnd: Rng): number {
    const k = kindOfDType(dtype);
    if (k === 'float') return rnd.pick([0, 1, -1, 0.5, 2, -3.25, rnd.int(-512, 512) / 64]);
    if (k === 'bool') return rnd.int(0, 1);
    return rnd.int(dtype === 'u8' ? 0 : -5, 9);
  }
}

// --- views ---

function sliceArgs(shape: readonly number[], rnd: Rng): SliceArg[] {
  return shape.map((n) => {
    if (rnd.chance(0.2)) return null;
    if (rnd.chance(0.1) && n > 0) return rnd.int(-n, n - 1);
    const start = rnd.int(0, n);
    const end = rnd.int(start, n);
    const step = rnd.pick([1, 1, 2, 3, -1, -2]);
    if (rnd.chance(0.04)) return [start, n + 2, step] as const;
    return [rnd.chance(0.2) ? start - n : start, end, step] as const;
  });
}

/** Applies a view of `kind` to `x`, its parameters drawn from `rnd` against `x`'s shape. */
export function applyView(c: Ctx, x: T, kind: ViewKind, rnd: Rng): T {
  return applyViewLoose(c, x, kind, rnd) as T;
}

function applyViewLoose(c: Ctx, x: T, kind: ViewKind, rnd: Rng): unknown {
  const shape = x.dims();
  const rank = shape.length;
  // Views that need a dim mostly skip rank 0 (the BurnError is still met now and then).
  if (
    rank === 0 &&
    kind !== 'slice' &&
    kind !== 'unsqueeze' &&
    kind !== 'reshape' &&
    kind !== 'expand' &&
    !rnd.chance(0.05)
  )
    return x;
  switch (kind) {
    case 'slice':
      return x.slice(sliceArgs(shape, rnd));
    case 'narrow': {
      const d = c.dim(rank, rnd);
      const n = shape[d < 0 ? d + rank : d] ?? 0;
      const start = rnd.int(0, n);
      return x.narrow(d, start, rnd.chance(0.05) ? n + 1 : rnd.int(0, n - start));
    }
    case 'permute':
      return x.permute(rnd.perm(rank));
    case 'swap':
      return x.swapDims(c.dim(rank, rnd), c.dim(rank, rnd));
    case 'transpose':
      return x.transpose();
    case 'flip':
      return x.flip(rnd.perm(rank).slice(0, rnd.int(0, rank)));
    case 'expand': {
      if (rank >= 5) return x;
      const target = shape.map((n) => (n === 1 ? rnd.pick([1, 2, 3, 0]) : rnd.chance(0.02) ? n + 1 : n));
      return x.expand(rnd.chance(0.4) ? [rnd.int(1, 3), ...target] : target);
    }
    case 'unsqueeze':
      return rank >= 5 ? x : x.unsqueezeDim(rnd.int(0, rank));
    case 'squeeze': {
      const ones = shape.flatMap((n, i) => (n === 1 ? [i] : []));
      if (ones.length === 0 && !rnd.chance(0.05)) return x;
      return x.squeezeDim(ones.length > 0 && !rnd.chance(0.05) ? rnd.pick(ones) : c.dim(rank, rnd));
    }
    case 'reshape': {
      const n = shape.reduce((a, b) => a * b, 1);
      if (rnd.chance(0.5) || rank === 0) return x.reshape([n]);
      if (rnd.chance(0.1)) return x.reshape([n + 1]);
      return x.flatten(0, rnd.int(0, rank - 1));
    }
  }
}

// --- ops ---

/** One op of the table. */
export interface OpDef {
  readonly name: string;
  /** The kinds of the current tensor the op applies to. */
  readonly kinds: readonly Kind[];
  /** The least rank the op accepts (lower ranks are tried rarely, for the BurnError). */
  readonly minRank?: number;
  readonly run: (c: Ctx, x: T, rnd: Rng) => Res | Promise<Res>;
}

const FLOAT: readonly Kind[] = ['float'];
const NUM: readonly Kind[] = ['float', 'int'];
const INT: readonly Kind[] = ['int'];
const BOOL: readonly Kind[] = ['bool'];
const ANY: readonly Kind[] = ['float', 'int', 'bool'];

const one = (out: unknown, cls: Cls, ins: readonly unknown[], extra: Partial<Res> = {}): Res => ({
  outs: [out],
  cls: [cls],
  ins,
  ...extra,
});

type FloatUnary =
  | 'exp'
  | 'log'
  | 'sqrt'
  | 'sin'
  | 'cos'
  | 'tanh'
  | 'sigmoid'
  | 'erf'
  | 'atan'
  | 'asinh'
  | 'recip'
  | 'relu'
  | 'gelu'
  | 'round'
  | 'floor'
  | 'ceil'
  | 'trunc';
const FLOAT_UNARY: readonly [FloatUnary, Cls][] = [
  ['exp', 'smooth'],
  ['log', 'singular'],
  ['sqrt', 'singular'],
  ['sin', 'smooth'],
  ['cos', 'smooth'],
  ['tanh', 'smooth'],
  ['sigmoid', 'smooth'],
  ['erf', 'smooth'],
  ['atan', 'smooth'],
  ['asinh', 'smooth'],
  ['recip', 'singular'],
  ['relu', 'exact'],
  ['gelu', 'smooth'],
  ['round', 'disc'],
  ['floor', 'disc'],
  ['ceil', 'disc'],
  ['trunc', 'disc'],
];

type NumBinary = 'add' | 'sub' | 'mul' | 'div' | 'remainder';
type Compare = 'equal' | 'notEqual' | 'greater' | 'greaterEqual' | 'lower' | 'lowerEqual';
const UPDATES: readonly IndexingUpdateOp[] = ['assign', 'add', 'mul', 'min', 'max'];
const updateCls = (u: IndexingUpdateOp, x: T): Cls =>
  (u === 'add' || u === 'mul') && kindOfDType(x.dtype()) === 'float' ? 'smooth' : 'exact';

const dimSize = (x: T, d: number) => x.dims()[d < 0 ? d + x.rank() : d] ?? 0;

/** The ops of programs. */
export const OPS: readonly OpDef[] = [
  // Three entries (smooth, singular and exact/discontinuous unary ops) so that they weigh like the other families.
  ...(['smooth', 'singular', 'other'] as const).map(
    (group): OpDef => ({
      name: `float unary (${group})`,
      kinds: FLOAT,
      run: (_c, x, r) => {
        const [name, cls] = r.pick(
          FLOAT_UNARY.filter(([, k]) => (group === 'other' ? k === 'exact' || k === 'disc' : k === group)),
        );
        return one(asF(x)[name](), cls, [x], { transcendental: cls === 'smooth' || cls === 'singular', detail: name });
      },
    }),
  ),
  {
    name: 'isNan/isInf/isFinite',
    kinds: FLOAT,
    run: (_c, x, r) => one(asF(x)[r.pick(['isNan', 'isInf', 'isFinite'] as const)](), 'disc', [x]),
  },
  {
    name: 'softmax',
    kinds: FLOAT,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      return one(r.chance(0.5) ? asF(x).softmax(d) : asF(x).logSoftmax(d), 'smooth', [x], {
        k: dimSize(x, d),
        transcendental: true,
      });
    },
  },
  {
    name: 'var',
    kinds: FLOAT,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      return one(r.chance(0.5) ? asF(x).var(d) : asF(x).varBias(d), 'smooth', [x], {
        k: dimSize(x, d),
        product: true,
        transcendental: true,
      });
    },
  },
  {
    name: 'powf',
    kinds: FLOAT,
    run: (c, x, r) => {
      if (r.chance(0.5)) return one(asF(x).powf(r.pick([0.5, 2, 3, -1, 0])), 'singular', [x], { transcendental: true });
      const y = asF(c.tensor(c.broadcastShape(x.dims(), r), x.dtype(), r));
      return one(asF(x).powf(y), 'singular', [x, y], { transcendental: true });
    },
  },
  {
    name: 'hypot/fmod',
    kinds: FLOAT,
    run: (c, x, r) => {
      const y = asF(c.tensor(c.broadcastShape(x.dims(), r), x.dtype(), r));
      return r.chance(0.5)
        ? one(asF(x).hypot(y), 'smooth', [x, y], { transcendental: true, detail: 'hypot' })
        : one(asF(x).fmod(y), 'singular', [x, y], { transcendental: true, detail: 'fmod' });
    },
  },
  {
    name: 'neg/abs/square',
    kinds: NUM,
    run: (_c, x, r) => one(asF(x)[r.pick(['neg', 'abs', 'square'] as const)](), 'exact', [x]),
  },
  { name: 'sign', kinds: NUM, run: (_c, x) => one(asF(x).sign(), 'disc', [x]) },
  {
    name: 'clamp',
    kinds: NUM,
    run: (c, x, r) => {
      const a = c.scalar(x.dtype(), r),
        b = c.scalar(x.dtype(), r);
      const v = r.int(0, 2);
      const out =
        v === 0
          ? asF(x).clamp(Math.min(a, b), r.chance(0.05) ? Math.min(a, b) - 1 : Math.max(a, b))
          : v === 1
            ? asF(x).clampMin(a)
            : asF(x).clampMax(a);
      return one(out, 'exact', [x]);
    },
  },
  {
    name: 'powi',
    kinds: NUM,
    run: (_c, x, r) => one(asF(x).powi(r.int(0, 3)), kindOfDType(x.dtype()) === 'float' ? 'smooth' : 'exact', [x]),
  },
  {
    name: 'binary',
    kinds: NUM,
    run: (c, x, r) => {
      const op = r.pick(['add', 'sub', 'mul', 'div', 'remainder'] as const satisfies readonly NumBinary[]);
      const float = kindOfDType(x.dtype()) === 'float';
      const cls: Cls = op === 'div' || op === 'remainder' ? (float ? 'singular' : 'exact') : 'exact';
      if (r.chance(0.3)) {
        const v = c.scalar(x.dtype(), r);
        return one(asF(x)[op](v), cls, [x], { detail: `${op} ${v}` });
      }
      const y = c.tensor(c.broadcastShape(x.dims(), r), c.operandDType(x.dtype(), r), r, c.program.special);
      if (r.chance(0.2)) return one(asF(y)[op](asF(x)), cls, [y, x], { product: op === 'mul', detail: op });
      return one(asF(x)[op](asF(y)), cls, [x, y], { product: op === 'mul', detail: op });
    },
  },
  {
    name: 'maxPair/minPair',
    kinds: NUM,
    run: (c, x, r) => {
      const y = c.tensor(x.dims(), x.dtype(), r, c.program.special);
      return one(r.chance(0.5) ? asF(x).maxPair(asF(y)) : asF(x).minPair(asF(y)), 'exact', [x, y]);
    },
  },
  {
    name: 'compare',
    kinds: NUM,
    run: (c, x, r) => {
      const op = r.pick([
        'equal',
        'notEqual',
        'greater',
        'greaterEqual',
        'lower',
        'lowerEqual',
      ] as const satisfies readonly Compare[]);
      if (r.chance(0.3)) {
        const v = c.scalar(x.dtype(), r);
        return one(asF(x)[op](v), 'disc', [x], { detail: `${op} ${v}` });
      }
      const y = c.tensor(c.broadcastShape(x.dims(), r), c.operandDType(x.dtype(), r), r, c.program.special);
      return one(asF(x)[op](asF(y)), 'disc', [x, y], { detail: op });
    },
  },
  {
    name: 'bitwise',
    kinds: INT,
    run: (c, x, r) => {
      const op = r.pick([
        'bitwiseAnd',
        'bitwiseOr',
        'bitwiseXor',
        'bitwiseLeftShift',
        'bitwiseRightShift',
        'bitwiseNot',
      ] as const);
      if (op === 'bitwiseNot') return one(asI(x).bitwiseNot(), 'exact', [x]);
      const shift = op === 'bitwiseLeftShift' || op === 'bitwiseRightShift';
      if (r.chance(0.4)) return one(asI(x)[op](shift ? r.int(0, 7) : c.scalar(x.dtype(), r)), 'exact', [x]);
      const yShape = c.broadcastShape(x.dims(), r);
      const y = shift ? c.ints(yShape, x.dtype(), 0, 7, r) : c.tensor(yShape, x.dtype(), r);
      return one(asI(x)[op](asI(y)), 'exact', [x, y]);
    },
  },
  {
    name: 'bool logic',
    kinds: BOOL,
    run: (c, x, r) => {
      const op = r.pick(['boolNot', 'boolAnd', 'boolOr', 'boolXor'] as const);
      if (op === 'boolNot') return one(asB(x).boolNot(), 'exact', [x]);
      const y = c.mask(c.broadcastShape(x.dims(), r), r);
      return one(asB(x)[op](asB(y)), 'exact', [x, y]);
    },
  },
  {
    name: 'any/all',
    kinds: ANY,
    run: (c, x, r) => {
      const v = r.int(0, 3),
        d = c.dim(x.rank(), r);
      return one(v === 0 ? x.any() : v === 1 ? x.all() : v === 2 ? x.anyDim(d) : x.allDim(d), 'disc', [x]);
    },
  },
  { name: 'bool()', kinds: NUM, run: (_c, x) => one(asF(x).bool(), 'disc', [x]) },
  {
    // Kind changes: floats to ints truncate and saturate (NaN included: a discontinuity), ints and bools to floats.
    name: 'int()/float()',
    kinds: ANY,
    run: (_c, x, r) => {
      const kind = kindOfDType(x.dtype());
      const intDType = r.pick(['i32', 'i64', 'u8'] as const);
      if (kind === 'float') return one(asF(x).int(intDType), 'disc', [x], { detail: `int(${intDType})` });
      if (kind === 'int') return one(asI(x).float(), 'exact', [x], { detail: 'float()' });
      return one(r.chance(0.5) ? asB(x).int(intDType) : asB(x).float(), 'exact', [x]);
    },
  },
  {
    name: 'reduce all',
    kinds: NUM,
    run: (_c, x, r) => {
      const op = r.pick(['sum', 'mean', 'max', 'min', 'maxAbs'] as const);
      return one(asF(x)[op](), op === 'sum' || op === 'mean' ? 'smooth' : 'exact', [x], { k: x.numel() });
    },
  },
  {
    name: 'reduce dim',
    kinds: NUM,
    minRank: 1,
    run: (c, x, r) => {
      const op = r.pick(['sumDim', 'meanDim', 'prodDim', 'maxDim', 'minDim', 'maxAbsDim'] as const);
      const d = c.dim(x.rank(), r);
      return one(asF(x)[op](d), op === 'maxDim' || op === 'minDim' || op === 'maxAbsDim' ? 'exact' : 'smooth', [x], {
        k: dimSize(x, d),
        power: op === 'prodDim',
      });
    },
  },
  {
    name: 'reduce dims',
    kinds: NUM,
    run: (c, x, r) => {
      const dims = r.perm(x.rank()).slice(0, r.int(0, x.rank()));
      if (r.chance(0.05)) dims.push(c.dim(x.rank(), r));
      const op = r.pick(['sumDims', 'meanDims', 'maxDims', 'minDims'] as const);
      const k = dims.reduce((a, d) => a * dimSize(x, d), 1);
      return one(asF(x)[op](dims), op === 'sumDims' || op === 'meanDims' ? 'smooth' : 'exact', [x], { k });
    },
  },
  {
    name: 'arg reduce',
    kinds: NUM,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const op = r.pick(['argmax', 'argmin', 'maxDimWithIndices', 'minDimWithIndices'] as const);
      if (op === 'argmax' || op === 'argmin') return one(asF(x)[op](d), 'index', [x], { ties: { input: x, dim: d } });
      const [v, i] = asF(x)[op](d);
      return { outs: [v, i], cls: ['exact', 'index'], ins: [x], ties: { input: x, dim: d } };
    },
  },
  {
    name: 'scan',
    kinds: NUM,
    minRank: 1,
    run: (c, x, r) => {
      const op = r.pick(['cumsum', 'cumprod', 'cummin', 'cummax'] as const);
      const d = c.dim(x.rank(), r);
      return one(asF(x)[op](d), op === 'cumsum' || op === 'cumprod' ? 'smooth' : 'exact', [x], {
        k: dimSize(x, d),
        power: op === 'cumprod',
      });
    },
  },
  {
    name: 'sort',
    kinds: NUM,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const op = r.pick([
        'sort',
        'sortDescending',
        'sortWithIndices',
        'sortDescendingWithIndices',
        'argsort',
        'topk',
        'topkWithIndices',
      ] as const);
      const ties = { input: x, dim: d };
      switch (op) {
        case 'sort':
        case 'sortDescending':
          return one(asF(x)[op](d), 'exact', [x]);
        case 'argsort':
          return one(asF(x).argsort(d), 'index', [x], { ties });
        case 'topk':
          return one(asF(x).topk(r.int(0, dimSize(x, d) + (r.chance(0.1) ? 1 : 0)), d), 'exact', [x]);
        case 'topkWithIndices': {
          const [v, i] = asF(x).topkWithIndices(r.int(0, dimSize(x, d)), d);
          return { outs: [v, i], cls: ['exact', 'index'], ins: [x], ties };
        }
        default: {
          const [v, i] = asF(x)[op](d);
          return { outs: [v, i], cls: ['exact', 'index'], ins: [x], ties };
        }
      }
    },
  },
  {
    name: 'matmul',
    kinds: NUM,
    minRank: 2,
    run: (c, x, r) => {
      const s = x.dims();
      const k = s[s.length - 1] ?? 1;
      const batch = s.slice(0, -2).map((n) => (r.chance(0.3) ? 1 : n));
      const yShape = [
        ...(r.chance(0.3) ? batch.slice(r.int(0, batch.length)) : batch),
        r.chance(0.03) ? k + 1 : k,
        r.int(0, 4),
      ];
      const y = c.tensor(yShape, c.operandDType(x.dtype(), r), r);
      return one(
        r.chance(0.2) && yShape.length >= 2
          ? asF(y.swapDims(-1, -2)).matmul(asF(x.swapDims(-1, -2)))
          : asF(x).matmul(asF(y)),
        'smooth',
        [x, y],
        { k, product: true },
      );
    },
  },
  {
    name: 'gather',
    kinds: ANY,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const shape = x.dims().map((n, i) => (i === dd ? r.int(0, 4) : r.int(Math.min(n, 1), n)));
      const idx = c.indices(shape, dimSize(x, d), r);
      return one(x.gather(d, asI(idx)), 'exact', [x, idx]);
    },
  },
  {
    name: 'select/take',
    kinds: ANY,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      if (r.chance(0.5)) {
        const idx = c.indices([r.int(0, 4)], dimSize(x, d), r);
        return one(x.select(d, asI(idx) as Tensor<1, Int>), 'exact', [x, idx]);
      }
      const idx = c.indices(
        Array.from({ length: r.int(0, 2) }, () => r.int(0, 3)),
        dimSize(x, d),
        r,
      );
      return one(x.take(d, asI(idx)), 'exact', [x, idx]);
    },
  },
  {
    name: 'scatter',
    kinds: NUM,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const update = r.pick(UPDATES);
      const n = dimSize(x, d);
      const shape = x.dims().map((s, i) => (i === dd ? r.int(0, n) : r.int(Math.min(s, 1), s)));
      // Unique along the scattered dim: move it last, draw, move it back.
      const idxT = c.indices([...shape.filter((_, i) => i !== dd), shape[dd] ?? 0], n, r, update === 'assign');
      const idx =
        x.rank() === 0
          ? idxT
          : idxT.permute([
              ...Array.from({ length: dd }, (_, i) => i),
              x.rank() - 1,
              ...Array.from({ length: x.rank() - 1 - dd }, (_, i) => dd + i),
            ]);
      const values = c.tensor(shape, x.dtype(), r);
      return one(x.scatter(d, asI(idx), values, update), updateCls(update, x), [x, values]);
    },
  },
  {
    name: 'selectAssign',
    kinds: NUM,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const update = r.pick(UPDATES);
      const n = dimSize(x, d);
      const m = update === 'assign' ? r.int(0, n) : r.int(0, 4);
      const idx = c.indices([m], n, r, update === 'assign');
      const values = c.tensor(
        x.dims().map((s, i) => (i === dd ? m : s)),
        x.dtype(),
        r,
      );
      return one(x.selectAssign(d, asI(idx) as Tensor<1, Int>, values, update), updateCls(update, x), [x, values]);
    },
  },
  {
    name: 'sliceAssign/sliceFill',
    kinds: ANY,
    run: (c, x, r) => {
      const args = sliceArgs(x.dims(), r);
      if (r.chance(0.4)) return one(x.sliceFill(args, c.scalar(x.dtype(), r)), 'exact', [x]);
      const region = x.slice(args).dims();
      const values = c.tensor(region, x.dtype(), r);
      return one(x.sliceAssign(args, values), 'exact', [x, values]);
    },
  },
  {
    name: 'mask',
    kinds: ANY,
    run: async (c, x, r) => {
      const mask = asB(c.mask(r.chance(0.95) ? x.dims() : c.broadcastShape(x.dims(), r), r));
      const v = r.int(0, 2);
      if (v === 0) return one(x.maskFill(mask, c.scalar(x.dtype(), r)), 'exact', [x, mask]);
      if (v === 1) {
        const value = c.tensor(x.dims(), x.dtype(), r);
        return one(x.maskWhere(mask, value), 'exact', [x, mask, value]);
      }
      return one(await x.maskSelectAsync(mask), 'exact', [x, mask]);
    },
  },
  {
    name: 'cat/stack',
    kinds: ANY,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const cat = x.rank() > 0 && r.chance(0.5);
      const others = Array.from({ length: r.int(1, 2) }, () =>
        c.tensor(
          cat && r.chance(0.5) ? x.dims().map((s, i) => (i === dd ? r.int(0, 3) : s)) : x.dims(),
          c.operandDType(x.dtype(), r),
          r,
        ),
      );
      if (cat) return one(Tensor.cat([x, ...others], d), 'exact', [x, ...others]);
      const sd = r.int(-x.rank() - 1, x.rank());
      return one(Tensor.stack([x, ...others], sd), 'exact', [x, ...others]);
    },
  },
  {
    name: 'repeat/roll/flip',
    kinds: ANY,
    run: (c, x, r) => {
      const v = r.int(0, 3);
      if (v === 0) return one(x.repeat(x.dims().map(() => r.int(0, 2))), 'exact', [x]);
      if (v === 1) return one(x.repeatDim(c.dim(x.rank(), r), r.int(0, 3)), 'exact', [x]);
      if (v === 2) {
        const dims = r.perm(x.rank()).slice(0, r.int(0, x.rank()));
        return one(
          x.roll(
            dims.map(() => r.int(-7, 7)),
            dims,
          ),
          'exact',
          [x],
        );
      }
      return one(x.flip(r.perm(x.rank()).slice(0, r.int(0, x.rank()))), 'exact', [x]);
    },
  },
  {
    name: 'gatherNd/scatterNd',
    kinds: ANY,
    minRank: 1,
    run: (c, x, r) => {
      const s = x.dims();
      const k = r.chance(0.05) ? r.pick([0, s.length + 1]) : r.int(1, s.length);
      const lead = Array.from({ length: r.int(0, 2) }, () => r.int(0, 3));
      // One index tensor per addressed dim, stacked into [..., k] (each column within its dim's bound).
      const cols = Array.from({ length: k }, (_, j) => c.indices([...lead, 1], s[j] ?? 1, r));
      const idx = cols.length > 0 ? Tensor.cat(cols, lead.length) : c.indices([...lead, 0], 1, r);
      if (r.chance(0.5) || kindOfDType(x.dtype()) === 'bool') return one(x.gatherNd(asI(idx)), 'exact', [x, idx]);
      const update = r.pick(UPDATES.filter((u) => u !== 'assign'));
      const values = c.tensor([...lead, ...s.slice(k)], x.dtype(), r);
      return one(x.scatterNd(asI(idx), values, update), updateCls(update, x), [x, values]);
    },
  },
  {
    name: 'nonzero/argwhere',
    kinds: BOOL,
    run: async (_c, x, r) => {
      if (r.chance(0.5)) return one(await asB(x).argwhereAsync(), 'exact', [x]);
      const outs = await asB(x).nonzeroAsync();
      return { outs, cls: ['exact'], ins: [x] };
    },
  },
  {
    name: 'median',
    kinds: FLOAT,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      if (r.chance(0.5)) return one(asF(x).median(d), 'exact', [x]);
      const [v, i] = asF(x).medianWithIndices(d);
      return { outs: [v, i], cls: ['exact', 'index'], ins: [x], ties: { input: x, dim: d } };
    },
  },
  {
    name: 'dot/cross',
    kinds: FLOAT,
    minRank: 1,
    run: (c, x, r) => {
      if (x.rank() === 1 && r.chance(0.5)) {
        const y = c.tensor(x.dims(), x.dtype(), r);
        return one((asF(x) as Tensor<1, Float>).dot(asF(y) as Tensor<1, Float>), 'smooth', [x, y], {
          k: x.numel(),
          product: true,
        });
      }
      const threes = x.dims().flatMap((n, i) => (n === 3 ? [i] : []));
      const d = threes.length > 0 ? r.pick(threes) : c.dim(x.rank(), r);
      const y = c.tensor(c.broadcastShape(x.dims(), r), x.dtype(), r);
      return one(asF(x).cross(asF(y), d), 'smooth', [x, y], { k: 2, product: true });
    },
  },
  {
    name: 'triu/tril',
    kinds: NUM,
    minRank: 2,
    run: (_c, x, r) => one(r.chance(0.5) ? asF(x).triu(r.int(-3, 3)) : asF(x).tril(r.int(-3, 3)), 'exact', [x]),
  },
  {
    name: 'chunk/split',
    kinds: ANY,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const outs = r.chance(0.5) ? x.chunk(r.int(1, 4), d) : x.split(r.int(1, 3), d);
      return { outs, cls: ['exact'], ins: [x] };
    },
  },
  {
    name: 'pad',
    kinds: NUM,
    run: (c, x, r) => {
      const pairs = Array.from({ length: r.int(0, Math.min(2, x.rank())) }, () => [r.int(0, 2), r.int(0, 2)] as const);
      const mode = r.pick([c.scalar(x.dtype(), r), 'edge', 'reflect'] as const);
      return one(x.pad(pairs, mode), 'exact', [x]);
    },
  },
  {
    name: 'unfold',
    kinds: ANY,
    minRank: 1,
    run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const n = dimSize(x, d);
      return one(
        x.unfold(d, r.chance(0.05) ? r.pick([0, n + 1]) : r.int(1, Math.max(1, n)), r.chance(0.03) ? 0 : r.int(1, 2)),
        'exact',
        [x],
      );
    },
  },
  {
    name: 'oneHot',
    kinds: INT,
    run: (c, x, r) => {
      // Class indices must lie in [-numClasses, numClasses); programs with out-of-range indices sometimes break that.
      const classes = c.program.oob && r.chance(0.5) ? r.int(1, 6) : r.int(21, 25);
      return one(asI(x).oneHot(classes), 'exact', [x]);
    },
  },
  {
    name: 'cast',
    kinds: ANY,
    run: (_c, x, r) => {
      const from = kindOfDType(x.dtype());
      // cast() keeps the kind (int()/float()/bool() change it): other kinds only rarely.
      const to = r.pick(FUZZ_DTYPES.filter((d) => kindOfDType(d) === from || r.chance(0.02)));
      // Floats to ints and anything to bool are discontinuous; widening and float-to-float casts are exact.
      const cls: Cls = from === 'float' && kindOfDType(to) !== 'float' ? 'disc' : to === 'bool' ? 'disc' : 'exact';
      return one(x.cast(to), cls, [x]);
    },
  },
  { name: 'view', kinds: ANY, run: (c, x, r) => one(applyView(c, x, r.pick(VIEW_KINDS), r), 'exact', [x]) },
];
