// Recorders: module.saveFile / loadFile with every recorder (values, ids, precision, extension
// rules), atomic writes, corrupt and mismatched files (a BurnError naming the file and where; the
// module never half-updated), bytes recorders, async variants, and generic records with JSON
// metadata (what optimizer and scheduler state use).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BurnError, Device, TensorData } from '../../src/index.js';
import { writeBinaryFileAtomic } from '../../src/config/files.js';
import {
  BinBytesRecorder,
  BinFileRecorder,
  BinGzFileRecorder,
  BurnpackBytesRecorder,
  BurnpackRecorder,
  CompactRecorder,
  DefaultRecorder,
  DoublePrecisionSettings,
  FullPrecisionSettings,
  HalfPrecisionSettings,
  NamedMpkBytesRecorder,
  NamedMpkFileRecorder,
  NamedMpkGzFileRecorder,
  PrettyJsonFileRecorder,
  SensitiveCompactRecorder,
  type Recorder,
  type TensorRecord,
} from '../../src/record/index.js';
import { paramIdFromText, paramIdToBase32 } from '../../src/record/param-id.js';
import { Small, tempDir, values } from '../store/helpers.js';

const device = Device.cpu();

const full: [string, () => Recorder, string][] = [
  ['burnpack (default)', () => new DefaultRecorder(), 'bpk'],
  ['NamedMpkFileRecorder', () => new NamedMpkFileRecorder(FullPrecisionSettings), 'mpk'],
  ['NamedMpkGzFileRecorder', () => new NamedMpkGzFileRecorder(FullPrecisionSettings), 'mpk.gz'],
  ['BinFileRecorder', () => new BinFileRecorder(), 'bin'],
  ['BinGzFileRecorder', () => new BinGzFileRecorder(), 'bin.gz'],
  ['PrettyJsonFileRecorder', () => new PrettyJsonFileRecorder(), 'json'],
];

describe('recorders: module files', () => {
  for (const [name, make, ext] of full) {
    it(`${name}: saveFile/loadFile restores every value and parameter id (.${ext})`, () => {
      const [dir, done] = tempDir();
      try {
        device.seed(3);
        const model = new Small(device);
        const written = model.saveFile(join(dir, 'model'), make());
        assert.equal(written, join(dir, `model.${ext}`));
        const fresh = new Small(device);
        const loaded = fresh.loadFile(join(dir, 'model'), device, make());
        assert.deepEqual(values(loaded), values(model));
        assert.equal(
          loaded.linear.weight.id,
          model.linear.weight.id,
          'ids restored (optimizer state is keyed by them)',
        );
        assert.equal(loaded.norm.runningVar.id, model.norm.runningVar.id);
        assert.equal(loaded, fresh, 'loaders load in place and return the module');
      } finally {
        done();
      }
    });
  }

  it('half precision (CompactRecorder, SensitiveCompactRecorder) stores f16 and loads f32 within f16 rounding', () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      for (const r of [
        new CompactRecorder(),
        new SensitiveCompactRecorder(),
        new BurnpackRecorder(HalfPrecisionSettings),
      ]) {
        const path = model.saveFile(join(dir, 'half'), r);
        const rec = r.load(path);
        assert.equal(rec.tensors.get('linear.weight')!.data.dtype, 'f16');
        const back = new Small(device).loadFile(path, device, r);
        assert.equal(back.linear.weight.val().dtype(), 'f32', 'cast to the module dtype');
        const a = values(back)['linear.weight']!;
        values(model)['linear.weight']!.forEach((v, i) =>
          assert.ok(Math.abs(a[i]! - v) <= Math.abs(v) * 2 ** -10, `${a[i]} ≈ ${v}`),
        );
      }
      assert.ok(readFileSync(join(dir, 'half.mpk')).length < readFileSync(join(dir, 'half.bpk')).length * 2);
    } finally {
      done();
    }
  });

  it('extensions follow Burn: mpk/bin/json replace the last extension, burnpack appends when there is none', () => {
    assert.equal(new NamedMpkFileRecorder().filePath('/a/model'), '/a/model.mpk');
    assert.equal(new NamedMpkFileRecorder().filePath('/a/model.v2'), '/a/model.mpk');
    assert.equal(new NamedMpkFileRecorder().filePath('/a/model.mpk'), '/a/model.mpk');
    assert.equal(new NamedMpkGzFileRecorder().filePath('/a.b/model'), '/a.b/model.mpk.gz');
    assert.equal(new DefaultRecorder().filePath('/a/model'), '/a/model.bpk');
    assert.equal(new DefaultRecorder().filePath('/a/model.weights'), '/a/model.weights');
  });

  it('a failed write leaves the previous file intact and no temporary file', () => {
    const [dir, done] = tempDir();
    try {
      const path = join(dir, 'f.bin');
      writeFileSync(path, 'old');
      function* failing(): Generator<Uint8Array> {
        yield new Uint8Array([1, 2, 3]);
        throw new Error('device lost');
      }
      assert.throws(
        () => writeBinaryFileAtomic(path, failing(), 'test'),
        (e: Error) => e instanceof BurnError && /cannot write .*f\.bin: device lost/.test(e.message),
      );
      assert.equal(readFileSync(path, 'utf8'), 'old');
      assert.deepEqual(readdirSync(dir), ['f.bin']);
    } finally {
      done();
    }
  });

  it('truncated or corrupt files: a BurnError naming the file and where; the module is unchanged', () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      for (const [name, make] of full) {
        const r = make();
        const path = model.saveFile(join(dir, 'm'), r);
        const bytes = readFileSync(path);
        writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
        const target = new Small(device);
        const before = values(target);
        assert.throws(
          () => target.loadFile(path, device, r),
          (e: Error) => e instanceof BurnError && e.message.includes(path),
          name,
        );
        assert.deepEqual(values(target), before, `${name}: unchanged`);
      }
      const bin = model.saveFile(join(dir, 't'), new BinFileRecorder());
      writeFileSync(bin, readFileSync(bin).subarray(0, 30));
      assert.throws(
        () => new Small(device).loadFile(bin, device, new BinFileRecorder()),
        /t\.bin: unexpected end of data at byte offset \d+ while reading metadata\.\w+/,
      );
      const gz = model.saveFile(join(dir, 'g'), new NamedMpkGzFileRecorder());
      writeFileSync(gz, 'not gzip at all, really');
      assert.throws(
        () => new Small(device).loadFile(gz, device, new NamedMpkGzFileRecorder()),
        /g\.mpk\.gz: not gzip data: the first bytes are 6e 6f, expected 1f 8b/,
      );
      assert.throws(() => new Small(device).loadFile(join(dir, 'absent'), device), /cannot read .*absent\.bpk/);
    } finally {
      done();
    }
  });

  it('a file of another module (shape, missing, extra tensors) is refused and nothing is loaded', () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      const path = model.saveFile(join(dir, 'm'));
      const rec = new DefaultRecorder().load(path);
      const tensors = new Map(rec.tensors);
      tensors.set('linear.bias', { data: new TensorData([1, 2, 3], [3]) });
      tensors.delete('norm.running_mean');
      tensors.set('extra.weight', { data: new TensorData([1], [1]) });
      new DefaultRecorder().save({ tensors }, join(dir, 'bad'));
      const target = new Small(device);
      const before = values(target);
      assert.throws(
        () => target.loadFile(join(dir, 'bad'), device),
        (e: Error) =>
          e instanceof BurnError &&
          /bad\.bpk does not match the module \(1 error\(s\), 1 tensor\(s\) missing from the file, 1 tensor\(s\) in the file that the module does not have\)/.test(
            e.message,
          ) &&
          /Shape mismatch for 'linear\.bias': expected \[2\], found \[3\]/.test(e.message) &&
          /norm\.runningMean/.test(e.message) &&
          /extra\.weight/.test(e.message),
      );
      assert.deepEqual(values(target), before);
    } finally {
      done();
    }
  });

  it("file keys are Burn's snake_case names (runningMean → running_mean)", () => {
    const [dir, done] = tempDir();
    try {
      const path = new Small(device).saveFile(join(dir, 'm'));
      assert.deepEqual([...new DefaultRecorder().load(path).tensors.keys()].sort(), [
        'blocks.0.bias',
        'blocks.0.weight',
        'blocks.1.weight',
        'linear.bias',
        'linear.weight',
        'norm.beta',
        'norm.gamma',
        'norm.running_mean',
        'norm.running_var',
      ]);
      const mpk = new PrettyJsonFileRecorder().toBytes(
        new NamedMpkFileRecorder().load(new Small(device).saveFile(join(dir, 'n'), new NamedMpkFileRecorder())),
      );
      const json = JSON.parse(new TextDecoder().decode(mpk)) as {
        metadata: Record<string, string>;
        item: { blocks: unknown[]; norm: { running_var: { id: string; param: { dtype: string; shape: number[] } } } };
      };
      assert.equal(
        json.metadata.format,
        'burn_core::record::file::PrettyJsonFileRecorder<burn_core::record::settings::FullPrecisionSettings>',
      );
      assert.equal(json.metadata.float, 'f32');
      assert.ok(Array.isArray(json.item.blocks), 'arrays of modules are arrays, as Burn Vec records');
      assert.deepEqual(json.item.norm.running_var.param.shape, [2]);
      assert.equal(json.item.norm.running_var.param.dtype, 'F32');
      assert.match(json.item.norm.running_var.id, /^[0-9a-v]{13}$/, "Burn's base32 ParamId text");
    } finally {
      done();
    }
  });

  it("Burn's ParamId text (BASE32_DNSSEC of the little-endian u64) round-trips", () => {
    assert.equal(paramIdToBase32('0000000000000001'), '0400000000000');
    assert.equal(paramIdFromText('0400000000000'), '0000000000000001');
    const id = 'fedcba9876543210';
    assert.equal(paramIdFromText(paramIdToBase32(id)), id);
  });
});

describe('recorders: bytes, async, generic records', () => {
  it('bytes recorders save and load without a file system', () => {
    const model = new Small(device);
    for (const r of [new BurnpackBytesRecorder(), new NamedMpkBytesRecorder(), new BinBytesRecorder()]) {
      const bytes = model.toBytes(r);
      assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
      assert.deepEqual(values(new Small(device).loadBytes(bytes, device, r)), values(model));
    }
    assert.deepEqual(values(new Small(device).loadBytes(model.toBytes())), values(model), 'default: burnpack');
  });

  it('async variants (every device)', async () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      const path = await model.saveFileAsync(join(dir, 'a'), new NamedMpkFileRecorder());
      const back = await new Small(device).loadFileAsync(path, device, new NamedMpkFileRecorder());
      assert.deepEqual(values(back), values(model));
      const b = await model.saveFileAsync(join(dir, 'b'));
      assert.deepEqual(values(await new Small(device).loadFileAsync(b, device)), values(model));
      assert.deepEqual(values(new Small(device).loadBytes(await model.toBytesAsync())), values(model));
    } finally {
      done();
    }
  });

  it('records of tensors + JSON metadata (optimizer/scheduler state) through every recorder', () => {
    const [dir, done] = tempDir();
    try {
      const record: TensorRecord = {
        tensors: new Map([
          ['a1b2c3d4e5f60718.momentum', { data: new TensorData([0.5, -1.5], [2]) }],
          ['a1b2c3d4e5f60718.step', { data: new TensorData([3], [1], 'i64') }],
        ]),
        meta: { kind: 'Adam', step: 3, betas: [0.9, 0.999], schedule: { lr: 0.001 } },
      };
      for (const [name, make] of [
        ...full,
        ['double', () => new NamedMpkFileRecorder(DoublePrecisionSettings), 'mpk'] as const,
      ]) {
        const r = make();
        const back = r.load(r.save(record, join(dir, 'opt')));
        assert.deepEqual(back.meta, record.meta, name);
        assert.deepEqual(Array.from(back.tensors.get('a1b2c3d4e5f60718.momentum')!.data.toArray()), [0.5, -1.5], name);
        assert.deepEqual(Array.from(back.tensors.get('a1b2c3d4e5f60718.step')!.data.toArray()), [3], name);
      }
      assert.ok(existsSync(join(dir, 'opt.bpk')));
    } finally {
      done();
    }
  });
});
