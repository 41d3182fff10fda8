import type { UnfoldOptions } from '../../backend/options.js';
import { TensorData } from '../../core/data.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../kind.js';
import { checkNumel } from '../../core/shape.js';
import { Tensor } from '../tensor.js';
import { expectRank, perDim, windowOut, type PerDim } from './check.js';

/** Options of `unfold4d` / `fold4d` (Burn's `UnfoldOptions`). */
export interface UnfoldFnOptions {
  /** Step between blocks (default 1). */
  readonly stride?: PerDim;
  /** Zeros around the input (default 0). */
  readonly padding?: PerDim;
  /** Spacing between the elements of a block (default 1). */
  readonly dilation?: PerDim;
}

function unfoldOptions(options: UnfoldFnOptions, op: string): UnfoldOptions {
  return {
    stride: perDim(options.stride, 1, 2, 'stride', op, 1),
    padding: perDim(options.padding, 0, 2, 'padding', op, 0),
    dilation: perDim(options.dilation, 1, 2, 'dilation', op, 1),
  };
}

/**
 * Extracts sliding blocks (im2col, PyTorch's `unfold`).
 *
 * @param x `[N, C, H, W]`
 * @param kernelSize block size `[kh, kw]` (or one number for both)
 * @returns `[N, C · kh · kw, L]`, channel-major, with `L` blocks in row-major order
 */
export function unfold4d(x: Tensor<4, Float>, kernelSize: PerDim, options: UnfoldFnOptions = {}): Tensor<3, Float> {
  const op = 'unfold4d';
  x.expectFloat(op);
  expectRank(x, 4, 'input', op, '[N, C, H, W]');
  const kernel = perDim(kernelSize, 1, 2, 'kernelSize', op, 1);
  const o = unfoldOptions(options, op);
  const blocks = x.primitive.shape
    .slice(2)
    .map((s, d) => windowOut(op, d, s, kernel[d]!, o.stride[d]!, o.padding[d]!, o.dilation[d]!));
  const [n, c] = x.primitive.shape as [number, number];
  checkNumel([n, c * kernel[0]! * kernel[1]!, blocks[0]! * blocks[1]!], op);
  return x.wrap<3, Float>(x.backend.unfold4d(x.primitive, kernel, o));
}

/**
 * Combines sliding blocks into a tensor, summing where blocks overlap (PyTorch's `fold`; the
 * adjoint of {@link unfold4d}). Built from a scatter-add of every block element into the padded
 * output, then a crop of the padding.
 *
 * @param cols `[N, C · kh · kw, L]`
 * @param outputSize the spatial size `[H, W]` of the result
 * @param kernelSize block size `[kh, kw]`
 * @returns `[N, C, H, W]`
 */
export function fold4d(
  cols: Tensor<3, Float>,
  outputSize: PerDim,
  kernelSize: PerDim,
  options: UnfoldFnOptions = {},
): Tensor<4, Float> {
  const op = 'fold4d';
  cols.expectFloat(op);
  expectRank(cols, 3, 'input', op, '[N, C · kh · kw, L]');
  const [h, w] = perDim(outputSize, 1, 2, 'outputSize', op, 1) as [number, number];
  const [kh, kw] = perDim(kernelSize, 1, 2, 'kernelSize', op, 1) as [number, number];
  const o = unfoldOptions(options, op);
  const [n, ck, l] = cols.primitive.shape as [number, number, number];
  const kvol = kh * kw;
  if (ck % kvol !== 0)
    throw new BurnError(
      op,
      `input of shape ${fmt(cols.primitive.shape)}; expected dim 1 divisible by kh · kw = ${kvol}`,
    );
  const lh = windowOut(op, 0, h, kh, o.stride[0]!, o.padding[0]!, o.dilation[0]!);
  const lw = windowOut(op, 1, w, kw, o.stride[1]!, o.padding[1]!, o.dilation[1]!);
  if (lh * lw !== l) {
    throw new BurnError(
      op,
      `input of shape ${fmt(cols.primitive.shape)} has ${l} blocks; expected ${lh} × ${lw} = ${lh * lw} for output size [${h}, ${w}]`,
    );
  }
  const c = ck / kvol;
  const [hp, wp] = [h + 2 * o.padding[0]!, w + 2 * o.padding[1]!];
  checkNumel([n, c, hp, wp], op, 'padded output shape');
  // Flat position in the padded output of every (kernel tap, block) pair.
  const index = new Int32Array(kvol * l);
  for (let i = 0; i < kh; i++)
    for (let j = 0; j < kw; j++) {
      for (let bh = 0; bh < lh; bh++)
        for (let bw = 0; bw < lw; bw++) {
          const y = bh * o.stride[0]! + i * o.dilation[0]!,
            x = bw * o.stride[1]! + j * o.dilation[1]!;
          index[(i * kw + j) * l + bh * lw + bw] = y * wp + x;
        }
    }
  const device = cols.device();
  const idx = Tensor.fromData<3, Int>(new TensorData(index, [1, 1, kvol * l], 'i32'), device).expand([n, c, kvol * l]);
  const zeros = Tensor.zeros([n, c, hp * wp], { device, dtype: cols.primitive.dtype }) as unknown as Tensor<3, Float>;
  const summed = zeros.scatter(2, idx, cols.reshape([n, c, kvol * l]), 'add');
  return summed
    .reshape([n, c, hp, wp])
    .slice([null, null, [o.padding[0]!, o.padding[0]! + h], [o.padding[1]!, o.padding[1]! + w]]);
}
