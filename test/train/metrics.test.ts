// The training metrics against scikit-learn / PyTorch references (test/fixtures/gen_metrics.py →
// metrics.json) and against Burn's own hand-computed cases. Every reference value is over all
// samples, while the metric is fed uneven batches: the epoch value must aggregate exactly
// (summed confusion counts, all epoch scores for AUROC/AUC-PR, summed NLL for perplexity).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor, type Float, type Int } from '../../src/index.js';
import {
  AccuracyMetric,
  AucPrMetric,
  AurocMetric,
  CharErrorRate,
  ClassificationOutput,
  CpuMemory,
  CpuUse,
  FBetaScoreMetric,
  HammingScore,
  IterationSpeedMetric,
  MultiLabelClassificationOutput,
  PerplexityMetric,
  PrecisionMetric,
  RecallMetric,
  SequenceOutput,
  TopKAccuracyMetric,
  WordErrorRate,
  editDistance,
  type Metric,
  type MetricMetadata,
} from '../../src/train/index.js';

const device = Device.cpu({ engine: 'js' });
const fixture = JSON.parse(readFileSync(new URL('../fixtures/metrics.json', import.meta.url), 'utf8')) as {
  cases: Record<string, unknown>[];
};
const cases = Object.fromEntries(fixture.cases.map((c) => [c['name'] as string, c])) as Record<
  string,
  Record<string, unknown>
>;

function meta(iteration = 1, itemsProcessed = 0): MetricMetadata {
  return { progress: { itemsProcessed, itemsTotal: 100 }, epoch: 1, epochTotal: 1, iteration, lr: undefined };
}

function f2(values: number[], shape: [number, number]): Tensor<2, Float> {
  return Tensor.fromData<2>(chunk(values, shape[1]), device);
}
function i1(values: number[]): Tensor<1, Int> {
  return Tensor.fromData<1, Int>(values, { device, dtype: 'i32' });
}
function i2(values: number[], cols: number): Tensor<2, Int> {
  return Tensor.fromData<2, Int>(chunk(values, cols), { device, dtype: 'i32' });
}
function chunk(values: number[], cols: number): number[][] {
  return Array.from({ length: values.length / cols }, (_, i) => values.slice(i * cols, (i + 1) * cols));
}

/** Splits rows [0, n) into uneven batches. */
function batches(n: number, sizes = [5, 11, 1]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  for (const s of sizes) {
    if (start >= n) break;
    out.push([start, Math.min(n, start + s)]);
    start += s;
  }
  if (start < n) out.push([start, n]);
  return out;
}

/** Feeds a classification case in uneven batches; returns the epoch value. */
async function feedClassification(
  metric: Metric<never>,
  c: Record<string, unknown>,
  multilabel: boolean,
): Promise<number | undefined> {
  const [n, k] = c['shape'] as [number, number];
  const scores = c['scores'] as number[],
    targets = c['targets'] as number[];
  for (const [a, b] of batches(n)) {
    const output = f2(scores.slice(a * k, b * k), [b - a, k]);
    const item = multilabel
      ? new MultiLabelClassificationOutput(Tensor.zeros([1], device), output, i2(targets.slice(a * k, b * k), k))
      : new ClassificationOutput(Tensor.zeros([1], device), output, i1(targets.slice(a, b)));
    await (metric as Metric<unknown>).update(item, meta());
  }
  return metric.value();
}

function close(actual: number | undefined, expected: number, label: string, tol = 1e-9): void {
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${label}: ${actual} != ${expected}`,
  );
}

describe('confusion-matrix metrics match scikit-learn over uneven batches', () => {
  const mc = cases['multiclass']!,
    ml = cases['multilabel']!,
    bin = cases['binary']!;
  for (const reduction of ['micro', 'macro'] as const) {
    it(`multiclass top-1 (argmax) ${reduction}`, async () => {
      const ref = mc['top1'] as Record<string, number>;
      close(
        await feedClassification(PrecisionMetric.multiclass({ classReduction: reduction }) as Metric<never>, mc, false),
        ref[`precision_${reduction}`]!,
        'precision',
      );
      close(
        await feedClassification(RecallMetric.multiclass({ classReduction: reduction }) as Metric<never>, mc, false),
        ref[`recall_${reduction}`]!,
        'recall',
      );
      for (const beta of [0.5, 1, 2]) {
        close(
          await feedClassification(
            FBetaScoreMetric.multiclass({ beta, classReduction: reduction }) as Metric<never>,
            mc,
            false,
          ),
          ref[`fbeta${beta.toFixed(1)}_${reduction}`]!,
          `fbeta ${beta}`,
        );
      }
    });
    it(`multiclass top-2 ${reduction}`, async () => {
      const ref = mc['top2'] as Record<string, number>;
      close(
        await feedClassification(
          PrecisionMetric.multiclass({ topK: 2, classReduction: reduction }) as Metric<never>,
          mc,
          false,
        ),
        ref[`precision_${reduction}`]!,
        'precision',
      );
      close(
        await feedClassification(
          RecallMetric.multiclass({ topK: 2, classReduction: reduction }) as Metric<never>,
          mc,
          false,
        ),
        ref[`recall_${reduction}`]!,
        'recall',
      );
      close(
        await feedClassification(
          FBetaScoreMetric.multiclass({ beta: 1, topK: 2, classReduction: reduction }) as Metric<never>,
          mc,
          false,
        ),
        ref[`fbeta1.0_${reduction}`]!,
        'f1',
      );
    });
    for (const threshold of [0.5, 0.3]) {
      it(`multi-label threshold ${threshold} ${reduction}`, async () => {
        const ref = ml[`threshold${threshold}`] as Record<string, number>;
        close(
          await feedClassification(
            PrecisionMetric.multilabel({ threshold, classReduction: reduction }) as Metric<never>,
            ml,
            true,
          ),
          ref[`precision_${reduction}`]!,
          'precision',
        );
        close(
          await feedClassification(
            RecallMetric.multilabel({ threshold, classReduction: reduction }) as Metric<never>,
            ml,
            true,
          ),
          ref[`recall_${reduction}`]!,
          'recall',
        );
        for (const beta of [0.5, 1, 2]) {
          close(
            await feedClassification(
              FBetaScoreMetric.multilabel({ beta, threshold, classReduction: reduction }) as Metric<never>,
              ml,
              true,
            ),
            ref[`fbeta${beta.toFixed(1)}_${reduction}`]!,
            `fbeta ${beta}`,
          );
        }
      });
    }
  }
  it('binary (one score column, threshold 0.5)', async () => {
    close(
      await feedClassification(PrecisionMetric.binary() as Metric<never>, bin, false),
      bin['precision'] as number,
      'precision',
    );
    close(
      await feedClassification(RecallMetric.binary() as Metric<never>, bin, false),
      bin['recall'] as number,
      'recall',
    );
    close(
      await feedClassification(FBetaScoreMetric.binary({ beta: 2 }) as Metric<never>, bin, false),
      bin['fbeta2.0'] as number,
      'fbeta 2',
    );
  });

  it("epoch precision is total TP / total (TP + FP), not a mean of batch ratios (Burn's global aggregation case)", async () => {
    const m = PrecisionMetric.binary();
    const e1 = await m.update({ output: f2([0.9, 0.8, 0.1], [3, 1]), targets: i1([1, 0, 0]) });
    assert.equal(e1.batch, 50);
    const e2 = await m.update({ output: f2([0.9, 0.9, 0.9, 0.9, 0.9, 0.1], [6, 1]), targets: i1([1, 0, 0, 0, 0, 0]) });
    assert.equal(e2.batch, 20);
    close(m.value(), (2 / 7) * 100, 'global precision');
    assert.equal(e2.serialized, '20,6');
    assert.match(e2.formatted, /^epoch 28\.57 % - batch 20\.00 %$/);
  });

  it("Burn's hand-computed cases (dummy multiclass/multi-label inputs)", async () => {
    // Burn's tests: multiclass scores, targets [1, 0, 2, 2, 0]; multi-label with threshold 0.5.
    const mcScores = f2([0.2, 0.8, 0.0, 0.3, 0.6, 0.1, 0.7, 0.25, 0.05, 0.1, 0.15, 0.8, 0.9, 0.03, 0.07], [5, 3]);
    const mcTargets = i1([1, 0, 2, 2, 0]);
    const value = async (m: PrecisionMetric | RecallMetric | FBetaScoreMetric) => (
      await m.update({ output: mcScores, targets: mcTargets }), m.value()! / 100
    );
    close(await value(PrecisionMetric.multiclass({ classReduction: 'micro' })), 3 / 5, 'precision micro k1');
    close(await value(PrecisionMetric.multiclass({ topK: 2, classReduction: 'micro' })), 4 / 10, 'precision micro k2');
    close(
      await value(PrecisionMetric.multiclass({ classReduction: 'macro' })),
      (0.5 + 0.5 + 1) / 3,
      'precision macro k1',
    );
    close(
      await value(PrecisionMetric.multiclass({ topK: 2, classReduction: 'macro' })),
      (0.5 + 1 / 4 + 0.5) / 3,
      'precision macro k2',
    );
    close(
      await value(FBetaScoreMetric.multiclass({ beta: 2, topK: 2, classReduction: 'micro' })),
      (5 * 4) / (4 * 5 + 10),
      'fbeta2 micro k2',
    );
    close(
      await value(FBetaScoreMetric.multiclass({ beta: 2, classReduction: 'macro' })),
      (0.5 + 5 / (4 + 2) + 5 / (8 + 1)) / 3,
      'fbeta2 macro k1',
    );
    const mlScores = f2([0.1, 0.7, 0.6, 0.3, 0.9, 0.05, 0.8, 0.9, 0.4, 0.7, 0.5, 0.9, 1.0, 0.3, 0.2], [5, 3]);
    const mlTargets = i2([1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0], 3);
    const ml = async (m: PrecisionMetric | RecallMetric | FBetaScoreMetric) => (
      await m.update({ output: mlScores, targets: mlTargets }), m.value()! / 100
    );
    close(await ml(PrecisionMetric.multilabel({ classReduction: 'micro' })), 5 / 8, 'precision micro');
    close(
      await ml(PrecisionMetric.multilabel({ classReduction: 'macro' })),
      (2 / 3 + 2 / 3 + 0.5) / 3,
      'precision macro',
    );
    close(await ml(FBetaScoreMetric.multilabel({ beta: 1, classReduction: 'micro' })), 2 / (9 / 5 + 8 / 5), 'f1 micro');
  });

  it('a class with no positive and no prediction is left out of the macro F-beta (Burn), but counts 0 in macro precision', async () => {
    // Class 2 never occurs and is never predicted.
    const output = f2([0.9, 0.1, 0.0, 0.2, 0.8, 0.0, 0.7, 0.3, 0.0], [3, 3]);
    const f1 = FBetaScoreMetric.multiclass({ beta: 1 });
    await f1.update({ output, targets: i1([0, 1, 1]) });
    // class 0: tp 1 fp 1 → F1 2/3; class 1: tp 1 fn 1 → 2/3; class 2 undefined.
    close(f1.value(), (100 * 2) / 3, 'macro f1');
    const p = PrecisionMetric.multiclass();
    await p.update({ output, targets: i1([0, 1, 1]) });
    close(p.value(), (100 * (0.5 + 1 + 0)) / 3, 'macro precision');
  });

  it('names follow Burn', () => {
    assert.equal(PrecisionMetric.multiclass().name, 'Precision @ TopK(1) [Macro]');
    assert.equal(
      RecallMetric.multilabel({ threshold: 0.3, classReduction: 'micro' }).name,
      'Recall @ Threshold(0.3) [Micro]',
    );
    assert.equal(new PrecisionMetric().name, 'Precision @ Threshold(0.5) [Macro]');
    assert.equal(PrecisionMetric.binary({ threshold: 1 }).name, 'Precision @ Threshold(1.0) [Macro]');
    assert.equal(FBetaScoreMetric.multiclass({ beta: 0.5, topK: 2 }).name, 'FBetaScore (0.5) @ TopK(2) [Macro]');
    assert.equal(new AurocMetric('micro').name, 'AUROC [Micro]');
    assert.equal(AucPrMetric.binary().name, 'AUC-PR [Macro]');
    assert.equal(new TopKAccuracyMetric(5).name, 'Top-K Accuracy @ TopK(5)');
    assert.equal(new HammingScore({ threshold: 0.75 }).name, 'Hamming Score @ Threshold(0.75)');
    assert.deepEqual(
      [
        new PerplexityMetric().name,
        new CharErrorRate().name,
        new WordErrorRate().name,
        new IterationSpeedMetric().name,
        new CpuUse().name,
        new CpuMemory().name,
      ],
      ['Perplexity', 'CER', 'WER', 'Iteration Speed', 'CPU Usage', 'CPU Memory'],
    );
  });

  it('bad inputs and configurations throw BurnErrors naming the metric', async () => {
    await assert.rejects(
      PrecisionMetric.multiclass().update({ output: f2([0.1, 0.9], [1, 2]), targets: i1([2]) }),
      (e: unknown) =>
        e instanceof BurnError &&
        /Precision @ TopK\(1\) \[Macro\]: target class 2 at sample 0; expected an index in \[0, 2\)/.test(e.message),
    );
    await assert.rejects(
      RecallMetric.multilabel().update({ output: f2([0.1, 0.9], [1, 2]), targets: i2([1, 0, 1], 3) }),
      /targets \[1, 3\]; expected targets \[1\] \(class indices\) or \[1, 2\]/,
    );
    const m = PrecisionMetric.multiclass();
    await m.update({ output: f2([0.1, 0.9], [1, 2]), targets: i1([1]) });
    await assert.rejects(
      m.update({ output: f2([0.1, 0.9, 0], [1, 3]), targets: i1([1]) }),
      /a batch with 3 classes after batches with 2/,
    );
    assert.throws(
      () => PrecisionMetric.multiclass({ topK: 0 }),
      /PrecisionMetric: topK 0; expected a positive integer/,
    );
    assert.throws(
      () => RecallMetric.binary({ threshold: Number.NaN }),
      /RecallMetric: threshold NaN; expected a finite number/,
    );
    assert.throws(
      () => FBetaScoreMetric.binary({ beta: -1 }),
      /FBetaScoreMetric: beta -1; expected a positive finite number/,
    );
    assert.throws(
      () => new PrecisionMetric({ classReduction: 'weighted' as never }),
      /class reduction weighted; expected 'micro' or 'macro'/,
    );
    assert.throws(() => new AurocMetric('weighted' as never), /AUROC: class reduction weighted/);
  });
});

describe('ranking metrics (AUROC, AUC-PR) over all epoch scores', () => {
  for (const reduction of ['macro', 'micro'] as const) {
    it(`AUROC ${reduction} matches roc_auc_score (multiclass one-vs-rest, multi-label)`, async () => {
      close(
        await feedClassification(
          AurocMetric.multiclass({ classReduction: reduction }) as Metric<never>,
          cases['multiclass']!,
          false,
        ),
        (cases['multiclass']!['auroc'] as Record<string, number>)[reduction]!,
        'multiclass',
      );
      close(
        await feedClassification(
          AurocMetric.multilabel({ classReduction: reduction }) as Metric<never>,
          cases['multilabel']!,
          true,
        ),
        (cases['multilabel']!['auroc'] as Record<string, number>)[reduction]!,
        'multilabel',
      );
    });
    it(`AUC-PR ${reduction} matches average_precision_score`, async () => {
      close(
        await feedClassification(
          AucPrMetric.multiclass({ classReduction: reduction }) as Metric<never>,
          cases['multiclass']!,
          false,
        ),
        (cases['multiclass']!['auc_pr'] as Record<string, number>)[reduction]!,
        'multiclass',
      );
      close(
        await feedClassification(
          AucPrMetric.multilabel({ classReduction: reduction }) as Metric<never>,
          cases['multilabel']!,
          true,
        ),
        (cases['multilabel']!['auc_pr'] as Record<string, number>)[reduction]!,
        'multilabel',
      );
    });
  }
  it('binary with tied scores (ties count ½ in AUROC, one threshold in AP)', async () => {
    close(
      await feedClassification(AurocMetric.binary() as Metric<never>, cases['binary']!, false),
      cases['binary']!['auroc'] as number,
      'auroc',
    );
    close(
      await feedClassification(AucPrMetric.binary() as Metric<never>, cases['binary']!, false),
      cases['binary']!['auc_pr'] as number,
      'auc-pr',
    );
  });
  it("Burn's cases: perfect separation, chance on ties, degenerate classes dropped, all-degenerate → 50 %", async () => {
    const one = async (m: AurocMetric | AucPrMetric, s: number[], shape: [number, number], t: number[]) => (
      await m.update({ output: f2(s, shape), targets: i2(t, shape[1]) }), m.value()
    );
    assert.equal(await one(new AurocMetric('macro'), [0, 1, 1, 0, 1, 0, 0, 1], [4, 2], [0, 1, 1, 0, 1, 0, 0, 1]), 100);
    assert.equal(
      await one(new AurocMetric('micro'), [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [4, 2], [0, 1, 1, 0, 1, 0, 0, 1]),
      50,
    );
    assert.equal(
      await one(
        new AurocMetric('macro'),
        [0.9, 0.1, 0, 0.2, 0.8, 0, 0.7, 0.3, 0, 0.1, 0.6, 0],
        [4, 3],
        [1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0],
      ),
      100,
    );
    assert.equal(await one(AurocMetric.binary(), [0.9, 0.8, 0.7, 0.6], [4, 1], [1, 1, 1, 1]), 50);
    assert.equal(await one(AucPrMetric.binary(), [0.9, 0.8], [2, 1], [0, 0]), 50);
    // Burn's AUROC reference values (scikit-learn equivalent), binary and multiclass.
    close(
      await one(AurocMetric.binary(), [0.34, 0.64, 0.12, 0.19, 0.53, 0.38], [6, 1], [0, 0, 0, 0, 1, 1]),
      75,
      'binary',
      1e-6,
    );
    close(
      await one(AucPrMetric.binary(), [0.63, 0.25, 0.71, 0.3, 0.07, 0.66], [6, 1], [0, 1, 0, 0, 0, 0]),
      20,
      'ap binary',
      1e-6,
    );
  });
  it('has no batch value: entries say N/A, nothing is logged mid-epoch, the value exists only per epoch', async () => {
    const m = AurocMetric.binary();
    assert.equal(m.epochOnly, true);
    const e = await m.update({ output: f2([0.9, 0.4, 0.8], [3, 1]), targets: i1([1, 0, 1]) });
    assert.equal(e.formatted, 'epoch N/A % - batch N/A %');
    assert.equal(e.serialized, '');
    await m.update({ output: f2([0.2, 0.6, 0.1], [3, 1]), targets: i1([0, 1, 0]) });
    const split = m.value();
    const single = AurocMetric.binary();
    await single.update({ output: f2([0.9, 0.4, 0.8, 0.2, 0.6, 0.1], [6, 1]), targets: i1([1, 0, 1, 0, 1, 0]) });
    assert.equal(split, single.value());
    m.clear();
    assert.equal(m.value(), undefined);
  });
});

describe('token and label metrics', () => {
  it('TopKAccuracy matches top_k_accuracy_score (k = 1, 2, 3) over uneven batches', async () => {
    const mc = cases['multiclass']!;
    for (const k of [1, 2, 3])
      close(
        await feedClassification(new TopKAccuracyMetric(k) as Metric<never>, mc, false),
        (mc['topk_accuracy'] as Record<string, number>)[String(k)]!,
        `k=${k}`,
      );
    // k = 1 is the accuracy.
    close(
      await feedClassification(new TopKAccuracyMetric(1) as Metric<never>, mc, false),
      (await feedClassification(new AccuracyMetric() as Metric<never>, mc, false))!,
      'k=1 vs accuracy',
    );
  });
  it('TopKAccuracy skips padding and weighs batches by counted items', async () => {
    const m = new TopKAccuracyMetric(2, { padToken: 9 });
    // Batch 1: targets [0, 9, 2] → 2 counted; top-2 of row 0 = {1, 0} ✓, row 2 = {0, 1} ✗.
    await m.update({ output: f2([0.3, 0.6, 0.1, 0, 0, 0, 0.5, 0.4, 0.1], [3, 3]), targets: i1([0, 9, 2]) });
    assert.equal(m.value(), 50);
    // Batch 2: one counted item, correct → epoch 2/3 (a mean of batch ratios would give 75).
    await m.update({ output: f2([0.1, 0.2, 0.7, 0, 0, 0], [2, 3]), targets: i1([2, 9]) });
    close(m.value(), 200 / 3, 'epoch');
  });
  it('TopKAccuracy reads SequenceOutput ([batch, seq, vocab] logits)', async () => {
    const logits = Tensor.fromData<3>(
      [
        [
          [0.1, 0.9],
          [0.8, 0.2],
        ],
        [
          [0.3, 0.7],
          [0.6, 0.4],
        ],
      ],
      device,
    );
    const m = new TopKAccuracyMetric(1);
    await m.update(new SequenceOutput(Tensor.zeros([1], device), logits, i2([1, 0, 0, 0], 2)));
    assert.equal(m.value(), 75);
    await assert.rejects(
      m.update({ output: logits, targets: i1([1, 0]) }),
      /outputs \[2, 2, 2\] and targets \[2\]; expected/,
    );
  });
  it('HammingScore matches 1 − hamming_loss; sigmoid applies to logits', async () => {
    const ml = cases['multilabel']!;
    close(
      await feedClassification(new HammingScore() as Metric<never>, ml, true),
      ml['hamming0.5'] as number,
      'threshold 0.5',
    );
    close(
      await feedClassification(new HammingScore({ threshold: 0.3 }) as Metric<never>, ml, true),
      ml['hamming0.3'] as number,
      'threshold 0.3',
    );
    const h = new HammingScore({ sigmoid: true });
    await h.update({ output: f2([2, -2, 0.5, -0.5], [2, 2]), targets: i2([1, 0, 0, 0], 2) });
    assert.equal(h.value(), 75);
    await assert.rejects(
      h.update({ output: f2([2, -2], [1, 2]), targets: i2([1], 1) }),
      /HammingScore: outputs \[1, 2\] and targets \[1, 1\]; expected the same shape/,
    );
  });
  it('Perplexity matches exp(cross_entropy) (PyTorch), with padding ignored, over batches', async () => {
    const c = cases['perplexity']!;
    const [b, s, v] = c['shape'] as [number, number, number];
    const logits = c['logits'] as number[],
      targets = c['targets'] as number[];
    for (const [pad, key] of [
      [undefined, 'all'],
      [0, 'pad0'],
    ] as const) {
      const m = new PerplexityMetric(pad === undefined ? {} : { padToken: pad });
      for (let i = 0; i < b; i++) {
        const seq = Tensor.fromData<3>([chunk(logits.slice(i * s * v, (i + 1) * s * v), v)], device);
        await m.update(new SequenceOutput(Tensor.zeros([1], device), seq, i2(targets.slice(i * s, (i + 1) * s), s)));
      }
      close(m.value(), c[key] as number, key, 1e-6);
    }
    assert.equal(new PerplexityMetric().higherIsBetter, false);
  });
  it("Perplexity: Burn's uniform and global-aggregation cases", async () => {
    const m = new PerplexityMetric();
    await m.update({ output: f2([5, 0, 0], [1, 3]), targets: i1([0]) });
    const e = await m.update({ output: f2(new Array(15).fill(0), [5, 3]), targets: i1([0, 1, 2, 0, 1]) });
    close(e.batch, 3, 'uniform batch', 1e-6);
    close(m.value(), 2.5036, 'global', 1e-4);
    await assert.rejects(
      m.update({ output: f2([0, 0], [1, 2]), targets: i1([5]) }),
      /PerplexityMetric: target 5 at position 0; expected a token index in \[0, 2\)/,
    );
  });
});

describe('error rates', () => {
  it('editDistance is the Levenshtein distance', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance([], [1, 2]), 2);
    assert.equal(editDistance([1, 2, 3], [1, 2, 3]), 0);
  });
  it('CER and WER on texts match the reference (total edits / total reference length)', async () => {
    const c = cases['error_rates']!;
    const refs = c['references'] as string[],
      hyps = c['predictions'] as string[];
    const cer = new CharErrorRate(),
      wer = new WordErrorRate();
    for (const [a, b] of [
      [0, 1],
      [1, 4],
    ]) {
      await cer.update({ predictions: hyps.slice(a, b), targets: refs.slice(a, b) });
      await wer.update({ predictions: hyps.slice(a, b), targets: refs.slice(a, b) });
    }
    close(cer.value(), c['cer'] as number, 'cer');
    close(wer.value(), c['wer'] as number, 'wer');
    assert.equal(cer.higherIsBetter, false);
    await assert.rejects(
      cer.update({ predictions: ['a'], targets: ['a', 'b'] }),
      /CER: 1 predicted texts and 2 targets/,
    );
  });
  it("tokens: Burn's cases (two substitutions in four tokens = 50 %), right padding, SequenceOutput logits", async () => {
    for (const M of [CharErrorRate, WordErrorRate]) {
      const m = new M();
      await m.update({ predictions: i2([1, 2, 3, 5], 2), targets: i2([1, 3, 3, 4], 2) });
      assert.equal(m.value(), 50);
      const p = new M({ padToken: 9 });
      await p.update({ predictions: i2([1, 2, 9, 3, 5, 9], 3), targets: i2([1, 3, 9, 3, 4, 9], 3) });
      assert.equal(p.value(), 50);
      m.clear();
      assert.equal(m.value(), undefined);
    }
    const logits = Tensor.fromData<3>(
      [
        [
          [0.9, 0.1],
          [0.2, 0.8],
        ],
      ],
      device,
    ); // predicts [0, 1]
    const cer = new CharErrorRate();
    await cer.update(new SequenceOutput(Tensor.zeros([1], device), logits, i2([0, 0], 2)));
    assert.equal(cer.value(), 50);
    await assert.rejects(
      cer.update({ predictions: i2([1, 2], 2), targets: i2([1, 2, 3], 3) }),
      /CER: predictions \[1, 2\] and targets \[1, 3\]/,
    );
  });
});

describe('system metrics', () => {
  it('IterationSpeed: iterations (or items) per second since the first step of the epoch', async () => {
    let t = 1000;
    const m = new IterationSpeedMetric({ now: () => t });
    const first = await m.update(undefined, meta(1, 16));
    assert.equal(first.serialized, '');
    assert.equal(m.value(), undefined);
    t += 500;
    await m.update(undefined, meta(2, 32));
    t += 500;
    const e = await m.update(undefined, meta(3, 48));
    assert.equal(m.value(), 2); // 2 iterations in 1 s
    assert.equal(e.formatted, 'epoch 2.00 iter/sec - batch 2.00 iter/sec');
    const items = new IterationSpeedMetric({ per: 'item', now: () => t });
    await items.update(undefined, meta(1, 16));
    t += 250;
    await items.update(undefined, meta(2, 48));
    assert.equal(items.value(), 128); // 32 items in 0.25 s
    assert.equal(items.unit, 'items/sec');
    m.clear();
    assert.equal(m.value(), undefined);
  });
  it('CpuUse: a percentage that rises under load', async () => {
    const m = new CpuUse({ refreshMs: 0 });
    const end = Date.now() + 300;
    while (Date.now() < end) Math.sqrt(Math.random());
    const e = await m.update();
    const v = m.value();
    assert.ok(v > 0 && v <= 100, `cpu ${v}`);
    assert.equal(e.formatted, `${v.toFixed(2)} %`);
    assert.equal(m.unit, '%');
  });
  it('CpuMemory: used gigabytes of the machine', async () => {
    const { totalmem, freemem } = await import('node:os');
    const m = new CpuMemory();
    const e = await m.update();
    const v = m.value();
    assert.ok(v > 0 && v <= totalmem() / 1e9, `memory ${v}`);
    assert.ok(Math.abs(v - (totalmem() - freemem()) / 1e9) < 0.5, 'close to total − free');
    assert.match(e.formatted, /^RAM Used: \d+\.\d\d \/ \d+\.\d\d Gb$/);
  });
});

describe('metric state', () => {
  it('clone() gives an independent metric with the same configuration (the loop clones for validation)', async () => {
    const a = PrecisionMetric.multiclass({ topK: 2, classReduction: 'micro' });
    await a.update({ output: f2([0.1, 0.9], [1, 2]), targets: i1([1]) });
    const b = a.clone();
    assert.equal(b.name, a.name);
    assert.equal(b.value(), undefined);
    assert.equal(a.value(), 50);
    for (const m of [
      new TopKAccuracyMetric(3, { padToken: 1 }),
      new HammingScore({ threshold: 0.2, sigmoid: true }),
      new PerplexityMetric({ padToken: 0 }),
      new AurocMetric('micro'),
      new AucPrMetric(),
      new CharErrorRate({ padToken: 2 }),
      new WordErrorRate(),
      new IterationSpeedMetric({ per: 'item' }),
      new CpuUse(),
      new CpuMemory(),
      FBetaScoreMetric.binary({ beta: 3 }),
    ]) {
      const c = m.clone();
      assert.notEqual(c, m);
      assert.equal(c.name, m.name);
      assert.equal(c.constructor, m.constructor);
    }
  });
});
