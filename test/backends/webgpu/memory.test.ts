// WebGPU memory: pooled buffers with byte counters, reference-counted tensor handles released by
// dispose(), by Tensor.scope and by the FinalizationRegistry safety net; the backend's composite
// ops, the autodiff backward pass and the graph's saved values release their intermediates; a
// training loop runs 1000 steps with flat GPU memory and no memory calls from the user.
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { describe, it } from 'node:test';
import { BurnError, Device, Distribution, functional as F, Tensor } from '../../../src/index.js';
import type { WebGpuBackend } from '../../../src/backends/webgpu/backend.js';
import { sizeClass } from '../../../src/backends/webgpu/pool.js';
import { LinearConfig } from '../../../src/nn/index.js';
import { AdamConfig, GradientsParams } from '../../../src/optim/index.js';
import { webgpu } from '../../helpers/devices.js';

const gpu = webgpu.device;
const skip = gpu ? false : `no WebGPU device: ${webgpu.reason}`;
const pool = () => (gpu!.backend as unknown as WebGpuBackend).memory();
const live = () => pool().liveBytes;

/**
 * Full collections with pauses in between, so the finalizers of tensors that earlier tests dropped
 * have run (V8 finalizes in full GCs; the callbacks run as tasks). Tests that await between
 * measurements settle first, or such a late finalizer would change the bytes they count.
 */
async function settle(): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const collect = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WebGPU buffer pool and tensor handles', { skip }, () => {
  it('size classes: 256-byte steps up to 64 KiB, then quarters of a power of two', () => {
    assert.deepEqual(
      [
        sizeClass(1),
        sizeClass(256),
        sizeClass(257),
        sizeClass(65536),
        sizeClass(65537),
        sizeClass(100000),
        sizeClass(1 << 20),
      ],
      [256, 256, 512, 65536, 81920, 114688, 1 << 20],
    );
  });

  it('dispose returns the buffer to the pool; freed buffers are reused; views and clones keep theirs', async () => {
    await gpu!.sync();
    const base = live();
    const t = Tensor.zeros([1000], gpu);
    assert.equal(live(), base + sizeClass(4000));
    const view = t.slice([[10, 20]]);
    const clone = t.clone();
    t.dispose();
    assert.equal(live(), base + sizeClass(4000), 'the view and the clone keep the storage');
    assert.deepEqual(Array.from((await view.toData()).toArray()), new Array<number>(10).fill(0));
    view.dispose();
    clone.dispose();
    assert.equal(live(), base);
    const created = pool().created;
    const again = Tensor.ones([990], gpu);
    assert.equal(pool().created, created, 'a buffer of the same size class is reused');
    again.dispose();
    again.dispose();
    assert.equal(live(), base, 'dispose is idempotent');
    assert.throws(
      () => again.add(1),
      (e: unknown) => e instanceof BurnError && /used after dispose\(\)/.test(e.message),
    );
  });

  it('Tensor.scope releases what the function created and its result does not reach', async () => {
    await settle(); // the test awaits a read below, when a late finalizer could run
    const base = live();
    const x = Tensor.random([64, 64], Distribution.Default, gpu);
    const withX = live();
    const out = Tensor.scope(() => {
      const a = x.matmul(x).relu();
      const b = a.add(1).mul(a).sumDim(1);
      const kept = Tensor.keep(a.exp());
      return { b, pair: [kept, x.mean()] };
    });
    const expected = withX + sizeClass(64 * 4) + sizeClass(64 * 64 * 4) + sizeClass(4);
    assert.equal(live(), expected, 'only the result (b, kept, mean) and x remain');
    assert.equal((await out.b.toData()).shape.join(), '64,1');
    // Nested scopes hand kept tensors to the enclosing one; a throwing function releases everything.
    Tensor.scope(() => {
      Tensor.scope(() => x.add(2));
      assert.ok(live() > expected);
    });
    assert.equal(live(), expected);
    assert.throws(
      () =>
        Tensor.scope(() => {
          x.add(3);
          throw new Error('boom');
        }),
      /boom/,
    );
    assert.equal(live(), expected);
    const refusal = (e: unknown) => e instanceof BurnError && e.op === 'Tensor.scope' && /synchronous/.test(e.message);
    // @ts-expect-error an async function is a type error too; at run time it throws
    assert.throws(() => Tensor.scope(async () => x), refusal);
    for (const t of [out.b, ...out.pair, x]) t.dispose();
    assert.equal(live(), base);
    // On the CPU a scope just runs the function.
    const cpu = Tensor.scope(() => Tensor.ones([2], Device.cpu()).add(1));
    assert.deepEqual(Array.from(cpu.toDataSync().toArray()), [2, 2]);
  });

  it('composite ops that run the shared defaults release their intermediates', async () => {
    const x = Tensor.random([2, 3, 8, 8], Distribution.Default, gpu);
    const before = live();
    const y = F.interpolate(x, [13, 5], { mode: 'bicubic' });
    assert.equal(live(), before + sizeClass(2 * 3 * 13 * 5 * 4), 'interpolate (a default) leaves its result only');
    y.dispose();
    x.dispose();
  });

  it('backward releases every intermediate and the values the graph kept', async () => {
    const ad = gpu!.autodiff();
    const w = Tensor.random([32, 16], Distribution.Default, ad).requireGrad();
    const x = Tensor.random([8, 32], Distribution.Default, ad);
    const before = live();
    const grads = Tensor.scope(() => x.matmul(w).tanh().softmax(1).log().mean().backward());
    const g = w.grad(grads)!;
    assert.deepEqual(g.dims(), [32, 16]);
    assert.equal(live(), before + sizeClass(32 * 16 * 4), 'only the gradient remains');
    assert.ok((await g.abs().sum().intoScalar()) > 0);
  });

  it('the finalizer releases tensors that were dropped without dispose (safety net)', async () => {
    // Full collections, as the pool requests under memory pressure (V8 finalizes in full GCs).
    await settle();
    const base = live();
    (() => {
      for (let i = 0; i < 20; i++) Tensor.ones([4096], gpu).mul(2);
    })();
    assert.ok(live() >= base + 20 * 2 * sizeClass(4096 * 4));
    for (let i = 0; i < 20 && live() > base; i++) await settle();
    assert.ok(live() <= base, `${live()} bytes live, ${base} before`);
  });

  it('a training loop runs 1000 steps with flat GPU memory and no memory calls', async () => {
    // A device that asks for a collection once dropped tensors hold 1 MiB (default 64 MiB).
    const device = await Device.webgpu({ memoryPressureBytes: 1 << 20 });
    const stats = () => (device.backend as unknown as WebGpuBackend).memory();
    const ad = device.autodiff();
    ad.seed(5);
    const x = Tensor.random([16, 8], Distribution.Normal(0, 1), ad);
    const y = x.sumDim(1).tanh();
    let w1 = Tensor.random([8, 16], Distribution.Normal(0, 0.3), ad).requireGrad();
    let w2 = Tensor.random([16, 1], Distribution.Normal(0, 0.3), ad).requireGrad();
    const allocated: number[] = [];
    let first = 0,
      last = 0;
    for (let step = 1; step <= 1000; step++) {
      const loss = x.matmul(w1).relu().matmul(w2).sub(y).square().mean();
      const grads = loss.backward();
      w1 = Tensor.fromInner(w1.inner().sub(w1.grad(grads)!.mul(0.05)), ad).requireGrad();
      w2 = Tensor.fromInner(w2.inner().sub(w2.grad(grads)!.mul(0.05)), ad).requireGrad();
      if (step === 1) first = await loss.intoScalar();
      if (step % 50 === 0) {
        last = await loss.intoScalar();
        allocated.push(stats().allocatedBytes);
      }
    }
    assert.ok(last < first / 4, `the loop learns: loss ${first} → ${last}`);
    // After warm-up the pool's device memory stays flat: dropped tensors reach the pool through the
    // finalizer and their buffers are reused.
    // The device memory stays under twice the pressure threshold at every step: dropped tensors
    // reach the pool through collections and their buffers are reused.
    assert.ok(Math.max(...allocated) <= 2 << 20, `allocated bytes every 50 steps: ${allocated.join(', ')}`);
    assert.ok(stats().collections > 0);
    const created = stats().created;
    // Finalizers run between tasks: a training loop awaits its data or its loss now and then.
    for (let step = 0; step < 100; step++) {
      x.matmul(w1).relu().matmul(w2).sub(y).square().mean().backward();
      if (step % 10 === 9) await device.sync();
    }
    assert.ok(
      stats().created - created < 20,
      `100 more steps create ${stats().created - created} buffers: the pool serves them`,
    );
  });

  it('an nn model trained with Adam keeps flat GPU memory with no memory calls', async () => {
    const device = await Device.webgpu({ memoryPressureBytes: 1 << 20 });
    const stats = () => (device.backend as unknown as WebGpuBackend).memory();
    const ad = device.autodiff();
    ad.seed(9);
    let model = new LinearConfig({ dInput: 8, dOutput: 1 }).init(ad);
    const optimizer = new AdamConfig({}).init<typeof model>();
    const x = Tensor.random([32, 8], Distribution.Normal(0, 1), ad);
    const y = x.sumDim(1).mul(0.5);
    const allocated: number[] = [];
    let first = 0,
      last = 0;
    for (let step = 1; step <= 300; step++) {
      const loss = model.forward(x).sub(y).square().mean();
      const grads = GradientsParams.fromGrads(loss.backward(), model);
      model = optimizer.step(0.05, model, grads);
      if (step === 1) first = await loss.intoScalar();
      if (step % 30 === 0) {
        last = await loss.intoScalar();
        allocated.push(stats().allocatedBytes);
      }
    }
    assert.ok(last < first / 10, `the loop learns: loss ${first} → ${last}`);
    assert.ok(Math.max(...allocated) <= 2 << 20, `allocated bytes every 30 steps: ${allocated.join(', ')}`);
  });

  it('with Tensor.scope per step, the bytes in use return exactly to the baseline at every step', async () => {
    const ad = gpu!.autodiff();
    let w = Tensor.random([8, 4], Distribution.Normal(0, 0.3), ad).requireGrad();
    const x = Tensor.random([16, 8], Distribution.Normal(0, 1), ad);
    const baseline = live();
    for (let step = 0; step < 100; step++) {
      const next = Tensor.scope(() => {
        const grads = x.matmul(w).sigmoid().mean().backward();
        return Tensor.fromInner(w.inner().sub(w.grad(grads)!.mul(0.1)), ad).requireGrad();
      });
      w.dispose();
      w = next;
      assert.equal(live(), baseline, `step ${step}`);
    }
  });
});
