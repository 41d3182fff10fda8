/// <reference lib="dom" />
// MNIST training in a page: the model of examples/mnist trained by burn-ts on WebGPU or the wasm
// engine, with live learning curves, a progress bar, Stop/Resume, saving to and loading from the
// browser's IndexedDB, and a drawing pad to test the model. URL parameters preset the form:
// ?backend=wasm&epochs=2&batch=64&lr=0.003&seed=42, and ?maxSteps=N ends a run after N steps.
import type { Device } from 'burn-ts';
import { IndexedDbStorage } from 'burn-ts/store';
import { createBars, showBars } from '../shared/bars.ts';
import { fillBackendSelect, firstAvailable, probeBackends, type BackendName } from '../shared/devices.ts';
import { DrawingPad } from '../shared/drawing-pad.ts';
import { classify, MnistModel } from '../shared/model.ts';
import { LearningChart } from './chart.ts';
import { loadDigits, type Digits } from './digits.ts';
import { Trainer } from './trainer.ts';

/** Training backends: WebGPU and the wasm engine (the js engine is too slow to train on). */
const TRAIN_BACKENDS: readonly BackendName[] = ['webgpu', 'wasm'];
/** Where the page keeps its model: one IndexedDB database, the weights and a description. */
const DATABASE = 'burn-ts-mnist-training-web';
const MODEL_KEY = 'model';
const META_KEY = 'model.json';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const select = $<HTMLSelectElement>('backend');
const inputs = {
  epochs: $<HTMLInputElement>('epochs'),
  batch: $<HTMLInputElement>('batch'),
  lr: $<HTMLInputElement>('lr'),
};
const buttons = {
  start: $<HTMLButtonElement>('start'),
  stop: $<HTMLButtonElement>('stop'),
  resume: $<HTMLButtonElement>('resume'),
  save: $<HTMLButtonElement>('save'),
  load: $<HTMLButtonElement>('load'),
};
const progress = $<HTMLProgressElement>('progress'),
  progressText = $('progress-text'),
  validText = $('valid'),
  status = $('status');
const bars = $('bars'),
  prediction = $('prediction'),
  testModelText = $('test-model');
const chart = new LearningChart($<HTMLCanvasElement>('chart'), 1);
const pad = new DrawingPad($<HTMLCanvasElement>('pad'));
const input = $<HTMLCanvasElement>('input');
createBars(bars);

/** State mirrored into `document.body.dataset` for tests: state, step, validAccuracy, backend, device, drawn/predicted, saved/loaded. */
const data = document.body.dataset;
const query = new URLSearchParams(location.search);
let digits: Digits | undefined;
let found = new Map<BackendName, Device | Error>();
let storage: IndexedDbStorage | undefined;
let trainer: Trainer | undefined;
/** The model the drawing pad tests: the trained one, or the one loaded from storage. */
let testModel: { model: MnistModel; device: Device; label: string } | undefined;
let predicting = false;
let stepsPerSecond = { since: 0, steps: 0 };

function setState(state: 'idle' | 'training' | 'stopped' | 'done'): void {
  data['state'] = state;
  buttons.start.disabled = state === 'training';
  buttons.stop.disabled = state !== 'training';
  buttons.resume.disabled = state !== 'stopped';
  buttons.save.disabled = testModel === undefined || state === 'training';
  buttons.load.disabled = data['hasSaved'] !== 'true' || state === 'training';
  select.disabled = inputs.epochs.disabled = inputs.batch.disabled = inputs.lr.disabled = state === 'training';
}

function deviceOf(name: BackendName): Device {
  const d = found.get(name);
  if (!d || d instanceof Error) throw new Error(`backend ${name} is unavailable${d ? `: ${d.message}` : ''}`);
  return d;
}

function positive(el: HTMLInputElement, what: string): number {
  const v = Number(el.value);
  if (!(v > 0) || !Number.isFinite(v)) throw new Error(`${what}: ${el.value}; expected a positive number`);
  return v;
}

async function start(): Promise<void> {
  const name = select.value as BackendName;
  const device = deviceOf(name).autodiff();
  const maxSteps = query.get('maxSteps');
  trainer = new Trainer(device, digits!, {
    epochs: Math.round(positive(inputs.epochs, 'epochs')),
    batchSize: Math.round(positive(inputs.batch, 'batch size')),
    learningRate: positive(inputs.lr, 'learning rate'),
    seed: Number(query.get('seed') ?? 42),
    ...(maxSteps ? { maxSteps: Number(maxSteps) } : {}),
  });
  chart.reset(trainer.totalSteps);
  validText.textContent = '';
  data['backend'] = name;
  data['device'] = String(device);
  delete data['validAccuracy'];
  await resume();
}

async function resume(): Promise<void> {
  const t = trainer!;
  setState('training');
  stepsPerSecond = { since: performance.now(), steps: t.step };
  status.textContent = `training on ${t.device}`;
  const ended = await t.run(
    (r) => {
      chart.addStep(r.step, r.loss, r.accuracy);
      progress.value = r.step / r.totalSteps;
      const rate = (r.step - stepsPerSecond.steps) / ((performance.now() - stepsPerSecond.since) / 1000);
      progressText.textContent = `epoch ${r.epoch + 1}/${t.options.epochs} · step ${r.step}/${r.totalSteps} · loss ${r.loss.toFixed(3)} · batch accuracy ${r.accuracy.toFixed(1)}% · ${rate.toFixed(1)} steps/s · lr ${r.learningRate.toExponential(2)}`;
      data['step'] = String(r.step);
      data['loss'] = String(r.loss);
    },
    (v) => {
      chart.addValid(v.step, v.accuracy);
      validText.textContent = `validation after epoch ${v.epoch} (step ${v.step}): accuracy ${v.accuracy.toFixed(2)}% · loss ${v.loss.toFixed(4)} on ${digits!.test.count} test digits`;
      data['validAccuracy'] = String(v.accuracy);
    },
  );
  useModel(t.inferenceModel(), t.device.inner(), `trained here (${t.step} steps on ${t.device.inner()})`);
  setState(ended);
  status.textContent =
    ended === 'done' ? `done: ${t.step} steps` : `stopped at step ${t.step}: Resume continues from there`;
}

function useModel(model: MnistModel, device: Device, label: string): void {
  testModel = { model, device, label };
  testModelText.textContent = `testing the model ${label}`;
  schedulePrediction();
}

async function save(): Promise<void> {
  const { model, label } = testModel!;
  await storage!.saveModule(model, MODEL_KEY);
  const meta = {
    label,
    validAccuracy: data['validAccuracy'] === undefined ? undefined : Number(data['validAccuracy']),
    savedAt: new Date().toISOString(),
  };
  await storage!.put(META_KEY, new TextEncoder().encode(JSON.stringify(meta)));
  data['hasSaved'] = 'true';
  data['saved'] = String(Number(data['saved'] ?? 0) + 1);
  status.textContent = `saved to IndexedDB ('${DATABASE}', key '${MODEL_KEY}')`;
  setState((data['state'] ?? 'idle') as 'idle');
}

async function load(): Promise<void> {
  const device = deviceOf(select.value as BackendName);
  const model = await storage!.loadModule(new MnistModel(device), MODEL_KEY, device);
  useModel(model.valid(), device, `loaded from IndexedDB on ${device}`);
  data['loaded'] = String(device);
  status.textContent = `loaded the saved model onto ${device}`;
}

function schedulePrediction(): void {
  if (!predicting) void predict();
}

async function predict(): Promise<void> {
  predicting = true;
  try {
    for (;;) {
      const version = pad.version;
      const pixels = pad.toMnist(input);
      if (pixels && testModel) {
        const probabilities = await classify(testModel.model, pixels, testModel.device);
        prediction.textContent = String(showBars(bars, probabilities));
      } else {
        showBars(bars, undefined);
        prediction.textContent = '?';
      }
      data['predicted'] = String(version);
      if (version === pad.version) break;
    }
  } finally {
    predicting = false;
  }
}

function fail(e: unknown): void {
  status.textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
  status.classList.add('error');
  data['error'] = status.textContent;
}

async function init(): Promise<void> {
  for (const [key, el] of Object.entries(inputs)) {
    const v = query.get(key);
    if (v !== null) el.value = v;
  }
  const started = performance.now();
  const [loaded, backends, opened] = await Promise.all([
    loadDigits(),
    probeBackends(),
    IndexedDbStorage.open(DATABASE),
  ]);
  [digits, found, storage] = [loaded, backends, opened];
  progressText.textContent = `${loaded.train.count} training and ${loaded.test.count} test digits loaded in ${(performance.now() - started).toFixed(0)} ms`;
  const chosen = firstAvailable(found, TRAIN_BACKENDS);
  fillBackendSelect(select, found, chosen, TRAIN_BACKENDS);
  data['backend'] = chosen;
  const meta = await opened.get(META_KEY);
  if (meta) {
    data['hasSaved'] = 'true';
    const m = JSON.parse(new TextDecoder().decode(meta)) as { label: string; validAccuracy?: number; savedAt: string };
    status.textContent = `a saved model is in this browser (${m.label}${m.validAccuracy === undefined ? '' : `, ${m.validAccuracy.toFixed(2)}% validation accuracy`}, ${m.savedAt}): Load it to test it`;
  }
  pad.onChange(() => {
    data['drawn'] = String(pad.version);
    schedulePrediction();
  });
  data['drawn'] = String(pad.version);
  $('clear').addEventListener('click', () => pad.clear());
  buttons.start.addEventListener('click', () => void start().catch(fail));
  buttons.stop.addEventListener('click', () => trainer?.stop());
  buttons.resume.addEventListener('click', () => void resume().catch(fail));
  buttons.save.addEventListener('click', () => void save().catch(fail));
  buttons.load.addEventListener('click', () => void load().catch(fail));
  setState('idle');
  data['ready'] = 'true';
}

init().catch(fail);
