import { broadcastShapes, sameShape } from '../../core/shape.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { FloatDType } from '../../core/dtype.js';
import type { Bool, Float } from '../kind.js';
import { Tensor } from '../tensor.js';
import { expectFloatOn, expectRank } from './check.js';

/** Options of `attention` (Burn's `attention` arguments and `AttentionModuleOptions`). */
export interface AttentionFnOptions {
  /** Bool mask broadcastable to `[B, H, L, S]`: `true` hides that key from that query. */
  readonly mask?: Tensor<4, Bool>;
  /** Additive bias broadcastable to `[B, H, L, S]` (ALiBi, relative positions), added after masking. */
  readonly bias?: Tensor<4, Float>;
  /** Score scale (default `1 / sqrt(E)`). */
  readonly scale?: number;
  /** Soft cap `c`: scores become `c · tanh(scores / c)` before masking (must be positive). */
  readonly softcap?: number;
  /** Hide keys after each query's position, aligned at the bottom-right corner (default false). */
  readonly isCausal?: boolean;
}

/** Checks the arguments of {@link attention} and {@link attentionFallback}. */
function checkAttention(
  op: string,
  q: Tensor<4, Float>,
  k: Tensor<4, Float>,
  v: Tensor<4, Float>,
  options: AttentionFnOptions,
): void {
  q.expectFloat(op);
  expectRank(q, 4, 'query', op, '[B, H, L, E]');
  expectFloatOn(q, k, 'key', op);
  expectRank(k, 4, 'key', op, '[B, H, S, E]');
  expectFloatOn(q, v, 'value', op);
  expectRank(v, 4, 'value', op, '[B, H, S, Ev]');
  const [bq, hq, l, e] = q.primitive.shape as [number, number, number, number];
  const ks = k.primitive.shape,
    vs = v.primitive.shape;
  if (ks[0] !== bq || ks[1] !== hq || ks[3] !== e || vs[0] !== bq || vs[1] !== hq || vs[2] !== ks[2]) {
    throw new BurnError(
      op,
      `query ${fmt(q.primitive.shape)}, key ${fmt(ks)}, value ${fmt(vs)}; expected [B, H, L, E], [B, H, S, E] and [B, H, S, Ev]`,
    );
  }
  const scores = [bq, hq, l, ks[2]!];
  const fits = (t: Tensor<4, Float> | Tensor<4, Bool>, name: string) => {
    const s = t.primitive.shape;
    let ok = s.length === 4;
    try {
      ok &&= sameShape(broadcastShapes(s, scores, op), scores);
    } catch {
      ok = false;
    }
    if (!ok)
      throw new BurnError(
        op,
        `${name} of shape ${fmt(s)}; expected a shape broadcastable to the scores ${fmt(scores)}`,
      );
  };
  const { mask, bias, scale, softcap } = options;
  if (mask !== undefined) {
    q.sameDevice(mask, op);
    if (mask.primitive.dtype !== 'bool')
      throw new BurnError(op, `mask must be a Bool tensor, got ${mask.primitive.dtype}`);
    fits(mask, 'mask');
  }
  if (bias !== undefined) {
    expectFloatOn(q, bias, 'bias', op);
    fits(bias, 'bias');
  }
  if (scale !== undefined && !Number.isFinite(scale))
    throw new BurnError(op, `scale ${scale}; expected a finite number`);
  if (softcap !== undefined && !(softcap > 0 && Number.isFinite(softcap)))
    throw new BurnError(op, `softcap ${softcap}; expected a positive number`);
}

/**
 * Scaled dot-product attention `softmax(q · kᵀ · scale) · v` (Burn's `attention`): the backend's
 * attention op, which may be a fused kernel. A row whose keys are all masked gives zeros (Burn's
 * NaN-safe softmax), not NaN; the soft cap applies before the masks, so it never unmasks a key.
 *
 * @param q queries `[B, H, L, E]`
 * @param k keys `[B, H, S, E]`
 * @param v values `[B, H, S, Ev]`
 * @returns `[B, H, L, Ev]`
 */
export function attention(
  q: Tensor<4, Float>,
  k: Tensor<4, Float>,
  v: Tensor<4, Float>,
  options: AttentionFnOptions = {},
): Tensor<4, Float> {
  checkAttention('attention', q, k, v, options);
  const { mask, bias, scale, softcap } = options;
  const p = q.backend.attention(
    q.primitive,
    q.castLike(k.primitive),
    q.castLike(v.primitive),
    mask?.primitive,
    bias && q.castLike(bias.primitive),
    { scale, softcap, isCausal: options.isCausal ?? false },
  );
  return q.wrap<4, Float>(p);
}

/** The most negative finite value and the smallest positive normal of a float dtype. */
function finfo(dtype: FloatDType): { min: number; minPositive: number } {
  switch (dtype) {
    case 'f64':
      return { min: -Number.MAX_VALUE, minPositive: 2 ** -1022 };
    case 'f16':
      return { min: -65504, minPositive: 2 ** -14 };
    case 'bf16':
      return { min: -3.3895313892515355e38, minPositive: 2 ** -126 };
    case 'f32':
      return { min: -3.4028234663852886e38, minPositive: 2 ** -126 };
  }
}

/**
 * Attention written out in tensor ops, step by step (Burn's `attention_fallback`, the reference
 * that backends' fused attention is tested against): `scores = q · kᵀ · scale`; the soft cap
 * `c · tanh(scores / c)`; the Bool mask and the causal mask (bottom-right aligned: query `i` sees
 * keys `j <= i + S - L`) set `-∞`; the bias is added; then a NaN-safe softmax (the row maximum
 * clamped to the dtype's lowest finite value and the row sum to its smallest normal, so a fully
 * masked row gives zeros and finite gradients); then `· v`.
 *
 * @param q queries `[B, H, L, E]`
 * @param k keys `[B, H, S, E]`
 * @param v values `[B, H, S, Ev]`
 * @returns `[B, H, L, Ev]`
 */
export function attentionFallback(
  q: Tensor<4, Float>,
  k: Tensor<4, Float>,
  v: Tensor<4, Float>,
  options: AttentionFnOptions = {},
): Tensor<4, Float> {
  checkAttention('attentionFallback', q, k, v, options);
  const { mask, bias, softcap } = options;
  const [, , l, e] = q.dims() as [number, number, number, number];
  const s = k.dims()[2]!;
  let scores = q.matmul(k.swapDims(2, 3)).mul(options.scale ?? 1 / Math.sqrt(e));
  // Before the masks: tanh(-∞ / c) would turn a masked -∞ back into the finite -c.
  if (softcap !== undefined) scores = scores.div(softcap).tanh().mul(softcap);
  if (mask !== undefined) scores = scores.maskFill(mask, -Infinity);
  if (options.isCausal) {
    const causal = Tensor.arange(0, s, q.device())
      .reshape([1, s])
      .greater(Tensor.arange(s - l, s, q.device()).reshape([l, 1]));
    scores = scores.maskFill(causal.reshape([1, 1, l, s]), -Infinity);
  }
  if (bias !== undefined) scores = scores.add(bias);
  const { min, minPositive } = finfo(q.dtype() as FloatDType);
  const max = scores.maxDim(3).clampMin(min).detach();
  const num = scores.sub(max).exp();
  const weights = num.div(num.sumDim(3).clampMin(minPositive));
  return weights.matmul(v);
}
