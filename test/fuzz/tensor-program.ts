// Random tensor programs for the differential fuzz suite: an input tensor (random shape, dtype,
// values and a chain of views over it) followed by 1-3 ops drawn from the tensor API, each
// resolved against the shapes it meets at run time by a seeded PRNG (so one generated program
// means the same calls on every device). Running a program on a device gives its outcome: the
// values of every op's outputs, or the error it threw. On the `js` oracle the run also records how
// each output may be compared (exactly, within a tolerance, or not at all when a discontinuous op
// met inexact values) — see `Stability`.
import fc from 'fast-check';
import { BurnError, type Device, type TensorData } from '../../src/index.js';
import { Rng } from './arbitraries.js';
import {
  applyView,
  Ctx,
  FUZZ_DTYPES,
  hasSpecial,
  KNOWN_CPU_INT_PRODUCT_IN_DOUBLES,
  kindOfDType,
  maxAbsFinite,
  OPS,
  VIEW_KINDS,
  type FuzzDType,
  type Meta,
  type Res,
  type Stability,
  type T,
  type ViewKind,
} from './tensor-ops.js';

export { FUZZ_DTYPES, VIEW_KINDS, type FuzzDType, type Stability } from './tensor-ops.js';

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

const dim = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 8 },
  { arbitrary: fc.constant(0), weight: 1 },
);

/** Random programs: rank 0-4, dims 0-5 (zero-size included), every fuzz dtype, 0-3 views, 1-3 ops. */
export function programArb(): fc.Arbitrary<Program> {
  return fc.record({
    // Mostly dims 0-5; now and then one longer dim (past SIMD widths, workgroup sizes, thread splits).
    shape: fc
      .tuple(
        fc.array(dim, { minLength: 0, maxLength: 4 }),
        fc.nat({ max: 9 }),
        fc.constantFrom(16, 17, 31, 33, 64, 65, 129, 257),
      )
      .map(([s, k, big]) =>
        k === 0 && s.length > 0 ? s.map((n, i) => (i === s.length - 1 ? big : Math.min(n, 3))) : s,
      ),
    dtype: fc.oneof(
      { arbitrary: fc.constant('f32' as const), weight: 3 },
      { arbitrary: fc.constantFrom(...FUZZ_DTYPES), weight: 7 },
    ),
    seed: fc.nat(),
    special: fc.nat({ max: 5 }).map((v) => v === 0),
    views: fc.array(fc.constantFrom(...VIEW_KINDS), { maxLength: 3 }),
    viewSeed: fc.nat(),
    steps: fc.array(fc.record({ pick: fc.nat(), seed: fc.nat() }), { minLength: 1, maxLength: 3 }),
    oob: fc.nat({ max: 4 }).map((v) => v === 0),
  });
}

// --- outcomes ---

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
  | {
      readonly kind: 'ok';
      readonly outputs: Output[];
      readonly metas: OutputMeta[];
      readonly oobUsed: boolean;
      readonly trace: string[];
    }
  | { readonly kind: 'burn'; readonly error: BurnError; readonly oobUsed: boolean; readonly trace: string[] }
  | { readonly kind: 'other'; readonly error: unknown; readonly oobUsed: boolean; readonly trace: string[] };

// --- running ---

const STABILITY_ORDER: readonly Stability[] = ['exact', 'approx', 'unstable'];
const worst = (a: Stability, b: Stability): Stability =>
  STABILITY_ORDER.indexOf(a) >= STABILITY_ORDER.indexOf(b) ? a : b;

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
  const ins = (res.ins as T[]).map(
    (t) => c.metas.get(t) ?? { stability: 'unstable' as Stability, mag: Infinity, transcendental: true, special: true },
  );
  let s: Stability = ins.reduce<Stability>((a, m) => worst(a, m.stability), 'exact');
  const cls = res.cls[Math.min(outIndex, res.cls.length - 1)]!;
  const floatOut = kindOfDType(out.dtype()) === 'float';
  switch (cls) {
    case 'exact':
      break;
    case 'smooth':
      if (floatOut) s = worst(s, 'approx');
      break;
    case 'singular':
      s = s === 'approx' ? 'unstable' : floatOut ? worst(s, 'approx') : s;
      break;
    case 'disc':
      if (s === 'approx') s = 'unstable';
      break;
    case 'index': {
      if (s === 'approx') s = 'unstable';
      const input = res.ties?.input as T | undefined;
      if (input && hasTies(input.toDataSync(), res.ties!.dim)) s = 'unstable';
      break;
    }
  }
  // Elementwise ops err relative to each element; accumulations (k > 1) err relative to what they summed.
  let mag = Math.max(0, ...ins.map((m) => m.mag));
  let overflow = false;
  if (res.k !== undefined && cls === 'smooth') {
    const k = Math.max(1, res.k);
    const sizes = (res.ins as T[]).map((t) => maxAbsFinite(t.toDataSync()));
    const scale = res.power
      ? Math.max(1, ...sizes) ** k
      : res.product
        ? sizes.reduce((a, m) => a * Math.max(1, m), 1) * k
        : Math.max(0, ...sizes) * k;
    if (floatOut) mag = Math.max(mag * k, scale);
    // Past the dtype's range the result depends on where it overflowed (order, width of the accumulator).
    overflow = scale > (floatOut ? (FLOAT_MAX[out.dtype()] ?? Infinity) : 2 ** 31 - 1);
    if (!floatOut && overflow && KNOWN_CPU_INT_PRODUCT_IN_DOUBLES) s = 'unstable';
  }
  const special =
    overflow ||
    ins.some((m) => m.special) ||
    (cls !== 'exact' && cls !== 'disc' && (res.ins as T[]).some((t) => hasSpecial(t.toDataSync())));
  return {
    stability: s,
    mag,
    transcendental: Boolean(res.transcendental) || ins.some((m) => m.transcendental),
    special,
  };
}

/** The largest finite value of each float dtype. */
const FLOAT_MAX: Partial<Record<string, number>> = {
  f16: 65504,
  bf16: 3.3895e38,
  f32: 3.4028e38,
  f64: Number.MAX_VALUE,
};

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
      const ins = res.ins as T[],
        outs = res.outs as T[];
      if (dump)
        for (const t of ins) c.trace.push(`  in ${brief(t)}: [${Array.from((await t.toData()).toArray()).join(', ')}]`);
      c.trace[at] =
        `${op.name}${res.detail ? ` [${res.detail}]` : ''}(${ins.map(brief).join(', ')}) -> ${outs.map(brief).join(', ')}`;
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
  const w = want.data,
    g = got.data;
  if (w.dtype !== g.dtype) return `${want.label}: dtype ${g.dtype}, oracle ${w.dtype}`;
  if (w.shape.length !== g.shape.length || w.shape.some((s, i) => s !== g.shape[i]))
    return `${want.label}: shape [${g.shape}], oracle [${w.shape}]`;
  if (meta.stability === 'unstable' || (loose && meta.special)) return undefined;
  if (kindOfDType(w.dtype) !== 'float') {
    const a = w.bytes,
      b = g.bytes;
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
  const a = w.toArray(),
    b = g.toArray();
  const base = TOL[w.dtype]!;
  const widen = (meta.stability === 'approx' ? 16 : 1) * (loose && meta.transcendental ? 200 : 1);
  const rtol = base.rtol * widen;
  const atol = meta.stability === 'approx' || (loose && meta.transcendental) ? base.atol * widen + rtol * meta.mag : 0;
  for (let i = 0; i < a.length; i++) {
    const e = a[i]!,
      v = b[i]!;
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
