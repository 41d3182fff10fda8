// Random tensor programs for the differential fuzz suite: an input tensor (random shape, dtype,
// values and a chain of views over it) followed by 1-3 ops drawn from the tensor API, each
// resolved against the shapes it meets at run time by a seeded PRNG (so one generated program
// means the same calls on every device). Running a program on a device gives its outcome: the
// values of every op's outputs, or the error it threw. On the `js` oracle the run also records how
// each output may be compared (exactly, within a tolerance, or not at all when a discontinuous op
// met inexact values) — see `Stability`.
import fc from 'fast-check';
import { BurnError, Tensor, TensorData, type Bool, type Device, type DType, type Float, type Int, type Kind } from '../../src/index.js';
import type { IndexingUpdateOp, SliceArg } from '../../src/index.js';
import { Rng } from './arbitraries.js';

/** The dtypes programs use. */
export const FUZZ_DTYPES = ['f32', 'f64', 'f16', 'bf16', 'i32', 'i64', 'u8', 'bool'] as const;
/** A dtype of a program. */
export type FuzzDType = (typeof FUZZ_DTYPES)[number];

/** The view kinds applied to a program's input before its ops. */
export const VIEW_KINDS = ['slice', 'narrow', 'permute', 'swap', 'transpose', 'flip', 'expand', 'unsqueeze', 'squeeze', 'reshape'] as const;
type ViewKind = (typeof VIEW_KINDS)[number];

/** A generated program. */
export interface Program {
  readonly shape: readonly number[];
  readonly dtype: FuzzDType;
  /** Seeds the input's values. */
  readonly seed: number;
  /** NaN, ±inf, -0, extreme ints among the values. */
  readonly special: boolean;
  readonly views: readonly ViewKind[];
  /** Seeds the views' parameters. */
  readonly viewSeed: number;
  /** The ops: `pick` chooses among the ops that fit the current tensor's kind, `seed` their parameters. */
  readonly steps: readonly { readonly pick: number; readonly seed: number }[];
  /** Index tensors may hold out-of-range values. */
  readonly oob: boolean;
}

const dim = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 5 }), weight: 8 }, { arbitrary: fc.constant(0), weight: 1 });

/** Random programs: rank 0-4, dims 0-5 (zero-size included), every fuzz dtype, 0-3 views, 1-3 ops. */
export function programArb(): fc.Arbitrary<Program> {
  return fc.record({
    // Mostly dims 0-5; now and then one longer dim (past SIMD widths, workgroup sizes, thread splits).
    shape: fc.tuple(fc.array(dim, { minLength: 0, maxLength: 4 }), fc.nat({ max: 9 }), fc.constantFrom(16, 17, 31, 33, 64, 65, 129, 257)).map(([s, k, big]) =>
      k === 0 && s.length > 0 ? s.map((n, i) => (i === s.length - 1 ? big : Math.min(n, 3))) : s,
    ),
    dtype: fc.oneof({ arbitrary: fc.constant('f32' as const), weight: 3 }, { arbitrary: fc.constantFrom(...FUZZ_DTYPES), weight: 7 }),
    seed: fc.nat(),
    special: fc.nat({ max: 5 }).map((v) => v === 0),
    views: fc.array(fc.constantFrom(...VIEW_KINDS), { maxLength: 3 }),
    viewSeed: fc.nat(),
    steps: fc.array(fc.record({ pick: fc.nat(), seed: fc.nat() }), { minLength: 1, maxLength: 3 }),
    oob: fc.nat({ max: 4 }).map((v) => v === 0),
  });
}

// --- outcomes ---

/**
 * How an output compares across devices: `exact` (bit-for-bit up to NaN payload and the sign of
 * zero), `approx` (floats within a tolerance scaled by `mag`, the magnitude of what was summed),
 * `unstable` (a discontinuous op — floor, compare, argmax, cast to int, ... — met approximate
 * values, or an index output met ties: only dtype and shape must agree).
 */
export type Stability = 'exact' | 'approx' | 'unstable';

/** One output of a run. */
export interface Output {
  readonly label: string;
  readonly data: TensorData;
}

/** What the oracle knows about one output. */
export interface OutputMeta {
  readonly stability: Stability;
  /** The absolute error an accumulation upstream may have made (0 when only elementwise ops ran). */
  readonly mag: number;
  /** Produced by a transcendental or other non-correctly-rounded op somewhere upstream (WebGPU's WGSL precision applies). */
  readonly transcendental: boolean;
  /**
   * A non-exact op (transcendental, division, accumulation) met a NaN, an infinity, or a magnitude
   * beyond 1e30 or below 1e-30 upstream: WGSL leaves such results unspecified (no IEEE special
   * values, subnormals may flush), so WebGPU does not compare these values.
   */
  readonly special: boolean;
}

/** The outcome of a program on one device. */
export type Outcome =
  | { readonly kind: 'ok'; readonly outputs: Output[]; readonly metas: OutputMeta[]; readonly oobUsed: boolean; readonly trace: string[] }
  | { readonly kind: 'burn'; readonly error: BurnError; readonly oobUsed: boolean; readonly trace: string[] }
  | { readonly kind: 'other'; readonly error: unknown; readonly oobUsed: boolean; readonly trace: string[] };

// --- values ---

type T = Tensor<number, Kind>;
type F = Tensor<number, Float>;
type I = Tensor<number, Int>;
type B = Tensor<number, Bool>;
const asF = (t: T) => t as unknown as F;
const asI = (t: T) => t as unknown as I;
const asB = (t: T) => t as unknown as B;
const kindOfDType = (d: DType): Kind => (d === 'bool' ? 'bool' : d[0] === 'f' || d === 'bf16' ? 'float' : 'int');

const FLOAT_SPECIALS = [NaN, Infinity, -Infinity, -0, 0, 65504, 1e-6, 3e38, -3e38];

/** Values of a dtype: k/64 in [-8, 8] for floats (sums of them stay exact), small ints, 0/1 bools; specials when asked. */
export function genValues(n: number, dtype: DType, rnd: Rng, special: boolean): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const sp = special && rnd.chance(0.15);
    switch (kindOfDType(dtype)) {
      case 'float': out[i] = sp ? rnd.pick(FLOAT_SPECIALS) : rnd.int(-512, 512) / 64; break;
      case 'bool': out[i] = rnd.int(0, 1); break;
      default:
        if (dtype === 'u8') out[i] = sp ? rnd.pick([0, 255, 128]) : rnd.int(0, 40);
        else out[i] = sp ? rnd.pick([2147483647, -2147483648, -1, 0]) : rnd.int(-20, 20);
    }
  }
  return out;
}

/** True when `data` holds a NaN, an infinity, or a magnitude beyond 1e30 or below 1e-30 (zero aside). */
function hasSpecial(data: TensorData): boolean {
  if (data.dtype === 'bool' || kindOfDType(data.dtype) === 'int') return false;
  for (const v of data.toArray()) {
    const a = Math.abs(v);
    if (!(a <= 1e30) || (a !== 0 && a < 1e-30)) return true;
  }
  return false;
}

function maxAbsFinite(data: TensorData): number {
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

interface Meta {
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
type Cls = 'exact' | 'smooth' | 'singular' | 'disc' | 'index';

/** One op's results with what the oracle needs to classify them. */
interface Res {
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
  /** Index outputs are unstable when `input` has ties (or NaN) along `dim`. */
  readonly ties?: { readonly input: unknown; readonly dim: number };
  readonly transcendental?: boolean;
  /** What was called, for the trace (`div`, `sortDescending`, ...). */
  readonly detail?: string;
}

class Ctx {
  oobUsed = false;
  readonly trace: string[] = [];
  readonly metas = new Map<T, Meta>();
  constructor(readonly device: Device, readonly program: Program, readonly oracle: boolean) {}

  /** A contiguous tensor of `shape` with generated values. */
  tensor(shape: readonly number[], dtype: DType, rnd: Rng, special = false): T {
    const data = new TensorData(genValues(shape.reduce((a, b) => a * b, 1), dtype, rnd, special), shape, dtype);
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
    const t = Tensor.fromData<number, Kind>(new TensorData(values.map((v) => v ?? 0), shape, dtype), this.device);
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

function applyView(c: Ctx, x: T, kind: ViewKind, rnd: Rng): T {
  return applyViewLoose(c, x, kind, rnd) as T;
}

function applyViewLoose(c: Ctx, x: T, kind: ViewKind, rnd: Rng): unknown {
  const shape = x.dims();
  const rank = shape.length;
  // Views that need a dim mostly skip rank 0 (the BurnError is still met now and then).
  if (rank === 0 && kind !== 'slice' && kind !== 'unsqueeze' && kind !== 'reshape' && kind !== 'expand' && !rnd.chance(0.05)) return x;
  switch (kind) {
    case 'slice': return x.slice(sliceArgs(shape, rnd));
    case 'narrow': {
      const d = c.dim(rank, rnd);
      const n = shape[d < 0 ? d + rank : d] ?? 0;
      const start = rnd.int(0, n);
      return x.narrow(d, start, rnd.chance(0.05) ? n + 1 : rnd.int(0, n - start));
    }
    case 'permute': return x.permute(rnd.perm(rank));
    case 'swap': return x.swapDims(c.dim(rank, rnd), c.dim(rank, rnd));
    case 'transpose': return x.transpose();
    case 'flip': return x.flip(rnd.perm(rank).slice(0, rnd.int(0, rank)));
    case 'expand': {
      if (rank >= 5) return x;
      const target = shape.map((n) => (n === 1 ? rnd.pick([1, 2, 3, 0]) : rnd.chance(0.02) ? n + 1 : n));
      return x.expand(rnd.chance(0.4) ? [rnd.int(1, 3), ...target] : target);
    }
    case 'unsqueeze': return rank >= 5 ? x : x.unsqueezeDim(rnd.int(0, rank));
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
interface OpDef {
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

const one = (out: unknown, cls: Cls, ins: readonly unknown[], extra: Partial<Res> = {}): Res => ({ outs: [out], cls: [cls], ins, ...extra });

type FloatUnary = 'exp' | 'log' | 'sqrt' | 'sin' | 'cos' | 'tanh' | 'sigmoid' | 'erf' | 'atan' | 'asinh' | 'recip' | 'relu' | 'gelu' | 'round' | 'floor' | 'ceil' | 'trunc';
const FLOAT_UNARY: readonly [FloatUnary, Cls][] = [
  ['exp', 'smooth'], ['log', 'singular'], ['sqrt', 'singular'], ['sin', 'smooth'], ['cos', 'smooth'], ['tanh', 'smooth'],
  ['sigmoid', 'smooth'], ['erf', 'smooth'], ['atan', 'smooth'], ['asinh', 'smooth'], ['recip', 'singular'], ['relu', 'exact'],
  ['gelu', 'smooth'], ['round', 'disc'], ['floor', 'disc'], ['ceil', 'disc'], ['trunc', 'disc'],
];

type NumBinary = 'add' | 'sub' | 'mul' | 'div' | 'remainder';
type Compare = 'equal' | 'notEqual' | 'greater' | 'greaterEqual' | 'lower' | 'lowerEqual';
const UPDATES: readonly IndexingUpdateOp[] = ['assign', 'add', 'mul', 'min', 'max'];
const updateCls = (u: IndexingUpdateOp, x: T): Cls => ((u === 'add' || u === 'mul') && kindOfDType(x.dtype()) === 'float' ? 'smooth' : 'exact');

const dimSize = (x: T, d: number) => x.dims()[d < 0 ? d + x.rank() : d] ?? 0;

const OPS: readonly OpDef[] = [
  // Three entries (smooth, singular and exact/discontinuous unary ops) so that they weigh like the other families.
  ...(['smooth', 'singular', 'other'] as const).map((group): OpDef => ({
    name: `float unary (${group})`, kinds: FLOAT,
    run: (_c, x, r) => {
      const [name, cls] = r.pick(FLOAT_UNARY.filter(([, k]) => (group === 'other' ? k === 'exact' || k === 'disc' : k === group)));
      return one(asF(x)[name](), cls, [x], { transcendental: cls === 'smooth' || cls === 'singular', detail: name });
    },
  })),
  { name: 'isNan/isInf/isFinite', kinds: FLOAT, run: (_c, x, r) => one(asF(x)[r.pick(['isNan', 'isInf', 'isFinite'] as const)](), 'disc', [x]) },
  {
    name: 'softmax', kinds: FLOAT, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      return one(r.chance(0.5) ? asF(x).softmax(d) : asF(x).logSoftmax(d), 'smooth', [x], { k: dimSize(x, d), transcendental: true });
    },
  },
  { name: 'var', kinds: FLOAT, minRank: 1, run: (c, x, r) => { const d = c.dim(x.rank(), r); return one(r.chance(0.5) ? asF(x).var(d) : asF(x).varBias(d), 'smooth', [x], { k: dimSize(x, d), product: true, transcendental: true }); } },
  {
    name: 'powf', kinds: FLOAT, run: (c, x, r) => {
      if (r.chance(0.5)) return one(asF(x).powf(r.pick([0.5, 2, 3, -1, 0])), 'singular', [x], { transcendental: true });
      const y = asF(c.tensor(c.broadcastShape(x.dims(), r), x.dtype(), r));
      return one(asF(x).powf(y), 'singular', [x, y], { transcendental: true });
    },
  },
  {
    name: 'hypot/fmod', kinds: FLOAT, run: (c, x, r) => {
      const y = asF(c.tensor(c.broadcastShape(x.dims(), r), x.dtype(), r));
      return r.chance(0.5) ? one(asF(x).hypot(y), 'smooth', [x, y], { transcendental: true, detail: 'hypot' }) : one(asF(x).fmod(y), 'singular', [x, y], { transcendental: true, detail: 'fmod' });
    },
  },
  { name: 'neg/abs/square', kinds: NUM, run: (_c, x, r) => one(asF(x)[r.pick(['neg', 'abs', 'square'] as const)](), 'exact', [x]) },
  { name: 'sign', kinds: NUM, run: (_c, x) => one(asF(x).sign(), 'disc', [x]) },
  {
    name: 'clamp', kinds: NUM, run: (c, x, r) => {
      const a = c.scalar(x.dtype(), r), b = c.scalar(x.dtype(), r);
      const v = r.int(0, 2);
      const out = v === 0 ? asF(x).clamp(Math.min(a, b), r.chance(0.05) ? Math.min(a, b) - 1 : Math.max(a, b)) : v === 1 ? asF(x).clampMin(a) : asF(x).clampMax(a);
      return one(out, 'exact', [x]);
    },
  },
  { name: 'powi', kinds: NUM, run: (_c, x, r) => one(asF(x).powi(r.int(0, 3)), kindOfDType(x.dtype()) === 'float' ? 'smooth' : 'exact', [x]) },
  {
    name: 'binary', kinds: NUM, run: (c, x, r) => {
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
    name: 'maxPair/minPair', kinds: NUM, run: (c, x, r) => {
      const y = c.tensor(x.dims(), x.dtype(), r, c.program.special);
      return one(r.chance(0.5) ? asF(x).maxPair(asF(y)) : asF(x).minPair(asF(y)), 'exact', [x, y]);
    },
  },
  {
    name: 'compare', kinds: NUM, run: (c, x, r) => {
      const op = r.pick(['equal', 'notEqual', 'greater', 'greaterEqual', 'lower', 'lowerEqual'] as const satisfies readonly Compare[]);
      if (r.chance(0.3)) {
        const v = c.scalar(x.dtype(), r);
        return one(asF(x)[op](v), 'disc', [x], { detail: `${op} ${v}` });
      }
      const y = c.tensor(c.broadcastShape(x.dims(), r), c.operandDType(x.dtype(), r), r, c.program.special);
      return one(asF(x)[op](asF(y)), 'disc', [x, y], { detail: op });
    },
  },
  {
    name: 'bitwise', kinds: INT, run: (c, x, r) => {
      const op = r.pick(['bitwiseAnd', 'bitwiseOr', 'bitwiseXor', 'bitwiseLeftShift', 'bitwiseRightShift', 'bitwiseNot'] as const);
      if (op === 'bitwiseNot') return one(asI(x).bitwiseNot(), 'exact', [x]);
      const shift = op === 'bitwiseLeftShift' || op === 'bitwiseRightShift';
      if (r.chance(0.4)) return one(asI(x)[op](shift ? r.int(0, 7) : c.scalar(x.dtype(), r)), 'exact', [x]);
      const yShape = c.broadcastShape(x.dims(), r);
      const y = shift ? c.ints(yShape, x.dtype(), 0, 7, r) : c.tensor(yShape, x.dtype(), r);
      return one(asI(x)[op](asI(y)), 'exact', [x, y]);
    },
  },
  {
    name: 'bool logic', kinds: BOOL, run: (c, x, r) => {
      const op = r.pick(['boolNot', 'boolAnd', 'boolOr', 'boolXor'] as const);
      if (op === 'boolNot') return one(asB(x).boolNot(), 'exact', [x]);
      const y = c.mask(c.broadcastShape(x.dims(), r), r);
      return one(asB(x)[op](asB(y)), 'exact', [x, y]);
    },
  },
  { name: 'any/all', kinds: ANY, run: (c, x, r) => { const v = r.int(0, 3), d = c.dim(x.rank(), r); return one(v === 0 ? x.any() : v === 1 ? x.all() : v === 2 ? x.anyDim(d) : x.allDim(d), 'disc', [x]); } },
  { name: 'bool()', kinds: NUM, run: (_c, x) => one(asF(x).bool(), 'disc', [x]) },
  {
    // Kind changes: floats to ints truncate and saturate (NaN included: a discontinuity), ints and bools to floats.
    name: 'int()/float()', kinds: ANY, run: (_c, x, r) => {
      const kind = kindOfDType(x.dtype());
      const intDType = r.pick(['i32', 'i64', 'u8'] as const);
      if (kind === 'float') return one(asF(x).int(intDType), 'disc', [x], { detail: `int(${intDType})` });
      if (kind === 'int') return one(asI(x).float(), 'exact', [x], { detail: 'float()' });
      return one(r.chance(0.5) ? asB(x).int(intDType) : asB(x).float(), 'exact', [x]);
    },
  },
  {
    name: 'reduce all', kinds: NUM, run: (_c, x, r) => {
      const op = r.pick(['sum', 'mean', 'max', 'min', 'maxAbs'] as const);
      return one(asF(x)[op](), op === 'sum' || op === 'mean' ? 'smooth' : 'exact', [x], { k: x.numel() });
    },
  },
  {
    name: 'reduce dim', kinds: NUM, minRank: 1, run: (c, x, r) => {
      const op = r.pick(['sumDim', 'meanDim', 'prodDim', 'maxDim', 'minDim', 'maxAbsDim'] as const);
      const d = c.dim(x.rank(), r);
      return one(asF(x)[op](d), op === 'maxDim' || op === 'minDim' || op === 'maxAbsDim' ? 'exact' : 'smooth', [x], { k: dimSize(x, d), product: op === 'prodDim' });
    },
  },
  {
    name: 'reduce dims', kinds: NUM, run: (c, x, r) => {
      const dims = r.perm(x.rank()).slice(0, r.int(0, x.rank()));
      if (r.chance(0.05)) dims.push(c.dim(x.rank(), r));
      const op = r.pick(['sumDims', 'meanDims', 'maxDims', 'minDims'] as const);
      const k = dims.reduce((a, d) => a * dimSize(x, d), 1);
      return one(asF(x)[op](dims), op === 'sumDims' || op === 'meanDims' ? 'smooth' : 'exact', [x], { k });
    },
  },
  {
    name: 'arg reduce', kinds: NUM, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const op = r.pick(['argmax', 'argmin', 'maxDimWithIndices', 'minDimWithIndices'] as const);
      if (op === 'argmax' || op === 'argmin') return one(asF(x)[op](d), 'index', [x], { ties: { input: x, dim: d } });
      const [v, i] = asF(x)[op](d);
      return { outs: [v, i], cls: ['exact', 'index'], ins: [x], ties: { input: x, dim: d } };
    },
  },
  {
    name: 'scan', kinds: NUM, minRank: 1, run: (c, x, r) => {
      const op = r.pick(['cumsum', 'cumprod', 'cummin', 'cummax'] as const);
      const d = c.dim(x.rank(), r);
      return one(asF(x)[op](d), op === 'cumsum' || op === 'cumprod' ? 'smooth' : 'exact', [x], { k: dimSize(x, d), product: op === 'cumprod' });
    },
  },
  {
    name: 'sort', kinds: NUM, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const op = r.pick(['sort', 'sortDescending', 'sortWithIndices', 'sortDescendingWithIndices', 'argsort', 'topk', 'topkWithIndices'] as const);
      const ties = { input: x, dim: d };
      switch (op) {
        case 'sort': case 'sortDescending': return one(asF(x)[op](d), 'exact', [x]);
        case 'argsort': return one(asF(x).argsort(d), 'index', [x], { ties });
        case 'topk': return one(asF(x).topk(r.int(0, dimSize(x, d) + (r.chance(0.1) ? 1 : 0)), d), 'exact', [x]);
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
    name: 'matmul', kinds: NUM, minRank: 2, run: (c, x, r) => {
      const s = x.dims();
      const k = s[s.length - 1] ?? 1;
      const batch = s.slice(0, -2).map((n) => (r.chance(0.3) ? 1 : n));
      const yShape = [...(r.chance(0.3) ? batch.slice(r.int(0, batch.length)) : batch), r.chance(0.03) ? k + 1 : k, r.int(0, 4)];
      const y = c.tensor(yShape, c.operandDType(x.dtype(), r), r);
      return one(r.chance(0.2) && yShape.length >= 2 ? asF(y.swapDims(-1, -2)).matmul(asF(x.swapDims(-1, -2))) : asF(x).matmul(asF(y)), 'smooth', [x, y], { k, product: true });
    },
  },
  {
    name: 'gather', kinds: ANY, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const shape = x.dims().map((n, i) => (i === dd ? r.int(0, 4) : r.int(Math.min(n, 1), n)));
      const idx = c.indices(shape, dimSize(x, d), r);
      return one(x.gather(d, asI(idx)), 'exact', [x, idx]);
    },
  },
  {
    name: 'select/take', kinds: ANY, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      if (r.chance(0.5)) {
        const idx = c.indices([r.int(0, 4)], dimSize(x, d), r);
        return one(x.select(d, asI(idx) as Tensor<1, Int>), 'exact', [x, idx]);
      }
      const idx = c.indices(Array.from({ length: r.int(0, 2) }, () => r.int(0, 3)), dimSize(x, d), r);
      return one(x.take(d, asI(idx)), 'exact', [x, idx]);
    },
  },
  {
    name: 'scatter', kinds: NUM, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const update = r.pick(UPDATES);
      const n = dimSize(x, d);
      const shape = x.dims().map((s, i) => (i === dd ? r.int(0, n) : r.int(Math.min(s, 1), s)));
      // Unique along the scattered dim: move it last, draw, move it back.
      const idxT = c.indices([...shape.filter((_, i) => i !== dd), shape[dd] ?? 0], n, r, update === 'assign');
      const idx = x.rank() === 0 ? idxT : idxT.permute([...Array.from({ length: dd }, (_, i) => i), x.rank() - 1, ...Array.from({ length: x.rank() - 1 - dd }, (_, i) => dd + i)]);
      const values = c.tensor(shape, x.dtype(), r);
      return one(x.scatter(d, asI(idx), values, update), updateCls(update, x), [x, values]);
    },
  },
  {
    name: 'selectAssign', kinds: NUM, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const update = r.pick(UPDATES);
      const n = dimSize(x, d);
      const m = update === 'assign' ? r.int(0, n) : r.int(0, 4);
      const idx = c.indices([m], n, r, update === 'assign');
      const values = c.tensor(x.dims().map((s, i) => (i === dd ? m : s)), x.dtype(), r);
      return one(x.selectAssign(d, asI(idx) as Tensor<1, Int>, values, update), updateCls(update, x), [x, values]);
    },
  },
  {
    name: 'sliceAssign/sliceFill', kinds: ANY, run: (c, x, r) => {
      const args = sliceArgs(x.dims(), r);
      if (r.chance(0.4)) return one(x.sliceFill(args, c.scalar(x.dtype(), r)), 'exact', [x]);
      const region = x.slice(args).dims();
      const values = c.tensor(region, x.dtype(), r);
      return one(x.sliceAssign(args, values), 'exact', [x, values]);
    },
  },
  {
    name: 'mask', kinds: ANY, run: async (c, x, r) => {
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
    name: 'cat/stack', kinds: ANY, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const dd = d < 0 ? d + x.rank() : d;
      const cat = x.rank() > 0 && r.chance(0.5);
      const others = Array.from({ length: r.int(1, 2) }, () => c.tensor(cat && r.chance(0.5) ? x.dims().map((s, i) => (i === dd ? r.int(0, 3) : s)) : x.dims(), c.operandDType(x.dtype(), r), r));
      if (cat) return one(Tensor.cat([x, ...others], d), 'exact', [x, ...others]);
      const sd = r.int(-x.rank() - 1, x.rank());
      return one(Tensor.stack([x, ...others], sd), 'exact', [x, ...others]);
    },
  },
  {
    name: 'repeat/roll/flip', kinds: ANY, run: (c, x, r) => {
      const v = r.int(0, 3);
      if (v === 0) return one(x.repeat(x.dims().map(() => r.int(0, 2))), 'exact', [x]);
      if (v === 1) return one(x.repeatDim(c.dim(x.rank(), r), r.int(0, 3)), 'exact', [x]);
      if (v === 2) {
        const dims = r.perm(x.rank()).slice(0, r.int(0, x.rank()));
        return one(x.roll(dims.map(() => r.int(-7, 7)), dims), 'exact', [x]);
      }
      return one(x.flip(r.perm(x.rank()).slice(0, r.int(0, x.rank()))), 'exact', [x]);
    },
  },
  {
    name: 'gatherNd/scatterNd', kinds: ANY, minRank: 1, run: (c, x, r) => {
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
    name: 'nonzero/argwhere', kinds: BOOL, run: async (_c, x, r) => {
      if (r.chance(0.5)) return one(await asB(x).argwhereAsync(), 'exact', [x]);
      const outs = await asB(x).nonzeroAsync();
      return { outs, cls: ['exact'], ins: [x] };
    },
  },
  {
    name: 'median', kinds: FLOAT, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      if (r.chance(0.5)) return one(asF(x).median(d), 'exact', [x]);
      const [v, i] = asF(x).medianWithIndices(d);
      return { outs: [v, i], cls: ['exact', 'index'], ins: [x], ties: { input: x, dim: d } };
    },
  },
  {
    name: 'dot/cross', kinds: FLOAT, minRank: 1, run: (c, x, r) => {
      if (x.rank() === 1 && r.chance(0.5)) {
        const y = c.tensor(x.dims(), x.dtype(), r);
        return one((asF(x) as Tensor<1, Float>).dot(asF(y) as Tensor<1, Float>), 'smooth', [x, y], { k: x.numel(), product: true });
      }
      const threes = x.dims().flatMap((n, i) => (n === 3 ? [i] : []));
      const d = threes.length > 0 ? r.pick(threes) : c.dim(x.rank(), r);
      const y = c.tensor(c.broadcastShape(x.dims(), r), x.dtype(), r);
      return one(asF(x).cross(asF(y), d), 'smooth', [x, y], { k: 2, product: true });
    },
  },
  { name: 'triu/tril', kinds: NUM, minRank: 2, run: (_c, x, r) => one(r.chance(0.5) ? asF(x).triu(r.int(-3, 3)) : asF(x).tril(r.int(-3, 3)), 'exact', [x]) },
  {
    name: 'chunk/split', kinds: ANY, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const outs = r.chance(0.5) ? x.chunk(r.int(1, 4), d) : x.split(r.int(1, 3), d);
      return { outs, cls: ['exact'], ins: [x] };
    },
  },
  {
    name: 'pad', kinds: NUM, run: (c, x, r) => {
      const pairs = Array.from({ length: r.int(0, Math.min(2, x.rank())) }, () => [r.int(0, 2), r.int(0, 2)] as const);
      const mode = r.pick([c.scalar(x.dtype(), r), 'edge', 'reflect'] as const);
      return one(x.pad(pairs, mode), 'exact', [x]);
    },
  },
  {
    name: 'unfold', kinds: ANY, minRank: 1, run: (c, x, r) => {
      const d = c.dim(x.rank(), r);
      const n = dimSize(x, d);
      return one(x.unfold(d, r.chance(0.05) ? r.pick([0, n + 1]) : r.int(1, Math.max(1, n)), r.chance(0.03) ? 0 : r.int(1, 2)), 'exact', [x]);
    },
  },
  {
    name: 'oneHot', kinds: INT, run: (c, x, r) => {
      // Class indices must lie in [-numClasses, numClasses); programs with out-of-range indices sometimes break that.
      const classes = c.program.oob && r.chance(0.5) ? r.int(1, 6) : r.int(21, 25);
      return one(asI(x).oneHot(classes), 'exact', [x]);
    },
  },
  {
    name: 'cast', kinds: ANY, run: (_c, x, r) => {
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

/** The op names, for reports. */
export const OP_NAMES: readonly string[] = OPS.map((o) => o.name);

// --- running ---

const STABILITY_ORDER: readonly Stability[] = ['exact', 'approx', 'unstable'];
const worst = (a: Stability, b: Stability): Stability => (STABILITY_ORDER.indexOf(a) >= STABILITY_ORDER.indexOf(b) ? a : b);

/** True when `data` has two equal values (or a NaN) along `dim` (an index output then has no single answer). */
function hasTies(data: TensorData, dim: number): boolean {
  const shape = data.shape;
  const rank = shape.length;
  if (rank === 0) return false;
  const d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank) return false;
  const vals = data.dtype === 'i64' ? Array.from(data.values as BigInt64Array, Number) : Array.from(data.toArray());
  const n = shape[d]!;
  const inner = shape.slice(d + 1).reduce((a, b) => a * b, 1);
  const outer = shape.slice(0, d).reduce((a, b) => a * b, 1);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const seen = new Set<number>();
      for (let j = 0; j < n; j++) {
        const v = vals[(o * n + j) * inner + i]!;
        if (Number.isNaN(v) || seen.has(v === 0 ? 0 : v)) return true;
        seen.add(v === 0 ? 0 : v);
      }
    }
  }
  return false;
}

function classify(c: Ctx, res: Res, outIndex: number, out: T): Meta {
  const ins = (res.ins as T[]).map((t) => c.metas.get(t) ?? { stability: 'unstable' as Stability, mag: Infinity, transcendental: true, special: true });
  let s: Stability = ins.reduce<Stability>((a, m) => worst(a, m.stability), 'exact');
  const cls = res.cls[Math.min(outIndex, res.cls.length - 1)]!;
  const floatOut = kindOfDType(out.dtype()) === 'float';
  switch (cls) {
    case 'exact': break;
    case 'smooth': if (floatOut) s = worst(s, 'approx'); break;
    case 'singular': s = s === 'approx' ? 'unstable' : floatOut ? worst(s, 'approx') : s; break;
    case 'disc': if (s === 'approx') s = 'unstable'; break;
    case 'index': {
      if (s === 'approx') s = 'unstable';
      const input = res.ties?.input as T | undefined;
      if (input && hasTies(input.toDataSync(), res.ties!.dim)) s = 'unstable';
      break;
    }
  }
  // Elementwise ops err relative to each element; accumulations (k > 1) err relative to what they summed.
  let mag = Math.max(0, ...ins.map((m) => m.mag));
  if (res.k !== undefined && cls === 'smooth' && floatOut) {
    const sizes = (res.ins as T[]).map((t) => maxAbsFinite(t.toDataSync()));
    const scale = res.product ? sizes.reduce((a, m) => a * Math.max(1, m), 1) : Math.max(0, ...sizes);
    mag = Math.max(mag * Math.max(1, res.k), scale * Math.max(1, res.k));
  }
  const special = ins.some((m) => m.special) || (cls !== 'exact' && cls !== 'disc' && (res.ins as T[]).some((t) => hasSpecial(t.toDataSync())));
  return { stability: s, mag, transcendental: Boolean(res.transcendental) || ins.some((m) => m.transcendental), special };
}

/** Describes a tensor briefly for the trace. */
const brief = (t: T) => `${t.dtype()}[${t.dims().join(',')}]`;

/**
 * Runs `program` on `device` and reads every output. `oracle` (the js engine) also classifies the
 * outputs (it reads synchronously). Never throws: errors are the outcome.
 */
export async function runProgram(program: Program, device: Device, oracle: boolean, dump = false): Promise<Outcome> {
  const c = new Ctx(device, program, oracle);
  const outputs: Output[] = [];
  const metas: OutputMeta[] = [];
  try {
    const rnd = new Rng(program.seed);
    let x = c.tensor(program.shape, program.dtype, rnd, program.special);
    c.trace.push(`input ${brief(x)}`);
    const vr = new Rng(program.viewSeed);
    for (const v of program.views) {
      const before = x;
      x = applyView(c, x, v, vr);
      if (oracle) c.metas.set(x, c.metas.get(before)!);
      c.trace.push(`${v} -> ${brief(x)}`);
    }
    for (const step of program.steps) {
      const kind = kindOfDType(x.dtype());
      const lowRank = step.seed % 20 === 0;
      const fits = OPS.filter((o) => o.kinds.includes(kind) && (lowRank || x.rank() >= (o.minRank ?? 0)));
      const op = fits[step.pick % fits.length]!;
      const at = c.trace.push(`${op.name}(${brief(x)}) seed ${step.seed}`) - 1;
      const res = await op.run(c, x, new Rng(step.seed));
      const ins = res.ins as T[], outs = res.outs as T[];
      if (dump) for (const t of ins) c.trace.push(`  in ${brief(t)}: [${Array.from((await t.toData()).toArray()).join(', ')}]`);
      c.trace[at] = `${op.name}${res.detail ? ` [${res.detail}]` : ''}(${ins.map(brief).join(', ')}) -> ${outs.map(brief).join(', ')}`;
      for (let i = 0; i < outs.length; i++) {
        const out = outs[i]!;
        if (oracle) {
          const m = classify(c, res, i, out);
          c.metas.set(out, m);
          metas.push(m);
        }
        outputs.push({ label: `${op.name}#${i}`, data: await out.toData() });
      }
      if (outs.length === 0) break;
      x = outs[0]!;
    }
    return { kind: 'ok', outputs, metas, oobUsed: c.oobUsed, trace: c.trace };
  } catch (e) {
    if (e instanceof BurnError) return { kind: 'burn', error: e, oobUsed: c.oobUsed, trace: c.trace };
    return { kind: 'other', error: e, oobUsed: c.oobUsed, trace: c.trace };
  }
}

// --- comparing ---

/** Float tolerances per dtype: `|a - e| <= atol + rtol * |e|` (the conformance suite's). */
const TOL: Record<string, { rtol: number; atol: number }> = {
  f64: { rtol: 1e-9, atol: 1e-12 },
  f32: { rtol: 1e-5, atol: 1e-6 },
  f16: { rtol: 2e-3, atol: 1e-3 },
  bf16: { rtol: 1.6e-2, atol: 1e-2 },
};

/**
 * Compares one output against the oracle's: dtype and shape exactly; then values unless
 * unstable: ints and bools byte for byte, floats exactly (NaN = NaN, -0 = 0) or within the
 * tolerance. `loose` widens the tolerance (WGSL's transcendental precision). Returns a message, or
 * undefined when they agree.
 */
export function compareOutput(want: Output, got: Output, meta: OutputMeta, loose: boolean): string | undefined {
  const w = want.data, g = got.data;
  if (w.dtype !== g.dtype) return `${want.label}: dtype ${g.dtype}, oracle ${w.dtype}`;
  if (w.shape.length !== g.shape.length || w.shape.some((s, i) => s !== g.shape[i])) return `${want.label}: shape [${g.shape}], oracle [${w.shape}]`;
  if (meta.stability === 'unstable' || (loose && meta.special)) return undefined;
  if (kindOfDType(w.dtype) !== 'float') {
    const a = w.bytes, b = g.bytes;
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) {
        const wa = w.dtype === 'i64' ? Array.from(w.values as BigInt64Array, String) : Array.from(w.toArray(), String);
        const ga = g.dtype === 'i64' ? Array.from(g.values as BigInt64Array, String) : Array.from(g.toArray(), String);
        const at = wa.findIndex((v, j) => v !== ga[j]);
        return `${want.label}: ${w.dtype} values differ at ${at}: got ${ga[at]}, oracle ${wa[at]} (got [${ga.slice(0, 12)}], oracle [${wa.slice(0, 12)}])`;
      }
    }
    return undefined;
  }
  const a = w.toArray(), b = g.toArray();
  const base = TOL[w.dtype]!;
  const widen = (meta.stability === 'approx' ? 16 : 1) * (loose && meta.transcendental ? 200 : 1);
  const rtol = base.rtol * widen;
  const atol = meta.stability === 'approx' || (loose && meta.transcendental) ? base.atol * widen + rtol * meta.mag : 0;
  for (let i = 0; i < a.length; i++) {
    const e = a[i]!, v = b[i]!;
    if (Number.isNaN(e) && Number.isNaN(v)) continue;
    if (e === v) continue;
    // An accumulation over infinities or near-overflow values may overflow or not depending on its order and width.
    if (meta.special && meta.stability === 'approx' && !(Number.isFinite(e) && Number.isFinite(v))) continue;
    const exact = meta.stability === 'exact' && !(loose && meta.transcendental);
    if (!exact && Number.isFinite(e) && Math.abs(v - e) <= atol + rtol * Math.abs(e)) continue;
    return `${want.label}: ${w.dtype} value at ${i} is ${v}, oracle ${e} (${meta.stability}${exact ? '' : `, tolerance ${atol + rtol * Math.abs(e)}`}; got [${Array.from(b.slice(0, 8))}], oracle [${Array.from(a.slice(0, 8))}])`;
  }
  return undefined;
}

/** The program as a few lines of TypeScript-like text (for FINDINGS repros). */
export function describeProgram(p: Program): string {
  return JSON.stringify(p);
}
