import type { DType } from '../../core/dtype.js';
import type { Backend, TensorPrimitive } from '../backend.js';
import type { AttentionOptions } from '../options.js';
import { hostTensor } from './spatial.js';

/** The most negative finite value and the smallest positive normal of each float dtype. */
function finfo(dtype: DType): { min: number; minPositive: number } {
  switch (dtype) {
    case 'f64':
      return { min: -Number.MAX_VALUE, minPositive: 2.2250738585072014e-308 };
    case 'f16':
      return { min: -65504, minPositive: 6.103515625e-5 };
    case 'bf16':
      return { min: -3.3895313892515355e38, minPositive: 1.1754943508222875e-38 };
    default:
      return { min: -3.4028234663852886e38, minPositive: 1.1754943508222875e-38 };
  }
}

/**
 * Scaled dot-product attention as Burn's fallback: `softmax(q · kᵀ · scale)` with, in this
 * order, the soft cap `c · tanh(s / c)`, the Bool mask (true = masked, -inf), the causal mask
 * (aligned at the bottom-right corner, so a query sees keys up to `row + S - L`) and the additive
 * bias; then `· v`. The softmax is NaN-safe: a fully masked row gives zeros.
 *
 * Shapes: `q` `[..., L, E]`, `k` `[..., S, E]`, `v` `[..., S, Ev]`; mask and bias broadcast to
 * `[..., L, S]`.
 */
export function attention<P extends TensorPrimitive>(
  b: Backend<P>,
  q: P,
  k: P,
  v: P,
  mask: P | undefined,
  bias: P | undefined,
  o: AttentionOptions,
): P {
  const rank = q.shape.length;
  const [l, e] = [q.shape[rank - 2]!, q.shape[rank - 1]!];
  const s = k.shape[rank - 2]!;
  const kt = b.permute(
    k,
    Array.from({ length: rank }, (_, i) => (i === rank - 2 ? rank - 1 : i === rank - 1 ? rank - 2 : i)),
  );
  let scores = b.binaryScalar('mul', b.matmul(q, kt), o.scale ?? 1 / Math.sqrt(e));
  if (o.softcap !== undefined) {
    scores = b.binaryScalar('mul', b.unary('tanh', b.binaryScalar('div', scores, o.softcap)), o.softcap);
  }
  if (mask !== undefined) scores = b.maskFill(scores, mask, -Infinity);
  if (o.isCausal) {
    const causal = new Uint8Array(l * s);
    for (let i = 0; i < l; i++) for (let j = 0; j < s; j++) causal[i * s + j] = j > i + s - l ? 1 : 0;
    scores = b.maskFill(
      scores,
      hostTensor(b, causal, [...new Array<number>(rank - 2).fill(1), l, s], 'bool'),
      -Infinity,
    );
  }
  if (bias !== undefined) scores = b.binary('add', scores, bias);

  const { min, minPositive } = finfo(scores.dtype);
  const max = b.binaryScalar('max', b.reduce('max', scores, [rank - 1]), min);
  const num = b.unary('exp', b.binary('sub', scores, max));
  const sum = b.binaryScalar('max', b.reduce('sum', num, [rank - 1]), minPositive);
  return b.matmul(b.binary('div', num, sum), v);
}
