import type { Backend, TensorPrimitive } from '../backend/backend.js';
import type { RandomKey } from '../backend/rng.js';
import { AutodiffBackend } from '../backends/autodiff/backend.js';
import { CpuBackend } from '../backends/cpu/backend.js';
import { FusionBackend } from '../backends/fusion/backend.js';
import { jsEngine, type CpuEngineKernels } from '../backends/cpu/engine.js';
import { NativeEngine, nativeAddon, nativeUnavailableReason } from '../backends/cpu/native/index.js';
import { initWasmEngine, wasmEngine, wasmRuntime, wasmUnavailableReason } from '../backends/cpu/wasm/index.js';
import { BurnError, describeValue } from '../core/errors.js';
import { DTYPES, isFloatDType, isIntDType, type DType, type FloatDType, type IntDType } from '../core/dtype.js';
import { checkOptions } from '../core/options.js';
import { NO_SCAN } from '../backend/memory.js';
import type { WebGpuOptions as WebGpuBackendOptions } from '../backends/webgpu/context.js';
import { RemoteBackend, type RemoteOptions } from '../backends/remote/client.js';

export type { RemoteOptions } from '../backends/remote/client.js';

/**
 * Whether `Device.cpu()` and `Device.webgpu()` return the fused device ({@link Device.fusion}) when
 * the options do not say: off until the benchmarks show where fusion pays (bench/RESULTS.md).
 */
const FUSION_BY_DEFAULT = false;

/** Options of {@link Device.webgpu}: the backend's, plus `fusion`. */
export interface WebGpuOptions extends WebGpuBackendOptions {
  /** Return the fused device ({@link Device.fusion}); default off. */
  readonly fusion?: boolean;
}

/** A CPU kernel engine: `js` (plain TypeScript, always available), `wasm`, `native`. */
export type CpuEngine = 'js' | 'wasm' | 'native';

/**
 * A kind of device {@link Device.enumerate} lists (Burn's `DeviceType`): `'cpu'` (one device per
 * available CPU engine), `'webgpu'`, or the device of a remote server (`{ remote: 'ws://host:port' }`).
 */
export type DeviceType = 'cpu' | 'webgpu' | { readonly remote: string; readonly options?: RemoteOptions };

/** Options of {@link Device.cpu}. */
export interface CpuOptions {
  /** Kernel engine; default: the best available (or `BURN_CPU_ENGINE`). */
  readonly engine?: CpuEngine;
  /** Return the fused device ({@link Device.fusion}); default off. */
  readonly fusion?: boolean;
}

/**
 * Options of {@link Device.configure}: the dtypes of the tensors a device creates when no dtype is
 * given (Burn's `set_default_dtypes`). A field left out keeps its current value.
 */
export interface DeviceSettings {
  /** The dtype of Float tensors created without one (initially `'f32'`). */
  readonly floatDtype?: FloatDType;
  /** The dtype of Int tensors created without one (initially `'i32'`). */
  readonly intDtype?: IntDType;
}

/** The default dtypes of a device ({@link Device.defaultDtypes}). */
export interface DeviceDtypes {
  /** The dtype of Float tensors created without one. */
  readonly floatDtype: FloatDType;
  /** The dtype of Int tensors created without one. */
  readonly intDtype: IntDType;
}

/** The default dtypes shared by a device and its decorators (autodiff over it creates the same). */
class DefaultDtypes {
  floatDtype: FloatDType = 'f32';
  intDtype: IntDType = 'i32';
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
const webgpuDevices = new Map<string, Promise<Device>>();
const remoteDevices = new Map<string, Device>();

/**
 * Where tensors live and which backend runs their ops. Devices are chosen at run time; model
 * code takes a `Device` and works on every one.
 */
export class Device {
  /** @internal Memory scopes do not search devices for tensors. */
  readonly [NO_SCAN] = true;
  private readonly rng: RandomState;
  private readonly dtypes: DefaultDtypes;
  private readonly innerDevice: Device | undefined;
  private autodiffDevice: Device | undefined;
  private checkpointingDevice: Device | undefined;
  private fusionDevice: Device | undefined;

  /**
   * Wraps a backend as a device; `label` is what `toString()` prints. Decorator devices pass the
   * device they wrap as `inner` and share its random state.
   */
  constructor(
    readonly backend: Backend<TensorPrimitive>,
    private readonly label: string,
    inner?: Device,
  ) {
    this.innerDevice = inner;
    this.rng = inner?.rng ?? new RandomState();
    this.dtypes = inner?.dtypes ?? new DefaultDtypes();
  }

  /**
   * Sets the dtypes of the tensors this device creates when no dtype is given (Burn's
   * `set_default_dtypes`): `floatDtype` for `zeros`, `ones`, `full`, `empty`, `random`, `eye`,
   * `fromFloats` and `fromData` of numbers; `intDtype` for `fromInts`, `arange`, `arangeStep` and
   * `cartesianGrid`. An explicit `dtype`, `TensorData`'s own dtype and the dtype of the tensor an
   * op reads are kept. The setting is shared with this device's autodiff and inner devices, and
   * applies to tensors created afterwards (unlike Burn, it may be changed at any time). Returns
   * the device.
   *
   * Throws a BurnError for a dtype of the wrong kind (`floatDtype: 'i32'`) or one the backend
   * cannot create (f64 and i64 on WebGPU); a remote server's refusal surfaces at the next read.
   *
   * ```ts
   * const device = Device.cpu().configure({ floatDtype: 'f64' });
   * Tensor.zeros([2, 2], device).dtype(); // 'f64'
   * ```
   */
  configure(settings: DeviceSettings): this {
    const op = 'Device.configure';
    checkOptions(settings, ['floatDtype', 'intDtype'], op);
    if (settings === undefined) throw new BurnError(op, 'no settings; expected { floatDtype?, intDtype? }');
    const { floatDtype, intDtype } = settings;
    if (floatDtype !== undefined)
      this.checkDefault('floatDtype', floatDtype, isFloatDType, 'a float dtype: f32, f64, f16 or bf16');
    if (intDtype !== undefined)
      this.checkDefault('intDtype', intDtype, isIntDType, 'an integer dtype: i32, i64, i16, i8, u32, u16 or u8');
    // Set only once both are valid: a refused call changes nothing.
    if (floatDtype !== undefined) this.dtypes.floatDtype = floatDtype;
    if (intDtype !== undefined) this.dtypes.intDtype = intDtype;
    return this;
  }

  private checkDefault(field: string, dtype: unknown, ok: (d: DType) => boolean, expected: string): void {
    const op = 'Device.configure';
    if (typeof dtype !== 'string' || !(DTYPES as readonly string[]).includes(dtype)) {
      throw new BurnError(op, `${field} ${describeValue(dtype)} is not a dtype; expected ${expected}`);
    }
    if (!ok(dtype as DType))
      throw new BurnError(
        op,
        `${field} '${dtype}' is ${dtype === 'bool' ? 'the bool dtype' : isFloatDType(dtype as DType) ? 'a float dtype' : 'an integer dtype'}; expected ${expected}`,
      );
    // The backend's own check: creating one element of the dtype (WebGPU refuses f64 and i64).
    const backend = this.inner().backend;
    try {
      const p = backend.fill([], 0, dtype as DType);
      backend.dispose?.(p);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new BurnError(
        op,
        `${field} '${dtype}' is not supported on ${this.inner()} (${why}); expected a dtype this device supports`,
      );
    }
  }

  /** The dtypes this device creates tensors with when none is given (see {@link configure}). */
  defaultDtypes(): DeviceDtypes {
    return { floatDtype: this.dtypes.floatDtype, intDtype: this.dtypes.intDtype };
  }

  /** The dtype of Float tensors created on this device without one (`'f32'` unless {@link configure}d). */
  defaultFloatDtype(): FloatDType {
    return this.dtypes.floatDtype;
  }

  /** The dtype of Int tensors created on this device without one (`'i32'` unless {@link configure}d). */
  defaultIntDtype(): IntDType {
    return this.dtypes.intDtype;
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
    base.checkpointingDevice ??= new Device(
      new AutodiffBackend(base.backend, { checkpointing: true }),
      `autodiff<${base.label}>(checkpointing)`,
      base,
    );
    return base.checkpointingDevice;
  }

  /** True for autodiff devices. */
  isAutodiff(): boolean {
    return this.backend.autodiff !== undefined;
  }

  /**
   * The fused device over this device (Burn's `Fusion<B>`); the same object on every call. Its
   * elementwise ops, casts, wheres and reductions are recorded lazily and run as one fused kernel
   * per block when their values are needed (a read, an op that cannot fuse, the end of a
   * `Tensor.scope`); other ops run on this device's backend. It shares this device's random state
   * and default dtypes, so it gives the same values. `fusion().autodiff()` trains with the
   * backward pass fused too; on an autodiff device `autodiff().fusion()` is that same device
   * (autodiff always goes outside fusion, as Burn's `Autodiff<Fusion<B>>`). On a fused device it
   * returns the device itself.
   */
  fusion(): Device {
    if (this.isFusion()) return this;
    if (this.isAutodiff()) {
      const base = this.inner().fusion();
      return this.label.endsWith('(checkpointing)') ? base.gradientCheckpointing() : base.autodiff();
    }
    this.fusionDevice ??= new Device(new FusionBackend(this.backend), `fusion<${this.label}>`, this);
    return this.fusionDevice;
  }

  /** True for fused devices ({@link fusion}) and autodiff devices over them. */
  isFusion(): boolean {
    return this.inner().backend instanceof FusionBackend;
  }

  /** The device an autodiff device wraps; the device itself otherwise. */
  inner(): Device {
    return this.isAutodiff() && this.innerDevice ? this.innerDevice : this;
  }

  /** The default device: the CPU with its best engine (in a browser page use {@link Device.defaultAsync}, which can pick WebGPU). */
  static default(): Device {
    return Device.cpu();
  }

  /**
   * The CPU device with the given engine, or the best available (`native`, then `wasm`, then
   * `js`; `BURN_CPU_ENGINE` chooses when no engine is given); one device per engine. Asking for
   * an engine that is not available throws a `BurnError` that says why.
   */
  static cpu(options: CpuOptions = {}): Device {
    if (options.fusion ?? FUSION_BY_DEFAULT) return Device.cpu({ ...options, fusion: false }).fusion();
    const engine = options.engine ?? envEngine() ?? bestCpuEngine();
    let device = cpuDevices.get(engine);
    if (!device) {
      device = new Device(
        new CpuBackend(cpuEngineKernels(engine)) as unknown as Backend<TensorPrimitive>,
        `cpu(${engine})`,
      );
      cpuDevices.set(engine, device);
    }
    return device;
  }

  /**
   * {@link Device.cpu}, after loading the `wasm` engine's WebAssembly module asynchronously. In a
   * browser (which compiles WebAssembly only asynchronously) call this once instead of
   * `Device.cpu()`; afterwards `Device.cpu()` is synchronous there too. The same in Node.
   */
  static async cpuAsync(options: CpuOptions = {}): Promise<Device> {
    await initWasmEngine();
    return Device.cpu(options);
  }

  /**
   * The default device, chosen asynchronously. In a browser page: WebGPU when `navigator.gpu`
   * gives an adapter, else the `wasm` engine (threaded when the page is cross-origin isolated),
   * else `js`; one line on the console says which and why. In Node: {@link Device.cpu}'s best
   * engine, as {@link Device.default}. `toString()` of the result names the choice too.
   */
  static async defaultAsync(): Promise<Device> {
    if (globalThis.process?.versions?.node) return Device.cpuAsync();
    const why: string[] = [];
    if ((globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu === undefined)
      why.push('no WebGPU (navigator.gpu is undefined)');
    else {
      try {
        const gpu = await Device.webgpu();
        console.info(`burn-ts: default device ${gpu} (a WebGPU adapter exists)`);
        return gpu;
      } catch (e) {
        why.push(`no WebGPU device (${(e as Error).message.split('\n')[0]})`);
      }
    }
    const cpu = await Device.cpuAsync();
    const runtime = wasmRuntime();
    const engine = runtime
      ? `${runtime.threads} thread${runtime.threads === 1 ? '' : 's'}${runtime.threads === 1 && !(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated ? ': the page is not cross-origin isolated' : ''}`
      : `wasm unavailable: ${wasmUnavailableReason()}`;
    console.info(`burn-ts: default device ${cpu} (${engine}; ${why.join('; ')})`);
    return cpu;
  }

  /**
   * The WebGPU device: Dawn through the optional `webgpu` package in Node, `navigator.gpu` in a
   * browser; one device per distinct options. Throws a BurnError saying what is missing when there
   * is no WebGPU implementation or no adapter. The backend is loaded only when asked for.
   */
  static webgpu(options: WebGpuOptions = {}): Promise<Device> {
    const { fusion, ...rest } = options;
    if (fusion ?? FUSION_BY_DEFAULT) return Device.webgpuPlain(rest).then((d) => d.fusion());
    return Device.webgpuPlain(rest);
  }

  /** {@link Device.webgpu} without the fusion option: the plain device, one per distinct options. */
  private static webgpuPlain(options: WebGpuBackendOptions): Promise<Device> {
    const key = JSON.stringify(options);
    let device = webgpuDevices.get(key);
    if (!device) {
      device = import('../backends/webgpu/index.js').then(async (m) => {
        const backend = await m.createWebGpuBackend(options);
        // A lost device is forgotten, so that the next call creates a new one.
        void backend.lost.then(() => {
          if (webgpuDevices.get(key) === device) webgpuDevices.delete(key);
        });
        return new Device(backend as unknown as Backend<TensorPrimitive>, m.webgpuLabel(backend.info()));
      });
      webgpuDevices.set(key, device);
      device.catch(() => webgpuDevices.delete(key));
    }
    return device;
  }

  /**
   * A device whose ops run on a remote server (`startServer` in `burn-ts/remote`) reached over
   * WebSocket at `url` (`ws://host:port`). Ops are synchronous (sent in order, in the background);
   * reads are awaited, `device.sync()` waits for the server. One device per URL while its
   * connection is open (`options` apply when a connection is made); after it closes, this
   * connects again with a new device. Throws a BurnError for a URL that is not `ws://` or `wss://`.
   */
  static remote(url: string, options: RemoteOptions = {}): Device {
    const existing = remoteDevices.get(url);
    if (existing && !(existing.backend as unknown as RemoteBackend).closed) return existing;
    const backend = new RemoteBackend(url, options);
    const device = new Device(backend as unknown as Backend<TensorPrimitive>, `remote(${url})`);
    remoteDevices.set(url, device);
    return device;
  }

  /**
   * The devices available of the given types (Burn's `Device::enumerate`; default: the local ones,
   * CPU then WebGPU), in the order of the types: for `'cpu'` one device per CPU engine that loads,
   * the default engine's ({@link Device.cpu}) first; for `'webgpu'` the WebGPU device, or none
   * without a WebGPU implementation or adapter; for `{ remote: url }` the server's device, once it
   * has answered (an unreachable server is an error, not an empty list).
   */
  static async enumerate(types: DeviceType | readonly DeviceType[] = ['cpu', 'webgpu']): Promise<Device[]> {
    const list = (Array.isArray(types) ? types : [types]) as readonly DeviceType[];
    const out: Device[] = [];
    for (const type of list) {
      if (type === 'cpu') {
        const best = Device.cpu();
        out.push(best);
        const engines: CpuEngine[] = [
          ...(nativeAddon() ? ['native' as const] : []),
          ...(wasmRuntime() ? ['wasm' as const] : []),
          'js',
        ];
        for (const engine of engines) if (!Device.cpu({ engine }).equals(best)) out.push(Device.cpu({ engine }));
      } else if (type === 'webgpu') {
        // No WebGPU here is a BurnError saying why: that device is simply not listed.
        const gpu = await Device.webgpu().catch((e: unknown) => {
          if (e instanceof BurnError) return undefined;
          throw e;
        });
        if (gpu) out.push(gpu);
      } else if (
        typeof type === 'object' &&
        type !== null &&
        typeof (type as { remote?: unknown }).remote === 'string'
      ) {
        const remote = Device.remote(type.remote, type.options);
        await remote.sync();
        out.push(remote);
      } else {
        throw new BurnError(
          'Device.enumerate',
          `device type ${typeof type === 'string' ? JSON.stringify(type) : describeValue(type)}; expected 'cpu', 'webgpu' or { remote: url }`,
        );
      }
    }
    return out;
  }

  /** What the device runs on: its name, the backend, and backend details (adapter, features, limits, memory on WebGPU). */
  info(): Readonly<Record<string, unknown>> {
    return { name: this.label, backend: this.backend.name, ...(this.backend.info?.() ?? {}) };
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
    // CPU ops complete synchronously; asynchronous backends (WebGPU) wait for their queue.
    await this.backend.sync?.();
  }

  /**
   * Closes a remote device ({@link Device.remote}): the connection ends and the server frees this
   * client's tensors; afterwards ops on the device throw and reads reject with a BurnError, and
   * `Device.remote(url)` connects again with a new device. Ops sent but not yet run are dropped:
   * `await device.sync()` first to wait for them. Closing the autodiff device over a remote device
   * closes that device; closing twice does nothing. On local devices (CPU, WebGPU) nothing
   * happens: their memory is released per tensor (`dispose`, scopes, the garbage collector).
   */
  close(): void {
    const inner = this.inner();
    // A fused device closes the device it wraps.
    const base = inner.backend instanceof FusionBackend && inner.innerDevice ? inner.innerDevice : inner;
    if (!(base.backend instanceof RemoteBackend)) return;
    base.backend.close();
    for (const [url, device] of remoteDevices) if (device === base) remoteDevices.delete(url);
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

/**
 * The fastest engine available here: `native` when its addon loads, then `wasm`, then `js`. When
 * the default has to fall back, one line (once per process) says why.
 */
function bestCpuEngine(): CpuEngine {
  if (nativeAddon()) return 'native';
  const native = nativeUnavailableReason();
  // Outside Node the addon cannot exist: no line for that.
  const why = globalThis.process?.versions?.node ? `the native CPU engine is unavailable (${native})` : undefined;
  if (wasmRuntime()) {
    if (why) fallbackNotice(`burn-ts: ${why}; using the wasm engine`);
    return 'wasm';
  }
  fallbackNotice(
    `burn-ts: ${why ? `${why} and the` : 'the'} wasm CPU engine is unavailable (${wasmUnavailableReason()}); using the js engine`,
  );
  return 'js';
}

let noticed = false;

/** Prints the engine fallback line once per process. */
function fallbackNotice(line: string): void {
  if (noticed) return;
  noticed = true;
  console.warn(line);
}

/** The kernels of an engine, or a `BurnError` naming why it is unavailable. */
function cpuEngineKernels(engine: CpuEngine): CpuEngineKernels {
  if (engine === 'js') return jsEngine;
  if (engine === 'native') {
    const addon = nativeAddon();
    if (addon) return new NativeEngine(addon);
    throw new BurnError(
      'Device.cpu',
      `the 'native' engine is not available: ${nativeUnavailableReason()}; available engines: ${wasmRuntime() ? 'js, wasm' : 'js'}`,
    );
  }
  if (wasmRuntime()) return wasmEngine();
  throw new BurnError(
    'Device.cpu',
    `the 'wasm' engine is not available: ${wasmUnavailableReason()}; available engines: ${nativeAddon() ? 'js, native' : 'js'}`,
  );
}

function envEngine(): CpuEngine | undefined {
  const value = globalThis.process?.env?.['BURN_CPU_ENGINE'];
  if (value === undefined || value === '') return undefined;
  if (value !== 'js' && value !== 'wasm' && value !== 'native') {
    throw new BurnError('Device.cpu', `BURN_CPU_ENGINE=${value}; expected js, wasm or native`);
  }
  return value;
}
