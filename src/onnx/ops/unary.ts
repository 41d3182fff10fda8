import { isFloatDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { tensorType } from '../ir/types.js';
import type { AnyTensor, FloatT, InferContext, OpContext, OpDef, OpFamily, Value } from './types.js';
import { asB, asF, asI, asN, inShape, sameElem, tensorAt } from './util.js';

/** Output type of an elementwise op: the input's shape, with the input's element type or `elem`. */
export function inferSame(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  return [sameElem(ctx, 0, inShape(ctx, 0))];
}

function unary(fn: (t: AnyTensor, ctx: OpContext) => AnyTensor): OpDef {
  return {
    run: (ctx, inputs) => [fn(tensorAt(ctx, inputs, 0), ctx)],
    infer: inferSame,
  };
}

function floatOnly(name: string, fn: (t: FloatT) => FloatT): OpDef {
  return unary((t, ctx) => {
    if (!isFloatDType(t.dtype()))
      throw new BurnError('onnx', `node '${ctx.node.name}' (${name}) got ${t.dtype()}; expected a float tensor`);
    return fn(asF(t)) as AnyTensor;
  });
}

/** Elementwise math of one input (Burn's float/int unary ops). */
export const unaryOps: OpFamily = {
  Abs: unary((t) => (t.dtype().startsWith('u') || t.dtype() === 'bool' ? t : (asN(t).abs() as AnyTensor))),
  Neg: unary((t) => asN(t).neg() as AnyTensor),
  Sign: unary((t) => asN(t).sign() as AnyTensor),
  Exp: floatOnly('Exp', (t) => t.exp()),
  Log: floatOnly('Log', (t) => t.log()),
  Sqrt: floatOnly('Sqrt', (t) => t.sqrt()),
  Reciprocal: floatOnly('Reciprocal', (t) => t.recip()),
  Sin: floatOnly('Sin', (t) => t.sin()),
  Cos: floatOnly('Cos', (t) => t.cos()),
  Tan: floatOnly('Tan', (t) => t.tan()),
  Asin: floatOnly('Asin', (t) => t.asin()),
  Acos: floatOnly('Acos', (t) => t.acos()),
  Atan: floatOnly('Atan', (t) => t.atan()),
  Sinh: floatOnly('Sinh', (t) => t.sinh()),
  Cosh: floatOnly('Cosh', (t) => t.cosh()),
  Asinh: floatOnly('Asinh', (t) => t.asinh()),
  Acosh: floatOnly('Acosh', (t) => t.acosh()),
  Atanh: floatOnly('Atanh', (t) => t.atanh()),
  Erf: floatOnly('Erf', (t) => t.erf()),
  Floor: floatOnly('Floor', (t) => t.floor()),
  Ceil: floatOnly('Ceil', (t) => t.ceil()),
  // Half to even, as ONNX and Burn.
  Round: floatOnly('Round', (t) => t.round()),
  IsNaN: {
    run: (ctx, inputs) => [asF(tensorAt(ctx, inputs, 0)).isNan() as AnyTensor],
    infer: (ctx) => [tensorType('bool', inShape(ctx, 0))],
  },
  IsInf: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const pos = ctx.attrs.int('detect_positive', 1) === 1;
      const neg = ctx.attrs.int('detect_negative', 1) === 1;
      const inf = x.isInf();
      if (pos && neg) return [inf as AnyTensor];
      if (!pos && !neg) return [x.isInf().boolAnd(inf.boolNot()) as AnyTensor];
      return [inf.boolAnd(pos ? x.greater(0) : x.lower(0)) as AnyTensor];
    },
    infer: (ctx) => [tensorType('bool', inShape(ctx, 0))],
  },
  Not: unary((t) => asB(t).boolNot() as AnyTensor),
  BitwiseNot: unary((t) => asI(t).bitwiseNot() as AnyTensor),
  Identity: {
    run: (_ctx, inputs: readonly (Value | undefined)[]) => [inputs[0]],
    infer: (ctx) => [ctx.inputs[0]],
  },
};
