/**
 * `burn-ts/train`: Burn's training experience — `Learner`, `SupervisedTraining`, step outputs,
 * metrics, checkpointing, early stopping, the terminal dashboard and summaries.
 */
export { TrainOutput, ClassificationOutput, MultiLabelClassificationOutput, RegressionOutput, SequenceOutput } from './output.js';
export type { TrainStep, InferenceStep } from './step.js';
export { Learner, type TrainingScheduler } from './learner.js';
export { SupervisedTraining, type TrainingLoader, type TrainingResult, type TrainableModel } from './supervised.js';
export { TrainingSummary, type MetricSummary } from './summary.js';
export { TrainingInterrupter } from './interrupter.js';
export { MetricEarlyStoppingStrategy, type EarlyStoppingStrategy, type MetricEarlyStoppingOptions } from './early-stopping.js';
export { FileMetricLogger, type Split } from './logger.js';
export { FileCheckpointer } from './checkpoint/file.js';
export type { Checkpointer, CheckpointingStrategy, CheckpointState } from './checkpoint/base.js';
export { KeepLastNCheckpoints, MetricCheckpointingStrategy, ComposedCheckpointingStrategy, defaultCheckpointingStrategy, type MetricCheckpointingOptions } from './checkpoint/strategy.js';
export type { MetricsRenderer, MetricState, TrainingProgress, MetricHistory } from './renderer/base.js';
export { CliRenderer, type CliRendererOptions } from './renderer/cli.js';
export { learningCurvesSvg, learningCurvesHtml, writeLearningCurves } from './plot.js';
export { NumericMetric, formatValue, type Metric, type MetricEntry, type MetricMetadata } from './metric/base.js';
export { LossMetric, type LossInput } from './metric/loss.js';
export { AccuracyMetric, type AccuracyInput, type AccuracyOptions } from './metric/accuracy.js';
export { LearningRateMetric } from './metric/learning-rate.js';
