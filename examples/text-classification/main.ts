// Burn's text-classification example: a transformer-encoder classifier trained on one task, then
// fine-tuned with LoRA adapters on a related task (new labels, the pre-trained weights frozen),
// merged, saved and reloaded. Burn's example trains on AG News and fine-tunes on DbPedia; this one
// builds both data sets offline from files every Debian machine with Node has (data.ts):
//   1. pre-training: which language a source snippet is in (Python, Perl, shell, JavaScript);
//   2. LoRA fine-tuning: what kind of text a snippet is (TypeScript, Markdown, JSON, license).
//   npm run example text-classification                full run (a few minutes on two cores)
//   npm run example text-classification -- --smoke     a few steps on a few snippets
//   options: --epochs N  --finetune-epochs N  --rank N  --artifacts DIR
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Config, Device, z, type Module } from 'burn-ts';
import { DataLoaderBuilder, type DataLoader } from 'burn-ts/data';
import { applyLora, mergeLora, TransformerEncoderConfig } from 'burn-ts/nn';
import { AdamConfig, GradientsParams } from 'burn-ts/optim';
import {
  buildCorpus,
  ByteTokenizer,
  LANGUAGES,
  TEXT_KINDS,
  TextBatcher,
  TextDataset,
  type Corpus,
  type TextBatch,
} from './data.ts';
import { TextClassificationModelConfig, type TextClassificationModel } from './model.ts';

/** The settings of the run (Burn's `ExperimentConfig`). */
class ExperimentConfig extends Config.define({
  transformer: TransformerEncoderConfig.nested(),
  seqLength: z.number().int().positive().default(128),
  batchSize: z.number().int().positive().default(32),
  numEpochs: z.number().int().positive().default(3),
  finetuneEpochs: z.number().int().positive().default(3),
  lr: z.number().positive().default(1e-3),
  loraRank: z.number().int().positive().default(8),
  seed: z.number().int().default(42),
  optimizer: AdamConfig.nested(),
}) {}

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    epochs: { type: 'string' },
    'finetune-epochs': { type: 'string' },
    rank: { type: 'string' },
    artifacts: { type: 'string' },
  },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const artifactDir =
  values.artifacts ??
  (smoke ? mkdtempSync(join(tmpdir(), 'burn-ts-text-classification-')) : '/tmp/burn-ts-text-classification');
mkdirSync(artifactDir, { recursive: true });

const config = new ExperimentConfig({
  transformer: new TransformerEncoderConfig({ dModel: 64, dFf: 256, nHeads: 4, nLayers: 2, normFirst: true }),
  optimizer: new AdamConfig({}),
  ...(smoke ? { seqLength: 64, batchSize: 16, numEpochs: 1, finetuneEpochs: 1, loraRank: 4, lr: 2e-3 } : {}),
  ...(values.epochs !== undefined ? { numEpochs: Number(values.epochs) } : {}),
  ...(values['finetune-epochs'] !== undefined ? { finetuneEpochs: Number(values['finetune-epochs']) } : {}),
  ...(values.rank !== undefined ? { loraRank: Number(values.rank) } : {}),
});
config.save(join(artifactDir, 'config.json'));
const started = Date.now();

// --- data ---------------------------------------------------------------------------------------
const corpusOptions = { snippetBytes: config.seqLength - 1, perFile: 6, seed: config.seed };
const languages = buildCorpus(LANGUAGES, {
  ...corpusOptions,
  trainPerClass: smoke ? 96 : 600,
  testPerClass: smoke ? 32 : 150,
});
const kinds = buildCorpus(TEXT_KINDS, {
  ...corpusOptions,
  trainPerClass: smoke ? 96 : 300,
  testPerClass: smoke ? 32 : 150,
});
for (const [task, corpus] of [
  ['pre-training', languages],
  ['fine-tuning', kinds],
] as const) {
  console.log(
    `${task} snippets (${config.seqLength - 1} bytes at most): ${corpus.stats.map((s) => `${s.name} ${s.train}/${s.test} from ${s.files} files`).join(', ')}`,
  );
}

const tokenizer = new ByteTokenizer();
const batcher = new TextBatcher(tokenizer, config.seqLength);
const device = Device.default();
device.seed(config.seed);
const autodiff = device.autodiff();
const loader = (corpus: Corpus, split: 'train' | 'test'): DataLoader<TextBatch> => {
  const builder = new DataLoaderBuilder(batcher).batchSize(config.batchSize);
  return (split === 'train' ? builder.shuffle(config.seed).setDevice(autodiff) : builder.setDevice(device)).build(
    new TextDataset(corpus[split]),
  );
};

/** Accuracy in [0, 1] of the inference model on a test loader. */
async function accuracy(model: TextClassificationModel, test: DataLoader<TextBatch>): Promise<number> {
  let correct = 0,
    total = 0;
  for await (const batch of test) {
    const predicted = model.logits(batch.tokens, batch.maskPad).argmax(1).squeezeDim(1);
    correct += await predicted.equal(batch.labels).int().sum().intoScalar();
    total += batch.labels.dims()[0];
  }
  return correct / total;
}

/** Parameters that train, and all of them. */
function paramCounts(model: Module): { trainable: number; total: number } {
  let trainable = 0;
  model.visit((p) => (trainable += p.requireGrad ? p.val().numel() : 0));
  return { trainable, total: model.numParams() };
}

/** A hand-written training loop (as Burn's custom-training-loop); returns the loss of every step. */
async function train(
  model: TextClassificationModel,
  corpus: Corpus,
  epochs: number,
  label: string,
): Promise<{ model: TextClassificationModel; losses: number[] }> {
  const optim = config.optimizer.init<TextClassificationModel>();
  const trainLoader = loader(corpus, 'train');
  const losses: number[] = [];
  for (let epoch = 1; epoch <= epochs; epoch++) {
    let sum = 0,
      steps = 0;
    for await (const batch of trainLoader) {
      const { loss } = model.forward(batch);
      const value = await loss.intoScalar();
      model = optim.step(config.lr, model, GradientsParams.fromGrads(loss.backward(), model));
      losses.push(value);
      sum += value;
      steps++;
    }
    console.log(
      `${label} epoch ${epoch}/${epochs}: mean loss ${(sum / steps).toFixed(4)} over ${steps} steps (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  return { model, losses };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** First and last few losses, averaged (single steps are noisy). */
const ends = (losses: number[]) => {
  const k = Math.max(1, Math.min(5, Math.floor(losses.length / 4)));
  return { first: mean(losses.slice(0, k)), last: mean(losses.slice(-k)) };
};

// --- 1. pre-training on the language task -------------------------------------------------------
const modelConfig = (nClasses: number) =>
  new TextClassificationModelConfig({
    transformer: config.transformer,
    nClasses,
    vocabSize: tokenizer.vocabSize,
    maxSeqLength: config.seqLength,
  });
const base = modelConfig(languages.classes.length).init(autodiff);
console.log(`model: ${base.numParams()} parameters, device ${autodiff}`);
const pre = await train(base, languages, config.numEpochs, 'pre-training');
const preAccuracy = await accuracy(pre.model.valid(), loader(languages, 'test'));
console.log(`pre-training test accuracy (${languages.classes.join(', ')}): ${(100 * preAccuracy).toFixed(1)}%`);
const basePath = pre.model.valid().saveFile(join(artifactDir, 'base'));

// --- 2. LoRA fine-tuning on the text-kind task ---------------------------------------------------
// As Burn's finetune.rs: load the pre-trained weights, put adapters on the encoder's Linear layers
// (attention query/key/value/output, feed-forward), freezing the rest, and give the model a new head.
const loaded = modelConfig(languages.classes.length).init(autodiff).loadFile(basePath);
const rank = config.loraRank;
let lora = applyLora(loaded, { rank, alpha: 2 * rank, targets: 'transformer' }).resetHead(kinds.classes.length);
const counts = paramCounts(lora);
console.log(
  `LoRA rank ${rank}: ${counts.trainable} trainable of ${counts.total} parameters (${((100 * counts.trainable) / counts.total).toFixed(1)}%: adapters and the new head)`,
);
const kindsTest = loader(kinds, 'test');
const before = await accuracy(lora.valid(), kindsTest);
console.log(`fine-tuning test accuracy before (${kinds.classes.join(', ')}): ${(100 * before).toFixed(1)}%`);
const frozenBefore = Array.from(
  await lora.transformer.layers[0]!.mha.query.weight.val()
    .toData()
    .then((d) => d.toArray()),
);
const fine = await train(lora, kinds, config.finetuneEpochs, 'LoRA fine-tuning');
lora = fine.model;
const after = await accuracy(lora.valid(), kindsTest);
const frozenAfter = Array.from(
  await lora.transformer.layers[0]!.mha.query.weight.val()
    .toData()
    .then((d) => d.toArray()),
);
const baseUnchanged = frozenBefore.every((v, i) => v === frozenAfter[i]);
console.log(
  `fine-tuning test accuracy after: ${(100 * after).toFixed(1)}% (pre-trained weights unchanged: ${baseUnchanged})`,
);

// --- 3. merge, save, reload ----------------------------------------------------------------------
const adapted = lora.valid();
const merged = mergeLora(adapted);
let mergedMaxDiff = 0;
for await (const batch of kindsTest) {
  const a = await adapted.logits(batch.tokens, batch.maskPad).toData();
  const m = await merged.logits(batch.tokens, batch.maskPad).toData();
  const av = a.toArray() as ArrayLike<number>,
    mv = m.toArray() as ArrayLike<number>;
  for (let i = 0; i < av.length; i++) mergedMaxDiff = Math.max(mergedMaxDiff, Math.abs(av[i]! - mv[i]!));
  break;
}
const modelPath = merged.saveFile(join(artifactDir, 'model'));
const reloaded = modelConfig(kinds.classes.length).init(device).loadFile(modelPath);
const reloadedAccuracy = await accuracy(reloaded, kindsTest);
console.log(
  `merged model: max |logit difference| ${mergedMaxDiff.toExponential(2)} vs the adapters; saved to ${modelPath}, reloaded into a plain model: ${(100 * reloadedAccuracy).toFixed(1)}%`,
);
const seconds = (Date.now() - started) / 1000;
console.log(`done in ${seconds.toFixed(0)} s`);

const preLoss = ends(pre.losses),
  fineLoss = ends(fine.losses);
console.log(
  `result ${JSON.stringify({
    pretrainSteps: pre.losses.length,
    pretrainFirstLoss: preLoss.first,
    pretrainLastLoss: preLoss.last,
    pretrainAccuracy: preAccuracy,
    finetuneSteps: fine.losses.length,
    finetuneFirstLoss: fineLoss.first,
    finetuneLastLoss: fineLoss.last,
    accuracyBefore: before,
    accuracyAfter: after,
    trainableParams: counts.trainable,
    totalParams: counts.total,
    baseUnchanged,
    mergedMaxDiff,
    reloadedAccuracy,
    classes: { pretrain: languages.classes, finetune: kinds.classes },
    seconds,
  })}`,
);
