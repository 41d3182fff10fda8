import type { Device } from '../../device/device.js';
import type { TensorData } from '../../tensor/data.js';
import { BurnError } from '../../tensor/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { dataForDevice } from '../ops/device-dtype.js';
import { SequenceValue, type AnyTensor, type Value } from '../ops/types.js';

/**
 * One value during a run. Small shape computations live on the host (`host`), and become device
 * tensors only when a device op reads them; device tensors get a host copy only when an op needs
 * their numbers (`Reshape`'s shape…).
 */
interface Slot {
  value?: Value;
  host?: TensorData;
}

/**
 * The values of one graph execution, chained to the enclosing graph's scope so subgraphs
 * (`If`/`Loop`/`Scan` bodies) read outer values by name.
 */
export class Scope {
  private readonly slots = new Map<string, Slot>();

  constructor(readonly device: Device, private readonly parent?: Scope) {}

  private slot(name: string): Slot | undefined {
    return this.slots.get(name) ?? this.parent?.slot(name);
  }

  /** True when `name` is bound here or in an enclosing scope. */
  has(name: string): boolean {
    return this.slot(name) !== undefined;
  }

  /** Binds a value. */
  set(name: string, value: Value | undefined): void {
    if (value === undefined) return;
    this.slots.set(name, { value });
  }

  /** Binds host data (materialized on the device when read as a tensor). */
  setHost(name: string, host: TensorData): void {
    this.slots.set(name, { host });
  }

  /** Binds a device tensor together with its known host values. */
  setBoth(name: string, value: AnyTensor, host: TensorData): void {
    this.slots.set(name, { value, host });
  }

  /** The value bound to `name` (a host value becomes a device tensor now). */
  get(name: string): Value | undefined {
    const s = this.slot(name);
    if (!s) return undefined;
    if (s.value === undefined && s.host !== undefined) s.value = Tensor.fromData(dataForDevice(s.host, this.device), this.device);
    return s.value;
  }

  /** The host values of `name` when known without reading the device. */
  knownHost(name: string): TensorData | undefined {
    return this.slot(name)?.host;
  }

  /** The host values of `name`, read synchronously from the device when not already known. */
  host(name: string, node: string): TensorData {
    const s = this.slot(name);
    if (!s) throw new BurnError('onnx', `node '${node}' reads '${name}', which has no value`);
    if (s.host === undefined) {
      if (s.value === undefined || s.value instanceof SequenceValue || !(s.value instanceof Tensor)) {
        throw new BurnError('onnx', `node '${node}' needs the values of '${name}' on the host; expected a tensor`);
      }
      s.host = s.value.toDataSync();
    }
    return s.host;
  }
}
