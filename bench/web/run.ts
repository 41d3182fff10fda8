/**
 * The in-page bench: `node --import tsx bench/web/run.ts [options]`.
 *
 * Bundles bench/web/page.ts (esbuild), serves it from 127.0.0.1 with everything it loads from this
 * checkout (burn-ts's wasm modules, onnxruntime-web's and tfjs-backend-wasm's .wasm files from
 * node_modules, the ONNX models; nothing from a CDN), opens it in Debian's headless Chromium
 * (playwright-core) and prints median latencies with ratios. The models are exported once by
 * bench/web/export_models.py (Debian's python3-torch) into node_modules/.cache/burn-ts-bench/web.
 *
 * Options:
 *   --threaded        also run a cross-origin-isolated pass, every runtime on all cores
 *   --only <text>     rows whose name contains <text> (`MNIST`, `ResNet`, `training`)
 *   --budget <ms>     time per cell after warm-up (default 2000)
 *   --profile         also profile burn-ts's cells of the single-threaded pass (Chrome's sampling
 *                     profiler over the timed rounds, one page per cell): self time by function
 *   --json <file>     write the raw results
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, CHROMIUM_ARGS } from '../../test/helpers/browser.js';
import type { Cell, WebBenchResult } from './page.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const MODELS = process.env['BENCH_WEB_MODELS'] ?? join(root, 'node_modules/.cache/burn-ts-bench/web');

interface Options {
  threaded: boolean;
  only?: string;
  budget: number;
  profile: boolean;
  json?: string;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { threaded: false, budget: 2000, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--threaded') o.threaded = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--only') o.only = argv[++i];
    else if (a === '--budget') o.budget = Number(argv[++i]);
    else if (a === '--json') o.json = argv[++i];
    else throw new Error(`bench/web/run.ts: unknown option ${a} (see the header of bench/web/run.ts)`);
  }
  return o;
}

/** Exports the models once (they are large, so not in git). */
function ensureModels(): void {
  if (existsSync(join(MODELS, 'mnist.onnx')) && existsSync(join(MODELS, 'resnet18.onnx'))) return;
  const python = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';
  mkdirSync(MODELS, { recursive: true });
  process.stderr.write(`exporting the bench models with ${python} into ${MODELS} (once)…\n`);
  execFileSync(python, [join(root, 'bench/web/export_models.py'), MODELS], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.html': 'text/html',
};

/** Serves the page and the files it loads; `isolated` adds the COOP/COEP pair. */
async function serve(script: string, isolated: boolean): Promise<{ server: Server; url: string }> {
  const dirs: Record<string, string> = {
    '/ort/': join(root, 'node_modules/onnxruntime-web/dist/'),
    '/tfjs/': join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist/'),
    '/models/': `${MODELS}/`,
  };
  const headers: Record<string, string> = isolated
    ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
    : {};
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    let body: string | Buffer | undefined;
    if (path === '/')
      body =
        '<!doctype html><html><head><script type="module" src="/page.js"></script></head><body>burn-ts web bench</body></html>';
    else if (path === '/page.js') body = script;
    else if (/^\/kernels-(mt|st)\.wasm$/.test(path))
      body = readFileSync(join(root, 'src/backends/cpu/wasm', path.slice(1)));
    else {
      const dir = Object.keys(dirs).find((d) => path.startsWith(d));
      const file =
        dir && /^[\w.-]+$/.test(path.slice(dir.length)) ? join(dirs[dir]!, path.slice(dir.length)) : undefined;
      if (file && existsSync(file)) body = readFileSync(file);
    }
    res.writeHead(body === undefined ? 404 : 200, { ...headers, 'content-type': TYPES[extname(path)] ?? 'text/html' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/` };
}

/** A LEB128 reader over a wasm binary. */
function uleb(bytes: Uint8Array, at: { i: number }): number {
  let result = 0,
    shift = 0,
    b: number;
  do {
    b = bytes[at.i++]!;
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return result;
}

/**
 * Names of burn-ts's wasm functions by index (its module has no name section, so profiles say
 * `wasm-function[N]`, N in the same index space as the export section's): the export names.
 */
function burnWasmNames(): Map<number, string> {
  const bytes = new Uint8Array(readFileSync(join(root, 'src/backends/cpu/wasm/kernels-st.wasm')));
  const names = new Map<number, string>();
  const at = { i: 8 };
  const str = () => {
    const n = uleb(bytes, at);
    const t = new TextDecoder().decode(bytes.subarray(at.i, at.i + n));
    at.i += n;
    return t;
  };
  while (at.i < bytes.length) {
    const id = bytes[at.i++]!,
      size = uleb(bytes, at),
      end = at.i + size;
    if (id === 7) {
      for (let n = uleb(bytes, at); n > 0; n--) {
        const name = str(),
          kind = bytes[at.i++]!,
          index = uleb(bytes, at);
        if (kind === 0) names.set(index, name);
      }
    }
    at.i = end;
  }
  return names;
}

/** Aggregated self time by function of a CPU profile (Chrome DevTools protocol format). */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The source module of each line of the (unminified) bundle: esbuild heads each module with a `// path` comment. */
let moduleOfLine: (line: number) => string = () => '';
function indexModules(script: string): void {
  const starts: [number, string][] = [];
  script.split('\n').forEach((text, line) => {
    const m = /^\/\/ (\S+\.(?:ts|js|mjs))$/.exec(text);
    if (m) starts.push([line, m[1]!.replace(/^(\.\.\/)+/, '').replace(/^node_modules\//, '')]);
  });
  moduleOfLine = (line) => {
    let lo = 0,
      hi = starts.length - 1,
      found = '';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]![0] <= line) {
        found = starts[mid]![1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

function selfTimes(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, number>();
  const wasmNames = burnWasmNames();
  const wasmIndex = (n: ProfileNode) => /^wasm-function\[(\d+)\]$/.exec(n.callFrame.functionName)?.[1];
  /** An unexported burn-ts wasm function, named after the nearest exported one that called it. */
  const viaCaller = (id: number): string => {
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) {
      const i = wasmIndex(byId.get(p)!);
      if (i === undefined) break;
      const name = wasmNames.get(Number(i));
      if (name) return ` in ${name}`;
    }
    return '';
  };
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const file = f.url.split('/').pop() || '';
    const index = /^wasm-function\[(\d+)\]$/.exec(f.functionName)?.[1];
    // burn-ts's module is compiled from bytes: its frames carry a hash, not a file name.
    const burnWasm = index !== undefined && /^[0-9a-f]{8}$/.test(file);
    const name = burnWasm
      ? `${wasmNames.get(Number(index)) ?? `${f.functionName}${viaCaller(id)}`} (burn-ts wasm)`
      : f.functionName || '(anonymous)';
    const where = file === 'page.js' ? moduleOfLine(f.lineNumber) || file : file;
    const key = burnWasm ? name : `${name}${where ? ` [${where}]` : ''}`;
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/** Opens the page in a fresh Chromium, returns its result (and the profile when asked). */
async function visit(
  script: string,
  query: string,
  isolated: boolean,
  profile: boolean,
): Promise<{ result: WebBenchResult; profile?: [string, number][] }> {
  const { chromium } = await import('playwright-core');
  const { server, url } = await serve(script, isolated);
  const dir = mkdtempSync(join(tmpdir(), 'burn-bench-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || process.env['BENCH_WEB_VERBOSE']) process.stderr.write(`page: ${m.text()}\n`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico'))
        process.stderr.write(`page: ${r.status()} ${r.url()}\n`);
    });
    const cdp = profile ? await context.newCDPSession(page) : undefined;
    let captured: Parameters<typeof selfTimes>[0] | undefined;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      // The page calls this around its timed rounds (after warm-up).
      await page.exposeFunction('benchProfile', async (what: string) => {
        if (what === 'start') await cdp.send('Profiler.start');
        else captured = (await cdp.send('Profiler.stop')).profile as never;
      });
    }
    await page.goto(`${url}?${query}`);
    // A page that stops making progress (a deadlocked worker) fails the run instead of hanging it.
    await page.waitForFunction(() => (globalThis as { benchResult?: unknown }).benchResult !== undefined, undefined, {
      timeout: 900_000,
    });
    const result = (await page.evaluate(() => (globalThis as { benchResult?: unknown }).benchResult)) as
      | WebBenchResult
      | { error: string };
    if ('error' in result) throw new Error(`the bench page failed: ${result.error}`);
    const times = captured ? selfTimes(captured) : undefined;
    return times ? { result, profile: times } : { result };
  } finally {
    await context.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

/** The table of one pass: per row, each column's median and, for burn-ts's columns, the ratio to the fastest peer (> 1: burn-ts faster). */
function table(r: WebBenchResult): string {
  const lines = [
    '| row | implementation | median ms | IQR ms | runs | vs fastest peer | max diff vs ORT |',
    '|---|---|---:|---|---:|---:|---:|',
  ];
  const rows = [...new Set(r.cells.map((c) => c.row))];
  for (const row of rows) {
    const cells = r.cells.filter((c) => c.row === row);
    const peers = cells.filter((c) => !c.impl.startsWith('burn-ts'));
    const best = peers.reduce<Cell | undefined>((b, c) => (!b || c.median < b.median ? c : b), undefined);
    for (const c of cells) {
      const ratio =
        c.impl.startsWith('burn-ts') && best
          ? `${(best.median / c.median).toFixed(2)}× (${best.impl.split(' ')[0]})`
          : '';
      lines.push(
        `| ${row} | ${c.impl} | ${fmt(c.median)} | ${fmt(c.iqr[0])}–${fmt(c.iqr[1])} | ${c.runs} | ${ratio} | ${c.maxDiffVsOrt === undefined ? '' : c.maxDiffVsOrt.toExponential(1)} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install chromium; BURN_CHROMIUM overrides)`);
  ensureModels();
  const esbuild = await import('esbuild');
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error', // not minified: readable profiles (keepNames would break the Emscripten pthread workers, which run stringified functions)
    // tfjs-backend-wasm's Emscripten glue names Node modules it never loads in a page.
    external: ['fs', 'path', 'worker_threads', 'perf_hooks', 'os', 'crypto'],
  });
  const script = built.outputFiles[0]!.text;
  indexModules(script);
  const passes: { name: string; query: string; isolated: boolean }[] = [
    { name: 'single-threaded (page not cross-origin isolated)', query: 'threads=1', isolated: false },
  ];
  if (o.threaded)
    passes.push({
      name: 'threaded (cross-origin isolated, every runtime on all cores)',
      query: 'threads=0',
      isolated: true,
    });
  const results: { name: string; result: WebBenchResult; profiles?: Record<string, [string, number][]> }[] = [];
  for (const pass of passes) {
    let query = `${pass.query}&budget=${o.budget}`;
    if (o.only) query += `&only=${encodeURIComponent(o.only)}`;
    process.stderr.write(`${pass.name}…\n`);
    const { result } = await visit(script, query, pass.isolated, false);
    console.log(
      `\n### ${pass.name}\nthreads: burn-ts ${result.threads.burn} (${result.threads.burnVariant} module), onnxruntime-web ${result.threads.ort}, tfjs ${result.threads.tfjs || 'default'}; ${result.userAgent.match(/Chrom\w+\/[\d.]+/)?.[0] ?? ''}\n`,
    );
    console.log(table(result));
    if (Object.keys(result.burnMnistLayers).length) {
      console.log(
        `\nburn-ts MNIST b64 per layer (ms, each output awaited): ${Object.entries(result.burnMnistLayers)
          .map(([k, v]) => `${k} ${fmt(v)}`)
          .join(', ')}`,
      );
      console.log(
        `burn-ts CPU pool reuse per MNIST b64 run (arrays): ${Object.entries(result.burnPoolReusePerRun)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    }
    const entry: (typeof results)[number] = { name: pass.name, result };
    if (o.profile && pass === passes[0]) {
      // One fresh page per burn-ts cell, so each profile is that cell's alone.
      entry.profiles = {};
      for (const cell of result.cells.filter((c) => c.impl.startsWith('burn-ts'))) {
        const impl = /\((.*)\)/.exec(cell.impl)?.[1] ?? cell.impl;
        process.stderr.write(`profiling ${cell.row}, ${cell.impl}…\n`);
        const { profile } = await visit(
          script,
          `${pass.query}&budget=${Math.min(o.budget, 1500)}&only=${encodeURIComponent(cell.row)}&impl=${encodeURIComponent(impl)}`,
          pass.isolated,
          true,
        );
        if (!profile) {
          console.log(`\nprofile: ${cell.row}, ${cell.impl} — no profile came back`);
          continue;
        }
        const busy = profile.filter(([name]) => !['(idle)', '(program)'].includes(name));
        const total = busy.reduce((sum, [, t]) => sum + t, 0);
        console.log(
          `\nprofile: ${cell.row}, ${cell.impl} — self time, top 12 of ${fmt(total)} ms busy (idle and (program) left out):`,
        );
        for (const [name, t] of busy.slice(0, 12))
          console.log(`  ${fmt(t).padStart(8)} ms  ${((100 * t) / total).toFixed(1).padStart(5)} %  ${name}`);
        entry.profiles[`${cell.row} / ${cell.impl}`] = busy.slice(0, 30);
      }
    }
    results.push(entry);
  }
  if (o.json) writeFileSync(o.json, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
