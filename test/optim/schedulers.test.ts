// Learning-rate schedulers against torch.optim.lr_scheduler (test/fixtures/gen_optim.py): 30
// steps each; step k of burn-ts is PyTorch's rate after k − 1 scheduler steps. Noam is Burn's
// formula (through torch's LambdaLR); Composed combines the torch schedulers' sequences; Sequential
// is torch's SequentialLR (each scheduler starts from its own first step, as in Burn).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import {
  ComposedLrScheduler,
  ComposedLrSchedulerConfig,
  ConstantLr,
  CosineAnnealingLrSchedulerConfig,
  ExponentialLrSchedulerConfig,
  LinearLrSchedulerConfig,
  ModuleLrScheduler,
  ModuleLrSchedulerConfig,
  NoamLrSchedulerConfig,
  SequentialLrScheduler,
  SequentialLrSchedulerConfig,
  StepLrSchedulerConfig,
  toLrScheduler,
  type LrScheduler,
} from '../../src/optim/index.js';
import { fxValues } from '../helpers/fixtures.js';
import { assertClose, fixture } from './helpers.js';

type SchedulerConfigClass = { fromJSON(json: unknown): { init(): LrScheduler } };
const CLASSES: Record<string, SchedulerConfigClass> = {
  linear: LinearLrSchedulerConfig,
  cosine: CosineAnnealingLrSchedulerConfig,
  exponential: ExponentialLrSchedulerConfig,
  noam: NoamLrSchedulerConfig,
  step: StepLrSchedulerConfig,
  composed: ComposedLrSchedulerConfig,
  sequential: SequentialLrSchedulerConfig,
};
const cases = Object.entries(fixture).filter(([, c]) => c.params?.['scheduler'] !== undefined);

function schedulerOf(params: Record<string, unknown>): LrScheduler {
  return CLASSES[params['scheduler'] as string]!.fromJSON(params['config']).init();
}

function take(s: LrScheduler, n: number): number[] {
  return Array.from({ length: n }, () => s.step());
}

describe('learning-rate schedulers vs PyTorch', () => {
  it('the fixture covers every scheduler', () => {
    assert.deepEqual(new Set(cases.map(([, c]) => c.params!['scheduler'])), new Set(Object.keys(CLASSES)));
  });
  for (const [name, c] of cases) {
    it(`${name}: 30 learning rates`, () => {
      const expected = fxValues(c.outputs['lrs']!);
      assertClose(take(schedulerOf(c.params!), expected.length), expected, 1e-10, 1e-14, name);
    });
    it(`${name}: resuming from a record gives the same rates`, () => {
      for (const cut of [0, 1, 7, 13]) {
        const whole = take(schedulerOf(c.params!), 30);
        const first = schedulerOf(c.params!);
        const before = take(first, cut);
        const record = JSON.parse(JSON.stringify(first.toRecord())) as Record<string, number>;
        const resumed = schedulerOf(c.params!).loadRecord(record);
        assert.deepEqual([...before, ...take(resumed, 30 - cut)], whole, `${name}, resumed after ${cut} steps`);
      }
    });
  }
});

describe('scheduler configs', () => {
  it('a plain number is a constant scheduler, alone and inside Composed / Sequential', () => {
    assert.deepEqual(take(toLrScheduler(0.3), 3), [0.3, 0.3, 0.3]);
    assert.deepEqual(take(new ConstantLr(0.2), 2), [0.2, 0.2]);
    assert.deepEqual(new ConstantLr(0.2).toRecord(), {});
    const composed = new ComposedLrScheduler(
      [0.5, new ExponentialLrSchedulerConfig({ initialLr: 0.1, gamma: 0.5 }).init()],
      'prod',
    );
    assertClose(take(composed, 3), [0.05, 0.025, 0.0125], 1e-15, 0, 'prod');
    const seq = new SequentialLrScheduler([0.1, 0.2], [2]);
    assert.deepEqual(take(seq, 4), [0.1, 0.1, 0.2, 0.2]);
  });

  it('Burn defaults: cosine minLr 0, noam warmup 4000 / model size 512, step gamma 0.1, composed reduction prod', () => {
    const cos = new CosineAnnealingLrSchedulerConfig({ initialLr: 0.1, numIters: 4 });
    assert.equal(cos.minLr, 0);
    assertClose(
      take(cos.init(), 5),
      [0.1, (0.1 * (1 + Math.SQRT1_2)) / 2, 0.05, (0.1 * (1 - Math.SQRT1_2)) / 2, 0],
      1e-15,
      1e-17,
      'cosine',
    );
    const noam = new NoamLrSchedulerConfig({ factor: 1 });
    assert.equal(noam.warmupSteps, 4000);
    assert.equal(noam.modelSize, 512);
    assertClose([noam.init().step()], [512 ** -0.5 * 4000 ** -1.5], 1e-15, 0, 'noam step 1');
    assert.equal(new StepLrSchedulerConfig({ initialLr: 1, stepSize: 1 }).gamma, 0.1);
    assert.equal(new ComposedLrSchedulerConfig({}).reduction, 'prod');
  });

  it('Composed and Sequential configs save as JSON tagged with Burn variant names and load back', () => {
    const config = new SequentialLrSchedulerConfig({
      schedulers: [
        new LinearLrSchedulerConfig({ initialLr: 0.01, finalLr: 0.1, numIters: 3 }),
        new ComposedLrSchedulerConfig({
          schedulers: [0.5, { Cosine: { initialLr: 0.1, numIters: 5 } }],
          reduction: 'sum',
        }),
      ],
      milestones: [4],
    });
    const json = JSON.parse(JSON.stringify(config.toJSON())) as Record<string, unknown>;
    assert.deepEqual(json, {
      schedulers: [
        { Linear: { initialLr: 0.01, finalLr: 0.1, numIters: 3 } },
        { Composed: { schedulers: [0.5, { Cosine: { initialLr: 0.1, minLr: 0, numIters: 5 } }], reduction: 'sum' } },
      ],
      milestones: [4],
    });
    const loaded = SequentialLrSchedulerConfig.fromJSON(json);
    assert.deepEqual(take(loaded.init(), 12), take(config.init(), 12));
    assert.deepEqual(
      take(SequentialLrSchedulerConfig.fromJSON({ schedulers: [{ Constant: 0.1 }, 0.2], milestones: [1] }).init(), 2),
      [0.1, 0.2],
    );
    // with() re-validates the tagged schedulers.
    assert.deepEqual(take(config.with({ milestones: [2] }).init(), 3).length, 3);
  });

  it('ModuleLrScheduler steps one scheduler per group and resumes from its record', () => {
    const make = () =>
      new ModuleLrScheduler(new StepLrSchedulerConfig({ initialLr: 0.1, stepSize: 2, gamma: 0.5 }).init())
        .withGroup('head', new ExponentialLrSchedulerConfig({ initialLr: 0.2, gamma: 0.5 }).init())
        .withGroup('frozen', 0);
    const s = make();
    assert.deepEqual(s.groupNames(), ['default', 'head', 'frozen']);
    assert.deepEqual(s.step(), { default: 0.1, head: 0.2, frozen: 0 });
    assert.deepEqual(s.step(), { default: 0.1, head: 0.1, frozen: 0 });
    const resumed = make().loadRecord(s.toRecord());
    assert.deepEqual(resumed.step(), s.step());
    assert.deepEqual(s.toRecord(), { 'default.iterIdx': 2, 'head.previousLr': 0.05 });
    const fromConfig = new ModuleLrSchedulerConfig({
      base: 0.1,
      groups: { head: { Linear: { initialLr: 0.5, finalLr: 0.1, numIters: 2 } } },
    }).init();
    assertClose(Object.values(fromConfig.step()), [0.1, 0.5], 1e-15, 0, 'config');
    assert.throws(
      () => make().withGroup('head', 1),
      /ModuleLrScheduler.withGroup: the group 'head' has a scheduler already/,
    );
  });

  it('bad configs and records are BurnErrors naming the field and value', () => {
    const cases: [() => unknown, RegExp][] = [
      [
        () => new LinearLrSchedulerConfig({ initialLr: 0, finalLr: 0.1, numIters: 3 }),
        /LinearLrSchedulerConfig: invalid config: initialLr: must be in \(0, 1\], got 0/,
      ],
      [
        () => new LinearLrSchedulerConfig({ initialLr: 1.5, finalLr: 0.1, numIters: 3 }),
        /initialLr: must be in \(0, 1\], got 1\.5/,
      ],
      [
        () => new LinearLrSchedulerConfig({ initialLr: 0.1, finalLr: -0.1, numIters: 3 }),
        /finalLr: must be in \[0, 1\], got -0\.1/,
      ],
      [
        () => new LinearLrSchedulerConfig({ initialLr: 0.1, finalLr: 0.1, numIters: 0 }),
        /numIters: must be an integer >= 1, got 0/,
      ],
      [
        () => new CosineAnnealingLrSchedulerConfig({ initialLr: 0.1, minLr: 0.2, numIters: 3 }).init(),
        /CosineAnnealingLrSchedulerConfig: minLr 0\.2 must be at most initialLr 0\.1/,
      ],
      [() => new ExponentialLrSchedulerConfig({ initialLr: 0.1, gamma: 0 }), /gamma: must be in \(0, 1\], got 0/],
      [() => new NoamLrSchedulerConfig({ factor: 1, warmupSteps: 0 }), /warmupSteps: must be an integer >= 1, got 0/],
      [() => new NoamLrSchedulerConfig({ factor: 1, modelSize: 2.5 }), /modelSize: must be an integer, got 2\.5/],
      [() => new StepLrSchedulerConfig({ initialLr: 0.1, stepSize: 0 }), /stepSize: must be an integer >= 1, got 0/],
      [
        () => new SequentialLrSchedulerConfig({ schedulers: [0.1, 0.2], milestones: [] }).init(),
        /SequentialLrSchedulerConfig: 2 schedulers need 1 milestones, got 0/,
      ],
      [
        () => new SequentialLrSchedulerConfig({ schedulers: [0.1, 0.2, 0.3], milestones: [3, 3] }).init(),
        /strictly increasing order, got \[3, 3\]/,
      ],
      [
        () => new SequentialLrSchedulerConfig({ schedulers: [], milestones: [] }).init(),
        /at least one scheduler is required/,
      ],
      [() => new SequentialLrScheduler([0.1, 0.2], [0]), /SequentialLrScheduler: milestones must be positive/],
      [
        () => ComposedLrSchedulerConfig.fromJSON({ schedulers: [{ Warmup: {} }] }),
        /schedulers\.0: expected a number or a scheduler config .*Warmup/,
      ],
      [
        () =>
          ComposedLrSchedulerConfig.fromJSON({ schedulers: [{ Linear: { initialLr: 2, finalLr: 0, numIters: 1 } }] }),
        /Linear: LinearLrSchedulerConfig: invalid config: initialLr: must be in \(0, 1\], got 2/,
      ],
      [() => new ComposedLrScheduler([0.1], 'max' as 'sum'), /ComposedLrScheduler: unknown reduction 'max'/],
      [() => new ConstantLr(Number.NaN), /ConstantLr: the learning rate must be a finite number, got NaN/],
      [
        () => new StepLrSchedulerConfig({ initialLr: 0.1, stepSize: 2 }).init().loadRecord({}),
        /StepLrScheduler.loadRecord: the record has no number 'iterIdx'/,
      ],
      [() => new ModuleLrScheduler(0.1).withGroup('', 0.1), /a group needs a non-empty name/],
    ];
    for (const [f, message] of cases) {
      assert.throws(f, (e: unknown) => e instanceof BurnError && message.test(e.message), String(message));
    }
  });
});
