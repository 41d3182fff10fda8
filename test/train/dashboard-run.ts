// A tiny training run with the default renderer, for the dashboard test (run under tmux, a real
// pseudo-terminal) and the Ctrl-C test.
// Usage: node --import tsx test/train/dashboard-run.ts <artifactDir> <epochs> <delayMs> [checkpoints: 1|0]
// Writes <artifactDir>/result.json when launch() returns.
import { writeFileSync } from 'node:fs';
import { Device } from '../../src/index.js';
import { SgdConfig } from '../../src/optim/index.js';
import { AccuracyMetric, Learner, LossMetric, SupervisedTraining, TrainingInterrupter } from '../../src/train/index.js';
import { TinyClassifier, TinyLoader, tinyData } from './helpers.js';

const [dir = '/tmp/burn-dashboard', epochs = '3', delay = '40', checkpoints = '1'] = process.argv.slice(2);
const device = Device.cpu({ engine: 'js' }).autodiff();
device.seed(3);
const interrupter = new TrainingInterrupter();
const training = new SupervisedTraining(
  dir,
  new TinyLoader(tinyData(256, 1), 16, device, Number(delay)),
  new TinyLoader(tinyData(64, 2), 16, device, Number(delay)),
)
  .metrics([new AccuracyMetric(), new LossMetric()])
  .numEpochs(Number(epochs))
  .withInterrupter(interrupter)
  .summary();
if (checkpoints === '1') training.withFileCheckpointer();
const result = await training.launch(
  new Learner(new TinyClassifier(device), new SgdConfig({}).init<TinyClassifier>(), 0.5),
);
writeFileSync(
  `${dir}/result.json`,
  JSON.stringify({ epochs: result.summary.epochs, stopped: interrupter.reason() ?? null }),
);
