import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import { padSpatial, prod, windows } from '../../../backend/defaults/spatial.js';
import type { ConvOptions, ConvTransposeOptions } from '../../../backend/options.js';
import type { Saved } from '../graph.js';
import { convTransposeOutputSize } from '../../../core/geometry.js';

/**
 * Dedicated backward rules of the convolution and pooling ops: the gradients are again
 * convolutions (and a scatter for max pooling), computed with the inner backend's accelerated
 * ops instead of differentiating the im2col decomposition.
 */

type P = TensorPrimitive;

/** im2col of `[N, C, *S]` for a kernel and window geometry: `[N, C·kvol, L]` (channel-major rows). */
function columns(
  b: Backend,
  x: P,
  kernel: readonly number[],
  stride: readonly number[],
  padding: readonly number[],
  dilation: readonly number[],
  out: readonly number[],
): P {
  // The backend's unfold for 2-d; otherwise strided windows, ordered (n, c, kernel…, positions…).
  if (kernel.length === 2) return b.unfold4d(x, kernel, { stride, padding, dilation });
  const [n, c] = x.shape as [number, number];
  const win = windows(b, padSpatial(b, x, padding, padding, 0), kernel, { stride, dilation, out });
  return b.reshape(win, [n, c * prod(kernel), prod(out)]);
}

/**
 * A weight gradient `Σ_n a[n, g] · cols[n, g]ᵀ` per group: `a` `[N, G·R, *S]` (L positions) and
 * the columns `[N, G·K, L]` give `[G, R, K]`. One batched product over (sample, group) with the
 * columns read transposed in place, then a sum over samples: no transposed copy of the columns,
 * which are the largest tensor of a convolution's backward pass.
 */
function weightGrad(b: Backend, a: P, cols: P, groups: number): P {
  const [n, c] = a.shape as [number, number];
  const l = prod(a.shape.slice(2));
  const k = cols.shape[1]! / groups;
  // cols[n, g] · a[n, g]ᵀ → [N, G, K, R]: the large columns are the left operand, read by rows.
  const perSample = b.matmul(
    b.reshape(cols, [n, groups, k, l]),
    b.permute(b.reshape(a, [n, groups, c / groups, l]), [0, 1, 3, 2]),
  );
  const summed = b.reshape(b.reduce('sum', perSample, [0]), [groups, k, c / groups]);
  return b.permute(summed, [0, 2, 1]);
}

/** The bias gradient: the output gradient summed over the batch and spatial dims. */
function biasGrad(b: Backend, g: P): P {
  const dims = g.shape.map((_, d) => d).filter((d) => d !== 1);
  return b.reshape(b.reduce('sum', g, dims), [g.shape[1]!]);
}

/** Gradients of `conv(x, w, bias)`: input (a transposed conv), weight (output gradient × im2col of x), bias; reads x and the weight. */
export function convGrad(
  b: Backend,
  g: P,
  { x, weight: w }: Saved<'x' | 'weight'>,
  needs: readonly boolean[],
  o: ConvOptions,
): [P | undefined, P | undefined, P | undefined] {
  const spatial = x.shape.slice(2);
  const kernel = w.shape.slice(2);
  const out = g.shape.slice(2);
  let dx: P | undefined;
  if (needs[0]) {
    // The transposed conv of `out` gives back the input size once the remainder is its paddingOut.
    const paddingOut = spatial.map(
      (s, i) => s - convTransposeOutputSize(out[i]!, kernel[i]!, o.stride[i]!, o.padding[i]!, o.dilation[i]!, 0),
    );
    dx = b.convTranspose(g, w, undefined, { ...o, paddingOut });
  }
  let dw: P | undefined;
  if (needs[1]) {
    // dw[g, co, (ci, k)] = Σ_{n, l} g[n, g, co, l] · cols[n, g, (ci, k), l]: the backend's kernel where it has one.
    dw = b.convWeightGrad?.(x, g, w.shape, o);
    if (dw === undefined)
      dw = b.reshape(weightGrad(b, g, columns(b, x, kernel, o.stride, o.padding, o.dilation, out), o.groups), w.shape);
  }
  return [dx, dw, needs[2] ? biasGrad(b, g) : undefined];
}

/** Gradients of `convTranspose(x, w, bias)`: input (a conv), weight (x × im2col of the output gradient), bias; reads x and the weight. */
export function convTransposeGrad(
  b: Backend,
  g: P,
  { x, weight: w }: Saved<'x' | 'weight'>,
  needs: readonly boolean[],
  o: ConvTransposeOptions,
): [P | undefined, P | undefined, P | undefined] {
  const kernel = w.shape.slice(2);
  let dx = needs[0]
    ? b.conv(g, w, undefined, { stride: o.stride, padding: o.padding, dilation: o.dilation, groups: o.groups })
    : undefined;
  // A paddingOut of a stride or more adds output cells no input reaches: the conv gives positions
  // past the input for them, which are cut.
  if (dx && dx.shape.some((s, d) => d >= 2 && s !== x.shape[d]))
    dx = b.slice(
      dx,
      x.shape.map((s) => ({ start: 0, size: s, step: 1 })),
    );
  let dw: P | undefined;
  if (needs[1]) {
    // dw[(g, ci), (co, k)] = Σ_{n, s} x[n, g, ci, s] · g[n, g, co, s·stride + k·dilation − padding]
    dw = b.reshape(
      weightGrad(b, x, columns(b, g, kernel, o.stride, o.padding, o.dilation, x.shape.slice(2)), o.groups),
      w.shape,
    );
  }
  return [dx, dw, needs[2] ? biasGrad(b, g) : undefined];
}

/** Gradient of max pooling: each output's gradient goes to the input position of its maximum. */
export function maxPoolGrad(b: Backend, g: P, inputShape: readonly number[], indices: P): P {
  const fast = b.maxPoolGrad?.(g, indices, inputShape);
  if (fast !== undefined) return fast;
  const [n, c, ...spatial] = inputShape as number[];
  const volume = spatial.reduce((a, s) => a * s, 1);
  const flatG = b.reshape(g, [n!, c!, g.shape.slice(2).reduce((a, s) => a * s, 1)]);
  const flatI = b.reshape(indices, flatG.shape);
  const dx = b.scatter('add', b.fill([n!, c!, volume], 0, g.dtype), 2, flatI, flatG);
  return b.reshape(dx, inputShape);
}
