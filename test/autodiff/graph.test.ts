// The autodiff decorator's tensor API, graph lifetime, checkpointing and memory behaviour.
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it } from 'node:test';
import { retainedBytes } from '../../src/backends/autodiff/graph.js';
import type { AdTensor } from '../../src/backends/autodiff/tensor.js';
import { BurnError, Device, Distribution, Tensor } from '../../src/index.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const values = async (t: Tensor<number> | undefined) => Array.from((await t!.toData()).toArray());

for (const [name, inner] of [
  ['cpu(js)', () => Device.cpu({ engine: 'js' })],
  ['required-only', requiredOnlyDevice],
] as const) {
  describe(`autodiff over ${name}`, () => {
    const device = inner().autodiff();

    it('devices: autodiff(), isAutodiff(), inner() and identity', () => {
      assert.equal(device.isAutodiff(), true);
      assert.equal(device.inner(), inner());
      assert.equal(inner().autodiff(), device, 'one autodiff device per inner device');
      assert.equal(device.autodiff(), device);
      assert.equal(inner().isAutodiff(), false);
      assert.equal(inner().inner(), inner());
      assert.match(String(device), /^autodiff</);
    });

    it('requireGrad, isRequireGrad, detach, noGrad, setRequireGrad', async () => {
      const x = Tensor.fromFloats([1, 2, 3], device);
      assert.equal(x.isRequireGrad(), false);
      const w = x.requireGrad();
      assert.equal(w.isRequireGrad(), true);
      assert.equal(w.mul(2).isRequireGrad(), true, 'results of tracked tensors are tracked');
      assert.equal(w.detach().isRequireGrad(), false);
      assert.equal(w.noGrad().isRequireGrad(), false);
      assert.equal(w.setRequireGrad(false).isRequireGrad(), false);
      assert.equal(w.argmax(0).isRequireGrad(), false, 'int results are never tracked');
      assert.equal(w.greater(1).isRequireGrad(), false, 'bool results are never tracked');
      assert.throws(() => Tensor.fromInts([1], device).requireGrad(), BurnError);
      // A detached branch gets no gradient.
      const grads = w.mul(w.detach()).sum().backward();
      assert.deepEqual(await values(w.grad(grads)), [1, 2, 3]);
    });

    it('grad lives on the inner device; untracked tensors have none; a non-scalar root is seeded with ones', async () => {
      const a = Tensor.fromFloats(
        [
          [1, 2],
          [3, 4],
        ],
        device,
      ).requireGrad();
      const b = Tensor.fromFloats(
        [
          [5, 6],
          [7, 8],
        ],
        device,
      );
      const grads = a.mul(b).backward();
      const ga = a.grad(grads)!;
      assert.equal(ga.device(), inner());
      assert.deepEqual(await values(ga), [5, 6, 7, 8]);
      assert.equal(b.grad(grads), undefined);
      assert.equal(grads.size, 1);
    });

    it('relu is one node whose gradient comes from its output: 0 at 0 and -0, passed at NaN (as PyTorch)', async () => {
      const x = Tensor.fromFloats([-2, -0, 0, 0.5, NaN, 3, -Infinity, Infinity], device).requireGrad();
      const y = x.relu();
      assert.deepEqual(await values(y), [0, 0, 0, 0.5, NaN, 3, 0, Infinity]);
      const grads = y
        .mul(Tensor.fromFloats([1, 2, 3, 4, 5, 6, 7, 8], device))
        .sum()
        .backward();
      assert.deepEqual(await values(x.grad(grads)), [0, 0, 0, 4, 5, 6, 0, 8]);
      // Through a view and a second use of the same input.
      const v = Tensor.fromFloats(
        [
          [1, -1],
          [-3, 2],
        ],
        device,
      ).requireGrad();
      const g2 = v.transpose().relu().add(v.relu()).sum().backward();
      assert.deepEqual(await values(v.grad(g2)), [2, 0, 0, 2]);
    });

    it('gradients flow through int/bool ops only where they should', async () => {
      const x = Tensor.fromFloats([0.5, -1, 2], device).requireGrad();
      const mask = x.greater(0);
      const y = x.maskFill(mask.boolNot(), 0).mul(x.argmax(0).float().add(1).sum().mul(0).add(1));
      assert.deepEqual(await values(x.grad(y.sum().backward())), [1, 0, 1]);
    });

    it('inner() and fromInner()', async () => {
      const x = Tensor.fromFloats([1, 2], device).requireGrad();
      const i = x.inner();
      assert.equal(i.device(), inner());
      const back = Tensor.fromInner(i.mul(2), device);
      assert.equal(back.device(), device);
      assert.equal(back.isRequireGrad(), false);
      assert.deepEqual(await values(back), [2, 4]);
      assert.throws(() => Tensor.fromInner(x, device), /lives on/);
    });

    it('gradRemove and gradReplace', async () => {
      const x = Tensor.fromFloats([1, 2], device).requireGrad();
      const grads = x.mul(3).sum().backward();
      x.gradReplace(grads, Tensor.fromFloats([7, 8], inner()));
      assert.deepEqual(await values(x.grad(grads)), [7, 8]);
      assert.deepEqual(await values(x.gradRemove(grads)), [7, 8]);
      assert.equal(x.grad(grads), undefined);
      assert.throws(() => x.gradReplace(grads, Tensor.fromFloats([1], inner())), /shape/);
    });

    it('backward errors: untracked root, freed graph, non-autodiff device', () => {
      assert.throws(() => Tensor.fromFloats([1], device).sum().backward(), /not tracked/);
      const x = Tensor.fromFloats([1, 2], device).requireGrad();
      const y = x.exp().sum();
      y.backward();
      assert.throws(() => y.backward(), /already freed/);
      assert.throws(() => Tensor.fromFloats([1], inner()).backward(), /not an autodiff device/);
      // requireGrad without autodiff is a no-op, as in Burn.
      assert.equal(Tensor.fromFloats([1], inner()).requireGrad().isRequireGrad(), false);
    });

    it('forward values equal the inner device bit for bit', async () => {
      inner().seed(7);
      const a = Tensor.random([5, 7], Distribution.Normal(0, 1), inner());
      const f = (t: Tensor<2>) => t.matmul(t.transpose()).softmax(1).log().cumsum(0).sort(1).sum();
      assert.deepEqual(await values(f(Tensor.fromInner(a, device).requireGrad())), await values(f(a)));
    });
  });
}

describe('gradient checkpointing', () => {
  it('keeps fewer bytes for the backward pass and gives the same gradients', async () => {
    const run = (device: Device) => {
      const x = Tensor.fromFloats(
        new Float32Array(64 * 32).map((_, i) => Math.sin(i)),
        device,
      ).reshape([64, 32]);
      const w1 = Tensor.fromFloats(
        new Float32Array(32 * 32).map((_, i) => Math.cos(i) / 8),
        device,
      )
        .reshape([32, 32])
        .requireGrad();
      const w2 = Tensor.fromFloats(
        new Float32Array(32 * 8).map((_, i) => Math.sin(i * 0.7) / 8),
        device,
      )
        .reshape([32, 8])
        .requireGrad();
      // Memory-bound chains between the two compute-bound matmuls.
      const h = x.matmul(w1).tanh().mul(2).exp().add(1).log().sigmoid();
      const loss = h.matmul(w2).square().mean();
      const bytes = retainedBytes((loss.primitive as AdTensor).node!);
      const grads = loss.backward();
      return { bytes, g1: w1.grad(grads)!, g2: w2.grad(grads)! };
    };
    const plain = run(Device.cpu().autodiff());
    const ckpt = run(Device.cpu().gradientCheckpointing());
    assert.ok(ckpt.bytes < plain.bytes / 2, `checkpointing keeps ${ckpt.bytes} bytes, plain keeps ${plain.bytes}`);
    assert.deepEqual(await values(ckpt.g1), await values(plain.g1));
    assert.deepEqual(await values(ckpt.g2), await values(plain.g2));
    assert.ok(Device.cpu().gradientCheckpointing().isAutodiff());
  });
});

describe('graph lifetime', () => {
  it('frees the graph after backward, and memory stays flat over many steps', async () => {
    const device = Device.cpu().autodiff();
    device.seed(1);
    let w = Tensor.random([64, 64], Distribution.Normal(0, 0.1), device).requireGrad();
    const x = Tensor.random([32, 64], Distribution.Default, device);
    const roots: WeakRef<object>[] = [];
    const heap: number[] = [];
    for (let step = 0; step < 300; step++) {
      const loss = x.matmul(w).tanh().matmul(w).square().mean();
      const node = (loss.primitive as AdTensor).node!;
      roots.push(new WeakRef(node));
      const grads = loss.backward();
      assert.equal(node.backward, undefined, 'the graph is released by backward');
      assert.equal(retainedBytes(node), 0);
      w = Tensor.fromInner(w.inner().sub(w.grad(grads)!.mul(0.1)), device).requireGrad();
      if (step % 50 === 49) {
        gc();
        heap.push(process.memoryUsage().heapUsed);
      }
    }
    // WeakRef targets stay alive until the end of the current job: yield once before collecting.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const alive = roots.filter((r) => r.deref() !== undefined).length;
    assert.ok(alive <= 2, `${alive} graphs of 300 are still alive`);
    const growth = heap[heap.length - 1]! - heap[1]!;
    assert.ok(growth < 2_000_000, `heap grew by ${growth} bytes between step 100 and 300 (${heap.join(', ')})`);
  });
});
