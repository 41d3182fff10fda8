// Smoke run of examples/text-classification (Burn's text-classification example with LoRA): run as
// `npm run example text-classification -- --smoke` would, against the built package; its last line
// `result {json}` is checked here. The full run's numbers are in the example's README.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resultNumber, runExample } from '../helpers/example-run.js';

/** Runs the example with --smoke and returns its `result` line, parsed. */
const smoke = () => runExample('text-classification', ['--smoke'], 300_000);
const num = resultNumber;

describe('examples (smoke runs)', () => {
  it('text-classification: pre-trains, LoRA-fine-tunes with the base frozen, merges, saves and reloads', () => {
    const r = smoke();
    assert.deepEqual(r.classes, {
      pretrain: ['python', 'perl', 'shell', 'javascript'],
      finetune: ['typescript', 'markdown', 'json', 'license'],
    });
    assert.ok(
      num(r, 'pretrainSteps') >= 20 && num(r, 'finetuneSteps') >= 20,
      `steps ${r.pretrainSteps}, ${r.finetuneSteps}`,
    );
    assert.ok(
      num(r, 'pretrainLastLoss') < num(r, 'pretrainFirstLoss'),
      `pre-training loss ${r.pretrainFirstLoss} -> ${r.pretrainLastLoss}`,
    );
    assert.ok(
      num(r, 'finetuneLastLoss') < num(r, 'finetuneFirstLoss'),
      `fine-tuning loss ${r.finetuneFirstLoss} -> ${r.finetuneLastLoss}`,
    );
    for (const key of ['pretrainAccuracy', 'accuracyBefore', 'accuracyAfter', 'reloadedAccuracy']) {
      const accuracy = num(r, key);
      assert.ok(accuracy >= 0 && accuracy <= 1, `${key} ${accuracy}`);
    }
    // Adapters (rank 4 on the encoder's six Linear layers per block) and the new head train; the rest is frozen.
    const trainable = num(r, 'trainableParams'),
      total = num(r, 'totalParams');
    assert.ok(trainable > 0 && trainable < total / 5, `${trainable} trainable of ${total}`);
    assert.equal(r.baseUnchanged, true);
    // The merged model computes what the adapted one does, and reloads into the plain architecture.
    assert.ok(num(r, 'mergedMaxDiff') < 1e-4, `merged logits differ by ${r.mergedMaxDiff}`);
    assert.equal(num(r, 'reloadedAccuracy'), num(r, 'accuracyAfter'));
  });
});
