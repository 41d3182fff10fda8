import { acquireGpu, type WebGpuInfo, type WebGpuOptions } from './context.js';
import { WebGpuBackend } from './backend.js';

export { WebGpuBackend } from './backend.js';
export type { WebGpuInfo, WebGpuOptions } from './context.js';

/** Acquires an adapter and device (Dawn in Node, `navigator.gpu` in a browser) and builds the backend. */
export async function createWebGpuBackend(options: WebGpuOptions = {}): Promise<WebGpuBackend> {
  return new WebGpuBackend(await acquireGpu(options));
}

const MIB = 1024 * 1024;

function bytes(n: number | undefined): string {
  if (n === undefined) return '?';
  return n >= 1024 * MIB
    ? `${+(n / (1024 * MIB)).toFixed(1)} GiB`
    : n >= MIB
      ? `${+(n / MIB).toFixed(1)} MiB`
      : `${+(n / 1024).toFixed(1)} KiB`;
}

/** The device name `Device.webgpu()` shows: adapter, fallback flag, half precision and the main limits. */
export function webgpuLabel(info: WebGpuInfo): string {
  const adapter = [info.description || info.vendor || 'adapter', info.architecture].filter(Boolean).join(' ');
  const l = info.limits;
  const parts = [
    adapter + (info.isFallbackAdapter ? ' (fallback)' : ''),
    `shader-f16: ${info.shaderF16 ? 'yes' : 'no'}`,
    `maxBufferSize: ${bytes(l['maxBufferSize'])}`,
    `maxStorageBufferBindingSize: ${bytes(l['maxStorageBufferBindingSize'])}`,
    `maxComputeWorkgroupStorageSize: ${bytes(l['maxComputeWorkgroupStorageSize'])}`,
    `features: ${info.features.length}`,
  ];
  return `webgpu(${parts.join('; ')})`;
}
