import { dilatedKernel } from '../../core/geometry.js';
import { Tensor } from '../../tensor/tensor.js';
import { windowOf } from './conv.js';
import type { AnyTensor, OpContext } from './types.js';

/**
 * The backend's optional one-pass kernels, for inference, called as the protocol at the end of
 * `Backend` (src/backend/backend.ts) says: each returns undefined where the backend has none for
 * these tensors (autodiff devices never have them), and the caller then runs the op-by-op form,
 * which gives the same values (the fused GELU within a few ulp).
 */

/** The exact GELU in one pass (`Backend.gelu`), or undefined. */
export function fusedGelu(x: AnyTensor): AnyTensor | undefined {
  const device = x.device();
  const p = device.backend.gelu?.(x.primitive);
  return p === undefined ? undefined : (Tensor.fromPrimitive(p, device) as AnyTensor);
}

/**
 * `Conv` (2-d, float, symmetric padding) with its output clamped into [lo, hi] in the backend's
 * output pass (`Backend.convClamp`), `residual` added before the clamp when given (a backend takes
 * only one of the output's shape), or undefined. Shapes the op-by-op path would refuse are left
 * to it, so its errors stay the same.
 */
export function fusedConvClamp(
  ctx: OpContext,
  x: AnyTensor,
  w: AnyTensor,
  b: AnyTensor | undefined,
  lo: number,
  hi: number,
  residual?: AnyTensor,
): AnyTensor | undefined {
  const device = x.device();
  const backend = device.backend;
  if (!backend.convClamp || x.rank() !== 4 || w.rank() !== 4 || (b && b.rank() !== 1)) return undefined;
  const dtype = x.dtype();
  if (
    (dtype !== 'f32' && dtype !== 'f64') ||
    w.dtype() !== dtype ||
    (b && b.dtype() !== dtype) ||
    w.device() !== device ||
    (b && b.device() !== device)
  )
    return undefined;
  if (residual && (residual.dtype() !== dtype || residual.device() !== device)) return undefined;
  const [, cIn, h, wd] = x.dims() as [number, number, number, number];
  const [cOut, cg, kh, kw] = w.dims() as [number, number, number, number];
  const groups = ctx.attrs.int('group', 1);
  if (groups < 1 || cg * groups !== cIn || cOut % groups !== 0 || (b && b.dims()[0] !== cOut)) return undefined;
  const win = windowOf(ctx.node, ctx.attrs, [h, wd], [kh, kw]);
  if (win.begin.some((p, i) => p !== win.end[i]) || win.strides.some((s) => s < 1) || win.dilations.some((d) => d < 1))
    return undefined;
  if (
    h + 2 * win.begin[0]! < dilatedKernel(kh, win.dilations[0]!) ||
    wd + 2 * win.begin[1]! < dilatedKernel(kw, win.dilations[1]!)
  )
    return undefined;
  const options = { stride: win.strides, padding: win.begin, dilation: win.dilations, groups };
  const p = backend.convClamp(x.primitive, w.primitive, b?.primitive, options, lo, hi, residual?.primitive);
  return p === undefined ? undefined : (Tensor.fromPrimitive(p, device) as AnyTensor);
}

/**
 * `LayerNormalization` over the last axis in one pass per row (`Backend.layerNorm`), or undefined
 * (other axes, f16/bf16, scale or bias not of the last dim's size: the op-by-op form runs).
 */
export function fusedLayerNorm(
  x: AnyTensor,
  scale: AnyTensor,
  bias: AnyTensor | undefined,
  eps: number,
): AnyTensor | undefined {
  const device = x.device();
  const backend = device.backend;
  const dtype = x.dtype();
  if (!backend.layerNorm || (dtype !== 'f32' && dtype !== 'f64') || x.rank() < 1) return undefined;
  const len = x.dims()[x.rank() - 1]!;
  const fits = (t: AnyTensor) =>
    t.dtype() === dtype &&
    t.device() === device &&
    t.dims().reduce((a, d) => a * d, 1) === len &&
    t.dims()[t.rank() - 1] === len;
  if (!fits(scale) || (bias && !fits(bias))) return undefined;
  const p = backend.layerNorm(x.primitive, scale.primitive, bias?.primitive, eps);
  return p === undefined ? undefined : (Tensor.fromPrimitive(p, device) as AnyTensor);
}
