import * as F from '../../tensor/functional/index.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { AnyTensor, OpFamily } from './types.js';
import { asF, inShape, optTensorAt, sameElem, tensorAt } from './util.js';

/**
 * burn-ts's own graph-level operators (domain `burn-ts`), written by simplification passes,
 * never read from a model file: `Linear(x, W, b?)` is Burn's `linear` (`x · W + b` over the last
 * dim; `transB` 1 when `W` is stored `[out, in]`, as Gemm's).
 */
export const fusedOps: OpFamily = {
  Linear: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const w = asF(tensorAt(ctx, inputs, 1)) as Tensor<2>;
      const b = optTensorAt(ctx, inputs, 2);
      return [F.linear(x, ctx.attrs.int('transB', 0) ? w.transpose() : w, b && (asF(b) as Tensor<1>)) as AnyTensor];
    },
    infer: (ctx) => {
      const x = inShape(ctx, 0);
      const w = inShape(ctx, 1);
      if (!x || !w || x.length === 0) return [sameElem(ctx, 0, undefined)];
      return [sameElem(ctx, 0, [...x.slice(0, -1), ctx.attrs.int('transB', 0) ? w[0] : w[1]])];
    },
  },
};
