import type { InterpolateMode, InterpolateOptions } from '../../backend/options.js';
import { BurnError } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { checkNumel } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { expectRank, perDim, type PerDim } from './check.js';
import { lanczos3Resize } from './lanczos.js';

/** The modes of `interpolate`: the backends' modes and the composite `'lanczos3'`. */
export type InterpolateFnMode = InterpolateMode | 'lanczos3';

/** Options of `interpolate` (Burn's `InterpolateOptions`). */
export interface InterpolateFnOptions {
  /** `'nearest'` (default), `'nearest-exact'`, `'bilinear'`, `'bicubic'` or `'lanczos3'`. */
  readonly mode?: InterpolateFnMode;
  /**
   * Align the corner pixels of input and output (default **true**, as Burn; PyTorch defaults to
   * false). The nearest modes ignore it, as in Burn and PyTorch.
   */
  readonly alignCorners?: boolean;
}

const MODES: readonly InterpolateFnMode[] = ['nearest', 'nearest-exact', 'bilinear', 'bicubic', 'lanczos3'];

/**
 * Resizes the spatial dims of `[N, C, H, W]` to `outputSize` (Burn's `interpolate`). Coordinates
 * follow PyTorch's `interpolate`; bicubic uses `A = -0.75` with border clamping; lanczos3 (Burn's
 * `Lanczos3`) weighs the six nearest samples per axis with `sinc(x)·sinc(x/3)`, skipping those
 * outside the input and renormalizing the rest.
 *
 * @param x `[N, C, H, W]`
 * @param outputSize `[H_out, W_out]` (or one number for both)
 * @returns `[N, C, H_out, W_out]`
 */
export function interpolate(
  x: Tensor<4, Float>,
  outputSize: PerDim,
  options: InterpolateFnOptions = {},
): Tensor<4, Float> {
  const op = 'interpolate';
  x.expectFloat(op);
  expectRank(x, 4, 'input', op, '[N, C, H, W]');
  const out = perDim(outputSize, 1, 2, 'outputSize', op, 1);
  const mode = options.mode ?? 'nearest';
  if (!MODES.includes(mode))
    throw new BurnError(op, `mode '${String(mode)}'; expected one of ${MODES.map((m) => `'${m}'`).join(', ')}`);
  const [n, c, h, w] = x.primitive.shape as [number, number, number, number];
  if (h < 1 || w < 1) throw new BurnError(op, `input spatial size [${h}, ${w}]; expected non-empty dims`);
  checkNumel([n, c, ...out], op);
  const alignCorners = options.alignCorners ?? true;
  if (mode === 'lanczos3') return lanczos3Resize(x, out, alignCorners);
  const o: InterpolateOptions = { mode, alignCorners };
  return x.wrap<4, Float>(x.backend.interpolate(x.primitive, out, o));
}
