import type { TensorData } from '../../core/data.js';
import type { AnyTensor } from './types.js';

/**
 * Host copies of device tensors made from host values (shape arithmetic, constants, loop
 * counters). A tensor carries its copy wherever it flows — through Identity, subgraph inputs and
 * outputs, sequences — so an op that needs its numbers never reads the device (which WebGPU
 * cannot do synchronously).
 */
const mirrors = new WeakMap<AnyTensor, TensorData>();

/** Records that `t` holds `data`; returns `t`. */
export function mirror<T extends AnyTensor>(t: T, data: TensorData): T {
  mirrors.set(t, data);
  return t;
}

/** The host copy of `t`, when one is known. */
export function mirrored(t: AnyTensor): TensorData | undefined {
  return mirrors.get(t);
}

/** The values of `t` on the host: its copy, or a synchronous read (CPU devices). */
export function hostData(t: AnyTensor): TensorData {
  let d = mirrors.get(t);
  if (!d) {
    d = t.toDataSync();
    mirrors.set(t, d);
  }
  return d;
}
