// Every optimizer against PyTorch (test/fixtures/gen_optim.py): the same MLP, the same initial
// parameters, gradients from autodiff at the current parameters, 20–25 steps; the parameters after
// every step must match torch.optim's (or, for Adan, Muon and cautious AdamW, which torch 1.13
// lacks, the reference update written with torch ops from Burn's definition). Burn's defaults are
// used where they differ from PyTorch's (epsilon 1e-5, AdamW decay 1e-4, RMSprop momentum 0.9,
// SGD dampening 0.1, per-parameter clipping): the generator passes them to torch explicitly.
//
// Float64 runs compare at rtol 1e-9 (the formulas are the same to rounding); float32 runs at 2e-4
// (float32 rounding over 25 coupled steps).
import { describe, it } from 'node:test';
import { Device, type DType } from '../../src/index.js';
import {
  ModuleLrScheduler,
  StepLrSchedulerConfig,
  ExponentialLrSchedulerConfig,
  type ModuleLearningRate,
} from '../../src/optim/index.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { fxValues } from '../helpers/fixtures.js';
import {
  assertClose,
  batch,
  fixture,
  flatParams,
  initialMlp,
  lbfgsConfigOf,
  lossAndGrads,
  lossOf,
  optimizerOf,
  type Mlp,
} from './helpers.js';

const RUNS: { name: string; device: () => Device; dtype: DType; rtol: number; atol: number }[] = [
  {
    name: 'f64, autodiff<cpu(js)>',
    device: () => Device.cpu({ engine: 'js' }).autodiff(),
    dtype: 'f64',
    rtol: 1e-9,
    atol: 1e-11,
  },
  {
    name: 'f64, autodiff<required-only>',
    device: () => requiredOnlyDevice().autodiff(),
    dtype: 'f64',
    rtol: 1e-9,
    atol: 1e-11,
  },
  {
    name: 'f32, autodiff<cpu(js)>',
    device: () => Device.cpu({ engine: 'js' }).autodiff(),
    dtype: 'f32',
    rtol: 2e-4,
    atol: 2e-5,
  },
];

const optimizerCases = Object.entries(fixture).filter(
  ([, c]) => c.params?.['optimizer'] !== undefined && c.params['optimizer'] !== 'lbfgs',
);
const lbfgsCases = Object.entries(fixture).filter(([, c]) => c.params?.['optimizer'] === 'lbfgs');

/** The learning rate of each step: a number, per-group numbers, or per-group schedulers. */
function lrSource(params: Record<string, unknown>): () => ModuleLearningRate {
  const schedulers = params['schedulers'] as Record<string, Record<string, unknown>> | undefined;
  if (schedulers === undefined) return () => params['lr'] as ModuleLearningRate;
  const build = (json: Record<string, unknown>) =>
    'Step' in json
      ? StepLrSchedulerConfig.fromJSON(json['Step']).init()
      : ExponentialLrSchedulerConfig.fromJSON(json['Exponential']).init();
  const module = new ModuleLrScheduler(build(schedulers['default']!));
  for (const [name, json] of Object.entries(schedulers)) if (name !== 'default') module.withGroup(name, build(json));
  return () => module.step();
}

for (const run of RUNS) {
  describe(`optimizer trajectories vs PyTorch (${run.name})`, () => {
    for (const [name, c] of optimizerCases) {
      it(name, () => {
        const device = run.device();
        const params = c.params as Record<string, unknown>;
        let model: Mlp = initialMlp(device, run.dtype, params['bias'] as boolean);
        const { x, y } = batch(device, run.dtype);
        const optim = optimizerOf(c);
        const lr = lrSource(params);
        const expected = fxValues(c.outputs['trajectory']!);
        const width = c.outputs['trajectory']!.shape[1]!;
        const steps = params['steps'] as number;
        for (let k = 0; k < steps; k++) {
          model = optim.step(lr(), model, lossAndGrads(model, x, y).grads);
          assertClose(
            flatParams(model),
            expected.slice(k * width, (k + 1) * width),
            run.rtol,
            run.atol,
            `${name} step ${k + 1}`,
          );
        }
      });
    }
    for (const [name, c] of lbfgsCases) {
      it(name, async () => {
        const device = run.device();
        let model: Mlp = initialMlp(device, run.dtype);
        const { x, y } = batch(device, run.dtype);
        const lbfgs = lbfgsConfigOf(c).init<Mlp>();
        const params = c.params as Record<string, unknown>;
        const expected = fxValues(c.outputs['trajectory']!);
        const losses = fxValues(c.outputs['losses']!);
        const width = c.outputs['trajectory']!.shape[1]!;
        const closure = (m: Mlp) => lossAndGrads(m, x, y);
        // L-BFGS branches on its scalars (line search, tolerances), so float32 is only checked on
        // the first step (up to 20 iterations).
        const steps = run.dtype === 'f64' ? (params['steps'] as number) : 1;
        for (let k = 0; k < steps; k++) {
          ({ module: model } = await lbfgs.step(params['lr'] as number, model, closure));
          const tol = run.dtype === 'f64' ? run.rtol * 100 : 1e-3;
          assertClose(flatParams(model), expected.slice(k * width, (k + 1) * width), tol, tol, `${name} step ${k + 1}`);
          assertClose(
            [await lossOf(model.valid(), x.inner(), y.inner()).intoScalar()],
            [losses[k]!],
            tol,
            tol,
            `${name} loss after step ${k + 1}`,
          );
        }
      });
    }
  });
}
