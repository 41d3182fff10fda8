import { BurnError, fmt } from '../../core/errors.js';
import * as F from '../../tensor/functional/index.js';
import type { Bool } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Dim } from '../ir/types.js';
import type { AnyTensor, BoolT, FloatT, InferContext, OpContext, OpDef, OpFamily, Value } from './types.js';
import { inferSame } from './unary.js';
import { asF, asI, castTo, inShape, optTensorAt, sameElem, tensorAt } from './util.js';

const OP = 'onnx';
type Inputs = readonly (Value | undefined)[];

function fail(ctx: OpContext, msg: string): never {
  throw new BurnError(OP, `node '${ctx.node.name}' (${ctx.node.opType}) ${msg}`);
}

/** `[B, S, heads·D]` → `[B, heads, S, D]` (the 3-d form of Attention's inputs). */
function splitHeads(ctx: OpContext, t: FloatT, heads: number, what: string): FloatT {
  const [b, s, hidden] = t.dims() as [number, number, number];
  if (hidden % heads !== 0) fail(ctx, `has ${what} of hidden size ${hidden}, not a multiple of ${heads} heads`);
  return t.reshape([b, s, heads, hidden / heads]).swapDims(1, 2);
}

/** Repeats each key/value head `reps` times in place (`[h0, h0, h1, h1, …]`), for grouped-query attention. */
function repeatHeads(t: FloatT, reps: number): FloatT {
  if (reps === 1) return t;
  const [b, h, s, d] = t.dims() as [number, number, number, number];
  return t
    .reshape([b, h, 1, s, d])
    .expand([b, h, reps, s, d])
    .reshape([b, h * reps, s, d]);
}

/** A mask or bias of rank ≤ 4 lifted to rank 4 (leading dims of 1), its last dim padded to `total` keys with `fill`. */
function maskTo4d<T extends AnyTensor>(ctx: OpContext, m: T, total: number, fill: number | boolean): T {
  const dims = m.dims();
  if (dims.length > 4 || dims.length < 1)
    fail(
      ctx,
      `has attn_mask of shape ${fmt(dims)}; expected a shape broadcastable to [batch, heads, q_seq, total_seq]`,
    );
  let t = m.reshape([...new Array<number>(4 - dims.length).fill(1), ...dims]) as T;
  const last = dims[dims.length - 1]!;
  if (last < total)
    t = t.pad(
      [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, total - last],
      ],
      fill as number,
    ) as T;
  else if (last > total) fail(ctx, `has attn_mask over ${last} keys; the keys (past and present) number ${total}`);
  return t;
}

/**
 * ONNX `Attention` (opset 23): scaled dot-product attention over 4-d `[B, heads, seq, head]` or
 * 3-d `[B, seq, heads·head]` inputs (then `q_num_heads`/`kv_num_heads` are required), with a
 * key/value cache (`past_key`/`past_value` concatenated before the new keys; the results are the
 * `present_*` outputs), grouped-query attention (each key/value head serves `q_heads / kv_heads`
 * consecutive query heads), a boolean (true = attend) or additive mask whose key dim may be
 * shorter than the keys (padded as masked), causal masking (query `i` sees keys `j <= i + past`),
 * a soft cap applied before the mask (so a masked key stays masked), and the optional
 * `qk_matmul_output` (mode 0: scaled QKᵀ, 1: with soft cap and mask, 2: with soft cap, 3: softmax).
 * Without `qk_matmul_output` it runs Burn's `attention` (the backend's kernel).
 */
function attention(ctx: OpContext, inputs: Inputs): (AnyTensor | undefined)[] {
  let q = asF(tensorAt(ctx, inputs, 0));
  let k = asF(tensorAt(ctx, inputs, 1));
  let v = asF(tensorAt(ctx, inputs, 2));
  const mask = optTensorAt(ctx, inputs, 3);
  const pastK = optTensorAt(ctx, inputs, 4);
  const pastV = optTensorAt(ctx, inputs, 5);
  if (ctx.node.inputs[6]) fail(ctx, 'has input nonpad_kv_seqlen (opset 24), which is not supported');
  const rank = q.rank();
  if (k.rank() !== rank || v.rank() !== rank || (rank !== 3 && rank !== 4)) {
    fail(
      ctx,
      `has Q, K, V of shapes ${fmt(q.dims())}, ${fmt(k.dims())}, ${fmt(v.dims())}; expected all 3-d [batch, seq, hidden] or all 4-d [batch, heads, seq, head]`,
    );
  }
  if (rank === 3) {
    const qh = ctx.attrs.int('q_num_heads');
    const kvh = ctx.attrs.int('kv_num_heads');
    if (!qh || !kvh) fail(ctx, 'has 3-d inputs without the q_num_heads and kv_num_heads attributes');
    q = splitHeads(ctx, q, qh, 'Q');
    k = splitHeads(ctx, k, kvh, 'K');
    v = splitHeads(ctx, v, kvh, 'V');
  }
  if (pastK) k = Tensor.cat([asF(pastK), k], 2);
  if (pastV) v = Tensor.cat([asF(pastV), v], 2);
  const presentK = k;
  const presentV = v;
  const [batch, qHeads, qLen, headSize] = q.dims() as [number, number, number, number];
  const [kb, kvHeads, total, kHead] = k.dims() as [number, number, number, number];
  const vd = v.dims();
  if (kb !== batch || kHead !== headSize || vd[0] !== batch || vd[1] !== kvHeads || vd[2] !== total) {
    fail(
      ctx,
      `has Q ${fmt(q.dims())}, K ${fmt(k.dims())}, V ${fmt(vd)} (4-d, with any cache); expected [B, Hq, L, E], [B, Hkv, S, E], [B, Hkv, S, Ev]`,
    );
  }
  if (qHeads % kvHeads !== 0)
    fail(ctx, `has ${qHeads} query heads and ${kvHeads} key/value heads; expected a multiple`);
  const reps = qHeads / kvHeads;
  const scale = ctx.attrs.float('scale') ?? 1 / Math.sqrt(headSize);
  const softcap = ctx.attrs.float('softcap', 0);
  const causal = ctx.attrs.int('is_causal', 0) === 1;
  const past = pastK ? pastK.dims()[2]! : 0;
  const wantQk = (ctx.node.outputs[3] ?? '') !== '';
  const half = q.dtype() === 'f16' || q.dtype() === 'bf16';
  const dtype = q.dtype();
  const work = (t: FloatT): FloatT => (half ? t.cast('f32') : t);
  const kr = work(repeatHeads(k, reps));
  const vr = work(repeatHeads(v, reps));
  const qw = work(q);
  // Hidden keys as a Bool mask (true hides) and an additive float bias, both [.., L, S].
  let hide: BoolT | undefined;
  let bias: FloatT | undefined;
  if (mask) {
    if (mask.dtype() === 'bool') hide = (maskTo4d(ctx, mask as BoolT, total, false) as BoolT).boolNot();
    else bias = work(maskTo4d(ctx, asF(mask), total, -Infinity));
  }
  // Burn's causal flag aligns at the bottom-right (offset S - L); ONNX's offset is the past length.
  const nativeCausal = causal && total - qLen === past;
  if (causal && !nativeCausal) {
    const rows = Tensor.arange(0, qLen, { device: q.device() }).reshape([qLen, 1]);
    const cols = Tensor.arange(0, total, { device: q.device() }).reshape([1, total]);
    const later = cols
      .expand([qLen, total])
      .greater(rows.add(past).expand([qLen, total]))
      .reshape([1, 1, qLen, total]);
    hide = hide ? hide.boolOr(later.expand(hide.dims() as [number, number, number, number])) : later;
  }
  let y: FloatT;
  let qk: FloatT | undefined;
  if (!wantQk) {
    y = F.attention(qw as Tensor<4>, kr as Tensor<4>, vr as Tensor<4>, {
      scale,
      isCausal: nativeCausal,
      ...(softcap > 0 ? { softcap } : {}),
      ...(hide ? { mask: hide as Tensor<4, Bool> } : {}),
      ...(bias ? { bias: bias as Tensor<4> } : {}),
    });
  } else {
    const mode = ctx.attrs.int('qk_matmul_output_mode', 0);
    const raw = qw.mul(scale).matmul(kr.swapDims(2, 3));
    let s = softcap > 0 ? raw.div(softcap).tanh().mul(softcap) : raw;
    const capped = s;
    if (nativeCausal) {
      const later = Tensor.triuMask([qLen, total], total - qLen + 1, q.device()).reshape([1, 1, qLen, total]);
      hide = hide ? hide.boolOr(later.expand(hide.dims() as [number, number, number, number])) : later;
    }
    if (hide) s = s.maskFill(hide.expand(s.dims() as [number, number, number, number]) as BoolT, -Infinity);
    if (bias) s = s.add(bias.expand(s.dims() as [number, number, number, number]) as FloatT);
    const p = s.softmax(3);
    y = p.matmul(vr);
    qk = mode === 0 ? raw : mode === 1 ? s : mode === 2 ? capped : p;
    if (half) qk = qk.cast(dtype);
  }
  if (half) y = y.cast(dtype);
  if (rank === 3) y = y.swapDims(1, 2).reshape([batch, qLen, qHeads * y.dims()[3]!]);
  return [y as AnyTensor, presentK as AnyTensor, presentV as AnyTensor, qk as AnyTensor | undefined];
}

function inferAttention(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  const q = inShape(ctx, 0);
  const v = inShape(ctx, 2);
  if (!q || !v) return [sameElem(ctx, 0, undefined)];
  if (q.length === 4 && v.length === 4) return [sameElem(ctx, 0, [q[0], q[1], q[2], v[3]])];
  if (q.length === 3 && v.length === 3) {
    const qh = ctx.attrs.int('q_num_heads');
    const kvh = ctx.attrs.int('kv_num_heads');
    const hidden: Dim = typeof v[2] === 'number' && qh && kvh ? (v[2] / kvh) * qh : undefined;
    return [sameElem(ctx, 0, [q[0], q[1], hidden])];
  }
  return [sameElem(ctx, 0, undefined)];
}

/**
 * ONNX `RotaryEmbedding` (opset 23): rotates the first `rotary_embedding_dim` (default: all) dims
 * of each head by the angles whose cosines and sines are given, as `[x1, x2] → [x1·cos − x2·sin,
 * x1·sin + x2·cos]` with `x1`/`x2` the two halves (or, `interleaved`, the even and odd dims). The
 * input is `[B, heads, S, D]` or `[B, S, heads·D]` (then `num_heads` is required); the caches are
 * `[B, S, D/2]`, or `[max_position, D/2]` indexed by `position_ids` `[B, S]`.
 */
function rotaryEmbedding(ctx: OpContext, inputs: Inputs): AnyTensor {
  const x = asF(tensorAt(ctx, inputs, 0));
  const cosCache = asF(tensorAt(ctx, inputs, 1));
  const sinCache = asF(tensorAt(ctx, inputs, 2));
  const positions = optTensorAt(ctx, inputs, 3);
  const dims = x.dims();
  let t: FloatT; // [B, S, heads, D]
  if (dims.length === 4) t = x.swapDims(1, 2);
  else if (dims.length === 3) {
    const heads = ctx.attrs.int('num_heads', 0);
    if (heads <= 0) fail(ctx, 'has a 3-d input without the num_heads attribute');
    if (dims[2]! % heads !== 0) fail(ctx, `has hidden size ${dims[2]}, not a multiple of num_heads ${heads}`);
    t = x.reshape([dims[0]!, dims[1]!, heads, dims[2]! / heads]);
  } else fail(ctx, `got an input of shape ${fmt(dims)}; expected [batch, heads, seq, head] or [batch, seq, hidden]`);
  const [b, s, heads, d] = t.dims() as [number, number, number, number];
  const rot = ctx.attrs.int('rotary_embedding_dim', 0) || d;
  if (rot % 2 !== 0 || rot > d)
    fail(ctx, `has rotary_embedding_dim ${rot}; expected an even number at most the head size ${d}`);
  const half = rot / 2;
  const pick = (cache: FloatT): FloatT => {
    const c = positions ? cache.take<3>(0, asI(castTo(positions, 'i64'))) : cache;
    const cd = c.dims();
    if (cd.length !== 3 || cd[0] !== b || cd[1] !== s || cd[2]! < half) {
      fail(ctx, `has a cos/sin cache giving ${fmt(cd)} per position; expected [${b}, ${s}, >= ${half}]`);
    }
    return c.slice([null, null, [0, half]]).reshape([b, s, 1, half]);
  };
  const cos = pick(cosCache);
  const sin = pick(sinCache);
  const xr = rot === d ? t : t.slice([null, null, null, [0, rot]]);
  const interleaved = ctx.attrs.int('interleaved', 0) === 1;
  const x1 = interleaved ? xr.slice([null, null, null, [0, rot, 2]]) : xr.slice([null, null, null, [0, half]]);
  const x2 = interleaved ? xr.slice([null, null, null, [1, rot, 2]]) : xr.slice([null, null, null, [half, rot]]);
  const real = x1.mul(cos).sub(x2.mul(sin));
  const imag = x1.mul(sin).add(x2.mul(cos));
  let out = interleaved
    ? (Tensor.stack([real, imag], 4).reshape([b, s, heads, rot]) as FloatT)
    : Tensor.cat([real, imag], 3);
  if (rot < d) out = Tensor.cat([out, t.slice([null, null, null, [rot, d]])], 3);
  return (dims.length === 4 ? out.swapDims(1, 2) : out.reshape(dims)) as AnyTensor;
}

/** Attention blocks of opset 23: Attention and RotaryEmbedding. */
export const attentionOps: OpFamily = {
  Attention: {
    run: (ctx, inputs) => attention(ctx, inputs),
    minOpset: 23,
    infer: inferAttention,
  },
  RotaryEmbedding: {
    run: (ctx, inputs) => [rotaryEmbedding(ctx, inputs)],
    minOpset: 23,
    infer: inferSame,
  },
};
