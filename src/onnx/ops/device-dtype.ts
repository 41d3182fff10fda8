import type { Device } from '../../device/device.js';
import type { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import { Tensor } from '../../tensor/tensor.js';

/**
 * ONNX computes indices and shapes in i64 (and some models in f64). Devices without 64-bit
 * types (WebGPU: WGSL has none) run those values as i32 / f32 instead: the largest index a
 * browser-sized model uses fits, and the runtime stays on the device instead of failing.
 */
const probes = new WeakMap<Device, Map<DType, boolean>>();

/** True when `device` stores `dtype` (probed once per device by creating a one-element tensor). */
export function deviceSupports(device: Device, dtype: DType): boolean {
  let m = probes.get(device);
  if (!m) probes.set(device, (m = new Map()));
  let ok = m.get(dtype);
  if (ok === undefined) {
    try {
      Tensor.zeros([1], { device, dtype }).dispose();
      ok = true;
    } catch {
      ok = false;
    }
    m.set(dtype, ok);
  }
  return ok;
}

/** The dtype `device` holds for `dtype`: itself, or i32 for i64 and f32 for f64 where 64-bit types are missing. */
export function deviceDType(dtype: DType, device: Device): DType {
  if (dtype === 'i64' && !deviceSupports(device, 'i64')) return 'i32';
  if (dtype === 'f64' && !deviceSupports(device, 'f64')) return 'f32';
  return dtype;
}

/** Host data as the device can hold it (see {@link deviceDType}). */
export function dataForDevice(data: TensorData, device: Device): TensorData {
  const dt = deviceDType(data.dtype, device);
  return dt === data.dtype ? data : data.convert(dt);
}
