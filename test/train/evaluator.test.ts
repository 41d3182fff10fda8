// The evaluator: inferenceStep over a loader, metrics logged in Burn's evaluation layout
// (<dir>/test/<name>/<Metric>.log), a summary with the values over every item.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Device } from '../../src/index.js';
import {
  AccuracyMetric,
  EvaluatorBuilder,
  LossMetric,
  PrecisionMetric,
  TrainingInterrupter,
  evaluationTag,
  type ClassificationOutput,
} from '../../src/train/index.js';
import { TinyClassifier, TinyLoader, tinyData } from './helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();
const dir = mkdtempSync(join(tmpdir(), 'burn-eval-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const data = tinyData(40, 5);

describe('Evaluator', () => {
  it('logs metrics under test/<name>/ and returns their values over every item', async () => {
    device.seed(11);
    const model = new TinyClassifier(device);
    // The reference: run the model over the same batches by hand.
    let correct = 0,
      lossSum = 0;
    for await (const batch of new TinyLoader(data, 16, device.inner())) {
      const item = model.valid().inferenceStep(batch);
      const predicted = Array.from((await item.output.argmax(1).toData()).toArray());
      const targets = Array.from((await batch.y.toData()).toArray());
      correct += predicted.filter((p, i) => p === targets[i]).length;
      lossSum += (await item.loss.intoScalar()) * targets.length;
    }
    const printed: string[] = [];
    const precision = PrecisionMetric.multiclass({ classReduction: 'micro' });
    const summary = await new EvaluatorBuilder<ClassificationOutput>(dir)
      .metrics([new AccuracyMetric(), new LossMetric(), precision])
      .summary((t) => printed.push(t))
      .build(model)
      .eval('Test Set', new TinyLoader(data, 16, device));
    assert.equal(summary.items, 40);
    assert.equal(summary.interrupted, false);
    assert.ok(Math.abs(summary.get('Accuracy')! - (100 * correct) / 40) < 1e-9);
    assert.ok(Math.abs(summary.get('Loss')! - lossSum / 40) < 1e-6);
    // Micro precision with top-1 over single-label data is the accuracy.
    assert.ok(Math.abs(summary.get(precision.name)! - summary.get('Accuracy')!) < 1e-9);
    assert.equal(evaluationTag(' Test Set '), 'test-set');
    const folder = join(dir, 'test', 'test-set');
    assert.deepEqual(readdirSync(folder).sort(), ['Accuracy.log', 'Loss.log', 'Precision_@_TopK(1)_[Micro].log']);
    const acc = readFileSync(join(folder, 'Accuracy.log'), 'utf8').trim().split('\n');
    assert.deepEqual(
      acc.slice(0, 3).map((l) => l.split(',')[1]),
      ['16', '16', '8'],
    );
    assert.equal(acc[3], `${summary.get('Accuracy')},final`);
    assert.match(
      printed[0]!,
      /Evaluation Summary[\s\S]*Name: Test Set {4}Items: 40[\s\S]*\| Accuracy +\| \d+\.\d{4} % \|/,
    );
  });

  it('stops early through the interrupter, and rejects names that are not folder names', async () => {
    device.seed(11);
    const interrupter = new TrainingInterrupter();
    const evaluator = new EvaluatorBuilder<ClassificationOutput>(dir)
      .metrics([new AccuracyMetric()])
      .withInterrupter(interrupter)
      .build(new TinyClassifier(device));
    interrupter.stop();
    const summary = await evaluator.eval('partial', new TinyLoader(data, 16, device));
    assert.equal(summary.items, 16);
    assert.equal(summary.interrupted, true);
    await assert.rejects(
      evaluator.eval('a/b', new TinyLoader(data, 16, device)),
      /Evaluator.eval: name "a\/b"; expected a non-empty name without path separators/,
    );
    await assert.rejects(evaluator.eval('  ', new TinyLoader(data, 16, device)), /Evaluator.eval: name/);
  });
});
