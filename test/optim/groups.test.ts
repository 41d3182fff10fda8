// ModuleOptimizer: parameter groups (routing by path filter, per-group learning rates), frozen
// parameters and parameters without gradients, fresh leaves on autodiff devices, ids, plain
// (non-autodiff) devices, and the errors of step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor, type Float } from '../../src/index.js';
import {
  AdamConfig,
  GradientsParams,
  ModuleOptimizer,
  MuonConfig,
  Sgd,
  SgdConfig,
  matchesFilter,
} from '../../src/optim/index.js';
import { batch, flatParams, initialMlp, lossAndGrads, type Mlp } from './helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();

function values(t: Tensor<number, Float>): number[] {
  return Array.from(t.toDataSync().toArray() as ArrayLike<number>);
}

describe('ModuleOptimizer groups', () => {
  it('routes parameters by prefix, RegExp or predicate; the last matching group wins', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const { grads } = lossAndGrads(model, x, y);
    for (const filter of ['l2', /^l2\./, (path: string) => path.startsWith('l2.')]) {
      const optim = new AdamConfig({}).init<Mlp>().withGroup('head', filter, new Sgd());
      assert.equal(optim.groupOf('l1.weight'), 'default');
      assert.equal(optim.groupOf('l2.bias'), 'head');
      const next = optim.step({ default: 0.01, head: 0.5 }, model, grads);
      // The head group is plain SGD: θ − 0.5·g exactly.
      for (const name of ['weight', 'bias'] as const) {
        const param = model.l2[name]!.val() as Tensor<number, Float>;
        const expected = values(param.inner().sub(grads.get(model.l2[name]!.id)!.mul(0.5)));
        assert.deepEqual(values(next.l2[name]!.val()), expected, `l2.${name}`);
      }
      // The default group is Adam: its first step moves each component by about lr.
      const moved = values(next.l1.weight.val().inner().sub(model.l1.weight.val().inner()).abs());
      for (const m of moved) assert.ok(Math.abs(m - 0.01) < 1e-3, `adam step ${m}`);
    }
    const layered = new SgdConfig({})
      .init<Mlp>()
      .withGroup('a', 'l1', new Sgd())
      .withGroup('b', /weight$/, new Sgd());
    assert.deepEqual(
      ['l1.weight', 'l1.bias', 'l2.weight', 'l2.bias'].map((p) => layered.groupOf(p)),
      ['b', 'a', 'b', 'default'],
    );
    assert.deepEqual(layered.groupNames(), ['default', 'a', 'b']);
  });

  it('a group without its own learning rate uses the default one', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const { grads } = lossAndGrads(model, x, y);
    const a = new SgdConfig({}).init<Mlp>().withGroup('head', 'l2', new Sgd()).step({ default: 0.1 }, model, grads);
    const b = new SgdConfig({}).init<Mlp>().step(0.1, model, grads);
    assert.deepEqual(flatParams(a), flatParams(b));
  });

  it('adding a group resets the state of the parameters it takes over', async () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const optim = new AdamConfig({}).init<Mlp>();
    optim.step(0.01, model, lossAndGrads(model, x, y).grads);
    assert.equal(Object.keys((await optim.toRecord()).paths).length, 4);
    optim.withGroup('head', 'l2', new Sgd());
    assert.deepEqual(Object.values((await optim.toRecord()).paths).sort(), ['l1.bias', 'l1.weight']);
  });

  it('frozen parameters and parameters without a gradient are returned untouched', () => {
    const model = initialMlp(device, 'f32').freeze('l1');
    const { x, y } = batch(device, 'f32');
    const { grads } = lossAndGrads(model, x, y);
    assert.equal(grads.has(model.l1.weight.id), false, 'no gradient for a frozen parameter');
    // Even a gradient registered by hand does not move a frozen parameter.
    grads.register(model.l1.weight.id, Tensor.ones([3, 4], { device: device.inner() }));
    grads.remove(model.l2.bias!.id);
    const next = new SgdConfig({}).init<Mlp>().step(0.1, model, grads);
    assert.equal(next.l1.weight, model.l1.weight, 'frozen: the same Param');
    assert.equal(next.l1.weight.requireGrad, false);
    assert.equal(next.l2.bias, model.l2.bias, 'no gradient: the same Param');
    assert.notDeepEqual(values(next.l2.weight.val()), values(model.l2.weight.val()));
  });

  it('updated parameters keep their ids and are fresh leaves that require grad', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const next = new AdamConfig({}).init<Mlp>().step(0.01, model, lossAndGrads(model, x, y).grads);
    model.visit((p, path) => {
      const q = next.params().get(path)!;
      assert.equal(q.id, p.id, path);
      assert.ok(q.requireGrad && q.val().isRequireGrad(), `${path} requires grad`);
      assert.ok(q.device().isAutodiff());
    });
    // The next backward pass reaches every updated parameter.
    const grads = lossAndGrads(next, x, y).grads;
    assert.equal(grads.len(), 4);
  });

  it('works on a device without autodiff with gradients registered by hand', () => {
    const plain = Device.cpu({ engine: 'js' });
    const model = initialMlp(plain, 'f32');
    const grads = new GradientsParams();
    model.visit((p) => grads.register(p.id, Tensor.ones(p.dims(), plain) as Tensor<number, Float>));
    const next = new SgdConfig({}).init<Mlp>().step(0.5, model, grads);
    assert.deepEqual(
      flatParams(next),
      flatParams(model).map((v) => Math.fround(v - 0.5)),
    );
    assert.equal(next.l1.weight.device(), plain);
  });

  it('matchesFilter follows Module.freeze: whole path segments for prefixes', () => {
    assert.equal(matchesFilter('l1', 'l1.weight'), true);
    assert.equal(matchesFilter('l1', 'l10.weight'), false);
    assert.equal(matchesFilter('l1.weight', 'l1.weight'), true);
    assert.equal(matchesFilter(/bias$/g, 'l1.bias'), true);
    assert.equal(matchesFilter(/bias$/g, 'l1.bias'), true, 'a global RegExp is not stateful');
    assert.equal(matchesFilter(undefined, 'x'), true);
  });

  it('errors: unknown group, missing default, bad learning rates, duplicate groups, shapes, Muon on 1-d parameters', () => {
    const model = initialMlp(device, 'f32');
    const { x, y } = batch(device, 'f32');
    const { grads } = lossAndGrads(model, x, y);
    const optim = new SgdConfig({}).init<Mlp>().withGroup('head', 'l2', new Sgd());
    const cases: [() => unknown, RegExp][] = [
      [
        () => optim.step({ default: 0.1, encoder: 0.1 }, model, grads),
        /ModuleOptimizer.step: learning rate for unknown parameter group 'encoder'; the groups are 'default', 'head'/,
      ],
      [
        () => optim.step({ head: 0.1 }, model, grads),
        /ModuleOptimizer.step: the learning rates \{"head":0.1\} have no 'default' entry/,
      ],
      [
        () => optim.step(-0.1, model, grads),
        /ModuleOptimizer.step: the learning rate must be a finite number >= 0, got -0.1/,
      ],
      [() => optim.step(Number.NaN, model, grads), /the learning rate must be a finite number >= 0, got NaN/],
      [
        () => optim.step({ default: 0.1, head: -1 }, model, grads),
        /the learning rate of group 'head' must be a finite number >= 0, got -1/,
      ],
      [
        () => optim.withGroup('head', 'l1', new Sgd()),
        /ModuleOptimizer.withGroup: a group named 'head' exists already/,
      ],
      [() => optim.withGroup('default', 'l1', new Sgd()), /a group named 'default' exists already/],
      [() => optim.withGroup('', 'l1', new Sgd()), /a group needs a non-empty name/],
      [
        () => {
          const g = new GradientsParams();
          g.register(model.l1.bias!.id, Tensor.ones([5], { device: device.inner() }));
          return new SgdConfig({}).init().step(0.1, model, g);
        },
        /ModuleOptimizer.step: the gradient of 'l1.bias' has shape \[5\]; the parameter has shape \[4\]/,
      ],
      [
        () => new MuonConfig({}).init().step(0.1, model, grads),
        /Muon: Newton–Schulz orthogonalization needs a 2-d parameter, got shape \[4\].* \(parameter 'l1.bias', group 'default'\)/,
      ],
      [
        () => new ModuleOptimizer(new Sgd(), { gradClipping: { kind: 'norm', value: -1 } }),
        /GradientClipping: the threshold must be a positive finite number, got -1/,
      ],
    ];
    for (const [f, message] of cases)
      assert.throws(f, (e: unknown) => e instanceof BurnError && message.test(e.message), String(message));
  });
});
