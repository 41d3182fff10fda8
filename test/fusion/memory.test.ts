// Memory on fused devices: the intermediates of a fused block are never allocated (the CPU pool
// counts every fresh array: an 8-op chain in a scope allocates its one output, where the plain
// device allocates eight), a pending tensor no one can read is never computed, and a 1,000-step
// training loop on fusion().autodiff(), written as users write it (Tensor.scope per step, Adam),
// keeps memory flat on the CPU (fresh arrays per step, the pool's bytes) and on WebGPU (the
// buffer pool's live bytes), with the plain device's losses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { jsEngine, type CpuEngineKernels as CpuEngine } from '../../src/backends/cpu/engine.js';
import { NativeEngine, nativeAddon } from '../../src/backends/cpu/native/index.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import { wasmEngine, wasmRuntime } from '../../src/backends/cpu/wasm/index.js';
import type { WebGpuBackend } from '../../src/backends/webgpu/backend.js';
import { activation, Device, Distribution, Module, Tensor } from '../../src/index.js';
import { Linear, LinearConfig } from '../../src/nn/index.js';
import { AdamConfig, GradientsParams } from '../../src/optim/index.js';
import { webgpu } from '../helpers/devices.js';

/** A pool that keeps arrays of every size and counts the ones it could not serve (fresh allocations), by length. */
class CountingPool extends BufferPool {
  misses = 0;
  readonly lengths: number[] = [];
  constructor() {
    super({ minBytes: 0, maxPerSize: 64 });
  }
  override take(ctor: Function, length: number) {
    const array = super.take(ctor, length);
    if (array === undefined) {
      this.misses++;
      this.lengths.push(length);
    }
    return array;
  }
}

/** A plain CPU device on `engine` over a counting pool. */
function counting(engine: CpuEngine, label: string): { device: Device; pool: CountingPool } {
  const pool = new CountingPool();
  return { device: new Device(new CpuBackend(engine, pool) as unknown as Backend<TensorPrimitive>, label), pool };
}

/** The engines: js, and native and wasm with every size threshold at 0 (their kernels at every size) when they load. */
function engines(): { name: string; engine: () => CpuEngine }[] {
  const list: { name: string; engine: () => CpuEngine }[] = [{ name: 'js', engine: () => jsEngine }];
  const addon = nativeAddon();
  if (addon)
    list.push({
      name: 'native',
      engine: () => new NativeEngine(addon, { minElements: 0, minCostlyElements: 0, minGemm: 0, minAllocBytes: 0 }),
    });
  if (wasmRuntime())
    list.push({ name: 'wasm', engine: () => wasmEngine({ minElements: 0, minCostlyElements: 0, minGemm: 0 }) });
  return list;
}

/** The fusion decorator's counters, when it exposes them. */
function fusionStats(device: Device): { programs: number; replays: number } | undefined {
  let b: unknown = device.backend;
  // Under autodiff the fusion decorator is the inner backend.
  for (let i = 0; i < 3 && b; i++) {
    const stats = (b as { stats?: () => { programs: number; replays: number } }).stats;
    if (typeof stats === 'function') return stats.call(b);
    b = (b as { inner?: unknown }).inner;
  }
  return undefined;
}

const N = 4096;
/** Eight elementwise ops; every intermediate is a full-size f32 array on a plain device. */
const chain8 = (x: Tensor<1>) => x.mul(0.5).add(1).exp().sub(x).tanh().mul(x).abs().sqrt();

for (const { name, engine } of engines()) {
  describe(`fusion<cpu(${name})>: intermediates of fused blocks are never allocated`, () => {
    it('an 8-op chain inside a scope allocates exactly one array (the plain device: eight), with the same values', async () => {
      const plain = counting(engine(), `cpu(${name})`);
      const fused = counting(engine(), `cpu(${name})`);
      const fd = fused.device.fusion();
      plain.device.seed(1);
      const xp = Tensor.random([N], Distribution.Uniform(-2, 2), plain.device);
      const xf = Tensor.fromData<1>(await xp.toData(), fd);
      await xf.toData();
      const p0 = plain.pool.misses;
      const f0 = fused.pool.misses;
      const s0 = fusionStats(fd);
      const yp = Tensor.scope(() => chain8(xp));
      const yf = Tensor.scope(() => chain8(xf));
      // The scope's end flushes the stream: the result exists before anything reads it.
      assert.equal(fused.pool.misses - f0, 1, `fresh arrays of lengths ${fused.pool.lengths.slice(-10)}`);
      assert.equal(plain.pool.misses - p0, 8, 'the plain device allocates every intermediate');
      const s1 = fusionStats(fd);
      if (s0 && s1) assert.deepEqual([s1.programs - s0.programs, s1.replays - s0.replays], [1, 0], 'one fused program');
      const [a, b] = [(await yp.toData()).toArray(), (await yf.toData()).toArray()];
      for (let i = 0; i < N; i++)
        assert.ok(
          Math.abs(a[i]! - b[i]!) <= 1e-5 * Math.max(1, Math.abs(a[i]!)),
          `[${i}] fused ${b[i]}, plain ${a[i]}`,
        );
      assert.equal(fused.pool.misses - f0, 1, 'reading the result allocates no pooled array');
    });

    it('softmax over rows allocates one full-size array (row statistics are row-sized)', async () => {
      const fused = counting(engine(), `cpu(${name})`);
      const fd = fused.device.fusion();
      fd.seed(2);
      const x = Tensor.random([64, 128], Distribution.Normal(0, 1), fd);
      await x.toData();
      const before = fused.pool.lengths.length;
      const y = Tensor.scope(() => {
        const e = x.sub(x.maxDim(1)).exp();
        return e.div(e.sumDim(1));
      });
      const fresh = fused.pool.lengths.slice(before);
      assert.deepEqual(
        fresh.filter((n) => n === 64 * 128),
        [64 * 128],
        `fresh arrays of lengths ${fresh}`,
      );
      assert.ok(
        fresh.every((n) => n === 64 * 128 || n <= 64),
        `fresh arrays of lengths ${fresh}`,
      );
      const rows = (await y.sumDim(1).toData()).toArray();
      for (let r = 0; r < 64; r++) assert.ok(Math.abs(rows[r]! - 1) < 1e-5, `row ${r} sums to ${rows[r]}`);
    });

    it('a pending tensor no one can read is never computed: disposed, or dropped at the end of a scope', () => {
      const fused = counting(engine(), `cpu(${name})`);
      const fd = fused.device.fusion();
      const x = Tensor.ones([N], fd).mul(3);
      x.toDataSync();
      const before = fused.pool.misses;
      const s0 = fusionStats(fd);
      const y = chain8(x);
      y.dispose();
      Tensor.scope(() => {
        chain8(x).add(x);
      });
      assert.equal(fused.pool.misses - before, 0, `fresh arrays of lengths ${fused.pool.lengths.slice(-10)}`);
      const s1 = fusionStats(fd);
      if (s0 && s1) assert.equal(s1.programs - s0.programs, 0, 'no program ran');
    });
  });
}

/** Full collections with pauses in between, so that finalizers of dropped handles have run. */
async function collectGarbage(): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A small MLP: Linear, GELU, Linear, softmax (fusable blocks forward and backward). */
class Mlp extends Module {
  l1: Linear;
  l2: Linear;
  constructor(device: Device) {
    super();
    this.l1 = new LinearConfig({ dInput: 8, dOutput: 32 }).init(device);
    this.l2 = new LinearConfig({ dInput: 32, dOutput: 4 }).init(device);
  }
  forward(x: Tensor<2>): Tensor<2> {
    return activation.softmax(this.l2.forward(activation.gelu(this.l1.forward(x))), 1);
  }
}

/**
 * Trains the MLP for `steps` steps, one `Tensor.scope` per step as users write it; calls `probe`
 * after every step (memory counters); returns the loss every 100 steps.
 */
async function train(device: Device, steps: number, probe: (step: number) => void | Promise<void>): Promise<number[]> {
  device.seed(4);
  const x = Tensor.random([32, 8], Distribution.Normal(0, 1), device);
  const y = activation.softmax(x.slice([null, [0, 4]]).mul(2), 1).detach();
  let model = new Mlp(device);
  const optim = new AdamConfig({}).init<Mlp>();
  const losses: number[] = [];
  for (let step = 1; step <= steps; step++) {
    const loss = Tensor.scope(() => {
      const l = model.forward(x).sub(y).square().mean();
      model = optim.step(1e-2, model, GradientsParams.fromGrads(l.backward(), model));
      return l.detach();
    });
    if (step % 100 === 0 || step === 1) losses.push(Number((await loss.toData()).toArray()[0]));
    loss.dispose();
    await probe(step);
  }
  return losses;
}

describe('fusion().autodiff(): a 1,000-step training loop keeps memory flat', () => {
  for (const { name, engine } of engines())
    it(`on the CPU (${name}): the same losses as the plain device; fresh arrays per step and pooled bytes flat`, async () => {
      const fused = counting(engine(), `cpu(${name})`);
      const fresh: number[] = [];
      const held: number[] = [];
      let last = 0;
      const pool = fused.pool;
      const losses = await train(fused.device.fusion().autodiff(), 1000, (step) => {
        fresh.push(pool.misses - last);
        last = pool.misses;
        if (step % 100 === 0) held.push(pool.heldBytes);
      });
      assert.ok(losses[losses.length - 1]! < losses[0]! / 2, `the loop learns: ${losses.join(', ')}`);
      // After warm-up each step allocates only what it keeps (new parameters, Adam's moments): the
      // same small count every step; the pool's bytes stop growing.
      const steady = fresh.slice(100);
      assert.ok(
        steady.every((n) => n === steady[0]),
        `fresh arrays per step vary: ${[...new Set(steady)].join(', ')}`,
      );
      assert.ok(steady[0]! <= 3 * 4, `fresh arrays per step ${steady[0]}: more than the kept state`);
      assert.ok(
        held.slice(2).every((b) => b === held[1]),
        `pooled bytes every 100 steps: ${held.join(', ')}`,
      );
      // The plain autodiff device gives the same losses (fusion changes no value beyond rounding).
      const plainLosses = await train(counting(engine(), `cpu(${name})`).device.autodiff(), 1000, () => {});
      losses.forEach((l, i) =>
        assert.ok(
          Math.abs(l - plainLosses[i]!) <= 1e-4 * Math.abs(plainLosses[i]!),
          `loss ${i}: fused ${l}, plain ${plainLosses[i]}`,
        ),
      );
    });

  it('on WebGPU: the buffer pool’s live bytes stay flat', {
    skip: webgpu.device ? false : `no WebGPU device: ${webgpu.reason}`,
  }, async () => {
    const gpu = webgpu.device!;
    const memory = () => (gpu.backend as unknown as WebGpuBackend).memory();
    const live: number[] = [];
    // 400 steps: SwiftShader runs a step in about 20 ms on one core; the CPU loop above runs 1,000.
    const losses = await train(gpu.fusion().autodiff(), 400, async (step) => {
      if (step % 50 === 0) {
        // Buffers of finished work return to the pool once the queue has run it; handles the step
        // dropped without a scope (the plain WebGPU device leaves a few per step to the
        // FinalizationRegistry) are collected first, so what is measured is what the loop keeps.
        await collectGarbage();
        await gpu.sync();
        live.push(memory().liveBytes);
      }
    });
    assert.ok(losses[losses.length - 1]! < losses[0]! / 2, `the loop learns: ${losses.join(', ')}`);
    // Flat: no checkpoint holds more than 8 KiB above the first (a leak of one 256-byte buffer per
    // step would add 12.5 KiB every 50 steps); an occasional handle whose finalizer has not run yet
    // shows as a small transient.
    assert.ok(
      live.every((b) => b <= live[0]! + 8192),
      `live bytes every 50 steps: ${live.join(', ')}`,
    );
  });
});
