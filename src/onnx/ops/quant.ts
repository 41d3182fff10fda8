import { intRange, type IntDType } from '../../core/dtype.js';
import { Tensor } from '../../tensor/tensor.js';
import { elemTypeOfCode } from '../parse/dtype.js';
import { conv } from './conv.js';
import { matmul } from './matmul.js';
import type { AnyTensor, FloatT, OpContext, OpFamily, Value } from './types.js';
import { asF, axisOf, castTo, optTensorAt, tensorAt } from './util.js';

/** A per-tensor scalar, or a per-axis vector shaped to broadcast along `axis` of a rank-`rank` tensor. */
function alongAxis(ctx: OpContext, v: AnyTensor, rank: number): AnyTensor {
  if (v.rank() === 0 || v.numel() === 1) return v.reshape([]);
  const axis = axisOf(ctx, ctx.attrs.int('axis', 1), rank);
  return v.reshape(Array.from({ length: rank }, (_, i) => (i === axis ? v.numel() : 1)));
}

/** `saturate(round(x / scale) + zero_point)` into the integer type `dtype` (round half to even). */
function quantize(x: FloatT, scale: AnyTensor, zp: AnyTensor | undefined, dtype: IntDType): AnyTensor {
  const [lo, hi] = intRange(dtype);
  let q = x.div(asF(castTo(scale, x.dtype()))).round();
  if (zp) q = q.add(asF(castTo(zp, x.dtype())));
  return castTo(q.clamp(lo, hi) as AnyTensor, dtype);
}

function dequantize(x: AnyTensor, scale: AnyTensor, zp: AnyTensor | undefined): FloatT {
  const dtype = scale.dtype();
  let v = asF(castTo(x, 'f32'));
  if (zp) v = v.sub(asF(castTo(zp, 'f32')));
  return asF(castTo(v.mul(asF(castTo(scale, 'f32'))) as AnyTensor, dtype));
}

function outType(ctx: OpContext, zp: AnyTensor | undefined): IntDType {
  const code = ctx.attrs.int('output_dtype');
  if (code) return elemTypeOfCode(code) as IntDType;
  return (zp?.dtype() ?? 'u8') as IntDType;
}

function qArgs(
  ctx: OpContext,
  inputs: readonly (Value | undefined)[],
  scale: number,
  zp: number,
  rank: number,
): [AnyTensor, AnyTensor | undefined] {
  const s = alongAxis(ctx, tensorAt(ctx, inputs, scale), rank);
  const z = optTensorAt(ctx, inputs, zp);
  return [s, z && alongAxis(ctx, z, rank)];
}

/** Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul, QLinearConv (computed in float). */
export const quantOps: OpFamily = {
  QuantizeLinear: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const [s, z] = qArgs(ctx, inputs, 1, 2, x.rank());
      return [quantize(x, s, z, outType(ctx, z))];
    },
    check: (_node, attrs) =>
      attrs.int('block_size', 0) > 0 ? 'blocked quantization (block_size) is not supported' : undefined,
  },
  DequantizeLinear: {
    run: (ctx, inputs) => {
      const x = tensorAt(ctx, inputs, 0);
      const [s, z] = qArgs(ctx, inputs, 1, 2, x.rank());
      return [dequantize(x, s, z) as AnyTensor];
    },
    check: (_node, attrs) =>
      attrs.int('block_size', 0) > 0 ? 'blocked quantization (block_size) is not supported' : undefined,
  },
  DynamicQuantizeLinear: {
    run: (ctx, inputs) => {
      const x = asF(castTo(tensorAt(ctx, inputs, 0), 'f32'));
      let lo = 0;
      let hi = 0;
      for (const v of ctx.host(0)!.toArray()) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      const scale = Math.fround((hi - lo) / 255);
      const zp = scale === 0 ? 0 : Math.min(255, Math.max(0, roundHalfEven(-lo / scale)));
      const dev = ctx.device;
      const s = Tensor.full([], scale, { device: dev, dtype: 'f32' }) as AnyTensor;
      const z = Tensor.full([], zp, { device: dev, dtype: 'u8' }) as AnyTensor;
      const y =
        scale === 0 ? (Tensor.full(x.dims(), zp, { device: dev, dtype: 'u8' }) as AnyTensor) : quantize(x, s, z, 'u8');
      return [y, s, z];
    },
    readsValues: true,
  },
  QLinearMatMul: {
    run: (ctx, inputs) => {
      const a = dequantize(tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1), tensorAt(ctx, inputs, 2));
      const b = dequantize(
        tensorAt(ctx, inputs, 3),
        rowVector(tensorAt(ctx, inputs, 4)),
        rowVector(tensorAt(ctx, inputs, 5)),
      );
      const y = asF(matmul(ctx, a as AnyTensor, b as AnyTensor));
      const zp = tensorAt(ctx, inputs, 7);
      return [quantize(y, tensorAt(ctx, inputs, 6), zp, zp.dtype() as IntDType)];
    },
  },
  QLinearConv: {
    run: (ctx, inputs) => {
      const x = dequantize(tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1), tensorAt(ctx, inputs, 2));
      const w = tensorAt(ctx, inputs, 3);
      const perChannel = (t: AnyTensor) =>
        t.numel() > 1 ? t.reshape([t.numel(), ...new Array<number>(w.rank() - 1).fill(1)]) : t.reshape([]);
      const ws = tensorAt(ctx, inputs, 4);
      const wf = dequantize(w, perChannel(ws), perChannel(tensorAt(ctx, inputs, 5)));
      const bias = optTensorAt(ctx, inputs, 8);
      const xs = asF(castTo(tensorAt(ctx, inputs, 1), 'f32'));
      const b = bias
        ? asF(castTo(bias, 'f32')).mul(
            asF(asF(castTo(ws, 'f32')).reshape([ws.numel()]) as AnyTensor).mul(asF(xs.reshape([]) as AnyTensor)),
          )
        : undefined;
      const y = asF(conv(ctx, x as AnyTensor, wf as AnyTensor, b as AnyTensor | undefined));
      const zp = tensorAt(ctx, inputs, 7);
      return [quantize(y, tensorAt(ctx, inputs, 6), zp, zp.dtype() as IntDType)];
    },
  },
};

/** A per-column scale/zero point of B (`[N]`) broadcast over rows. */
function rowVector(t: AnyTensor): AnyTensor {
  return t.numel() > 1 ? t.reshape([1, t.numel()]) : t;
}

function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
