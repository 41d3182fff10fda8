// Optimizer records: continuing from a saved state gives exactly the parameters of never stopping
// (bit for bit), for every optimizer of the fixture, into a fresh optimizer and a model rebuilt
// from its module record (new parameter ids: states are matched by path); L-BFGS too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, TensorData } from '../../src/index.js';
import {
  AdamConfig,
  SgdConfig,
  type Lbfgs,
  type ModuleOptimizer,
  type OptimizerRecord,
} from '../../src/optim/index.js';
import { batch, fixture, flatParams, initialMlp, lbfgsConfigOf, lossAndGrads, Mlp, optimizerOf } from './helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();
const optimizerCases = Object.entries(fixture).filter(
  ([, c]) =>
    c.params?.['optimizer'] !== undefined && c.params['optimizer'] !== 'lbfgs' && c.params['schedulers'] === undefined,
);

/** A deep copy through plain values, as a file would give it back. */
function copyRecord(r: OptimizerRecord): OptimizerRecord {
  const tensors = Object.fromEntries(
    Object.entries(r.tensors).map(([k, d]) => [
      k,
      new TensorData(Array.from(d.toArray() as ArrayLike<number>), d.shape, d.dtype),
    ]),
  );
  return {
    tensors,
    scalars: JSON.parse(JSON.stringify(r.scalars)) as Record<string, number>,
    paths: JSON.parse(JSON.stringify(r.paths)) as Record<string, string>,
  };
}

function train(optim: ModuleOptimizer, model: Mlp, steps: number, lr: number | Record<string, number>): Mlp {
  const { x, y } = batch(device, 'f32');
  for (let k = 0; k < steps; k++) model = optim.step(lr, model, lossAndGrads(model, x, y).grads);
  return model;
}

describe('optimizer records: exact resume', () => {
  for (const [name, c] of optimizerCases) {
    it(name, async () => {
      const bias = c.params!['bias'] as boolean;
      const lr = c.params!['lr'] as number | Record<string, number>;
      const whole = flatParams(train(optimizerOf(c), initialMlp(device, 'f32', bias), 12, lr));

      const first = optimizerOf(c);
      const half = train(first, initialMlp(device, 'f32', bias), 5, lr);
      const record = copyRecord(await first.toRecord());
      assert.ok(
        Object.keys(record.tensors).length > 0 ||
          name.startsWith('sgd_plain') ||
          name.startsWith('clip_value_sgd') ||
          name.startsWith('clip_norm_sgd'),
        'state tensors saved',
      );
      // Same parameter ids: resume into a fresh optimizer.
      const resumed = train(optimizerOf(c).loadRecord(record), half, 7, lr);
      assert.deepEqual(flatParams(resumed), whole, 'resumed with the same ids');
      // New ids: the model rebuilt from its module record, as after a restart.
      const rebuilt = new Mlp(device, bias).loadRecord(await half.toRecord());
      const resumed2 = train(optimizerOf(c).loadRecord(record), rebuilt, 7, lr);
      assert.deepEqual(flatParams(resumed2), whole, 'resumed with new ids (matched by path)');
      // A record of a loaded-but-not-stepped optimizer is the same record.
      const again = await optimizerOf(c).loadRecord(record).toRecord();
      assert.deepEqual(Object.keys(again.tensors).sort(), Object.keys(record.tensors).sort());
      assert.deepEqual(again.scalars, record.scalars);
    });
  }

  it('Adam record layout: <paramId>.momentum.{time,moment1,moment2} and paths', async () => {
    const model = initialMlp(device, 'f32');
    const optim = new AdamConfig({ amsgrad: true }).init<Mlp>();
    const { x, y } = batch(device, 'f32');
    optim.step(0.01, model, lossAndGrads(model, x, y).grads);
    const record = await optim.toRecord();
    const id = model.l1.weight.id;
    assert.equal(record.paths[id], 'l1.weight');
    assert.equal(record.scalars[`${id}.momentum.time`], 1);
    assert.deepEqual(record.tensors[`${id}.momentum.moment1`]!.shape, [3, 4]);
    assert.deepEqual(record.tensors[`${id}.momentum.maxMoment2`]!.shape, [3, 4]);
    assert.equal(Object.keys(record.paths).length, 4);
  });

  it('L-BFGS: resuming from its record gives the same parameters', async () => {
    const c = fixture['lbfgs_wolfe']!;
    const { x, y } = batch(device, 'f64');
    const closure = (m: Mlp) => lossAndGrads(m, x, y);
    const run = async (lbfgs: Lbfgs<Mlp>, model: Mlp, steps: number) => {
      for (let k = 0; k < steps; k++) ({ module: model } = await lbfgs.step(1, model, closure));
      return model;
    };
    const whole = flatParams(await run(lbfgsConfigOf(c).init<Mlp>(), initialMlp(device, 'f64'), 8));
    const first = lbfgsConfigOf(c).init<Mlp>();
    const half = await run(first, initialMlp(device, 'f64'), 3);
    const record = copyRecord(await first.toRecord());
    assert.ok(
      'historyS.0' in record.tensors &&
        typeof record.scalars['gIter'] === 'number' &&
        typeof record.scalars['t'] === 'number',
    );
    const resumed = await run(lbfgsConfigOf(c).init<Mlp>().loadRecord(record), half, 5);
    assert.deepEqual(flatParams(resumed), whole);
    assert.throws(
      () => lbfgsConfigOf(c).init().loadRecord({ tensors: {}, scalars: {}, paths: {} }),
      /Lbfgs.loadRecord: the record has no 'gIter' scalar/,
    );
  });

  it('bad records are BurnErrors', () => {
    const optim = new SgdConfig({}).init();
    const bad = [
      [
        { tensors: {}, scalars: { 'abc.time': 1 }, paths: {} },
        /record entry 'abc.time' belongs to no parameter of the record/,
      ],
      [{ tensors: { 'p.v': [1, 2] }, scalars: {}, paths: { p: 'l1.weight' } }, /record tensor 'p.v' is not TensorData/],
      [{ tensors: {}, scalars: { 'p.t': '1' }, paths: { p: 'l1.weight' } }, /record scalar 'p.t' is not a number/],
      [{ tensors: {}, scalars: {} }, /the record must have tensors, scalars and paths/],
    ] as const;
    for (const [record, message] of bad) {
      assert.throws(
        () => optim.loadRecord(record as unknown as OptimizerRecord),
        (e: unknown) => e instanceof BurnError && message.test(e.message),
        String(message),
      );
    }
  });
});
