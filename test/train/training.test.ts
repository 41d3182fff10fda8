// The supervised training loop end to end on Device.cpu().autodiff() with a tiny linear classifier
// and a hand-written loader: plain (non-TTY) output, metric logs in Burn's layout, learning-curve
// plots, exact resume from checkpoints, early stopping, the interrupter and gradient accumulation.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Device } from '../../src/index.js';
import { AdamConfig, ExponentialLrSchedulerConfig, SgdConfig } from '../../src/optim/index.js';
import {
  AccuracyMetric,
  AurocMetric,
  CliRenderer,
  defaultRenderer,
  FileMetricLogger,
  Learner,
  LearningRateMetric,
  LossMetric,
  MetricEarlyStoppingStrategy,
  PrecisionMetric,
  SupervisedTraining,
  TrainingInterrupter,
  type Metric,
  type MetricEntry,
  type TrainingLoader,
} from '../../src/train/index.js';
import { parameters, TinyClassifier, TinyLoader, tinyData, type TinyBatch } from './helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'burn-train-'));
  dirs.push(d);
  return d;
}
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const trainData = tinyData(64, 1),
  validData = tinyData(32, 2);
const loaders = (batch = 16) =>
  [new TinyLoader(trainData, batch, device), new TinyLoader(validData, batch, device)] as const;
function model(seed = 3): TinyClassifier {
  device.seed(seed);
  return new TinyClassifier(device);
}
const quiet = () => new CliRenderer({ write: () => {} });
const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n');

describe('SupervisedTraining: output, logs and plots', () => {
  it('prints plain progress lines, epoch values and the summary when not on a terminal', async () => {
    const out: string[] = [];
    const [train, valid] = loaders();
    const result = await new SupervisedTraining(tempDir(), train, valid)
      .metrics([new AccuracyMetric(), new LossMetric()])
      .numEpochs(2)
      .renderer(new CliRenderer({ write: (l) => out.push(l), intervalMs: 0 }))
      .summary()
      .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), 0.5));
    // 4 train steps + 2 valid steps per epoch, each printed (interval 0), plus 2 epoch lines per epoch.
    assert.equal(out.filter((l) => l.startsWith('[train] epoch 1/2 iteration')).length, 4);
    assert.match(
      out[0]!,
      /^\[train\] epoch 1\/2 iteration 1 items 16\/64 \(25%\) - Accuracy: epoch \d+\.\d{3} % - batch \d+\.\d{3} % \| Loss: epoch \d\.\d{3} - batch \d\.\d{3}$/,
    );
    const done = out.filter((l) => / done: /.test(l));
    assert.deepEqual(
      done.map((l) => l.split(':')[0]),
      ['[train] epoch 1 done', '[valid] epoch 1 done', '[train] epoch 2 done', '[valid] epoch 2 done'],
    );
    const acc = result.summary.metrics.find((m) => m.split === 'valid' && m.name === 'Accuracy')!;
    assert.ok(done[3]!.includes(`Accuracy ${acc.last.toFixed(4)}`), done[3]);
    const summary = out.at(-1)!;
    assert.match(summary, /Training Summary/);
    assert.match(summary, /\| Valid \| Loss +\| \d\.\d{4} +\| [12] +\| \d\.\d{4} +\|/);
    assert.equal(result.summary.epochs, 2);
  });

  it('uses the plain renderer when stdout is not a terminal, and never loads ink for it', () => {
    assert.ok(defaultRenderer() instanceof CliRenderer);
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const script = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(s, c, next) { if (/^(ink|react)(\\\\/|$)/.test(s)) throw new Error('loaded ' + s); return next(s, c); }\`));
      const train = await import('./src/train/index.ts');
      await train.preloadDashboard();
      console.log(train.defaultRenderer().constructor.name);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'CliRenderer');
  });

  it("writes Burn's metric logs (value,count per step, then value,final) and learning-curve plots", async () => {
    const dir = tempDir();
    const [train, valid] = loaders();
    const precision = PrecisionMetric.multiclass({ classReduction: 'macro' });
    const result = await new SupervisedTraining(dir, train, valid)
      .metrics([new AccuracyMetric(), new LossMetric(), precision, AurocMetric.multiclass(), new LearningRateMetric()])
      .numEpochs(2)
      .renderer(quiet())
      .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), 0.5));
    for (const split of ['train', 'valid'] as const) {
      for (const epoch of [1, 2]) {
        const files = readdirSync(join(dir, split, `epoch-${epoch}`)).sort();
        // The learning rate is a training setting: not tracked on the validation split.
        const expected = [
          'AUROC_[Macro].log',
          'Accuracy.log',
          ...(split === 'train' ? ['Learning_Rate.log'] : []),
          'Loss.log',
          'Precision_@_TopK(1)_[Macro].log',
        ];
        assert.deepEqual(files, expected, `${split} epoch ${epoch}`);
      }
    }
    const acc = lines(join(dir, 'train/epoch-1/Accuracy.log'));
    assert.equal(acc.length, 5); // 4 steps + final
    const entries = acc.slice(0, 4).map((l) => l.split(',').map(Number) as [number, number]);
    assert.deepEqual(
      entries.map((e) => e[1]),
      [16, 16, 16, 16],
    );
    const mean = entries.reduce((a, [v, c]) => a + v * c, 0) / 64;
    assert.match(acc[4]!, /,final$/);
    assert.ok(Math.abs(Number(acc[4]!.split(',')[0]) - mean) < 1e-9);
    const history = result.summary.metrics.find(
      (m) => m.split === 'train' && m.name === 'Accuracy' && m.bestEpoch >= 1,
    );
    assert.ok(history);
    // AUROC: nothing per step, only the epoch value.
    assert.deepEqual(
      lines(join(dir, 'valid/epoch-2/AUROC_[Macro].log')).map((l) => l.endsWith(',final')),
      [true],
    );
    // Precision: the final value is from summed counts, not the mean of the logged batch values.
    const logger = new FileMetricLogger(dir);
    const prec = logger.read('valid', 1, precision.name);
    assert.equal(prec.filter((e) => e.final).length, 1);
    assert.equal(logger.epochValue('valid', 1, precision.name), prec.at(-1)!.value);
    // Learning rate: one entry per step of 0.5.
    assert.deepEqual(lines(join(dir, 'train/epoch-2/Learning_Rate.log')), [
      '0.5,1',
      '0.5,1',
      '0.5,1',
      '0.5,1',
      '0.5,final',
    ]);
    // Plots: an SVG panel per metric, two curves (train, valid) each, and the HTML page with the values.
    const svg = readFileSync(join(dir, 'learning-curves.svg'), 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const name of ['Accuracy', 'Loss', 'Precision @ TopK(1) [Macro]', 'AUROC [Macro]', 'Learning Rate'])
      assert.ok(svg.includes(`font-weight="bold">${name}</text>`), name);
    // Two curves per metric, except the learning rate, which has no validation values.
    assert.equal((svg.match(/<polyline/g) ?? []).length, 9);
    const html = readFileSync(join(dir, 'learning-curves.html'), 'utf8');
    assert.match(html, /<!doctype html>/);
    const validLoss = result.summary.metrics.find((m) => m.split === 'valid' && m.name === 'Loss')!;
    assert.ok(html.includes(`<td>valid</td><td>Loss (lower is better)</td>`));
    assert.ok(html.includes(`<td>${validLoss.last.toPrecision(5)}</td>`));
  });
});

describe('SupervisedTraining: checkpoints, stopping, accumulation', () => {
  it('resuming from checkpoint(2) gives exactly the parameters and summary of an uninterrupted run (Adam + scheduler)', async () => {
    const scheduler = () => new ExponentialLrSchedulerConfig({ initialLr: 0.1, gamma: 0.9 }).init();
    const run = (dir: string, epochs: number, seed: number, resume?: number) => {
      const [train, valid] = loaders();
      const training = new SupervisedTraining(dir, train, valid)
        .metrics([new AccuracyMetric(), new LossMetric()])
        .numEpochs(epochs)
        .withFileCheckpointer()
        .renderer(quiet());
      if (resume !== undefined) training.checkpoint(resume);
      return training.launch(new Learner(model(seed), new AdamConfig({}).init<TinyClassifier>(), scheduler()));
    };
    const full = await run(tempDir(), 4, 3);
    const dir = tempDir();
    await run(dir, 2, 3);
    assert.deepEqual(readdirSync(join(dir, 'checkpoint')).sort(), [
      'model-1.bpk',
      'model-2.bpk',
      'optim-1.bpk',
      'optim-2.bpk',
      'scheduler-1.json',
      'scheduler-2.json',
    ]);
    // A different initial model: everything must come from the checkpoint.
    const resumed = await run(dir, 4, 99, 2);
    assert.deepEqual(await parameters(resumed.model), await parameters(full.model));
    assert.deepEqual(resumed.summary.metrics, full.summary.metrics);
    assert.equal(resumed.summary.epochs, 4);
    // Default strategy: the last 2 plus the best validation loss.
    const kept = readdirSync(join(dir, 'checkpoint')).filter((f) => f.startsWith('model-'));
    assert.ok(kept.includes('model-3.bpk') && kept.includes('model-4.bpk') && kept.length <= 3, kept.join());
  });

  it('early stopping ends training when the metric has not improved for N epochs', async () => {
    // A metric whose epoch values are scripted: best at epoch 2, then worse.
    const values = [3, 2, 2.5, 2.6, 1, 0.5];
    class Scripted implements Metric<unknown> {
      readonly name = 'Scripted';
      readonly higherIsBetter = false;
      readonly unit = undefined;
      private epoch = 0;
      async update(_: unknown, meta: { epoch: number }): Promise<MetricEntry> {
        this.epoch = meta.epoch;
        return { name: this.name, formatted: '', serialized: `${values[meta.epoch - 1]},1` };
      }
      value(): number | undefined {
        return this.epoch ? values[this.epoch - 1] : undefined;
      }
      clear(): void {}
    }
    const interrupter = new TrainingInterrupter();
    const [train, valid] = loaders();
    const scripted = new Scripted();
    const result = await new SupervisedTraining(tempDir(), train, valid)
      .metrics([scripted as Metric<never>, new LossMetric()])
      .numEpochs(6)
      .earlyStopping(new MetricEarlyStoppingStrategy(scripted, { noImprovementSince: 2 }))
      .withInterrupter(interrupter)
      .renderer(quiet())
      .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), 0.1));
    assert.equal(result.summary.epochs, 4);
    assert.equal(interrupter.reason(), 'early stopping after epoch 4');
    assert.throws(
      () => new MetricEarlyStoppingStrategy(scripted, { noImprovementSince: 0 }),
      /MetricEarlyStoppingStrategy: noImprovementSince 0; expected a positive integer/,
    );
  });

  it('stop() mid-epoch finishes the step, writes the checkpoint and returns', async () => {
    const interrupter = new TrainingInterrupter();
    const [train, valid] = loaders();
    let steps = 0;
    // Stops while the 3rd batch of epoch 2 is being produced.
    const stopping: TrainingLoader<TinyBatch> = {
      numItems: () => train.numItems(),
      async *[Symbol.asyncIterator]() {
        for await (const batch of train) {
          steps++;
          if (steps === 4 + 3) interrupter.stop('test stop');
          yield batch;
        }
      },
    };
    const dir = tempDir();
    const result = await new SupervisedTraining(dir, stopping, valid)
      .metrics([new AccuracyMetric(), new LossMetric()])
      .numEpochs(5)
      .withFileCheckpointer()
      .withInterrupter(interrupter)
      .renderer(quiet())
      .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), 0.1));
    assert.equal(steps, 7); // the stopped step ran; no further batch was taken
    assert.equal(result.summary.epochs, 2);
    assert.equal(interrupter.reason(), 'test stop');
    assert.ok(existsSync(join(dir, 'checkpoint/model-2.bpk')) && existsSync(join(dir, 'checkpoint/optim-2.bpk')));
    assert.equal(lines(join(dir, 'train/epoch-2/Loss.log')).length, 3 + 1);
    assert.ok(!existsSync(join(dir, 'valid/epoch-2')), 'no validation after the stop');
    assert.deepEqual(
      await parameters(result.model),
      await parameters(await new TinyClassifier(device).loadFileAsync(join(dir, 'checkpoint/model-2'), device)),
    );
  });

  it('Ctrl-C (SIGINT) stops a CPU-bound loop gracefully: the loop lets the event loop run', async () => {
    // Neither the loader nor anything else waits on I/O (no checkpoints), so without yielding to the
    // event loop the SIGINT handler would only run after the last epoch.
    const dir = tempDir();
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/train/dashboard-run.ts', dir, '500', '0', '0'], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/\[train\] epoch 3 done/.test(out) && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, out.slice(-2000));
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { epochs: number; stopped: string };
    assert.equal(result.stopped, 'interrupted (SIGINT)');
    assert.ok(result.epochs >= 3 && result.epochs < 500, `stopped after epoch ${result.epochs}`);
    assert.match(out, /Training Summary/);
  });

  it('gradsAccumulation(2) on batches of 8 equals plain SGD on batches of 16 with twice the rate (gradients are summed)', async () => {
    let steps = 0;
    const counting = { step: () => (steps++, 0.2) };
    const accumulated = await new SupervisedTraining(
      tempDir(),
      new TinyLoader(trainData, 8, device),
      new TinyLoader(validData, 8, device),
    )
      .metrics([new LossMetric()])
      .numEpochs(2)
      .gradsAccumulation(2)
      .renderer(quiet())
      .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), counting));
    assert.equal(steps, 2 * 4); // 8 batches per epoch, one optimizer step every 2
    const plain = await new SupervisedTraining(
      tempDir(),
      new TinyLoader(trainData, 16, device),
      new TinyLoader(validData, 16, device),
    )
      .metrics([new LossMetric()])
      .numEpochs(2)
      .renderer(quiet())
      .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), 0.4));
    const a = await parameters(accumulated.model),
      b = await parameters(plain.model);
    for (const key of Object.keys(b))
      a[key]!.forEach((v, i) => assert.ok(Math.abs(v - b[key]![i]!) < 1e-5, `${key}[${i}]: ${v} vs ${b[key]![i]}`));
    assert.throws(
      () => new SupervisedTraining(tempDir(), ...loaders()).gradsAccumulation(0),
      /SupervisedTraining.gradsAccumulation: 0; expected a positive integer/,
    );
  });

  it('rejects a model that is not on an autodiff device, and releases the renderer when training throws', async () => {
    const [train, valid] = loaders();
    await assert.rejects(
      new SupervisedTraining(tempDir(), train, valid)
        .renderer(quiet())
        .launch(
          new Learner(new TinyClassifier(Device.cpu({ engine: 'js' })), new SgdConfig({}).init<TinyClassifier>(), 0.1),
        ),
      /SupervisedTraining.launch: the model must live on an autodiff device/,
    );
    let closed = 0;
    const failing: TrainingLoader<TinyBatch> = {
      numItems: () => 1,
      async *[Symbol.asyncIterator]() {
        throw new Error('loader failed');
      },
    };
    const renderer = { update() {}, render() {}, epochEnd() {}, close: () => void closed++ };
    await assert.rejects(
      new SupervisedTraining(tempDir(), failing, valid)
        .renderer(renderer)
        .launch(new Learner(model(), new SgdConfig({}).init<TinyClassifier>(), 0.1)),
      /loader failed/,
    );
    assert.equal(closed, 1);
  });
});
