// The onnx-web example (examples/web/onnx-web) as a user meets it: Vite's production build of the
// page, served from 127.0.0.1 (cross-origin isolated, as `vite preview` serves it), opened in
// Debian's headless Chromium (playwright-core). An image is picked through the file input, another
// dropped on the drop zone, a bundled sample clicked on the js engine; each time both paths
// (`loadOnnx` and the generated module) must give onnxruntime's logits (onnxruntime-node in this
// process, on the page's own 28×28 input) within float32 rounding, the bars must name the same
// class, and a screenshot must not be blank (ONNX_WEB_SCREENSHOT=<file.png> keeps it).
// Skips (and fails under BURN_TEST_STRICT=1) when Chromium, playwright-core, Vite or
// onnxruntime-node is missing.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { browserMissing, CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';

/** The part of pngjs (no type declarations of its own) the test uses. */
interface Png {
  width: number;
  height: number;
  data: Buffer;
}
const { PNG } = createRequire(import.meta.url)('pngjs') as {
  PNG: {
    new (options: { width: number; height: number }): Png;
    sync: { read(bytes: Buffer): Png; write(png: Png): Buffer };
  };
};

const example = fileURLToPath(new URL('../../examples/web/onnx-web/', import.meta.url));
const CLASSES = [
  'T-shirt/top',
  'Trouser',
  'Pullover',
  'Dress',
  'Coat',
  'Sandal',
  'Shirt',
  'Sneaker',
  'Bag',
  'Ankle boot',
];

type Vite = typeof import('vite');
type Ort = typeof import('onnxruntime-node');
type Playwright = typeof import('playwright-core');
const vite = await import('vite').then(
  (m: Vite) => m,
  () => undefined,
);
const ort = await import('onnxruntime-node').then(
  (m: Ort) => m,
  () => undefined,
);
const playwright = await import('playwright-core').then(
  (m: Playwright) => m,
  () => undefined,
);

const missing =
  browserMissing ??
  (!vite
    ? 'vite is not installed (npm install)'
    : !ort
      ? 'onnxruntime-node is not installed (npm install)'
      : undefined);

/** What the page leaves on `globalThis.onnxWeb` (see examples/web/onnx-web/main.ts). */
interface PathResult {
  logits: number[];
  probabilities: number[];
  ms: number;
}
interface OnnxWebState {
  device: string;
  classified: number;
  error?: string;
  last?: { name: string; input: number[]; runtime: PathResult; generated: PathResult };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

/** Serves a built folder with the COOP/COEP pair (the example's `vite preview` headers). */
async function serveDir(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path === '/' ? 'index.html' : path);
    const found = file.startsWith(dir) && existsSync(file);
    res.writeHead(found ? 200 : 404, {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    });
    res.end(found ? readFileSync(file) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/` };
}

/** A picture as a phone would give it: the sample upscaled to `w`×`h` in RGB, dark garment on a light background. */
function photoLike(sample: string, w: number, h: number): Buffer {
  const src = PNG.sync.read(readFileSync(sample));
  const out = new PNG({ width: w, height: h });
  const side = Math.min(w, h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = Math.floor(((x - (w - side) / 2) * src.width) / side),
        sy = Math.floor(((y - (h - side) / 2) * src.height) / side);
      const v = sx >= 0 && sx < src.width && sy >= 0 && sy < src.height ? src.data[4 * (sy * src.width + sx)]! : 0;
      const o = 4 * (y * w + x);
      out.data[o] = 255 - v;
      out.data[o + 1] = 250 - Math.round(v * 0.9);
      out.data[o + 2] = 245 - Math.round(v * 0.8);
      out.data[o + 3] = 255;
    }
  }
  return PNG.sync.write(out);
}

const argmax = (v: readonly number[]) => v.indexOf(Math.max(...v));

describe('examples/web/onnx-web in headless Chromium', { skip: missing ?? false }, () => {
  let outDir = '';
  let profile = '';
  let served: { server: Server; url: string };
  let context: import('playwright-core').BrowserContext;
  let page: import('playwright-core').Page;
  let session: import('onnxruntime-node').InferenceSession;
  const pageErrors: string[] = [];

  before(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'burn-onnx-web-'));
    await vite!.build({
      configFile: join(example, 'vite.config.ts'),
      logLevel: 'error',
      build: { outDir, emptyOutDir: true },
    });
    served = await serveDir(outDir);
    session = await ort!.InferenceSession.create(join(example, 'fashion_cnn.onnx'));
    profile = mkdtempSync(join(tmpdir(), 'burn-chromium-'));
    context = await playwright!.chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1000, height: 720 },
    });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(served.url);
    await page.waitForFunction(
      () => ['ready', 'error'].includes(document.getElementById('status')!.dataset['state']!),
      undefined,
      { timeout: 120_000 },
    );
  });

  after(async () => {
    await context?.close();
    served?.server.close();
    rmSync(outDir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  /** Waits for the page to have classified `n` images; returns its state. */
  async function classified(n: number): Promise<OnnxWebState> {
    await page.waitForFunction(
      (k) => {
        const s = (globalThis as { onnxWeb?: { classified: number; error?: string } }).onnxWeb;
        return s !== undefined && (s.classified >= k || s.error !== undefined);
      },
      n,
      { timeout: 120_000 },
    );
    const state = (await page.evaluate(() => (globalThis as { onnxWeb?: unknown }).onnxWeb)) as OnnxWebState;
    assert.equal(state.error, undefined, `the page failed: ${state.error}`);
    assert.equal(state.classified, n);
    return state;
  }

  /** Both paths equal onnxruntime's logits on the page's own input; the page names that class. */
  async function checkAgainstOrt(state: OnnxWebState): Promise<number> {
    const last = state.last!;
    assert.equal(last.input.length, 28 * 28);
    assert.ok(
      last.input.every((v) => v >= 0 && v <= 1),
      'pixels in [0, 1]',
    );
    const out = await session.run({ image: new ort!.Tensor('float32', Float32Array.from(last.input), [1, 1, 28, 28]) });
    const want = Array.from(out['logits']!.data as Float32Array);
    for (const [path, got] of [
      ['loadOnnx', last.runtime],
      ['generated module', last.generated],
    ] as const) {
      assert.equal(got.logits.length, 10);
      got.logits.forEach((v, i) =>
        assert.ok(
          Math.abs(v - want[i]!) <= 1e-4 * (1 + Math.abs(want[i]!)),
          `${path} logit ${i}: ${v}, onnxruntime ${want[i]}`,
        ),
      );
      assert.ok(Math.abs(got.probabilities.reduce((a, b) => a + b, 0) - 1) < 1e-5, `${path} probabilities sum to 1`);
    }
    const best = argmax(want);
    const shown = await page.$$eval('.path .bar.top span:first-child', (spans) => spans.map((s) => s.textContent));
    assert.deepEqual(shown, [CLASSES[best], CLASSES[best]]);
    return best;
  }

  it('loads both paths on the wasm engine', () => {
    assert.deepEqual(pageErrors, []);
    return page
      .evaluate(() => (globalThis as { onnxWeb?: { device: string; error?: string } }).onnxWeb)
      .then((s) => {
        assert.equal(s?.error, undefined, `the page failed: ${s?.error}`);
        assert.equal(s?.device, 'cpu(wasm)');
      });
  });

  it('classifies an image picked through the file input as onnxruntime does', { timeout: 120_000 }, async () => {
    await page.setInputFiles('#file', join(example, 'samples/9-ankle-boot.png'));
    const state = await classified(1);
    assert.equal(state.last!.name, '9-ankle-boot.png');
    assert.equal(await checkAgainstOrt(state), 9, "the test set's ankle boot is an ankle boot");
  });

  it('classifies a dropped photo (any size, light background) as onnxruntime does', { timeout: 120_000 }, async () => {
    const png = photoLike(join(example, 'samples/1-trouser.png'), 120, 90).toString('base64');
    await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'photo.png', { type: 'image/png' }));
      document
        .getElementById('drop')!
        .dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, png);
    const state = await classified(2);
    assert.equal(state.last!.name, 'photo.png');
    // The light background is inverted to Fashion-MNIST's dark one.
    const corner = state.last!.input.slice(0, 28).reduce((a, b) => a + b, 0) / 28;
    assert.ok(corner < 0.1, `first row mean ${corner}: the background should come out dark`);
    assert.equal(await checkAgainstOrt(state), 1, 'the trouser stays a trouser');
  });

  it('switches to the js engine and classifies a bundled sample as onnxruntime does', {
    timeout: 120_000,
  }, async () => {
    await page.selectOption('#backend', 'js');
    await page.waitForFunction(() => document.getElementById('status')!.dataset['state'] === 'ready', undefined, {
      timeout: 60_000,
    });
    await page.click('#samples button[title="7-sneaker.png"]');
    const state = await classified(3);
    assert.equal(state.device, 'cpu(js)');
    await checkAgainstOrt(state);
  });

  it('renders the page (screenshot not blank)', async () => {
    const bytes = await page.screenshot();
    if (process.env['ONNX_WEB_SCREENSHOT']) writeFileSync(process.env['ONNX_WEB_SCREENSHOT'], bytes);
    const shot = PNG.sync.read(bytes);
    const colors = new Set<number>();
    let accent = 0;
    for (let i = 0; i < shot.data.length; i += 4) {
      const [r, g, b] = [shot.data[i]!, shot.data[i + 1]!, shot.data[i + 2]!];
      colors.add((r << 16) | (g << 8) | b);
      if (r === 0xe4 && g === 0x57 && b === 0x2e) accent++; // the top class's bar
    }
    assert.ok(colors.size > 50, `${colors.size} colours: the screenshot looks blank`);
    assert.ok(accent > 100, `the top-class bars are not drawn (${accent} pixels of their colour)`);
    assert.deepEqual(pageErrors, []);
  });
});
