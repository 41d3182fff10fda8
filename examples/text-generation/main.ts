// Burn's text-generation example: a small decoder-only transformer (model.ts) trained to predict
// the next token of Debian's license texts (data.ts), tokenized by GPT-2's BPE over a compacted
// vocabulary (tokenizer.ts); then text generated from a prompt by temperature and top-k sampling
// with a seeded generator (generate.ts), and the model and vocabulary saved for --generate.
//   npm run example text-generation                      train (the full run of the README), then generate
//   npm run example text-generation -- --smoke           a tiny model, a few steps, in seconds
//   npm run example text-generation -- --generate        reload the artifacts and generate
//   options: --artifacts DIR  --steps N  --corpus FILE[,FILE…]
//            --prompt TEXT  --tokens N  --temperature T  --top-k K  --seed S
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Config, Device, type Int, type Tensor, z } from 'burn-ts';
import { CrossEntropyLossConfig, TransformerEncoderConfig } from 'burn-ts/nn';
import {
  AdamWConfig,
  CosineAnnealingLrSchedulerConfig,
  GradientClippingConfig,
  GradientsParams,
  LinearLrSchedulerConfig,
  SequentialLrScheduler,
} from 'burn-ts/optim';
import { DEFAULT_CORPUS, randomStarts, readCorpus, tilingStarts, windowBatch, type TextBatch } from './data.ts';
import { generateTokens, seededRandom, type SamplingOptions } from './generate.ts';
import { TextGenerationModel, TextGenerationModelConfig, tokenTensor } from './model.ts';
import { CompactTokenizer, gpt2Tokens } from './tokenizer.ts';

/** The training settings (Burn's `ExperimentConfig`, scaled down to minutes on two CPU cores). */
class TrainingConfig extends Config.define({
  model: TextGenerationModelConfig.nested(),
  optimizer: AdamWConfig.nested(),
  /** Optimizer steps (one batch each). */
  numSteps: z.number().int().positive(),
  batchSize: z.number().int().positive(),
  /** Peak learning rate, reached after `warmupSteps` of linear warm-up, then a cosine decay to a tenth. */
  lr: z.number().positive(),
  warmupSteps: z.number().int().positive(),
  /** Validate every this many steps (and after the last). */
  validEvery: z.number().int().positive(),
  /** The share of the tokens, at the end of the corpus, kept for validation. */
  validShare: z.number().gt(0).lt(1).default(0.1),
  seed: z.number().int().default(42),
}) {}

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    generate: { type: 'boolean', default: false },
    artifacts: { type: 'string' },
    steps: { type: 'string' },
    corpus: { type: 'string' },
    prompt: { type: 'string', default: 'This License' },
    tokens: { type: 'string' },
    temperature: { type: 'string', default: '0.8' },
    'top-k': { type: 'string', default: '20' },
    seed: { type: 'string', default: '7' },
  },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';

/** A command-line number, checked. */
function numberOption(name: string, text: string, integer: boolean, min: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`text-generation: --${name} ${text}; expected ${integer ? 'an integer' : 'a number'} ≥ ${min}`);
  }
  return value;
}
const sampling: SamplingOptions = {
  temperature: numberOption('temperature', values.temperature, false, 0),
  topK: numberOption('top-k', values['top-k'], true, 0),
  seed: numberOption('seed', values.seed, true, 0),
  exclude: [CompactTokenizer.UNKNOWN],
};
const numTokens = numberOption('tokens', values.tokens ?? (smoke ? '16' : '80'), true, 1);
const artifactDir =
  values.artifacts ??
  (smoke && !values.generate ? mkdtempSync(join(tmpdir(), 'burn-ts-textgen-')) : '/tmp/burn-ts-text-generation');
const device = Device.default();

/** Generates from the prompt and prints it. */
async function generateText(
  model: TextGenerationModel,
  tokenizer: CompactTokenizer,
  options: SamplingOptions,
): Promise<{ text: string; tokens: number[] }> {
  const tokens = await generateTokens(model, tokenizer.encode(values.prompt), numTokens, options, device);
  return { text: tokenizer.decode(tokens), tokens };
}

if (values.generate) {
  // Inference as a separate program: the config, the vocabulary and the weights from the artifacts.
  const config = TrainingConfig.load(join(artifactDir, 'config.json'));
  const tokenizer = CompactTokenizer.load(join(artifactDir, 'vocab.json'));
  const model = config.model.init(device).loadFile(join(artifactDir, 'model'), device);
  const promptIds = tokenizer.encode(values.prompt);
  const unknown = promptIds.filter((id) => id === CompactTokenizer.UNKNOWN).length;
  if (unknown > 0) console.log(`(${unknown} prompt token(s) are not in the vocabulary and read as <unk>)`);
  const { text, tokens } = await generateText(model, tokenizer, sampling);
  console.log(`${values.prompt}${text}`);
  console.log(`result ${JSON.stringify({ prompt: values.prompt, text, tokens: tokens.length, ...sampling })}`);
  process.exit(0);
}

// Data: tokens of the whole corpus, the vocabulary from the training part only (honest validation).
const corpusPaths = values.corpus?.split(',') ?? DEFAULT_CORPUS;
const allGpt2 = gpt2Tokens(readCorpus(corpusPaths));
const config = new TrainingConfig(
  smoke
    ? {
        model: {
          transformer: new TransformerEncoderConfig({ dModel: 32, dFf: 64, nHeads: 2, nLayers: 1, normFirst: true }),
          vocabSize: 1,
          maxSeqLength: 16,
        },
        optimizer: new AdamWConfig({ weightDecay: 0.01, gradClipping: GradientClippingConfig.Norm(1) }),
        numSteps: 30,
        batchSize: 8,
        lr: 3e-3,
        warmupSteps: 5,
        validEvery: 30,
      }
    : {
        model: {
          transformer: new TransformerEncoderConfig({
            dModel: 128,
            dFf: 512,
            nHeads: 4,
            nLayers: 2,
            normFirst: true,
            dropout: 0.1,
          }),
          vocabSize: 1,
          maxSeqLength: 64,
        },
        optimizer: new AdamWConfig({ weightDecay: 0.01, gradClipping: GradientClippingConfig.Norm(1) }),
        numSteps: 400,
        batchSize: 16,
        lr: 2e-3,
        warmupSteps: 40,
        validEvery: 50,
      },
);
const splitAt = Math.floor(allGpt2.length * (1 - config.validShare));
const tokenizer = CompactTokenizer.fromTokens(allGpt2.slice(0, splitAt));
const trainTokens = tokenizer.fromGpt2(allGpt2.slice(0, splitAt));
const validTokens = tokenizer.fromGpt2(allGpt2.slice(splitAt));
const validUnknown = validTokens.filter((t) => t === CompactTokenizer.UNKNOWN).length;
const steps = values.steps !== undefined ? numberOption('steps', values.steps, true, 1) : config.numSteps;
const trainConfig = config.with({
  model: config.model.with({ vocabSize: tokenizer.vocabSize }),
  numSteps: steps,
  warmupSteps: Math.min(config.warmupSteps, Math.max(1, steps - 1)),
});
mkdirSync(artifactDir, { recursive: true });
trainConfig.save(join(artifactDir, 'config.json'));
tokenizer.save(join(artifactDir, 'vocab.json'));
const seq = trainConfig.model.maxSeqLength;
console.log(
  `corpus: ${corpusPaths.join(', ')}: ${allGpt2.length} GPT-2 tokens (${trainTokens.length} train, ${validTokens.length} valid, ` +
    `${validUnknown} of them unknown); vocabulary ${tokenizer.vocabSize} of GPT-2's 50257 (the training text's tokens + <unk>)`,
);

// Training: a hand-written loop on the autodiff device, as Burn's example trains with its Learner.
device.seed(trainConfig.seed);
const autodiff = device.autodiff();
let model = trainConfig.model.init(autodiff);
const optim = trainConfig.optimizer.init<TextGenerationModel>();
const warmup = trainConfig.warmupSteps;
const scheduler = new SequentialLrScheduler(
  [
    new LinearLrSchedulerConfig({
      initialLr: trainConfig.lr / warmup,
      finalLr: trainConfig.lr,
      numIters: warmup,
    }).init(),
    new CosineAnnealingLrSchedulerConfig({
      initialLr: trainConfig.lr,
      minLr: trainConfig.lr / 10,
      numIters: Math.max(1, steps - warmup),
    }).init(),
  ],
  [warmup],
);
const loss = new CrossEntropyLossConfig({}).init(autodiff);
const validLoss = new CrossEntropyLossConfig({}).init(device);
const flat = (logits: Tensor<3>, targets: Tensor<2, Int>) => {
  const [b, s, v] = logits.dims() as [number, number, number];
  return [logits.reshape([b * s, v]), targets.reshape([b * s])] as const;
};

/** Mean loss and next-token accuracy over the validation windows, on the inner device. */
async function validate(m: TextGenerationModel): Promise<{ loss: number; accuracy: number }> {
  const starts = tilingStarts(validTokens.length, seq);
  let lossSum = 0,
    correct = 0,
    count = 0;
  for (let i = 0; i < starts.length; i += trainConfig.batchSize) {
    const batch = windowBatch(validTokens, starts.slice(i, i + trainConfig.batchSize), seq, device);
    const [logits, targets] = flat(m.forward(batch.inputs), batch.targets);
    const n = targets.dims()[0];
    lossSum += (await validLoss.forward(logits, targets).intoScalar()) * n;
    correct += await logits.argmax(1).reshape([n]).equal(targets).int().sum().intoScalar();
    count += n;
  }
  return { loss: lossSum / count, accuracy: (100 * correct) / count };
}

console.log(
  `model: ${model.numParams()} parameters, device ${device}; ${steps} steps of ${trainConfig.batchSize} × ${seq} tokens`,
);
const rng = seededRandom(trainConfig.seed);
const trainLosses: number[] = [];
const validations: {
  step: number;
  trainLoss: number;
  validLoss: number;
  validPerplexity: number;
  validAccuracy: number;
}[] = [];
const started = Date.now();
let windowSum = 0,
  windowCount = 0;
for (let step = 1; step <= steps; step++) {
  const batch: TextBatch = windowBatch(
    trainTokens,
    randomStarts(trainTokens.length, seq, trainConfig.batchSize, rng),
    seq,
    autodiff,
  );
  const [logits, targets] = flat(model.forward(batch.inputs), batch.targets);
  const value = loss.forward(logits, targets);
  const lossValue = await value.intoScalar();
  trainLosses.push(lossValue);
  windowSum += lossValue;
  windowCount++;
  model = optim.step(scheduler.step(), model, GradientsParams.fromGrads(value.backward(), model));
  if (step % trainConfig.validEvery === 0 || step === steps) {
    const v = await validate(model.valid());
    const trainLoss = windowSum / windowCount;
    validations.push({
      step,
      trainLoss,
      validLoss: v.loss,
      validPerplexity: Math.exp(v.loss),
      validAccuracy: v.accuracy,
    });
    console.log(
      `step ${String(step).padStart(4)}/${steps}  train loss ${trainLoss.toFixed(3)} (ppl ${Math.exp(trainLoss).toFixed(1)})  ` +
        `valid loss ${v.loss.toFixed(3)} (ppl ${Math.exp(v.loss).toFixed(1)}, accuracy ${v.accuracy.toFixed(1)}%)  ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    windowSum = 0;
    windowCount = 0;
  }
}
const seconds = (Date.now() - started) / 1000;
const trained = model.valid();
trained.saveFile(join(artifactDir, 'model'));
console.log(`saved ${join(artifactDir, 'model.bpk')}, config.json and vocab.json in ${artifactDir}`);

// Generation, twice with the same seed (the same text) and once with another.
const sample = await generateText(trained, tokenizer, sampling);
const again = await generateText(trained, tokenizer, sampling);
const other = await generateText(trained, tokenizer, { ...sampling, seed: sampling.seed + 1 });
console.log(
  `\nprompt "${values.prompt}", ${numTokens} tokens, temperature ${sampling.temperature}, top-k ${sampling.topK}, seed ${sampling.seed}:\n${values.prompt}${sample.text}`,
);
console.log(`\nseed ${sampling.seed + 1}:\n${values.prompt}${other.text}\n`);

// The reloaded model gives the same logits; the cached generation step the full forward's.
const probe = windowBatch(validTokens, [0], seq, device).inputs;
const reference = await trained.forward(probe).toData();
const reloaded = TrainingConfig.load(join(artifactDir, 'config.json'))
  .model.init(device)
  .loadFile(join(artifactDir, 'model'), device);
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
const reloadMaxAbsDiff = maxAbsDiff(reference.toArray(), (await reloaded.forward(probe).toData()).toArray());
// The cache is fed the probe's prefixes one token longer each time, as generation does.
const cache = trained.transformer.newAutoregressiveCache();
let cachedLast = await trained
  .forwardCached(
    probe.slice([
      [0, 1],
      [0, 1],
    ]),
    cache,
  )
  .toData();
for (let n = 2; n <= seq; n++)
  cachedLast = await trained
    .forwardCached(
      probe.slice([
        [0, 1],
        [0, n],
      ]),
      cache,
    )
    .toData();
const fullLast = (reference.toArray() as Float32Array).subarray((seq - 1) * tokenizer.vocabSize);
const cacheMaxAbsDiff = maxAbsDiff(fullLast, cachedLast.toArray());
// Causality: changing the last input token leaves the logits of every earlier position as they were.
const changed = windowBatch(validTokens, [0], seq, device).inputs.sliceAssign(
  [
    [0, 1],
    [seq - 1, seq],
  ],
  tokenTensor(Int32Array.of(1), 1, 1, device),
);
const changedLogits = (await trained.forward(changed).toData()).toArray() as Float32Array;
const causalMaxAbsDiff = maxAbsDiff(
  (reference.toArray() as Float32Array).subarray(0, (seq - 1) * tokenizer.vocabSize),
  changedLogits.subarray(0, (seq - 1) * tokenizer.vocabSize),
);
const lastChanged = maxAbsDiff(fullLast, changedLogits.subarray((seq - 1) * tokenizer.vocabSize));
const last = validations.at(-1)!;
console.log(
  `reloaded model: max |Δlogit| ${reloadMaxAbsDiff}; cached last-step logits vs full forward: max |Δ| ${cacheMaxAbsDiff.toExponential(2)}; earlier positions' logits when the last token changes: max |Δ| ${causalMaxAbsDiff}; ${steps} steps in ${seconds.toFixed(1)} s`,
);
const result = {
  steps,
  params: model.numParams(),
  vocabSize: tokenizer.vocabSize,
  trainTokens: trainTokens.length,
  validTokens: validTokens.length,
  validUnknown,
  trainLosses,
  validations,
  validLoss: last.validLoss,
  validPerplexity: last.validPerplexity,
  validAccuracy: last.validAccuracy,
  prompt: values.prompt,
  requestedTokens: numTokens,
  sampleTokens: sample.tokens.length,
  sample: sample.text,
  sameSeedSameText: sample.text === again.text && sample.tokens.join() === again.tokens.join(),
  otherSeedSample: other.text,
  reloadMaxAbsDiff,
  cacheMaxAbsDiff,
  causalMaxAbsDiff,
  lastChanged,
  seconds,
  artifacts: artifactDir,
  sampling,
};
console.log(`result ${JSON.stringify(result)}`);
if (smoke && values.artifacts === undefined) rmSync(artifactDir, { recursive: true, force: true });
