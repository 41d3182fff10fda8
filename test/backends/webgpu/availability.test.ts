// Whether WebGPU is available to the test suite (Dawn through the `webgpu` package, with a real GPU
// or SwiftShader's Vulkan driver: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json), and
// the errors Device.webgpu() gives when it is not. Without an adapter the WebGPU tests skip with the
// reason; under BURN_TEST_STRICT=1 (CI) that skip is a failure.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { BurnError } from '../../../src/index.js';
import { acquireGpu } from '../../../src/backends/webgpu/context.js';
import { webgpu } from '../../helpers/devices.js';

describe('WebGPU availability', () => {
  it('an adapter is available (SwiftShader serves without a GPU)', {
    skip: webgpu.reason && `no WebGPU device: ${webgpu.reason}`,
  }, () => {
    assert.ok(webgpu.device);
    assert.match(
      String(webgpu.device),
      /^webgpu\(.+; shader-f16: (yes|no); maxBufferSize: .+; maxStorageBufferBindingSize: .+\)$/,
    );
  });

  it('without the `webgpu` package: a BurnError that says to install it', async () => {
    await assert.rejects(
      () => acquireGpu({}, () => Promise.reject(new Error("Cannot find package 'webgpu'"))),
      (e: unknown) =>
        e instanceof BurnError &&
        e.op === 'Device.webgpu' &&
        /npm install webgpu/.test(e.message) &&
        /Cannot find package 'webgpu'/.test(e.message),
    );
    await assert.rejects(
      () => acquireGpu({}, () => Promise.resolve({})),
      (e: unknown) => e instanceof BurnError && /does not export create\(\)/.test(e.message),
    );
  });

  it('without an adapter: a BurnError that says how to get one (SwiftShader, VK_ICD_FILENAMES)', {
    skip: process.platform !== 'linux' && 'the no-driver case is staged with Vulkan on Linux',
  }, () => {
    // A Vulkan loader pointed at a driver file that does not exist finds no adapter.
    const script = `import { Device } from './src/index.js';
try { await Device.webgpu(); console.log('FOUND'); } catch (e) { console.log(e.name + ' ' + e.message); }`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../../../', import.meta.url).pathname,
      env: { ...process.env, VK_ICD_FILENAMES: '/nonexistent/icd.json', NODE_OPTIONS: '' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    assert.match(
      out,
      /^BurnError Device\.webgpu: no WebGPU adapter is available .*VK_ICD_FILENAMES=\/usr\/lib\/chromium\/vk_swiftshader_icd\.json/m,
    );
  });
});
