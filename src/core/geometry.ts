/**
 * Sliding-window geometry shared by the backends, their defaults, the tensor API and ONNX import:
 * output sizes of convolution, transposed convolution, pooling and unfold, 'same' padding, and the
 * per-dim settings of 1–3 spatial dims lifted to 3 for kernels written once for 3-d. The formulas
 * are PyTorch's (`torch.nn.Conv2d`, `ConvTranspose2d`, `MaxPool2d` docs), per spatial dim.
 */

/** Per-dim window settings of a convolution-like op (one entry per spatial dim). */
export interface WindowOptions {
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
}

/** Three per-dim values (depth, height, width). */
export type Triple = [number, number, number];

/** Window geometry of 1–3 spatial dims lifted to 3 (leading dims of size 1, padding 0). */
export interface Geometry3 {
  readonly in: Triple;
  readonly out: Triple;
  readonly kernel: Triple;
  readonly stride: Triple;
  readonly padding: Triple;
  readonly dilation: Triple;
}

/** The elements one window spans: `dilation · (kernel − 1) + 1`. */
export function dilatedKernel(kernel: number, dilation: number): number {
  return dilation * (kernel - 1) + 1;
}

/**
 * Output positions of a convolution window along one dim (floor mode):
 * `floor((size + padding + paddingEnd − dilation · (kernel − 1) − 1) / stride) + 1`, with
 * `paddingEnd` defaulting to `padding`. Below 1 when no window fits; callers check.
 */
export function convOutputSize(
  size: number,
  kernel: number,
  stride: number,
  padding: number,
  dilation: number,
  paddingEnd = padding,
): number {
  return Math.floor((size + padding + paddingEnd - dilation * (kernel - 1) - 1) / stride) + 1;
}

/** {@link convOutputSize} of every spatial dim of `inSize` (symmetric padding). */
export function convOutputSizes(inSize: readonly number[], kernel: readonly number[], o: WindowOptions): number[] {
  return inSize.map((s, i) => convOutputSize(s, kernel[i]!, o.stride[i]!, o.padding[i]!, o.dilation[i]!));
}

/**
 * Output size of a transposed convolution along one dim:
 * `(size − 1) · stride − 2 · padding + dilation · (kernel − 1) + paddingOut + 1`.
 */
export function convTransposeOutputSize(
  size: number,
  kernel: number,
  stride: number,
  padding: number,
  dilation: number,
  paddingOut: number,
): number {
  return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + paddingOut + 1;
}

/** {@link convTransposeOutputSize} of every spatial dim of `inSize`. */
export function convTransposeOutputSizes(
  inSize: readonly number[],
  kernel: readonly number[],
  o: WindowOptions & { readonly paddingOut: readonly number[] },
): number[] {
  return inSize.map((s, i) =>
    convTransposeOutputSize(s, kernel[i]!, o.stride[i]!, o.padding[i]!, o.dilation[i]!, o.paddingOut[i]!),
  );
}

/**
 * Output positions of a pooling window along one dim, as PyTorch: floor (or ceil, in ceil mode) of
 * `(size + padding + paddingEnd − span) / stride`, plus 1; in ceil mode a last window that would
 * start past the input and the left padding is dropped. `paddingEnd` defaults to `padding`.
 * Without a clamp: an input smaller than the window gives 0 or less.
 */
export function poolOutputSize(
  size: number,
  kernel: number,
  stride: number,
  padding: number,
  dilation: number,
  ceilMode: boolean,
  paddingEnd = padding,
): number {
  const room = size + padding + paddingEnd - dilatedKernel(kernel, dilation);
  let out = (ceilMode ? Math.ceil(room / stride) : Math.floor(room / stride)) + 1;
  if (ceilMode && (out - 1) * stride >= size + padding) out--;
  return out;
}

/**
 * The far-side padding past `paddingEnd` that `out` pooling windows need to lie inside the padded
 * input (`> 0` only for the partial last window of ceil mode):
 * `max(0, (out − 1) · stride + span − (size + padding + paddingEnd))`.
 */
export function poolOverhang(
  size: number,
  out: number,
  kernel: number,
  stride: number,
  padding: number,
  dilation: number,
  paddingEnd = padding,
): number {
  return Math.max(0, (out - 1) * stride + dilatedKernel(kernel, dilation) - (size + padding + paddingEnd));
}

/**
 * The most padding a pooling window takes on each side: half the kernel, `floor(kernel / 2)`
 * (PyTorch's limit; more would let a window lie wholly in the padding).
 */
export function poolPaddingLimit(kernel: number): number {
  return Math.floor(kernel / 2);
}

/** True when `padding` is within {@link poolPaddingLimit} of `kernel`. */
export function poolPaddingFits(padding: number, kernel: number): boolean {
  return padding <= poolPaddingLimit(kernel);
}

/** {@link poolOutputSize} of every spatial dim (symmetric padding). */
export function poolOutputSizes(
  spatial: readonly number[],
  kernel: readonly number[],
  stride: readonly number[],
  padding: readonly number[],
  dilation: readonly number[],
  ceilMode: boolean,
): number[] {
  return spatial.map((s, d) => poolOutputSize(s, kernel[d]!, stride[d]!, padding[d]!, dilation[d]!, ceilMode));
}

/**
 * 'same' padding along one dim: the output keeps `ceil(size / stride)` positions and the total
 * padding `max(0, (out − 1) · stride + dilation · (kernel − 1) + 1 − size)` is split with the odd
 * element after (`[before, after]`; ONNX's SAME_UPPER, PyTorch's 'same').
 */
export function samePadding(size: number, kernel: number, stride: number, dilation: number): [number, number] {
  const out = Math.ceil(size / stride);
  const total = Math.max(0, (out - 1) * stride + dilatedKernel(kernel, dilation) - size);
  const before = Math.floor(total / 2);
  return [before, total - before];
}

/** Lifts per-dim values of 1–3 spatial dims to 3, filling the leading dims with `fill`. */
export function lift3(values: readonly number[], fill: number): Triple {
  const out: Triple = [fill, fill, fill];
  values.forEach((v, i) => (out[3 - values.length + i] = v));
  return out;
}

/** The window geometry of an op from `inSize` to `outSize`, lifted to 3 spatial dims. */
export function geometry3(
  inSize: readonly number[],
  outSize: readonly number[],
  kernel: readonly number[],
  o: WindowOptions,
): Geometry3 {
  return {
    in: lift3(inSize, 1),
    out: lift3(outSize, 1),
    kernel: lift3(kernel, 1),
    stride: lift3(o.stride, 1),
    padding: lift3(o.padding, 0),
    dilation: lift3(o.dilation, 1),
  };
}
