// The wasm engine in a browser: headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) loads a page bundled with esbuild from wasm-browser/page.ts, served from
// 127.0.0.1 with the engine's modules next to it. Served with COOP/COEP headers the page is
// cross-origin isolated: the engine must load the threaded module and run jobs on Web Workers over
// the shared memory; without them it must fall back to the single-threaded module. Either way the
// page compares threaded and streamed kernels with the js engine and a random draw bit for bit.
// Skips (and fails under BURN_TEST_STRICT=1) when Chromium, playwright-core or esbuild is missing.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { WasmPageResult } from './wasm-browser/page.js';

const CHROMIUM = process.env['BURN_CHROMIUM'] ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

type Playwright = typeof import('playwright-core');
type Esbuild = typeof import('esbuild');

const playwright = await import('playwright-core').then((m: Playwright) => m, () => undefined);
const esbuild = await import('esbuild').then((m: Esbuild) => m, () => undefined);
const modules = new URL('../../src/backends/cpu/wasm/', import.meta.url);
const missing = !existsSync(CHROMIUM)
  ? `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`
  : !playwright ? 'playwright-core is not installed (npm install)' : !esbuild ? 'esbuild is not installed (npm install)'
  : !existsSync(new URL('kernels-mt.wasm', modules)) ? 'the wasm modules are not built (npm run build)' : undefined;

/** Serves the page, its bundle and the two modules; with `isolated`, the headers that make the page cross-origin isolated. */
async function serve(script: string, isolated: boolean): Promise<{ server: Server; url: string }> {
  const files: Record<string, [string, string | Buffer]> = {
    '/': ['text/html', '<!doctype html><html><head><script type="module" src="/page.js"></script></head><body>burn-ts wasm</body></html>'],
    '/page.js': ['text/javascript', script],
    '/kernels-mt.wasm': ['application/wasm', readFileSync(new URL('kernels-mt.wasm', modules))],
    '/kernels-st.wasm': ['application/wasm', readFileSync(new URL('kernels-st.wasm', modules))],
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    const headers: Record<string, string> = isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {};
    if (!file) {
      res.writeHead(404, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': file[0] });
    res.end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}/` };
}

/** Loads the page in a fresh headless Chromium and returns what it reports. */
async function visit(isolated: boolean): Promise<WasmPageResult> {
  const entry = fileURLToPath(new URL('./wasm-browser/page.ts', import.meta.url));
  const built = await esbuild!.build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'error' });
  const { server, url } = await serve(built.outputFiles[0]!.text, isolated);
  const profile = mkdtempSync(join(tmpdir(), 'burn-chromium-'));
  const context = await playwright!.chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => (globalThis as { burnResult?: unknown }).burnResult !== undefined, undefined, { timeout: 60_000 });
    const result = (await page.evaluate(() => (globalThis as { burnResult?: unknown }).burnResult)) as WasmPageResult | { error: string };
    assert.deepEqual(errors, []);
    if ('error' in result) assert.fail(`the page failed: ${result.error}`);
    return result;
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The kernels agree with the js engine (matmul and softmax within f32 rounding of their sums; elementwise ops exactly or within exp's ulp). */
function checkValues(r: WasmPageResult): void {
  assert.equal(r.device, 'cpu(wasm)');
  const tolerance: Record<string, number> = { matmul: 1e-5, add: 0, exp: 1e-6, softmax: 1e-6 };
  for (const [op, tol] of Object.entries(tolerance)) assert.ok(r.errors[op]! <= tol, `${op}: error ${r.errors[op]} > ${tol}`);
  assert.ok(r.sameRandom, 'a uniform draw equals the js engine\'s');
}

describe('wasm engine in headless Chromium', { skip: missing ?? false }, () => {
  it('a cross-origin-isolated page runs the threaded module on Web Workers over a shared memory', { timeout: 180_000 }, async () => {
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
