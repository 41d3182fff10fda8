/// <reference lib="dom" />
// MNIST inference in a page (Burn's mnist-inference-web): a drawing pad, the model of
// examples/mnist with the weights `npm run mnist` trained (public/mnist.bpk), live predictions
// with the probabilities as bars, and a switch between the WebGPU, wasm and js backends with the
// latency of each prediction.
import type { Device } from 'burn-ts';
import { createBars, showBars } from '../shared/bars.ts';
import {
  defaultBackend,
  fillBackendSelect,
  probeBackends,
  requestedBackend,
  type BackendName,
} from '../shared/devices.ts';
import { DrawingPad } from '../shared/drawing-pad.ts';
import { classify, MnistModel } from '../shared/model.ts';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const pad = new DrawingPad($<HTMLCanvasElement>('pad'));
const input = $<HTMLCanvasElement>('input');
const select = $<HTMLSelectElement>('backend');
const bars = $('bars'),
  prediction = $('prediction'),
  latency = $('latency'),
  status = $('status'),
  deviceLabel = $('device');
createBars(bars);

/**
 * The page's state. `document.body.dataset` mirrors it for tests: `backend`/`device`, `ready`,
 * `drawn` (the drawing's version) and `predicted` (the version the bars show).
 */
let model: MnistModel | undefined;
let device: Device | undefined;
let busy = false;
/** Increments when the model moves to another device, so that a running prediction loop predicts again. */
let generation = 0;
const latencies: number[] = [];

async function fetchWeights(): Promise<Uint8Array> {
  const url = new URL('./mnist.bpk', document.baseURI);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.href} failed: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Loads the weights onto the device of `name`. */
async function use(name: BackendName, found: Map<BackendName, Device | Error>, weights: Uint8Array): Promise<void> {
  const chosen = found.get(name);
  if (!chosen || chosen instanceof Error) throw chosen ?? new Error(`no backend ${name}`);
  document.body.dataset['ready'] = 'false';
  model = new MnistModel(chosen).loadBytes(weights, chosen);
  device = chosen;
  generation++;
  latencies.length = 0;
  deviceLabel.textContent = `device: ${chosen}`;
  document.body.dataset['backend'] = name;
  document.body.dataset['device'] = String(chosen);
  document.body.dataset['ready'] = 'true';
  schedule();
}

/** Predicts the current drawing unless a prediction is running; that one reschedules when done. */
function schedule(): void {
  if (!busy) void predict();
}

async function predict(): Promise<void> {
  if (!model || !device) return;
  busy = true;
  try {
    // Predict until the drawing stops changing under us (strokes arrive while the model runs).
    for (;;) {
      const version = pad.version,
        gen = generation;
      const pixels = pad.toMnist(input);
      if (!pixels) {
        showBars(bars, undefined);
        prediction.textContent = '?';
      } else {
        const started = performance.now();
        const on = device;
        const probabilities = await classify(model, pixels, on);
        latencies.push(performance.now() - started);
        if (latencies.length > 20) latencies.shift();
        const best = showBars(bars, probabilities);
        prediction.textContent = String(best);
        const sorted = [...latencies].sort((a, b) => a - b);
        latency.textContent = `latency ${latencies.at(-1)!.toFixed(1)} ms (median of the last ${sorted.length}: ${sorted[sorted.length >> 1]!.toFixed(1)} ms) on ${on}`;
      }
      document.body.dataset['predicted'] = String(version);
      if (version === pad.version && gen === generation) break;
    }
  } catch (e) {
    status.textContent = `prediction failed: ${(e as Error).message}`;
    status.classList.add('error');
  } finally {
    busy = false;
  }
}

async function start(): Promise<void> {
  const [weights, found] = await Promise.all([fetchWeights(), probeBackends()]);
  // `?backend=` when it is available, else the device burn-ts picks for a page by itself.
  const asked = requestedBackend();
  const initial = asked && !(found.get(asked) instanceof Error) ? asked : await defaultBackend();
  fillBackendSelect(select, found, initial);
  select.disabled = false;
  select.addEventListener('change', () => {
    void use(select.value as BackendName, found, weights).catch(fail);
  });
  pad.onChange(() => {
    document.body.dataset['drawn'] = String(pad.version);
    schedule();
  });
  document.body.dataset['drawn'] = String(pad.version);
  $('clear').addEventListener('click', () => pad.clear());
  await use(initial, found, weights);
  const unavailable = [...found].filter(([, r]) => r instanceof Error).map(([n, r]) => `${n}: ${(r as Error).message}`);
  status.textContent = `model loaded (${(weights.length / 1024).toFixed(0)} KiB of weights).${unavailable.length ? ` Unavailable: ${unavailable.join('; ')}` : ''}`;
}

function fail(e: unknown): void {
  status.textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
  status.classList.add('error');
  document.body.dataset['error'] = status.textContent;
}

start().catch(fail);
