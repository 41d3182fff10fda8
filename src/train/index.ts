/**
 * `burn-ts/train`: Burn's training experience — `Learner`, `SupervisedTraining`, step outputs,
 * metrics, checkpointing, early stopping, the terminal dashboard and summaries.
 */
export {
  TrainOutput,
  ClassificationOutput,
  MultiLabelClassificationOutput,
  RegressionOutput,
  SequenceOutput,
} from './output.js';
export type { TrainStep, InferenceStep } from './step.js';
export { Learner, type TrainingScheduler } from './learner.js';
export {
  SupervisedTraining,
  type TrainingLoader,
  type TrainableModel,
  type MetricInput,
  type MetricInputs,
} from './supervised.js';
export { TrainingResult, type MetricRef, type BestOptions } from './result.js';
export { TrainingSummary, type MetricSummary } from './summary.js';
export { TrainingInterrupter } from './interrupter.js';
export {
  MetricEarlyStoppingStrategy,
  type EarlyStoppingStrategy,
  type MetricEarlyStoppingOptions,
} from './early-stopping.js';
export {
  FileMetricLogger,
  type MetricLogger,
  type Split,
  type FileMetricLoggerOptions,
  type LoggedEntry,
} from './logger.js';
export { InMemoryMetricLogger } from './memory-logger.js';
export { FileCheckpointer } from './checkpoint/file.js';
export { IndexedDbCheckpointer } from './checkpoint/indexeddb.js';
export type { Checkpointer, CheckpointingStrategy, CheckpointState, TrainingCheckpoint } from './checkpoint/base.js';
export {
  KeepLastNCheckpoints,
  MetricCheckpointingStrategy,
  ComposedCheckpointingStrategy,
  defaultCheckpointingStrategy,
  type MetricCheckpointingOptions,
} from './checkpoint/strategy.js';
export type { MetricsRenderer, MetricState, TrainingProgress, MetricHistory } from './renderer/base.js';
export { CliRenderer, type CliRendererOptions } from './renderer/cli.js';
export { defaultRenderer, preloadDashboard, wantsDashboard, dashboardFactory } from './renderer/default.js';
export { learningCurvesSvg, learningCurvesHtml, writeLearningCurves, type LearningCurvesOptions } from './plot.js';
export { SPLIT_COLORS } from './colors.js';
export { NumericMetric, formatValue, type Metric, type MetricEntry, type MetricMetadata } from './metric/base.js';
export { LossMetric, type LossInput } from './metric/loss.js';
export { AccuracyMetric, type AccuracyInput, type AccuracyOptions } from './metric/accuracy.js';
export { LearningRateMetric } from './metric/learning-rate.js';
export {
  readClassificationBatch,
  predictionMask,
  type ClassReduction,
  type DecisionRule,
  type ClassificationMetricConfig,
  type ConfusionStatsInput,
  type ClassIndexInput,
  type ClassificationBatch,
} from './metric/classification.js';
export {
  ConfusionStatsMetric,
  ConfusionStatsState,
  confusionCounts,
  type ConfusionCounts,
} from './metric/confusion-stats.js';
export {
  PrecisionMetric,
  type BinaryMetricOptions,
  type MulticlassMetricOptions,
  type MultilabelMetricOptions,
} from './metric/precision.js';
export { RecallMetric } from './metric/recall.js';
export { FBetaScoreMetric, type FBetaOptions } from './metric/fbeta-score.js';
export { TopKAccuracyMetric, type TopKAccuracyOptions } from './metric/top-k-accuracy.js';
export { RankMetric, PredictionAccumulator } from './metric/prediction-accumulator.js';
export { AurocMetric, rocAuc } from './metric/auroc.js';
export { AucPrMetric, averagePrecision } from './metric/auc-pr.js';
export { HammingScore, type HammingScoreInput, type HammingScoreOptions } from './metric/hamming-score.js';
export { PerplexityMetric, type PerplexityOptions } from './metric/perplexity.js';
export {
  CharErrorRate,
  ErrorRateMetric,
  editDistance,
  type ErrorRateInput,
  type ErrorRateOptions,
} from './metric/cer.js';
export { WordErrorRate } from './metric/wer.js';
export { IterationSpeedMetric, type IterationSpeedOptions } from './metric/iteration-speed.js';
export { CpuUse, type CpuUseOptions } from './metric/cpu-use.js';
export { CpuMemory, type CpuMemoryOptions } from './metric/cpu-memory.js';
export { EvaluatorBuilder, Evaluator, EvaluationSummary, evaluationTag, type EvaluationMetric } from './evaluator.js';
