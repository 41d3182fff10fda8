// The CPU backend's array reuse: released arrays serve later outputs; views, clones and escaped
// arrays keep theirs; a released handle refuses to be read; scopes and backward passes release.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import type { CpuTensor } from '../../src/backends/cpu/storage.js';
import { BurnError, Device, Tensor } from '../../src/index.js';
import { Linear, LinearConfig, Relu } from '../../src/nn/index.js';
import { Module } from '../../src/index.js';
import { nativeTestDevice, wasmTestDevice } from '../helpers/devices.js';

const N = 64 * 1024; // 256 KiB of f32: above the pool's lower limit
const engines: [string, Device | undefined][] = [
  ['js', Device.cpu({ engine: 'js' })],
  ['native', nativeTestDevice()],
  ['wasm', wasmTestDevice()],
];

const poolOf = (device: Device): BufferPool => (device.backend as unknown as CpuBackend).pool;
const arrayOf = (t: Tensor<number, 'float' | 'int' | 'bool'>): ArrayLike<number> => (t.primitive as CpuTensor).data;
const ramp = (device: Device, offset = 0): Tensor<1> => Tensor.arange(0, N, device).float().add(offset);

for (const [engine, device] of engines) {
  describe(`cpu(${engine}) array reuse`, {
    skip: device ? false : `the ${engine} engine is not available here`,
  }, () => {
    const dev = device!;

    it("a disposed output's array serves the next output of its type and length, with the right values", () => {
      const a = ramp(dev),
        b = ramp(dev, 1);
      const first = a.add(b);
      const array = arrayOf(first);
      const reused = poolOf(dev).reused;
      first.dispose();
      const second = a.mul(b);
      assert.equal(arrayOf(second), array, 'the released array is reused');
      assert.equal(poolOf(dev).reused, reused + 1);
      const values = second.toDataSync().toArray();
      for (const i of [0, 1, 12345, N - 1]) assert.equal(values[i], Math.fround(i * (i + 1)));
      // A different length or type does not take it.
      second.dispose();
      assert.notEqual(arrayOf(a.slice([[0, N / 2]]).add(1)), array);
      assert.notEqual(arrayOf(a.greater(b)), array);
    });

    it('views and clones keep the array: it is reused only after the last handle is released', () => {
      const a = ramp(dev);
      const x = a.mul(2);
      const array = arrayOf(x);
      const view = x.reshape([N / 4, 4]); // (a chain of views would leave handles only the GC drops)
      const clone = x.clone();
      x.dispose();
      const y = a.add(7); // must not take the array the view and the clone still show
      assert.notEqual(arrayOf(y), array);
      assert.equal(view.toDataSync().toArray()[5], 10);
      assert.equal(clone.toDataSync().toArray()[3], 6);
      view.dispose();
      assert.notEqual(arrayOf(a.add(8)), array);
      clone.dispose();
      assert.equal(arrayOf(a.add(9)), array);
    });

    it('a released tensor refuses to be read or used, with a BurnError naming dispose()', () => {
      const t = ramp(dev).exp();
      t.dispose();
      t.dispose(); // idempotent
      assert.throws(
        () => t.toDataSync(),
        (e: unknown) =>
          e instanceof BurnError && /used after dispose\(\)/.test(e.message) && /\[65536\]/.test(e.message),
      );
      assert.throws(() => t.add(1), BurnError);
    });

    it('an array handed out of the backend (a zero-copy view for a file writer) is never reused', () => {
      const x = ramp(dev).add(1);
      const array = arrayOf(x);
      const view = (dev.backend as unknown as CpuBackend).viewDataSync(x.primitive as CpuTensor);
      assert.ok(view);
      x.dispose();
      const y = ramp(dev).add(2);
      assert.notEqual(arrayOf(y), array);
      assert.equal(view.values[5], 6, 'the handed-out values are intact');
    });

    it('Tensor.scope releases the intermediates its result does not reach; kept tensors stay readable', () => {
      const a = ramp(dev);
      const kept = a.add(100);
      const held = poolOf(dev).heldBytes;
      const result = Tensor.scope(() => {
        const t1 = a.mul(1e-4);
        const t2 = t1.exp().log();
        Tensor.keep(kept);
        return t2.sub(t1).abs().sum();
      });
      assert.ok(poolOf(dev).heldBytes >= held + 2 * N * 4, "the scope's intermediates went to the pool");
      assert.ok(Math.abs(result.intoScalarSync()) < 1, 'exp(log) is the identity');
      assert.equal(kept.toDataSync().toArray()[2], 102);
    });

    it('a long loop that disposes its outputs reuses one array and keeps the pool flat', () => {
      const a = ramp(dev),
        b = ramp(dev, 1);
      const pool = poolOf(dev);
      let last = a.add(b);
      const reused = pool.reused;
      for (let i = 0; i < 200; i++) {
        last.dispose();
        last = i % 2 === 0 ? a.mul(b) : a.add(b);
      }
      assert.equal(pool.reused - reused, 200);
      assert.ok(pool.heldBytes <= 8 * N * 4 * 8, `the pool holds ${pool.heldBytes} bytes`);
      assert.equal(last.toDataSync().toArray()[3], 3 + 4);
    });

    it('training steps in a scope (backward releasing its gradients) give the same parameters as without reuse', () => {
      const ad = dev.autodiff();
      class Mlp extends Module {
        l1: Linear;
        l2: Linear;
        act = new Relu();
        constructor() {
          super();
          ad.seed(7);
          this.l1 = new LinearConfig({ dInput: 256, dOutput: 128 }).init(ad);
          this.l2 = new LinearConfig({ dInput: 128, dOutput: 4 }).init(ad);
        }
        forward(x: Tensor<2>): Tensor<2> {
          return this.l2.forward(this.act.forward(this.l1.forward(x)));
        }
      }
      const x = Tensor.random([128, 256], { kind: 'normal', mean: 0, std: 1 }, ad);
      const train = (scoped: boolean): number[] => {
        const model = new Mlp();
        let w = model.l1.weight.val();
        for (let step = 0; step < 5; step++) {
          const body = () => {
            const y = model.forward(x);
            const loss = y.mul(y).mean();
            const grads = loss.backward();
            return model.l1.weight.val().grad(grads)!;
          };
          const g = scoped ? Tensor.scope(body) : body();
          const next = w.inner().sub(g.mul(0.01));
          w = Tensor.fromInner(next, ad).requireGrad();
          model.l1.weight = model.l1.weight.withTensor(w);
        }
        return Array.from(w.toDataSync().toArray() as Float32Array).slice(0, 64);
      };
      const reused = poolOf(dev).reused;
      const scoped = train(true);
      assert.ok(poolOf(dev).reused > reused, 'the scoped steps reused released arrays');
      assert.deepEqual(scoped, train(false));
    });
  });
}

describe('cpu array pool limits', () => {
  it('keeps at most maxBytes and maxPerSize arrays, ignores small ones, and clear() drops everything', () => {
    const pool = new BufferPool({ maxBytes: 3 * 4096, minBytes: 1024, maxPerSize: 2 });
    pool.give(new Float32Array(16)); // 64 bytes: too small
    assert.equal(pool.heldBytes, 0);
    for (let i = 0; i < 3; i++) pool.give(new Float32Array(1024));
    assert.equal(pool.heldBytes, 2 * 4096, 'two per size');
    pool.give(new Int32Array(1024));
    pool.give(new Uint8Array(4096)); // would pass the byte limit
    assert.equal(pool.heldBytes, 3 * 4096);
    assert.ok(pool.take(Int32Array, 1024) instanceof Int32Array);
    assert.equal(pool.take(Int32Array, 1024), undefined);
    assert.equal(pool.take(Float32Array, 1000), undefined);
    pool.clear();
    assert.equal(pool.take(Float32Array, 1024), undefined);
    assert.equal(pool.heldBytes, 0);
  });

  it('when full, a released array evicts the least recently released ones (a new working set is reused, the bytes stay bounded)', () => {
    const pool = new BufferPool({ maxBytes: 4 * 4096, minBytes: 1024, maxPerSize: 8 });
    // A first "model" fills the pool with its sizes.
    const old = [new Float32Array(1024), new Float32Array(1024), new Float32Array(1024), new Float32Array(1024)];
    for (const a of old) pool.give(a);
    assert.equal(pool.heldBytes, 4 * 4096);
    // A second one releases other sizes: they are kept, the oldest arrays make room.
    const fresh = new Float32Array(2048);
    pool.give(fresh);
    assert.equal(pool.heldBytes, 4 * 4096, 'two old arrays evicted for one twice as large');
    assert.equal(pool.take(Float32Array, 2048), fresh, 'the newly released array is reused');
    assert.equal(pool.take(Float32Array, 1024), old[3], 'the most recent of the old ones survived');
    assert.equal(pool.take(Float32Array, 1024), old[2]);
    assert.equal(pool.take(Float32Array, 1024), undefined, 'the oldest two were evicted');
    // An array larger than the whole pool is never kept and evicts nothing.
    pool.give(new Float32Array(1024));
    pool.give(new Float32Array(8192));
    assert.equal(pool.heldBytes, 4096);
    // A stream of releases: the held bytes never pass the limit, and a working set that fits is
    // reused after the pool was filled with sizes it no longer asks for.
    for (let i = 0; i < 8; i++) pool.give(new Float32Array(512 + i));
    const before = pool.reused;
    for (let i = 0; i < 200; i++) {
      const len = 256 * (1 + (i % 3));
      pool.give(pool.take(Float32Array, len) ?? new Float32Array(len));
      assert.ok(pool.heldBytes <= 4 * 4096, `held ${pool.heldBytes} bytes after ${i} releases`);
    }
    assert.equal(pool.reused - before, 197, 'every round after the first three reuses');
  });

  it('BURN_CPU_POOL_MB sets the default limit (1 GiB in Node without it); 0 turns reuse off', () => {
    const before = process.env.BURN_CPU_POOL_MB;
    try {
      process.env.BURN_CPU_POOL_MB = '0';
      const off = new BufferPool();
      off.give(new Float32Array(1 << 16));
      assert.equal(off.heldBytes, 0);
      process.env.BURN_CPU_POOL_MB = '1';
      const small = new BufferPool();
      small.give(new Float32Array(1 << 17)); // 512 KiB
      small.give(new Float32Array(1 << 17));
      small.give(new Float32Array(1 << 17)); // would pass 1 MiB
      assert.equal(small.heldBytes, 1 << 20);
      // Unset, Node's default holds a model's working set past the 256 MiB of a page (calloc'd, never touched).
      delete process.env.BURN_CPU_POOL_MB;
      const node = new BufferPool();
      node.give(new Uint8Array(300 << 20));
      assert.equal(node.heldBytes, 300 << 20);
      node.clear();
    } finally {
      if (before === undefined) delete process.env.BURN_CPU_POOL_MB;
      else process.env.BURN_CPU_POOL_MB = before;
    }
  });
});
