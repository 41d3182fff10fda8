// Scopes and training state: `Tensor.scope(() => { …; model = optim.step(…) })`,
// the tfjs `tidy` habit, keeps the new parameters and the optimizer's state alive, while the step's
// intermediates are still released (the CPU pool gets them back, so memory stays flat).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { jsEngine } from '../../src/backends/cpu/engine.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import { Device, Distribution, Module, Tensor } from '../../src/index.js';
import { BatchNorm, BatchNormConfig, Linear, LinearConfig } from '../../src/nn/index.js';
import { AdamConfig, GradientsParams, SgdConfig, type ModuleOptimizer } from '../../src/optim/index.js';

/** A pool that counts the arrays it could not serve (fresh allocations); it keeps arrays of any size. */
class CountingPool extends BufferPool {
  misses = 0;
  constructor() {
    super({ minBytes: 0, maxPerSize: 64 });
  }
  override take(ctor: Function, length: number) {
    const array = super.take(ctor, length);
    if (array === undefined) this.misses++;
    return array;
  }
}

function countingDevice(): { device: Device; pool: CountingPool } {
  const pool = new CountingPool();
  const device = new Device(
    new CpuBackend(jsEngine, pool) as unknown as Backend<TensorPrimitive>,
    'cpu(js, counting)',
  ).autodiff();
  return { device, pool };
}

class Net extends Module {
  l1: Linear;
  norm: BatchNorm;
  l2: Linear;
  constructor(device: Device) {
    super();
    this.l1 = new LinearConfig({ dInput: 8, dOutput: 16 }).init(device);
    this.norm = new BatchNormConfig({ numFeatures: 16 }).init(device);
    this.l2 = new LinearConfig({ dInput: 16, dOutput: 2 }).init(device);
  }
  forward(x: Tensor<2>): Tensor<2> {
    return this.l2.forward(this.norm.forward(this.l1.forward(x).unsqueezeDim(2)).squeezeDim(2).relu());
  }
}

const values = (t: Tensor<number>): number[] => Array.from(t.toDataSync().toArray() as ArrayLike<number>);
const paramsOf = (m: Module): number[] => [...m.params().values()].flatMap((p) => values(p.val() as Tensor<number>));

describe('Tensor.scope keeps training state (parameters, optimizer state, running statistics)', () => {
  const device = Device.cpu({ engine: 'js' }).autodiff();
  device.seed(11);
  const x = Tensor.random([32, 8], Distribution.Uniform(-1, 1), device);
  const y = Tensor.random([32, 2], Distribution.Uniform(-1, 1), device);
  const lossOf = (m: Net) => m.forward(x).sub(y).square().mean();

  function train(optim: ModuleOptimizer<Net>, steps: number, scoped: boolean): Net {
    device.seed(5);
    let model = new Net(device);
    for (let i = 0; i < steps; i++) {
      const body = () => {
        const loss = lossOf(model);
        const grads = GradientsParams.fromGrads(loss.backward(), model);
        model = optim.step(1e-2, model, grads);
      };
      if (scoped) Tensor.scope(body);
      else body();
    }
    return model;
  }

  for (const [name, make] of [
    ['Adam', () => new AdamConfig({}).init<Net>()],
    [
      'SGD with momentum',
      () => new SgdConfig({ momentum: { momentum: 0.9, dampening: 0, nesterov: false } }).init<Net>(),
    ],
  ] as const) {
    it(`${name}: model = optim.step(…) assigned inside a scope survives it, with the same values as without scopes`, () => {
      const scoped = train(make(), 4, true);
      const plain = train(make(), 4, false);
      assert.deepEqual(paramsOf(scoped), paramsOf(plain));
      assert.deepEqual(values(scoped.norm.runningVar.value()), values(plain.norm.runningVar.value()));
      // The next forward reads the new weights and batch-norm statistics.
      assert.doesNotThrow(() => lossOf(scoped).toDataSync());
    });
  }

  it('the optimizer state made inside one scope is used by the step in the next scope', () => {
    const optim = new AdamConfig({}).init<Net>();
    device.seed(5);
    let model = new Net(device);
    Tensor.scope(() => {
      model = optim.step(1e-2, model, GradientsParams.fromGrads(lossOf(model).backward(), model));
    });
    // Adam's moments of step 1 are read by step 2: released moments would throw "used after dispose()".
    Tensor.scope(() => {
      model = optim.step(1e-2, model, GradientsParams.fromGrads(lossOf(model).backward(), model));
    });
    assert.ok(Number.isFinite(lossOf(model).toDataSync().toArray()[0]!));
  });

  it('a module (or a parameter) created inside a scope and assigned outside survives; nested scopes too', () => {
    let model: Net | undefined;
    Tensor.scope(() => {
      Tensor.scope(() => {
        model = new Net(device);
      });
    });
    assert.equal(values(model!.l1.weight.val()).length, 8 * 16);
    assert.ok(Number.isFinite(lossOf(model!).toDataSync().toArray()[0]!));
  });

  it('intermediates that nothing keeps are still released at the end of the scope', () => {
    let intermediate: Tensor<2> | undefined;
    Tensor.scope(() => {
      intermediate = x.mul(2).add(1);
    });
    assert.throws(() => intermediate!.toDataSync(), /used after dispose\(\)/);
  });

  it('memory stays flat: a loop of scoped steps allocates the same small number of arrays per step, the rest is reused', () => {
    const { device: dev, pool } = countingDevice();
    dev.seed(3);
    const xs = Tensor.random([64, 8], Distribution.Uniform(-1, 1), dev);
    const ys = Tensor.random([64, 2], Distribution.Uniform(-1, 1), dev);
    let model = new Net(dev);
    const optim = new AdamConfig({}).init<Net>();
    const tensorsKept = [...model.params().values()].length + 2; // parameters + running statistics
    const fresh: number[] = [];
    for (let i = 0; i < 12; i++) {
      const before = pool.misses;
      Tensor.scope(() => {
        const loss = model.forward(xs).sub(ys).square().mean();
        model = optim.step(1e-2, model, GradientsParams.fromGrads(loss.backward(), model));
      });
      fresh.push(pool.misses - before);
    }
    const steady = fresh.slice(4);
    // Each step needs new arrays only for what it keeps: the new parameters, Adam's two new
    // moments per parameter and the running statistics; everything else comes back to the pool.
    assert.ok(
      steady.every((n) => n === steady[0]),
      `fresh arrays per step: ${fresh.join(', ')}`,
    );
    assert.ok(steady[0]! <= 3 * tensorsKept, `fresh arrays per step ${steady[0]} > ${3 * tensorsKept}`);
    assert.ok(pool.reused > 0);
  });
});
