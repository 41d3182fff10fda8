// burn-ts as a browser library, as a user bundles it: the package is compiled as published (tsc
// into a temporary node_modules/burn-ts with this package.json and the wasm modules), a plain page
// importing `burn-ts` by name (bundle-page/main.js) is built with Vite's production build and
// served from 127.0.0.1 to Debian's headless Chromium (playwright-core). The page runs a tensor
// op, one training step (autodiff + SGD), a save/load round trip through IndexedDB and two epochs
// of SupervisedTraining (in-memory metrics, IndexedDB checkpoints) on the wasm
// engine threaded (cross-origin isolated: COOP/COEP headers) and single-threaded (not isolated),
// and on WebGPU (SwiftShader), each through Device.defaultAsync() (and on the js engine when the
// wasm modules cannot be fetched). The built JavaScript must hold
// no `node:` import (esbuild's browser build neither); the inference core (budget-entry.js) must
// stay within 150 KB gzipped; Vite's development server serves the same page from the package.
// Skips (and fails under BURN_TEST_STRICT=1) when Chromium, playwright-core, vite or the wasm
// modules are missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const wasmDir = join(repo, 'src/backends/cpu/wasm');
const vite = await import('vite').then(
  (m) => m,
  () => undefined,
);
const playwright = await import('playwright-core').then(
  (m) => m,
  () => undefined,
);
const esbuild = await import('esbuild').then(
  (m) => m,
  () => undefined,
);
const missing = !existsSync(CHROMIUM)
  ? `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`
  : !playwright
    ? 'playwright-core is not installed (npm install)'
    : !vite
      ? 'vite is not installed (npm install)'
      : !existsSync(join(wasmDir, 'kernels-mt.wasm'))
        ? 'the wasm modules are not built (npm run build)'
        : undefined;

/** Gzipped JavaScript the inference core may take (the wasm module comes on top). */
const BUDGET_GZIP_BYTES = 150 * 1024;
/** The Chromium flags that give pages a WebGPU adapter (SwiftShader); without them none is offered. */
const WEBGPU_FLAGS = new Set([
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--use-angle=swiftshader',
  '--enable-features=Vulkan',
]);
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

/**
 * A temporary project whose node_modules holds burn-ts as published (this package.json, dist/
 * compiled from src/ now, the wasm modules) beside links to this checkout's dependencies.
 */
function preparePackage(root: string): void {
  const pkg = join(root, 'node_modules', 'burn-ts');
  mkdirSync(pkg, { recursive: true });
  // The project's own package.json: Vite's dev server serves files under the project's root.
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name !== 'burn-ts' && !name.startsWith('.'))
      symlinkSync(join(repo, 'node_modules', name), join(root, 'node_modules', name));
  }
  copyFileSync(join(repo, 'package.json'), join(pkg, 'package.json'));
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(
    process.execPath,
    [
      tsc,
      '-p',
      'tsconfig.build.json',
      '--outDir',
      join(pkg, 'dist'),
      '--declaration',
      'false',
      '--sourceMap',
      'false',
      '--inlineSources',
      'false',
    ],
    { cwd: repo, stdio: 'pipe' },
  );
  for (const f of ['kernels-mt.wasm', 'kernels-st.wasm'])
    copyFileSync(join(wasmDir, f), join(pkg, 'dist/backends/cpu/wasm', f));
}

interface Built {
  readonly dir: string;
  /** Output files: name → bytes. */
  readonly files: Map<string, Buffer>;
  /** The entry chunk and every chunk it imports statically: what a page loads first. */
  readonly initialJs: string[];
  readonly warnings: string[];
  /** Modules the chunks import that are not chunks of the bundle (e.g. externalized built-ins). */
  readonly externalImports: string[];
}

/** Builds `entry` (copied into a page of its own under `root`) with Vite's production build. */
async function buildPage(root: string, name: string, entry: string): Promise<Built> {
  const app = join(root, name);
  mkdirSync(app, { recursive: true });
  copyFileSync(entry, join(app, 'main.js'));
  writeFileSync(
    join(app, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><script type="module" src="./main.js"></script></head><body>burn-ts</body></html>',
  );
  const dir = join(app, 'dist');
  const warnings: string[] = [];
  const result = await vite!.build({
    root: app,
    configFile: false,
    logLevel: 'silent',
    mode: 'production',
    build: {
      outDir: dir,
      emptyOutDir: true,
      target: 'es2022',
      reportCompressedSize: false,
      rollupOptions: { onwarn: (w) => void warnings.push(w.message) },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as {
    output: { type: string; fileName: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] }[];
  }[];
  const chunks = new Map(
    outputs
      .flatMap((o) => o.output)
      .filter((c) => c.type === 'chunk')
      .map((c) => [c.fileName, c]),
  );
  const externalImports = [...chunks.values()]
    .flatMap((c) => [...(c.imports ?? []), ...(c.dynamicImports ?? [])])
    .filter((i) => !chunks.has(i));
  const initialJs = new Set<string>();
  const visit = (file: string) => {
    if (initialJs.has(file)) return;
    initialJs.add(file);
    for (const i of chunks.get(file)?.imports ?? []) visit(i);
  };
  for (const c of chunks.values()) if (c.isEntry) visit(c.fileName);
  const files = new Map<string, Buffer>();
  const walk = (d: string, prefix: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else files.set(`${prefix}${e.name}`, readFileSync(join(d, e.name)));
    }
  };
  walk(dir, '');
  return { dir, files, initialJs: [...initialJs], warnings, externalImports };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
};

/** Serves built files from 127.0.0.1 with `headers` on every response. */
async function serve(
  files: Map<string, Buffer>,
  headers: Record<string, string>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    const body = files.get(path);
    res.writeHead(body ? 200 : 404, {
      ...headers,
      ...(body ? { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' } : {}),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/` };
}

/** What bundle-page/main.js reports. */
interface PageResult {
  readonly device: string;
  readonly isolated: boolean;
  readonly cores: number;
  readonly product: number[];
  readonly x: number[][];
  readonly target: number[][];
  readonly weight: number[];
  readonly bias: number[];
  readonly lossValue: number;
  readonly lr: number;
  readonly weightAfter: number[];
  readonly biasAfter: number[];
  readonly keys: string[];
  readonly loadedWeight: number[];
  readonly loadedBias: number[];
  readonly missing: string;
  readonly training: {
    readonly epochLines: string[];
    readonly validLoss: number[];
    readonly trainAccuracy: number[];
    readonly checkpoints: number[];
    readonly restoredEqual: boolean;
    readonly loadingMode: string;
  };
}

/** Opens the built page in a fresh headless Chromium; returns its result and console lines. */
async function visit(
  files: Map<string, Buffer>,
  options: { isolated: boolean; webgpu: boolean },
): Promise<{ result: PageResult; console: string[] }> {
  const { server, url } = await serve(files, options.isolated ? ISOLATION : {});
  try {
    return await open(url, options.webgpu);
  } finally {
    server.close();
  }
}

/** Opens `url` (with `?device=auto`) in a fresh headless Chromium; returns the page's result and console lines. */
async function open(url: string, webgpu: boolean): Promise<{ result: PageResult; console: string[] }> {
  const profile = mkdtempSync(join(tmpdir(), 'burn-chromium-'));
  const args = CHROMIUM_ARGS.filter((a) => webgpu || !WEBGPU_FLAGS.has(a));
  const swiftshader = '/usr/lib/chromium/vk_swiftshader_icd.json';
  const env = {
    ...process.env,
    XDG_RUNTIME_DIR: process.env['XDG_RUNTIME_DIR'] ?? '/tmp',
    ...(existsSync(swiftshader) && !process.env['VK_ICD_FILENAMES'] ? { VK_ICD_FILENAMES: swiftshader } : {}),
  } as Record<string, string>;
  const context = await playwright!.chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    env,
  });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    const lines: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => lines.push(m.text()));
    await page.goto(`${url}?device=auto`);
    await page.waitForFunction(() => (globalThis as { burnResult?: unknown }).burnResult !== undefined, undefined, {
      timeout: 120_000,
    });
    const result = (await page.evaluate(() => (globalThis as { burnResult?: unknown }).burnResult)) as
      | PageResult
      | { error: string };
    assert.deepEqual(errors, []);
    if ('error' in result) assert.fail(`the page failed: ${result.error}\nconsole:\n${lines.join('\n')}`);
    return { result, console: lines };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Largest |a − b| / (1 + |b|). */
function worst(a: readonly number[], b: readonly number[]): number {
  assert.equal(a.length, b.length);
  return b.reduce((m, v, i) => Math.max(m, Math.abs(a[i]! - v) / (1 + Math.abs(v))), 0);
}

/** The page computed the op, the training step and the round trip right (expected values in plain JS). */
function checkPage(r: PageResult): void {
  // [[1,2,3],[4,5,6]] · [[1,0],[0,1],[2,-1]] + 0.5
  assert.deepEqual(r.product, [7.5, -0.5, 16.5, -0.5]);
  // Linear 3 → 2 (weight [3, 2] row-major), loss = mean((xW + b − t)²) over 4×2 values.
  const n = r.x.length * 2;
  const w = (i: number, j: number) => r.weight[i * 2 + j]!;
  const pred = r.x.map((row) => [0, 1].map((j) => row.reduce((s, v, i) => s + v * w(i, j), r.bias[j]!)));
  const diff = pred.map((p, k) => p.map((v, j) => v - r.target[k]![j]!));
  const loss = diff.flat().reduce((s, d) => s + d * d, 0) / n;
  assert.ok(Math.abs(r.lossValue - loss) <= 1e-5 * (1 + loss), `loss ${r.lossValue}, expected ${loss}`);
  const gradW = [0, 1, 2].flatMap((i) =>
    [0, 1].map((j) => diff.reduce((s, d, k) => s + (2 / n) * d[j]! * r.x[k]![i]!, 0)),
  );
  const gradB = [0, 1].map((j) => diff.reduce((s, d) => s + (2 / n) * d[j]!, 0));
  assert.ok(
    worst(
      r.weightAfter,
      r.weight.map((v, i) => v - r.lr * gradW[i]!),
    ) <= 1e-5,
    `weight after the SGD step: ${r.weightAfter}`,
  );
  assert.ok(
    worst(
      r.biasAfter,
      r.bias.map((v, j) => v - r.lr * gradB[j]!),
    ) <= 1e-5,
    `bias after the SGD step: ${r.biasAfter}`,
  );
  // IndexedDB round trip: the stepped parameters come back exactly, a missing key names what is stored.
  assert.deepEqual(r.keys, ['linear']);
  assert.deepEqual(r.loadedWeight, r.weightAfter);
  assert.deepEqual(r.loadedBias, r.biasAfter);
  assert.match(
    r.missing,
    /IndexedDbStorage\.loadModule: no 'absent' in IndexedDB database 'burn-ts-bundle-test' \(stored: 'linear'\)/,
  );
  // SupervisedTraining in the page: two epochs, metrics kept in memory, checkpoints in IndexedDB.
  const t = r.training;
  assert.equal(t.loadingMode, 'main-thread');
  assert.deepEqual(
    t.epochLines.map((l) => l.split(' ').slice(0, 2).join(' ')),
    ['train 1', 'valid 1', 'train 2', 'valid 2'],
  );
  assert.equal(t.validLoss.length, 2);
  assert.ok(
    t.validLoss.every(Number.isFinite) && t.validLoss[1]! < t.validLoss[0]!,
    `valid loss per epoch: ${t.validLoss}`,
  );
  assert.ok(
    t.trainAccuracy.length === 2 && t.trainAccuracy.every((a) => a >= 0 && a <= 100),
    `train accuracy: ${t.trainAccuracy}`,
  );
  assert.deepEqual(t.checkpoints, [1, 2]);
  assert.equal(t.restoredEqual, true, 'the model loaded from the IndexedDB checkpoint equals the trained one');
}

/**
 * An import of a `node:` module in built JavaScript: static, dynamic or re-export (ES modules), or
 * a bundler's CommonJS `__require` shim. (The wasm engine's Node worker bootstrap is a string that
 * only Node evaluates, `require('node:worker_threads')` inside it is not an import of the bundle.)
 */
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|\b__require\s*\(\s*)["'`]node:[a-z_/]+["'`]/;

describe('burn-ts bundled by Vite for a plain page, in headless Chromium', { skip: missing ?? false }, () => {
  let root: string;
  let page: Built;
  let budget: Built;

  before(
    async () => {
      root = mkdtempSync(join(tmpdir(), 'burn-web-bundle-'));
      preparePackage(root);
      page = await buildPage(root, 'page', fileURLToPath(new URL('./bundle-page/main.js', import.meta.url)));
      budget = await buildPage(root, 'budget', fileURLToPath(new URL('./budget-entry.js', import.meta.url)));
    },
    { timeout: 600_000 },
  );

  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the bundle holds no node: import, no browser-externalized module, and emits the wasm modules', () => {
    for (const built of [page, budget]) {
      for (const [name, bytes] of built.files) {
        if (!name.endsWith('.js')) continue;
        const text = bytes.toString('utf8');
        const hit = NODE_IMPORT.exec(text);
        assert.ok(
          hit === null,
          `${name} imports a node: module: …${hit && text.slice(Math.max(0, hit.index - 80), hit.index + 60)}…`,
        );
        assert.ok(
          !text.includes('__vite-browser-external'),
          `${name}: Vite replaced a Node built-in with an empty browser stub`,
        );
      }
      assert.deepEqual(
        built.warnings.filter((w) => /externalized|node:/.test(w)),
        [],
      );
      assert.deepEqual(
        built.externalImports.filter((i) => i.startsWith('node:') || !i.startsWith('.')),
        [],
        'imports left out of the bundle',
      );
      const wasm = [...built.files.keys()]
        .filter((n) => n.endsWith('.wasm'))
        .map((n) => n.replace(/-[\w-]{8}\.wasm$/, '.wasm').replace(/^assets\//, ''))
        .sort();
      assert.deepEqual(wasm, ['kernels-mt.wasm', 'kernels-st.wasm']);
    }
  });

  it('esbuild (platform browser) bundles the same page from the browser conditions, with no node: import', {
    skip: esbuild ? false : 'esbuild is not installed (npm install)',
  }, async () => {
    const built = await esbuild!.build({
      // The copy beside the temporary node_modules, so `burn-ts` resolves to the package built there.
      entryPoints: [join(root, 'page', 'main.js')],
      absWorkingDir: root,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      splitting: true,
      outdir: join(root, 'esbuild-out'),
    });
    assert.deepEqual(
      built.warnings.map((w) => w.text),
      [],
    );
    for (const file of built.outputFiles) {
      const hit = NODE_IMPORT.exec(file.text);
      assert.ok(
        hit === null,
        `${file.path} imports a node: module: …${hit && file.text.slice(Math.max(0, hit.index - 80), hit.index + 60)}…`,
      );
    }
  });

  it('the inference core (tensor API, wasm engine, nn layers, burnpack loading) is within 150 KB of gzipped JavaScript', (t) => {
    const gz = (name: string) => gzipSync(budget.files.get(name)!, { level: 9 }).length;
    const initial = budget.initialJs.reduce((s, f) => s + gz(f), 0);
    const allJs = [...budget.files.keys()].filter((f) => f.endsWith('.js'));
    const total = allJs.reduce((s, f) => s + gz(f), 0);
    const wasm = [...budget.files.entries()]
      .filter(([f]) => f.endsWith('.wasm'))
      .map(
        ([f, b]) =>
          `${f.replace(/^assets\//, '')} ${(b.length / 1024).toFixed(1)} KB (${(gzipSync(b, { level: 9 }).length / 1024).toFixed(1)} KB gzipped)`,
      );
    const report = `inference core: ${(initial / 1024).toFixed(1)} KB gzipped JS loaded first (${budget.initialJs.length} chunk(s)), ${(total / 1024).toFixed(1)} KB with the lazily loaded chunks (${allJs.length}); wasm: ${wasm.join(', ')}`;
    t.diagnostic(report);
    console.log(report);
    assert.ok(
      initial <= BUDGET_GZIP_BYTES,
      `the inference core takes ${(initial / 1024).toFixed(1)} KB gzipped; the budget is ${BUDGET_GZIP_BYTES / 1024} KB`,
    );
  });

  it('a cross-origin-isolated page: the wasm engine with threads (no WebGPU adapter offered)', {
    timeout: 300_000,
  }, async () => {
    const { result, console: lines } = await visit(page.files, { isolated: true, webgpu: false });
    assert.equal(result.device, 'cpu(wasm)');
    assert.equal(result.isolated, true);
    const line = lines.find((l) => l.startsWith('burn-ts: default device'));
    const threads = Number(/\((\d+) threads?/.exec(line ?? '')?.[1]);
    assert.ok(result.cores > 1 ? threads > 1 : threads === 1, `defaultAsync's line: ${line} (cores: ${result.cores})`);
    checkPage(result);
  });

  it('a page without isolation: the single-threaded wasm engine, and the line says why', {
    timeout: 300_000,
  }, async () => {
    const { result, console: lines } = await visit(page.files, { isolated: false, webgpu: false });
    assert.equal(result.device, 'cpu(wasm)');
    assert.equal(result.isolated, false);
    assert.ok(
      lines.some((l) =>
        /^burn-ts: default device cpu\(wasm\) \(1 thread: the page is not cross-origin isolated; no WebGPU/.test(l),
      ),
      lines.join('\n'),
    );
    checkPage(result);
  });

  it('a page with a WebGPU adapter (SwiftShader): WebGPU', { timeout: 300_000 }, async () => {
    const { result, console: lines } = await visit(page.files, { isolated: true, webgpu: true });
    assert.match(result.device, /^webgpu/, lines.join('\n'));
    assert.ok(
      lines.some((l) => l.startsWith(`burn-ts: default device ${result.device}`)),
      lines.join('\n'),
    );
    checkPage(result);
  });

  it('a page whose wasm modules cannot be fetched: the js engine, and the line says why', {
    timeout: 300_000,
  }, async () => {
    const withoutWasm = new Map([...page.files].filter(([name]) => !name.endsWith('.wasm')));
    const { result, console: lines } = await visit(withoutWasm, { isolated: true, webgpu: false });
    assert.equal(result.device, 'cpu(js)');
    assert.ok(
      lines.some((l) =>
        /^burn-ts: default device cpu\(js\) \(wasm unavailable: fetching http:\/\/127\.0\.0\.1:\d+\/assets\/kernels-(?:mt|st)-[\w-]+\.wasm failed: HTTP 404; no WebGPU/.test(
          l,
        ),
      ),
      lines.join('\n'),
    );
    checkPage(result);
  });

  it("Vite's development server serves the same page from the package, with the wasm engine threaded", {
    timeout: 300_000,
  }, async () => {
    const server = await vite!.createServer({
      root: join(root, 'page'),
      configFile: false,
      logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0, headers: ISOLATION, hmr: false },
      build: { target: 'es2022' },
    });
    await server.listen();
    try {
      const { result } = await open(server.resolvedUrls!.local[0]!, false);
      assert.equal(result.device, 'cpu(wasm)');
      assert.equal(result.isolated, true);
      checkPage(result);
    } finally {
      await server.close();
    }
  });
});
