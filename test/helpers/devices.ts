import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { jsEngine } from '../../src/backends/cpu/engine.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import { NativeEngine, nativeAddon, nativeUnavailableReason } from '../../src/backends/cpu/native/index.js';
import { wasmEngine, wasmRuntime, wasmUnavailableReason } from '../../src/backends/cpu/wasm/index.js';
import { it } from 'node:test';
import { BurnError, Device, type DType } from '../../src/index.js';
import { requiredOnlyDevice } from './required-backend.js';
import { startServer, type RemoteServer } from '../../src/backends/remote/index.js';

/** One device of the conformance suite. */
export interface ConformanceDevice {
  readonly name: string;
  readonly device: () => Device;
  /**
   * The dtypes the device stores, when not all of them: a case using another dtype must throw a
   * BurnError naming it (WebGPU has no 64-bit types).
   */
  readonly dtypes?: ReadonlySet<DType>;
  /** False for devices that cannot read values synchronously (WebGPU): the sync reads must throw a BurnError saying so. */
  readonly readsSync?: boolean;
}

/** The WebGPU device, or why there is none (no `webgpu` package, no adapter). */
export const webgpu: { device: Device; reason?: undefined } | { device?: undefined; reason: string } =
  await Device.webgpu().then(
    (device) => ({ device }),
    (e: unknown) => ({ reason: e instanceof Error ? e.message : String(e) }),
  );

/**
 * The remote-backend server of this test process (one per process, on 127.0.0.1, a free port),
 * running ops on the CPU's js engine; unref'd, so it never keeps a finished test process alive.
 */
export const remoteServer: RemoteServer = (await startServer(Device.cpu({ engine: 'js' }), 0)).unref();

/** The dtypes the WebGPU backend stores (no f64, no i64). */
export const WEBGPU_DTYPES: ReadonlySet<DType> = new Set<DType>([
  'f32',
  'f16',
  'bf16',
  'i32',
  'i16',
  'i8',
  'u32',
  'u16',
  'u8',
  'bool',
]);

let nativeDevice: Device | undefined;

/**
 * The CPU device on the `native` engine with every size threshold at 0, so that even the tiny
 * tensors of the conformance suite run the addon's kernels (the default device leaves tiny ops to
 * the `js` kernels), every float output uninitialized and every released array reused, whatever its
 * size (a kernel that misses an element shows);
 * undefined when the addon does not load (see {@link nativeUnavailableReason}).
 */
export function nativeTestDevice(): Device | undefined {
  const addon = nativeAddon();
  if (!addon) return undefined;
  nativeDevice ??= new Device(
    new CpuBackend(
      new NativeEngine(addon, { minElements: 0, minCostlyElements: 0, minGemm: 0, minAllocBytes: 0 }),
      new BufferPool({ minBytes: 0 }),
    ) as unknown as Backend<TensorPrimitive>,
    'cpu(native)',
  );
  return nativeDevice;
}

let jsDevice: Device | undefined;

/** The CPU device on the `js` engine with a pool that reuses released arrays whatever their size. */
export function jsReuseDevice(): Device {
  jsDevice ??= new Device(
    new CpuBackend(jsEngine, new BufferPool({ minBytes: 0 })) as unknown as Backend<TensorPrimitive>,
    'cpu(js)',
  );
  return jsDevice;
}

let wasmDevice: Device | undefined;

/**
 * The CPU device on the `wasm` engine with every size threshold at 0, so that even the tiny
 * tensors of the conformance suite run the WebAssembly kernels (the default device leaves tiny ops
 * to the `js` kernels) and every released array reused, whatever its size; undefined when the module does not load (see {@link wasmUnavailableReason}).
 */
export function wasmTestDevice(): Device | undefined {
  if (!wasmRuntime()) return undefined;
  wasmDevice ??= new Device(
    new CpuBackend(
      wasmEngine({ minElements: 0, minCostlyElements: 0, minGemm: 0 }),
      new BufferPool({ minBytes: 0 }),
    ) as unknown as Backend<TensorPrimitive>,
    'cpu(wasm)',
  );
  return wasmDevice;
}

/**
 * Every device the conformance suite runs on. Each entry is a (name, factory) pair so suites can
 * create tensors per device; devices that need a system component add themselves here and skip
 * (or, under BURN_TEST_STRICT=1, fail) when it is missing. The autodiff decorator runs the whole
 * suite too: its forward values must match its inner device's.
 *
 * The `native` engine (a Node addon built by `npm install`) joins when it loads. When it does
 * not, test/backends/native.test.ts reports a skip; under BURN_TEST_STRICT=1 its entries stay in
 * the list and every one of their tests fails with the reason.
 */
export function conformanceDevices(options: { readonly fusion?: boolean } = {}): ConformanceDevice[] {
  const devices: ConformanceDevice[] = [
    { name: 'cpu(js)', device: () => Device.cpu({ engine: 'js' }) },
    { name: 'required-only', device: requiredOnlyDevice },
    // Over a js device that reuses released arrays of every size (the backward pass releases its
    // gradients), so a js kernel that relies on a zeroed output shows.
    { name: 'autodiff<cpu(js)>', device: () => jsReuseDevice().autodiff() },
  ];
  const strict = process.env['BURN_TEST_STRICT'] === '1';
  if (nativeAddon() || strict) {
    const native = (): Device => {
      const device = nativeTestDevice();
      if (!device) throw new Error(`the native CPU engine is unavailable: ${nativeUnavailableReason()}`);
      return device;
    };
    devices.push(
      { name: 'cpu(native)', device: native },
      { name: 'autodiff<cpu(native)>', device: () => native().autodiff() },
    );
  }
  // The `wasm` engine (WebAssembly built by `npm install`) joins when its module loads; when it does
  // not, test/backends/wasm.test.ts reports a skip, and under BURN_TEST_STRICT=1 these entries stay
  // and every one of their tests fails with the reason.
  if (wasmRuntime() || strict) {
    const wasm = (): Device => {
      const device = wasmTestDevice();
      if (!device) throw new Error(`the wasm CPU engine is unavailable: ${wasmUnavailableReason()}`);
      return device;
    };
    devices.push({ name: 'cpu(wasm)', device: wasm }, { name: 'autodiff<cpu(wasm)>', device: () => wasm().autodiff() });
  }
  // WebGPU (SwiftShader serves without a GPU) joins when an adapter is available; otherwise
  // test/backends/webgpu/availability.test.ts reports a skip, which fails under BURN_TEST_STRICT=1.
  const gpu = webgpu.device;
  if (gpu) {
    devices.push(
      { name: 'webgpu', device: () => gpu, dtypes: WEBGPU_DTYPES, readsSync: false },
      { name: 'autodiff<webgpu>', device: () => gpu.autodiff(), dtypes: WEBGPU_DTYPES, readsSync: false },
    );
  }
  // The remote backend, against a server on the CPU (js engine) in this process.
  devices.push({ name: 'remote', device: () => Device.remote(remoteServer.url), readsSync: false });
  if (options.fusion || process.env['BURN_TEST_FUSION'] === '1') devices.push(...fusedDevices());
  // BURN_TEST_DEVICES=name,name narrows the list (for development).
  const only = process.env['BURN_TEST_DEVICES'];
  return only ? devices.filter((d) => only.split(',').includes(d.name)) : devices;
}

/**
 * The fusion decorator over every engine and WebGPU (each over the same test device as its plain
 * entry: size thresholds at 0, pools that reuse every array), and `fusion().autodiff()` over `js`,
 * `native` and WebGPU: their values must equal the plain devices'. The conformance suite
 * (test/conformance/) runs them; other suites opt in with `conformanceDevices({ fusion: true })`,
 * and BURN_TEST_FUSION=1 adds them to every suite (for development: six more devices on every
 * suite would cost CI minutes). Engines and WebGPU join as their plain entries do.
 */
export function fusedDevices(): ConformanceDevice[] {
  const strict = process.env['BURN_TEST_STRICT'] === '1';
  const devices: ConformanceDevice[] = [
    { name: 'fusion<cpu(js)>', device: () => jsReuseDevice().fusion() },
    { name: 'autodiff<fusion<cpu(js)>>', device: () => jsReuseDevice().fusion().autodiff() },
  ];
  if (nativeAddon() || strict) {
    const native = (): Device => {
      const device = nativeTestDevice();
      if (!device) throw new Error(`the native CPU engine is unavailable: ${nativeUnavailableReason()}`);
      return device.fusion();
    };
    devices.push(
      { name: 'fusion<cpu(native)>', device: native },
      { name: 'autodiff<fusion<cpu(native)>>', device: () => native().autodiff() },
    );
  }
  if (wasmRuntime() || strict) {
    const wasm = (): Device => {
      const device = wasmTestDevice();
      if (!device) throw new Error(`the wasm CPU engine is unavailable: ${wasmUnavailableReason()}`);
      return device.fusion();
    };
    devices.push({ name: 'fusion<cpu(wasm)>', device: wasm });
  }
  const gpu = webgpu.device;
  if (gpu)
    devices.push(
      { name: 'fusion<webgpu>', device: () => gpu.fusion(), dtypes: WEBGPU_DTYPES, readsSync: false },
      {
        name: 'autodiff<fusion<webgpu>>',
        device: () => gpu.fusion().autodiff(),
        dtypes: WEBGPU_DTYPES,
        readsSync: false,
      },
    );
  return devices;
}

/** The best CPU test device: `native` when its addon loads, else `wasm`, else `js` (with its name). */
export function bestCpuTestDevice(): { name: string; device: Device } {
  const native = nativeTestDevice();
  if (native) return { name: 'cpu(native)', device: native };
  const wasm = wasmTestDevice();
  if (wasm) return { name: 'cpu(wasm)', device: wasm };
  return { name: 'cpu(js)', device: jsReuseDevice() };
}

/**
 * `it` for the tests of one conformance device. On a device without some dtypes (WebGPU: no f64,
 * no i64), a test that stops at the BurnError refusing one of them passes: that refusal is the
 * specified behaviour, and the cases in the other dtypes run in full as tests of their own.
 */
export function itOn(entry: ConformanceDevice): (name: string, fn: () => unknown) => void {
  const dtypes = entry.dtypes;
  if (!dtypes)
    return (name, fn) =>
      it(name, async () => {
        await fn();
      });
  return (name, fn) =>
    it(name, async () => {
      try {
        await fn();
      } catch (e) {
        const m = e instanceof BurnError ? /dtype (\w+) is not supported by the/.exec(e.message) : null;
        if (m && !dtypes.has(m[1] as DType)) return;
        throw e;
      }
    });
}
