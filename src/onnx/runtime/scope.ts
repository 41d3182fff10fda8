import type { Device } from '../../device/device.js';
import type { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { dataForDevice } from '../ops/device-dtype.js';
import { hostData, mirror, mirrored } from '../ops/host-mirror.js';
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
  /** Backend handles this scope's steps created, with the number of this scope's slots holding each. */
  private readonly owned = new Map<unknown, number>();

  constructor(
    readonly device: Device,
    private readonly parent?: Scope,
  ) {}

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
    if (s.value === undefined && s.host !== undefined) {
      const d = dataForDevice(s.host, this.device);
      s.value = mirror(Tensor.fromData(d, this.device), d);
    }
    return s.value;
  }

  /**
   * Marks the value of `name` (just produced by a step) as created here: {@link release} may
   * dispose it once no slot of this scope holds it. Values an op passed through (Identity of an
   * input, a sequence item, a subgraph's outer value) are never marked.
   */
  own(name: string): void {
    const p = this.handle(name);
    if (p !== undefined) this.owned.set(p, (this.owned.get(p) ?? 0) + 1);
  }

  /** Counts another slot holding an owned handle (an op passed its input through). */
  share(name: string): void {
    const p = this.handle(name);
    if (p !== undefined && this.owned.has(p)) this.owned.set(p, this.owned.get(p)! + 1);
  }

  private handle(name: string): unknown {
    const v = this.slots.get(name)?.value;
    return v instanceof Tensor ? (v as AnyTensor).primitive : undefined;
  }

  /** Forgets the value of `name` and disposes its tensor when this scope created it and no other slot holds it. */
  release(name: string): void {
    const s = this.slots.get(name);
    if (!s) return;
    this.slots.delete(name);
    const v = s.value;
    if (!(v instanceof Tensor)) return;
    const t = v as AnyTensor;
    const n = this.owned.get(t.primitive);
    if (n === undefined) return;
    if (n > 1) this.owned.set(t.primitive, n - 1);
    else {
      this.owned.delete(t.primitive);
      t.dispose();
    }
  }

  /** Keeps `t` alive for good (it went into a sequence, which may outlive its slot). */
  pin(t: AnyTensor): void {
    this.owned.delete(t.primitive);
  }

  /** The host values of `name` when known without reading the device. */
  knownHost(name: string): TensorData | undefined {
    const s = this.slot(name);
    if (!s) return undefined;
    if (s.host === undefined && s.value instanceof Tensor) s.host = mirrored(s.value as AnyTensor);
    return s.host;
  }

  /** Records host values read (asynchronously) for the tensor of `name`. */
  cacheHost(name: string, data: TensorData): void {
    const s = this.slot(name);
    if (s) s.host = data;
  }

  /** The host values of `name`, read synchronously from the device when not already known. */
  host(name: string, node: string): TensorData {
    const s = this.slot(name);
    if (!s) throw new BurnError('onnx', `node '${node}' reads '${name}', which has no value`);
    if (s.host === undefined) {
      if (s.value === undefined || s.value instanceof SequenceValue || !(s.value instanceof Tensor)) {
        throw new BurnError('onnx', `node '${node}' needs the values of '${name}' on the host; expected a tensor`);
      }
      s.host = hostData(s.value as AnyTensor);
    }
    return s.host;
  }
}
