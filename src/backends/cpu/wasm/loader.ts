/**
 * Finds and compiles the engine's WebAssembly module. The build (scripts/build-wasm.mjs) compiles
 * the AssemblyScript sources of wasm/ into two variants next to this file, in src/ and in dist/:
 * `kernels-mt.wasm` imports a *shared* memory (for worker threads; needs SharedArrayBuffer) and
 * `kernels-st.wasm` a plain one (single-threaded: browsers that are not cross-origin isolated).
 *
 * Node compiles synchronously (`new WebAssembly.Module(bytes)`), so `Device.cpu({ engine: 'wasm' })`
 * stays synchronous. Browsers must compile asynchronously: `await initWasmEngine()` (or
 * `await Device.cpuAsync()`) fetches and compiles the module first.
 */

import { webAssembly, type WasmModule } from './wasm-api.js';

/** Which module variant: `mt` (shared memory, threads) or `st` (single thread). */
export type WasmVariant = 'mt' | 'st';

/** A compiled module, or why there is none. */
export type Compiled = { readonly module: WasmModule; readonly variant: WasmVariant } | { readonly reason: string };

const NO_WASM = 'this JavaScript environment has no WebAssembly';

/**
 * The module file of a variant. Each `new URL('./….wasm', import.meta.url)` is spelled out with a
 * literal path so that bundlers (Vite, webpack 5, Parcel) find it and emit the file with the bundle.
 */
function moduleUrl(variant: WasmVariant): URL {
  return variant === 'mt'
    ? new URL('./kernels-mt.wasm', import.meta.url)
    : new URL('./kernels-st.wasm', import.meta.url);
}

type GetBuiltin = (id: string) => unknown;

/** Node's `process.getBuiltinModule` (Node >= 20.16), or undefined outside Node. */
export function nodeBuiltin(): GetBuiltin | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: GetBuiltin } }).process?.getBuiltinModule;
  return typeof get === 'function' ? get : undefined;
}

/** True in Node (where worker_threads and SharedArrayBuffer are always available). */
export function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}

/** The variant this environment can run: shared memory needs SharedArrayBuffer (cross-origin isolation in browsers). */
export function preferredVariant(threads: number): WasmVariant {
  if (threads <= 1 || typeof SharedArrayBuffer === 'undefined') return 'st';
  if (isNode()) return 'mt';
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true ? 'mt' : 'st';
}

function describe(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** Reads and compiles the module synchronously (Node only). */
export function compileSync(variant: WasmVariant): Compiled {
  const wasm = webAssembly();
  if (!wasm) return { reason: NO_WASM };
  const get = nodeBuiltin();
  if (!get) {
    return {
      reason: isNode()
        ? 'Node >= 20.16 is needed to load the module synchronously (process.getBuiltinModule); call `await initWasmEngine()` first'
        : 'browsers compile WebAssembly asynchronously: `await initWasmEngine()` (or use `await Device.cpuAsync()`) first',
    };
  }
  const fs = get('node:fs') as { readFileSync(path: URL): Uint8Array; existsSync(path: URL): boolean };
  const url = moduleUrl(variant);
  if (!fs.existsSync(url))
    return { reason: `the module is not built (${url.pathname} is missing; run \`npm run build\`)` };
  try {
    return { module: new wasm.Module(fs.readFileSync(url)), variant };
  } catch (e) {
    return {
      reason: `the module does not compile here (WebAssembly SIMD${variant === 'mt' ? ' and threads' : ''} needed): ${describe(e)}`,
    };
  }
}

/** Fetches and compiles the module asynchronously (browsers; also works in Node). */
export async function compileAsync(variant: WasmVariant): Promise<Compiled> {
  const wasm = webAssembly();
  if (!wasm) return { reason: NO_WASM };
  if (nodeBuiltin()) return compileSync(variant);
  const url = moduleUrl(variant);
  try {
    const response = await fetch(url);
    if (!response.ok) return { reason: `fetching ${url.href} failed: HTTP ${response.status}` };
    return { module: await wasm.compile(await response.arrayBuffer()), variant };
  } catch (e) {
    return { reason: `loading ${url.href} failed: ${describe(e)}` };
  }
}
