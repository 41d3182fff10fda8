import type { TensorData } from './data.js';

// Hand-over of fresh arrays. Code that builds a TensorData over memory nobody else holds (bytes
// just read from a file) marks it; a backend may then keep that array as the tensor's storage
// instead of copying it, which halves the memory a large load touches. A mark is taken once.
const handedOver = new WeakSet<TensorData>();

/** @internal Marks `data` as the only holder of its array (so a backend may keep the array); returns it. */
export function handOver(data: TensorData): TensorData {
  handedOver.add(data);
  return data;
}

/** @internal Whether `data` was handed over, clearing the mark: the caller now owns its array. */
export function takeOver(data: TensorData): boolean {
  return handedOver.delete(data);
}
