/**
 * Normalized options of the module ops, as the backend receives them (every per-dimension list has
 * one entry per spatial dimension). The tensor-level `functional` API fills defaults and checks.
 */

/** Convolution options (Burn's `ConvOptions`). */
export interface ConvOptions {
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
  readonly groups: number;
}

/** Transposed convolution options (Burn's `ConvTransposeOptions`). */
export interface ConvTransposeOptions extends ConvOptions {
  /** Extra size added to one side of each output dimension. */
  readonly paddingOut: readonly number[];
}

/** Deformable convolution options (Burn's `DeformConvOptions`). */
export interface DeformConvOptions {
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
  readonly weightGroups: number;
  readonly offsetGroups: number;
}

/** Max pooling options. */
export interface MaxPoolOptions {
  readonly kernelSize: readonly number[];
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
  readonly ceilMode: boolean;
}

/** Average pooling options. */
export interface AvgPoolOptions {
  readonly kernelSize: readonly number[];
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  /** Count padded zeros in the divisor (PyTorch's `count_include_pad`). */
  readonly countIncludePad: boolean;
  readonly ceilMode: boolean;
}

/** Interpolation modes (Burn's `InterpolateMode`). */
export type InterpolateMode = 'nearest' | 'nearest-exact' | 'bilinear' | 'bicubic';

/** Interpolation options; `alignCorners` defaults to true in Burn. */
export interface InterpolateOptions {
  readonly mode: InterpolateMode;
  readonly alignCorners: boolean;
}

/** Padding of `gridSample2d` outside the input. */
export type GridSamplePaddingMode = 'zeros' | 'border' | 'reflection';

/** Grid sampling options (Burn's `GridSampleOptions`; defaults bilinear, zeros, alignCorners false). */
export interface GridSampleOptions {
  readonly mode: InterpolateMode;
  readonly paddingMode: GridSamplePaddingMode;
  readonly alignCorners: boolean;
}

/**
 * One Adam step (`Backend.adamStep`): `m' = β₁·m + (1 − β₁)·g`, `v' = β₂·v + (1 − β₂)·g²`, then
 * `p' = p − factor·m' / (√v' + epsilon)` (the bias corrections folded into `factor` and `epsilon`).
 */
export interface AdamStepOptions {
  readonly beta1: number;
  readonly beta2: number;
  /** `lr·√(1 − β₂ᵗ) / (1 − β₁ᵗ)`. */
  readonly factor: number;
  /** `ε·√(1 − β₂ᵗ)`. */
  readonly epsilon: number;
}

/** Unfold (im2col) options. */
export interface UnfoldOptions {
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
}

/** Scaled dot-product attention options (Burn's `AttentionModuleOptions`). */
export interface AttentionOptions {
  /** Score scale; default 1/sqrt(headDim). */
  readonly scale?: number | undefined;
  /** Soft cap: scores become `softcap * tanh(scores / softcap)`. */
  readonly softcap?: number | undefined;
  /** Mask keys after each query's position. */
  readonly isCausal: boolean;
}
