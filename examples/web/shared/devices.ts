/// <reference lib="dom" />
// The backends a page can switch between, opened the way a page must: WebGPU through
// navigator.gpu (asynchronous), the wasm engine after its module is fetched and compiled
// (`Device.cpuAsync`), and the plain js engine (always there).
import { Device } from 'burn-ts';

/** A backend of the switch. */
export type BackendName = 'webgpu' | 'wasm' | 'js';

/** In the order a page prefers them. */
export const BACKENDS: readonly BackendName[] = ['webgpu', 'wasm', 'js'];

/** Opens the device of `name`; rejects with the reason when the page cannot have it. */
export async function openDevice(name: BackendName): Promise<Device> {
  switch (name) {
    case 'webgpu':
      if ((globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu === undefined)
        throw new Error('this browser has no WebGPU (navigator.gpu is undefined)');
      return Device.webgpu();
    case 'wasm':
      return Device.cpuAsync({ engine: 'wasm' });
    case 'js':
      return Device.cpu({ engine: 'js' });
  }
}

/** Each backend's device, or why it is unavailable, tried in order. */
export async function probeBackends(): Promise<Map<BackendName, Device | Error>> {
  const found = new Map<BackendName, Device | Error>();
  for (const name of BACKENDS) {
    try {
      found.set(name, await openDevice(name));
    } catch (e) {
      found.set(name, e instanceof Error ? e : new Error(String(e)));
    }
  }
  return found;
}

/** `?backend=` of the page's URL when it names a backend. */
export function requestedBackend(): BackendName | undefined {
  const value = new URLSearchParams(location.search).get('backend');
  return BACKENDS.find((b) => b === value);
}

/** Fills a `<select>` with the backends, unavailable ones disabled with their reason as a tooltip; selects `chosen`. */
export function fillBackendSelect(
  select: HTMLSelectElement,
  found: Map<BackendName, Device | Error>,
  chosen: BackendName,
  only: readonly BackendName[] = BACKENDS,
): void {
  select.replaceChildren(
    ...only.map((name) => {
      const result = found.get(name);
      const option = new Option(result instanceof Error ? `${name} (unavailable)` : name, name, false, name === chosen);
      if (result instanceof Error) {
        option.disabled = true;
        option.title = result.message;
      }
      return option;
    }),
  );
}

/** The first available backend of `only`, after `?backend=`. */
export function firstAvailable(
  found: Map<BackendName, Device | Error>,
  only: readonly BackendName[] = BACKENDS,
): BackendName {
  const asked = requestedBackend();
  if (asked && only.includes(asked) && !(found.get(asked) instanceof Error)) return asked;
  return only.find((name) => !(found.get(name) instanceof Error)) ?? 'js';
}

/** The backend burn-ts picks for this page by itself (`Device.defaultAsync()`: WebGPU when an adapter exists, else wasm, else js). */
export async function defaultBackend(): Promise<BackendName> {
  const label = String(await Device.defaultAsync());
  return label.startsWith('webgpu') ? 'webgpu' : label === 'cpu(wasm)' ? 'wasm' : 'js';
}
