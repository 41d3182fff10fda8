import { elemTypeOfCode } from '../parse/dtype.js';
import { kindOf, num, type EmitContext, type Emitted, type Emitter } from './context.js';

/**
 * Emitters of elementwise operators, activations, reductions, softmax and matrix products: each
 * becomes a tensor-API call (`x.add(y)`, `x.relu()`, `x.meanDim(2)`, `a.matmul(b)`), with
 * lower-rank operands lifted by `unsqueeze` (Burn's binary ops take operands of one rank).
 */

/** `x.<method>()` of input 0. */
function method(name: string): Emitter {
  return (ctx) => [`${ctx.tensor(0)}.${name}()`];
}

/** `activation.<fn>(x, ...args)` from `burn-ts`. */
function act(fn: string, args: (ctx: EmitContext) => readonly (number | undefined)[] = () => []): Emitter {
  return (ctx) => {
    ctx.use('burn-ts', 'activation');
    const extra = args(ctx)
      .filter((a): a is number => a !== undefined)
      .map(num);
    return [`activation.${fn}(${[ctx.tensor(0), ...extra].join(', ')})`];
  };
}

const COMMUTATIVE = new Set(['add', 'mul', 'maxPair', 'minPair', 'equal', 'notEqual']);
/** The scalar form of methods that take a number (`x.maxPair(2)` is `x.clampMin(2)`). */
const SCALAR_FORM: Record<string, string> = { maxPair: 'clampMin', minPair: 'clampMax' };
/** A comparison with swapped operands (`2 < x` is `x > 2`). */
const SWAPPED: Record<string, string> = {
  lower: 'greater',
  greater: 'lower',
  lowerEqual: 'greaterEqual',
  greaterEqual: 'lowerEqual',
};

/** A binary op with NumPy broadcasting: scalars stay numbers, lower-rank operands are lifted. */
function binary(m: string): Emitter {
  return (ctx) => {
    const rank = ctx.out(0).rank;
    const sa = ctx.scalar(0);
    const sb = ctx.scalar(1);
    if (sb !== undefined && ctx.info(0).rank === rank) return [`${ctx.tensor(0)}.${SCALAR_FORM[m] ?? m}(${num(sb)})`];
    if (sa !== undefined && ctx.info(1).rank === rank) {
      const b = ctx.tensor(1);
      if (COMMUTATIVE.has(m)) return [`${b}.${SCALAR_FORM[m] ?? m}(${num(sa)})`];
      if (SWAPPED[m]) return [`${b}.${SWAPPED[m]}(${num(sa)})`];
      if (m === 'sub') return [sa === 0 ? `${b}.neg()` : `${b}.neg().add(${num(sa)})`];
      if (m === 'div' && kindOf(ctx.info(1).dtype) === 'Float')
        return [sa === 1 ? `${b}.recip()` : `${b}.recip().mul(${num(sa)})`];
    }
    return [`${ctx.lifted(0, rank)}.${m}(${ctx.lifted(1, rank)})`];
  };
}

/** Pow: small constant exponents read as the operation they are. */
const pow: Emitter = (ctx) => {
  const e = ctx.scalar(1);
  const rank = ctx.out(0).rank;
  if (e !== undefined && ctx.info(0).rank === rank) {
    const x = ctx.tensor(0);
    if (e === 1) return [x];
    if (e === 2) return [`${x}.square()`];
    if (e === 0.5) return [`${x}.sqrt()`];
    if (e === -1) return [`${x}.recip()`];
    return [
      kindOf(ctx.info(0).dtype) === 'Float'
        ? `${x}.powf(${num(e)})`
        : Number.isInteger(e) && e >= 0
          ? `${x}.powi(${num(e)})`
          : `${x}.float().powf(${num(e)}).int('${ctx.info(0).dtype}')`,
    ];
  }
  const base = ctx.lifted(0, rank);
  const ex = ctx.lifted(1, rank);
  const fb = kindOf(ctx.info(0).dtype) === 'Float';
  const fe = kindOf(ctx.info(1).dtype) === 'Float';
  if (fb && fe) return [`${base}.powf(${ex})`];
  // Mixed kinds: computed in floats, the result of the base's dtype (ONNX's Pow keeps the base's type).
  const b = fb ? base : `${base}.float()`;
  const x2 = fe ? (fb ? ex : `${ex}.cast('f32')`) : `${ex}.float()`;
  return [fb ? `${b}.powf(${x2})` : `${b}.powf(${x2}).int('${ctx.info(0).dtype}')`];
};

/** Variadic Max/Min/Sum/Mean: a chain of pairwise ops. */
function variadic(m: string, mean = false): Emitter {
  return (ctx) => {
    const rank = ctx.out(0).rank;
    const n = ctx.node.inputs.length;
    let e = ctx.lifted(0, rank);
    for (let i = 1; i < n; i++) e = `${e}.${m}(${ctx.lifted(i, rank)})`;
    return [mean && n > 1 ? `${e}.div(${n})` : e];
  };
}

/** The dtype named by a Cast's `to`, as a burn-ts dtype. */
function castTarget(ctx: EmitContext): string {
  const t = elemTypeOfCode(ctx.attrs.int('to', 0));
  if (
    !t ||
    t === 'undefined' ||
    t === 'string' ||
    t.startsWith('f8') ||
    t === 'u64' ||
    t.startsWith('complex') ||
    t.endsWith('4') ||
    t === 'f4e2m1'
  )
    return ctx.fail(`casts to ${t ?? 'an unknown type'}`);
  return t;
}

/** A conversion of expression `x` from `from` to `to` (Burn converts within a kind with `cast`, across kinds with `float`/`int`/`bool`). */
export function convert(x: string, from: string, to: string): string {
  if (from === to) return x;
  const kf = kindOf(from as never);
  const kt = kindOf(to as never);
  if (kt === 'Bool') return `${x}.bool()`;
  if (kt === 'Float')
    return kf === 'Float' ? `${x}.cast('${to}')` : to === 'f32' ? `${x}.float()` : `${x}.float('${to}')`;
  return kf === 'Int' ? `${x}.cast('${to}')` : `${x}.int('${to}')`;
}

const cast: Emitter = (ctx) => {
  const to = castTarget(ctx);
  const v = ctx.value(0);
  if (v?.kind === 'host') return [{ same: v }];
  return [convert(ctx.tensor(0), ctx.info(0).dtype, to)];
};

const clip: Emitter = (ctx) => {
  const lo = ctx.opset < 11 ? ctx.attrs.float('min') : ctx.has(1) ? ctx.scalar(1) : undefined;
  const hi = ctx.opset < 11 ? ctx.attrs.float('max') : ctx.has(2) ? ctx.scalar(2) : undefined;
  if ((ctx.opset >= 11 && ctx.has(1) && lo === undefined) || (ctx.opset >= 11 && ctx.has(2) && hi === undefined)) {
    // Bounds computed at run time: pairwise max and min with the (scalar) bound tensors.
    const rank = ctx.info(0).rank;
    let e = ctx.tensor(0);
    if (ctx.has(1)) e = lo !== undefined ? `${e}.clampMin(${num(lo)})` : `${e}.maxPair(${ctx.lifted(1, rank)})`;
    if (ctx.has(2)) e = hi !== undefined ? `${e}.clampMax(${num(hi)})` : `${e}.minPair(${ctx.lifted(2, rank)})`;
    return [e];
  }
  const x = ctx.tensor(0);
  if (lo !== undefined && hi !== undefined) return [`${x}.clamp(${num(lo)}, ${num(hi)})`];
  if (lo !== undefined) return [`${x}.clampMin(${num(lo)})`];
  if (hi !== undefined) return [`${x}.clampMax(${num(hi)})`];
  return [x];
};

/** Softmax-like ops: one axis (opset 13), or the last axis (earlier opsets flatten from `axis`, the same when it is the last). */
function softmax(m: string): Emitter {
  return (ctx) => {
    const rank = ctx.info(0).rank;
    const raw = ctx.attrs.int('axis', ctx.opset >= 13 ? -1 : 1);
    const axis = raw < 0 ? raw + rank : raw;
    if (ctx.opset < 13 && axis !== rank - 1)
      return ctx.fail(`has axis ${raw} under opset ${ctx.opset} (a flattened softmax over several dims)`);
    return [`${ctx.tensor(0)}.${m}(${axis})`];
  };
}

/** The reduced axes of a Reduce* node (attribute, or input 1 from opset 18 / ReduceSum 13), non-negative; undefined: all. */
function reduceAxes(ctx: EmitContext, inputFrom: number): number[] | undefined {
  const rank = ctx.info(0).rank;
  let axes: readonly number[] | undefined;
  if (ctx.opset >= inputFrom) {
    if (ctx.has(1)) {
      const h = ctx.host(1);
      if (!h || h.some((e) => !/^-?\d+$/.test(e))) return ctx.fail('has axes computed at run time');
      axes = h.map(Number);
    }
  } else axes = ctx.attrs.ints('axes');
  if (!axes || axes.length === 0) {
    if (ctx.attrs.int('noop_with_empty_axes', 0) === 1) return [];
    return undefined;
  }
  return axes.map((a) => (a < 0 ? a + rank : a)).sort((a, b) => a - b);
}

/** Reduce* as `<m>Dim(a)` / `<m>Dims([...])` (dims kept), squeezed unless `keepdims`. */
function reduce(m: string, pre = '', post = '', inputFrom = 18): Emitter {
  return (ctx) => {
    const rank = ctx.info(0).rank;
    const axes = reduceAxes(ctx, inputFrom) ?? Array.from({ length: rank }, (_, i) => i);
    let x = ctx.tensor(0);
    if (axes.length === 0) return [x];
    x = `${x}${pre}`;
    let e = axes.length === 1 ? `${x}.${m}Dim(${axes[0]})` : `${x}.${m}Dims([${axes.join(', ')}])`;
    e += post;
    if (ctx.attrs.int('keepdims', 1) === 0)
      e = axes.length === 1 ? `${e}.squeezeDim(${axes[0]})` : `${e}.squeezeDims([${axes.join(', ')}])`;
    return [e];
  };
}

function argReduce(m: string): Emitter {
  return (ctx) => {
    if (ctx.attrs.int('select_last_index', 0) === 1) return ctx.fail('selects the last index of ties');
    const rank = ctx.info(0).rank;
    const raw = ctx.attrs.int('axis', 0);
    const axis = raw < 0 ? raw + rank : raw;
    let e = `${ctx.tensor(0)}.${m}(${axis})`;
    if (ctx.attrs.int('keepdims', 1) === 0) e = `${e}.squeezeDim(${axis})`;
    // ONNX's indices are i64; Burn's argmax gives the backend's default int.
    return [ctx.out(0).dtype === 'i64' ? `${e}.cast('i64')` : e];
  };
}

/** NumPy matmul: 1-d operands get a dim (and lose it again); batch dims broadcast. */
const matmul: Emitter = (ctx) => {
  const ra = ctx.info(0).rank;
  const rb = ctx.info(1).rank;
  const r = Math.max(ra, rb, 2);
  const a = ra === 1 ? `${ctx.tensor(0)}.unsqueeze(${r})` : ctx.lifted(0, r);
  const b = rb === 1 ? `${ctx.tensor(1)}.unsqueezeDim(1)${r > 2 ? `.unsqueeze(${r})` : ''}` : ctx.lifted(1, r);
  if (ra === 1 && rb === 1) return [`${a}.matmul(${b}).reshape([])`];
  let e = `${a}.matmul(${b})`;
  if (ra === 1) e = `${e}.squeezeDim(${r - 2})`;
  if (rb === 1) e = `${e}.squeezeDim(${r - 1})`;
  return [e];
};

const where: Emitter = (ctx) => {
  const out = ctx.out(0);
  const fit = (i: number) => ctx.expanded(i, out.rank);
  const sx = ctx.scalar(1);
  const sy = ctx.scalar(2);
  const c = fit(0);
  if (sy !== undefined && sx === undefined) return [`${fit(1)}.maskFill(${c}.boolNot(), ${num(sy)})`];
  if (sx !== undefined) return [`${fit(2)}.maskFill(${c}, ${num(sx)})`];
  return [`${fit(2)}.maskWhere(${c}, ${fit(1)})`];
};

const gelu: Emitter = (ctx) => {
  if (ctx.attrs.string('approximate', 'none') === 'tanh') {
    ctx.use('burn-ts', 'activation');
    return [`activation.geluApproximate(${ctx.tensor(0)})`];
  }
  return [`${ctx.tensor(0)}.gelu()`];
};

const relu: Emitter = (ctx) => [
  kindOf(ctx.info(0).dtype) === 'Float' ? `${ctx.tensor(0)}.relu()` : `${ctx.tensor(0)}.clampMin(0)`,
];
const identity: Emitter = (ctx) => [{ same: ctx.value(0)! }];

/** The elementwise, activation, reduction and product emitters, by ONNX op type. */
export const elementwiseEmitters: Readonly<Record<string, Emitter>> = {
  Identity: identity,
  Dropout: (ctx): Emitted[] => {
    // Inference: the identity (a training-mode Dropout draws a mask; its mask output is not generated).
    if (ctx.has(2) && ctx.scalar(2) !== 0) return ctx.fail('runs in training mode');
    if (ctx.used(1)) return ctx.fail('returns its mask');
    return [{ same: ctx.value(0)! }];
  },
  TopK: (ctx) => {
    if (ctx.attrs.int('largest', 1) !== 1) return ctx.fail('selects the smallest values');
    const k = ctx.scalar(1);
    if (k === undefined) return ctx.fail('has k computed at run time');
    const rank = ctx.info(0).rank;
    const raw = ctx.attrs.int('axis', -1);
    const axis = raw < 0 ? raw + rank : raw;
    const v = ctx.local(`${ctx.hint}Values`);
    const i = ctx.local(`${ctx.hint}Indices`);
    ctx.stmt(`const [${v}, ${i}] = ${ctx.tensor(0)}.topkWithIndices(${k}, ${axis});`);
    return [v, ctx.out(1).dtype === 'i64' ? `${i}.cast('i64')` : i];
  },
  Add: binary('add'),
  Sub: binary('sub'),
  Mul: binary('mul'),
  Div: binary('div'),
  Pow: pow,
  Max: variadic('maxPair'),
  Min: variadic('minPair'),
  Sum: variadic('add'),
  Mean: variadic('add', true),
  Equal: binary('equal'),
  Less: binary('lower'),
  Greater: binary('greater'),
  LessOrEqual: binary('lowerEqual'),
  GreaterOrEqual: binary('greaterEqual'),
  And: binary('boolAnd'),
  Or: binary('boolOr'),
  Xor: binary('boolXor'),
  Not: method('boolNot'),
  Where: where,
  Neg: method('neg'),
  Abs: method('abs'),
  Sign: method('sign'),
  Exp: method('exp'),
  Log: method('log'),
  Sqrt: method('sqrt'),
  Reciprocal: method('recip'),
  Sin: method('sin'),
  Cos: method('cos'),
  Tan: method('tan'),
  Erf: method('erf'),
  Floor: method('floor'),
  Ceil: method('ceil'),
  Round: method('round'),
  Tanh: method('tanh'),
  Sigmoid: method('sigmoid'),
  Relu: relu,
  Gelu: gelu,
  LeakyRelu: act('leakyRelu', (c) => [c.attrs.float('alpha', 0.01)]),
  Elu: act('elu', (c) => [c.attrs.float('alpha', 1)]),
  Celu: act('celu', (c) => [c.attrs.float('alpha', 1)]),
  Selu: (ctx) => {
    const alpha = ctx.attrs.float('alpha', 1.67326319217681884765625);
    const gamma = ctx.attrs.float('gamma', 1.05070102214813232421875);
    if (Math.abs(alpha - 1.6732632) > 1e-6 || Math.abs(gamma - 1.050701) > 1e-6)
      return ctx.fail('has non-default alpha/gamma');
    ctx.use('burn-ts', 'activation');
    return [`activation.selu(${ctx.tensor(0)})`];
  },
  HardSigmoid: act('hardSigmoid', (c) => [c.attrs.float('alpha', 0.2), c.attrs.float('beta', 0.5)]),
  HardSwish: act('hardSwish'),
  Softplus: act('softplus'),
  Softsign: act('softsign'),
  Mish: act('mish'),
  ThresholdedRelu: act('thresholdedRelu', (c) => [c.attrs.float('alpha', 1)]),
  Sinh: method('sinh'),
  Cosh: method('cosh'),
  Asin: method('asin'),
  Acos: method('acos'),
  Atan: method('atan'),
  Asinh: method('asinh'),
  Acosh: method('acosh'),
  Atanh: method('atanh'),
  IsNaN: method('isNan'),
  IsInf: (ctx) => {
    if (ctx.attrs.int('detect_negative', 1) !== 1 || ctx.attrs.int('detect_positive', 1) !== 1)
      return ctx.fail('detects one sign of infinity only');
    return [`${ctx.tensor(0)}.isInf()`];
  },
  Mod: (ctx) => {
    const rank = ctx.out(0).rank;
    if (ctx.attrs.int('fmod', 0) === 1) {
      if (kindOf(ctx.info(0).dtype) !== 'Float') return ctx.fail('is an integer fmod');
      return [
        `${ctx.lifted(0, rank)}.fmod(${ctx.scalar(1) !== undefined ? num(ctx.scalar(1)!) : ctx.lifted(1, rank)})`,
      ];
    }
    // Python's modulo: the divisor's sign, as Burn's remainder.
    return [
      `${ctx.lifted(0, rank)}.remainder(${ctx.scalar(1) !== undefined ? num(ctx.scalar(1)!) : ctx.lifted(1, rank)})`,
    ];
  },
  CumSum: (ctx) => {
    if (ctx.attrs.int('exclusive', 0) === 1 || ctx.attrs.int('reverse', 0) === 1)
      return ctx.fail('is exclusive or reversed');
    const a = ctx.scalar(1);
    if (a === undefined) return ctx.fail('has an axis computed at run time');
    const rank = ctx.info(0).rank;
    return [`${ctx.tensor(0)}.cumsum(${a < 0 ? a + rank : a})`];
  },
  PRelu: (ctx) => {
    const rank = ctx.out(0).rank;
    const x = ctx.tensor(0, false);
    return [`${x}.maskWhere(${x}.lower(0), ${x}.mul(${ctx.lifted(1, rank)}))`];
  },
  Shrink: act('shrink', (c) => [c.attrs.float('lambd', 0.5), c.attrs.float('bias', 0)]),
  Clip: clip,
  Cast: cast,
  CastLike: (ctx) => [convert(ctx.tensor(0), ctx.info(0).dtype, ctx.info(1).dtype)],
  Softmax: softmax('softmax'),
  LogSoftmax: softmax('logSoftmax'),
  ReduceMean: reduce('mean'),
  ReduceSum: reduce('sum', '', '', 13),
  ReduceMax: reduce('max'),
  ReduceMin: reduce('min'),
  ReduceProd: reduce('prod'),
  ReduceSumSquare: reduce('sum', '.square()'),
  ReduceL1: reduce('sum', '.abs()'),
  ReduceL2: reduce('sum', '.square()', '.sqrt()'),
  ArgMax: argReduce('argmax'),
  ArgMin: argReduce('argmin'),
  MatMul: matmul,
};
