/**
 * The `wasm` CPU engine: AssemblyScript kernels (wasm/ at the package root) compiled to
 * WebAssembly SIMD128, multi-threaded over a shared memory with worker threads where the platform
 * allows (Node; cross-origin-isolated browser pages), single-threaded otherwise. Threads:
 * `BURN_NUM_THREADS`, default the number of cores.
 *
 * Node loads the module synchronously on first use. Browsers must `await initWasmEngine()` (or
 * `await Device.cpuAsync()`) before `Device.cpu({ engine: 'wasm' })`.
 */
import { BurnError } from '../../../core/errors.js';
import { WasmEngine, type WasmEngineOptions } from './engine.js';
import { compileAsync, compileSync, nodeBuiltin, preferredVariant, type Compiled, type WasmVariant } from './loader.js';
import { wasmOpCodes } from './ops.js';
import { WasmRuntime } from './runtime.js';

export { WasmEngine, type WasmEngineOptions } from './engine.js';
export { WasmRuntime } from './runtime.js';

/** The engine's runtime, and the single-threaded one over a plain memory for streamed ops (see `WasmEngine`). */
type Loaded = { runtime: WasmRuntime; streaming?: WasmRuntime } | { reason: string };

let loaded: Loaded | undefined;

/** Threads of the engine: `BURN_NUM_THREADS`, or the number of cores. */
export function wasmThreads(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    'BURN_NUM_THREADS'
  ];
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 1)
      throw new BurnError('Device.cpu', `BURN_NUM_THREADS=${env}; expected a positive integer`);
    return n;
  }
  const os = nodeBuiltin()?.('node:os') as { availableParallelism?: () => number; cpus(): unknown[] } | undefined;
  if (os) return os.availableParallelism?.() ?? os.cpus().length;
  return Math.max(
    1,
    (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1,
  );
}

function instantiate(compiled: Compiled, threads: number): Loaded {
  if ('reason' in compiled) return compiled;
  try {
    const runtime = new WasmRuntime(compiled, threads);
    try {
      // A module built from other sources than this code (an op name it does not know) is unusable.
      wasmOpCodes(runtime);
    } catch (e) {
      runtime.close();
      throw e;
    }
    return { runtime };
  } catch (e) {
    return {
      reason: `instantiating the module failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`,
    };
  }
}

/**
 * The threaded runtime (with a plain-memory one for streamed ops beside it), or the
 * single-threaded variant alone when the threaded one cannot load.
 */
function choose(threads: number, compile: (variant: WasmVariant) => Compiled): Loaded {
  const variant = preferredVariant(threads);
  const result = instantiate(compile(variant), threads);
  if (variant !== 'mt') return result;
  const single = instantiate(compile('st'), 1);
  if ('reason' in result) return 'runtime' in single ? single : result;
  return 'runtime' in single ? { runtime: result.runtime, streaming: single.runtime } : result;
}

/** Loads the module synchronously (Node), once. */
function load(): Loaded {
  if (loaded) return loaded;
  const result = choose(wasmThreads(), compileSync);
  // Browsers load asynchronously: a failed synchronous attempt there is not final.
  if ('runtime' in result || nodeBuiltin()) loaded = result;
  return result;
}

/**
 * Loads and compiles the engine's module asynchronously: required once in browsers (which cannot
 * compile WebAssembly synchronously on the main thread) before `Device.cpu({ engine: 'wasm' })`;
 * harmless in Node. Resolves whether or not the engine is available (see {@link wasmUnavailableReason}).
 */
export async function initWasmEngine(): Promise<void> {
  if (loaded && 'runtime' in loaded) return;
  const threads = wasmThreads();
  const modules = new Map<WasmVariant, Compiled>();
  for (const v of preferredVariant(threads) === 'mt' ? (['mt', 'st'] as const) : (['st'] as const))
    modules.set(v, await compileAsync(v));
  loaded = choose(threads, (v) => modules.get(v) ?? { reason: `the ${v} module was not loaded` });
}

/** The engine's runtime (memory, threads), or undefined when the module cannot load. */
export function wasmRuntime(): WasmRuntime | undefined {
  const l = load();
  return 'runtime' in l ? l.runtime : undefined;
}

/** Why the engine is unavailable, or undefined when it loads. */
export function wasmUnavailableReason(): string | undefined {
  const l = load();
  return 'reason' in l ? l.reason : undefined;
}

/** The engine over the loaded module; throws an Error naming the reason when the module cannot load. */
export function wasmEngine(options: WasmEngineOptions = {}): WasmEngine {
  const l = load();
  if ('reason' in l) throw new Error(l.reason);
  return new WasmEngine(l.runtime, options, l.streaming);
}
