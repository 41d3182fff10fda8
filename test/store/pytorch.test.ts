// PytorchStore: checkpoints written by real PyTorch (test/fixtures/gen_store.py: a convnet and a
// transformer block, zip and legacy formats, f16/bf16 storages, non-contiguous and offset views)
// load into the equivalent burn-ts modules and give PyTorch's outputs; Burn's own .pt fixtures
// load with the values their generators state; hostile files are refused and nothing runs.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { zipSync } from 'fflate';
import { BurnError, Device, Module, Tensor, TensorData, type Float, type Int } from '../../src/index.js';
import {
  BatchNorm,
  BatchNormConfig,
  Conv2d,
  Conv2dConfig,
  Embedding,
  EmbeddingConfig,
  Linear,
  LinearConfig,
  TransformerEncoder,
  TransformerEncoderConfig,
  TransformerEncoderInput,
} from '../../src/nn/index.js';
import { FloatCastAdapter, PyTorchToBurnAdapter, PytorchStore } from '../../src/store/index.js';
import { readPytorch } from '../../src/store/pytorch/reader.js';
import { bytesSource } from '../../src/record/source.js';
import type { FixtureTensor } from '../helpers/fixtures.js';
import { burnFile, compatDescribe, FIXTURES, fx, storeFixture, tempDir } from './helpers.js';

const device = Device.cpu();

class ConvNet extends Module {
  conv: Conv2d;
  norm: BatchNorm;
  fc: Linear;
  constructor() {
    super();
    this.conv = new Conv2dConfig({ channels: [2, 4], kernelSize: [3, 3] }).init(device);
    this.norm = new BatchNormConfig({ numFeatures: 4 }).init(device);
    this.fc = new LinearConfig({ dInput: 64, dOutput: 5 }).init(device);
  }
  forward(x: Tensor<4>): Tensor<2> {
    const h = this.norm.forward(this.conv.forward(x)).relu();
    return this.fc.forward(h.flatten(1, 3) as Tensor<2>);
  }
}

class Block extends Module {
  emb: Embedding;
  enc: TransformerEncoder;
  head: Linear;
  constructor() {
    super();
    this.emb = new EmbeddingConfig({ nEmbedding: 11, dModel: 8 }).init(device);
    this.enc = new TransformerEncoderConfig({ dModel: 8, dFf: 16, nHeads: 2, nLayers: 1, dropout: 0 }).init(device);
    this.head = new LinearConfig({ dInput: 8, dOutput: 3 }).init(device);
  }
  forward(tokens: Tensor<2, Int>): Tensor<3> {
    return this.head.forward(this.enc.forward(new TransformerEncoderInput(this.emb.forward(tokens))));
  }
}

function close(actual: Float32Array | number[], expected: FixtureTensor, tol = 1e-5): void {
  const e = fx(expected).toArray();
  assert.equal(actual.length, e.length);
  for (let i = 0; i < e.length; i++)
    assert.ok(
      Math.abs(actual[i]! - e[i]!) <= tol * (1 + Math.abs(e[i]!)),
      `output ${i}: ${actual[i]} vs PyTorch ${e[i]}`,
    );
}

const cases = storeFixture();
const toF32 = () => new PyTorchToBurnAdapter().chain(FloatCastAdapter.to('f32'));

describe('PytorchStore: real PyTorch checkpoints into burn-ts modules', () => {
  for (const format of ['zip', 'legacy'] as const) {
    it(`convnet (${format}): f16/bf16 storages, views, running stats → PyTorch's output`, () => {
      const c = cases.convnet as { input: FixtureTensor; output: FixtureTensor; dtypes: Record<string, string> };
      assert.equal(c.dtypes['conv.weight'], 'torch.float16');
      assert.equal(c.dtypes['fc.bias'], 'torch.bfloat16');
      const store = new PytorchStore(join(FIXTURES, 'store', `convnet_${format}.pt`)).withFromAdapter(toF32());
      const model = new ConvNet();
      const result = model.loadFrom(store);
      assert.equal(store.format(), format);
      assert.ok(result.isSuccess(), String(result));
      assert.deepEqual(result.missing, []);
      assert.deepEqual(result.unused, ['norm.num_batches_tracked'], 'PyTorch-only buffer reported as unused');
      assert.equal(result.applied.length, 8);
      assert.deepEqual(model.fc.weight.val().dims(), [64, 5], 'Linear weight transposed to Burn layout');
      assert.equal(model.conv.weight.val().dtype(), 'f32');
      const out = model.forward(Tensor.fromData(fx(c.input), device) as Tensor<4>);
      close(out.toDataSync().toArray() as Float32Array, c.output);
    });

    it(`transformer block (${format}): Embedding, MHA, LayerNorm, feed-forward → PyTorch's output`, () => {
      const c = cases.block as { input: FixtureTensor; output: FixtureTensor };
      const model = new Block();
      const result = model.loadFrom(
        new PytorchStore(join(FIXTURES, 'store', `block_${format}.pt`)).withFromAdapter(toF32()),
      );
      assert.ok(result.isSuccess() && result.missing.length === 0 && result.unused.length === 0, String(result));
      assert.ok(result.applied.includes('enc.layers.0.norm1.gamma'), 'LayerNorm weight → gamma');
      const out = model.forward(Tensor.fromData(fx(c.input, 'i32'), device) as Tensor<2, Int>);
      close(out.toDataSync().toArray() as Float32Array, c.output, 1e-4);
    });
  }

  it('keeps the file dtype without a cast adapter (as Burn) and reads views exactly', () => {
    const store = new PytorchStore(join(FIXTURES, 'store', 'convnet_zip.pt'));
    const conv = store.getSnapshot('conv.weight')!;
    assert.equal(conv.dtype, 'f16');
    const zip = readPytorch(bytesSource(new Uint8Array(readFileSync(join(FIXTURES, 'store', 'convnet_zip.pt')))));
    const legacy = readPytorch(bytesSource(new Uint8Array(readFileSync(join(FIXTURES, 'store', 'convnet_legacy.pt')))));
    for (const [k, s] of zip.tensors) {
      const a = s.toData();
      const b = legacy.tensors.get(k)!.toData();
      assert.deepEqual(Array.from(a.toArray()), Array.from(b.toArray()), `${k}: zip and legacy agree`);
    }
    const model = new ConvNet();
    model.loadFrom(new PytorchStore(join(FIXTURES, 'store', 'convnet_zip.pt')));
    assert.equal(model.conv.weight.val().dtype(), 'f16', "Burn's FromRecord: the parameter takes the file's dtype");
  });

  it('withTopLevelKey, allowPartial, filters and key remapping', () => {
    const [dir, done] = tempDir();
    try {
      const model = new ConvNet();
      const path = join(dir, 'ckpt.pt');
      model.saveInto(new PytorchStore(path));
      // Wrap as {"model": state_dict, "epoch": 3} with torch's layout by re-saving through the reader's own types.
      const inner = readPytorch(bytesSource(new Uint8Array(readFileSync(path))));
      assert.equal(inner.format, 'zip');
      assert.deepEqual([...inner.tensors.keys()].sort(), [
        'conv.bias',
        'conv.weight',
        'fc.bias',
        'fc.weight',
        'norm.bias',
        'norm.running_mean',
        'norm.running_var',
        'norm.weight',
      ]);
      const back = new ConvNet();
      const r = back.loadFrom(new PytorchStore(path));
      assert.ok(r.isSuccess() && r.missing.length === 0);
      assert.deepEqual(
        back.fc.weight.val().toDataSync().toArray(),
        model.fc.weight.val().toDataSync().toArray(),
        'save (BurnToPyTorch) then load (PyTorchToBurn) is the identity',
      );
      assert.throws(
        () => new ConvNet().loadFrom(new PytorchStore(path).withTopLevelKey('model')),
        (e: Error) =>
          e instanceof BurnError &&
          /top-level key 'model' is not in the file; the top-level keys are 'conv.weight'/.test(e.message),
      );
      const partial = new ConvNet().loadFrom(
        new PytorchStore(path).withKeyRemapping('^fc\\.', 'head.').allowPartial(true),
      );
      assert.deepEqual(partial.missing, ['fc.bias', 'fc.weight']);
      assert.deepEqual(partial.unused, ['head.bias', 'head.weight']);
      assert.match(String(partial), /Did you mean: 'head\.weight'\?/);
      const filtered = new ConvNet().loadFrom(new PytorchStore(path).withRegex('^conv\\.'));
      assert.deepEqual(filtered.applied.sort(), ['conv.bias', 'conv.weight']);
      assert.equal(filtered.skipped.length, 6);
      assert.throws(
        () => new ConvNet().loadFrom(new PytorchStore(path).withKeyRemapping('^fc\\.', 'head.')),
        /2 tensor\(s\) missing.*Hint: use \.allowPartial\(true\)/s,
      );
    } finally {
      done();
    }
  });
});

compatDescribe("PytorchStore: Burn's .pt fixtures (tracel-ai/burn crates/burn-store)", () => {
  const T = 'crates/burn-store/src/pytorch/tests/reader/test_data/';
  const read = (path: string, topLevelKey?: string) =>
    readPytorch(bytesSource(burnFile(path), path), topLevelKey === undefined ? {} : { topLevelKey });
  const vals = (path: string, key = 'tensor') => Array.from(read(path).tensors.get(key)!.toData().toArray());
  const near = (a: number[], b: number[]) =>
    a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) < 1e-6 * (1 + Math.abs(b[i]!)), `${v} vs ${b[i]}`));

  it('every dtype of test_data.py', () => {
    near(vals(`${T}float32.pt`), [1.0, 2.5, -3.7, 0.0]);
    near(vals(`${T}float64.pt`), [1.1, 2.2, 3.3]);
    assert.deepEqual(vals(`${T}int64.pt`), [100, -200, 300, 0]);
    assert.deepEqual(vals(`${T}int32.pt`), [10, 20, -30]);
    assert.deepEqual(vals(`${T}int16.pt`), [1000, -2000, 3000]);
    assert.deepEqual(vals(`${T}int8.pt`), [127, -128, 0, 50]);
    assert.deepEqual(vals(`${T}bool.pt`), [1, 0, 1, 1, 0]);
    assert.deepEqual(vals(`${T}float16.pt`), [1.5, -2.25, 3.125]);
    assert.deepEqual(vals(`${T}bfloat16.pt`), [1.5, -2.5, 3.5]);
    assert.deepEqual(vals(`${T}uint8.pt`), [0, 128, 255, 42]);
    assert.equal(read(`${T}float16.pt`).tensors.get('tensor')!.dtype, 'f16');
    assert.equal(read(`${T}bfloat16.pt`).tensors.get('tensor')!.dtype, 'bf16');
    assert.deepEqual(vals(`${T}tensor_2d.pt`), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(read(`${T}tensor_2d.pt`).tensors.get('tensor')!.shape, [3, 2]);
    assert.deepEqual(vals(`${T}scalar.pt`), [42]);
    const special = vals(`${T}special_values.pt`);
    assert.ok(Number.isNaN(special[0]));
    assert.deepEqual(special.slice(1), [Infinity, -Infinity, 0, 1]);
    near(vals(`${T}extreme_values.pt`), [1e-30, 1e30, -1e-30, -1e30]);
    assert.deepEqual(vals(`${T}empty.pt`), []);
    const mixed = read(`${T}mixed_types.pt`).tensors;
    assert.deepEqual(Array.from(mixed.get('int64')!.toData().toArray()), [100, 200]);
    assert.deepEqual(Array.from(mixed.get('bool')!.toData().toArray()), [1, 0]);
    near(Array.from(mixed.get('float64')!.toData().toArray()), [1.1, 2.2]);
    const buffers = read(`${T}buffers.pt`).tensors;
    assert.deepEqual(Array.from(buffers.get('buffer1')!.toData().toArray()), [1, 2, 3]);
  });

  it('legacy format with storage offsets and shared storages (create_legacy_with_offsets.py)', () => {
    const t = read(`${T}legacy_with_offsets.pt`);
    assert.equal(t.format, 'legacy');
    near(
      Array.from(t.tensors.get('tensor1')!.toData().toArray()),
      Array.from({ length: 10 }, (_, i) => 1 + i * 0.01),
    );
    near(Array.from(t.tensors.get('tensor2')!.toData().toArray()), [2.0, 2.1, 2.2, 2.3, 2.4]);
    near(Array.from(t.tensors.get('tensor3')!.toData().toArray()), [3.0, 3.1, 3.2, 3.3, 3.4]);
    const shared = read(`${T}legacy_shared_storage.pt`).tensors;
    assert.deepEqual([...shared.keys()].sort(), ['view1', 'view2', 'view3']);
    assert.deepEqual(shared.get('view2')!.shape, [20]);
  });

  it('tar format (create_tar_format.py)', () => {
    assert.deepEqual(read(`${T}tar_float32.tar`).format, 'tar');
    near(vals(`${T}tar_float32.tar`), [1.0, 2.5, -3.7, 0.0]);
    near(vals(`${T}tar_float64.tar`), [1.1, 2.2, 3.3]);
    assert.deepEqual(vals(`${T}tar_int64.tar`), [100, -200, 300, 0]);
    near(vals(`${T}tar_weight_bias.tar`, 'weight'), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
    near(vals(`${T}tar_weight_bias.tar`, 'bias'), [0.01, 0.02]);
    near(vals(`${T}tar_multi_dtype.tar`, 'double_tensor'), [1.111, 2.222]);
    assert.deepEqual(vals(`${T}tar_multi_dtype.tar`, 'int_tensor'), [10, 20, 30, 40]);
    assert.deepEqual(
      vals(`${T}tar_2d_tensor.tar`, 'matrix'),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    assert.deepEqual(read(`${T}tar_2d_tensor.tar`).tensors.get('matrix')!.shape, [3, 4]);
  });

  it('top-level keys, nested dicts, and the broken file', () => {
    assert.deepEqual([...read(`${T}checkpoint.pt`, 'model_state_dict').tensors.keys()].sort(), [
      'fc1.bias',
      'fc1.weight',
      'fc2.bias',
      'fc2.weight',
    ]);
    assert.ok(read(`${T}complex_structure.pt`).tensors.has('state.encoder.layer_0.weight'));
    assert.throws(
      () => read(`${T}broken.pt`),
      (e: Error) => e instanceof BurnError && /not a PyTorch checkpoint/.test(e.message),
    );
  });

  it('non-contiguous Sequential indices renumber (mapIndicesContiguous, on by default)', () => {
    const P = 'crates/burn-store/pytorch-tests/tests/non_contiguous_indexes/non_contiguous_indexes.pt';
    const store = new PytorchStore(burnFile(P));
    assert.ok(store.keys().includes('fc.1.weight'));
    const raw = new PytorchStore(burnFile(P)).mapIndicesContiguous(false).keys();
    assert.ok(raw.includes('fc.2.weight') && raw.includes('fc.0.weight'));
    const mapped = store.keys();
    const idx = [...new Set(mapped.map((k) => Number(k.split('.')[1])))].sort((a, b) => a - b);
    assert.deepEqual(
      idx,
      idx.map((_, i) => i),
      `contiguous: ${idx}`,
    );
  });

  it('Linear weights load transposed (pytorch-tests/linear, stated by export_weights.py)', () => {
    const P = 'crates/burn-store/pytorch-tests/tests/linear/linear_with_bias.pt';
    const raw = read(P).tensors.get('fc1.weight')!.toData();
    class M extends Module {
      fc1 = new LinearConfig({ dInput: 2, dOutput: 3 }).init(device);
    }
    const m = new M();
    m.loadFrom(new PytorchStore(burnFile(P)));
    const w = m.fc1.weight.val().toDataSync();
    assert.deepEqual(w.shape, [2, 3]);
    const r = raw.toArray();
    const t = w.toArray();
    for (let i = 0; i < 3; i++) for (let j = 0; j < 2; j++) assert.equal(t[j * 3 + i], r[i * 2 + j]);
  });
});

// --- hostile and corrupt files ---

/** A zip archive with a data.pkl made of `pickle` bytes (stored entries), built in the test. */
function ptWith(pickle: number[] | Uint8Array, extra: Record<string, Uint8Array> = {}): Uint8Array {
  return zipSync({
    'archive/data.pkl': [Uint8Array.from(pickle), { level: 0 }],
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [v, { level: 0 }] as const])),
  });
}
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

describe('PytorchStore: hostile files are refused and nothing is executed', () => {
  const load = (bytes: Uint8Array) => new ConvNet().loadFrom(new PytorchStore(bytes));
  const refused = (bytes: Uint8Array, re: RegExp) =>
    assert.throws(
      () => load(bytes),
      (e: Error) =>
        e instanceof BurnError &&
        re.test(e.message) &&
        /nothing was executed|not a valid PyTorch zip|escapes the archive|zip bomb/.test(e.message),
      re.source,
    );

  it('a __reduce__ of os.system is refused when the global is named, before any call', () => {
    // Protocol 2: GLOBAL 'os system', then ('echo pwned',) REDUCE: what pickle.dumps of a __reduce__ gives.
    const pkl = [0x80, 2, 0x63, ...ascii('os\nsystem\n'), 0x58, 10, 0, 0, 0, ...ascii('echo pwned'), 0x85, 0x52, 0x2e];
    refused(ptWith(pkl), /global 'os\.system' is not in the weights-only allow-list/);
    // The same through STACK_GLOBAL (protocol 4) and builtins.eval.
    const p4 = [
      0x80,
      4,
      0x8c,
      8,
      ...ascii('builtins'),
      0x8c,
      4,
      ...ascii('eval'),
      0x93,
      0x8c,
      5,
      ...ascii('1+1+1'),
      0x85,
      0x52,
      0x2e,
    ];
    refused(ptWith(p4), /global 'builtins\.eval' is not in the weights-only allow-list/);
  });

  it('unknown globals (custom classes), malformed opcodes and truncated pickles are refused with the byte offset', () => {
    refused(
      ptWith([0x80, 2, 0x63, ...ascii('__main__\nNet\n'), 0x29, 0x81, 0x2e]),
      /byte offset 2: global '__main__\.Net'/,
    );
    refused(ptWith([0x80, 2, 0x7d, 0xff, 0x2e]), /byte offset 3: unknown opcode 0xff/);
    refused(ptWith([0x80, 2, 0x7d, 0x58, 200, 0, 0, 0, 0x41]), /byte offset 3: truncated/);
    refused(ptWith([0x80, 2, 0x7d]), /without a STOP opcode/);
    refused(ptWith([0x80, 2, 0x30, 0x2e]), /stack underflow/);
    refused(ptWith([0x80, 2, 0x82, 1, 0x2e]), /EXT1\/2\/4\) are not allowed/);
    refused(ptWith([0x80, 2, 0x68, 9, 0x2e]), /memo key 9 was never stored/);
    // A self-containing list used inside a dict key: refused, not a crash.
    refused(
      ptWith([0x80, 2, 0x7d, 0x5d, 0x71, 0, 0x68, 0, 0x61, 0x85, 0x4e, 0x73, 0x2e]),
      /byte offset 11: malformed pickle \(.*circular/,
    );
  });

  it('zip bombs, paths escaping the archive and garbage archives are refused', () => {
    // 16 MB of zeros deflated to ~16 KB: the declared ratio gives it away before inflating.
    const bomb = zipSync({ 'archive/data.pkl': new Uint8Array(16 << 20) }, { level: 1 });
    refused(bomb, /zip bomb/);
    refused(
      zipSync({
        '../../etc/evil': [new Uint8Array(1), { level: 0 }],
        'archive/data.pkl': [Uint8Array.from([0x80, 2, 0x7d, 0x2e]), { level: 0 }],
      }),
      /'\.\.\/\.\.\/etc\/evil' escapes the archive/,
    );
    refused(zipSync({ '/abs/data.pkl': [new Uint8Array(1), { level: 0 }] }), /escapes the archive/);
    assert.throws(
      () => load(Uint8Array.from(ascii('PK\u0003\u0004 this is not a real archive'))),
      (e: Error) => e instanceof BurnError && /no end-of-central-directory record/.test(e.message),
    );
  });

  it('a storage reference past the data, or a view past its storage, is refused', () => {
    // A real checkpoint whose storage entry is cut short.
    const model = new ConvNet();
    const store = PytorchStore.fromBytes();
    model.saveInto(store);
    const good = store.getBytes();
    const entries = readPytorch(bytesSource(good)).tensors;
    assert.equal(entries.size, 8);
    const truncated = good.slice(0, good.length - 200);
    assert.throws(
      () => load(truncated),
      (e: Error) => e instanceof BurnError && /PytorchStore/.test(e.message),
    );
    // A tensor whose size runs past its storage.
    const pkl = [
      0x80,
      2,
      0x7d,
      0x58,
      1,
      0,
      0,
      0,
      ...ascii('w'),
      0x63,
      ...ascii('torch._utils\n_rebuild_tensor_v2\n'),
      0x28,
      0x28,
      0x58,
      7,
      0,
      0,
      0,
      ...ascii('storage'),
      0x63,
      ...ascii('torch\nFloatStorage\n'),
      0x58,
      1,
      0,
      0,
      0,
      ...ascii('0'),
      0x58,
      3,
      0,
      0,
      0,
      ...ascii('cpu'),
      0x4b,
      2,
      0x74,
      0x51,
      0x4b,
      0,
      0x28,
      0x4b,
      4,
      0x74,
      0x28,
      0x4b,
      1,
      0x74,
      0x89,
      0x29,
      0x74,
      0x52,
      0x73,
      0x2e,
    ];
    assert.throws(
      () => readPytorch(bytesSource(ptWith(pkl, { 'archive/data/0': new Uint8Array(8) }), 'bad.pt')),
      (e: Error) => e instanceof BurnError && /reaches element 3 of a storage of 2 elements/.test(e.message),
    );
  });

  it('the module is unchanged after a refused load', () => {
    const m = new ConvNet();
    const before = Array.from(m.fc.weight.val().toDataSync().toArray());
    assert.throws(() => m.loadFrom(new PytorchStore(ptWith([0x80, 2, 0xff]))));
    assert.deepEqual(Array.from(m.fc.weight.val().toDataSync().toArray()), before);
  });
});

describe('PytorchStore: saving (zip format torch.load reads)', () => {
  it('writes every dtype and reads it back; files verified by torch.load(weights_only=True)', () => {
    const [dir, done] = tempDir();
    try {
      class Mixed extends Module {
        lin = new LinearConfig({ dInput: 2, dOutput: 3 }).init(device);
        norm = new BatchNormConfig({ numFeatures: 3 }).init(device);
      }
      const m = new Mixed();
      const path = join(dir, 'm.pt');
      m.saveInto(new PytorchStore(path));
      const c = readPytorch(bytesSource(new Uint8Array(readFileSync(path))));
      assert.deepEqual(c.tensors.get('lin.weight')!.shape, [3, 2], 'PyTorch layout [out, in]');
      assert.ok(c.tensors.has('norm.weight') && c.tensors.has('norm.running_var'));
      assert.throws(() => m.saveInto(new PytorchStore(path)), /already exists.*overwrite\(true\)/);
      m.saveInto(new PytorchStore(path).overwrite(true));
      writeFileSync(join(dir, 'unused'), '');
    } finally {
      done();
    }
    void TensorData;
    void (null as unknown as Float);
  });
});
