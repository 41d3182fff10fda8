// The wasm engine in a browser: headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) loads a page bundled with esbuild from wasm-browser/page.ts, served from
// 127.0.0.1 with the engine's modules next to it. Served with COOP/COEP headers the page is
// cross-origin isolated: the engine must load the threaded module and run jobs on Web Workers over
// the shared memory; without them it must fall back to the single-threaded module. Either way the
// page compares threaded and streamed kernels with the js engine and a random draw bit for bit.
// Skips (and fails under BURN_TEST_STRICT=1) when Chromium, playwright-core or esbuild is missing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { browserMissing, runPage } from '../helpers/browser.js';
import type { WasmPageResult } from './wasm-browser/page.js';

const modules = new URL('../../src/backends/cpu/wasm/', import.meta.url);
const missing =
  browserMissing ??
  (existsSync(new URL('kernels-mt.wasm', modules)) ? undefined : 'the wasm modules are not built (npm run build)');

/** Loads the page in a fresh headless Chromium, with the engine's modules next to it; `isolated`: with the COOP/COEP headers. */
async function visit(isolated: boolean): Promise<WasmPageResult> {
  const wasm = (name: string) => ['application/wasm', readFileSync(new URL(name, modules))] as const;
  return runPage<WasmPageResult>(fileURLToPath(new URL('./wasm-browser/page.ts', import.meta.url)), {
    headers: isolated
      ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
      : {},
    files: { '/kernels-mt.wasm': wasm('kernels-mt.wasm'), '/kernels-st.wasm': wasm('kernels-st.wasm') },
  });
}

/** The kernels agree with the js engine (matmul and softmax within f32 rounding of their sums; elementwise ops exactly or within exp's ulp). */
function checkValues(r: WasmPageResult): void {
  assert.equal(r.device, 'cpu(wasm)');
  const tolerance: Record<string, number> = { matmul: 1e-5, add: 0, exp: 1e-6, softmax: 1e-6 };
  for (const [op, tol] of Object.entries(tolerance))
    assert.ok(r.errors[op]! <= tol, `${op}: error ${r.errors[op]} > ${tol}`);
  assert.ok(r.sameRandom, "a uniform draw equals the js engine's");
}

describe('wasm engine in headless Chromium', { skip: missing ?? false }, () => {
  it('a cross-origin-isolated page runs the threaded module on Web Workers over a shared memory', {
    timeout: 180_000,
  }, async () => {
    const r = await visit(true);
    assert.equal(r.isolated, true);
    assert.equal(r.variant, 'mt');
    assert.ok(r.threads >= 1, `threads: ${r.threads}`);
    if (r.threads > 1) assert.ok(r.workerJobs > 0, `the Web Workers ran no job (threads ${r.threads})`);
    checkValues(r);
  });

  it('a page without isolation falls back to the single-threaded module', { timeout: 180_000 }, async () => {
    const r = await visit(false);
    assert.equal(r.isolated, false);
    assert.equal(r.variant, 'st');
    assert.equal(r.threads, 1);
    assert.equal(r.workerJobs, 0);
    checkValues(r);
  });
});
