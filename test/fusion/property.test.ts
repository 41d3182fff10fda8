// Property-based fusion suite: seeded random op graphs (chains of unary, binary, scalar, compare,
// where, cast, clamp and mask-fill ops over broadcast shapes; permuted, sliced with negative steps,
// reshaped, flipped and expanded views in the middle; reductions in the middle broadcast back;
// reads of intermediates; disposal mid-stream; Tensor.scope around parts) run on a plain device and
// on its fused device, and every value read must agree: ints and bools exactly, floats within 1e-5
// of the magnitudes the graph went through. Half the graphs run again on autodiff() and
// fusion().autodiff(), whose input gradients must agree too. A failure prints the seed and the
// graph as text; BURN_FUSION_SEED=<seed> reruns that one graph, BURN_FUSION_GRAPHS=<n> sets the
// graphs per device.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Tensor, TensorData, type Bool, type DType, type Float, type Int, type Kind } from '../../src/index.js';
import { jsReuseDevice, nativeTestDevice, wasmTestDevice, webgpu } from '../helpers/devices.js';

type AnyT = Tensor<number, Kind>;
type FT = Tensor<number, Float>;
type IT = Tensor<number, Int>;
type BT = Tensor<number, Bool>;

/** mulberry32: a tiny seeded PRNG, so that a seed names one graph on every machine. */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Value kinds: float (f32), int (i32), bool. */
type VKind = 'f' | 'i' | 'b';
const DTYPE: Record<VKind, DType> = { f: 'f32', i: 'i32', b: 'bool' };

/**
 * What the generator knows about a value: its shape and kind, a bound on the magnitudes that went
 * into it (float rounding errors scale with it), and whether it is exact: computed only by
 * correctly rounded ops (add, mul, max, …) from inputs, so every device gives the same bits and a
 * comparison or a cast to int of it cannot flip. Transcendentals and sums (whose order may differ)
 * are not exact.
 */
interface Meta {
  readonly id: number;
  readonly shape: readonly number[];
  readonly kind: VKind;
  readonly bound: number;
  readonly exact: boolean;
}

/** One step of a graph. */
type Step =
  | {
      readonly t: 'input';
      readonly id: number;
      readonly shape: readonly number[];
      readonly kind: VKind;
      readonly values: readonly number[];
    }
  | {
      readonly t: 'op';
      readonly id: number;
      readonly args: readonly number[];
      readonly text: string;
      readonly fn: (xs: AnyT[]) => AnyT;
    }
  | { readonly t: 'read'; readonly id: number }
  | { readonly t: 'dispose'; readonly id: number }
  | { readonly t: 'scope'; readonly body: readonly Step[]; readonly result: number };

/** A graph: its steps, the values read at its end, and the float tolerance scale of each value. */
interface Graph {
  readonly seed: number;
  readonly steps: readonly Step[];
  readonly finals: readonly number[];
  readonly bounds: ReadonlyMap<number, number>;
}

const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const MAX_BOUND = 1e3;

function stepText(s: Step, indent = ''): string {
  switch (s.t) {
    case 'input':
      return `${indent}v${s.id} = input(${DTYPE[s.kind]}, [${s.shape}], [${s.values.join(', ')}])`;
    case 'op':
      return `${indent}v${s.id} = ${s.text}`;
    case 'read':
      return `${indent}await v${s.id}.toData()`;
    case 'dispose':
      return `${indent}v${s.id}.dispose()`;
    case 'scope':
      return [
        `${indent}Tensor.scope(() => {`,
        ...s.body.map((b) => stepText(b, `${indent}  `)),
        `${indent}  return v${s.result}; // the rest of the scope is released`,
        `${indent}})`,
      ].join('\n');
  }
}

/** The graph as code-like text, for reproducing a failure. */
function graphText(g: Graph): string {
  return [...g.steps.map((s) => stepText(s)), `read ${g.finals.map((v) => `v${v}`).join(', ')}`].join('\n');
}

/** Builds one random graph from `seed`. */
function generate(seed: number): Graph {
  const rng = new Rng(seed);
  let nextId = 0;
  const live = new Map<number, Meta>();
  const bounds = new Map<number, number>();
  const steps: Step[] = [];
  let sink: Step[] = steps;

  const randShape = (): number[] => {
    const rank = rng.range(1, 4);
    for (;;) {
      const s = Array.from({ length: rank }, () => rng.range(1, 5));
      if (numel(s) <= 240) return s;
    }
  };
  const add = (meta: Omit<Meta, 'id'>, step: (id: number) => Step): Meta => {
    const m = { ...meta, id: nextId++ };
    live.set(m.id, m);
    bounds.set(m.id, m.bound);
    sink.push(step(m.id));
    return m;
  };
  const input = (shape: readonly number[], kind: VKind): Meta => {
    const n = numel(shape);
    const values = Array.from({ length: n }, () =>
      kind === 'f' ? Math.round((rng.next() * 4 - 2) * 64) / 64 : kind === 'i' ? rng.range(-5, 5) : rng.int(2),
    );
    return add({ shape, kind, bound: kind === 'f' ? 2 : kind === 'i' ? 5 : 1, exact: true }, (id) => ({
      t: 'input',
      id,
      shape,
      kind,
      values,
    }));
  };
  const op = (args: readonly Meta[], meta: Omit<Meta, 'id'>, text: string, fn: (xs: AnyT[]) => AnyT): Meta => {
    const names = args.map((a) => `v${a.id}`);
    const shown = text.replace(/\$(\d)/g, (_, i: string) => names[Number(i)]!);
    return add(meta, (id) => ({ t: 'op', id, args: args.map((a) => a.id), text: shown, fn }));
  };
  const values = (): Meta[] => [...live.values()];
  // Recent values are picked more often, so chains grow long (what fusion fuses).
  const recent = <T>(xs: readonly T[]): T => (rng.chance(0.6) ? rng.pick(xs.slice(-3)) : rng.pick(xs));
  const ofKind = (k: VKind): Meta | undefined => {
    const xs = values().filter((m) => m.kind === k);
    return xs.length ? recent(xs) : undefined;
  };
  const anyValue = (): Meta => recent(values());
  const floatValue = (): Meta => ofKind('f') ?? input(randShape(), 'f');
  const numericValue = (): Meta => (rng.chance(0.7) ? floatValue() : (ofKind('i') ?? input(randShape(), 'i')));
  /** A value of `kind` whose shape broadcasts with `shape` (an existing one, or a new input with some dims 1). */
  const partner = (shape: readonly number[], kind: VKind): Meta => {
    const fits = values().filter(
      (m) =>
        m.kind === kind &&
        m.shape.length <= shape.length &&
        m.shape.every((s, i) => {
          const t = shape[shape.length - m.shape.length + i]!;
          return s === t || s === 1 || t === 1;
        }) &&
        numel(broadcast(shape, m.shape)) <= 480,
    );
    if (fits.length && rng.chance(0.6)) return rng.pick(fits);
    const drop = rng.chance(0.3) ? rng.int(shape.length) : 0;
    return input(
      shape.slice(drop).map((s) => (rng.chance(0.3) ? 1 : s)),
      kind,
    );
  };
  const fitsBound = (b: number) => b <= MAX_BOUND;

  const unaryFloat = (x: Meta): void => {
    const b = x.bound;
    const choices: [string, (t: FT) => FT, number, boolean][] = [
      ['$0.neg()', (t) => t.neg(), b, true],
      ['$0.abs()', (t) => t.abs(), b, true],
      ['$0.tanh()', (t) => t.tanh(), 1, false],
      ['$0.sin()', (t) => t.sin(), 1, false],
      ['$0.cos()', (t) => t.cos(), 1, false],
      ['$0.sigmoid()', (t) => t.sigmoid(), 1, false],
      ['$0.erf()', (t) => t.erf(), 1, false],
      ['$0.abs().sqrt()', (t) => t.abs().sqrt(), Math.sqrt(b), false],
      ['$0.abs().add(1).log()', (t) => t.abs().add(1).log(), Math.log(b + 1), false],
      ['$0.abs().add(1).recip()', (t) => t.abs().add(1).recip(), 1, false],
      ['$0.relu()', (t) => t.relu(), b, true],
    ];
    if (b <= 5) choices.push(['$0.exp()', (t) => t.exp(), Math.exp(b), false]);
    if (fitsBound(b * b)) choices.push(['$0.square()', (t) => t.square(), b * b, true]);
    const [text, fn, bound, exact] = rng.pick(choices);
    op([x], { shape: x.shape, kind: 'f', bound, exact: exact && x.exact }, text, ([t]) => fn(t as FT));
  };

  const binary = (x: Meta): void => {
    const y = partner(x.shape, x.kind);
    const shape = broadcast(x.shape, y.shape);
    const exact = x.exact && y.exact;
    const bx = x.bound,
      by = y.bound;
    const choices: [string, (a: AnyT, b: AnyT) => AnyT, number][] = [
      ['$0.add($1)', (a, b) => (a as FT).add(b as FT), bx + by],
      ['$0.sub($1)', (a, b) => (a as FT).sub(b as FT), bx + by],
      ['$0.maxPair($1)', (a, b) => (a as FT).maxPair(b as FT), Math.max(bx, by)],
      ['$0.minPair($1)', (a, b) => (a as FT).minPair(b as FT), Math.max(bx, by)],
      ['$0.div($1.abs().add(1))', (a, b) => (a as FT).div((b as FT).abs().add(1)), bx],
    ];
    if (fitsBound(bx * by)) choices.push(['$0.mul($1)', (a, b) => (a as FT).mul(b as FT), bx * by]);
    if (x.kind === 'i')
      choices.push(['$0.remainder($1.abs().add(1))', (a, b) => (a as IT).remainder((b as IT).abs().add(1)), by + 1]);
    const [text, fn, bound] = rng.pick(choices.filter(([, , bd]) => fitsBound(bd)));
    op([x, y], { shape, kind: x.kind, bound, exact }, text, ([a, b]) => fn(a!, b!));
  };

  const scalar = (x: Meta): void => {
    const s = x.kind === 'f' ? rng.pick([0.5, -1.25, 2, 3, -0.75]) : rng.range(-3, 3);
    const d = x.kind === 'f' ? rng.pick([0.5, -4, 3]) : rng.pick([2, -3, 4]);
    const choices: [string, (a: FT) => FT, number][] = [
      [`$0.add(${s})`, (a) => a.add(s), x.bound + Math.abs(s)],
      [`$0.sub(${s})`, (a) => a.sub(s), x.bound + Math.abs(s)],
      [`$0.mul(${s})`, (a) => a.mul(s), x.bound * Math.abs(s)],
      [`$0.div(${d})`, (a) => a.div(d), x.bound],
    ];
    const [text, fn, bound] = rng.pick(choices.filter(([, , bd]) => fitsBound(bd)));
    // f32 division by 3 rounds; still correctly rounded, so exact.
    op([x], { shape: x.shape, kind: x.kind, bound, exact: x.exact }, text, ([a]) => fn(a as FT));
  };

  const compare = (x: Meta): void => {
    if (!x.exact) return unaryFloat(x);
    const names = ['greater', 'greaterEqual', 'lower', 'lowerEqual', 'equal', 'notEqual'] as const;
    const name = rng.pick(names);
    if (rng.chance(0.4)) {
      const s = x.kind === 'f' ? rng.pick([0, 0.5, -1]) : rng.range(-2, 2);
      op([x], { shape: x.shape, kind: 'b', bound: 1, exact: true }, `$0.${name}(${s})`, ([a]) => (a as FT)[name](s));
      return;
    }
    const y = partner(x.shape, x.kind);
    if (!y.exact) return;
    op([x, y], { shape: broadcast(x.shape, y.shape), kind: 'b', bound: 1, exact: true }, `$0.${name}($1)`, ([a, b]) =>
      (a as FT)[name](b as FT),
    );
  };

  const boolOp = (): void => {
    const x = ofKind('b');
    if (!x) return compare(numericValue());
    const which = rng.int(3);
    if (which === 0) {
      op([x], { shape: x.shape, kind: 'b', bound: 1, exact: true }, '$0.boolNot()', ([a]) => (a as BT).boolNot());
      return;
    }
    const y = partner(x.shape, 'b');
    const name = rng.pick(['boolAnd', 'boolOr', 'boolXor'] as const);
    // and/or/xor take same-shape operands: expand both to the broadcast shape.
    const shape = broadcast(x.shape, y.shape);
    op(
      [x, y],
      { shape, kind: 'b', bound: 1, exact: true },
      `$0.expand([${shape}]).${name}($1.expand([${shape}]))`,
      ([a, b]) => (a as BT).expand(shape)[name]((b as BT).expand(shape)),
    );
  };

  const where = (x: Meta): void => {
    const mask = ofKind('b');
    if (!mask || !sameShape(mask.shape, x.shape)) {
      // A mask of x's shape made by a comparison of x itself.
      if (!x.exact) return unaryFloat(x);
      const t = x.kind === 'f' ? 0.25 : 1;
      const m = op([x], { shape: x.shape, kind: 'b', bound: 1, exact: true }, `$0.greater(${t})`, ([a]) =>
        (a as FT).greater(t),
      );
      return whereWith(x, m);
    }
    whereWith(x, mask);
  };
  const whereWith = (x: Meta, mask: Meta): void => {
    if (rng.chance(0.5)) {
      const v = x.kind === 'f' ? rng.pick([0, -1.5, 7]) : rng.range(-4, 4);
      op(
        [x, mask],
        { shape: x.shape, kind: x.kind, bound: Math.max(x.bound, Math.abs(v)), exact: x.exact },
        `$0.maskFill($1, ${v})`,
        ([a, m]) => (a as FT).maskFill(m as BT, v),
      );
      return;
    }
    const y =
      values().find((m) => m.kind === x.kind && sameShape(m.shape, x.shape) && m.id !== x.id) ?? input(x.shape, x.kind);
    op(
      [x, mask, y],
      { shape: x.shape, kind: x.kind, bound: Math.max(x.bound, y.bound), exact: x.exact && y.exact },
      '$0.maskWhere($1, $2)',
      ([a, m, b]) => (a as FT).maskWhere(m as BT, b as FT),
    );
  };

  const cast = (x: Meta): void => {
    if (x.kind === 'f') {
      if (!x.exact || x.bound > 1e6) return unaryFloat(x);
      op([x], { shape: x.shape, kind: 'i', bound: x.bound, exact: true }, '$0.int()', ([a]) => (a as FT).int());
    } else if (x.kind === 'i') {
      op([x], { shape: x.shape, kind: 'f', bound: x.bound, exact: true }, '$0.float()', ([a]) => (a as IT).float());
    } else {
      const to = rng.pick(['f', 'i'] as const);
      op([x], { shape: x.shape, kind: to, bound: 1, exact: true }, to === 'f' ? '$0.float()' : '$0.int()', ([a]) =>
        to === 'f' ? (a as BT).float() : (a as BT).int(),
      );
    }
  };

  const clamp = (x: Meta): void => {
    const lo = x.kind === 'f' ? rng.pick([-1, -0.5, 0]) : rng.range(-3, 0);
    const hi = x.kind === 'f' ? rng.pick([0.25, 1, 1.5]) : rng.range(1, 3);
    const which = rng.int(3);
    const text = which === 0 ? `$0.clamp(${lo}, ${hi})` : which === 1 ? `$0.clampMin(${lo})` : `$0.clampMax(${hi})`;
    op([x], { shape: x.shape, kind: x.kind, bound: x.bound, exact: x.exact }, text, ([a]) =>
      which === 0 ? (a as FT).clamp(lo, hi) : which === 1 ? (a as FT).clampMin(lo) : (a as FT).clampMax(hi),
    );
  };

  const view = (x: Meta): void => {
    const rank = x.shape.length;
    const shape = [...x.shape];
    const meta = (s: readonly number[]) => ({ shape: s, kind: x.kind, bound: x.bound, exact: x.exact });
    switch (rng.int(6)) {
      case 0: {
        const perm = shape.map((_, i) => i);
        for (let i = perm.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [perm[i], perm[j]] = [perm[j]!, perm[i]!];
        }
        op([x], meta(perm.map((p) => shape[p]!)), `$0.permute([${perm}])`, ([a]) => a!.permute(perm));
        return;
      }
      case 1: {
        // Per dim: whole, a range, or a backward walk with step -1 or -2.
        const args: [number, number, number][] = [];
        const out: number[] = [];
        for (const s of shape) {
          const a = rng.int(s);
          const b = rng.range(a + 1, s);
          const step = rng.pick([1, 1, -1, -2, 2]);
          args.push([a, b, step]);
          out.push(Math.ceil((b - a) / Math.abs(step)));
        }
        op([x], meta(out), `$0.slice(${JSON.stringify(args)})`, ([a]) => a!.slice(args));
        return;
      }
      case 2: {
        // Merge two adjacent dims, split a dim, or flatten.
        let to: number[];
        if (rank >= 2 && rng.chance(0.5)) {
          const d = rng.int(rank - 1);
          to = [...shape.slice(0, d), shape[d]! * shape[d + 1]!, ...shape.slice(d + 2)];
        } else {
          const d = rng.int(rank);
          const n = shape[d]!;
          const f = [1, 2, 3, 5].filter((k) => n % k === 0);
          const p = rng.pick(f);
          to = rank < 4 ? [...shape.slice(0, d), p, n / p, ...shape.slice(d + 1)] : [numel(shape)];
        }
        op([x], meta(to), `$0.reshape([${to}])`, ([a]) => a!.reshape(to));
        return;
      }
      case 3: {
        const dims = shape.map((_, i) => i).filter(() => rng.chance(0.5));
        op([x], meta(shape), `$0.flip([${dims}])`, ([a]) => a!.flip(dims));
        return;
      }
      default: {
        // Expand: a size-1 dim to 2..3, or a new leading dim.
        const ones = shape.map((s, i) => (s === 1 ? i : -1)).filter((i) => i >= 0);
        if (ones.length && rng.chance(0.6)) {
          const d = rng.pick(ones);
          const to = shape.map((s, i) => (i === d ? rng.range(2, 3) : s));
          op([x], meta(to), `$0.expand([${to}])`, ([a]) => a!.expand(to));
        } else if (rank < 4 && numel(shape) * 3 <= 480) {
          const k = rng.range(2, 3);
          const to = [k, ...shape];
          op([x], meta(to), `$0.unsqueezeDim(0).expand([${to}])`, ([a]) => a!.unsqueezeDim(0).expand(to));
        } else if (rank >= 2) {
          const to = [...shape.slice(0, -2), shape[rank - 1]!, shape[rank - 2]!];
          op([x], meta(to), '$0.transpose()', ([a]) => a!.transpose());
        } else op([x], meta(shape), '$0.flip([0])', ([a]) => a!.flip([0]));
      }
    }
  };

  const reduce = (x: Meta): void => {
    const d = rng.int(x.shape.length);
    const n = x.shape[d]!;
    const rshape = x.shape.map((s, i) => (i === d ? 1 : s));
    const choices: [string, (a: FT) => FT, number, boolean][] = [
      [`$0.sumDim(${d})`, (a) => a.sumDim(d), x.bound * n, false],
      [`$0.maxDim(${d})`, (a) => a.maxDim(d), x.bound, x.exact],
      [`$0.minDim(${d})`, (a) => a.minDim(d), x.bound, x.exact],
    ];
    if (x.kind === 'f') choices.push([`$0.meanDim(${d})`, (a) => a.meanDim(d), x.bound, false]);
    if (x.kind === 'i') choices[0]![3] = x.exact;
    if (fitsBound(x.bound ** n)) choices.push([`$0.prodDim(${d})`, (a) => a.prodDim(d), x.bound ** n, x.kind === 'i']);
    const [text, fn, bound, exact] = rng.pick(choices.filter(([, , b]) => fitsBound(b)));
    const r = op([x], { shape: rshape, kind: x.kind, bound, exact }, text, ([a]) => fn(a as FT));
    // A reduction of the reduction (over the now size-1 dim or another one): nested row values.
    if (rng.chance(0.15)) return reduce(r);
    // Broadcast back along the reduced dim: softmax's x - max(x), a normalisation, a residual.
    if (rng.chance(0.7)) {
      const back: [string, (a: FT, b: FT) => FT, number][] = [
        ['$0.sub($1)', (a, b) => a.sub(b), x.bound + bound],
        ['$0.add($1)', (a, b) => a.add(b), x.bound + bound],
        ['$0.div($1.abs().add(1))', (a, b) => a.div(b.abs().add(1)), x.bound],
      ];
      if (fitsBound(x.bound * bound)) back.push(['$0.mul($1)', (a, b) => a.mul(b), x.bound * bound]);
      const [t2, f2, b2] = rng.pick(back.filter(([, , bb]) => fitsBound(bb)));
      op([x, r], { shape: x.shape, kind: x.kind, bound: b2, exact: x.exact && r.exact }, t2, ([a, b]) =>
        f2(a as FT, b as FT),
      );
    }
  };

  const softmaxLike = (x: Meta): void => {
    const d = rng.int(x.shape.length);
    const kinds: [string, (a: FT) => FT, number][] = [
      [`$0.softmax(${d})`, (a) => a.softmax(d), 1],
      [`$0.logSoftmax(${d})`, (a) => a.logSoftmax(d), 2 * x.bound + Math.log(x.shape[d]!) + 1],
      [
        `$0.sub($0.maxDim(${d})).exp().div($0.sub($0.maxDim(${d})).exp().sumDim(${d}))`,
        (a) => {
          const e = a.sub(a.maxDim(d)).exp();
          return e.div(e.sumDim(d));
        },
        1,
      ],
      [
        `$0.sub($0.meanDim(${d})).square().meanDim(${d})`,
        (a) => a.sub(a.meanDim(d)).square().meanDim(d),
        4 * x.bound * x.bound,
      ],
    ];
    const [text, fn, bound] = rng.pick(kinds.filter(([, , b]) => fitsBound(b)));
    const shape = text.endsWith(`meanDim(${d})`) ? x.shape.map((s, i) => (i === d ? 1 : s)) : x.shape;
    op([x], { shape, kind: 'f', bound, exact: false }, text, ([a]) => fn(a as FT));
  };

  /** One random elementwise/view/reduce step on an existing value (or a new input). */
  const compute = (): void => {
    const r = rng.next();
    if (r < 0.22) unaryFloat(floatValue());
    else if (r < 0.4) binary(numericValue());
    else if (r < 0.47) scalar(numericValue());
    else if (r < 0.53) compare(numericValue());
    else if (r < 0.57) boolOp();
    else if (r < 0.63) where(numericValue());
    else if (r < 0.68) cast(anyValue());
    else if (r < 0.72) clamp(numericValue());
    else if (r < 0.86) view(anyValue());
    else if (r < 0.95) reduce(numericValue());
    else softmaxLike(floatValue());
  };

  input(randShape(), 'f');
  if (rng.chance(0.5)) input(randShape(), rng.pick(['f', 'i'] as const));
  const length = rng.range(6, 22);
  for (let i = 0; i < length; i++) {
    const r = rng.next();
    if (r < 0.06 && live.size > 2) {
      // Disposal mid-stream: a value whose consumers may already be recorded, or one never read.
      const victim = anyValue();
      live.delete(victim.id);
      steps.push({ t: 'dispose', id: victim.id });
    } else if (r < 0.11) {
      steps.push({ t: 'read', id: anyValue().id });
    } else if (r < 0.17) {
      // Tensor.scope around a few steps: only its result survives it.
      const before = new Set(live.keys());
      const body: Step[] = [];
      sink = body;
      const k = rng.range(1, 4);
      for (let j = 0; j < k; j++) compute();
      sink = steps;
      const made = [...live.keys()].filter((id) => !before.has(id));
      if (made.length === 0) {
        steps.push(...body);
        continue;
      }
      const result = rng.pick(made);
      for (const id of made) if (id !== result) live.delete(id);
      steps.push({ t: 'scope', body, result });
    } else if (r < 0.2) {
      // A long chain on the newest float value: blocks of 16-40 instructions (the generators'
      // register and naming limits), with a broadcast partner now and then.
      let x =
        values()
          .filter((m) => m.kind === 'f')
          .pop() ?? floatValue();
      const k = rng.range(16, 40);
      for (let j = 0; j < k; j++) {
        if (rng.chance(0.25)) binary(x);
        else if (rng.chance(0.4)) scalar(x);
        else unaryFloat(x);
        x = values().pop()!;
      }
    } else compute();
  }
  // Read a few values at the end (always the newest); the rest stay pending and are never read.
  const ids = [...live.keys()];
  const finals = [...new Set([ids[ids.length - 1]!, ...ids.filter(() => rng.chance(0.3))])].sort((a, b) => a - b);
  return { seed, steps, finals, bounds };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function broadcast(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, i) => {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    return x === 1 ? y : x;
  });
}

/** A value read back: label, dtype, shape and values. */
interface Read {
  readonly label: string;
  readonly id: number;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly values: readonly number[];
  /** The float tolerance, when not the graph's bound for the value (gradients). */
  readonly tol?: number | undefined;
}

/**
 * Runs `g` on `device`; returns every value read (mid-graph reads, then the final reads). With
 * `grads` (an autodiff device) the float inputs made outside scopes require gradients, and the
 * gradients of the sum of the float values read at the end are read too.
 */
async function execute(g: Graph, device: Device, grads = false): Promise<Read[]> {
  const vals = new Map<number, AnyT>();
  const reads: Read[] = [];
  const targets: number[] = [];
  let depth = 0;
  const read = async (id: number, label: string, t = vals.get(id)!, relative = false) => {
    const data = await t.toData();
    const values = Array.from(data.toArray() as ArrayLike<number>, Number);
    // Gradients: within 1e-4 of the largest magnitude (backward chains amplify rounding).
    const tol = relative ? 1e-4 * Math.max(1, ...values.filter(Number.isFinite).map(Math.abs)) : undefined;
    reads.push({ label, id, dtype: data.dtype, shape: data.shape, values, tol });
  };
  const runSync = (s: Step): void => {
    switch (s.t) {
      case 'input': {
        let t = Tensor.fromData<number, Kind>(new TensorData([...s.values], s.shape, DTYPE[s.kind]), device);
        if (grads && s.kind === 'f' && depth === 0) {
          t = (t as FT).requireGrad();
          targets.push(s.id);
        }
        vals.set(s.id, t);
        return;
      }
      case 'op':
        vals.set(s.id, s.fn(s.args.map((a) => vals.get(a)!)));
        return;
      case 'dispose':
        vals.get(s.id)!.dispose();
        vals.delete(s.id);
        return;
      case 'scope': {
        const before = new Set(vals.keys());
        depth++;
        const out = Tensor.scope(() => {
          for (const b of s.body) runSync(b);
          return vals.get(s.result)!;
        });
        depth--;
        for (const id of [...vals.keys()]) if (!before.has(id) && id !== s.result) vals.delete(id);
        vals.set(s.result, out);
        return;
      }
      case 'read':
        throw new Error('a read inside a scope');
    }
  };
  let k = 0;
  for (const s of g.steps) {
    if (s.t === 'read') await read(s.id, `read #${k++} of v${s.id}`);
    else runSync(s);
  }
  for (const id of g.finals) await read(id, `v${id}`);
  const floats = g.finals.map((id) => vals.get(id)!).filter((t) => t.dtype() === 'f32');
  const tracked = floats.filter((t) => t.isRequireGrad());
  if (grads && tracked.length > 0) {
    const loss = tracked.map((t) => (t as FT).sum()).reduce((a, b) => a.add(b));
    const gr = loss.backward();
    for (const id of targets) {
      const x = vals.get(id);
      const gx = x && (x as FT).grad(gr);
      if (gx) await read(id, `grad of v${id}`, gx, true);
    }
  }
  for (const t of vals.values()) t.dispose();
  return reads;
}

/** The differences between the plain reads and the fused ones (empty when they agree). */
function diff(g: Graph, plain: Read[], fused: Read[]): string[] {
  const problems: string[] = [];
  if (plain.length !== fused.length) return [`${fused.length} reads, expected ${plain.length}`];
  plain.forEach((p, i) => {
    const f = fused[i]!;
    if (p.dtype !== f.dtype || !sameShape(p.shape, f.shape)) {
      problems.push(`${p.label}: ${f.dtype} [${f.shape}], expected ${p.dtype} [${p.shape}]`);
      return;
    }
    const tol = p.tol ?? 1e-5 * Math.max(1, g.bounds.get(p.id) ?? 1);
    const isFloat = p.dtype === 'f32' || p.dtype === 'f64';
    let bad = 0;
    p.values.forEach((e, j) => {
      const a = f.values[j]!;
      const ok = isFloat
        ? Number.isNaN(e)
          ? Number.isNaN(a)
          : Number.isFinite(e)
            ? Math.abs(a - e) <= tol
            : a === e
        : a === e;
      if (!ok && bad++ < 4) problems.push(`${p.label}[${j}]: fused ${a}, plain ${e}`);
    });
    if (bad > 4) problems.push(`${p.label}: ${bad - 4} more`);
  });
  return problems;
}

/**
 * The devices: a plain device and its fused device (f32/i32/bool only, so WebGPU runs every
 * graph): js, every engine that loads (thresholds at 0: their fused kernels at every size), WebGPU.
 */
function pairs(): { name: string; plain: () => Device; graphs: number; skip: string | false }[] {
  const count = Number(process.env['BURN_FUSION_GRAPHS'] ?? 0);
  const list: { name: string; plain: () => Device; graphs: number; skip: string | false }[] = [
    { name: 'cpu(js)', plain: jsReuseDevice, graphs: count || 200, skip: false },
  ];
  const native = nativeTestDevice();
  if (native) list.push({ name: 'cpu(native)', plain: () => native, graphs: count || 200, skip: false });
  const wasm = wasmTestDevice();
  if (wasm) list.push({ name: 'cpu(wasm)', plain: () => wasm, graphs: count || 200, skip: false });
  const gpu = webgpu.device;
  // SwiftShader compiles every new fused kernel on the CPU (about 0.2 s of CPU per graph, most
  // graphs bring new programs): 50 graphs keep it near the CPU devices' time.
  list.push({
    name: 'webgpu',
    plain: () => gpu!,
    graphs: count || 50,
    skip: gpu ? false : `no WebGPU device: ${webgpu.reason}`,
  });
  return list;
}

describe('fusion: random op graphs give the unfused values', () => {
  it('the generator is deterministic and its graphs are well formed', () => {
    const a = generate(7),
      b = generate(7);
    assert.equal(graphText(a), graphText(b));
    assert.notEqual(graphText(generate(8)), graphText(a));
    for (let s = 0; s < 50; s++) assert.ok(generate(s).finals.length > 0);
  });

  const only = process.env['BURN_FUSION_SEED'];
  /** Runs the seeds on `plain` and `fused`; returns the failures (at most 3), each with its seed and graph. */
  const compareRuns = async (plain: Device, fused: Device, seeds: readonly number[], grads: boolean) => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const g = generate(seed);
      let want: Read[];
      try {
        want = await execute(g, plain, grads);
      } catch (e) {
        // A graph the plain device refuses is a generator bug.
        failures.push(`seed ${seed}: the plain device threw ${String(e)}\n${graphText(g)}`);
        continue;
      }
      let problems: string[];
      try {
        problems = diff(g, want, await execute(g, fused, grads));
      } catch (e) {
        problems = [`threw ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`];
      }
      if (problems.length)
        failures.push(
          `seed ${seed} (BURN_FUSION_SEED=${seed}):\n  ${problems.slice(0, 8).join('\n  ')}\n${graphText(g)}`,
        );
      if (failures.length >= 3) break;
    }
    return failures;
  };
  for (const { name, plain, graphs, skip } of pairs()) {
    const seeds = only ? [Number(only)] : Array.from({ length: graphs }, (_, i) => 1000 + i);
    it(`on ${name}: ${only ? `seed ${only}` : `${graphs} seeded graphs`} (plain vs fusion())`, { skip }, async () => {
      const dev = plain();
      const start = performance.now();
      const failures = await compareRuns(dev, dev.fusion(), seeds, false);
      const seconds = (performance.now() - start) / 1000;
      assert.equal(failures.length, 0, `${failures.length} failing graph(s) on ${name}:\n\n${failures.join('\n\n')}`);
      // A guard against a pathological slowdown only (CI shares two cores between test files).
      assert.ok(only || seconds < 180, `${seeds.length} graphs took ${seconds.toFixed(1)} s`);
    });
    // The backward pass fused too: the same graphs' values and input gradients on
    // fusion().autodiff() and autodiff() (half the graphs: a backward pass doubles the work).
    const gradSeeds = only ? seeds : seeds.slice(0, Math.ceil(seeds.length / 2));
    it(`on ${name}: gradients of ${only ? `seed ${only}` : `${gradSeeds.length} graphs`} (autodiff() vs fusion().autodiff())`, {
      skip,
    }, async () => {
      const dev = plain();
      const failures = await compareRuns(dev.autodiff(), dev.fusion().autodiff(), gradSeeds, true);
      assert.equal(failures.length, 0, `${failures.length} failing graph(s) on ${name}:\n\n${failures.join('\n\n')}`);
    });
  }
});
