import * as act from '../../tensor/activation/index.js';
import { isFloatDType } from '../../core/dtype.js';
import { Tensor } from '../../tensor/tensor.js';
import { fusedGelu } from './fast-paths.js';
import type { AnyTensor, FloatT, OpContext, OpDef, OpFamily } from './types.js';
import { inferSame } from './unary.js';
import { asF, asN, axisOf, castTo, tensorAt } from './util.js';

function floatAct(fn: (x: FloatT, ctx: OpContext) => FloatT): OpDef {
  return { run: (ctx, inputs) => [fn(asF(tensorAt(ctx, inputs, 0)), ctx) as AnyTensor], infer: inferSame };
}

/**
 * Softmax-like ops: from opset 13 along one axis (default -1); before that the input is seen as
 * 2-D, `[prod(dims[:axis]), prod(dims[axis:])]` (default axis 1), and normalized over the second.
 */
function axisOp(fn: (x: FloatT, axis: number) => FloatT): OpDef {
  return {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const dims = x.dims();
      if (ctx.opset >= 13) return [fn(x, axisOf(ctx, ctx.attrs.int('axis', -1), dims.length)) as AnyTensor];
      const axis = dims.length === 0 ? 0 : axisOf(ctx, ctx.attrs.int('axis', 1), dims.length);
      const rows = dims.slice(0, axis).reduce((a, b) => a * b, 1);
      const cols = dims.slice(axis).reduce((a, b) => a * b, 1);
      return [fn(x.reshape([rows, cols]), 1).reshape(dims) as AnyTensor];
    },
    infer: inferSame,
  };
}

/** One-hot of the first maximum along `axis` (`Hardmax`). */
function hardmax(x: FloatT, axis: number): FloatT {
  const dims = x.dims();
  if (dims[axis] === 0) return x;
  const idx = x.argmax(axis);
  const shape = dims.map((d, i) => (i === axis ? d : 1));
  const range = Tensor.arange(0, dims[axis]!, { device: x.device(), dtype: idx.dtype() as 'i32' }).reshape(shape);
  return castTo(idx.equal(range.expand(dims) as typeof idx) as AnyTensor, x.dtype()) as FloatT;
}

/** The exact GELU: the backend's one-pass kernel where it has one, else the op-by-op form. */
function exactGelu(x: FloatT): FloatT {
  const fused = fusedGelu(x as AnyTensor) as FloatT | undefined;
  return fused !== undefined ? fused : x.gelu();
}

function clip(ctx: OpContext, x: AnyTensor): AnyTensor {
  let lo: number | undefined;
  let hi: number | undefined;
  if (ctx.opset < 11) {
    lo = ctx.attrs.float('min');
    hi = ctx.attrs.float('max');
  } else {
    lo = ctx.floats(1)?.[0];
    hi = ctx.floats(2)?.[0];
  }
  let out = asN(x);
  // Both bounds in order: one clamp (one pass where the backend has the kernel).
  if (lo !== undefined && hi !== undefined && lo <= hi) return out.clamp(lo, hi) as AnyTensor;
  // min > max gives max everywhere, as NumPy's clip.
  if (lo !== undefined) out = out.clampMin(lo);
  if (hi !== undefined) out = out.clampMax(hi);
  return out as AnyTensor;
}

/** Activation functions, Clip and the softmax family. */
export const activationOps: OpFamily = {
  Relu: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      return [isFloatDType(x.dtype()) ? (asF(x).relu() as AnyTensor) : (asN(x).clampMin(0) as AnyTensor)];
    },
    infer: inferSame,
  },
  LeakyRelu: floatAct((x, ctx) => act.leakyRelu(x, ctx.attrs.float('alpha', 0.01))),
  Elu: floatAct((x, ctx) => {
    const alpha = ctx.attrs.float('alpha', 1);
    return x.maskWhere(x.lower(0), x.exp().sub(1).mul(alpha));
  }),
  Selu: floatAct((x, ctx) => {
    const alpha = ctx.attrs.float('alpha', 1.67326319217681884765625);
    const gamma = ctx.attrs.float('gamma', 1.05070102214813232421875);
    return x.maskWhere(x.lowerEqual(0), x.exp().sub(1).mul(alpha)).mul(gamma);
  }),
  Celu: floatAct((x, ctx) => act.celu(x, ctx.attrs.float('alpha', 1))),
  Sigmoid: floatAct((x) => x.sigmoid()),
  HardSigmoid: floatAct((x, ctx) => act.hardSigmoid(x, ctx.attrs.float('alpha', 0.2), ctx.attrs.float('beta', 0.5))),
  HardSwish: floatAct((x) => act.hardSwish(x)),
  Tanh: floatAct((x) => x.tanh()),
  Softplus: floatAct((x) => act.softplus(x)),
  Softsign: floatAct((x) => act.softsign(x)),
  ThresholdedRelu: floatAct((x, ctx) => x.maskFill(x.lowerEqual(ctx.attrs.float('alpha', 1)), 0)),
  Gelu: floatAct((x, ctx) =>
    ctx.attrs.string('approximate', 'none') === 'tanh' ? act.geluApproximate(x) : exactGelu(x),
  ),
  Mish: floatAct((x) => act.mish(x)),
  Swish: floatAct((x, ctx) => x.mul(x.mul(ctx.attrs.float('alpha', 1)).sigmoid())),
  Shrink: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const lambd = ctx.attrs.float('lambd', 0.5);
      const bias = ctx.attrs.float('bias', 0);
      const n = asN(x);
      const zero = n.mul(0);
      const out = zero.maskWhere(n.lower(-lambd), n.add(bias)).maskWhere(n.greater(lambd), n.sub(bias));
      return [out as AnyTensor];
    },
    infer: inferSame,
  },
  Clip: {
    run: (ctx, inputs) => [clip(ctx, tensorAt(ctx, inputs, 0))],
    hostInputs: [1, 2],
    infer: inferSame,
  },
  Softmax: axisOp((x, axis) => x.softmax(axis)),
  LogSoftmax: axisOp((x, axis) => x.logSoftmax(axis)),
  Hardmax: axisOp(hardmax),
};
