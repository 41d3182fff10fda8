import type { Device } from '../device/device.js';
import type { Module } from '../module/module.js';
import { GradientsAccumulator } from '../optim/grad-accum.js';
import { GradientsParams } from '../optim/grads.js';
import { BurnError } from '../core/errors.js';
import { Tensor } from '../tensor/tensor.js';
import type { EarlyStoppingStrategy } from './early-stopping.js';
import { TrainingInterrupter } from './interrupter.js';
import type { Learner } from './learner.js';
import { FileMetricLogger, type MetricLogger, type Split } from './logger.js';
import { InMemoryMetricLogger } from './memory-logger.js';
import { hasFileSystem } from '../config/files.js';
import type { Metric, MetricMetadata } from './metric/base.js';
import { TrainingResult } from './result.js';
import type { TrainOutput } from './output.js';
import type { MetricHistory, MetricsRenderer } from './renderer/base.js';
import { defaultRenderer, preloadDashboard } from './renderer/default.js';
import type { InferenceStep, TrainStep } from './step.js';
import { TrainingSummary } from './summary.js';
import type { Checkpointer, CheckpointingStrategy } from './checkpoint/base.js';
import { FileCheckpointer } from './checkpoint/file.js';
import { defaultCheckpointingStrategy } from './checkpoint/strategy.js';
import { writeLearningCurves } from './plot.js';

/** A data loader the training loop can iterate once per epoch (`burn-ts/data`'s DataLoader). */
export interface TrainingLoader<B> extends AsyncIterable<B> {
  /** Items per epoch. */
  numItems(): number;
  /** The loader producing batches on `device`. */
  toDevice?(device: Device): TrainingLoader<B>;
  /**
   * Makes the next iteration epoch number `epoch` (0-based), as PyTorch's `set_epoch`: the loop
   * calls it before every epoch, so a resumed run replays the data order of the epoch it resumes
   * at. A loader whose order changes from epoch to epoch needs it for an exact resume.
   */
  setEpoch?(epoch: number): unknown;
}

/** A model the supervised loop can train and validate. */
export type TrainableModel<B, TO, VO> = Module & TrainStep<B, TO> & InferenceStep<B, VO>;

/** What a metric reads from a step's output (its `update` argument). */
export type MetricInput<M> = M extends { update(input: infer I, meta: MetricMetadata): unknown } ? I : never;

/** `A | B` → `A & B`. */
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** What a list of metrics reads together: the intersection of their inputs. */
export type MetricInputs<Ms extends readonly unknown[]> = UnionToIntersection<MetricInput<Ms[number]>>;

/**
 * Burn's supervised training (`SupervisedTraining` + `Learner`): epochs of training steps and
 * validation, metrics logged to `<artifactDir>/{train,valid}/epoch-N/`, optional checkpoints,
 * exact resume, early stopping, a graceful interrupter, a dashboard (plain lines when not a TTY),
 * a summary table and learning-curve plots.
 *
 * Types flow from the metrics to the model: `B` is the loaders' batch type; each
 * {@link metrics} call adds what its metrics read to the outputs `TO` (training) and `VO`
 * (validation) the model's steps must produce, and {@link launch} only takes a learner whose
 * model produces them — an `AccuracyMetric` on a regression model is a compile error.
 */
export class SupervisedTraining<B, TO = unknown, VO = TO> {
  private trainMetrics: Metric<TO>[] = [];
  private validMetrics: Metric<VO>[] = [];
  private epochs = 1;
  private accumulation = 1;
  private checkpointingOn = false;
  private checkpointer: Checkpointer | undefined;
  private strategy: CheckpointingStrategy = defaultCheckpointingStrategy();
  private resumeEpoch: number | undefined;
  private stopping: EarlyStoppingStrategy | undefined;
  private interrupter = new TrainingInterrupter();
  private customRenderer: MetricsRenderer | undefined;
  private printSummary = false;
  private ckptDevice = false;

  constructor(
    /** Where logs, checkpoints, the summary and plots go. */
    readonly artifactDir: string,
    private readonly trainLoader: TrainingLoader<B>,
    private readonly validLoader: TrainingLoader<B>,
  ) {}

  /**
   * Numeric metrics, tracked on both splits (training settings such as the learning rate on the
   * training split only). The model's step outputs must be what they read; see the class doc.
   */
  metrics<const Ms extends readonly Metric<never>[]>(
    metrics: Ms,
  ): SupervisedTraining<B, TO & MetricInputs<Ms>, VO & MetricInputs<Ms>> {
    // Checked at `launch`, where the model is known: the outputs must be what every metric reads.
    const list = metrics as readonly Metric<never>[] as readonly (Metric<TO> & Metric<VO>)[];
    this.trainMetrics.push(...list);
    this.validMetrics.push(
      ...list
        .filter((m) => !m.trainOnly)
        .map((m) => (m.clone?.() as (Metric<TO> & Metric<VO>) | undefined) ?? cloneMetric(m)),
    );
    return this as SupervisedTraining<B, TO & MetricInputs<Ms>, VO & MetricInputs<Ms>>;
  }
  /** Metrics shown as text only (Burn's `metrics_text`): the same here, logged but not plotted. */
  metricsText<const Ms extends readonly Metric<never>[]>(
    metrics: Ms,
  ): SupervisedTraining<B, TO & MetricInputs<Ms>, VO & MetricInputs<Ms>> {
    return this.metrics(metrics);
  }
  /** Number of epochs. */
  numEpochs(n: number): this {
    if (!(Number.isInteger(n) && n > 0))
      throw new BurnError('SupervisedTraining.numEpochs', `${n}; expected a positive integer`);
    this.epochs = n;
    return this;
  }
  /** Accumulates gradients over `n` steps before each optimizer step. */
  gradsAccumulation(n: number): this {
    if (!(Number.isInteger(n) && n > 0))
      throw new BurnError('SupervisedTraining.gradsAccumulation', `${n}; expected a positive integer`);
    this.accumulation = n;
    return this;
  }
  /** Trains with gradient checkpointing (memory-bound ops recomputed in the backward pass). */
  gradientCheckpointing(): this {
    this.ckptDevice = true;
    return this;
  }
  /** Saves model, optimizer and scheduler at each epoch end under `<artifactDir>/checkpoint` (burnpack). */
  withFileCheckpointer(): this {
    this.checkpointingOn = true;
    return this;
  }
  /** Saves checkpoints with `checkpointer` (e.g. `IndexedDbCheckpointer` in a page) instead of files. */
  withCheckpointer(checkpointer: Checkpointer): this {
    this.checkpointer = checkpointer;
    this.checkpointingOn = true;
    return this;
  }
  /** Which checkpoints to keep (default: the last 2 plus the best validation loss). */
  withCheckpointingStrategy(strategy: CheckpointingStrategy): this {
    this.strategy = strategy;
    return this;
  }
  /** Resumes from the checkpoint written at the end of `epoch`. */
  checkpoint(epoch: number): this {
    if (!(Number.isInteger(epoch) && epoch > 0))
      throw new BurnError('SupervisedTraining.checkpoint', `${epoch}; expected a positive epoch number`);
    this.resumeEpoch = epoch;
    this.checkpointingOn = true;
    return this;
  }
  /** Stops early when the strategy says so. */
  earlyStopping(strategy: EarlyStoppingStrategy): this {
    this.stopping = strategy;
    return this;
  }
  /** Uses `interrupter` (call its `stop()` to end training gracefully). */
  withInterrupter(interrupter: TrainingInterrupter): this {
    this.interrupter = interrupter;
    return this;
  }
  /** Replaces the default renderer (dashboard on a TTY, lines otherwise). */
  renderer(renderer: MetricsRenderer): this {
    this.customRenderer = renderer;
    return this;
  }
  /** Prints the summary table at the end. */
  summary(): this {
    this.printSummary = true;
    return this;
  }

  /**
   * Runs the training; resolves with the trained model (on the training device), the inference
   * model, the summary, the history and the best checkpoints ({@link TrainingResult}).
   */
  async launch<M extends TrainableModel<B, TO, VO>>(learner: Learner<M>): Promise<TrainingResult<M>> {
    const started = Date.now();
    let model = learner.model;
    if (this.ckptDevice) {
      const base = model.devices()[0]?.inner();
      if (base) model = model.valid().toDevice(base.gradientCheckpointing()).train() as M;
    }
    const device = model.devices()[0];
    if (!device?.isAutodiff())
      throw new BurnError(
        'SupervisedTraining.launch',
        `the model must live on an autodiff device (got ${device}); create it on device.autodiff()`,
      );
    // Pages have no files: metrics stay in memory there (the history and summary are the same).
    const logger = hasFileSystem() ? new FileMetricLogger(this.artifactDir) : new InMemoryMetricLogger();
    if (!this.customRenderer) await preloadDashboard();
    const renderer = this.customRenderer ?? defaultRenderer();
    const checkpointer =
      this.checkpointer ?? (this.checkpointingOn ? new FileCheckpointer(`${this.artifactDir}/checkpoint`) : undefined);
    try {
      return await this.run(learner, model, device, logger, renderer, checkpointer, started);
    } catch (error) {
      // Release the terminal (the dashboard holds raw mode) before the error propagates.
      await renderer.close(undefined);
      throw error;
    }
  }

  private async run<M extends TrainableModel<B, TO, VO>>(
    learner: Learner<M>,
    initial: M,
    device: Device,
    logger: MetricLogger,
    renderer: MetricsRenderer,
    checkpointer: Checkpointer | undefined,
    started: number,
  ): Promise<TrainingResult<M>> {
    let model = initial;
    const { optimizer, scheduler } = learner;
    const history: MetricHistory = { train: new Map(), valid: new Map() };
    const breathe = eventLoopBreather();
    let firstEpoch = 1;
    let seed: number | undefined;
    if (this.resumeEpoch !== undefined && checkpointer) {
      const restored = await checkpointer.restore(this.resumeEpoch, { model, optimizer, scheduler });
      model = restored.model as M;
      seed = restored.training?.seed;
      firstEpoch = this.resumeEpoch + 1;
      this.restoreHistory(logger, history, this.resumeEpoch);
    }
    // Every epoch reseeds the device from the run's seed (saved in each checkpoint), so a resumed
    // epoch draws what the uninterrupted run drew (dropout masks, random augmentations).
    const runSeed = seed ?? seedFromDevice(device);
    const trainLoader = this.trainLoader.toDevice?.(device) ?? this.trainLoader;
    const validLoader = this.validLoader.toDevice?.(device.inner()) ?? this.validLoader;
    const stopOnSignal = () => this.interrupter.stop('interrupted (SIGINT)');
    const proc = globalThis.process as NodeJS.Process | undefined;
    proc?.once?.('SIGINT', stopOnSignal);
    renderer.onStopRequest?.(() => this.interrupter.stop('stopped from the dashboard'));
    let lastEpoch = firstEpoch - 1;
    try {
      for (let epoch = firstEpoch; epoch <= this.epochs; epoch++) {
        device.seed(epochSeed(runSeed, epoch));
        trainLoader.setEpoch?.(epoch - 1);
        validLoader.setEpoch?.(epoch - 1);
        // --- training ---
        const accumulator = new GradientsAccumulator<M>();
        let iteration = 0,
          processed = 0,
          lr = Number.NaN;
        for await (const batch of trainLoader) {
          iteration++;
          // A scope releases the step's intermediates (activations, graph values) as soon as it
          // returns; the output and the model (which a step may update, e.g. batch-norm
          // statistics) are kept.
          const stepModel = model;
          const out = Tensor.scope(() => Tensor.keep(stepModel) && stepModel.trainStep(batch)) as TrainOutput<TO>;
          const grads = GradientsParams.fromGrads(out.grads, model);
          accumulator.accumulate(model, grads);
          if (accumulator.steps() >= this.accumulation) {
            lr = scheduler.step();
            model = optimizer.step(lr, model, accumulator.grads());
          }
          processed += batchSize(out.item);
          const meta = metadata(epoch, this.epochs, iteration, processed, trainLoader.numItems(), lr);
          await this.updateMetrics('train', this.trainMetrics, out.item, meta, logger, renderer);
          renderer.render({
            split: 'train',
            epoch,
            epochTotal: this.epochs,
            iteration,
            itemsProcessed: processed,
            itemsTotal: trainLoader.numItems(),
          });
          await breathe();
          if (this.interrupter.shouldStop()) break;
        }
        this.endEpoch('train', epoch, this.trainMetrics, history, logger, renderer);
        // --- validation ---
        if (!this.interrupter.shouldStop()) {
          const valid = model.valid() as unknown as InferenceStep<B, VO>;
          iteration = 0;
          processed = 0;
          for await (const batch of validLoader) {
            iteration++;
            const { item } = Tensor.scope(() => ({ item: Tensor.keep(valid) && valid.inferenceStep(batch) }));
            processed += batchSize(item);
            const meta = metadata(epoch, this.epochs, iteration, processed, validLoader.numItems(), undefined);
            await this.updateMetrics('valid', this.validMetrics, item, meta, logger, renderer);
            renderer.render({
              split: 'valid',
              epoch,
              epochTotal: this.epochs,
              iteration,
              itemsProcessed: processed,
              itemsTotal: validLoader.numItems(),
            });
            await breathe();
            if (this.interrupter.shouldStop()) break;
          }
          this.endEpoch('valid', epoch, this.validMetrics, history, logger, renderer);
        }
        lastEpoch = epoch;
        if (checkpointer) {
          await checkpointer.save(epoch, { model, optimizer, scheduler, training: { seed: runSeed } });
          const keep = new Set(this.strategy.keep(checkpointer.epochs(), history));
          for (const old of checkpointer.epochs()) if (!keep.has(old) && old !== epoch) checkpointer.delete(old);
        }
        if (this.interrupter.shouldStop()) break;
        if (this.stopping?.shouldStop(epoch, history)) {
          this.interrupter.stop(`early stopping after epoch ${epoch}`);
          break;
        }
      }
    } finally {
      proc?.removeListener?.('SIGINT', stopOnSignal);
    }
    const higher = new Map([...this.trainMetrics, ...this.validMetrics].map((m) => [m.name, m.higherIsBetter]));
    const settings = new Set(this.trainMetrics.filter((m) => m.trainOnly).map((m) => m.name));
    const summary = TrainingSummary.fromHistory(history, higher, lastEpoch, (Date.now() - started) / 1000, settings);
    if (hasFileSystem()) writeLearningCurves(this.artifactDir, history, higher);
    await renderer.close(this.printSummary ? summary.toString() : undefined);
    return new TrainingResult(model, summary, history, higher, checkpointer);
  }

  private async updateMetrics<O>(
    split: Split,
    metrics: readonly Metric<O>[],
    item: O,
    meta: MetricMetadata,
    logger: MetricLogger,
    renderer: MetricsRenderer,
  ): Promise<void> {
    for (const metric of metrics) {
      const entry = await metric.update(item, meta);
      logger.log(split, meta.epoch, entry);
      renderer.update(split, {
        name: metric.name,
        formatted: entry.formatted,
        value: metric.epochOnly ? undefined : metric.value(),
        unit: metric.unit,
        batch: entry.batch,
        higherIsBetter: metric.higherIsBetter,
      });
    }
  }

  private endEpoch<O>(
    split: Split,
    epoch: number,
    metrics: readonly Metric<O>[],
    history: MetricHistory,
    logger: MetricLogger,
    renderer: MetricsRenderer,
  ): void {
    for (const metric of metrics) {
      const values = history[split].get(metric.name) ?? [];
      const value = metric.value();
      values[epoch - 1] = value ?? Number.NaN;
      history[split].set(metric.name, values);
      // Burn's `NumericEntry::Final`: the authoritative epoch value, read back on resume.
      if (value !== undefined)
        logger.log(split, epoch, { name: metric.name, formatted: '', serialized: `${value},final` });
      metric.clear();
    }
    logger.flush();
    renderer.epochEnd(split, epoch, history);
  }

  /** Rebuilds the per-epoch history of a resumed run from the metric logs. */
  private restoreHistory(logger: MetricLogger, history: MetricHistory, upTo: number): void {
    for (const [split, metrics] of [
      ['train', this.trainMetrics],
      ['valid', this.validMetrics],
    ] as const) {
      for (const metric of metrics) {
        const values: number[] = [];
        for (let e = 1; e <= upTo; e++) values.push(logger.epochValue(split, e, metric.name));
        history[split].set(metric.name, values);
      }
    }
  }
}

/** A run seed (a safe integer) from the next key of the device's random generator. */
function seedFromDevice(device: Device): number {
  const key = device.nextRandomKey();
  return mix32(key.key0 ^ mix32(key.stream)) + (mix32(key.key1 ^ key.stream) & 0x1fffff) * 2 ** 32;
}

/** The device seed of `epoch` in a run (a safe integer): the same for the same run seed and epoch. */
function epochSeed(seed: number, epoch: number): number {
  const lo = seed % 2 ** 32,
    hi = Math.floor(seed / 2 ** 32);
  return mix32(lo ^ mix32(epoch)) + (mix32(hi ^ Math.imul(epoch, 0x9e3779b9)) & 0x1fffff) * 2 ** 32;
}

/** A 32-bit integer hash (murmur3's finalizer). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function metadata(
  epoch: number,
  epochTotal: number,
  iteration: number,
  processed: number,
  total: number,
  lr: number | undefined,
): MetricMetadata {
  return {
    epoch,
    epochTotal,
    iteration,
    progress: { itemsProcessed: Math.min(processed, total), itemsTotal: total },
    lr,
  };
}

/** The batch size of an output item (its outputs' first dim), 1 when unknown. */
function batchSize(item: unknown): number {
  const output = (item as { output?: { dims?: () => number[] } } | undefined)?.output;
  return typeof output?.dims === 'function' ? (output.dims()[0] ?? 1) : 1;
}

/** A fresh metric of the same class for the validation split (metrics hold per-split state). */
function cloneMetric<M extends object>(metric: M): M {
  return Object.assign(Object.create(Object.getPrototypeOf(metric) as object) as M, structuredCloneState(metric));
}

function structuredCloneState(metric: object): object {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metric)) out[k] = Array.isArray(v) ? [...v] : v instanceof Map ? new Map(v) : v;
  return out;
}

/**
 * Lets the event loop run at most every 25 ms: a CPU training loop whose awaits resolve at once
 * would otherwise never see Ctrl-C (SIGINT), key presses or timers (dashboard redraws).
 */
function eventLoopBreather(): () => Promise<void> {
  let last = Date.now();
  const schedule =
    (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate ?? ((f: () => void) => setTimeout(f, 0));
  return async () => {
    if (Date.now() - last < 25) return;
    await new Promise<void>((resolve) => void schedule(resolve));
    last = Date.now();
  };
}
