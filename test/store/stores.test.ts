// BurnpackStore and SafetensorsStore with the shared store machinery: adapters, filters, key
// remapping, partial loads, validation, the ApplyResult report; SafeTensors bytes equal to the
// reference library's (Burn's multi_layer.safetensors) and to gen_store.py's expected file;
// ranged reads with a small forced chunk size; Rust Burn's model.bpk into a burn-ts module.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BurnError, Device, Module, TensorData } from '../../src/index.js';
import { BatchNorm, BatchNormConfig, Conv2d, Conv2dConfig, Linear, LinearConfig } from '../../src/nn/index.js';
import {
  ApplyResult,
  BurnToPyTorchAdapter,
  BurnpackStore,
  FloatCastAdapter,
  HalfPrecisionAdapter,
  KeyRemapper,
  PathFilter,
  PyTorchToBurnAdapter,
  SafetensorsStore,
  TensorSnapshot,
  applySnapshots,
  mapIndicesContiguous,
  stripEnumVariants,
} from '../../src/store/index.js';
import { encodeSafetensors, readSafetensors } from '../../src/store/safetensors/format.js';
import { bytesSource } from '../../src/record/source.js';
import type { FixtureTensor } from '../helpers/fixtures.js';
import { burnFile, compatIt, fx, Small, storeFixture, tempDir, values } from './helpers.js';

const device = Device.cpu();

describe('BurnpackStore', () => {
  it('saveInto / loadFrom (file and bytes), metadata, overwrite, ids, in-place load', () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      const store = new BurnpackStore(join(dir, 'm')).metadata('epoch', '3');
      model.saveInto(store);
      assert.equal(store.filePath(), join(dir, 'm.bpk'));
      assert.equal(new BurnpackStore(join(dir, 'm.bpk')).readMetadata().get('epoch'), '3');
      assert.deepEqual(new BurnpackStore(join(dir, 'm.bpk')).readMetadata().get('producer'), 'burn-ts');
      assert.throws(
        () => model.saveInto(new BurnpackStore(join(dir, 'm'))),
        /file already exists: .*m\.bpk; use \.overwrite\(true\)/,
      );
      model.saveInto(new BurnpackStore(join(dir, 'm')).overwrite(true));
      const target = new Small(device);
      const result = target.loadFrom(new BurnpackStore(join(dir, 'm')));
      assert.ok(result.isSuccess());
      assert.equal(result.applied.length, 9);
      assert.deepEqual(values(target), values(model), 'loaded in place');
      assert.equal(target.linear.weight.id, model.linear.weight.id);
      const mem = BurnpackStore.fromBytes();
      model.saveInto(mem);
      const fromBytes = new Small(device);
      fromBytes.loadFrom(BurnpackStore.fromBytes(mem.getBytes()));
      assert.deepEqual(values(fromBytes), values(model));
      assert.deepEqual(mem.getBytes().subarray(0, 4), Uint8Array.from([0x4e, 0x52, 0x55, 0x42]));
    } finally {
      done();
    }
  });

  it('filters select what is saved and loaded; skipped, missing and unused are reported', () => {
    const model = new Small(device);
    const mem = BurnpackStore.fromBytes();
    model.saveInto(mem.withFilter(PathFilter.new().withRegex('^linear\\.').withFullPath('norm.running_var')));
    const keys = BurnpackStore.fromBytes(mem.getBytes()).keys();
    assert.deepEqual(keys, ['linear.bias', 'linear.weight', 'norm.running_var']);
    const full = BurnpackStore.fromBytes();
    model.saveInto(full);
    const target = new Small(device);
    const r = target.loadFrom(
      BurnpackStore.fromBytes(full.getBytes()).withPredicate(
        (path, containers) => containers.endsWith('Struct:BatchNorm') && path.startsWith('norm.'),
      ),
    );
    assert.deepEqual(r.applied.sort(), ['norm.beta', 'norm.gamma', 'norm.runningMean', 'norm.runningVar']);
    assert.equal(r.skipped.length, 5);
    assert.deepEqual(r.unused, [], 'skipped keys are not unused');
    const partial = new Small(device).loadFrom(BurnpackStore.fromBytes(mem.getBytes()).allowPartial(true));
    assert.deepEqual(partial.missing, [
      'blocks.0.bias',
      'blocks.0.weight',
      'blocks.1.weight',
      'norm.beta',
      'norm.gamma',
      'norm.runningMean',
    ]);
    assert.match(String(partial), /✗ Missing in source:    6 tensors/);
    assert.throws(
      () => new Small(device).loadFrom(BurnpackStore.fromBytes(mem.getBytes())),
      (e: Error) => e instanceof BurnError && /6 tensor\(s\) missing, the module is unchanged/.test(e.message),
    );
  });

  it('validate: shape mismatches throw by default, are reported with validate(false)', () => {
    class Wide extends Module {
      linear = new LinearConfig({ dInput: 3, dOutput: 4 }).init(device);
    }
    const mem = BurnpackStore.fromBytes();
    new Small(device).saveInto(mem);
    const w = new Wide();
    const before = values(w);
    assert.throws(
      () => w.loadFrom(BurnpackStore.fromBytes(mem.getBytes()).allowPartial(true)),
      /Shape mismatch for 'linear\.weight': expected \[3, 4\], found \[3, 2\]/,
    );
    assert.deepEqual(values(w), before, 'unchanged');
    const r = w.loadFrom(BurnpackStore.fromBytes(mem.getBytes()).validate(false));
    assert.equal(r.isSuccess(), false);
    assert.deepEqual(
      r.errors.map((e) => e.kind),
      ['ShapeMismatch', 'ShapeMismatch'],
    );
    assert.equal(r.unused.length, 7);
  });

  compatIt("loads Rust Burn's mnist model.bpk into the equivalent burn-ts module (ids restored)", () => {
    class ConvBlock extends Module {
      conv: Conv2d;
      norm: BatchNorm;
      constructor(cIn: number, cOut: number) {
        super();
        this.conv = new Conv2dConfig({ channels: [cIn, cOut], kernelSize: [3, 3] }).init(device);
        this.norm = new BatchNormConfig({ numFeatures: cOut }).init(device);
      }
    }
    class MnistModel extends Module {
      conv1 = new ConvBlock(1, 64);
      conv2 = new ConvBlock(64, 64);
      fc1: Linear = new LinearConfig({ dInput: 1600, dOutput: 128 }).init(device);
      fc2: Linear = new LinearConfig({ dInput: 128, dOutput: 128 }).init(device);
      fc3: Linear = new LinearConfig({ dInput: 128, dOutput: 10 }).init(device);
    }
    const bytes = burnFile('examples/mnist-inference-web/model.bpk');
    const m = new MnistModel();
    const r = m.loadFrom(BurnpackStore.fromBytes(bytes));
    assert.ok(r.isSuccess() && r.missing.length === 0 && r.unused.length === 0, String(r));
    assert.equal(r.applied.length, 18);
    assert.equal(m.conv1.conv.weight.id, '958fe051d890fbca');
    assert.equal(m.conv1.norm.runningMean.id, 'cb060b430d885942', 'running_mean → runningMean');
    const [dir, done] = tempDir();
    try {
      writeFileSync(join(dir, 'model.bpk'), bytes);
      const viaFile = new MnistModel().loadFile(join(dir, 'model'), device);
      assert.deepEqual(values(viaFile), values(m));
      // What burn-ts writes back reads back the same.
      const again = viaFile.toBytes();
      const reread = new MnistModel().loadBytes(again, device);
      assert.deepEqual(values(reread), values(m));
    } finally {
      done();
    }
  });
});

describe('SafetensorsStore', () => {
  compatIt(
    "writes the reference library's bytes (Burn's multi_layer.safetensors, written by Python safetensors)",
    () => {
      const ref = burnFile('crates/burn-store/safetensors-tests/tests/multi_layer/multi_layer.safetensors');
      const c = readSafetensors(bytesSource(ref));
      assert.equal(c.tensors.length, 9);
      const out = encodeSafetensors(
        c.tensors.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, bytes: () => t.read() })),
        c.metadata,
      );
      assert.ok(out.length === ref.length && out.every((v, i) => v === ref[i]), 'byte-identical');
    },
  );

  it("matches gen_store.py's expected file byte for byte (checked there by reading it back with torch)", () => {
    const c = storeFixture().safetensors as {
      tensors: Record<string, FixtureTensor>;
      metadata: Record<string, string>;
      bytes_hex: string;
    };
    const snaps = Object.entries(c.tensors).map(([k, t]) => TensorSnapshot.fromData(fx(t), k));
    const out = encodeSafetensors(
      snaps.map((s) => ({ name: s.fullPath(), dtype: s.dtype, shape: s.shape, bytes: () => s.toData().bytes })),
      new Map(Object.entries(c.metadata)),
    );
    assert.equal(Buffer.from(out).toString('hex'), c.bytes_hex);
    const back = readSafetensors(bytesSource(Uint8Array.from(Buffer.from(c.bytes_hex, 'hex'))));
    assert.deepEqual(Object.fromEntries(back.metadata), c.metadata);
  });

  it('round trip through a file with metadata, ranged reads in 7-byte chunks, zero-copy reads from memory', () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      const path = join(dir, 'm.safetensors');
      model.saveInto(new SafetensorsStore(path).metadata('note', 'hi'));
      assert.equal(new SafetensorsStore(path).readMetadata().get('note'), 'hi');
      const target = new Small(device);
      target.loadFrom(new SafetensorsStore(path).withReadChunkSize(7));
      assert.deepEqual(values(target), values(model));
      const bytes = new Uint8Array(readFileSync(path));
      const snap = SafetensorsStore.fromBytes(bytes).getSnapshot('linear.weight')!;
      const data = snap.toData();
      assert.equal(data.values.buffer, bytes.buffer, 'aligned data is a view of the file bytes');
      assert.throws(() => new SafetensorsStore(path).withReadChunkSize(0), /positive integer/);
    } finally {
      done();
    }
  });

  it('corrupt files: header length, JSON, offsets and truncation errors name the file and where', () => {
    const good = encodeSafetensors([
      { name: 'w', dtype: 'f32', shape: [2], bytes: () => new TensorData([1, 2], [2]).bytes },
    ]);
    const bad = (b: Uint8Array, re: RegExp) =>
      assert.throws(
        () => readSafetensors(bytesSource(b, 'x.safetensors')),
        (e: Error) => e instanceof BurnError && re.test(e.message),
        re.source,
      );
    bad(good.subarray(0, 4), /x\.safetensors: not a SafeTensors file: 4 bytes/);
    const huge = good.slice();
    new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
    bad(huge, /header length 1099511627776 \(bytes 0\.\.8\) exceeds/);
    bad(good.subarray(0, 20), /truncated: the header announces \d+ bytes at byte offset 8/);
    bad(good.subarray(0, good.length - 1), /truncated: tensor 'w' needs bytes \d+\.\.\d+/);
    const json = good.slice();
    json[8] = 0x5b;
    bad(json, /the JSON header \(bytes 8\.\.\d+\) is invalid|not an object/);
  });
});

describe('adapters', () => {
  it('BurnToPyTorch on save (Linear transposed, norm gamma/beta → weight/bias), PyTorchToBurn on load (06-store path)', () => {
    const model = new Small(device);
    const mem = SafetensorsStore.fromBytes();
    model.saveInto(mem.withToAdapter(new BurnToPyTorchAdapter()));
    const store = SafetensorsStore.fromBytes(mem.getBytes());
    assert.deepEqual(store.keys(), [
      'blocks.0.bias',
      'blocks.0.weight',
      'blocks.1.weight',
      'linear.bias',
      'linear.weight',
      'norm.bias',
      'norm.running_mean',
      'norm.running_var',
      'norm.weight',
    ]);
    assert.deepEqual(store.getSnapshot('linear.weight')!.shape, [2, 3]);
    const w = model.linear.weight.val().toDataSync().toArray();
    const t = store.getSnapshot('linear.weight')!.toData().toArray();
    assert.equal(t[1], w[2], 'transposed: [out, in]');
    const back = new Small(device);
    assert.throws(
      () => back.loadFrom(SafetensorsStore.fromBytes(mem.getBytes())),
      /missing/,
      'without the adapter the norm names do not match',
    );
    const r = back.loadFrom(SafetensorsStore.fromBytes(mem.getBytes()).withFromAdapter(new PyTorchToBurnAdapter()));
    assert.ok(r.isSuccess() && r.missing.length === 0 && r.unused.length === 0, String(r));
    assert.deepEqual(values(back), values(model));
  });

  it('HalfPrecisionAdapter (f32 ↔ f16 for Linear, BatchNorm left in f32), FloatCastAdapter, chaining', () => {
    const model = new Small(device);
    const mem = BurnpackStore.fromBytes();
    model.saveInto(mem.withToAdapter(new HalfPrecisionAdapter()));
    const s = BurnpackStore.fromBytes(mem.getBytes());
    assert.equal(s.getSnapshot('linear.weight')!.dtype, 'f16');
    assert.equal(s.getSnapshot('norm.running_var')!.dtype, 'f32');
    const back = new Small(device);
    back.loadFrom(BurnpackStore.fromBytes(mem.getBytes()).withFromAdapter(new HalfPrecisionAdapter()));
    assert.equal(back.linear.weight.val().dtype(), 'f32');
    assert.equal(
      new HalfPrecisionAdapter()
        .withoutModule('Linear')
        .adapt(s.getSnapshot('linear.weight')!.withContext(['linear', 'weight'], ['Struct:Small', 'Struct:Linear']))
        .dtype,
      'f16',
      'f16 passes when Linear is excluded',
    );
    assert.throws(() => new HalfPrecisionAdapter().withoutModule('Nope'), /'Struct:Nope' is not in the module set/);
    const cast = new Small(device);
    cast.loadFrom(
      BurnpackStore.fromBytes(mem.getBytes()).withFromAdapter(
        new HalfPrecisionAdapter().chain(FloatCastAdapter.to('f64')),
      ),
    );
    assert.equal(cast.linear.weight.val().dtype(), 'f64');
    assert.throws(() => FloatCastAdapter.to('i32'), /target must be a float dtype/);
  });
});

describe('key remapping, contiguous indices, enum variants, the report', () => {
  it('KeyRemapper applies patterns in order with capture groups; invalid patterns are errors', () => {
    const r = KeyRemapper.new().addPattern('^pytorch\\.(.*)', 'burn.$1').addPattern('\\.gamma$', '.weight');
    assert.equal(r.remapKey('pytorch.layer.gamma'), 'burn.layer.weight');
    assert.throws(() => KeyRemapper.new().addPattern('(', 'x'), /invalid regular expression "\("/);
    assert.throws(() => PathFilter.new().withRegex('['), /invalid regular expression/);
  });

  it("mapIndicesContiguous: Burn's examples", () => {
    const m = mapIndicesContiguous([
      'fc.0.weight',
      'fc.2.weight',
      'fc.4.bias',
      'feature.layers.0.conv_block.0.weight',
      'feature.layers.0.conv_block.2.weight',
      'feature.layers.2.conv_block.0.weight',
      'feature.layers.2.conv_block.2.weight',
      'head.weight',
    ]);
    assert.deepEqual(
      [...m.values()],
      [
        'fc.0.weight',
        'fc.1.weight',
        'fc.2.bias',
        'feature.layers.0.conv_block.0.weight',
        'feature.layers.0.conv_block.1.weight',
        'feature.layers.1.conv_block.0.weight',
        'feature.layers.1.conv_block.1.weight',
        'head.weight',
      ],
    );
  });

  it('skipEnumVariants matches keys written with Rust enum variant names', () => {
    assert.equal(stripEnumVariants('feature.BaseConv.weight'), 'feature.weight');
    const snaps = [TensorSnapshot.fromData(new TensorData([1, 2, 3, 4, 5, 6], [3, 2]), 'linear.Base.weight')];
    const m = new Small(device);
    const without = applySnapshots(m, snaps);
    assert.ok(without.result.missing.includes('linear.weight'));
    const withSkip = applySnapshots(m, snaps, { skipEnumVariants: true });
    assert.ok(withSkip.result.applied.includes('linear.weight'));
    assert.deepEqual(Array.from(withSkip.module.linear.weight.val().toDataSync().toArray()), [1, 2, 3, 4, 5, 6]);
  });

  it("ApplyResult prints Burn's summary with suggestions", () => {
    const r = new ApplyResult(
      ['a.weight'],
      [],
      ['enc.BaseConv.weight', 'head.weight'],
      ['enc.weight', 'heads.weight'],
      [{ kind: 'ShapeMismatch', path: 'x', expected: [2], found: [3] }],
    );
    const s = String(r);
    assert.match(s, /┌─ Tensor Loading Summary/);
    assert.match(s, /✓ Successfully applied: 1 tensors/);
    assert.match(s, /• enc\.BaseConv\.weight\n│        Did you mean: 'enc\.weight'\?/);
    assert.match(s, /• head\.weight\n│        Did you mean: 'heads\.weight'\?/);
    assert.match(s, /⚠️  Shape mismatch for 'x': expected \[2\], found \[3\]/);
    assert.equal(r.isSuccess(), false);
  });
});
