// LoRA adapters (applyLora / mergeLora): the adapted model equals the base at init, only the
// adapters train, their gradients match finite differences in float64, merging keeps the function,
// the adapted module saves and loads, targets select layers by path, and bad options are BurnErrors.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Module, Tensor, type Float } from '../../src/index.js';
import { applyLora, Linear, LinearConfig, LoraLinear, mergeLora, Relu } from '../../src/nn/index.js';
import { AdamConfig, GradientsParams } from '../../src/optim/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';

/** A small model with Linear layers in fields, an array and a plain object, one of them in PyTorch's 'col' layout. */
class Net extends Module {
  fc1: Linear;
  act = new Relu();
  blocks: { proj: Linear }[];
  head: { out: Linear };

  constructor(device: Device) {
    super();
    this.fc1 = new LinearConfig({ dInput: 5, dOutput: 6 }).init(device);
    this.blocks = [
      { proj: new LinearConfig({ dInput: 6, dOutput: 6, layout: 'col' }).init(device) },
      { proj: new LinearConfig({ dInput: 6, dOutput: 6, bias: false }).init(device) },
    ];
    this.head = { out: new LinearConfig({ dInput: 6, dOutput: 3 }).init(device) };
  }

  forward<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
    let h = this.act.forward(this.fc1.forward(x));
    for (const block of this.blocks) h = block.proj.forward(h).add(h);
    return this.head.out.forward(h);
  }
}

const LINEARS = ['fc1', 'blocks.0.proj', 'blocks.1.proj', 'head.out'];

/** Deterministic values in [-1, 1). */
function values(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 31 - 1);
}

function input(device: Device, shape: number[], seed = 7, dtype: 'f32' | 'f64' = 'f32'): Tensor<number, Float> {
  const n = shape.reduce((a, b) => a * b, 1);
  return Tensor.fromFloats(new Float64Array(values(n, seed)), { device, dtype }).reshape(shape);
}

/** The adapted model with every `b` factor set to deterministic non-zero values (so the adapters matter). */
function withNonZeroB<M extends Module>(model: M, device: Device, dtype: 'f32' | 'f64' = 'f32'): M {
  let seed = 100;
  return model.map((p, path) => (path.endsWith('lora.b') ? p.withTensor(input(device, p.dims(), seed++, dtype)) : p));
}

async function array(t: Tensor<number, Float>): Promise<number[]> {
  return Array.from((await t.toData()).toArray() as ArrayLike<number>);
}

function maxDiff(a: readonly number[], b: readonly number[]): number {
  assert.equal(a.length, b.length);
  return a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
}

describe('applyLora', () => {
  it('wraps every Linear, equals the base model at init, and freezes everything but the adapters', async () => {
    const device = Device.cpu();
    device.seed(1);
    const base = new Net(device);
    const adapted = applyLora(base, { rank: 2, alpha: 4 });
    const x = input(device, [3, 4, 5]);
    assert.deepEqual(await array(adapted.forward(x)), await array(base.forward(x)));

    for (const layer of [adapted.fc1, adapted.blocks[0]!.proj, adapted.blocks[1]!.proj, adapted.head.out]) {
      assert.ok(layer instanceof LoraLinear && layer instanceof Linear);
    }
    assert.ok(!(base.fc1 instanceof LoraLinear), 'the input module is unchanged');
    const params = adapted.params();
    const trainable = [...params].filter(([, p]) => p.requireGrad).map(([path]) => path);
    assert.deepEqual(
      trainable,
      LINEARS.flatMap((l) => [`${l}.lora.a`, `${l}.lora.b`]),
    );
    // Factors in Burn's row layout: a [dInput, rank], b [rank, dOutput]; b zero, a Kaiming-uniform.
    assert.deepEqual(params.get('fc1.lora.a')!.dims(), [5, 2]);
    assert.deepEqual(params.get('head.out.lora.b')!.dims(), [2, 3]);
    assert.ok((await array(params.get('fc1.lora.b')!.val() as Tensor<2, Float>)).every((v) => v === 0));
    const a = await array(params.get('fc1.lora.a')!.val() as Tensor<2, Float>);
    assert.ok(a.every((v) => Math.abs(v) <= 1 / Math.sqrt(5)) && a.some((v) => v !== 0), `a = ${a}`);
    // Base parameters keep their ids and tensors.
    assert.equal(params.get('fc1.weight')!.id, base.fc1.weight.id);
    assert.equal(adapted.numParams(), base.numParams() + (5 * 2 + 2 * 6) + 2 * (6 * 2 + 2 * 6) + (6 * 2 + 2 * 3));
    assert.equal((adapted.fc1 as LoraLinear).lora.scale, 2);
    assert.match(
      String(adapted.fc1),
      /^LoraLinear \{dInput: 5, dOutput: 6, bias: true, rank: 2, alpha: 4, params: 58\}$/,
    );
  });

  it('an optimizer step changes only the adapters: base weights stay bit-identical', async () => {
    const device = Device.cpu().autodiff();
    device.seed(2);
    const base = new Net(device);
    let model = applyLora(base, { rank: 3, alpha: 6, dropout: 0.1 });
    const before = new Map<string, number[]>();
    for (const [path, p] of model.params()) before.set(path, await array(p.val() as Tensor<number, Float>));
    // AdamW-style weight decay would move a frozen parameter if the optimizer touched it.
    const optim = new AdamConfig({ weightDecay: { penalty: 0.1 } }).init<Net>();
    const x = input(device, [4, 5]);
    for (let step = 0; step < 3; step++) {
      const loss = model.forward(x).powf(2).mean();
      const grads = GradientsParams.fromGrads(loss.backward(), model);
      const ids = new Set(grads.ids());
      for (const [path, p] of model.params())
        assert.equal(ids.has(p.id), path.includes('.lora.'), `gradient of ${path}`);
      model = optim.step(1e-2, model, grads);
    }
    for (const [path, p] of model.params()) {
      const now = await array(p.val() as Tensor<number, Float>);
      if (path.includes('.lora.')) assert.ok(maxDiff(now, before.get(path)!) > 0, `${path} trained`);
      else assert.deepEqual(now, before.get(path), `${path} is frozen`);
      assert.equal(p.requireGrad, path.includes('.lora.'));
    }
  });

  it('gradients of a and b equal central finite differences in float64 (row and col layouts, 3-D input)', async () => {
    const inner = Device.cpu({ engine: 'js' });
    inner.seed(3);
    const f64 = <M extends Module>(m: M) => m.map((p) => p.withTensor(p.val().cast('f64')));
    const adapted = withNonZeroB(applyLora(f64(new Net(inner)), { rank: 2, alpha: 3 }), inner, 'f64');
    const x = input(inner, [2, 3, 5], 11, 'f64');
    const r = input(inner, [2, 3, 3], 12, 'f64');
    const lift = (t: Tensor<number, Float>, on: Device) =>
      (on.isAutodiff() ? Tensor.fromInner(t, on) : t) as Tensor<3, Float>;
    const objective = (m: Net, on: Device) => m.forward(lift(x, on)).mul(lift(r, on)).sum();

    const device = inner.autodiff();
    const trained = adapted.train();
    const grads = GradientsParams.fromGrads(objective(trained, device).backward(), trained);
    let checked = 0;
    for (const [path, p] of adapted.params()) {
      if (!path.includes('.lora.')) continue;
      const ad = await array(grads.get(p.id)!);
      const base = await array(p.val() as Tensor<number, Float>);
      const at = (i: number, delta: number) => {
        const shifted = base.map((v, j) => (j === i ? v + delta : v));
        const m = adapted.map((q) =>
          q.id === p.id
            ? q.withTensor(
                Tensor.fromFloats(new Float64Array(shifted), { device: inner, dtype: 'f64' }).reshape(q.dims()),
              )
            : q,
        );
        return objective(m, inner).toDataSync().toArray()[0] as number;
      };
      for (let i = 0; i < base.length; i++) {
        const h = 1e-6;
        const fd = (at(i, h) - at(i, -h)) / (2 * h);
        assert.ok(
          Math.abs(ad[i]! - fd) <= 1e-7 * Math.max(1, Math.abs(fd)),
          `${path}[${i}]: autodiff ${ad[i]}, finite differences ${fd}`,
        );
        checked++;
      }
    }
    assert.equal(checked, 5 * 2 + 2 * 6 + 2 * (6 * 2 + 2 * 6) + (6 * 2 + 2 * 3));
  });

  it('targets select layers by path, prefix, trailing name, RegExp or predicate', () => {
    const device = Device.cpu();
    const adaptedPaths = (m: Net) => LINEARS.filter((l) => m.params().has(`${l}.lora.a`));
    const net = new Net(device);
    assert.deepEqual(adaptedPaths(applyLora(net, { rank: 1, alpha: 1, targets: 'fc1' })), ['fc1']);
    assert.deepEqual(adaptedPaths(applyLora(net, { rank: 1, alpha: 1, targets: 'proj' })), [
      'blocks.0.proj',
      'blocks.1.proj',
    ]);
    assert.deepEqual(adaptedPaths(applyLora(net, { rank: 1, alpha: 1, targets: 'blocks' })), [
      'blocks.0.proj',
      'blocks.1.proj',
    ]);
    assert.deepEqual(adaptedPaths(applyLora(net, { rank: 1, alpha: 1, targets: ['head', 'blocks.1.proj'] })), [
      'blocks.1.proj',
      'head.out',
    ]);
    assert.deepEqual(adaptedPaths(applyLora(net, { rank: 1, alpha: 1, targets: /^(fc1|head\.out)$/g })), [
      'fc1',
      'head.out',
    ]);
    assert.deepEqual(
      adaptedPaths(applyLora(net, { rank: 1, alpha: 1, targets: (_path, layer) => layer.layout === 'col' })),
      ['blocks.0.proj'],
    );
    // Untargeted layers stay plain Linear layers, frozen all the same.
    const some = applyLora(net, { rank: 1, alpha: 1, targets: 'fc1' });
    assert.ok(!(some.head.out instanceof LoraLinear));
    assert.equal(some.head.out.weight.requireGrad, false);
    // A bare Linear is its own (root) target.
    const single = applyLora(new LinearConfig({ dInput: 4, dOutput: 4 }).init(device), { rank: 4, alpha: 8 });
    assert.ok(single instanceof LoraLinear);
    // ...and unfreeze() trains more than the adapters (a new head, say).
    const withHead = applyLora(net, { rank: 1, alpha: 1, targets: 'blocks' }).unfreeze('head');
    assert.deepEqual(
      [...withHead.params()].filter(([, p]) => p.requireGrad).map(([k]) => k),
      [
        'blocks.0.proj.lora.a',
        'blocks.0.proj.lora.b',
        'blocks.1.proj.lora.a',
        'blocks.1.proj.lora.b',
        'head.out.weight',
        'head.out.bias',
      ],
    );
  });

  it('bad options are BurnErrors naming the value and what was expected', () => {
    const net = new Net(Device.cpu());
    const fails = (options: unknown, message: RegExp) =>
      assert.throws(
        () => applyLora(net, options as { rank: number; alpha: number }),
        (e: unknown) => e instanceof BurnError && message.test(e.message),
        String(message),
      );
    fails({ rank: 0, alpha: 1 }, /applyLora: rank must be a positive integer, got 0/);
    fails({ rank: 1.5, alpha: 1 }, /rank must be a positive integer, got 1.5/);
    fails(
      { rank: 4, alpha: 1 },
      /applyLora: rank 4 exceeds min\(dInput, dOutput\) = 3 of 'head.out' \(dInput 6, dOutput 3\)/,
    );
    fails({ rank: 6, alpha: 1, targets: 'fc1' }, /rank 6 exceeds min\(dInput, dOutput\) = 5 of 'fc1'/);
    fails(
      { rank: 1, alpha: 1, targets: 'nope' },
      /applyLora: target 'nope' selects no Linear layer; the Linear layers are 'fc1', 'blocks.0.proj', 'blocks.1.proj', 'head.out'/,
    );
    fails({ rank: 1, alpha: 1, targets: ['fc1', 'fc2'] }, /target 'fc2' selects no Linear layer/);
    fails({ rank: 1, alpha: 1, targets: /conv/ }, /target \/conv\/ selects no Linear layer/);
    fails({ rank: 1, alpha: 1, targets: () => false }, /target the predicate selects no Linear layer/);
    fails({ rank: 1, alpha: 1, targets: [] }, /targets is an empty list/);
    fails({ rank: 1, alpha: 1, targets: [3] }, /a target must be a path string, a RegExp or a predicate/);
    fails({ rank: 1, alpha: 0 }, /alpha must be a positive finite number, got 0/);
    fails({ rank: 1, alpha: 1, dropout: 1 }, /dropout must be a probability in \[0, 1\), got 1/);
    fails({ rank: 1, alpha: 1, ranks: 2 }, /applyLora: unknown option 'ranks'/);
    fails(undefined, /options \{ rank, alpha, dropout\?, targets\? \} are required/);
    fails(Tensor.zeros([2], Device.cpu()), /applyLora: options must be an object/);
    const adapted = applyLora(net, { rank: 1, alpha: 1 });
    assert.throws(
      () => applyLora(adapted, { rank: 1, alpha: 1, targets: 'fc1' }),
      /applyLora: 'fc1' already has a LoRA adapter; merge it first \(mergeLora\)/,
    );
  });
});

describe('mergeLora', () => {
  it('folds the adapters into plain Linear layers that compute the same function', async () => {
    const device = Device.cpu();
    device.seed(4);
    const adapted = withNonZeroB(applyLora(new Net(device), { rank: 2, alpha: 5 }), device);
    const merged = mergeLora(adapted);
    for (const layer of [merged.fc1, merged.blocks[0]!.proj, merged.blocks[1]!.proj, merged.head.out]) {
      assert.ok(layer instanceof Linear && !(layer instanceof LoraLinear));
    }
    assert.deepEqual(
      [...merged.params().keys()],
      [
        'fc1.weight',
        'fc1.bias',
        'blocks.0.proj.weight',
        'blocks.0.proj.bias',
        'blocks.1.proj.weight',
        'head.out.weight',
        'head.out.bias',
      ],
    );
    assert.equal(merged.params().get('fc1.weight')!.id, adapted.fc1.weight.id);
    assert.equal(merged.blocks[0]!.proj.layout, 'col');
    const x = input(device, [3, 4, 5]);
    const unmergedOut = await array(adapted.forward(x));
    const mergedOut = await array(merged.forward(x));
    assert.ok(maxDiff(unmergedOut, mergedOut) < 1e-5, `merged differs by ${maxDiff(unmergedOut, mergedOut)}`);
    // The adapters really changed the function (b is non-zero), so the comparison means something.
    const baseOut = await array(mergeLora(applyLora(new Net(device), { rank: 1, alpha: 1 })).forward(x));
    assert.ok(maxDiff(unmergedOut, baseOut) > 1e-2);
    // LoraLinear.merge on the col layout alone.
    const col = adapted.blocks[0]!.proj as LoraLinear;
    const h = input(device, [2, 6], 9);
    assert.ok(maxDiff(await array(col.forward(h)), await array(col.merge().forward(h))) < 1e-5);
    // Nothing to merge: the module comes back as is.
    const plain = new Net(device);
    assert.equal(mergeLora(plain), plain);
  });
});

describe('LoRA and persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'burn-lora-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the adapted module saves to burnpack and loads into a freshly adapted one; the merged one into the base architecture', async () => {
    const device = Device.cpu();
    device.seed(5);
    const adapted = withNonZeroB(applyLora(new Net(device), { rank: 2, alpha: 4 }), device);
    const x = input(device, [2, 5]);
    const expected = await array(adapted.forward(x));

    const path = adapted.saveFile(join(dir, 'adapted'));
    const fresh = applyLora(new Net(device), { rank: 2, alpha: 4 });
    assert.notDeepEqual(await array(fresh.forward(x)), expected);
    fresh.loadFile(path);
    assert.deepEqual(await array(fresh.forward(x)), expected);
    assert.ok(fresh.fc1 instanceof LoraLinear);
    assert.equal(fresh.fc1.weight.requireGrad, false, 'requireGrad flags survive loading');
    assert.equal((fresh.fc1 as LoraLinear).lora.a.requireGrad, true);

    // A base model has no lora.* entries: loading the adapted file into it is refused.
    assert.throws(() => new Net(device).loadFile(path), BurnError);
    const mergedPath = mergeLora(adapted).saveFile(join(dir, 'merged'));
    const plain = new Net(device).loadFile(mergedPath);
    assert.ok(maxDiff(await array(plain.forward(x)), expected) < 1e-5);
    // Bytes too.
    const again = applyLora(new Net(device), { rank: 2, alpha: 4 }).loadBytes(adapted.toBytes());
    assert.deepEqual(await array(again.forward(x)), expected);
  });
});

describe('LoRA on every device', () => {
  for (const entry of conformanceDevices()) {
    itOn(entry)(`${entry.name}: adapt, step (autodiff), merge, save and load`, async () => {
      const device = entry.device();
      device.seed(6);
      let model = withNonZeroB(applyLora(new Net(device), { rank: 2, alpha: 2, targets: ['fc1', 'blocks'] }), device);
      const x = input(device, [3, 5]);
      if (device.isAutodiff()) {
        const frozen = await array(model.fc1.weight.val());
        const a = await array((model.fc1 as LoraLinear).lora.a.val());
        const loss = model.forward(x).powf(2).mean();
        model = new AdamConfig({}).init<Net>().step(1e-2, model, GradientsParams.fromGrads(loss.backward(), model));
        assert.deepEqual(await array(model.fc1.weight.val()), frozen);
        assert.ok(maxDiff(await array((model.fc1 as LoraLinear).lora.a.val()), a) > 0);
        // valid(): the inner-device model keeps its adapters and computes the same.
        const inner = model.valid();
        assert.ok(inner.fc1 instanceof LoraLinear && !inner.fc1.weight.device().isAutodiff());
        assert.ok(maxDiff(await array(inner.forward(x.inner())), await array(model.forward(x))) < 1e-5);
      }
      const out = await array(model.forward(x));
      assert.ok(maxDiff(out, await array(mergeLora(model).forward(x))) < 1e-4);
      const loaded = applyLora(new Net(device), { rank: 2, alpha: 2, targets: ['fc1', 'blocks'] }).loadBytes(
        await model.toBytesAsync(),
        device,
      );
      assert.ok(maxDiff(out, await array(loaded.forward(x))) < 1e-6);
    });
  }
});
