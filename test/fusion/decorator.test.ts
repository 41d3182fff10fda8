// The fusion decorator (src/backends/fusion/): values equal the plain device's, blocks run as one
// program, pending tensors that are disposed are never computed, memory is released.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { jsEngine } from '../../src/backends/cpu/engine.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import { FusionBackend } from '../../src/backends/fusion/backend.js';
import { activation, BurnError, Device, Distribution, Tensor, type DType } from '../../src/index.js';
import { layerNorm } from '../../src/tensor/functional/norm.js';
import { LinearConfig } from '../../src/nn/index.js';

type AnyTensor = Tensor<number, never>;

/** The fused devices under test: the js engine and the best one here. */
const DEVICES: [string, Device][] = [
  ['js', Device.cpu({ engine: 'js' })],
  ['best', Device.cpu()],
];

const stats = (d: Device) => (d.backend as unknown as FusionBackend).stats();

function values(t: { toDataSync(): { toArray(): unknown } }): number[] {
  return Array.from(t.toDataSync().toArray() as ArrayLike<number | boolean>, Number);
}

function close(actual: number[], expected: number[], what: string, tol = 1e-5): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  expected.forEach((e, i) => {
    const a = actual[i]!;
    if (Number.isNaN(e)) assert.ok(Number.isNaN(a), `${what}[${i}] = ${a}, expected NaN`);
    else assert.ok(Math.abs(a - e) <= tol * Math.max(1, Math.abs(e)), `${what}[${i}] = ${a}, expected ${e}`);
  });
}

/** Runs `f` on the plain device and on its fused device (same inputs) and compares the values. */
function same(plain: Device, what: string, f: (d: Device) => AnyTensor | AnyTensor[], tol?: number): void {
  const a = [f(plain)].flat();
  const b = [f(plain.fusion())].flat();
  a.forEach((t, i) => {
    assert.deepEqual(b[i]!.shape(), t.shape(), `${what}: shape`);
    assert.equal(b[i]!.dtype(), t.dtype(), `${what}: dtype`);
    close(values(b[i]!), values(t), `${what}#${i}`, tol);
  });
}

function rand(d: Device, shape: number[], seed: number): Tensor<number> {
  d.seed(seed);
  return Tensor.random(shape, Distribution.Normal(0, 1), d);
}

for (const [name, base] of DEVICES) {
  describe(`fusion on cpu(${name})`, () => {
    it('an 8-op elementwise chain', () => {
      same(
        base,
        'chain',
        (d) => rand(d, [4, 33], 1).mul(0.5).add(1).exp().sub(0.25).tanh().mul(3).sigmoid().sqrt() as AnyTensor,
      );
      const f = base.fusion();
      const before = stats(f).programs;
      values(rand(f, [4, 33], 1).mul(0.5).add(1).exp().sub(0.25).tanh().mul(3).sigmoid().sqrt());
      assert.equal(stats(f).programs - before, 1, 'one program for the chain');
    });

    it('broadcast binary ops, scalars, and fills never allocated', () => {
      same(base, 'broadcast', (d) => {
        const a = rand(d, [3, 1, 4], 2);
        const b = rand(d, [5, 1], 3);
        return a
          .add(b)
          .mul(Tensor.ones([4], d))
          .sub(Tensor.full([1, 5, 1], 2, d))
          .div(a.abs().add(1)) as AnyTensor;
      });
    });

    it('views of pending expressions: permute, slice, reshape, expand, then more ops', () => {
      same(base, 'views', (d) => {
        const x = rand(d, [2, 3, 4], 4).mul(2).add(1);
        const p = x.permute([2, 0, 1]).exp().neg();
        const s = x
          .slice([
            [0, 2],
            [1, 3],
            [0, 4, 2],
          ] as never)
          .sin();
        const r = x.add(1).reshape([6, 4]).mul(3);
        const u = x.add(1).unsqueezeDim(0).cos();
        const e = x.sum(2).mul(2).expand([2, 3, 5]).add(1);
        return [p, s, r, u, e, p.add(p.sqrt().abs())] as AnyTensor[];
      });
    });

    it('softmax, logSoftmax, LayerNorm as a composite, mean, var, a loss', () => {
      same(base, 'rows', (d) => {
        const x = rand(d, [6, 10], 5).mul(3);
        const w = rand(d, [10], 6);
        const b = rand(d, [10], 7);
        return [
          activation.softmax(x, 1),
          activation.softmax(x, 0),
          activation.logSoftmax(x.mul(0.5), 1),
          layerNorm(x, [10], { weight: w, bias: b }),
          x.meanDim(1),
          x.var(0),
          x.sub(x.exp()).powf(2).mean(),
          activation.softmax(x.reshape([2, 3, 10]).permute([0, 2, 1]), 2),
          activation
            .softmax(x.reshape([2, 3, 10]), 1)
            .permute([2, 0, 1])
            .mul(2),
          layerNorm(x, [10])
            .permute([1, 0])
            .sub(x.meanDim(0).permute([1, 0])),
        ] as AnyTensor[];
      });
    });

    it('softmax is one program, permuted afterwards too', () => {
      const f = base.fusion();
      const x = rand(f, [8, 16], 8);
      values(x);
      let before = stats(f).programs;
      values(activation.softmax(x.mul(0.125), 1));
      assert.equal(stats(f).programs - before, 1);
      before = stats(f).programs;
      values(activation.softmax(x.mul(0.125), 1).permute([1, 0]).add(1));
      assert.equal(stats(f).programs - before, 1);
    });

    it('a costly value read by a column sum and held for later is computed once, densely', () => {
      const f = base.fusion();
      const x = rand(f, [64, 32], 14);
      values(x);
      // 6 × (mul, add) and an exp: a DAG of 25 pending nodes, as a GELU backward's.
      const costly = (t: Tensor<number>) => {
        let h = t;
        for (let i = 0; i < 6; i++) h = h.mul(0.9).add(0.1);
        return h.exp();
      };
      const h = costly(x);
      const colSum = values(h.sumDim(0));
      const before = stats(f).programs;
      const hv = values(h);
      assert.equal(stats(f).programs - before, 0, 'h was computed by the column sum: reading it runs nothing');
      const plainX = rand(base, [64, 32], 14);
      const expected = costly(plainX);
      assert.deepEqual(hv, values(expected));
      const sums = values(expected.sumDim(0));
      colSum.forEach((v, i) => assert.ok(Math.abs(v - sums[i]!) <= 1e-5 * Math.abs(sums[i]!), `sum ${i}`));
    });

    it('a reshape of a pending block over dense tensors re-indexes it: one program', () => {
      const f = base.fusion();
      const x = rand(f, [6, 8], 12);
      const b = rand(f, [6, 8], 13);
      values(x);
      values(b);
      const before = stats(f).programs;
      const y = x.add(b).mul(2).reshape([3, 2, 8]).exp().reshape([48]).sub(1);
      assert.equal(values(y).length, 48);
      assert.equal(stats(f).programs - before, 1);
      same(
        base,
        'reshape',
        (d) =>
          rand(d, [6, 8], 12)
            .add(rand(d, [8], 13))
            .mul(2)
            .reshape([3, 16])
            .exp() as AnyTensor,
      );
    });

    it('where, maskFill, clamp, cast, compare chains; int and bool dtypes', () => {
      same(base, 'where', (d) => {
        const x = rand(d, [5, 7], 9);
        const m = x.greater(x.mul(0.5).exp().sub(1));
        return [
          x.maskFill(m, 2).clamp(-0.5, 0.5).add(1),
          x.clamp(-0.3, 0.2).relu(),
          m.boolNot().boolAnd(x.lower(0)),
          x.mul(10).int().add(3).remainder(4).mul(2),
          x
            .mul(10)
            .int()
            .bitwiseAnd(Tensor.fromInts([6], d))
            .float()
            .mul(0.5),
          x.mul(10).int().greaterEqual(0).int().sum(),
          x.isNan().boolOr(x.greater(1)),
          x.maskWhere(m, x.exp()),
        ] as AnyTensor[];
      });
    });

    it('reads of intermediates, and several reads of one pending tensor', () => {
      const f = base.fusion();
      const x = Tensor.fromFloats([1, 2, 3, 4], f);
      const y = x.mul(2);
      const z = y.add(1);
      assert.deepEqual(values(z), [3, 5, 7, 9]);
      assert.deepEqual(values(y), [2, 4, 6, 8]);
      assert.deepEqual(values(z.sub(y)), [1, 1, 1, 1]);
      assert.deepEqual(values(z), [3, 5, 7, 9]);
    });

    it('a pending tensor disposed is never computed', () => {
      const f = base.fusion();
      const x = rand(f, [64], 10);
      values(x);
      const before = stats(f);
      const y = x.exp().mul(2);
      const z = y.add(1);
      y.dispose();
      z.dispose();
      assert.deepEqual(stats(f), before);
      assert.deepEqual(values(x.add(1)).length, 64);
    });

    it('errors at the call: not of floats, math of bools, use after dispose', () => {
      const f = base.fusion();
      const x = Tensor.fromFloats([1, 2], f);
      assert.throws(
        () => f.backend.unary('not', x.primitive),
        (e: unknown) => e instanceof BurnError && /int or bool/.test(e.message),
      );
      const b = x.greater(1);
      assert.throws(() => f.backend.binary('add', b.primitive, b.primitive), BurnError);
      assert.throws(() => f.backend.binary('and', x.primitive, x.primitive), BurnError);
      const y = x.exp();
      y.dispose();
      assert.throws(
        () => y.add(1),
        (e: unknown) => e instanceof BurnError && /after dispose/.test(e.message),
      );
    });

    it('fusion().autodiff() gives the gradients of autodiff() for an MLP with softmax', () => {
      const grads = (device: Device) => {
        device.seed(3);
        const l1 = new LinearConfig({ dInput: 12, dOutput: 16 }).init(device);
        const l2 = new LinearConfig({ dInput: 16, dOutput: 5 }).init(device);
        const x = rand(base, [7, 12], 11).toDevice(device);
        const h = l1.forward(x).relu().mul(0.5).add(0.1);
        const loss = activation.softmax(l2.forward(h), 1).powf(2).mean().add(l2.forward(h).exp().mean());
        const g = loss.backward();
        return [
          ...values(l1.weight.val().grad(g)!),
          ...values(l1.bias!.val().grad(g)!),
          ...values(l2.weight.val().grad(g)!),
          ...values(loss),
        ];
      };
      const expected = grads(base.autodiff());
      close(grads(base.fusion().autodiff()), expected, 'grad', 1e-4);
    });
  });
}

describe('fusion device', () => {
  const plain = Device.cpu({ engine: 'js' });
  it('is one device per plain device, labelled, and autodiff composes either way', () => {
    const f = plain.fusion();
    assert.equal(f, plain.fusion());
    assert.equal(String(f), 'fusion<cpu(js)>');
    assert.equal(f.backend.name, 'fusion<cpu(js)>');
    assert.ok(f.isFusion() && !plain.isFusion());
    assert.equal(f.fusion(), f);
    assert.equal(f.autodiff(), plain.autodiff().fusion());
    assert.equal(String(f.autodiff()), 'autodiff<fusion<cpu(js)>>');
    assert.equal(f.autodiff().inner(), f);
    assert.ok(f.autodiff().isFusion() && f.autodiff().isAutodiff());
    assert.equal(Device.cpu({ engine: 'js', fusion: true }), f);
    assert.equal(Device.cpu({ engine: 'js', fusion: false }), plain);
  });

  it('shares random state and dtypes with the plain device; toDevice both ways', () => {
    const f = plain.fusion();
    plain.seed(4);
    const a = values(Tensor.random([5], Distribution.Uniform(0, 1), plain));
    f.seed(4);
    assert.deepEqual(values(Tensor.random([5], Distribution.Uniform(0, 1), f)), a);
    const x = Tensor.fromFloats([1, 2, 3], plain).toDevice(f).mul(2);
    assert.equal(x.device(), f);
    const y = x.toDevice(plain);
    assert.equal(y.device(), plain);
    assert.deepEqual(values(y), [2, 4, 6]);
  });

  it('the default dtype checks and fills go through the inner backend', () => {
    const f = plain.fusion();
    for (const dtype of ['f64', 'i64', 'u8', 'bool'] as DType[]) {
      const t = Tensor.zeros([2], { device: f, dtype });
      assert.equal(t.dtype(), dtype);
      assert.deepEqual(values(t), [0, 0]);
    }
  });
});

/** Counts the output arrays a CPU backend allocates (each output asks its pool first). */
class CountingPool extends BufferPool {
  takes = 0;
  override take(ctor: Function, length: number) {
    this.takes++;
    return super.take(ctor, length);
  }
}

describe('fusion memory', () => {
  const pool = new CountingPool({ minBytes: 0 });
  const cpu = new CpuBackend(jsEngine, pool);
  const device = new Device(new FusionBackend(cpu) as unknown as Backend<TensorPrimitive>, 'fusion<test>');

  it('a chain inside Tensor.scope is one program with no intermediate allocations; its inputs are freed', () => {
    const x = Tensor.fromFloats(
      new Float32Array(1000).map((_, i) => i / 100),
      device,
    );
    const before = stats(device).programs;
    const takes = pool.takes;
    const y = Tensor.scope(() => {
      const t = x.add(Tensor.fromFloats(new Float32Array(1000).fill(1), device));
      return t.mul(2).exp().add(1).log().sub(0.5).abs().sqrt();
    });
    assert.equal(stats(device).programs - before, 1, 'one program at scope end');
    assert.equal(pool.takes - takes, 1, 'only the output is allocated');
    const held = pool.heldBytes;
    assert.ok(held >= 4000, 'the input made inside the scope went back to the pool');
    close(
      values(y),
      Array.from({ length: 1000 }, (_, i) => Math.sqrt(Math.abs(Math.log(Math.exp((i / 100 + 1) * 2) + 1) - 0.5))),
      'scope',
      1e-4,
    );
  });

  it('every output array returns to the pool: a loop of scopes allocates nothing new after warm-up', () => {
    const w = Tensor.fromFloats(new Float32Array(256).fill(0.5), device);
    values(w);
    let fresh = -1;
    for (let step = 0; step < 30; step++) {
      Tensor.scope(() => {
        const x = Tensor.fromFloats(
          new Float32Array(256).map((_, i) => i + step),
          device,
        );
        const y = activation.softmax(x.mul(w).reshape([16, 16]), 1);
        values(y.sum());
        // A row sum read by two broadcasts and then disposed: a reduction shared inside the block only.
        const m = y.sumDim(1);
        const z = y.sub(m).div(y.mul(m));
        m.dispose();
        values(z);
      });
      // Outputs not served by the pool are fresh memory: none once the loop is warm.
      if (step === 5) fresh = pool.takes - pool.reused;
      if (step > 5) assert.equal(pool.takes - pool.reused, fresh, `no fresh allocation at step ${step}`);
    }
  });
});

describe('fusion limits and lifetimes', () => {
  it('a program never binds more tensors than the inner backend allows', () => {
    const cpu = new CpuBackend(jsEngine);
    const bindings: number[] = [];
    // The CPU backend with a binding limit of 4 (as WebGPU's storage-buffer limit), counting each program's.
    const inner = Object.create(cpu, {
      maxFusedBindings: { value: 4 },
      fused: {
        value: (call: Parameters<NonNullable<CpuBackend['fused']>>[0]) => {
          bindings.push(call.inputs.length + call.program.outputs.length);
          return cpu.fused?.(call);
        },
      },
    }) as CpuBackend;
    const device = new Device(new FusionBackend(inner) as unknown as Backend<TensorPrimitive>, 'fusion<limited>');
    const plain = Device.cpu({ engine: 'js' });
    const run = (d: Device) => {
      const xs = [1, 2, 3, 4, 5, 6, 7].map((k) => Tensor.fromFloats([k, k * 2, -k], d));
      return values(xs.reduce((a, b, i) => (i % 2 ? a.add(b) : a.mul(b.exp())), xs[0]!.neg()).softmax(0));
    };
    close(run(device), run(plain), 'limited');
    assert.ok(bindings.length > 1, 'the block was cut');
    assert.ok(
      bindings.every((n) => n <= 4),
      `bindings per program: ${bindings.join(', ')}`,
    );
  });

  it('a block past the size limit is computed at record time, with the same values', () => {
    const plain = Device.cpu({ engine: 'js' });
    const f = plain.fusion();
    const run = (d: Device) => {
      let y = Tensor.fromFloats([0.1, 0.2, 0.3], d);
      for (let i = 0; i < 200; i++) y = i % 2 ? y.mul(0.99) : y.add(0.01);
      return y;
    };
    const before = stats(f).programs;
    const y = run(f);
    assert.ok(stats(f).programs - before >= 2, 'flushed on the way');
    close(values(y), values(run(plain)), 'long chain');
  });

  it('a pending tensor made outside a scope and computed inside one stays readable after it', () => {
    const f = Device.cpu({ engine: 'js' }).fusion();
    const x = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
      ],
      f,
    );
    const y = x.mul(2).add(1);
    const z = Tensor.scope(() => y.matmul(x));
    assert.deepEqual(values(y), [3, 5, 7, 9]);
    assert.deepEqual(values(z), [18, 26, 34, 50]);
  });

  it('autodiff().fusion() of the checkpointing device keeps checkpointing, with the same gradients', () => {
    const plain = Device.cpu({ engine: 'js' });
    assert.equal(plain.gradientCheckpointing().fusion(), plain.fusion().gradientCheckpointing());
    const grad = (d: Device) => {
      const w = Tensor.fromFloats(
        [
          [0.5, -1, 2],
          [1.5, 0.25, -0.75],
        ],
        d,
      ).requireGrad();
      const loss = activation.softmax(w.mul(2).exp().sub(w).tanh(), 1).powf(2).sum();
      return values(w.grad(loss.backward())!);
    };
    close(grad(plain.fusion().gradientCheckpointing()), grad(plain.autodiff()), 'checkpointing grad');
  });

  it('what a scope does not return is never computed', () => {
    const f = Device.cpu({ engine: 'js' }).fusion();
    const x = Tensor.fromFloats([1, 2, 3], f);
    values(x);
    const before = stats(f);
    const kept = Tensor.scope(() => {
      x.exp().mul(2);
      x.sin().add(x.cos());
      return x.add(1);
    });
    const after = stats(f);
    assert.equal(after.programs + after.direct - before.programs - before.direct, 1, 'only the result');
    assert.deepEqual(values(kept), [2, 3, 4]);
  });
});

describe('fusion on WebGPU', async () => {
  const gpu = await Device.webgpu().catch(() => undefined);
  it('values equal the plain WebGPU device; Device.webgpu({ fusion: true }) is the fused device', {
    skip: gpu ? false : 'no WebGPU device',
  }, async () => {
    const fused = await Device.webgpu({ fusion: true });
    assert.equal(fused, gpu!.fusion());
    const run = async (d: Device) => {
      d.seed(2);
      const x = Tensor.random([8, 32], Distribution.Normal(0, 1), d);
      const y = activation.softmax(x.mul(0.5).add(1).exp().sub(x), 1).add(x.meanDim(1));
      return Array.from((await y.toData()).toArray() as ArrayLike<number>);
    };
    close(await run(fused), await run(gpu!), 'webgpu', 1e-4);
  });
});
