import { literal, num, type EmitContext, type Emitter } from './context.js';

/**
 * Emitters of operators without a Burn layer that read well as a few tensor-API lines: Lp and
 * mean-variance normalization, the NLL and softmax cross-entropy losses, opset 23's Attention
 * (`functional.attention`) and RotaryEmbedding (the rotation written out).
 */

function axisOf(ctx: EmitContext, raw: number): number {
  const rank = ctx.info(0).rank;
  return raw < 0 ? raw + rank : raw;
}

const lpNormalization: Emitter = (ctx) => {
  const axis = axisOf(ctx, ctx.attrs.int('axis', -1));
  const p = ctx.attrs.int('p', 2);
  if (p !== 1 && p !== 2) return ctx.fail(`has p = ${p}`);
  const x = ctx.tensor(0, false);
  return [p === 1 ? `${x}.div(${x}.abs().sumDim(${axis}))` : `${x}.div(${x}.square().sumDim(${axis}).sqrt())`];
};

const meanVarianceNormalization: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const axes = (ctx.attrs.ints('axes') ?? [0, 2, 3]).map((a) => (a < 0 ? a + rank : a));
  const centered = ctx.local(`${ctx.hint}Centered`);
  ctx.stmt(`const ${centered} = ${ctx.tensor(0, false)}.sub(${ctx.tensor(0, false)}.meanDims(${literal(axes)}));`);
  return [`${centered}.div(${centered}.square().meanDims(${literal(axes)}).sqrt().add(1e-9))`];
};

/** `-logp[target]` weighted and reduced as ONNX's NegativeLogLikelihoodLoss, from log-probabilities `logp` (an expression used twice at most). */
function nll(ctx: EmitContext, logp: string, weightIndex: number): string {
  const reduction = ctx.attrs.string('reduction', 'mean');
  if (reduction !== 'none' && reduction !== 'sum' && reduction !== 'mean')
    return ctx.fail(`has reduction '${reduction}'`);
  const ignore = ctx.attrs.int('ignore_index');
  let target = ctx.tensor(1, false);
  let kept: string | undefined;
  if (ignore !== undefined) {
    kept = ctx.local(`${ctx.hint}Kept`);
    ctx.stmt(`const ${kept} = ${target}.notEqual(${ignore});`);
    const safe = ctx.local(`${ctx.hint}Target`);
    ctx.stmt(`const ${safe} = ${target}.maskFill(${kept}.boolNot(), 0);`);
    target = safe;
  }
  const picked = `${logp}.gather(1, ${target}.unsqueezeDim(1)).squeezeDim(1).neg()`;
  const rank = ctx.info(1).rank;
  const hasWeight = ctx.has(weightIndex);
  let weights: string | undefined;
  if (hasWeight || kept) {
    weights = ctx.local(`${ctx.hint}Weights`);
    const base = hasWeight ? `${ctx.tensor(weightIndex)}.take<${rank}>(0, ${target})` : `${kept}.float()`;
    ctx.stmt(`const ${weights} = ${hasWeight && kept ? `${base}.maskFill(${kept}.boolNot(), 0)` : base};`);
  }
  const loss = weights ? `${picked}.mul(${weights})` : picked;
  if (reduction === 'none') return loss;
  if (reduction === 'sum') return `${loss}.sum().reshape([])`;
  return weights ? `${loss}.sum().div(${weights}.sum()).reshape([])` : `${loss}.mean().reshape([])`;
}

const negativeLogLikelihoodLoss: Emitter = (ctx) => [nll(ctx, ctx.tensor(0, false), 2)];

const softmaxCrossEntropyLoss: Emitter = (ctx) => {
  const logp = ctx.local(`${ctx.hint}LogProb`);
  ctx.stmt(`const ${logp} = ${ctx.tensor(0)}.logSoftmax(1);`);
  return [nll(ctx, logp, 2), logp];
};

function logReduce(exp: boolean): Emitter {
  return (ctx) => {
    const rank = ctx.info(0).rank;
    let axes: number[] | undefined;
    if (ctx.opset >= 18) {
      if (ctx.has(1)) {
        const h = ctx.host(1);
        if (!h || !h.every((e) => /^-?\d+$/.test(e))) return ctx.fail('has axes computed at run time');
        axes = h.map(Number);
      }
    } else axes = ctx.attrs.ints('axes')?.slice();
    const dims = (axes && axes.length > 0 ? axes : Array.from({ length: rank }, (_, i) => i))
      .map((a) => (a < 0 ? a + rank : a))
      .sort((a, b) => a - b);
    const x = exp ? ctx.tensor(0, false) : ctx.tensor(0);
    // log Σ exp(x) with the maximum taken out (no overflow).
    let e = exp
      ? `${x}.sub(${x}.maxDims(${literal(dims)})).exp().sumDims(${literal(dims)}).log().add(${x}.maxDims(${literal(dims)}))`
      : `${x}.sumDims(${literal(dims)}).log()`;
    if (ctx.attrs.int('keepdims', 1) === 0) e = `${e}.squeezeDims(${literal(dims)})`;
    return [e];
  };
}

/** Upsample (opsets 7–9): a nearest (or linear) resize by constant scales, as `nn.Interpolate2d`. */
const upsample: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  if (rank !== 4) return ctx.fail(`upsamples a tensor of rank ${rank}`);
  const scales =
    ctx.opset >= 9 ? ctx.constant(1) && Array.from(ctx.constant(1)!.toArray()) : ctx.attrs.floats('scales')?.slice();
  if (!scales || scales[0] !== 1 || scales[1] !== 1)
    return ctx.fail('has scales computed at run time or scales the batch or channels');
  const mode = ctx.attrs.string('mode', 'nearest');
  const inDims = ctx.info(0).dims.slice(2);
  if (!inDims.every((d, i) => typeof d !== 'number' || Number.isInteger(d * scales[i + 2]!)))
    return ctx.fail('has scales that do not give whole sizes');
  if (mode !== 'nearest') return ctx.fail(`has mode '${mode}' (the legacy asymmetric linear mapping has no layer)`);
  const field = ctx.layer(ctx.hint, {
    cls: 'Interpolate2d',
    configCls: 'Interpolate2dConfig',
    config: { scaleFactor: scales.slice(2), mode: 'nearest' },
    device: false,
    weights: new Map(),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

const lrn: Emitter = (ctx) => {
  const config: Record<string, unknown> = { size: ctx.attrs.int('size', 1) };
  const alpha = ctx.attrs.float('alpha', 1e-4);
  const beta = ctx.attrs.float('beta', 0.75);
  const bias = ctx.attrs.float('bias', 1);
  if (Math.abs(alpha - 1e-4) > 1e-12) config.alpha = alpha;
  if (Math.abs(beta - 0.75) > 1e-7) config.beta = beta;
  if (bias !== 1) config.k = bias;
  const field = ctx.layer(ctx.hint, {
    cls: 'LocalResponseNorm',
    configCls: 'LocalResponseNormConfig',
    config,
    device: false,
    weights: new Map(),
  });
  return [`this.${field}.forward(${ctx.tensor(0)})`];
};

/**
 * Attention (opset 23) without a cache or qk output: `functional.attention` over `[B, H, S, E]`
 * (3-d inputs split into heads first), grouped-query heads repeated, masks as Burn's mask or bias.
 */
const attention: Emitter = (ctx) => {
  if (ctx.has(4) || ctx.has(5) || ctx.has(6)) return ctx.fail('has a key/value cache (past_key, past_value)');
  if (ctx.used(1) || ctx.used(2) || ctx.used(3)) return ctx.fail('returns its cache or qk product');
  const rank = ctx.info(0).rank;
  const qh = ctx.attrs.int('q_num_heads');
  const kvh = ctx.attrs.int('kv_num_heads');
  const heads = (i: number, n: number | undefined): string => {
    if (rank === 4) return ctx.tensor(i);
    if (!n) return ctx.fail('has 3-d inputs without q_num_heads and kv_num_heads');
    return `${ctx.tensor(i)}.reshape([0, 0, ${n}, -1]).swapDims(1, 2)`;
  };
  const q = heads(0, qh);
  const qHeads = rank === 4 ? ctx.info(0).dims[1] : qh;
  const kHeads = rank === 4 ? ctx.info(1).dims[1] : kvh;
  if (typeof qHeads !== 'number' || typeof kHeads !== 'number') return ctx.fail('has head counts that vary');
  const reps = qHeads / kHeads;
  const repeat = (e: string) =>
    reps === 1 ? e : `${e}.unsqueezeDim(2).expand([-1, -1, ${reps}, -1, -1]).flatten(1, 2)`;
  const k = repeat(heads(1, kvh));
  const v = repeat(heads(2, kvh));
  const opts: string[] = [];
  const scale = ctx.attrs.float('scale');
  if (scale !== undefined) opts.push(`scale: ${num(scale)}`);
  const softcap = ctx.attrs.float('softcap', 0);
  if (softcap > 0) opts.push(`softcap: ${num(softcap)}`);
  if (ctx.attrs.int('is_causal', 0) === 1) {
    const l = ctx.out(0).dims[rank === 4 ? 2 : 1];
    const s = ctx.info(1).dims[rank === 4 ? 2 : 1];
    // Burn aligns the causal mask at the bottom-right; ONNX without a cache at the top-left: the same when the lengths agree.
    if (l === undefined || s === undefined || JSON.stringify(l) !== JSON.stringify(s))
      return ctx.fail('is causal over query and key lengths that may differ');
    opts.push('isCausal: true');
  }
  if (ctx.has(3)) {
    const m = ctx.info(3);
    const kd = ctx.info(1).dims[rank === 4 ? 2 : 1];
    const last = m.dims[m.rank - 1];
    let mask = ctx.lifted(3, 4);
    if (last !== kd) {
      // A mask over the first keys only: the rest are masked (ONNX pads it).
      if (typeof last !== 'number' || typeof kd !== 'number' || m.dtype === 'bool')
        return ctx.fail('has a mask shorter than the keys whose sizes vary');
      mask = `${mask}.pad([[0, 0], [0, 0], [0, 0], [0, ${kd - last}]], -Infinity)`;
    }
    opts.push(m.dtype === 'bool' ? `mask: ${mask}.boolNot()` : `bias: ${mask}`);
  }
  ctx.use('burn-ts', 'functional');
  const y = `functional.attention(${q}, ${k}, ${v}${opts.length ? `, { ${opts.join(', ')} }` : ''})`;
  return [rank === 4 ? y : `${y}.swapDims(1, 2).flatten(2, 3)`];
};

/** RotaryEmbedding (opset 23), written out: the halves (or even/odd dims) rotated by the cached angles. */
const rotaryEmbedding: Emitter = (ctx) => {
  const rank = ctx.info(0).rank;
  const interleaved = ctx.attrs.int('interleaved', 0) === 1;
  const heads = ctx.attrs.int('num_heads', 0);
  const d =
    rank === 4
      ? ctx.info(0).dims[3]
      : typeof ctx.info(0).dims[2] === 'number' && heads
        ? (ctx.info(0).dims[2] as number) / heads
        : undefined;
  if (typeof d !== 'number') return ctx.fail('has a head size that varies');
  const rot = ctx.attrs.int('rotary_embedding_dim', 0) || d;
  const half = rot / 2;
  const t = ctx.local(`${ctx.hint}Heads`);
  ctx.stmt(
    `const ${t} = ${rank === 4 ? `${ctx.tensor(0)}.swapDims(1, 2)` : `${ctx.tensor(0)}.reshape([0, 0, ${heads}, ${d}])`};`,
  );
  const pick = (i: number) => {
    const c = ctx.has(3) ? `${ctx.tensor(i)}.take<3>(0, ${ctx.tensor(3, false)})` : ctx.tensor(i);
    return `${c}.sliceDim(2, [0, ${half}]).unsqueezeDim(2)`;
  };
  const cos = ctx.local(`${ctx.hint}Cos`);
  const sin = ctx.local(`${ctx.hint}Sin`);
  ctx.stmt(`const ${cos} = ${pick(1)};`);
  ctx.stmt(`const ${sin} = ${pick(2)};`);
  const x1 = ctx.local(`${ctx.hint}X1`);
  const x2 = ctx.local(`${ctx.hint}X2`);
  ctx.stmt(`const ${x1} = ${t}.sliceDim(3, ${interleaved ? `[0, ${rot}, 2]` : `[0, ${half}]`});`);
  ctx.stmt(`const ${x2} = ${t}.sliceDim(3, ${interleaved ? `[1, ${rot}, 2]` : `[${half}, ${rot}]`});`);
  ctx.use('burn-ts', 'Tensor');
  const real = `${x1}.mul(${cos}).sub(${x2}.mul(${sin}))`;
  const imag = `${x1}.mul(${sin}).add(${x2}.mul(${cos}))`;
  let out = interleaved ? `Tensor.stack([${real}, ${imag}], 4).flatten(3, 4)` : `Tensor.cat([${real}, ${imag}], 3)`;
  if (rot < d) out = `Tensor.cat([${out}, ${t}.sliceDim(3, [${rot}, ${d}])], 3)`;
  return [rank === 4 ? `${out}.swapDims(1, 2)` : `${out}.flatten(2, 3)`];
};

/** The composite emitters, by ONNX op type. */
export const compositeEmitters: Readonly<Record<string, Emitter>> = {
  LpNormalization: lpNormalization,
  MeanVarianceNormalization: meanVarianceNormalization,
  LRN: lrn,
  Upsample: upsample,
  NegativeLogLikelihoodLoss: negativeLogLikelihoodLoss,
  SoftmaxCrossEntropyLoss: softmaxCrossEntropyLoss,
  ReduceLogSumExp: logReduce(true),
  ReduceLogSum: logReduce(false),
  Attention: attention,
  RotaryEmbedding: rotaryEmbedding,
};
