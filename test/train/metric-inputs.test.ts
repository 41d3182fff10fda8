// Type-level: the metrics' structural inputs accept the step outputs Burn adapts for them
// (`npx tsc -p tsconfig.json` checks this file; the runtime part only counts the lists).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  AccuracyMetric,
  AucPrMetric,
  AurocMetric,
  CharErrorRate,
  CpuMemory,
  CpuUse,
  FBetaScoreMetric,
  HammingScore,
  IterationSpeedMetric,
  LearningRateMetric,
  LossMetric,
  PerplexityMetric,
  PrecisionMetric,
  RecallMetric,
  TopKAccuracyMetric,
  WordErrorRate,
  type ClassificationOutput,
  type Metric,
  type MultiLabelClassificationOutput,
  type SequenceOutput,
} from '../../src/train/index.js';

const classification: Metric<ClassificationOutput>[] = [
  new AccuracyMetric(),
  new LossMetric(),
  new TopKAccuracyMetric(2),
  PrecisionMetric.multiclass(),
  RecallMetric.binary(),
  FBetaScoreMetric.multiclass({ beta: 1 }),
  AurocMetric.multiclass(),
  AucPrMetric.binary(),
  new PerplexityMetric(),
  new LearningRateMetric(),
  new IterationSpeedMetric(),
  new CpuUse(),
  new CpuMemory(),
];
const multilabel: Metric<MultiLabelClassificationOutput>[] = [
  new LossMetric(),
  new HammingScore(),
  PrecisionMetric.multilabel(),
  RecallMetric.multilabel(),
  FBetaScoreMetric.multilabel({ beta: 2 }),
  AurocMetric.multilabel(),
  AucPrMetric.multilabel(),
];
const sequence: Metric<SequenceOutput>[] = [
  new LossMetric(),
  new TopKAccuracyMetric(1),
  new PerplexityMetric(),
  new CharErrorRate(),
  new WordErrorRate(),
];
const texts: Metric<{ predictions: string[]; targets: string[] }>[] = [new CharErrorRate(), new WordErrorRate()];

it('every metric accepts the outputs Burn adapts for it', () => {
  assert.deepEqual([classification.length, multilabel.length, sequence.length, texts.length], [13, 7, 5, 2]);
});
