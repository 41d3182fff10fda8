import type { AvgPoolOptions, ConvOptions, MaxPoolOptions, UnfoldOptions } from '../../backend/options.js';
import type { WebGpuBackend } from './backend.js';
import type { GpuRuntime } from './runtime.js';
import type { WebGpuTensor } from './tensor.js';

/**
 * Module ops with dedicated WGSL kernels. Each returns undefined for a case it does not handle,
 * and the backend then runs the shared default (in a memory scope).
 */

/** Softmax / log-softmax along `dim`. */
export function softmax(rt: GpuRuntime, b: WebGpuBackend, p: WebGpuTensor, dim: number, log: boolean): WebGpuTensor | undefined {
  void rt; void b; void p; void dim; void log;
  return undefined;
}

/** N-d convolution. */
export function conv(b: WebGpuBackend, x: WebGpuTensor, weight: WebGpuTensor, bias: WebGpuTensor | undefined, o: ConvOptions): WebGpuTensor | undefined {
  void b; void x; void weight; void bias; void o;
  return undefined;
}

/** im2col. */
export function unfold(b: WebGpuBackend, x: WebGpuTensor, kernelSize: readonly number[], o: UnfoldOptions): WebGpuTensor | undefined {
  void b; void x; void kernelSize; void o;
  return undefined;
}

/** Max pooling (with indices). */
export function maxPool(b: WebGpuBackend, x: WebGpuTensor, o: MaxPoolOptions, withIndices: boolean): [WebGpuTensor, WebGpuTensor] | undefined {
  void b; void x; void o; void withIndices;
  return undefined;
}

/** Average pooling. */
export function avgPool(b: WebGpuBackend, x: WebGpuTensor, o: AvgPoolOptions): WebGpuTensor | undefined {
  void b; void x; void o;
  return undefined;
}
