// Burn's WGAN example: a Wasserstein GAN on MNIST — the critic trained every step on real against
// generated images, its weights clipped, the generator trained every `numCritic` steps through the
// critic; two RMSProp optimizers, a hand-written loop; sample grids saved as PNG files.
//   npm run example wgan               10 epochs on the offline MNIST digits
//   npm run example wgan -- --smoke    40 steps
//   options: --epochs N  --artifacts DIR
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Config, Device, Distribution, Tensor, z } from 'burn-ts';
import {
  DataLoaderBuilder,
  MnistDataset,
  PartialDataset,
  type Batcher,
  type Dataset,
  type MnistItem,
} from 'burn-ts/data';
import { GradientsParams, RmsPropConfig } from 'burn-ts/optim';
import { encodeGrayPng } from '../custom-image-dataset/png.ts';
import { ModelConfig, type Generator } from './model.ts';

/** Burn's settings but RMSProp as in the WGAN paper (lr 5e-5, no momentum): Burn's defaults (lr 3e-4, momentum 0.9) collapse here. */
class TrainingConfig extends Config.define({
  model: ModelConfig.nested(),
  optimizer: RmsPropConfig.nested(),
  numEpochs: z.number().int().positive().default(10),
  batchSize: z.number().int().positive().default(64),
  seed: z.number().int().default(5),
  lr: z.number().positive().default(5e-5),
  numCritic: z.number().int().positive().default(5),
  clipValue: z.number().positive().default(0.01),
  sampleInterval: z.number().int().positive().default(2),
}) {}

/** MNIST images scaled to [-1, 1], the generator's tanh range: `[batch, 1, 28, 28]`. */
const batcher: Batcher<MnistItem, Tensor<4>> = {
  batch(items, device) {
    const pixels = Float32Array.from(items.flatMap((item) => item.image.flat()));
    return Tensor.fromFloats(pixels, device).reshape([items.length, 1, 28, 28]).div(127.5).sub(1);
  },
};

/**
 * A `rows × rows` grid of generated images, written as one PNG file. The generator runs in training
 * mode (BatchNorm with the batch's statistics), as the images Burn's example saves.
 */
async function saveGrid(generator: Generator, noise: Tensor<2>, rows: number, path: string): Promise<void> {
  const images = (await generator.forward(noise).detach().toData()).toArray() as Float32Array;
  const side = 28 * rows;
  const grid = new Uint8Array(side * side);
  for (let k = 0; k < rows * rows; k++) {
    for (let y = 0; y < 28; y++) {
      for (let x = 0; x < 28; x++) {
        const v = images[k * 784 + y * 28 + x]!;
        grid[(Math.floor(k / rows) * 28 + y) * side + (k % rows) * 28 + x] = Math.round(
          Math.min(1, Math.max(0, (v + 1) / 2)) * 255,
        );
      }
    }
  }
  writeFileSync(path, encodeGrayPng(side, side, grid));
}

/** Mean image of `images` `[batch, pixels]`. */
function meanImage(images: Tensor<2>): Tensor<2> {
  return images.meanDim(0);
}

const { values } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, epochs: { type: 'string' }, artifacts: { type: 'string' } },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const artifactDir = values.artifacts ?? (smoke ? mkdtempSync(join(tmpdir(), 'burn-ts-wgan-')) : '/tmp/burn-ts-wgan');
mkdirSync(artifactDir, { recursive: true });
const config = new TrainingConfig({
  model: new ModelConfig({}),
  optimizer: new RmsPropConfig({ momentum: 0 }),
  // The smoke run's 40 steps need a larger step to show movement.
  ...(smoke ? { numEpochs: 1, lr: 3e-4 } : {}),
  ...(values.epochs !== undefined ? { numEpochs: Number(values.epochs) } : {}),
});
config.save(join(artifactDir, 'config.json'));

const device = Device.default();
device.seed(config.seed);
const autodiff = device.autodiff();
let [generator, discriminator] = config.model.init(autodiff);
const optimizerG = config.optimizer.init();
const optimizerD = config.optimizer.init();
let trainSet: Dataset<MnistItem> = MnistDataset.train();
if (smoke) trainSet = new PartialDataset(trainSet, 0, 40 * config.batchSize);
const loader = new DataLoaderBuilder(batcher)
  .batchSize(config.batchSize)
  .shuffle(config.seed)
  .setDevice(autodiff)
  .build(trainSet);
const { latentDim } = config.model;

// How far the generated images are from real ones, crudely: the distance between mean images.
const realMean = meanImage(
  batcher
    .batch(
      Array.from({ length: 1024 }, (_, i) => trainSet.get(i % trainSet.len())!),
      device,
    )
    .flatten(1, 3),
);
const fixedNoise = Tensor.random([64, latentDim], Distribution.Normal(0, 1), autodiff);
const meanDistance = async (): Promise<number> => {
  const fake = generator
    .forward(Tensor.random([1024, latentDim], Distribution.Normal(0, 1), autodiff))
    .detach()
    .inner();
  return await meanImage(fake).sub(realMean).powf(2).sum().sqrt().intoScalar();
};
const initialDistance = await meanDistance();
console.log(
  `WGAN: ${trainSet.len()} MNIST digits; generator ${generator.numParams()} parameters, critic ${discriminator.numParams()}; mean-image distance ${initialDistance.toFixed(3)}`,
);

const wasserstein: number[] = [];
const generatorLosses: number[] = [];
let steps = 0;
const started = Date.now();
for (let epoch = 0; epoch < config.numEpochs; epoch++) {
  let iteration = 0,
    wSum = 0,
    wCount = 0;
  for await (const real of loader) {
    const n = real.dims()[0];
    const noise = Tensor.random([n, latentDim], Distribution.Normal(0, 1), autodiff);
    // The critic: maximize score(real) - score(fake), with the generator's output detached.
    const fake = generator.forward(noise).detach().reshape([n, 1, 28, 28]);
    const lossD = discriminator.forward(real).mean().neg().add(discriminator.forward(fake).mean());
    discriminator = optimizerD.step(
      config.lr,
      discriminator,
      GradientsParams.fromGrads(lossD.backward(), discriminator),
    );
    discriminator = discriminator.clip(-config.clipValue, config.clipValue);
    const w = -(await lossD.intoScalar());
    wSum += w;
    wCount++;

    // The generator, every numCritic steps: maximize the critic's score of its images.
    if (iteration % config.numCritic === 0) {
      const lossG = discriminator
        .forward(generator.forward(noise).reshape([n, 1, 28, 28]))
        .mean()
        .neg();
      generator = optimizerG.step(config.lr, generator, GradientsParams.fromGrads(lossG.backward(), generator));
      generatorLosses.push(await lossG.intoScalar());
      if (smoke || iteration % 50 === 0)
        console.log(
          `[Epoch ${epoch + 1}/${config.numEpochs}] [Batch ${iteration}] [D loss: ${(-w).toFixed(5)}] [G loss: ${generatorLosses.at(-1)!.toFixed(5)}]`,
        );
    }
    iteration++;
    steps++;
  }
  wasserstein.push(wSum / wCount);
  if (epoch % config.sampleInterval === 0 || epoch === config.numEpochs - 1)
    await saveGrid(generator, fixedNoise, 8, join(artifactDir, `image-${epoch}.png`));
}
const seconds = (Date.now() - started) / 1000;
generator.saveFile(join(artifactDir, 'generator'));
discriminator.saveFile(join(artifactDir, 'discriminator'));
const finalDistance = await meanDistance();
console.log(`critic's Wasserstein estimate by epoch: ${wasserstein.map((w) => w.toFixed(4)).join(' ')}`);
console.log(
  `mean-image distance to real digits: ${initialDistance.toFixed(3)} → ${finalDistance.toFixed(3)}; ${steps} steps in ${seconds.toFixed(1)} s; samples in ${artifactDir}/image-*.png`,
);
// Every critic weight is within the clip range.
let criticMaxAbsWeight = 0;
for (const param of discriminator.params().values())
  criticMaxAbsWeight = Math.max(criticMaxAbsWeight, await (param.val() as Tensor<number>).abs().max().intoScalar());
const result = {
  steps,
  generatorSteps: generatorLosses.length,
  wasserstein,
  initialDistance,
  finalDistance,
  criticMaxAbsWeight,
  seconds,
};
console.log(`result ${JSON.stringify(result)}`);
if (smoke && values.artifacts === undefined) rmSync(artifactDir, { recursive: true, force: true });
