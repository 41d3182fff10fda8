import type { Backend, TensorPrimitive } from '../backend.js';
import type { ConvTransposeOptions } from '../options.js';
import { conv } from './conv.js';
import { padSpatial, whole } from './spatial.js';

/**
 * N-d transposed convolution as a direct convolution: the input is dilated by the stride (zeros
 * between elements, one strided sliceAssign), padded by `dilation · (k - 1) - padding` on both
 * sides (plus `paddingOut` on the far side; negative amounts crop), then convolved with stride 1
 * and the weight flipped with its in/out channels swapped per group. The weight layout is
 * PyTorch's `[C_in, C_out/groups, ...k]`.
 */
export function convTranspose<P extends TensorPrimitive>(
  b: Backend<P>,
  x: P,
  weight: P,
  bias: P | undefined,
  o: ConvTransposeOptions,
): P {
  const [n, cIn, ...spatial] = x.shape as [number, number, ...number[]];
  const [, cOutG, ...kernel] = weight.shape as [number, number, ...number[]];
  const g = o.groups;
  const cInG = cIn / g;
  const dims = spatial.length;

  let xd = x;
  if (o.stride.some((s) => s > 1)) {
    const dilated = [n, cIn, ...spatial.map((s, d) => Math.max(0, (s - 1) * o.stride[d]! + 1))];
    const region = [whole(n), whole(cIn), ...spatial.map((s, d) => ({ start: 0, size: s, step: o.stride[d]! }))];
    xd = b.sliceAssign(b.fill(dilated, 0, x.dtype), region, x);
  }
  const before = kernel.map((k, d) => o.dilation[d]! * (k - 1) - o.padding[d]!);
  const after = before.map((v, d) => v + o.paddingOut[d]!);
  const xp = padSpatial(b, xd, before, after, 0);

  // [C_in, C_out/g, ...k] → [g, C_in/g, C_out/g, ...k] → [g, C_out/g, C_in/g, ...k] → [C_out, C_in/g, ...k], flipped.
  const grouped = b.reshape(weight, [g, cInG, cOutG, ...kernel]);
  const swapped = b.permute(grouped, [0, 2, 1, ...kernel.map((_, d) => d + 3)]);
  const w = b.reshape(swapped, [g * cOutG, cInG, ...kernel]);
  const flipped = b.slice(
    w,
    w.shape.map((s, i) => (i < 2 ? whole(s) : { start: s - 1, size: s, step: -1 })),
  );
  const ones = new Array<number>(dims).fill(1);
  return conv(b, xp, flipped, bias, {
    stride: ones,
    padding: new Array<number>(dims).fill(0),
    dilation: o.dilation,
    groups: g,
  });
}
