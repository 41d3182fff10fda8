// Pages in headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by
// playwright-core (no downloaded browser), a page bundled with esbuild and served from 127.0.0.1.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Chromium the tests drive (`BURN_CHROMIUM` overrides). */
export const CHROMIUM = process.env['BURN_CHROMIUM'] ?? '/usr/bin/chromium';

/** Chromium flags: headless, no network chatter, a software WebGPU adapter (SwiftShader). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--use-angle=swiftshader',
  '--enable-features=Vulkan',
];

type Playwright = typeof import('playwright-core');
type Esbuild = typeof import('esbuild');

const playwright = await import('playwright-core').then(
  (m: Playwright) => m,
  () => undefined,
);
const esbuild = await import('esbuild').then(
  (m: Esbuild) => m,
  () => undefined,
);

/** Why the browser tests cannot run here, or undefined when they can. */
export const browserMissing: string | undefined = !existsSync(CHROMIUM)
  ? `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`
  : !playwright
    ? 'playwright-core is not installed (npm install)'
    : !esbuild
      ? 'esbuild is not installed (npm install)'
      : undefined;

/** How a page is served. */
export interface PageServing {
  /** Headers on every response (e.g. the COOP/COEP pair that makes a page cross-origin isolated). */
  readonly headers?: Record<string, string>;
  /** More files by path: [content type, body]. */
  readonly files?: Record<string, readonly [string, string | Buffer]>;
}

async function serve(script: string, serving: PageServing): Promise<{ server: Server; url: string }> {
  const files: Record<string, readonly [string, string | Buffer]> = {
    '/': [
      'text/html',
      '<!doctype html><html><head><script type="module" src="/page.js"></script></head><body>burn-ts</body></html>',
    ],
    '/page.js': ['text/javascript', script],
    ...serving.files,
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    res.writeHead(file ? 200 : 404, { ...serving.headers, ...(file ? { 'content-type': file[0] } : {}) });
    res.end(file?.[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}/` };
}

/**
 * `entry` bundled for a page by esbuild, as one ES module. Like a bundler reading burn-ts's
 * package.json `browser` field for dist/, an import of `./x.js` in src/ takes `./x.browser.ts` where
 * that file exists.
 */
export async function bundleForBrowser(entry: string): Promise<string> {
  const browserField = {
    name: 'browser-field',
    setup(build: {
      onResolve(
        options: { filter: RegExp },
        callback: (args: { path: string; resolveDir: string }) => { path: string } | undefined,
      ): void;
    }) {
      build.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
        const candidate = join(args.resolveDir, args.path.replace(/\.js$/, '.browser.ts'));
        return existsSync(candidate) ? { path: candidate } : undefined;
      });
    },
  };
  const built = await esbuild!.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error',
    plugins: [browserField],
  });
  return built.outputFiles[0]!.text;
}

/**
 * Bundles `entry` (a page that sets `globalThis.burnResult` to a promise of its result or of
 * `{ error }`), serves it, opens it in a fresh headless Chromium and returns the result; fails on
 * any page error. Call only when {@link browserMissing} is undefined.
 */
export async function runPage<T>(entry: string, serving: PageServing = {}): Promise<T> {
  const { server, url } = await serve(await bundleForBrowser(entry), serving);
  const profile = mkdtempSync(join(tmpdir(), 'burn-chromium-'));
  const context = await playwright!.chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => (globalThis as { burnResult?: unknown }).burnResult !== undefined, undefined, {
      timeout: 60_000,
    });
    const result = (await page.evaluate(() => (globalThis as { burnResult?: unknown }).burnResult)) as
      | T
      | { error: string };
    assert.deepEqual(errors, []);
    if (typeof result === 'object' && result !== null && 'error' in result)
      assert.fail(`the page failed: ${(result as { error: string }).error}`);
    return result as T;
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
