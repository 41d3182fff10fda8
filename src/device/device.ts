import type { Backend, TensorPrimitive } from '../backend/backend.js';
import type { RandomKey } from '../backend/rng.js';
import { AutodiffBackend } from '../backends/autodiff/backend.js';
import { CpuBackend } from '../backends/cpu/backend.js';
import { BurnError } from '../tensor/errors.js';

/** A CPU kernel engine: `js` (plain TypeScript, always available), `wasm`, `native`. */
export type CpuEngine = 'js' | 'wasm' | 'native';

/** Options of {@link Device.cpu}. */
export interface CpuOptions {
  /** Kernel engine; default: the best available (or `BURN_CPU_ENGINE`). */
  readonly engine?: CpuEngine;
}

/** Seeded random state shared by a device and its decorators. */
class RandomState {
  private key0: number;
  private key1: number;
  private stream = 0;

  constructor() {
    const seed = new Uint32Array(2);
    globalThis.crypto.getRandomValues(seed);
    this.key0 = seed[0]!;
    this.key1 = seed[1]!;
  }

  seed(n: number): void {
    if (!Number.isSafeInteger(n)) throw new BurnError('Device.seed', `seed ${n}; expected a safe integer`);
    const big = BigInt.asUintN(64, BigInt(n));
    this.key0 = Number(big & 0xffffffffn);
    this.key1 = Number(big >> 32n);
    this.stream = 0;
  }

  next(): RandomKey {
    const key = { key0: this.key0, key1: this.key1, stream: this.stream };
    this.stream = (this.stream + 1) >>> 0;
    return key;
  }
}

const cpuDevices = new Map<CpuEngine, Device>();

/**
 * Where tensors live and which backend runs their ops. Devices are chosen at run time; model
 * code takes a `Device` and works on every one.
 */
export class Device {
  private readonly rng: RandomState;
  private readonly innerDevice: Device | undefined;
  private autodiffDevice: Device | undefined;
  private checkpointingDevice: Device | undefined;

  /**
   * Wraps a backend as a device; `label` is what `toString()` prints. Decorator devices pass the
   * device they wrap as `inner` and share its random state.
   */
  constructor(readonly backend: Backend<TensorPrimitive>, private readonly label: string, inner?: Device) {
    this.innerDevice = inner;
    this.rng = inner?.rng ?? new RandomState();
  }

  /** The autodiff device over this device (Burn's `Autodiff<B>`); the same object on every call. */
  autodiff(): Device {
    if (this.isAutodiff()) return this;
    this.autodiffDevice ??= new Device(new AutodiffBackend(this.backend), `autodiff<${this.label}>`, this);
    return this.autodiffDevice;
  }

  /**
   * The autodiff device with gradient checkpointing (Burn's `Balanced` strategy): memory-bound ops
   * are recomputed during the backward pass instead of keeping their values.
   */
  gradientCheckpointing(): Device {
    const base = this.inner();
    base.checkpointingDevice ??= new Device(new AutodiffBackend(base.backend, { checkpointing: true }), `autodiff<${base.label}>(checkpointing)`, base);
    return base.checkpointingDevice;
  }

  /** True for autodiff devices. */
  isAutodiff(): boolean {
    return this.backend.autodiff !== undefined;
  }

  /** The device an autodiff device wraps; the device itself otherwise. */
  inner(): Device {
    return this.isAutodiff() && this.innerDevice ? this.innerDevice : this;
  }

  /** The default device: the CPU with its best engine. */
  static default(): Device {
    return Device.cpu();
  }

  /** The CPU device with the given (or best available) engine; one device per engine. */
  static cpu(options: CpuOptions = {}): Device {
    const engine = options.engine ?? envEngine() ?? 'js';
    if (engine !== 'js') {
      throw new BurnError('Device.cpu', `the '${engine}' engine is not available in this build; available engines: js`);
    }
    let device = cpuDevices.get(engine);
    if (!device) {
      device = new Device(new CpuBackend() as unknown as Backend<TensorPrimitive>, `cpu(${engine})`);
      cpuDevices.set(engine, device);
    }
    return device;
  }

  /** Seeds this device's random generator: the same seed gives the same tensors on every run and engine. */
  seed(seed: number): void {
    this.rng.seed(seed);
  }

  /** The key for the next random draw (used by `Tensor.random`). */
  nextRandomKey(): RandomKey {
    return this.rng.next();
  }

  /** Waits until all queued work on this device has finished. */
  async sync(): Promise<void> {
    // CPU ops complete synchronously; asynchronous backends override through their primitives' reads.
  }

  /** True when both are the same device. */
  equals(other: Device): boolean {
    return this === other;
  }

  /** The device name, e.g. `cpu(js)`. */
  toString(): string {
    return this.label;
  }
}

function envEngine(): CpuEngine | undefined {
  const value = globalThis.process?.env?.['BURN_CPU_ENGINE'];
  if (value === undefined || value === '') return undefined;
  if (value !== 'js' && value !== 'wasm' && value !== 'native') {
    throw new BurnError('Device.cpu', `BURN_CPU_ENGINE=${value}; expected js, wasm or native`);
  }
  return value;
}
