import type { Module } from '../module/module.js';
import { BurnError } from '../core/errors.js';
import { TrainingInterrupter } from './interrupter.js';
import { FileMetricLogger } from './logger.js';
import { formatValue, type Metric, type MetricMetadata } from './metric/base.js';
import type { InferenceStep } from './step.js';
import type { TrainingLoader } from './supervised.js';

/** One metric's value over an evaluation. */
export interface EvaluationMetric {
  readonly name: string;
  /** The value over every evaluated item (NaN when the metric has none). */
  readonly value: number;
  readonly unit: string | undefined;
  readonly higherIsBetter: boolean;
}

/** What {@link Evaluator.eval} returns: the metric values over a dataset. */
export class EvaluationSummary {
  constructor(
    /** The evaluation's name (its log folder is `test/<name>`). */
    readonly name: string,
    /** Items evaluated. */
    readonly items: number,
    readonly metrics: readonly EvaluationMetric[],
    /** Wall-clock seconds. */
    readonly seconds: number,
    /** Set when the evaluation was stopped before the end of the data. */
    readonly interrupted: boolean,
  ) {}

  /** The value of a metric by name. */
  get(name: string): number | undefined {
    return this.metrics.find((m) => m.name === name)?.value;
  }

  /** The summary table. */
  toString(): string {
    const rows = this.metrics.map((m) => [m.name, Number.isNaN(m.value) ? 'n/a' : formatValue(m.value, m.unit, 4)]);
    const header = ['Metric', 'Value'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    return [
      '======================= Evaluation Summary =======================',
      `Name: ${this.name}    Items: ${this.items}    Time: ${this.seconds.toFixed(1)} s${this.interrupted ? '    (interrupted)' : ''}`,
      '',
      line(header),
      `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
      ...rows.map(line),
    ].join('\n');
  }
}

/** A tag as Burn writes evaluation folder names: trimmed, spaces → `-`, lower case. */
export function evaluationTag(name: string): string {
  return name.trim().replace(/ /g, '-').toLowerCase();
}

/**
 * Configures an {@link Evaluator} (Burn's `EvaluatorBuilder`):
 * `new EvaluatorBuilder(dir).metrics([...]).build(model).eval('test', loader)`.
 */
export class EvaluatorBuilder<O = unknown> {
  private readonly list: Metric<O>[] = [];
  private interrupter = new TrainingInterrupter();
  private print = false;
  private write: (text: string) => void = (text) => void process.stdout.write(`${text}\n`);

  constructor(
    /** Where the metric logs go: `<directory>/test/<name>/<Metric_Name>.log`. */
    readonly directory: string,
  ) {}

  /** Metrics computed over each evaluated dataset. */
  metrics(metrics: readonly Metric<O>[]): this {
    this.list.push(...metrics);
    return this;
  }
  /** Uses `interrupter` (call its `stop()` to end an evaluation early). */
  withInterrupter(interrupter: TrainingInterrupter): this {
    this.interrupter = interrupter;
    return this;
  }
  /** Prints the summary table after each evaluation (to stdout, or to `write`). */
  summary(write?: (text: string) => void): this {
    this.print = true;
    if (write) this.write = write;
    return this;
  }

  /** The evaluator of `model` (a module on an autodiff device is evaluated through `valid()`). */
  build<B, M extends InferenceStep<B, O>>(model: M): Evaluator<B, O> {
    return new Evaluator<B, O>(
      model,
      this.directory,
      [...this.list],
      this.interrupter,
      this.print ? this.write : undefined,
    );
  }
}

/** Runs a model's `inferenceStep` over datasets and logs metrics (Burn's `Evaluator`). */
export class Evaluator<B, O> {
  private readonly model: InferenceStep<B, O>;

  constructor(
    model: InferenceStep<B, O>,
    readonly directory: string,
    private readonly metricList: readonly Metric<O>[],
    private readonly interrupter: TrainingInterrupter,
    private readonly write: ((text: string) => void) | undefined,
  ) {
    const module = model as unknown as Partial<Module>;
    const device = typeof module.devices === 'function' ? module.devices()[0] : undefined;
    this.model =
      device?.isAutodiff() && typeof module.valid === 'function'
        ? (module.valid() as unknown as InferenceStep<B, O>)
        : model;
  }

  /** Evaluates the model on `loader`; metrics are logged under `<directory>/test/<name>/`. */
  async eval(name: string, loader: TrainingLoader<B>): Promise<EvaluationSummary> {
    const tag = evaluationTag(name);
    if (tag.length === 0 || /[/\\]/.test(tag))
      throw new BurnError(
        'Evaluator.eval',
        `name ${JSON.stringify(name)}; expected a non-empty name without path separators`,
      );
    const started = Date.now();
    const module = this.model as unknown as Partial<Module>;
    const device = typeof module.devices === 'function' ? module.devices()[0] : undefined;
    const data = (device && loader.toDevice?.(device)) || loader;
    const logger = new FileMetricLogger(`${this.directory}/test/${tag}`, { evaluation: true });
    const total = data.numItems();
    let iteration = 0,
      items = 0,
      interrupted = false;
    for (const metric of this.metricList) metric.clear();
    for await (const batch of data) {
      iteration++;
      const item = this.model.inferenceStep(batch);
      items += batchSize(item);
      const meta: MetricMetadata = {
        progress: { itemsProcessed: Math.min(items, total), itemsTotal: total },
        epoch: 1,
        epochTotal: 1,
        iteration,
        lr: undefined,
      };
      for (const metric of this.metricList) logger.log('valid', 1, await metric.update(item, meta));
      if (this.interrupter.shouldStop()) {
        interrupted = true;
        break;
      }
    }
    const metrics = this.metricList.map((m) => {
      const value = m.value();
      if (value !== undefined) logger.log('valid', 1, { name: m.name, formatted: '', serialized: `${value},final` });
      m.clear();
      return { name: m.name, value: value ?? Number.NaN, unit: m.unit, higherIsBetter: m.higherIsBetter };
    });
    logger.flush();
    const summary = new EvaluationSummary(name, items, metrics, (Date.now() - started) / 1000, interrupted);
    this.write?.(summary.toString());
    return summary;
  }
}

/** The batch size of an output item (its outputs' first dim), 1 when unknown. */
function batchSize(item: unknown): number {
  const output = (item as { output?: { dims?: () => number[] } } | undefined)?.output;
  return typeof output?.dims === 'function' ? (output.dims()[0] ?? 1) : 1;
}
