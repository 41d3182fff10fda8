// Type-level tests of SupervisedTraining: the model's step outputs flow into
// the metrics' inputs, so a metric that cannot read them (accuracy on a regression) is a compile
// error instead of a metric that logs 0. `npm run typecheck` checks every `@ts-expect-error`.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Device, Module, Tensor, type Int } from '../../src/index.js';
import { Linear, LinearConfig, MseLoss } from '../../src/nn/index.js';
import { SgdConfig } from '../../src/optim/index.js';
import {
  AccuracyMetric,
  ClassificationOutput,
  Learner,
  LearningRateMetric,
  LossMetric,
  RegressionOutput,
  SupervisedTraining,
  TrainOutput,
  type InferenceStep,
  type TrainingLoader,
  type TrainStep,
} from '../../src/train/index.js';

interface RegressionBatch {
  readonly x: Tensor<2>;
  readonly y: Tensor<2>;
}

class Regressor
  extends Module
  implements TrainStep<RegressionBatch, RegressionOutput>, InferenceStep<RegressionBatch, RegressionOutput>
{
  linear: Linear;
  constructor(device: Device) {
    super();
    this.linear = new LinearConfig({ dInput: 2, dOutput: 1 }).init(device);
  }
  private regress(batch: RegressionBatch): RegressionOutput {
    const output = this.linear.forward(batch.x);
    return new RegressionOutput(new MseLoss().forward(output, batch.y, 'mean'), output, batch.y);
  }
  trainStep(batch: RegressionBatch): TrainOutput<RegressionOutput> {
    const item = this.regress(batch);
    return new TrainOutput(this, item.loss.backward(), item);
  }
  inferenceStep(batch: RegressionBatch): RegressionOutput {
    return this.regress(batch);
  }
}

interface ClassBatch {
  readonly x: Tensor<2>;
  readonly y: Tensor<1, Int>;
}

class Classifier
  extends Module
  implements TrainStep<ClassBatch, ClassificationOutput>, InferenceStep<ClassBatch, ClassificationOutput>
{
  linear: Linear;
  constructor(device: Device) {
    super();
    this.linear = new LinearConfig({ dInput: 2, dOutput: 3 }).init(device);
  }
  trainStep(batch: ClassBatch): TrainOutput<ClassificationOutput> {
    const item = this.inferenceStep(batch);
    return new TrainOutput(this, item.loss.backward(), item);
  }
  inferenceStep(batch: ClassBatch): ClassificationOutput {
    const output = this.linear.forward(batch.x);
    return new ClassificationOutput(output.sum(), output, batch.y);
  }
}

const empty = <B>(): TrainingLoader<B> => ({ numItems: () => 0, async *[Symbol.asyncIterator]() {} });

it('metrics are checked against the outputs of the model the learner trains', () => {
  const device = Device.cpu({ engine: 'js' }).autodiff();
  const regressor = new Learner(new Regressor(device), new SgdConfig({}).init<Regressor>(), 0.1);
  const classifier = new Learner(new Classifier(device), new SgdConfig({}).init<Classifier>(), 0.1);
  const regression = () => new SupervisedTraining('unused', empty<RegressionBatch>(), empty<RegressionBatch>());
  const classification = () => new SupervisedTraining('unused', empty<ClassBatch>(), empty<ClassBatch>());

  // What fits compiles: loss and learning rate on a regression, accuracy on a classifier.
  const launches = [
    () => regression().metrics([new LossMetric(), new LearningRateMetric()]).launch(regressor),
    () => classification().metrics([new AccuracyMetric(), new LossMetric()]).numEpochs(1).launch(classifier),
    () => classification().metrics([new AccuracyMetric()]).metrics([new LossMetric()]).launch(classifier),
    () => regression().launch(regressor),
  ];
  // @ts-expect-error accuracy reads class targets [batch] (Int); a regression has float targets [batch, outputs]
  const bad = () => regression().metrics([new AccuracyMetric(), new LossMetric()]).launch(regressor);
  // Short chains, so that the formatter keeps each `@ts-expect-error` on the line of its error.
  const later = () => regression().metrics([new LossMetric()]).numEpochs(2).metrics([new AccuracyMetric()]);
  // @ts-expect-error the same when the metric comes in a later call
  const bad2 = () => later().launch(regressor);
  // @ts-expect-error the loader's batches must be the model's batches
  const bad3 = () => classification().launch(regressor);
  const named = () => new SupervisedTraining<RegressionBatch, RegressionOutput>('unused', empty(), empty());
  // @ts-expect-error also with the outputs named up front
  const bad4 = () => named().metrics([new AccuracyMetric()]).launch(regressor);
  assert.equal(launches.length + [bad, bad2, bad3, bad4].length, 8);
});
