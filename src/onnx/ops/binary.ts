import { isFloatDType, isIntDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { tensorType } from '../ir/types.js';
import type { AnyTensor, InferContext, OpContext, OpDef, OpFamily, Value } from './types.js';
import {
  asB,
  asF,
  asI,
  asN,
  broadcastDims,
  broadcastShape,
  broadcastTo,
  castTo,
  inShape,
  sameElem,
  tensorAt,
} from './util.js';

function inferBroadcast(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  return [sameElem(ctx, 0, broadcastDims(ctx.inputs.map((_, i) => inShape(ctx, i))))];
}

function inferCompare(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  return [tensorType('bool', broadcastDims(ctx.inputs.map((_, i) => inShape(ctx, i))))];
}

/** Both operands expanded to their common shape (Burn's binary ops need equal or broadcastable shapes of equal rank). */
function aligned(ctx: OpContext, a: AnyTensor, b: AnyTensor): [AnyTensor, AnyTensor] {
  const shape = broadcastShape(ctx, a.dims(), b.dims());
  return [broadcastTo(a, shape), broadcastTo(b, shape)];
}

function binary(fn: (a: AnyTensor, b: AnyTensor, ctx: OpContext) => AnyTensor, infer = inferBroadcast): OpDef {
  return {
    run: (ctx, inputs) => {
      const [a, b] = aligned(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1));
      return [fn(a, b, ctx)];
    },
    infer,
  };
}

function variadic(
  fn: (a: AnyTensor, b: AnyTensor) => AnyTensor,
  finish?: (t: AnyTensor, n: number) => AnyTensor,
): OpDef {
  return {
    run: (ctx, inputs: readonly (Value | undefined)[]) => {
      const ts = inputs.map((_, i) => tensorAt(ctx, inputs, i));
      let acc = ts[0]!;
      for (const t of ts.slice(1)) {
        const [a, b] = aligned(ctx, acc, t);
        acc = fn(a, b);
      }
      return [finish ? finish(acc, ts.length) : acc];
    },
    infer: inferBroadcast,
  };
}

/** C-style remainder (sign of the dividend), for `Mod` with `fmod = 1`. */
function truncRemainder(a: AnyTensor, b: AnyTensor): AnyTensor {
  if (isFloatDType(a.dtype())) return asF(a).fmod(asF(b)) as AnyTensor;
  return asN(a).sub(asN(asN(a).div(asN(b))).mul(asN(b))) as AnyTensor;
}

function pow(a: AnyTensor, b: AnyTensor): AnyTensor {
  const base = a.dtype();
  if (isFloatDType(base)) return asF(a).powf(asF(castTo(b, base))) as AnyTensor;
  // Integer bases: exact integer powers where the exponent is an integer, else through f64.
  if (isIntDType(b.dtype())) return asN(a).powi(asI(b)) as AnyTensor;
  return castTo(asF(castTo(a, 'f64')).powf(asF(castTo(b, 'f64'))) as AnyTensor, base);
}

function bitShift(a: AnyTensor, b: AnyTensor, ctx: OpContext): AnyTensor {
  const dir = ctx.attrs.string('direction', '');
  if (dir === 'LEFT') return asI(a).bitwiseLeftShift(asI(b)) as AnyTensor;
  if (dir === 'RIGHT') return asI(a).bitwiseRightShift(asI(b)) as AnyTensor;
  throw new BurnError('onnx', `node '${ctx.node.name}' (BitShift) has direction '${dir}'; expected LEFT or RIGHT`);
}

/** Elementwise ops of two or more inputs with NumPy broadcasting: arithmetic, comparisons, logic, bitwise, Where. */
export const binaryOps: OpFamily = {
  Add: binary((a, b) => asN(a).add(asN(b)) as AnyTensor),
  Sub: binary((a, b) => asN(a).sub(asN(b)) as AnyTensor),
  Mul: binary((a, b) => asN(a).mul(asN(b)) as AnyTensor),
  // Integer division truncates toward zero, as ONNX Runtime (C) does.
  Div: binary((a, b) => asN(a).div(asN(b)) as AnyTensor),
  Pow: binary(pow),
  Mod: binary((a, b, ctx) =>
    ctx.attrs.int('fmod', 0) === 1 ? truncRemainder(a, b) : (asN(a).remainder(asN(b)) as AnyTensor),
  ),
  Max: variadic((a, b) => asN(a).maxPair(asN(b)) as AnyTensor),
  Min: variadic((a, b) => asN(a).minPair(asN(b)) as AnyTensor),
  Sum: variadic((a, b) => asN(a).add(asN(b)) as AnyTensor),
  Mean: variadic(
    (a, b) => asN(a).add(asN(b)) as AnyTensor,
    (t, n) => asN(t).div(n) as AnyTensor,
  ),
  Equal: binary((a, b) => a.equal(b) as AnyTensor, inferCompare),
  Less: binary((a, b) => asN(a).lower(asN(b)) as AnyTensor, inferCompare),
  LessOrEqual: binary((a, b) => asN(a).lowerEqual(asN(b)) as AnyTensor, inferCompare),
  Greater: binary((a, b) => asN(a).greater(asN(b)) as AnyTensor, inferCompare),
  GreaterOrEqual: binary((a, b) => asN(a).greaterEqual(asN(b)) as AnyTensor, inferCompare),
  And: binary((a, b) => asB(a).boolAnd(asB(b)) as AnyTensor, inferCompare),
  Or: binary((a, b) => asB(a).boolOr(asB(b)) as AnyTensor, inferCompare),
  Xor: binary((a, b) => asB(a).boolXor(asB(b)) as AnyTensor, inferCompare),
  BitShift: binary(bitShift),
  BitwiseAnd: binary((a, b) => asI(a).bitwiseAnd(asI(b)) as AnyTensor),
  BitwiseOr: binary((a, b) => asI(a).bitwiseOr(asI(b)) as AnyTensor),
  BitwiseXor: binary((a, b) => asI(a).bitwiseXor(asI(b)) as AnyTensor),
  Where: {
    run: (ctx, inputs) => {
      const c = tensorAt(ctx, inputs, 0);
      const x = tensorAt(ctx, inputs, 1);
      const y = tensorAt(ctx, inputs, 2);
      const shape = broadcastShape(ctx, broadcastShape(ctx, c.dims(), x.dims()), y.dims());
      return [broadcastTo(y, shape).maskWhere(asB(broadcastTo(c, shape)), broadcastTo(x, shape))];
    },
    infer: (ctx) => [sameElem(ctx, 1, broadcastDims([inShape(ctx, 0), inShape(ctx, 1), inShape(ctx, 2)]))],
  },
  PRelu: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const slope = broadcastTo(tensorAt(ctx, inputs, 1), x.dims());
      const neg = asN(x).lower(0);
      return [x.maskWhere(neg, asN(x).mul(asN(slope)) as AnyTensor)];
    },
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
};
