import type { Module } from '../module/module.js';
import { BurnError } from '../core/errors.js';
import type { Checkpointer } from './checkpoint/base.js';
import type { Split } from './logger.js';
import type { Metric } from './metric/base.js';
import type { MetricHistory } from './renderer/base.js';
import type { TrainingSummary } from './summary.js';

/** A metric by name (its direction then comes from the metric registered under that name), or a metric itself. */
export type MetricRef = string | Pick<Metric, 'name' | 'higherIsBetter'>;

/** Which epoch values {@link TrainingResult.bestEpoch} compares. */
export interface BestOptions {
  /** The split whose values decide (default `valid`). */
  readonly split?: Split;
}

/** The metric the default checkpointing strategy keeps the best epoch of: the validation loss. */
const DEFAULT_METRIC = 'Loss';

/**
 * What `SupervisedTraining.launch` returns: the trained model, the model for inference, the
 * summary, the per-epoch history, and the best checkpointed model by any metric.
 *
 * ```ts
 * const result = await training.launch(learner);
 * result.inferenceModel.forward(x);       // the trained model on the inner (non-autodiff) device
 * const best = await result.bestModel();  // the checkpoint with the lowest validation loss
 * ```
 */
export class TrainingResult<M extends Module> {
  private inference: M | undefined;

  constructor(
    /**
     * The trained model, on the training (autodiff) device: continue training it, or save it. For
     * inference on tensors of the inner device use {@link inferenceModel} (Burn's `model.valid()`).
     */
    readonly model: M,
    /** Best and last value of every metric. */
    readonly summary: TrainingSummary,
    /** Every metric's epoch values, per split (epoch `e` at index `e - 1`; NaN where none). */
    readonly history: MetricHistory,
    /** Whether larger values are better, by metric name. */
    private readonly higherIsBetter: ReadonlyMap<string, boolean>,
    /** Where the checkpoints went (undefined without `withFileCheckpointer()`). */
    private readonly checkpointer: Checkpointer | undefined,
  ) {}

  /**
   * The trained model on the inner device of the training device (`model.valid()`): what
   * `forward` on ordinary tensors needs, as a training-device model refuses them.
   */
  get inferenceModel(): M {
    this.inference ??= this.model.valid();
    return this.inference;
  }

  /**
   * The epoch with the best value of `metric` (default: the validation `Loss`, the metric Burn's
   * default checkpointing strategy keeps) on `options.split` (default `valid`); the first one on
   * ties. A metric named by string takes its direction from the metric registered under that name.
   */
  bestEpoch(metric: MetricRef = DEFAULT_METRIC, options: BestOptions = {}): number {
    const op = 'TrainingResult.bestEpoch';
    const split = options.split ?? 'valid';
    const name = typeof metric === 'string' ? metric : metric.name;
    const values = this.history[split].get(name);
    if (values === undefined) {
      const names = [...this.history[split].keys()];
      throw new BurnError(
        op,
        `no metric '${name}' on the ${split} split; the metrics are ${names.join(', ') || 'none'}`,
      );
    }
    const higher = typeof metric === 'string' ? (this.higherIsBetter.get(name) ?? true) : metric.higherIsBetter;
    let best: number | undefined;
    values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      if (best === undefined || (higher ? v > values[best - 1]! : v < values[best - 1]!)) best = i + 1;
    });
    if (best === undefined) throw new BurnError(op, `metric '${name}' has no finite value on the ${split} split`);
    return best;
  }

  /** The model file of the checkpoint of {@link bestEpoch} (same arguments). */
  bestModelPath(metric: MetricRef = DEFAULT_METRIC, options: BestOptions = {}): string {
    const { checkpointer, epoch } = this.bestCheckpoint(metric, options, 'TrainingResult.bestModelPath');
    if (!checkpointer.modelPath)
      throw new BurnError(
        'TrainingResult.bestModelPath',
        'the checkpointer does not write model files (it has no modelPath())',
      );
    return checkpointer.modelPath(epoch);
  }

  /**
   * The model of the checkpoint of {@link bestEpoch} (same arguments), on the training device like
   * {@link model} (call `.valid()` on it for inference). A BurnError says why when there is none:
   * no checkpoints were written, or the checkpointing strategy did not keep that epoch.
   */
  async bestModel(metric: MetricRef = DEFAULT_METRIC, options: BestOptions = {}): Promise<M> {
    const { checkpointer, epoch } = this.bestCheckpoint(metric, options, 'TrainingResult.bestModel');
    if (!checkpointer.loadModel)
      throw new BurnError(
        'TrainingResult.bestModel',
        'the checkpointer cannot load a model alone (it has no loadModel())',
      );
    return (await checkpointer.loadModel(epoch, this.model)) as M;
  }

  private bestCheckpoint(
    metric: MetricRef,
    options: BestOptions,
    op: string,
  ): { checkpointer: Checkpointer; epoch: number } {
    const checkpointer = this.checkpointer;
    if (!checkpointer)
      throw new BurnError(op, 'no checkpoints were written; train with withFileCheckpointer() to keep the best model');
    const epoch = this.bestEpoch(metric, options);
    const kept = checkpointer.epochs();
    if (!kept.includes(epoch)) {
      const name = typeof metric === 'string' ? metric : metric.name;
      throw new BurnError(
        op,
        `the best epoch by ${options.split ?? 'valid'} ${name} is epoch ${epoch}, whose checkpoint was not kept by the checkpointing strategy (kept: ${kept.join(', ') || 'none'}); keep it with a MetricCheckpointingStrategy for that metric`,
      );
    }
    return { checkpointer, epoch };
  }
}
