import { isFloatDType } from '../../core/dtype.js';
import { tensorType, type Dim } from '../ir/types.js';
import type { AnyTensor, InferContext, NumT, OpContext, OpDef, OpFamily } from './types.js';
import { asF, asN, axisOf, castTo, inShape, sameElem, tensorAt } from './util.js';

/** The opset from which each reduction takes `axes` as an input instead of an attribute. */
const AXES_INPUT_FROM: Readonly<Record<string, number>> = { ReduceSum: 13 };

/** The axes a reduction runs over: attribute or input, empty meaning all (or none with `noop_with_empty_axes`). */
function reduceAxes(
  ctx: { attrs: OpContext['attrs']; opset: number; node: OpContext['node'] },
  rank: number,
  axesInput: () => number[] | undefined,
): number[] | 'noop' {
  const fromInput = ctx.opset >= (AXES_INPUT_FROM[ctx.node.opType] ?? 18);
  const axes = fromInput ? axesInput() : ctx.attrs.ints('axes')?.slice();
  if (axes === undefined || axes.length === 0) {
    if (fromInput && ctx.attrs.int('noop_with_empty_axes', 0) === 1) return 'noop';
    return Array.from({ length: rank }, (_, i) => i);
  }
  return [...new Set(axes.map((a) => axisOf(ctx, a, rank)))].sort((a, b) => a - b);
}

function reduction(fn: (x: NumT, axes: number[]) => NumT, pre?: (x: NumT) => NumT, post?: (x: NumT) => NumT): OpDef {
  return {
    run: (ctx, inputs) => {
      const x = asN(tensorAt(ctx, inputs, 0));
      const rank = x.rank();
      const axes = reduceAxes(ctx, rank, () => ctx.ints(1));
      if (axes === 'noop') return [(pre ? pre(x) : x) as AnyTensor];
      let y = pre ? pre(x) : x;
      if (rank > 0) y = fn(y, axes);
      if (post) y = post(y);
      if (ctx.attrs.int('keepdims', 1) === 0 && axes.length > 0 && rank > 0)
        y = y.reshape(x.dims().filter((_, i) => !axes.includes(i)));
      return [y as AnyTensor];
    },
    hostInputs: [1],
    infer: (ctx) => [sameElem(ctx, 0, reducedShape(ctx))],
  };
}

function reducedShape(ctx: InferContext): Dim[] | undefined {
  const shape = inShape(ctx, 0);
  if (!shape) return undefined;
  const fromInput = ctx.opset >= (AXES_INPUT_FROM[ctx.node.opType] ?? 18);
  let axes: number[] | undefined;
  if (fromInput) {
    if (ctx.node.inputs[1]) {
      const c = ctx.constant(1);
      if (!c) return undefined;
      axes = Array.from(c.toArray());
    }
  } else axes = ctx.attrs.ints('axes')?.slice();
  const rank = shape.length;
  if (!axes || axes.length === 0) {
    if (fromInput && ctx.attrs.int('noop_with_empty_axes', 0) === 1) return [...shape];
    axes = shape.map((_, i) => i);
  }
  const norm = axes.map((a) => (a < 0 ? a + rank : a));
  const keep = ctx.attrs.int('keepdims', 1) === 1;
  return keep ? shape.map((d, i) => (norm.includes(i) ? 1 : d)) : shape.filter((_, i) => !norm.includes(i));
}

function logSumExp(x: NumT, axes: number[]): NumT {
  const m = asF(x).maxDims(axes);
  // Rows of -inf stay -inf instead of NaN.
  const safe = m.maskFill(m.isInf(), 0);
  return asF(x).sub(safe).exp().sumDims(axes).log().add(safe) as NumT;
}

function argReduce(which: 'max' | 'min'): OpDef {
  return {
    run: (ctx, inputs) => {
      const x = asN(tensorAt(ctx, inputs, 0));
      const dims = x.dims();
      const axis = axisOf(ctx, ctx.attrs.int('axis', 0), Math.max(dims.length, 1));
      const last = ctx.attrs.int('select_last_index', 0) === 1;
      const src = last ? x.flip([axis]) : x;
      let idx = (which === 'max' ? src.argmax(axis) : src.argmin(axis)) as AnyTensor;
      idx = castTo(idx, 'i64');
      if (last)
        idx = asN(idx)
          .neg()
          .add(dims[axis]! - 1) as AnyTensor;
      if (ctx.attrs.int('keepdims', 1) === 0) idx = idx.reshape(dims.filter((_, i) => i !== axis));
      return [idx];
    },
    infer: (ctx) => {
      const shape = inShape(ctx, 0);
      if (!shape) return [tensorType('i64', undefined)];
      const axis = ctx.attrs.int('axis', 0);
      const a = axis < 0 ? axis + shape.length : axis;
      const keep = ctx.attrs.int('keepdims', 1) === 1;
      return [tensorType('i64', keep ? shape.map((d, i) => (i === a ? 1 : d)) : shape.filter((_, i) => i !== a))];
    },
  };
}

/** Reductions (Reduce*), ArgMax/ArgMin and CumSum. */
export const reduceOps: OpFamily = {
  ReduceSum: reduction((x, a) => x.sumDims(a)),
  ReduceMean: reduction((x, a) => x.meanDims(a)),
  ReduceMax: reduction((x, a) => x.maxDims(a)),
  ReduceMin: reduction((x, a) => x.minDims(a)),
  ReduceProd: reduction((x, a) => x.prodDims(a)),
  ReduceL1: reduction(
    (x, a) => x.sumDims(a),
    (x) => x.abs(),
  ),
  ReduceL2: reduction(
    (x, a) => x.sumDims(a),
    (x) => x.mul(x),
    (x) =>
      isFloatDType(x.dtype())
        ? (asF(x).sqrt() as NumT)
        : (castTo(asF(castTo(x as AnyTensor, 'f64')).sqrt() as AnyTensor, x.dtype()) as NumT),
  ),
  ReduceLogSum: reduction(
    (x, a) => x.sumDims(a),
    undefined,
    (x) => asF(x).log() as NumT,
  ),
  ReduceLogSumExp: reduction(logSumExp),
  ReduceSumSquare: reduction(
    (x, a) => x.sumDims(a),
    (x) => x.mul(x),
  ),
  ArgMax: argReduce('max'),
  ArgMin: argReduce('min'),
  CumSum: {
    run: (ctx, inputs) => {
      const x = asN(tensorAt(ctx, inputs, 0));
      const axis = axisOf(ctx, ctx.ints(1)![0]!, x.rank());
      const reverse = ctx.attrs.int('reverse', 0) === 1;
      const exclusive = ctx.attrs.int('exclusive', 0) === 1;
      let src = reverse ? x.flip([axis]) : x;
      let out = src.cumsum(axis);
      if (exclusive) out = out.sub(src);
      if (reverse) out = out.flip([axis]);
      src = out;
      return [src as AnyTensor];
    },
    hostInputs: [1],
    infer: (ctx) => [sameElem(ctx, 0, inShape(ctx, 0))],
  },
};
