import type { Device } from '../../device/device.js';

/**
 * Turns a list of items into a batch on a device (Burn's `Batcher<I, O>`), typically tensors:
 * `batch(items, device)` stacks the items' features and targets. Data loaders call it on the main
 * thread (tensors live there), also when items are loaded by worker threads.
 */
export interface Batcher<I, O> {
  /** The batch of `items` on `device`. */
  batch(items: I[], device: Device): O;
}
