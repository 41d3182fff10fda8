// Device.configure({ floatDtype, intDtype }), Burn's set_default_dtypes: creation ops
// without a dtype use the device's defaults (shared with its autodiff device); explicit dtypes,
// TensorData's dtype and bools are kept; wrong kinds, unknown dtypes and dtypes the backend
// cannot create are BurnErrors that change nothing.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Distribution, Tensor, TensorData, type Backend } from '../../src/index.js';
import { LinearConfig } from '../../src/nn/index.js';

const js = Device.cpu({ engine: 'js' });
after(() => {
  js.configure({ floatDtype: 'f32', intDtype: 'i32' });
});
const arr = async (t: { toData(): Promise<TensorData> }) => Array.from((await t.toData()).toArray());
const throwsBurn = (fn: () => unknown, ...parts: string[]) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, 'Device.configure');
    for (const p of parts)
      assert.ok(e.message.includes(p), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });

describe('Device.configure', () => {
  it('starts at f32 and i32', () => {
    assert.deepEqual(js.defaultDtypes(), { floatDtype: 'f32', intDtype: 'i32' });
    assert.equal(Tensor.zeros([1], js).dtype(), 'f32');
    assert.equal(Tensor.arange(0, 2, js).dtype(), 'i32');
  });

  it('float creation ops without a dtype use floatDtype (f64 keeps 0.1 exactly)', async () => {
    assert.equal(js.configure({ floatDtype: 'f64' }), js, 'returns the device');
    assert.deepEqual(js.defaultDtypes(), { floatDtype: 'f64', intDtype: 'i32' });
    const made = {
      zeros: Tensor.zeros([2], js),
      ones: Tensor.ones([2], js),
      full: Tensor.full([2], 0.1, js),
      empty: Tensor.empty([2], js),
      random: Tensor.random([2], Distribution.Default, js),
      eye: Tensor.eye(2, js),
      fromFloats: Tensor.fromFloats([0.1, 0.2], js),
      fromFloatsOptions: Tensor.fromFloats([0.1], { device: js }),
      fromData: Tensor.fromData([[0.1, 0.2]], js),
    };
    for (const [name, t] of Object.entries(made)) assert.equal(t.dtype(), 'f64', name);
    assert.deepEqual(await arr(made.full), [0.1, 0.1]);
    assert.deepEqual(await arr(made.fromFloats), [0.1, 0.2]);
    assert.deepEqual(await arr(made.fromFloats.add(made.fromFloats)), [0.2, 0.4]);
    assert.deepEqual(await arr(made.ones), [1, 1]);
    assert.deepEqual(await arr(made.eye), [1, 0, 0, 1]);
    // Explicit dtypes, TensorData's own dtype, bools and ints are kept.
    assert.equal(Tensor.zeros([1], { device: js, dtype: 'f32' }).dtype(), 'f32');
    assert.equal(Tensor.fromData(new TensorData([1], [1], 'f16'), js).dtype(), 'f16');
    assert.equal(Tensor.full([1], true, js).dtype(), 'bool');
    assert.equal(Tensor.fromData([[true]], js).dtype(), 'bool');
    assert.equal(Tensor.fromInts([1], js).dtype(), 'i32');
    // Ops keep their inputs' dtype.
    assert.equal(made.zeros.onesLike().dtype(), 'f64');
    assert.equal(made.fromFloats.sum().dtype(), 'f64');
  });

  it('int creation ops without a dtype use intDtype', async () => {
    js.configure({ intDtype: 'i64' });
    assert.deepEqual(js.defaultDtypes(), { floatDtype: 'f64', intDtype: 'i64' });
    const ints = {
      fromInts: Tensor.fromInts([1, -2], js),
      arange: Tensor.arange(0, 3, js),
      arangeStep: Tensor.arangeStep(4, 0, -2, js),
      grid: Tensor.cartesianGrid([2], js),
    };
    for (const [name, t] of Object.entries(ints)) assert.equal(t.dtype(), 'i64', name);
    assert.deepEqual(await arr(ints.arange), [0, 1, 2]);
    assert.deepEqual(await arr(ints.arangeStep), [4, 2]);
    assert.deepEqual(await arr(ints.fromInts), [1, -2]);
    js.configure({ intDtype: 'i16' });
    // The dtype must hold the values: 40000 is not an i16.
    assert.throws(() => Tensor.fromInts([40000], js), BurnError);
    assert.equal(Tensor.fromInts([7], { device: js, dtype: 'i32' }).dtype(), 'i32');
    js.configure({ intDtype: 'i32' });
  });

  it('is shared with the autodiff device, both ways, and reaches module initialization', async () => {
    js.configure({ floatDtype: 'f64' });
    const ad = js.autodiff();
    assert.equal(Tensor.ones([1], ad).dtype(), 'f64');
    ad.configure({ floatDtype: 'f16' });
    assert.equal(js.defaultFloatDtype(), 'f16');
    assert.equal(Tensor.ones([1], js).dtype(), 'f16');
    js.configure({ floatDtype: 'f64' });
    const linear = new LinearConfig({ dInput: 2, dOutput: 1 }).init(ad);
    assert.equal(linear.weight.val().dtype(), 'f64');
    const out = linear.forward(Tensor.fromFloats([[1, 2]], ad));
    assert.equal(out.dtype(), 'f64');
    const [w, b] = [await arr(linear.weight.val()), linear.bias ? await arr(linear.bias.val()) : [0]];
    assert.deepEqual(await arr(out), [w[0]! + 2 * w[1]! + b[0]!]);
    js.configure({ floatDtype: 'f32' });
  });

  it('other devices keep their own defaults', () => {
    const other = new Device(js.backend, 'cpu(js, another)');
    js.configure({ floatDtype: 'f64' });
    assert.equal(other.defaultFloatDtype(), 'f32');
    assert.equal(Tensor.zeros([1], other).dtype(), 'f32');
    js.configure({ floatDtype: 'f32' });
  });

  it('wrong kinds, unknown dtypes and unknown keys are BurnErrors naming the value and what is allowed; nothing changes', () => {
    throwsBurn(
      () => js.configure({ floatDtype: 'i32' as never }),
      "floatDtype 'i32' is an integer dtype",
      'expected a float dtype: f32, f64, f16 or bf16',
    );
    throwsBurn(
      () => js.configure({ intDtype: 'f32' as never }),
      "intDtype 'f32' is a float dtype",
      'expected an integer dtype',
    );
    throwsBurn(() => js.configure({ intDtype: 'bool' as never }), "intDtype 'bool' is the bool dtype");
    throwsBurn(() => js.configure({ floatDtype: 'float64' as never }), 'floatDtype "float64" is not a dtype');
    throwsBurn(() => js.configure({ floatType: 'f64' } as never), "unknown option 'floatType'");
    throwsBurn(() => js.configure(undefined as never), 'no settings');
    throwsBurn(() => js.configure('f64' as never), 'options must be an object');
    // A valid floatDtype beside an invalid intDtype is not applied either.
    throwsBurn(() => js.configure({ floatDtype: 'f64', intDtype: 'f16' as never }), 'intDtype');
    assert.deepEqual(js.defaultDtypes(), { floatDtype: 'f32', intDtype: 'i32' });
  });

  it('a dtype the backend cannot create is refused with its reason', () => {
    // A backend that, like WebGPU, has no 64-bit types.
    const base = js.backend;
    const no64 = new Proxy(base, {
      get(target, key, receiver) {
        if (key === 'fill') {
          return (shape: readonly number[], value: number, dtype: string) => {
            if (dtype === 'f64' || dtype === 'i64')
              throw new BurnError('fill', `dtype ${dtype} is not supported by this backend`);
            return target.fill(shape, value, dtype as never);
          };
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    }) as Backend;
    const device = new Device(no64, 'no64');
    throwsBurn(
      () => device.configure({ floatDtype: 'f64' }),
      "floatDtype 'f64' is not supported on no64",
      'dtype f64 is not supported by this backend',
    );
    throwsBurn(() => device.configure({ intDtype: 'i64' }), "intDtype 'i64' is not supported on no64");
    assert.deepEqual(device.configure({ floatDtype: 'f16', intDtype: 'i16' }).defaultDtypes(), {
      floatDtype: 'f16',
      intDtype: 'i16',
    });
  });
});

const gpu = await Device.webgpu().then(
  (d) => ({ d, reason: undefined }),
  (e: unknown) => ({ d: undefined, reason: e instanceof Error ? e.message : String(e) }),
);
describe('Device.configure on WebGPU', () => {
  it('refuses f64 and i64 (WGSL has no 64-bit types) and creates f16 tensors', {
    skip: gpu.d ? false : `no WebGPU device: ${gpu.reason}`,
  }, async () => {
    const d = gpu.d!;
    throwsBurn(() => d.configure({ floatDtype: 'f64' }), "floatDtype 'f64' is not supported on", 'webgpu');
    throwsBurn(() => d.configure({ intDtype: 'i64' }), "intDtype 'i64' is not supported on");
    d.configure({ floatDtype: 'f16' });
    try {
      const t = Tensor.full([2], 1.5, d);
      assert.equal(t.dtype(), 'f16');
      assert.deepEqual(Array.from((await t.add(t).toData()).toArray()), [3, 3]);
    } finally {
      d.configure({ floatDtype: 'f32' });
    }
  });
});
