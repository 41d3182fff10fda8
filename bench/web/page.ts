/// <reference lib="dom" />
/**
 * The in-page bench (bundled and driven by bench/web/run.ts): in one headless-Chromium page,
 * median latencies of the MNIST example's model and ResNet-18 on burn-ts's wasm engine, on
 * onnxruntime-web (wasm backend) and on @tensorflow/tfjs-backend-wasm, and a training step of the
 * MNIST model on burn-ts (autodiff over wasm, Adam) and tfjs (variableGrads, Adam; on tfjs's cpu
 * backend: tfjs-backend-wasm has no kernel for a convolution's weight gradient).
 *
 * Each timed run ends with the result on the host (burn-ts `await toData()`, ORT's output
 * tensors are host arrays, tfjs `await data()`), so every column pays its read-back. Threads:
 * `?threads=N` (the page must be cross-origin isolated for N > 1; burn-ts then takes
 * `navigator.hardwareConcurrency` threads, its only setting in a page).
 */
import * as tf from '@tensorflow/tfjs-core';
// tfjs-core's ESM entry leaves the gradients out (the tfjs umbrella package registers them).
import '@tensorflow/tfjs-core/dist/register_all_gradients.js';
import '@tensorflow/tfjs-backend-cpu';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web/wasm';
import { Device, Module, Tensor, TensorData, type Float, type Int } from '../../src/index.js';
import {
  AdaptiveAvgPool2d,
  AdaptiveAvgPool2dConfig,
  Conv2d,
  Conv2dConfig,
  CrossEntropyLossConfig,
  Linear,
  LinearConfig,
  Relu,
} from '../../src/nn/index.js';
import { loadOnnx } from '../../src/onnx/index.js';
import { AdamConfig, GradientsParams } from '../../src/optim/index.js';
import { wasmRuntime } from '../../src/backends/cpu/wasm/index.js';

/** One measured cell. */
export interface Cell {
  readonly row: string;
  readonly impl: string;
  /** Median milliseconds per run. */
  readonly median: number;
  /** Interquartile range, ms. */
  readonly iqr: readonly [number, number];
  readonly runs: number;
  /** Largest |output − ORT's output| where the column computes the same model with the same weights. */
  readonly maxDiffVsOrt?: number;
}

/** What the page reports. */
export interface WebBenchResult {
  readonly userAgent: string;
  readonly isolated: boolean;
  readonly threads: {
    readonly burn: number;
    readonly ort: number;
    readonly tfjs: number;
    readonly burnVariant: string;
  };
  readonly cells: readonly Cell[];
  /** Per-layer milliseconds of burn-ts's MNIST model (batch 64), each layer's output awaited. */
  readonly burnMnistLayers: Record<string, number>;
  /** Arrays burn-ts's CPU pool handed back per MNIST b64 run, per path. */
  readonly burnPoolReusePerRun: Record<string, number>;
}

const params = new URLSearchParams(location.search);
/** Threads per runtime; 0: the page's cores (`navigator.hardwareConcurrency`). */
const THREADS = Number(params.get('threads') ?? '1') || navigator.hardwareConcurrency || 1;
const ONLY = params.get('only');
const IMPL = params.get('impl');
const BUDGET_MS = Number(params.get('budget') ?? '2000');

/** A column of a row: its run (awaited) and warm-up runs. */
interface Entry {
  readonly impl: string;
  readonly run: () => Promise<unknown>;
  readonly warmup?: number;
  readonly maxDiffVsOrt?: number;
}

/**
 * Times a row's columns interleaved — one run of each per round (the mean of a few when the
 * fastest warm-up run took under 2 ms), so load from elsewhere on the machine hits every column
 * alike — after their warm-up runs, for at least 5 rounds and until
 * `BUDGET_MS` per column or 200 rounds. `?impl=` keeps only the columns containing it.
 */
async function measureRow(row: string, entries: readonly Entry[]): Promise<Cell[]> {
  const active = entries.filter((e) => IMPL === null || e.impl.includes(IMPL));
  console.log(`measuring ${row}: ${active.map((e) => e.impl).join(', ')}`);
  let fastest = Infinity;
  for (const e of active)
    for (let i = 0; i < (e.warmup ?? 3); i++) {
      const t0 = performance.now();
      await e.run();
      fastest = Math.min(fastest, performance.now() - t0);
    }
  // A page that is not cross-origin isolated clamps performance.now() to 0.1 ms: sub-millisecond
  // runs are timed several at a time (the same count for every column of the row).
  const reps = Math.max(1, Math.min(10, Math.ceil(2 / Math.max(fastest, 0.05))));
  // run.ts --profile exposes this hook: the profile covers the timed rounds only.
  const profile = (globalThis as { benchProfile?: (what: 'start' | 'stop') => Promise<void> }).benchProfile;
  await profile?.('start');
  const times = active.map((): number[] => []);
  const start = performance.now();
  for (let round = 0; round < 5 || (performance.now() - start < BUDGET_MS * active.length && round < 200); round++) {
    for (const [k, e] of active.entries()) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) await e.run();
      times[k]!.push((performance.now() - t0) / reps);
    }
  }
  await profile?.('stop');
  return active.map((e, k) => {
    const t = times[k]!.sort((x, y) => x - y);
    const q = (f: number) => t[Math.min(t.length - 1, Math.floor(f * t.length))]!;
    return {
      row,
      impl: e.impl,
      median: q(0.5),
      iqr: [q(0.25), q(0.75)] as const,
      runs: t.length * reps,
      ...(e.maxDiffVsOrt === undefined ? {} : { maxDiffVsOrt: e.maxDiffVsOrt }),
    };
  });
}

/** Deterministic values in [lo, hi). */
function values(n: number, seed: number, lo = 0, hi = 1): Float32Array {
  const out = new Float32Array(n);
  let s = (seed * 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (hi - lo) * (s / 2 ** 32);
  }
  return out;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

// ---------------------------------------------------------------------------------------------
// burn-ts: the MNIST example's model (examples/mnist/model.ts; dropout is the identity here).

class MnistModel extends Module {
  conv1: Conv2d;
  conv2: Conv2d;
  pool: AdaptiveAvgPool2d = new AdaptiveAvgPool2dConfig({ outputSize: [8, 8] }).init();
  linear1: Linear;
  linear2: Linear;
  activation = new Relu();

  constructor(device: Device) {
    super();
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.linear1 = new LinearConfig({ dInput: 16 * 8 * 8, dOutput: 512 }).init(device);
    this.linear2 = new LinearConfig({ dInput: 512, dOutput: 10 }).init(device);
  }

  /** The layers in order, each a function of the previous output (so the profile can await each). */
  steps(batch: number): [string, (x: Tensor<4>) => Tensor<4>][] {
    const flat = (f: (y: Tensor<2>) => Tensor<2>) => (x: Tensor<4>) =>
      f(x.reshape([batch, -1]) as Tensor<2>).reshape([batch, -1, 1, 1]) as Tensor<4>;
    return [
      ['conv1', (x) => this.conv1.forward(x)],
      ['conv2', (x) => this.conv2.forward(x)],
      ['relu', (x) => this.activation.forward(x)],
      ['adaptive pool', (x) => this.pool.forward(x)],
      ['linear1 + relu', flat((y) => this.activation.forward(this.linear1.forward(y)))],
      ['linear2', flat((y) => this.linear2.forward(y))],
    ];
  }

  /** Images `[batch, 28, 28]` → logits `[batch, 10]`. */
  forward(images: Tensor<3>): Tensor<2> {
    const [batch, height, width] = images.dims();
    let x = images.reshape([batch, 1, height, width]) as Tensor<4>;
    for (const [, step] of this.steps(batch)) x = step(x);
    return x.reshape([batch, 10]) as Tensor<2>;
  }
}

// ---------------------------------------------------------------------------------------------
// tfjs: the same models from tfjs-core ops (tfjs-core has no layers API), NHWC (its native layout).

type T4 = tf.Tensor4D;

function tfMnist(): { vars: tf.Variable[]; forward: (images: tf.Tensor3D) => tf.Tensor2D } {
  const v = (shape: number[], scale: number, seed: number) =>
    tf.variable(
      tf.tensor(
        values(
          shape.reduce((a, b) => a * b, 1),
          seed,
          -scale,
          scale,
        ),
        shape,
      ),
    );
  const w1 = v([3, 3, 1, 8], 1 / 3, 1),
    b1 = v([8], 0.1, 2);
  const w2 = v([3, 3, 8, 16], 1 / Math.sqrt(72), 3),
    b2 = v([16], 0.1, 4);
  const w3 = v([1024, 512], 1 / 32, 5),
    b3 = v([512], 0.1, 6);
  const w4 = v([512, 10], 1 / Math.sqrt(512), 7),
    b4 = v([10], 0.1, 8);
  return {
    vars: [w1, b1, w2, b2, w3, b3, w4, b4],
    forward: (images) => {
      const [batch] = images.shape;
      let x = tf.reshape(images, [batch, 28, 28, 1]) as T4;
      x = tf.add(tf.conv2d(x, w1 as tf.Variable<tf.Rank.R4>, 1, 'valid'), b1);
      x = tf.relu(tf.add(tf.conv2d(x, w2 as tf.Variable<tf.Rank.R4>, 1, 'valid'), b2));
      x = tf.avgPool(x, 3, 3, 'valid'); // adaptive 24×24 → 8×8 is a 3×3 average pool, stride 3
      // Flatten in NCHW order so the layout matches the PyTorch/burn-ts model's Linear input.
      const flat = tf.reshape(tf.transpose(x, [0, 3, 1, 2]), [batch, 1024]) as tf.Tensor2D;
      const h = tf.relu(tf.add(tf.matMul(flat, w3 as tf.Variable<tf.Rank.R2>), b3)) as tf.Tensor2D;
      return tf.add(tf.matMul(h, w4 as tf.Variable<tf.Rank.R2>), b4) as tf.Tensor2D;
    },
  };
}

/** ResNet-18 (torchvision's layout, batch norm folded into the convolutions as ONNX export does) with random weights. */
function tfResnet18(): (image: T4) => tf.Tensor2D {
  let seed = 100;
  const conv = (k: number, cin: number, cout: number, stride: number) => {
    const w = tf.tensor4d(values(k * k * cin * cout, seed++, -1 / Math.sqrt(k * k * cin), 1 / Math.sqrt(k * k * cin)), [
      k,
      k,
      cin,
      cout,
    ]);
    const b = tf.tensor1d(values(cout, seed++, -0.1, 0.1));
    const pad = (k - 1) >> 1;
    return (x: T4) => tf.add(tf.conv2d(x, w, stride, pad), b) as T4;
  };
  const block = (cin: number, cout: number, stride: number) => {
    const c1 = conv(3, cin, cout, stride),
      c2 = conv(3, cout, cout, 1);
    const down = stride !== 1 || cin !== cout ? conv(1, cin, cout, stride) : undefined;
    return (x: T4) => tf.relu(tf.add(c2(tf.relu(c1(x))), down ? down(x) : x)) as T4;
  };
  const stem = conv(7, 3, 64, 2);
  const blocks = [
    block(64, 64, 1),
    block(64, 64, 1),
    block(64, 128, 2),
    block(128, 128, 1),
    block(128, 256, 2),
    block(256, 256, 1),
    block(256, 512, 2),
    block(512, 512, 1),
  ];
  const fcW = tf.tensor2d(values(512 * 1000, seed++, -1 / Math.sqrt(512), 1 / Math.sqrt(512)), [512, 1000]);
  const fcB = tf.tensor1d(values(1000, seed++, -0.1, 0.1));
  return (image) => {
    let x = tf.relu(stem(image)) as T4;
    x = tf.maxPool(x, 3, 2, 1);
    for (const b of blocks) x = b(x);
    const pooled = tf.mean(x, [1, 2]) as tf.Tensor2D;
    return tf.add(tf.matMul(pooled, fcW), fcB) as tf.Tensor2D;
  };
}

// ---------------------------------------------------------------------------------------------

async function run(): Promise<WebBenchResult> {
  const cells: Cell[] = [];
  const want = (row: string) => ONLY === null || row.includes(ONLY);
  const add = async (row: string, entries: readonly Entry[]) => cells.push(...(await measureRow(row, entries)));

  // Engines.
  const wasm = await Device.cpuAsync({ engine: 'wasm' });
  const runtime = wasmRuntime();
  if (!runtime) throw new Error(`burn-ts's wasm engine did not load (${wasm.toString()})`);
  ort.env.wasm.wasmPaths = new URL('/ort/', location.href).href;
  ort.env.wasm.numThreads = THREADS;
  setWasmPaths(new URL('/tfjs/', location.href).href);
  setThreadsCount(THREADS);
  await tf.setBackend('wasm');
  await tf.ready();
  tf.enableProdMode();

  const ortSession = async (url: string) =>
    ort.InferenceSession.create(await fetchBytes(url), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const ortRun = async (s: ort.InferenceSession, input: Float32Array, shape: number[]) => {
    const out = await s.run({ [s.inputNames[0]!]: new ort.Tensor('float32', input, shape) });
    return out[s.outputNames[0]!]!.data as Float32Array;
  };
  const burnRun = async (forward: () => Tensor<number>) => {
    const out = forward();
    const data = (await out.toData()).values as Float32Array;
    out.dispose();
    return data;
  };
  const tfRun = async (forward: () => tf.Tensor) => {
    const out = tf.tidy(forward);
    const data = await out.data();
    out.dispose();
    return data as Float32Array;
  };

  // MNIST inference: burn-ts nn module, burn-ts loadOnnx, ORT, tfjs.
  const mnistOrt = await ortSession('/models/mnist.onnx');
  const mnistOnnx = await loadOnnx(await fetchBytes('/models/mnist.onnx'), wasm);
  const mnistBurn = new MnistModel(wasm);
  const mnistTf = tfMnist();
  let burnMnistLayers: Record<string, number> = {};
  const burnPoolReusePerRun: Record<string, number> = {};
  for (const batch of [1, 64]) {
    const row = `MNIST inference b${batch}`;
    if (!want(row)) continue;
    const input = values(batch * 28 * 28, 11 + batch);
    const x = Tensor.fromData(new TensorData(input, [batch, 28, 28], 'f32'), wasm) as Tensor<3>;
    const xTf = tf.tensor3d(input, [batch, 28, 28]);
    const reference = await ortRun(mnistOrt, input, [batch, 28, 28]);
    const onnxOut = await burnRun(() => mnistOnnx.run({ images: x })['logits']!);
    const peers: Entry[] = [
      { impl: 'onnxruntime-web wasm', run: () => ortRun(mnistOrt, input, [batch, 28, 28]) },
      { impl: 'tfjs wasm', run: () => tfRun(() => mnistTf.forward(xTf)) },
    ];
    await add(row, [
      // In a Tensor.scope, as the Learner runs its steps: the intermediates go back to the CPU pool
      // when it ends and the next run reuses them.
      { impl: 'burn-ts wasm (nn module)', run: () => burnRun(() => Tensor.scope(() => mnistBurn.forward(x))) },
      {
        impl: 'burn-ts wasm (loadOnnx)',
        run: () => burnRun(() => mnistOnnx.run({ images: x })['logits']!),
        maxDiffVsOrt: maxDiff(onnxOut, reference),
      },
      ...peers,
    ]);
    // Unscoped, the intermediates wait for the garbage collector and every run's outputs are fresh
    // arrays (zeroed, first-touch page faults). A row of its own: interleaved with the scoped
    // column, it took the arrays the scoped run had just released, and the scoped run then
    // allocated fresh ones every time.
    await add(`${row}, unscoped`, [
      { impl: 'burn-ts wasm (nn module, unscoped)', run: () => burnRun(() => mnistBurn.forward(x)) },
      ...peers,
    ]);
    if (batch === 64 && (IMPL === null || 'burn-ts'.includes(IMPL))) {
      // Where burn-ts's time goes: each layer's output awaited in turn (median of 20).
      const per: Record<string, number[]> = {};
      for (let i = 0; i < 20; i++) {
        let h = x.reshape([batch, 1, 28, 28]) as Tensor<4>;
        for (const [name, step] of mnistBurn.steps(batch)) {
          const t0 = performance.now();
          const next = step(h);
          await next.toData();
          (per[name] ??= []).push(performance.now() - t0);
          h.dispose();
          h = next;
        }
        h.dispose();
      }
      burnMnistLayers = Object.fromEntries(
        Object.entries(per).map(([k, v]) => [k, v.sort((a, b) => a - b)[v.length >> 1]!]),
      );
      // How many output arrays the CPU pool hands back per run, per path (10 runs each).
      const reused = () => (wasm.info().pool as { reused: number } | undefined)?.reused ?? NaN;
      for (const [name, f] of [
        ['nn module', () => Tensor.scope(() => mnistBurn.forward(x))],
        ['nn module, unscoped', () => mnistBurn.forward(x)],
        ['loadOnnx', () => mnistOnnx.run({ images: x })['logits']!],
      ] as const) {
        const before = reused();
        for (let i = 0; i < 10; i++) await burnRun(f);
        burnPoolReusePerRun[name] = (reused() - before) / 10;
      }
    }
    x.dispose();
    xTf.dispose();
  }

  // ResNet-18 inference, batch 1.
  const resnetRow = 'ResNet-18 inference b1';
  if (want(resnetRow)) {
    const row = resnetRow;
    const input = values(3 * 224 * 224, 21);
    const resOrt = await ortSession('/models/resnet18.onnx');
    const resBurn = await loadOnnx(await fetchBytes('/models/resnet18.onnx'), wasm);
    const x = Tensor.fromData(new TensorData(input, [1, 3, 224, 224], 'f32'), wasm) as Tensor<4>;
    const reference = await ortRun(resOrt, input, [1, 3, 224, 224]);
    const burnOut = await burnRun(() => resBurn.run({ image: x })['logits']!);
    const resTf = tfResnet18();
    const xTf = tf.tensor4d(input, [1, 224, 224, 3]);
    await add(row, [
      {
        impl: 'burn-ts wasm (loadOnnx)',
        run: () => burnRun(() => resBurn.run({ image: x })['logits']!),
        warmup: 2,
        maxDiffVsOrt: maxDiff(burnOut, reference),
      },
      { impl: 'onnxruntime-web wasm', run: () => ortRun(resOrt, input, [1, 3, 224, 224]), warmup: 2 },
      { impl: 'tfjs wasm', run: () => tfRun(() => resTf(xTf)), warmup: 2 },
    ]);
    xTf.dispose();
    x.dispose();
    await resOrt.release();
  }

  // Training step: MNIST model, batch 64, cross-entropy, Adam (lr 1e-3).
  const trainRow = 'MNIST training step b64';
  if (want(trainRow)) {
    const row = trainRow;
    const batch = 64;
    const input = values(batch * 28 * 28, 31);
    const labels = Array.from({ length: batch }, (_, i) => (i * 7) % 10);
    const ad = wasm.autodiff();
    let model = new MnistModel(ad);
    const optim = new AdamConfig({}).init<MnistModel>();
    const loss = new CrossEntropyLossConfig().init(ad);
    const images = Tensor.fromData(new TensorData(input, [batch, 28, 28], 'f32'), ad) as Tensor<3>;
    const targets = Tensor.fromInts(labels, ad) as Tensor<1, Int>;
    const burnStep = async () => {
      const { l, grads } = Tensor.scope(() => {
        const l = loss.forward(model.forward(images), targets) as Tensor<1, Float>;
        return { l, grads: GradientsParams.fromGrads(l.backward(), model) };
      });
      await l.intoScalar();
      model = optim.step(1e-3, model, grads);
    };
    // tfjs-backend-wasm has no Conv2DBackpropFilter kernel, so tfjs trains a conv net in a page
    // on its cpu backend (plain JS kernels) when there is no WebGL/WebGPU.
    await tf.setBackend('cpu');
    const net = tfMnist();
    const opt = tf.train.adam(1e-3);
    const xs = tf.tensor3d(input, [batch, 28, 28]);
    const ys = tf.oneHot(tf.tensor1d(labels, 'int32'), 10);
    const tfStep = async () => {
      const cost = opt.minimize(() => tf.losses.softmaxCrossEntropy(ys, net.forward(xs)) as tf.Scalar, true, net.vars)!;
      await cost.data();
      cost.dispose();
    };
    await add(row, [
      { impl: 'burn-ts wasm (autodiff, Adam)', run: burnStep, warmup: 5 },
      { impl: 'tfjs cpu (variableGrads, Adam)', run: tfStep, warmup: 1 },
    ]);
    await tf.setBackend('wasm');
  }

  return {
    userAgent: navigator.userAgent,
    isolated: crossOriginIsolated,
    threads: {
      burn: runtime.threads,
      ort: ort.env.wasm.numThreads ?? 0,
      tfjs: THREADS,
      burnVariant: runtime.threads > 1 ? 'mt' : 'st',
    },
    cells,
    burnMnistLayers,
    burnPoolReusePerRun,
  };
}

(globalThis as { benchResult?: unknown }).benchResult = run().catch((e: unknown) => ({
  error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e),
}));
