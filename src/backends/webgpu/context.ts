import { BurnError } from '../../core/errors.js';
import type { GPU, GPUAdapter, GPUDevice } from './gpu-types.js';

/** Options of `Device.webgpu()`: adapter selection as in `navigator.gpu.requestAdapter`. */
export interface WebGpuOptions {
  /** Which adapter to prefer where there are several. */
  readonly powerPreference?: 'low-power' | 'high-performance';
  /** Ask for the fallback (software) adapter. */
  readonly forceFallbackAdapter?: boolean;
  /** Node only: options for the `webgpu` package's `create()` (Dawn toggles, `backend=vulkan`, `adapter=NAME`). */
  readonly dawnOptions?: readonly string[];
  /** Use the `shader-f16` feature when the adapter has it (default true). */
  readonly shaderF16?: boolean;
  /**
   * Node: when tensors dropped without `dispose()` hold more than this many bytes (and twice the
   * low point since the last collection), ask the engine for a garbage collection so the finalizer
   * returns their buffers to the pool (default 64 MiB).
   */
  readonly memoryPressureBytes?: number;
}

/** What `Device.webgpu()` found: the adapter, its features and the device's limits. */
export interface WebGpuInfo {
  /** `node (webgpu package, Dawn)` or `browser (navigator.gpu)`. */
  readonly runtime: string;
  readonly vendor: string;
  readonly architecture: string;
  readonly description: string;
  /** True for a software/fallback adapter (e.g. SwiftShader). */
  readonly isFallbackAdapter: boolean;
  /** Features of the adapter. */
  readonly features: readonly string[];
  /** True when half-precision shaders (`shader-f16`) are enabled on the device. */
  readonly shaderF16: boolean;
  /** Limits of the device as created (the adapter's maxima for buffer sizes and bindings). */
  readonly limits: Readonly<Record<string, number>>;
}

/** A created device and what keeps its implementation alive. */
export interface GpuContext {
  readonly device: GPUDevice;
  readonly info: WebGpuInfo;
  /** The `GPU` object the adapter came from (Dawn's instance in Node must stay referenced). */
  readonly gpu: GPU;
  /** Requests a garbage collection (Node), so dropped tensors reach the finalizer under memory pressure. */
  readonly collect?: (() => void) | undefined;
  /** See {@link WebGpuOptions.memoryPressureBytes}. */
  readonly pressureBytes: number;
}

/**
 * Node's `gc()` without the `--expose-gc` flag (the flag set at run time, the function taken from a
 * fresh context); undefined where that is not possible (browsers).
 */
async function nodeCollector(load: ModuleLoader): Promise<(() => void) | undefined> {
  try {
    const v8 = (await load('node:v8')) as { setFlagsFromString(flags: string): void };
    const vm = (await load('node:vm')) as { runInNewContext(code: string): unknown };
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
  } catch {
    return undefined;
  }
}

const HOW_TO_GET_AN_ADAPTER =
  'install a GPU driver with Vulkan, Metal or D3D12 support; without a GPU, SwiftShader (a CPU Vulkan driver) works: ' +
  'on Debian `apt-get install chromium` ships it, then set VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json';

/** Loads a module by specifier (dynamic `import`, replaceable in tests). */
export type ModuleLoader = (specifier: string) => Promise<unknown>;

const importModule: ModuleLoader = (specifier) => import(specifier);

/** Finds `navigator.gpu` in a browser, or the `webgpu` package (Dawn) in Node. */
async function findGpu(options: WebGpuOptions, load: ModuleLoader): Promise<{ gpu: GPU; runtime: string }> {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu) return { gpu: nav.gpu, runtime: 'browser (navigator.gpu)' };
  const isNode =
    typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
  if (!isNode) {
    throw new BurnError(
      'Device.webgpu',
      'this JavaScript environment has no navigator.gpu; use a browser with WebGPU enabled (Chrome, Edge, Safari 26+, Firefox 141+) or Node with the `webgpu` package',
    );
  }
  // A variable specifier keeps bundlers and the type checker from requiring the optional package.
  let mod: { create?: (options: string[]) => GPU };
  try {
    mod = (await load('webgpu')) as typeof mod;
  } catch (e) {
    throw new BurnError(
      'Device.webgpu',
      `WebGPU in Node needs the optional \`webgpu\` package (Dawn): run \`npm install webgpu\` (loading it failed: ${e instanceof Error ? e.message : String(e)})`,
    );
  }
  if (typeof mod.create !== 'function')
    throw new BurnError('Device.webgpu', 'the `webgpu` package does not export create(); expected webgpu >= 0.2');
  return { gpu: mod.create([...(options.dawnOptions ?? [])]), runtime: 'node (webgpu package, Dawn)' };
}

/** Limits worth raising to the adapter's maxima. */
const RAISED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupsPerDimension',
];

/** Requests an adapter and a device; throws a BurnError that says what is missing. */
export async function acquireGpu(options: WebGpuOptions = {}, load: ModuleLoader = importModule): Promise<GpuContext> {
  const { gpu, runtime } = await findGpu(options, load);
  const request: { powerPreference?: 'low-power' | 'high-performance'; forceFallbackAdapter?: boolean } = {};
  if (options.powerPreference) request.powerPreference = options.powerPreference;
  if (options.forceFallbackAdapter) request.forceFallbackAdapter = true;
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter(request);
  } catch (e) {
    throw new BurnError(
      'Device.webgpu',
      `requesting an adapter failed (${e instanceof Error ? e.message : String(e)}): ${HOW_TO_GET_AN_ADAPTER}`,
    );
  }
  if (!adapter) {
    const asked = Object.keys(request).length ? ` for ${JSON.stringify(request)}` : '';
    throw new BurnError(
      'Device.webgpu',
      `no WebGPU adapter is available${asked} (${runtime}): ${HOW_TO_GET_AN_ADAPTER}`,
    );
  }
  const features = [...adapter.features].sort();
  const wantF16 = (options.shaderF16 ?? true) && adapter.features.has('shader-f16');
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) {
    const v = adapter.limits[name];
    if (typeof v === 'number') requiredLimits[name] = v;
  }
  const device = await adapter.requestDevice({
    requiredFeatures: wantF16 ? ['shader-f16'] : [],
    requiredLimits,
    label: 'burn-ts',
  });
  const limits: Record<string, number> = {};
  for (const name of [...RAISED_LIMITS, 'minUniformBufferOffsetAlignment', 'maxUniformBufferBindingSize']) {
    const v = device.limits[name];
    if (typeof v === 'number') limits[name] = v;
  }
  const ai = adapter.info ?? {};
  const info: WebGpuInfo = {
    runtime,
    vendor: ai.vendor ?? '',
    architecture: ai.architecture ?? '',
    description: ai.description || ai.device || '',
    isFallbackAdapter: Boolean(adapter.isFallbackAdapter ?? (ai as { isFallbackAdapter?: boolean }).isFallbackAdapter),
    features,
    shaderF16: wantF16,
    limits,
  };
  const collect = runtime.startsWith('node') ? await nodeCollector(load) : undefined;
  return { device, info, gpu, collect, pressureBytes: options.memoryPressureBytes ?? 64 * 1024 * 1024 };
}
