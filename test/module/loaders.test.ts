// One convention for every loader: loadFile, loadFileAsync, loadBytes,
// loadRecord and loadFrom all load into the module they are called on (as Burn's `load_from(&mut
// self)`); all but loadFrom also return it, so Burn's `model = model.load_file(…)` style works too.
// `m.loadFile(path); m.forward(x)` used to keep the random weights silently.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Module, Tensor } from '../../src/index.js';
import { Linear, LinearConfig } from '../../src/nn/index.js';
import { BurnpackStore } from '../../src/store/index.js';

const device = Device.cpu({ engine: 'js' });
const dir = mkdtempSync(join(tmpdir(), 'burn-loaders-'));
after(() => rmSync(dir, { recursive: true, force: true }));

class Net extends Module {
  first: Linear;
  blocks: Linear[];
  heads: { a: Linear };
  constructor(seed: number) {
    super();
    device.seed(seed);
    this.first = new LinearConfig({ dInput: 3, dOutput: 4 }).init(device);
    this.blocks = [new LinearConfig({ dInput: 4, dOutput: 4 }).init(device)];
    this.heads = { a: new LinearConfig({ dInput: 4, dOutput: 2 }).init(device) };
  }
  forward(x: Tensor<2>): Tensor<2> {
    return this.heads.a.forward(this.blocks[0]!.forward(this.first.forward(x)));
  }
}

const x = Tensor.fromFloats([[0.5, -1, 2]], device);
const out = (m: Net): number[] => Array.from(m.forward(x).toDataSync().toArray());
const saved = new Net(1);
const path = saved.saveFile(join(dir, 'net'));
const bytes = saved.toBytes();

describe('loaders load in place', () => {
  const cases: [string, (m: Net) => Net | Promise<Net>][] = [
    ['loadFile', (m) => m.loadFile(join(dir, 'net'), device)],
    ['loadFileAsync', (m) => m.loadFileAsync(path, device)],
    ['loadBytes', (m) => m.loadBytes(bytes, device)],
    ['loadRecord', async (m) => m.loadRecord(await saved.toRecord())],
  ];
  for (const [name, load] of cases) {
    it(`${name}: the module it is called on holds the loaded weights, and it is returned`, async () => {
      const m = new Net(2);
      const sub = m.blocks[0]!; // references into the module see the loaded weights too
      const head = m.heads;
      assert.notDeepEqual(out(m), out(saved));
      const returned = await load(m);
      assert.equal(returned, m);
      assert.deepEqual(out(m), out(saved));
      assert.deepEqual(
        Array.from(sub.weight.val().toDataSync().toArray()),
        Array.from(saved.blocks[0]!.weight.val().toDataSync().toArray()),
      );
      assert.equal(head.a, m.heads.a);
      assert.equal(
        m.heads.a.weight.val().toDataSync().toArray()[0],
        saved.heads.a.weight.val().toDataSync().toArray()[0],
      );
    });
  }

  it('Burn style still works: a fresh module loaded in one expression', () => {
    const m = new Net(3).loadFile(path, device);
    assert.deepEqual(out(m), out(saved));
    assert.equal(m.first.weight.id, saved.first.weight.id, 'file loads restore parameter ids');
  });

  it('loadFrom (a store) loads in place as well and returns the report', () => {
    const m = new Net(4);
    const result = m.loadFrom(BurnpackStore.fromBytes(bytes));
    assert.ok(result.isSuccess());
    assert.deepEqual(out(m), out(saved));
  });

  it('a failed load throws and leaves the module unchanged; clone() first to keep the original', () => {
    const m = new Net(5);
    const before = out(m);
    assert.throws(() => m.loadFile(join(dir, 'absent'), device), BurnError);
    assert.throws(() => m.loadBytes(new Uint8Array([1, 2, 3]), device), BurnError);
    assert.deepEqual(out(m), before);
    const copy = m.clone().loadBytes(bytes, device);
    assert.deepEqual(out(m), before);
    assert.deepEqual(out(copy), out(saved));
  });
});
