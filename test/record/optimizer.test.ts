// Optimizer and scheduler state through the recorders (the same machinery as modules): an Adam
// run saved after 5 steps with each recorder and resumed for 7 more gives exactly the parameters
// of 12 uninterrupted steps; a scheduler record round-trips.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Device } from '../../src/index.js';
import {
  AdamConfig,
  CosineAnnealingLrSchedulerConfig,
  type ModuleOptimizer,
  type OptimizerRecord,
} from '../../src/optim/index.js';
import {
  BinFileRecorder,
  DefaultRecorder,
  NamedMpkGzFileRecorder,
  PrettyJsonFileRecorder,
  loadRecordFile,
  saveRecordFile,
} from '../../src/record/index.js';
import { batch, flatParams, initialMlp, lossAndGrads, type Mlp } from '../optim/helpers.js';
import { tempDir } from '../store/helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();

function train(optim: ModuleOptimizer<Mlp>, model: Mlp, steps: number): Mlp {
  const { x, y } = batch(device, 'f32');
  for (let k = 0; k < steps; k++) model = optim.step(0.01, model, lossAndGrads(model, x, y).grads);
  return model;
}

describe('optimizer and scheduler records through recorders', () => {
  for (const recorder of [
    new DefaultRecorder(),
    new NamedMpkGzFileRecorder(),
    new BinFileRecorder(),
    new PrettyJsonFileRecorder(),
  ]) {
    it(`Adam resumes exactly from a ${recorder.extension} file`, async () => {
      const [dir, done] = tempDir();
      try {
        const make = () => new AdamConfig({ amsgrad: true }).init<Mlp>() as ModuleOptimizer<Mlp>;
        const whole = flatParams(train(make(), initialMlp(device, 'f32'), 12));
        const first = make();
        const half = train(first, initialMlp(device, 'f32'), 5);
        const path = saveRecordFile(await first.toRecord(), join(dir, 'optim'), recorder);
        const loaded = loadRecordFile<OptimizerRecord>(path, recorder);
        assert.ok(Object.keys(loaded.tensors).length > 0);
        const modelPath = half.saveFile(join(dir, 'model'), recorder);
        const model = initialMlp(device, 'f32').loadFile(modelPath, device, recorder);
        const resumed = train(make().loadRecord(loaded), model.train(), 7);
        assert.deepEqual(flatParams(resumed), whole, 'bit-identical resume through files');
      } finally {
        done();
      }
    });
  }

  it('a scheduler record (JSON state) round-trips', () => {
    const [dir, done] = tempDir();
    try {
      const sched = new CosineAnnealingLrSchedulerConfig({ initialLr: 0.1, numIters: 10 }).init();
      for (let i = 0; i < 3; i++) sched.step();
      const path = saveRecordFile({ tensors: {}, scheduler: sched.toRecord() }, join(dir, 'sched'));
      const back = loadRecordFile<{ tensors: Record<string, never>; scheduler: Record<string, number> }>(path);
      assert.deepEqual(back.scheduler, sched.toRecord());
      const resumed = new CosineAnnealingLrSchedulerConfig({ initialLr: 0.1, numIters: 10 })
        .init()
        .loadRecord(back.scheduler);
      assert.equal(resumed.step(), sched.step());
    } finally {
      done();
    }
  });
});
