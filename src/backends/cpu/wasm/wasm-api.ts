/**
 * The slice of the WebAssembly JavaScript API the engine uses, typed locally: the package compiles
 * without the DOM library, and @types/node does not declare `WebAssembly`.
 */

/** A compiled module (`WebAssembly.Module`). */
export interface WasmModule {
  readonly __brand?: 'WebAssembly.Module';
}

/** A linear memory (`WebAssembly.Memory`); `buffer` is a SharedArrayBuffer when shared. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** An exported global (`WebAssembly.Global`). */
export interface WasmGlobal {
  readonly value: unknown;
}

/** An instance (`WebAssembly.Instance`). */
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

/** The `WebAssembly` namespace object. */
export interface WasmApi {
  Module: new (bytes: Uint8Array | ArrayBuffer) => WasmModule;
  Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  Global: new (descriptor: { value: string; mutable?: boolean }, value?: unknown) => WasmGlobal;
  compile(bytes: ArrayBuffer): Promise<WasmModule>;
}

/** The environment's `WebAssembly`, or undefined where there is none (e.g. `node --jitless`). */
export function webAssembly(): WasmApi | undefined {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  return typeof api === 'object' && typeof api.Module === 'function' ? api : undefined;
}
