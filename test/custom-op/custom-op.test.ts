// The public custom-op API (defineCustomOp): the fused matmul + add + ReLU of examples/custom-op,
// with a CPU function and a WGSL kernel, gives the composite relu(a·b + c)'s values on every
// conformance device that has a forward for it (CPU engines, WebGPU, their autodiff devices), its
// backward rule gives the composite's gradients and passes a float64 finite-difference check, the
// errors name the op, and WebGPU memory stays flat over many training steps.
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { describe, it } from 'node:test';
import { BurnError, defineCustomOp, Device, Distribution, Tensor } from '../../src/index.js';
import type { WebGpuBackend } from '../../src/backends/webgpu/backend.js';
import { conformanceDevices, remoteServer, webgpu } from '../helpers/devices.js';
import { composite, fused, fusedOutput, WGSL } from './fused.js';

/** Values of `t` as plain numbers. */
async function values(t: Tensor): Promise<number[]> {
  return Array.from((await t.toData()).toArray() as ArrayLike<number>);
}

/** Asserts `actual` ≈ `expected` elementwise (absolute + relative tolerance). */
function close(actual: readonly number[], expected: readonly number[], tol: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((v, i) => {
    const e = expected[i]!;
    assert.ok(Math.abs(v - e) <= tol * (1 + Math.abs(e)), `${what}[${i}] = ${v}, expected ${e}`);
  });
}

/** Inputs of the op on `device`: `a` [..., m, k], `b` [..., k, n] (transposed views when `strided`), `c` [n]. */
function inputs(
  device: Device,
  batch: readonly number[],
  m: number,
  k: number,
  n: number,
  seed: number,
  strided = false,
): [Tensor, Tensor, Tensor] {
  device.seed(seed);
  const normal = Distribution.Normal(0, 1);
  const a = Tensor.random([...batch, m, k], normal, device);
  const b = strided
    ? Tensor.random([...batch, n, k], normal, device).transpose()
    : Tensor.random([...batch, k, n], normal, device);
  const c = Tensor.random([n], normal, device);
  return [a, b, c];
}

/** Devices whose backend has no forward of the op: the error names the op and the device. */
const NO_FORWARD = new Set(['required-only', 'remote']);

describe('custom op: forward values equal the composite relu(a·b + c)', () => {
  for (const entry of conformanceDevices()) {
    it(`on ${entry.name}`, async () => {
      const device = entry.device();
      const cases: [number[], number, number, number, boolean][] = [
        [[], 5, 7, 6, false],
        [[3], 4, 9, 17, true],
        [[2, 2], 1, 1, 1, false],
        [[], 33, 20, 18, false],
      ];
      for (const [batch, m, k, n, strided] of cases) {
        const [a, b, c] = inputs(device, batch, m, k, n, 7 + m, strided);
        if (NO_FORWARD.has(entry.name)) {
          assert.throws(
            () => fused.apply(a, b, c),
            (e: unknown) =>
              e instanceof BurnError &&
              e.message.includes('fusedMatmulAddRelu') &&
              e.message.includes(`no forward for ${device}`) &&
              /defines cpu and webgpu only/.test(e.message),
          );
          return;
        }
        const out = fused.apply(a, b, c);
        assert.deepEqual(out.shape(), [...batch, m, n]);
        close(await values(out), await values(composite(a, b, c)), 1e-5, `${entry.name} ${[...batch, m, k, n]}`);
      }
    });
  }

  it('a sliced input (an offset into its buffer) reads from its own first element', async () => {
    for (const device of [Device.cpu({ engine: 'js' }), ...(webgpu.device ? [webgpu.device] : [])]) {
      const [a, b, c] = inputs(device, [4], 3, 5, 2, 11);
      const [as, bs, cs] = [a.slice([[2, 4]]), b.slice([[1, 3]]), Tensor.cat([c, c], 0).slice([[1, 3]])];
      close(await values(fused.apply(as, bs, cs)), await values(composite(as, bs, cs)), 1e-5, `${device}`);
    }
  });

  it('f64 on the CPU, and f16 rounded to half precision on every device with a forward', async () => {
    const cpu = Device.cpu({ engine: 'js' });
    const [a, b, c] = inputs(cpu, [], 4, 6, 3, 3);
    const [a64, b64, c64] = [a.cast('f64'), b.cast('f64'), c.cast('f64')];
    const out64 = fused.apply(a64, b64, c64);
    assert.equal(out64.dtype(), 'f64');
    close(await values(out64), await values(composite(a64, b64, c64)), 1e-12, 'f64');
    for (const device of [cpu, ...(webgpu.device ? [webgpu.device] : [])]) {
      const [x, y, z] = inputs(device, [], 4, 6, 3, 3).map((t) => t.cast('f16')) as [Tensor, Tensor, Tensor];
      const out = fused.apply(x, y, z);
      assert.equal(out.dtype(), 'f16');
      const got = await values(out);
      // Values of the f32 op on the same (f16) inputs, rounded once to half precision.
      const exact = await values(fused.apply(x.cast('f32'), y.cast('f32'), z.cast('f32')).cast('f16'));
      assert.deepEqual(got, exact, `${device}: the f16 output is the f32 result rounded to f16`);
    }
  });
});

describe('custom op: gradients through the backward rule', () => {
  const autodiffDevices = conformanceDevices().filter((e) => e.name.startsWith('autodiff<'));
  for (const entry of autodiffDevices) {
    it(`equal the composite's gradients on ${entry.name}`, async () => {
      const device = entry.device();
      for (const [batch, strided] of [
        [[], false],
        [[2], true],
      ] as const) {
        const [a0, b0, c0] = inputs(device, batch, 5, 4, 6, 21, strided);
        device.seed(5);
        const w = Tensor.random([...batch, 5, 6], Distribution.Normal(0, 1), device);
        const grads = async (f: (a: Tensor, b: Tensor, c: Tensor) => Tensor): Promise<number[][]> => {
          const [a, b, c] = [a0.requireGrad(), b0.requireGrad(), c0.requireGrad()];
          const g = f(a, b, c).mul(w).sum().backward();
          return Promise.all([a, b, c].map((t) => values(t.grad(g)!)));
        };
        const mine = await grads((a, b, c) => fused.apply(a, b, c));
        const want = await grads(composite);
        mine.forEach((g, i) => close(g, want[i]!, 1e-5, `${entry.name} grad ${'abc'[i]}`));
      }
    });
  }

  it('only the tracked inputs get a gradient, and the rule is told which (needs)', async () => {
    const device = Device.cpu({ engine: 'js' }).autodiff();
    const seen: boolean[][] = [];
    const op = defineCustomOp({
      name: 'spy',
      inputs: ['x', 'y'],
      output: ([x]) => ({ shape: x!.shape }),
      cpu: ([x, y], out) => {
        for (let i = 0; i < out.data.length; i++) out.data[i] = x!.data[i]! * y!.data[i]!;
      },
      backward: (grad, { inputs: [x, y], needs }) => {
        seen.push([...needs]);
        return [needs[0] ? grad.mul(y) : undefined, needs[1] ? grad.mul(x) : undefined];
      },
    });
    const x = Tensor.fromFloats([1, 2, 3], device).requireGrad();
    const y = Tensor.fromFloats([4, 5, 6], device);
    const g = op.apply(x, y).sum().backward();
    assert.deepEqual(seen, [[true, false]]);
    assert.deepEqual(await values(x.grad(g)!), [4, 5, 6]);
    assert.equal(y.grad(g), undefined);
  });

  it('pass a float64 finite-difference check (central differences, autodiff<cpu(js)>)', async () => {
    const device = Device.cpu({ engine: 'js' }).autodiff();
    const plain = device.inner();
    const shapes = [[2, 3, 4], [2, 4, 5], [5]];
    device.seed(99);
    const data = shapes.map((s) => Tensor.random(s, Distribution.Normal(0, 1), { device: plain, dtype: 'f64' }));
    const w = Tensor.random([2, 3, 5], Distribution.Normal(0, 1), { device: plain, dtype: 'f64' });
    const loss = async (ts: Tensor[]): Promise<number> =>
      (await values(fused.apply(ts[0]!, ts[1]!, ts[2]!).mul(w).sum()))[0]!;
    const tracked = data.map((t) => Tensor.fromInner(t, device).requireGrad());
    const g = fused.apply(tracked[0]!, tracked[1]!, tracked[2]!).mul(Tensor.fromInner(w, device)).sum().backward();
    const eps = 1e-6;
    for (let which = 0; which < 3; which++) {
      const analytic = await values(tracked[which]!.grad(g)!);
      const base = await values(data[which]!);
      for (let i = 0; i < base.length; i++) {
        const shifted = (d: number) => {
          const arr = base.slice();
          arr[i]! += d;
          return data.map((t, j) =>
            j !== which
              ? t
              : Tensor.fromFloats(Float64Array.from(arr), { device: plain, dtype: 'f64' }).reshape(shapes[which]!),
          );
        };
        const numeric = ((await loss(shifted(eps))) - (await loss(shifted(-eps)))) / (2 * eps);
        assert.ok(
          Math.abs(numeric - analytic[i]!) <= 1e-6 * (1 + Math.abs(numeric)),
          `d loss / d ${'abc'[which]}[${i}]: analytic ${analytic[i]}, numeric ${numeric}`,
        );
      }
    }
  });

  it('under gradient checkpointing a memory-bound op runs its forward again; the gradients stay', async () => {
    let runs = 0;
    const op = defineCustomOp({
      name: 'scaled',
      inputs: ['x'],
      output: ([x]) => ({ shape: x!.shape }),
      cpu: ([x], out) => {
        runs++;
        for (let i = 0; i < out.data.length; i++) out.data[i] = 3 * x!.data[i]!;
      },
      backward: (grad) => [grad.mul(3)],
      cost: 'memory-bound',
    });
    const device = Device.cpu({ engine: 'js' }).gradientCheckpointing();
    const x = Tensor.fromFloats([1, -2, 3], device).requireGrad();
    const y = op.apply(x);
    assert.equal(runs, 1);
    // exp reads its output in the backward pass: the checkpointed op's output is recomputed then.
    const g = y.exp().sum().backward();
    assert.equal(runs, 2, 'the forward ran again in the backward pass');
    close(
      await values(x.grad(g)!),
      [1, -2, 3].map((v) => 3 * Math.exp(3 * v)),
      1e-6,
      'grad',
    );
  });

  it('an op without a backward runs its composite under autodiff (differentiated op by op)', async () => {
    const op = defineCustomOp({
      name: 'noRule',
      inputs: ['lhs', 'rhs', 'bias'],
      output: fusedOutput,
      cpu: fusedCpu(),
      composite,
    });
    const device = Device.cpu({ engine: 'js' }).autodiff();
    const [a, b, c] = inputs(device, [], 3, 4, 2, 1).map((t) => t.requireGrad());
    const g = op.apply(a!, b!, c!).sum().backward();
    const g2 = composite(a!, b!, c!).sum().backward();
    close(await values(a!.grad(g)!), await values(a!.grad(g2)!), 1e-6, 'grad a');
  });
});

/** The fused op's CPU function (for ops that reuse it). */
function fusedCpu() {
  return fused.kernel.cpu!;
}

describe('custom op: errors name the op', () => {
  const cpu = Device.cpu({ engine: 'js' });
  const is = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);

  it('a device the op has no forward for; a remote device (unless a composite runs there)', async () => {
    const gpuOnly = defineCustomOp({
      name: 'gpuOnly',
      inputs: ['x'],
      output: ([x]) => ({ shape: x!.shape }),
      webgpu: { wgsl: WGSL, workgroups: () => [1] },
    });
    assert.throws(
      () => gpuOnly.apply(Tensor.ones([2], cpu)),
      is(
        /^gpuOnly: no forward for cpu\(js\): the op defines webgpu only; give it a forward for this backend, or a composite/,
      ),
    );
    const remote = Device.remote(remoteServer.url);
    const [a, b, c] = inputs(remote, [], 2, 3, 2, 4);
    assert.throws(
      () => fused.apply(a, b, c),
      is(/^fusedMatmulAddRelu: no forward for remote\(ws:.*\(a remote server cannot run a function of this process\)/),
    );
    const withComposite = defineCustomOp({
      name: 'anywhere',
      inputs: ['lhs', 'rhs', 'bias'],
      output: fusedOutput,
      cpu: fusedCpu(),
      composite,
    });
    close(await values(withComposite.apply(a, b, c)), await values(composite(a, b, c)), 1e-6, 'remote composite');
  });

  it('wrong inputs: count, kind, devices, shapes', () => {
    const [a, b, c] = inputs(cpu, [], 2, 3, 4, 1);
    assert.throws(
      () => (fused.apply as (...ts: Tensor[]) => Tensor)(a, b),
      is(/^fusedMatmulAddRelu: got 2 input\(s\); expected 3 \(lhs, rhs, bias\)/),
    );
    assert.throws(
      () => fused.apply(a, b, Tensor.ones([4], { device: cpu, dtype: 'i32' }) as unknown as Tensor),
      is(/input bias has dtype i32; expected a Float tensor/),
    );
    assert.throws(
      () => fused.apply(a, b, c.toDevice(Device.cpu({ engine: 'js' }).autodiff())),
      is(/^fusedMatmulAddRelu: tensors are on different devices/),
    );
    assert.throws(
      () => fused.apply(a, b.transpose(), c),
      is(
        /^fusedMatmulAddRelu: shapes \[2, 3\], \[4, 3\], \[4\]; expected \[\.\.\., m, k\], \[\.\.\., k, n\] \(equal batch dims\) and \[n\]/,
      ),
    );
    assert.throws(
      () => fused.apply(a, b, Tensor.ones([2, 4], cpu)),
      is(/^fusedMatmulAddRelu: shapes \[2, 3\], \[3, 4\], \[2, 4\]/),
    );
  });

  it('a backward returning the wrong number, shape or device of gradients; a tracked input without a backward', () => {
    const device = cpu.autodiff();
    const make = (backward: (grad: Tensor) => (Tensor | undefined)[]) =>
      defineCustomOp({
        name: 'bad',
        inputs: ['x'],
        output: ([x]) => ({ shape: x!.shape }),
        cpu: ([x], o) => o.data.set(x!.data),
        backward,
      });
    const x = Tensor.fromFloats([1, 2], device).requireGrad();
    assert.throws(
      () =>
        make((g) => [g, g])
          .apply(x)
          .sum()
          .backward(),
      is(/^bad\.backward: returned 2 gradient\(s\); expected 1 \(one per input: x/),
    );
    assert.throws(
      () =>
        make((g) => [g.sum()])
          .apply(x)
          .sum()
          .backward(),
      is(/^bad\.backward: the gradient of x is a f32 tensor of shape \[1\]; expected the input's: f32, \[2\]/),
    );
    assert.throws(
      () =>
        make(() => [Tensor.ones([2], Device.cpu({ engine: 'js' }).autodiff())])
          .apply(x)
          .sum()
          .backward(),
      is(/^bad\.backward: the gradient of x lives on autodiff<cpu\(js\)>; expected cpu\(js\)/),
    );
    const noRule = defineCustomOp({
      name: 'noRule',
      inputs: ['x'],
      output: ([x]) => ({ shape: x!.shape }),
      cpu: ([x], o) => o.data.set(x!.data),
    });
    assert.throws(() => noRule.apply(x), is(/^noRule: an input requires grad, but the op has no backward rule/));
    assert.deepEqual(noRule.apply(x.detach()).shape(), [2], 'untracked inputs need no backward');
  });

  it('the autodiff backend itself refuses a tracked input of a call without a backward, before running the forward', () => {
    let runs = 0;
    const op = defineCustomOp({
      name: 'direct',
      inputs: ['x'],
      output: ([x]) => ({ shape: x!.shape }),
      cpu: ([x], o) => {
        runs++;
        o.data.set(x!.data);
      },
    });
    const device = cpu.autodiff();
    const x = Tensor.fromFloats([1, 2], device).requireGrad();
    const call = { kernel: op.kernel, shape: [2], dtype: 'f32' as const };
    assert.throws(() => device.backend.customOp!(call, [x.primitive]), is(/^direct: an input requires grad/));
    assert.equal(runs, 0);
    assert.equal(device.backend.customOp!(call, [x.detach().primitive])?.shape.join(), '2');
    assert.equal(runs, 1);
  });

  it('a bad definition', () => {
    const output = ([x]: readonly { shape: readonly number[] }[]) => ({ shape: x!.shape });
    assert.throws(
      () => defineCustomOp({ name: '', inputs: ['x'], output, composite: (x) => x }),
      is(/^defineCustomOp: name ""; expected a non-empty string/),
    );
    assert.throws(
      () => defineCustomOp({ name: 'o', inputs: ['output'], output, composite: (x) => x }),
      is(/^o: inputs .*each a WGSL identifier other than a keyword and output, param, custom_params, main/),
    );
    assert.throws(
      () => defineCustomOp({ name: 'o', inputs: ['x', 'let'], output, composite: (x) => x }),
      is(/^o: inputs \["x","let"\]; expected at least one name/),
    );
    assert.throws(
      () => defineCustomOp({ name: 'o', inputs: ['x', 'x'], output, composite: (x) => x }),
      is(/^o: inputs .* repeat a name/),
    );
    assert.throws(
      () => defineCustomOp({ name: 'o', inputs: ['x'], output }),
      is(/^o: no forward; expected cpu, webgpu or composite/),
    );
    const wrongComposite = defineCustomOp({
      name: 'o',
      inputs: ['x'],
      output: () => ({ shape: [3] }),
      composite: (x) => x,
    });
    assert.throws(
      () => wrongComposite.apply(Tensor.ones([2], cpu)),
      is(/^o: the composite returned a f32 tensor of shape \[2\]; expected a f32 tensor of shape \[3\]/),
    );
  });

  it('a WGSL kernel without fn main; workgroups and params out of range', {
    skip: webgpu.device ? false : `no WebGPU device: ${webgpu.reason}`,
  }, () => {
    const gpu = webgpu.device!;
    const x = Tensor.ones([4], gpu);
    const op = (wgsl: string, workgroups: () => readonly [number, number?, number?], params?: () => number[]) =>
      defineCustomOp({
        name: 'k',
        inputs: ['x'],
        output: ([t]) => ({ shape: t!.shape }),
        webgpu: { wgsl, workgroups, ...(params ? { params } : {}) },
      });
    const ok =
      '@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < 4u) { output[g.x] = x[g.x] * 2.0; } }';
    assert.throws(
      () => op('fn helper() {}', () => [1]).apply(x),
      is(/^customOp\(k\): the WGSL has no `fn main\(\.\.\.\)`/),
    );
    assert.throws(
      () => op(ok, () => [70000]).apply(x),
      is(/^customOp\(k\): workgroups \[70000\]; expected 1 to 3 integers in \[0, 65535\]/),
    );
    assert.throws(
      () =>
        op(
          ok,
          () => [1],
          () => [1.5],
        ).apply(x),
      is(/^customOp\(k\): param 0 is 1\.5; expected an integer/),
    );
  });

  it('a WGSL compile error surfaces at the read of the result, with the compiler message; the device goes on', {
    skip: webgpu.device ? false : `no WebGPU device: ${webgpu.reason}`,
  }, async () => {
    const gpu = webgpu.device!;
    const broken = defineCustomOp({
      name: 'broken',
      inputs: ['x'],
      output: ([t]) => ({ shape: t!.shape }),
      webgpu: {
        wgsl: '@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { output[g.x] = x[g.x] * notDeclared; }',
        workgroups: () => [1],
      },
    });
    const y = broken.apply(Tensor.ones([4], gpu));
    await assert.rejects(y.toData(), is(/unresolved value 'notDeclared'/));
    assert.deepEqual(await values(Tensor.ones([4], gpu).add(1)), [2, 2, 2, 2]);
  });
});

/**
 * Full collections with pauses, so that the finalizers of tensors earlier tests dropped have run
 * before memory is counted (as test/backends/webgpu/memory.test.ts does).
 */
async function settle(): Promise<void> {
  await webgpu.device?.sync();
  v8.setFlagsFromString('--expose-gc');
  const collect = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('custom op: WebGPU memory', { skip: webgpu.device ? false : `no WebGPU device: ${webgpu.reason}` }, () => {
  it('is flat over many forward + backward steps (no buffer leaks from the op, its copies or its rule)', async () => {
    const gpu = webgpu.device!;
    const live = () => (gpu.backend as unknown as WebGpuBackend).memory().liveBytes;
    const device = gpu.autodiff();
    const [a0, , c0] = inputs(device, [2], 8, 6, 5, 31);
    const [a, c] = [a0.requireGrad(), c0.requireGrad()];
    // A leaf over a transposed view: the op copies it into a contiguous buffer first.
    const b = Tensor.fromInner(Tensor.random([2, 5, 6], Distribution.Default, gpu).transpose(), device).requireGrad();
    const step = async () => {
      const grads = Tensor.scope(() => {
        const g = fused.apply(a, b, c).sum().backward();
        return [a.grad(g)!, b.grad(g)!, c.grad(g)!];
      });
      const out = await Promise.all(grads.map(values));
      grads.forEach((t) => t.dispose());
      return out;
    };
    await step();
    await settle();
    const base = live();
    for (let i = 0; i < 50; i++) await step();
    await settle();
    assert.equal(live(), base, 'live bytes after 50 steps');
    // The inference path too.
    const [x, y, z] = [a.detach(), b.detach(), c.detach()];
    for (let i = 0; i < 20; i++) fused.apply(x, y, z).dispose();
    await settle();
    assert.equal(live(), base, 'live bytes after 20 forwards');
  });
});

/** Compile-time checks of apply's signature (never called). */
export function typeChecks(a: Tensor, b: Tensor): void {
  // @ts-expect-error three inputs are named: two tensors do not fit
  fused.apply(a, b);
  // @ts-expect-error an input is a Tensor, not a number
  fused.apply(a, b, 1);
  const out: Tensor = fused.apply(a, b, a);
  void out;
}
