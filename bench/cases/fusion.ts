/**
 * Kernel fusion (issue 21): the same work on a device and on its fused device (`device.fusion()`),
 * in one run, as a speed ratio (unfused time ÷ fused time: above 1, fusion pays). No peer runs
 * "the same library with and without fusion", so this family prints its own table after the main
 * one (as the data family does), with PyTorch beside the transformer rows.
 *
 * Rows (issue 21's targets in the last column):
 * - **chain**: `x.mul(0.5).add(1).exp().sub(x).tanh().mul(x).add(0.25).sigmoid()` on 4M f32 inside
 *   `Tensor.scope`, the result read into a host array (`toData`) and disposed; native, wasm, js
 *   engines and WebGPU [≥ 3× native, wasm, WebGPU].
 * - **gelu-layernorm**: `LayerNorm(gelu(x))` over `[64, 128, 512]` (nn's LayerNorm, γ = 1, β = 0),
 *   result read [≥ 2×].
 * - **softmax**: `scores.mul(1/√128).softmax(-1)` of `[32, 8, 128, 128]`, result read [≥ 1.5×].
 * - **transformer**: nn's TransformerEncoder (2 layers, d_model 128, 4 heads, d_ff 512, GELU,
 *   post-norm, dropout 0) on `[16, 64, 128]`, loss `mean((out − target)²)`, Adam (lr 1e-3, ε 1e-5);
 *   training step (forward, backward and `GradientsParams.fromGrads` in `Tensor.scope`, the loss
 *   read, `optimizer.step`) and inference (forward in a scope, output read), native engine:
 *   unfused, fused and PyTorch 1.13 (bench/torch_fusion.py, 2 threads, its fused inference
 *   path) [train ≥ 1.2× PyTorch and ≥ 1.3× unfused; inference ≥ 1.0× PyTorch]. The first three
 *   losses of fresh unfused and fused models (same initial weights) are printed side by side.
 * - **convnet**: the seed MNIST ConvNet training step (bench/impls/burn-train.ts, batch 64) and
 *   its inference (batch 64, logits read), native engine [fused not slower].
 * - **webgpu dispatches**: dispatches of one transformer training step on WebGPU, unfused and
 *   fused, from the runtime's counters (`device.info().stream.dispatches`).
 *
 * Timing: each side warms up (≥ 2 calls and `warmupSeconds`), then unfused and fused calls
 * alternate in back-to-back pairs until the budget is spent; times are medians, the ratio is the
 * median of the pairs' ratios. Each row also compares the values and reports what one fused call
 * did (`info().fusion` counters). A cell is `n/a` with the reason when a device is missing; WebGPU
 * on a software adapter runs only the chain, once.
 *
 * `npm run bench` runs it after the main table when there is no `--filter` or one of the filters
 * is part of {@link FUSION_BENCH_KEYWORDS}; `node --import tsx bench/cases/fusion.ts [--quick]
 * [--filter chain,transformer]` runs it alone.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Device, Module, Tensor, TensorData, type Float } from '../../src/index.js';
import {
  Conv2d,
  Conv2dConfig,
  LayerNormConfig,
  Linear,
  LinearConfig,
  MaxPool2d,
  MaxPool2dConfig,
  TransformerEncoderConfig,
  TransformerEncoderInput,
  type TransformerEncoder,
} from '../../src/nn/index.js';
import { AdamConfig, GradientsParams } from '../../src/optim/index.js';
import { prepareTrain } from '../impls/burn-train.js';
import { parseArgs } from '../lib/cli.js';
import { inputValues } from '../lib/data.js';
import { errorText } from '../lib/measure.js';
import { trainCases } from './train.js';
import { FOUR_M, inputsOf } from './common.js';

/** Words that select this family with `--filter`. */
export const FUSION_BENCH_KEYWORDS = 'fusion fused chain gelu-layernorm softmax transformer convnet dispatches';

/** The devices of the micro rows, in column order. */
const ALL_DEVICES = ['native', 'wasm', 'js', 'webgpu'] as const;
type DeviceName = (typeof ALL_DEVICES)[number];
/** `BENCH_FUSION_DEVICES=webgpu` (comma-separated) runs the micro rows on those devices only (a GPU machine's script). */
const DEVICES: readonly DeviceName[] = (() => {
  const only = process.env['BENCH_FUSION_DEVICES']?.split(',').map((d) => d.trim());
  return only ? ALL_DEVICES.filter((d) => only.includes(d)) : ALL_DEVICES;
})();

/** Transformer shape of the issue (and bench/torch_fusion.py). */
const TF = { dModel: 128, nHeads: 4, dFf: 512, nLayers: 2, batch: 16, seq: 64, lr: 1e-3 } as const;

/** How long to measure one side. */
interface Budget {
  readonly warmupSeconds: number;
  readonly budgetSeconds: number;
  readonly minPairs: number;
  readonly maxPairs: number;
  /** Rounds of the transformer rows (ours, then PyTorch's; samples pooled). */
  readonly rounds: number;
  /** Least untimed calls of each side. */
  readonly minWarmup: number;
}
const FULL: Budget = { warmupSeconds: 0.5, budgetSeconds: 3, minPairs: 5, maxPairs: 200, rounds: 2, minWarmup: 2 };
/** WebGPU on a software adapter: one warm-up call and one timed pair. */
const SOFTWARE: Budget = {
  warmupSeconds: 0,
  budgetSeconds: 0,
  minPairs: 1,
  maxPairs: 1,
  rounds: 1,
  minWarmup: 1,
};
const QUICK: Budget = { warmupSeconds: 0.2, budgetSeconds: 0.8, minPairs: 3, maxPairs: 50, rounds: 1, minWarmup: 2 };

/** A timed call; resolves when its result is on the host (or the device finished). */
type Body = () => Promise<unknown>;

/** Why a row cannot run (printed as `n/a`). */
class Skip extends Error {}

const now = (): number => Number(process.hrtime.bigint()) / 1e9;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The fused device of `device` (issue 21's decorator). */
function fusedOf(device: Device): Device {
  return device.fusion();
}

/** The unfused device: `{ fusion: false }` where devices fuse by default. */
async function plainDevice(name: DeviceName): Promise<Device> {
  try {
    if (name === 'webgpu') return await Device.webgpu({ fusion: false });
    return Device.cpu({ engine: name, fusion: false });
  } catch (e) {
    throw new Skip(`${name} unavailable: ${errorText(e).split('\n')[0]}`);
  }
}

/** The fused device's counters (`info().fusion`: programs, fused, replays, direct…), when it has them. */
function fusionCounters(device: Device): Record<string, number> | undefined {
  return (device.info() as { fusion?: Record<string, number> }).fusion;
}

/**
 * What one call does on the fused device, from its counters: programs run as one kernel, replayed
 * op by op, and single ops run directly (e.g. `3 fused, 0 replayed, 2 direct`).
 */
async function perCall(device: Device, body: Body): Promise<string> {
  const before = fusionCounters(device);
  await body();
  const after = fusionCounters(device);
  if (!before || !after) return 'no fusion counters';
  const d = (k: string): number => (after[k] ?? 0) - (before[k] ?? 0);
  return `${d('fused')} fused, ${d('replays')} replayed, ${d('direct')} direct per call`;
}

/** True for a WebGPU device on a software adapter (SwiftShader): timings are functional only. */
function isSoftware(device: Device): boolean {
  return (device.info() as { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
}

/** Times `a` and `b` alternately (after each warms up); seconds per call of each. */
async function timePair(a: Body, b: Body, budget: Budget): Promise<[number[], number[]]> {
  for (const f of [a, b]) {
    const start = now();
    for (let i = 0; i < budget.minWarmup || now() - start < budget.warmupSeconds; i++) await f();
  }
  const sa: number[] = [];
  const sb: number[] = [];
  const start = now();
  while (sa.length < budget.minPairs || (sa.length < budget.maxPairs && now() - start < budget.budgetSeconds)) {
    // Alternate which goes first, so a load change or a pool warmed by the first is shared.
    const order = sa.length % 2 === 0 ? [a, b] : [b, a];
    for (const f of order) {
      const t0 = now();
      await f();
      (f === a ? sa : sb).push(now() - t0);
    }
  }
  return [sa, sb];
}

/** Largest |a − b| relative to max |a| (1e-30 floor). */
function relDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let d = 0;
  let m = 1e-30;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i]! - b[i]!));
    m = Math.max(m, Math.abs(a[i]!));
  }
  return d / m;
}

async function floats(t: Tensor<number>): Promise<Float32Array> {
  const v = (await t.toData()).values;
  return v instanceof Float32Array ? v : Float32Array.from(v as ArrayLike<number>);
}

/** A micro row: an op on an input, its result read. */
interface MicroCase {
  readonly id: string;
  readonly title: string;
  readonly shape: readonly number[];
  readonly target: number;
  /** Targets of this row apply to these devices (the js engine's ratio is for information). */
  readonly targetOn: readonly DeviceName[];
  /** The op on one device; `setup` makes its parameters (outside the timing). */
  readonly make: (device: Device) => (x: Tensor<number>) => Tensor<number>;
}

const MICRO: readonly MicroCase[] = [
  {
    id: 'fusion/chain',
    title: '8-op elementwise chain, 4M f32',
    shape: [FOUR_M],
    target: 3,
    targetOn: ['native', 'wasm', 'webgpu'],
    make: () => (x) => x.mul(0.5).add(1).exp().sub(x).tanh().mul(x).add(0.25).sigmoid(),
  },
  {
    id: 'fusion/gelu-layernorm',
    title: 'GELU then LayerNorm, [64, 128, 512]',
    shape: [64, 128, 512],
    target: 2,
    targetOn: ['native', 'wasm', 'webgpu'],
    make: (device) => {
      const norm = new LayerNormConfig({ dModel: 512 }).init(device);
      return (x) => norm.forward(x.gelu());
    },
  },
  {
    id: 'fusion/softmax',
    title: 'softmax of scaled scores, [32, 8, 128, 128]',
    shape: [32, 8, 128, 128],
    target: 1.5,
    targetOn: ['native', 'wasm', 'webgpu'],
    make: () => (x) => x.mul(1 / Math.sqrt(128)).softmax(-1),
  },
];

/** One printed row. */
interface Row {
  readonly title: string;
  readonly device: string;
  readonly unfused: string;
  readonly fused: string;
  readonly ratio: string;
  readonly target: string;
}

const ms = (s: number): string => (s * 1e3 >= 100 ? (s * 1e3).toFixed(0) : (s * 1e3).toPrecision(3));

/**
 * A row of paired samples (`u[i]` and `f[i]` ran back to back): the ratio is the median of the
 * pairs' ratios, which a load change between pairs moves less than the ratio of the medians.
 */
function ratioRow(title: string, device: string, u: number[], f: number[], target: number | undefined): Row {
  const ratio = median(u.map((v, i) => v / f[i]!));
  return {
    title,
    device,
    unfused: `${ms(median(u))} ms`,
    fused: `${ms(median(f))} ms`,
    ratio: `${ratio.toFixed(2)}×`,
    target: target === undefined ? '' : `≥ ${target}× ${ratio >= target ? '✓' : '✗'}`,
  };
}

function naRow(title: string, device: string, why: string): Row {
  return { title, device, unfused: 'n/a', fused: 'n/a', ratio: '', target: why };
}

async function runMicro(c: MicroCase, name: DeviceName, budget: Budget, log: (s: string) => void): Promise<Row> {
  const plain = await plainDevice(name);
  const fused = fusedOf(plain);
  if (name === 'webgpu' && isSoftware(plain)) {
    // SwiftShader runs these sizes in seconds to tens of seconds a call: the chain once, as a
    // functional check and a rough ratio; the rest belong on a GPU.
    if (c.id !== 'fusion/chain') throw new Skip('software adapter (SwiftShader): tens of seconds a call; run on a GPU');
    budget = SOFTWARE;
  }
  const values = inputValues(inputsOf(c.shape)[0]!);
  const sides = [plain, fused].map((device) => {
    const x = Tensor.fromData<number>(new TensorData(values, c.shape, 'f32'), device);
    const op = c.make(device);
    let last: Float32Array | undefined;
    const body: Body = async () => {
      const y = Tensor.scope(() => op(x));
      last = await floats(y);
      y.dispose();
    };
    return { body, last: () => last };
  });
  const [u, f] = await timePair(sides[0]!.body, sides[1]!.body, budget);
  const diff = relDiff(sides[0]!.last()!, sides[1]!.last()!);
  const blocks = await perCall(fused, sides[1]!.body);
  const row0 = ratioRow(c.title, name, u, f, c.targetOn.includes(name) ? c.target : undefined);
  const row = { ...row0, target: row0.target ? `${row0.target}; ${blocks}` : blocks };
  log(
    `[fusion] ${c.title} · ${name}: unfused ${row.unfused}, fused ${row.fused}, ${row.ratio}; max rel diff ${diff.toExponential(1)}`,
  );
  if (!(diff <= 1e-4)) return { ...row, target: `${row.target} ≠ values differ (${diff.toExponential(1)})` };
  return row;
}

// --- transformer ---------------------------------------------------------------------------

/** The encoder with seeded initial weights on `device` (the same values on every device). */
function encoderOn(device: Device): TransformerEncoder {
  const cpu = Device.cpu({ engine: 'js', fusion: false });
  cpu.seed(2026);
  const model = new TransformerEncoderConfig({
    dModel: TF.dModel,
    nHeads: TF.nHeads,
    dFf: TF.dFf,
    nLayers: TF.nLayers,
    dropout: 0,
  }).init(cpu);
  return model.toDevice(device);
}

function tfTensors(device: Device): { x: Tensor<3>; target: Tensor<3> } {
  const shape = [TF.batch, TF.seq, TF.dModel];
  const [xs, ts] = inputsOf(shape, shape).map(inputValues);
  return {
    x: Tensor.fromData<3>(new TensorData(xs!, shape, 'f32'), device),
    target: Tensor.fromData<3>(new TensorData(ts!, shape, 'f32'), device),
  };
}

/** A training run of the encoder on `device` (its autodiff device is used). */
function tfTrainer(device: Device) {
  const ad = device.autodiff();
  let model = encoderOn(ad);
  const { x, target } = tfTensors(ad);
  const optim = new AdamConfig({}).init<TransformerEncoder>();
  return {
    async step(): Promise<number> {
      const { l, grads } = Tensor.scope(() => {
        const out = model.forward(new TransformerEncoderInput(x));
        const l = out.sub(target).square().mean();
        return { l, grads: GradientsParams.fromGrads(l.backward(), model) };
      });
      const value = await l.intoScalar();
      l.dispose();
      model = optim.step(TF.lr, model, grads);
      return value;
    },
  };
}

/** Inference of the encoder on `device`: the output read. */
function tfInfer(device: Device): Body {
  const model = encoderOn(device);
  const { x } = tfTensors(device);
  return async () => {
    const y = Tensor.scope(() => model.forward(new TransformerEncoderInput(x)));
    await y.toData();
    y.dispose();
  };
}

/** PyTorch's OpenMP wait policy (`BENCH_TORCH_OMP_WAIT_POLICY` overrides; `ACTIVE` is OpenMP's spinning). */
const TORCH_OMP_WAIT = process.env['BENCH_TORCH_OMP_WAIT_POLICY'] || 'PASSIVE';

/** PyTorch's transformer rows (bench/torch_fusion.py): seconds per call of each. */
async function torchTransformer(budget: Budget): Promise<{ train: number[]; infer: number[]; version: string }> {
  const python = process.env['BENCH_PYTHON'] || '/usr/bin/python3';
  const env = { ...process.env };
  // OpenBLAS picks its own kernels (as bench/impls/torch.ts runs PyTorch).
  delete env['OPENBLAS_CORETYPE'];
  delete env['OPENBLAS_L2_SIZE'];
  // OpenMP's threads wait passively: with the default (spinning) wait, PyTorch's step is 10-30×
  // slower whenever the machine has more runnable threads than cores (a shared 2-core machine).
  env['OMP_WAIT_POLICY'] = TORCH_OMP_WAIT;
  const script = fileURLToPath(new URL('../torch_fusion.py', import.meta.url));
  const cfg = JSON.stringify({
    warmup_s: Math.max(1, budget.warmupSeconds * 2),
    budget_s: budget.budgetSeconds,
    min_runs: budget.minPairs,
    max_runs: budget.maxPairs,
  });
  const out = await new Promise<string>((resolve, reject) => {
    const proc = spawn(python, [script, cfg], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('error', reject);
    proc.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Skip(`torch_fusion.py exited ${code}: ${stderr.trim().split('\n').pop()}`)),
    );
  });
  return JSON.parse(out.trim().split('\n').pop()!) as { train: number[]; infer: number[]; version: string };
}

async function runTransformer(budget: Budget, log: (s: string) => void): Promise<Row[]> {
  const title = 'transformer encoder (2 × d128, 4 heads, ff 512), 16 × 64';
  const plain = await plainDevice('native');
  const fused = fusedOf(plain);

  // Same losses: fresh models with the same initial weights, three steps each.
  const lu: number[] = [];
  const lf: number[] = [];
  const tu = tfTrainer(plain);
  const tf = tfTrainer(fused);
  for (let i = 0; i < 3; i++) {
    lu.push(await tu.step());
    lf.push(await tf.step());
  }
  const lossDiff = Math.max(...lu.map((v, i) => Math.abs(v - lf[i]!) / Math.abs(v)));
  log(`[fusion] transformer losses, unfused: ${lu.map((v) => v.toFixed(6)).join(' ')}`);
  log(
    `[fusion] transformer losses, fused:   ${lf.map((v) => v.toFixed(6)).join(' ')} (max rel diff ${lossDiff.toExponential(1)})`,
  );

  // Rounds of [ours, PyTorch's], samples pooled: the machine's load changes within a run, and
  // PyTorch's OpenMP threads suffer most from it, so each side sees every phase of the load.
  const trainU: number[] = [];
  const trainF: number[] = [];
  const inferU: number[] = [];
  const inferF: number[] = [];
  const [inferBodyU, inferBodyF] = [tfInfer(plain), tfInfer(fused)];
  let torch: { train: number[]; infer: number[]; version: string } | string = 'not run';
  for (let round = 0; round < budget.rounds; round++) {
    const [a, b] = await timePair(
      () => tu.step(),
      () => tf.step(),
      budget,
    );
    const [c, d] = await timePair(inferBodyU, inferBodyF, budget);
    trainU.push(...a);
    trainF.push(...b);
    inferU.push(...c);
    inferF.push(...d);
    // A pause, so the engine's idle threads stop spinning before PyTorch starts.
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      const t = await torchTransformer(budget);
      torch =
        typeof torch === 'string'
          ? t
          : { ...t, train: [...torch.train, ...t.train], infer: [...torch.infer, ...t.infer] };
    } catch (e) {
      torch = errorText(e);
      break;
    }
  }
  const rows: Row[] = [];
  const lossNote = lossDiff <= 1e-4 ? 'same losses' : `≠ losses differ (${lossDiff.toExponential(1)})`;
  const trainBlocks = await perCall(fused, () => tf.step());
  const inferBlocks = await perCall(fused, inferBodyF);
  const trainRow = ratioRow(`${title}: training step`, 'native', trainU, trainF, 1.3);
  rows.push({ ...trainRow, target: `${trainRow.target}; ${lossNote}; ${trainBlocks}` });
  rows.push({ ...ratioRow(`${title}: inference`, 'native', inferU, inferF, undefined), target: inferBlocks });
  if (typeof torch === 'string') {
    rows.push(naRow(`${title}: PyTorch`, 'torch', torch));
  } else {
    const vs = (ours: number[], theirs: number[], target: number, what: string): Row => {
      const r = median(theirs) / median(ours);
      return {
        title: `${title}: ${what}, fused vs PyTorch ${torch.version} (2 threads, OMP_WAIT_POLICY=${TORCH_OMP_WAIT})`,
        device: 'native / torch',
        unfused: `${ms(median(theirs))} ms (torch)`,
        fused: `${ms(median(ours))} ms`,
        ratio: `${r.toFixed(2)}×`,
        target: `≥ ${target}× ${r >= target ? '✓' : '✗'} (unfused: ${(median(theirs) / median(which(what))).toFixed(2)}×)`,
      };
    };
    const which = (what: string): number[] => (what === 'training step' ? trainU : inferU);
    rows.push(vs(trainF, torch.train, 1.2, 'training step'));
    rows.push(vs(inferF, torch.infer, 1.0, 'inference'));
  }
  for (const r of rows) log(`[fusion] ${r.title}: ${r.unfused} | ${r.fused} | ${r.ratio} ${r.target}`);
  return rows;
}

// --- the seed ConvNet ----------------------------------------------------------------------

/** "Not slower" on a shared machine: within 5% (the spread of two identical devices here). */
const NOT_SLOWER = 0.95;

/** Burn's MNIST ConvNet for inference, with the training case's initial weights. */
class MnistInference extends Module {
  conv1: Conv2d;
  conv2: Conv2d;
  pool: MaxPool2d;
  linear1: Linear;
  linear2: Linear;

  constructor(device: Device, w: readonly Tensor<number, Float>[]) {
    super();
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.pool = new MaxPool2dConfig({ kernelSize: [2, 2], strides: [2, 2] }).init();
    this.linear1 = new LinearConfig({ dInput: 16 * 12 * 12, dOutput: 64 }).init(device);
    this.linear2 = new LinearConfig({ dInput: 64, dOutput: 10 }).init(device);
    [this.conv1, this.conv2, this.linear1, this.linear2].forEach((layer, k) => {
      layer.weight = layer.weight.withTensor(w[2 * k]! as never);
      layer.bias = layer.bias!.withTensor(w[2 * k + 1]! as never);
    });
  }

  forward(images: Tensor<3>): Tensor<2> {
    const [b, h, w] = images.dims();
    let x = this.conv1.forward(images.reshape([b, 1, h, w])).relu();
    x = this.pool.forward(this.conv2.forward(x).relu());
    return this.linear2.forward(this.linear1.forward(x.reshape([b, 16 * 12 * 12])).relu());
  }
}

async function runConvNet(budget: Budget, log: (s: string) => void): Promise<Row[]> {
  const c = trainCases[0]!;
  const inputs = c.inputs.map(inputValues);
  const plain = await plainDevice('native');
  const fused = fusedOf(plain);
  const trainBudget = { ...budget, warmupSeconds: Math.max(budget.warmupSeconds, 1.5) };
  const [pu, pf] = [prepareTrain(c, inputs, plain), prepareTrain(c, inputs, fused)];
  const [cu, cf] = [await pu.output(), await pf.output()];
  const [tu, tf] = await timePair(
    async () => pu.run(),
    async () => pf.run(),
    trainBudget,
  );
  const train = ratioRow('MNIST ConvNet training step, batch 64', 'native', tu, tf, NOT_SLOWER);
  const lossDiff = relDiff(cu.subarray(0, 3), cf.subarray(0, 3));
  log(
    `[fusion] convnet losses unfused ${Array.from(cu.subarray(0, 3)).join(' ')}, fused ${Array.from(cf.subarray(0, 3)).join(' ')}`,
  );
  const infer = [plain, fused].map((device) => {
    const t = inputs.map((v, k) => Tensor.fromData<number>(new TensorData(v, c.inputs[k]!.shape, 'f32'), device));
    const model = new MnistInference(device, t.slice(1));
    const body: Body = async () => {
      const y = Tensor.scope(() => model.forward(t[0] as Tensor<3>));
      await y.toData();
      y.dispose();
    };
    return body;
  });
  const [iu, iff] = await timePair(infer[0]!, infer[1]!, budget);
  const trainBlocks = await perCall(fused, async () => pf.run());
  const inferBlocks = await perCall(fused, infer[1]!);
  const inferRow = ratioRow('MNIST ConvNet inference, batch 64', 'native', iu, iff, NOT_SLOWER);
  const rows = [
    {
      ...train,
      target: `${train.target}${lossDiff <= 1e-4 ? '; same losses' : ` ≠ losses differ (${lossDiff.toExponential(1)})`}; ${trainBlocks}`,
    },
    { ...inferRow, target: `${inferRow.target}; ${inferBlocks}` },
  ];
  for (const r of rows) log(`[fusion] ${r.title}: ${r.unfused} | ${r.fused} | ${r.ratio} ${r.target}`);
  return rows;
}

// --- WebGPU dispatches ---------------------------------------------------------------------

function dispatches(device: Device): number {
  const stream = (device.info() as { stream?: { dispatches?: number } }).stream;
  if (typeof stream?.dispatches !== 'number') throw new Skip('device.info() has no stream.dispatches');
  return stream.dispatches;
}

async function runDispatches(log: (s: string) => void): Promise<Row> {
  const title = 'WebGPU dispatches per transformer training step';
  const plain = await plainDevice('webgpu');
  const fused = fusedOf(plain);
  const counts: number[] = [];
  const losses: number[][] = [];
  for (const device of [plain, fused]) {
    const t = tfTrainer(device);
    const first = await t.step(); // pipelines compiled, pool filled
    await device.sync();
    // Both devices dispatch on the same runtime: read the counters of the plain device too.
    const before = dispatches(plain);
    const second = await t.step();
    await device.sync();
    counts.push(dispatches(plain) - before);
    losses.push([first, second]);
  }
  const lossDiff = Math.max(...losses[0]!.map((v, i) => Math.abs(v - losses[1]![i]!) / Math.abs(v)));
  log(
    `[fusion] ${title}: unfused ${counts[0]}, fused ${counts[1]}; losses unfused ${losses[0]!.join(' ')}, fused ${losses[1]!.join(' ')}`,
  );
  return {
    title,
    device: 'webgpu',
    unfused: `${counts[0]}`,
    fused: `${counts[1]}`,
    ratio: `${(counts[0]! / counts[1]!).toFixed(2)}× fewer`,
    target: lossDiff <= 1e-4 ? 'same losses' : `≠ losses differ (${lossDiff.toExponential(1)})`,
  };
}

// --- the table -----------------------------------------------------------------------------

function render(rows: readonly Row[]): string {
  const head = ['case', 'device', 'unfused', 'fused', 'unfused ÷ fused', 'target'];
  const cells = rows.map((r) => [r.title, r.device, r.unfused, r.fused, r.ratio, r.target]);
  return [head, head.map(() => '---'), ...cells].map((c) => `| ${c.join(' | ')} |`).join('\n');
}

/** Runs the fusion family and prints its table (stdout); progress goes to stderr. */
export async function runFusionBench(options: { quick: boolean; filters?: readonly string[] }): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const budget = options.quick ? QUICK : FULL;
  const filters = (options.filters ?? []).filter((f) => !['fusion', 'fused'].includes(f.toLowerCase()));
  const wants = (id: string): boolean => filters.length === 0 || filters.some((f) => id.includes(f.toLowerCase()));
  const load0 = loadavg()[0]!;
  const started = Date.now();
  const rows: Row[] = [];
  const attempt = async (title: string, device: string, f: () => Promise<Row | Row[]>): Promise<void> => {
    try {
      const r = await f();
      rows.push(...(Array.isArray(r) ? r : [r]));
    } catch (e) {
      const why = e instanceof Skip ? e.message : `failed: ${errorText(e).split('\n')[0]}`;
      log(`[fusion] ${title} · ${device}: n/a (${why})`);
      rows.push(naRow(title, device, why));
    }
  };
  for (const c of MICRO) {
    if (!wants(c.id)) continue;
    for (const name of DEVICES) await attempt(c.title, name, () => runMicro(c, name, budget, log));
  }
  if (wants('fusion/transformer')) await attempt('transformer encoder', 'native', () => runTransformer(budget, log));
  if (wants('fusion/convnet mnist')) await attempt('MNIST ConvNet', 'native', () => runConvNet(budget, log));
  if (wants('fusion/dispatches webgpu')) await attempt('WebGPU dispatches', 'webgpu', () => runDispatches(log));
  const cpu = cpus();
  console.log(`\n## Kernel fusion: fused vs unfused${options.quick ? ' (quick)' : ''}\n`);
  console.log(render(rows));
  console.log(
    `\nMedians of alternating unfused/fused calls; unfused ÷ fused: median over the back-to-back pairs (PyTorch rows: ratio of the medians), above 1: fusion is faster. Results read into host arrays inside the timing.`,
  );
  console.log(
    `- machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}; load average ${load0.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const options = parseArgs(process.argv.slice(2));
  runFusionBench({ quick: options.quick, filters: options.filters })
    .then(() => process.exit(0))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
