// Module: discovery of parameters from fields, traversal with paths, transformations returning new
// modules, devices, autodiff, freezing, records and Burn's display.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Module, Param, RunningState, Tensor, TensorData, type Float } from '../../src/index.js';
import { LinearConfig, Linear, Relu } from '../../src/nn/index.js';

class Block extends Module {
  lin: Linear;
  act = new Relu();
  scale: Param<Tensor<1, Float>>;
  stats: RunningState<Tensor<1, Float>>;
  constructor(
    device: Device,
    readonly name: string,
  ) {
    super();
    this.lin = new LinearConfig({ dInput: 3, dOutput: 2 }).init(device);
    this.scale = new Param(Tensor.ones([2], device));
    this.stats = new RunningState(Tensor.zeros([2], device));
  }
  forward(x: Tensor<2>): Tensor<2> {
    return this.act.forward(this.lin.forward(x)).mul(this.scale.val().unsqueeze<2>());
  }
}

class Net extends Module {
  blocks: Block[];
  heads: { a: Linear; b: Linear | undefined };
  optional: Linear | undefined = undefined;
  readonly hidden = 7;
  constructor(device: Device) {
    super();
    this.blocks = [new Block(device, 'first'), new Block(device, 'second')];
    this.heads = { a: new LinearConfig({ dInput: 2, dOutput: 1, bias: false }).init(device), b: undefined };
  }
}

const device = Device.cpu();

describe('Module', () => {
  it('discovers parameters from fields, with paths, and counts them', () => {
    const net = new Net(device);
    const paths: string[] = [];
    net.visit((_, path) => paths.push(path));
    assert.deepEqual(paths, [
      'blocks.0.lin.weight',
      'blocks.0.lin.bias',
      'blocks.0.scale',
      'blocks.1.lin.weight',
      'blocks.1.lin.bias',
      'blocks.1.scale',
      'heads.a.weight',
    ]);
    assert.equal(net.numParams(), 2 * (3 * 2 + 2 + 2) + 2);
    assert.deepEqual([...net.params().keys()], paths);
  });

  it('map returns a new module of the same class; untouched tensors and constants are shared; ids are stable', () => {
    const net = new Net(device);
    const zeroed = net.map((p, path) => (path.endsWith('scale') ? p.withTensor(p.val().zerosLike()) : p));
    assert.ok(zeroed instanceof Net);
    assert.notEqual(zeroed, net);
    assert.equal(zeroed.hidden, 7);
    assert.equal(zeroed.blocks[0]!.name, 'first');
    assert.equal(zeroed.blocks[0]!.lin.weight.val(), net.blocks[0]!.lin.weight.val(), 'untouched tensor shared');
    assert.equal(zeroed.blocks[0]!.scale.id, net.blocks[0]!.scale.id, 'id kept');
    assert.deepEqual(Array.from(zeroed.blocks[0]!.scale.val().toDataSync().toArray()), [0, 0]);
    assert.deepEqual(Array.from(net.blocks[0]!.scale.val().toDataSync().toArray()), [1, 1], 'original untouched');
    // Methods still work on the copy.
    assert.deepEqual(zeroed.blocks[1]!.forward(Tensor.ones([4, 3], device)).dims(), [4, 2]);
    assert.notEqual(net.clone(), net);
    assert.equal(net.clone().heads.a.weight.val(), net.heads.a.weight.val());
  });

  it('valid() and train() move between an autodiff device and its inner device', () => {
    const ad = device.autodiff();
    const net = new Net(ad);
    assert.deepEqual(net.devices(), [ad]);
    assert.equal(net.blocks[0]!.lin.weight.val().isRequireGrad(), true);
    const valid = net.valid();
    assert.deepEqual(valid.devices(), [device]);
    assert.equal(valid.blocks[0]!.lin.weight.val().isRequireGrad(), false);
    const back = valid.train();
    assert.deepEqual(back.devices(), [ad]);
    assert.equal(back.blocks[0]!.lin.weight.val().isRequireGrad(), true);
    assert.equal(back.blocks[0]!.lin.weight.id, net.blocks[0]!.lin.weight.id);
    // Gradients reach every parameter of the trained module.
    const y = back.blocks[0]!.forward(Tensor.ones([2, 3], ad)).sum();
    const grads = y.backward();
    assert.ok(back.blocks[0]!.lin.weight.val().grad(grads));
    assert.ok(back.blocks[0]!.scale.val().grad(grads));
  });

  it('toDevice, fork and devices()', () => {
    const other = new Device(device.backend, 'cpu-other');
    const net = new Net(device).toDevice(other);
    assert.deepEqual(net.devices(), [other]);
    const forked = new Net(device.autodiff()).fork(device.autodiff());
    assert.equal(forked.blocks[0]!.lin.weight.val().isRequireGrad(), true);
  });

  it('freeze/unfreeze select parameters by path; noGrad freezes all', () => {
    const net = new Net(device.autodiff());
    const frozen = net.freeze('blocks.0');
    const flags: Record<string, boolean> = {};
    frozen.visit((p, path) => (flags[path] = p.requireGrad));
    assert.equal(flags['blocks.0.lin.weight'], false);
    assert.equal(flags['blocks.0.scale'], false);
    assert.equal(flags['blocks.1.lin.weight'], true);
    assert.equal(frozen.blocks[0]!.lin.weight.val().isRequireGrad(), false);
    const thawed = frozen.unfreeze(/lin\.weight$/);
    assert.equal(thawed.blocks[0]!.lin.weight.requireGrad, true);
    assert.equal(thawed.blocks[0]!.scale.requireGrad, false);
    let any = false;
    net.noGrad().visit((p) => (any ||= p.requireGrad));
    assert.equal(any, false);
  });

  it('toRecord / loadRecord round-trip; mismatches are clear errors', async () => {
    const net = new Net(device);
    const record = await net.toRecord();
    const first = (record['blocks'] as readonly Record<string, unknown>[])[0]!;
    assert.ok((first['lin'] as Record<string, unknown>)['weight'] instanceof TensorData);
    assert.ok(first['stats'] instanceof TensorData, 'running states are saved');
    const fresh = new Net(device).loadRecord(record);
    assert.deepEqual(
      Array.from(fresh.blocks[1]!.lin.weight.val().toDataSync().toArray()),
      Array.from(net.blocks[1]!.lin.weight.val().toDataSync().toArray()),
    );
    assert.notEqual(fresh.blocks[1]!.lin.weight.id, net.blocks[1]!.lin.weight.id, 'loading keeps the target ids');
    const bad = { ...record, heads: { a: { weight: new TensorData([1, 2, 3], [3, 1]) } } };
    assert.throws(
      () => new Net(device).loadRecord(bad),
      (e: unknown) =>
        e instanceof BurnError &&
        /heads\.a\.weight/.test(e.message) &&
        /\[3, 1\]/.test(e.message) &&
        /\[2, 1\]/.test(e.message),
    );
    const missing = { ...record, heads: {} };
    assert.throws(() => new Net(device).loadRecord(missing), /no tensor for 'heads.a.weight'/);
    const wrongType = { ...record, heads: { a: { weight: new TensorData([1, 2], [2, 1], 'f64') } } };
    assert.throws(() => new Net(device).loadRecord(wrongType), /dtype f64/);
  });

  it("prints Burn's module tree with attributes and parameter counts", () => {
    const text = `${new Net(device)}`;
    assert.equal(
      text,
      [
        'Net {',
        '  blocks: [',
        '    0: Block {',
        '      lin: Linear {dInput: 3, dOutput: 2, bias: true, params: 8}',
        '      act: Relu',
        '      scale: Param {shape: [2], requireGrad: true}',
        '      stats: RunningState {shape: [2]}',
        '      params: 10',
        '    }',
        '    1: Block {',
        '      lin: Linear {dInput: 3, dOutput: 2, bias: true, params: 8}',
        '      act: Relu',
        '      scale: Param {shape: [2], requireGrad: true}',
        '      stats: RunningState {shape: [2]}',
        '      params: 10',
        '    }',
        '  ]',
        '  heads: {params: 2}',
        '  params: 22',
        '}',
      ].join('\n'),
    );
  });
});
