import type { Device } from '../../device/device.js';
import { BurnError } from '../../core/errors.js';
import type { DataLoader } from './loader.js';

/**
 * Splits a data loader into one per device (Burn's `split_dataloader`): consecutive slices of
 * `numItems / devices.length` items (the last takes the remainder), each making its batches on
 * its device. With one device, the result is the loader moved to it.
 */
export function splitDataloader<O>(loader: DataLoader<O>, devices: readonly Device[]): DataLoader<O>[] {
  if (devices.length === 0) throw new BurnError('splitDataloader', 'no devices; expected at least one');
  if (devices.length === 1) return [loader.toDevice(devices[0]!)];
  const n = loader.numItems();
  const step = Math.floor(n / devices.length);
  return devices.map((device, i) =>
    loader.slice(i * step, i === devices.length - 1 ? n : (i + 1) * step).toDevice(device),
  );
}
