import type { DType } from '../core/dtype.js';
import type { NumericArray } from '../core/element.js';
import type { TensorPrimitive } from './backend.js';

/**
 * The backend side of a user-defined op (`defineCustomOp` in the tensor API): what a backend needs
 * to run its forward ({@link Backend.customOp}) and what the autodiff decorator needs to record it.
 * Plain data and functions, so no backend imports the tensor API.
 */

/** One input of a CPU forward: its values, dense in row-major order, and its shape. */
export interface CpuCustomInput {
  /** The values (the CPU backend's storage type: `Float32Array` for f32/f16/bf16, `Float64Array` for f64…). Read only. */
  readonly data: NumericArray;
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** The output of a CPU forward: an array to fill completely (its contents are undefined on entry). */
export interface CpuCustomOutput {
  readonly data: NumericArray;
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** A CPU forward: reads the inputs and writes every element of `output`. Any engine (js, wasm, native) runs it. */
export type CpuCustomForward = (inputs: readonly CpuCustomInput[], output: CpuCustomOutput) => void;

/** The shapes and dtypes a WebGPU forward is generated and dispatched for. */
export interface CustomKernelInfo {
  readonly inputs: readonly { readonly shape: readonly number[]; readonly dtype: DType }[];
  readonly output: { readonly shape: readonly number[]; readonly dtype: DType };
}

/**
 * A WebGPU forward: a WGSL compute shader (entry point `main`) and its dispatch. The backend
 * declares the bindings before `wgsl`: every input, contiguous and starting at element 0, as
 * `var<storage, read> <name>: array<T>` (T the input's 32-bit compute type: `f32` for float dtypes,
 * `i32` or `u32` for integers), then the output as `var<storage, read_write> output: array<T>`,
 * then the `u32` words of {@link params}, read with `param(i)`.
 */
export interface WebGpuCustomForward {
  /** The shader body: constants, helper functions and `@compute fn main`, without the bindings. */
  readonly wgsl: string | ((info: CustomKernelInfo) => string);
  /** The workgroup grid `[x, y?, z?]` for these shapes (each at most 65535). */
  readonly workgroups: (info: CustomKernelInfo) => readonly [number, number?, number?];
  /** The `u32` words the kernel reads with `param(i)` (sizes, strides…); none by default. */
  readonly params?: (info: CustomKernelInfo) => readonly number[];
}

/** The forwards of a custom op, one per backend family; a backend runs its own or declines. */
export interface CustomKernel {
  /** The op's name, for errors. */
  readonly name: string;
  /** The inputs' names, in order (the WGSL binding names). */
  readonly inputNames: readonly string[];
  readonly cpu?: CpuCustomForward | undefined;
  readonly webgpu?: WebGpuCustomForward | undefined;
}

/** The values the backward rule of a custom op reads: the forward's inputs and output. */
export interface CustomSaved {
  readonly inputs: readonly TensorPrimitive[];
  readonly output: TensorPrimitive;
}

/**
 * The backward rule of one custom op call on the inner backend's primitives: the gradient of every
 * input (undefined where none flows or `needs[i]` is false) from the output's gradient.
 */
export type CustomBackward = (
  grad: TensorPrimitive,
  saved: CustomSaved,
  needs: readonly boolean[],
) => readonly (TensorPrimitive | undefined)[];

/** One call of a custom op: the kernel, the output's shape and dtype, and its backward rule where it has one. */
export interface CustomCall {
  readonly kernel: CustomKernel;
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly backward?: CustomBackward | undefined;
  /** What gradient checkpointing does with the op: keep its output (`compute-bound`, the default) or run it again. */
  readonly cost?: 'compute-bound' | 'memory-bound' | undefined;
}
