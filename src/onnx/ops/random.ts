import type { DType } from '../../core/dtype.js';
import { Distribution } from '../../core/distribution.js';
import { Tensor } from '../../tensor/tensor.js';
import { elemTypeOfCode } from '../parse/dtype.js';
import { deviceDType } from './device-dtype.js';
import type { AnyTensor, OpContext, OpDef, OpFamily } from './types.js';
import { asF, castTo, tensorAt } from './util.js';

/** The output dtype from a `dtype` attribute (an ONNX type code), or `fallback`. */
function dtypeAttr(ctx: OpContext, fallback: DType): DType {
  const code = ctx.attrs.int('dtype');
  return deviceDType(code === undefined ? fallback : (elemTypeOfCode(code) as DType), ctx.device);
}

/**
 * Seeds the device from the node's `seed` attribute when it has one, so a model with seeded random
 * nodes draws the same values on every run (the values are burn-ts's, not those of another runtime).
 */
function seeded(ctx: OpContext): void {
  const seed = ctx.attrs.float('seed');
  if (seed !== undefined) ctx.device.seed(Math.floor(seed));
}

function random(dist: (ctx: OpContext) => Distribution, like: boolean): OpDef {
  return {
    run: (ctx, inputs) => {
      seeded(ctx);
      const src = like ? tensorAt(ctx, inputs, 0) : undefined;
      const shape = src ? src.dims() : ctx.attrs.ints('shape', []).slice();
      const dtype = dtypeAttr(ctx, src ? src.dtype() : 'f32');
      return [Tensor.random(shape, dist(ctx), { device: ctx.device, dtype }) as AnyTensor];
    },
    random: true,
  };
}

const normal = (ctx: OpContext) => Distribution.Normal(ctx.attrs.float('mean', 0), ctx.attrs.float('scale', 1));
const uniform = (ctx: OpContext) => Distribution.Uniform(ctx.attrs.float('low', 0), ctx.attrs.float('high', 1));

/** Random generators; values come from the device's seeded generator. */
export const randomOps: OpFamily = {
  RandomNormal: random(normal, false),
  RandomUniform: random(uniform, false),
  RandomNormalLike: random(normal, true),
  RandomUniformLike: random(uniform, true),
  Bernoulli: {
    run: (ctx, inputs) => {
      seeded(ctx);
      const p = asF(tensorAt(ctx, inputs, 0));
      const u = Tensor.random(p.dims(), Distribution.Default, { device: ctx.device, dtype: p.dtype() }) as typeof p;
      return [castTo(u.lower(p) as AnyTensor, dtypeAttr(ctx, p.dtype()))];
    },
    random: true,
  },
  Dropout: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const ratio = ctx.opset >= 12 ? (ctx.floats(1)?.[0] ?? 0.5) : ctx.attrs.float('ratio', 0.5);
      const training = ctx.opset >= 12 ? (ctx.ints(2)?.[0] ?? 0) !== 0 : false;
      if (!training || ratio === 0) return [x, Tensor.full(x.dims(), true, ctx.device) as unknown as AnyTensor];
      seeded(ctx);
      const keep = Tensor.random(x.dims(), Distribution.Default, { device: ctx.device, dtype: 'f32' }).greaterEqual(
        ratio,
      );
      return [
        asF(x)
          .maskFill(keep.boolNot(), 0)
          .div(1 - ratio) as AnyTensor,
        keep as unknown as AnyTensor,
      ];
    },
    hostInputs: [1, 2],
    // Inference-mode dropout is the identity: deterministic, so it folds.
  },
  Multinomial: {
    run: (ctx, inputs) => {
      seeded(ctx);
      const logits = asF(tensorAt(ctx, inputs, 0));
      const samples = asF(logits.softmax(1)).categorical(ctx.attrs.int('sample_size', 1));
      return [castTo(samples as AnyTensor, dtypeAttr(ctx, 'i32'))];
    },
    random: true,
  },
};
