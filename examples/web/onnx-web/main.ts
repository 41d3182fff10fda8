/// <reference types="vite/client" />
/// <reference lib="dom" />
// The page: picks or drops an image (or a bundled sample), turns it into the model's 28×28 input
// and shows both paths' class probabilities side by side. The last result is also left on
// `globalThis.onnxWeb` for the browser test.
import {
  classify,
  CLASSES,
  deviceOf,
  loadClassifiers,
  SIDE,
  toPixels,
  type Backend,
  type Classifiers,
  type PathResult,
} from './classify.js';

/** What the page exposes for tests and the console. */
export interface OnnxWebState {
  /** The device the models run on (`cpu(wasm)`, `webgpu`…). */
  device: string;
  /** Images classified so far. */
  classified: number;
  /** The last image: its input pixels and both paths' results. */
  last?: {
    readonly name: string;
    readonly input: number[];
    readonly runtime: PathResult;
    readonly generated: PathResult;
  };
  /** The last failure, if any. */
  error?: string;
}

const state: OnnxWebState = { device: '', classified: 0 };
(globalThis as { onnxWeb?: OnnxWebState }).onnxWeb = state;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('status');
const backendSelect = $<HTMLSelectElement>('backend');
let models: Promise<Classifiers> | undefined;

function setStatus(text: string, kind: 'loading' | 'ready' | 'busy' | 'done' | 'error'): void {
  status.textContent = text;
  status.dataset['state'] = kind;
}

function fail(e: unknown): void {
  state.error = e instanceof Error ? e.message : String(e);
  setStatus(state.error, 'error');
  console.error(e);
}

function load(backend: Backend): void {
  setStatus(`loading the models on ${backend}…`, 'loading');
  models = deviceOf(backend).then(loadClassifiers);
  models.then((m) => {
    state.device = m.device.toString();
    setStatus(`ready on ${state.device}`, 'ready');
  }, fail);
}

function renderBars(id: string, result: PathResult): void {
  const top = result.probabilities.indexOf(Math.max(...result.probabilities));
  $(id).replaceChildren(
    ...result.probabilities.map((p, c) => {
      const row = document.createElement('div');
      row.className = c === top ? 'bar top' : 'bar';
      const label = document.createElement('span');
      label.textContent = CLASSES[c]!;
      const track = document.createElement('div');
      track.className = 'track';
      const fill = document.createElement('div');
      fill.className = 'fill';
      fill.style.width = `${(100 * p).toFixed(1)}%`;
      track.append(fill);
      const value = document.createElement('span');
      value.className = 'p';
      value.textContent = `${(100 * p).toFixed(1)}%`;
      row.append(label, track, value);
      return row;
    }),
  );
  $(`${id}-ms`).textContent = `${result.ms.toFixed(1)} ms`;
}

function showInput(pixels: Float32Array): void {
  const ctx = $<HTMLCanvasElement>('input').getContext('2d')!;
  const image = ctx.createImageData(SIDE, SIDE);
  pixels.forEach((v, i) => {
    image.data.fill(Math.round(255 * v), 4 * i, 4 * i + 3);
    image.data[4 * i + 3] = 255;
  });
  ctx.putImageData(image, 0, 0);
}

/** Decodes an image file (or a sample's bytes) and classifies it. */
async function classifyBlob(blob: Blob, name: string): Promise<void> {
  try {
    if (!models) return;
    const m = await models;
    setStatus(`classifying ${name}…`, 'busy');
    const bitmap = await createImageBitmap(blob);
    const pixels = toPixels(bitmap, bitmap.width, bitmap.height);
    bitmap.close();
    showInput(pixels);
    const { runtime, generated } = await classify(m, pixels);
    renderBars('runtime', runtime);
    renderBars('generated', generated);
    state.last = { name, input: Array.from(pixels), runtime, generated };
    state.classified++;
    const best = (r: PathResult) => CLASSES[r.probabilities.indexOf(Math.max(...r.probabilities))];
    setStatus(`${name}: ${best(runtime)} (loadOnnx) · ${best(generated)} (generated) on ${state.device}`, 'done');
  } catch (e) {
    fail(e);
  }
}

$<HTMLInputElement>('file').addEventListener('change', (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file) void classifyBlob(file, file.name);
});

const drop = $('drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  const file = event.dataTransfer?.files[0];
  if (file) void classifyBlob(file, file.name);
});

// The bundled samples: one Fashion-MNIST test image per class (written by train.py).
const samples = import.meta.glob('./samples/*.png', { eager: true, query: '?url', import: 'default' }) as Record<
  string,
  string
>;
for (const [path, url] of Object.entries(samples).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) {
  const name = path.split('/').pop()!;
  const button = document.createElement('button');
  button.title = name;
  const img = document.createElement('img');
  img.src = url;
  img.alt = name;
  button.append(img);
  button.addEventListener(
    'click',
    () =>
      void fetch(url)
        .then((r) => r.blob())
        .then((b) => classifyBlob(b, name), fail),
  );
  $('samples').append(button);
}

backendSelect.addEventListener('change', () => load(backendSelect.value as Backend));
if (!('gpu' in navigator)) backendSelect.querySelector<HTMLOptionElement>('option[value="webgpu"]')!.disabled = true;
load('wasm');
