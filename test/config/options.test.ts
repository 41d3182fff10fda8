// Options objects are validated: a tensor passed where the options go, or an option the function
// does not know, is a BurnError naming the operation and the known options — otherwise
// `functional.batchNorm(x, gamma, beta, { runningMean, runningVar })` would compute garbage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, functional, Module, Param, Tensor } from '../../src/index.js';
import { LinearConfig } from '../../src/nn/index.js';
import { AdamConfig, ModuleOptimizer, SgdConfig } from '../../src/optim/index.js';
import { checkOptions } from '../../src/core/options.js';
import {
  AccuracyMetric,
  CliRenderer,
  MetricCheckpointingStrategy,
  MetricEarlyStoppingStrategy,
} from '../../src/train/index.js';

const device = Device.cpu({ engine: 'js' });
const refused = (f: () => unknown, op: string, pattern: RegExp) =>
  assert.throws(
    f,
    (e: unknown) => e instanceof BurnError && e.op === op && pattern.test(e.message),
    `${op}: ${pattern}`,
  );

describe('options objects are checked', () => {
  const x = Tensor.random([4, 3, 5], { kind: 'normal', mean: 0, std: 1 }, device);
  const gamma = Tensor.ones([3], device),
    beta = Tensor.zeros([3], device);
  const mean = Tensor.zeros([3], device),
    variance = Tensor.ones([3], device);

  it('functional.batchNorm: a tensor where the options go, or an unknown option, is refused', () => {
    // Burn-style positional statistics after the affine parameters: the fourth argument is a tensor.
    refused(
      () => functional.batchNorm(x, gamma, beta, mean as never),
      'batchNorm',
      /options must be an object .*got a Tensor of shape \[3\]/,
    );
    refused(
      () => functional.batchNorm(x, gamma, beta, { runningMean: mean, runningVar: variance } as never),
      'batchNorm',
      /unknown option 'runningMean'.*weight, bias, epsilon, training, momentum/,
    );
    refused(
      () => functional.batchNormWithStats(x, mean, variance, { eps: 1e-3 } as never),
      'batchNormWithStats',
      /unknown option 'eps'/,
    );
    refused(
      () => functional.layerNorm(x, [5], Tensor.ones([5], device) as never),
      'layerNorm',
      /options must be an object/,
    );
    // Well-formed calls are unchanged.
    const y = functional.batchNorm(x, mean, variance, { weight: gamma, bias: beta, epsilon: 0 });
    assert.deepEqual(y.toDataSync().toArray(), x.toDataSync().toArray());
    assert.deepEqual(functional.batchNorm(x, mean, variance).dims(), [4, 3, 5]);
  });

  it('module and optimizer options: Param, ModuleOptimizer.withGroup', () => {
    const t = Tensor.ones([2], device);
    refused(() => new Param(t, t as never), 'Param', /options must be an object .*got a Tensor/);
    refused(
      () => new Param(t, { requiresGrad: false } as never),
      'Param',
      /unknown option 'requiresGrad'.*id, requireGrad/,
    );
    const optim = new AdamConfig({}).init();
    refused(
      () => optim.withGroup('head', 'head', new SgdConfig({}).build(), { clipping: 1 } as never),
      'ModuleOptimizer.withGroup',
      /unknown option 'clipping'.*gradClipping/,
    );
    refused(
      () => new ModuleOptimizer(new SgdConfig({}).build(), 3 as never),
      'ModuleOptimizer',
      /options must be an object .*got 3/,
    );
    class Net extends Module {
      head = new LinearConfig({ dInput: 2, dOutput: 1 }).init(device);
    }
    assert.equal(new Net().numParams(), 3);
  });

  it('training options: strategies, renderer, metrics', () => {
    const loss = { name: 'Loss', higherIsBetter: false };
    refused(
      () => new MetricEarlyStoppingStrategy(loss, { patience: 2 } as never),
      'MetricEarlyStoppingStrategy',
      /unknown option 'patience'.*noImprovementSince/,
    );
    refused(
      () => new MetricCheckpointingStrategy(loss, { best: 'lowest' } as never),
      'MetricCheckpointingStrategy',
      /unknown option 'best'/,
    );
    refused(() => new CliRenderer({ interval: 0 } as never), 'CliRenderer', /unknown option 'interval'.*intervalMs/);
    refused(
      () => new AccuracyMetric({ ignoreIndex: 0 } as never),
      'AccuracyMetric',
      /unknown option 'ignoreIndex'.*padToken/,
    );
    assert.doesNotThrow(() => new MetricEarlyStoppingStrategy(loss, { noImprovementSince: 2, split: 'train' }));
  });

  it('checkOptions accepts undefined and plain objects with known keys; arrays, functions and primitives are refused', () => {
    assert.doesNotThrow(() => checkOptions(undefined, ['a'], 'op'));
    assert.doesNotThrow(() => checkOptions({ a: 1, b: undefined }, ['a', 'b'], 'op'));
    refused(() => checkOptions([1], ['a'], 'op'), 'op', /options must be an object \{ a \}, got an array/);
    refused(() => checkOptions(() => 1, ['a'], 'op'), 'op', /got a function/);
    refused(() => checkOptions('x', ['a'], 'op'), 'op', /got 'x'/);
    refused(() => checkOptions(null, ['a'], 'op'), 'op', /got null/);
  });
});
