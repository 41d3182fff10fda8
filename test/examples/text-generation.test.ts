// Smoke test of examples/text-generation (Burn's text-generation example ported): a tiny decoder
// trained for a few steps on Debian's license texts, run as `npm run example text-generation
// -- --smoke` would, then the saved artifacts reloaded by the example's --generate mode.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot as root, runExample } from '../helpers/example-run.js';

/** The default corpus ships with Debian's base-files (always installed); elsewhere the example cannot run. */
const corpus = '/usr/share/common-licenses/GPL-3';
const noCorpus = existsSync(corpus) ? false : `${corpus} is missing (Debian's base-files package provides it)`;

/** Runs the example with `args` and returns its `result` line, parsed. */
const run = (args: string[]) => runExample('text-generation', args);

/** The mean of some numbers. */
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('examples/text-generation (smoke run)', { skip: noCorpus }, () => {
  let dir = '';
  let r: Record<string, unknown> = {};

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'burn-ts-textgen-test-'));
    r = run(['--smoke', '--artifacts', dir, '--tokens', '12', '--seed', '3']);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the loss decreases over the smoke steps and validation reports loss and perplexity', () => {
    const losses = r.trainLosses as number[];
    assert.equal(losses.length, r.steps);
    assert.ok(losses.every(Number.isFinite), `losses ${losses}`);
    const first = mean(losses.slice(0, 5)),
      last = mean(losses.slice(-5));
    // The untrained model is near uniform over the vocabulary: loss ≈ ln(vocabSize).
    assert.ok(Math.abs(first - Math.log(r.vocabSize as number)) < 0.5, `first losses ${first} vs ln(${r.vocabSize})`);
    assert.ok(last < first - 0.3, `mean loss of the first 5 steps ${first}, of the last 5 ${last}`);
    assert.ok(
      Math.abs((r.validPerplexity as number) - Math.exp(r.validLoss as number)) < 1e-6 * (r.validPerplexity as number),
    );
    assert.ok((r.validLoss as number) < Math.log(r.vocabSize as number), `valid loss ${r.validLoss}`);
  });

  it("the vocabulary is compacted to the training text's tokens plus <unk>", () => {
    const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8')) as { gpt2Ids: number[] };
    assert.equal(vocab.gpt2Ids.length + 1, r.vocabSize);
    assert.ok((r.vocabSize as number) > 1000 && (r.vocabSize as number) < 5000, `vocabulary ${r.vocabSize}`);
    assert.deepEqual(
      vocab.gpt2Ids,
      [...vocab.gpt2Ids].sort((a, b) => a - b),
    );
  });

  it('generation yields the requested number of tokens, the same text for the same seed, another for another seed', () => {
    assert.equal(r.requestedTokens, 12);
    assert.equal(r.sampleTokens, 12);
    assert.equal(r.sameSeedSameText, true);
    assert.equal(typeof r.sample, 'string');
    assert.notEqual(r.sample, r.otherSeedSample);
  });

  it("the reloaded model gives the same logits, and the cached generation step the full forward's", () => {
    assert.equal(r.reloadMaxAbsDiff, 0);
    assert.ok((r.cacheMaxAbsDiff as number) < 1e-4, `cache vs full: ${r.cacheMaxAbsDiff}`);
  });

  it("the model is causal: changing the last token changes only the last position's logits", () => {
    assert.ok((r.causalMaxAbsDiff as number) < 1e-6, `earlier positions moved by ${r.causalMaxAbsDiff}`);
    assert.ok((r.lastChanged as number) > 1e-3, `last position's logits moved by ${r.lastChanged}`);
  });

  it('--generate reloads model.bpk and vocab.json and reproduces the sample of the same seed', () => {
    const g = run(['--generate', '--artifacts', dir, '--tokens', '12', '--seed', '3']);
    assert.equal(g.tokens, 12);
    assert.equal(g.text, r.sample);
    const greedy1 = run(['--generate', '--artifacts', dir, '--tokens', '5', '--temperature', '0']);
    const greedy2 = run(['--generate', '--artifacts', dir, '--tokens', '5', '--temperature', '0', '--seed', '99']);
    assert.equal(greedy1.text, greedy2.text, 'temperature 0 is greedy: the seed does not matter');
  });

  it('a missing corpus file fails with a message that names it and where the default corpus comes from', () => {
    assert.throws(
      () =>
        execFileSync(
          process.execPath,
          ['scripts/example.mjs', 'text-generation', '--smoke', '--corpus', '/nonexistent/corpus.txt'],
          { cwd: root, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, NODE_OPTIONS: '' } },
        ),
      (error: { status: number; stderr: string }) =>
        error.status !== 0 &&
        /\/nonexistent\/corpus\.txt does not exist/.test(error.stderr) &&
        /base-files/.test(error.stderr),
    );
  });
});

describe('examples/text-generation sampling', () => {
  it('top-k 1 and temperature 0 pick the largest logit; excluded ids are never drawn; a seed repeats its draws', async () => {
    const { sampleToken, seededRandom } = await import('../../examples/text-generation/generate.ts');
    const logits = Float32Array.from([0.5, 3, 2.9, -1, 3]);
    const random = seededRandom(1);
    assert.equal(sampleToken(logits, { temperature: 0, topK: 0, seed: 1 }, random), 1, 'ties go to the lower id');
    assert.equal(sampleToken(logits, { temperature: 5, topK: 1, seed: 1 }, random), 1);
    assert.equal(sampleToken(logits, { temperature: 0, topK: 0, seed: 1, exclude: [1, 4] }, random), 2);
    const draws = (seed: number) => {
      const rng = seededRandom(seed);
      return Array.from({ length: 200 }, () =>
        sampleToken(logits, { temperature: 1, topK: 3, seed, exclude: [0] }, rng),
      );
    };
    const a = draws(5);
    assert.deepEqual(a, draws(5));
    assert.notDeepEqual(a, draws(6));
    assert.deepEqual([...new Set(a)].sort(), [1, 2, 4], 'top-3 of the non-excluded: ids 1, 4 (3.0) and 2 (2.9)');
  });
});
