// Resource limits of the record readers: a gzip'd record that inflates without end stops
// at maxDecompressedBytes; records nested 100k deep (MessagePack, JSON, burnpack's CBOR) are a
// BurnError naming the file and maxNestingDepth, never a raw RangeError; the limits are options.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'fflate';
import { BurnError, Device } from '../../src/index.js';
import {
  BinGzFileRecorder,
  BurnpackBytesRecorder,
  NamedMpkBytesRecorder,
  NamedMpkGzFileRecorder,
  PrettyJsonFileRecorder,
  readBurnpack,
  type Recorder,
} from '../../src/record/index.js';
import { DEFAULT_LOAD_LIMITS } from '../../src/record/limits.js';
import { gunzipStreaming } from '../../src/record/mpk.js';
import { bytesSource } from '../../src/record/source.js';
import { BurnpackStore } from '../../src/store/index.js';
import { Small, tempDir } from '../store/helpers.js';

const device = Device.cpu();
const enc = new TextEncoder();

const refused = (fn: () => unknown, re: RegExp) =>
  assert.throws(fn, (e: Error) => e instanceof BurnError && re.test(e.message), re.source);

describe('gzip records: decompression is capped by maxDecompressedBytes', () => {
  // 64 MiB of zeros gzip to about 64 KiB: a 1000:1 bomb.
  const bomb = gzipSync(new Uint8Array(64 << 20), { level: 9 });

  it('the defaults are documented values', () => {
    assert.deepEqual(
      { ...DEFAULT_LOAD_LIMITS },
      { maxDecompressedBytes: 1 << 30, maxNestingDepth: 128, maxStridedCopyBytes: 64 << 20 },
    );
  });

  it('.mpk.gz and .bin.gz past the limit: a BurnError naming the file, the limit and the option', () => {
    assert.ok(bomb.length < 128 << 10, `${bomb.length} bytes`);
    for (const r of [new NamedMpkGzFileRecorder(), new BinGzFileRecorder()] as Recorder[]) {
      refused(
        () => r.withLimits({ maxDecompressedBytes: 16 << 20 }).fromBytes(bomb, 'bomb.gz'),
        /bomb\.gz: the \d+-byte gzip data decompresses past the maxDecompressedBytes limit of 16777216 bytes/,
      );
    }
  });

  it('through loadFile, the error names the path; a raised limit reads what the lower one refused', () => {
    const [dir, done] = tempDir();
    try {
      const model = new Small(device);
      const path = model.saveFile(join(dir, 'm'), new NamedMpkGzFileRecorder());
      refused(
        () =>
          new Small(device).loadFile(
            path,
            device,
            new NamedMpkGzFileRecorder().withLimits({ maxDecompressedBytes: 64 }),
          ),
        new RegExp(`${path.replace(/[.]/g, '\\.')}: .*maxDecompressedBytes limit of 64 bytes`),
      );
      const loaded = new Small(device).loadFile(
        path,
        device,
        new NamedMpkGzFileRecorder().withLimits({ maxDecompressedBytes: 1 << 20 }),
      );
      assert.deepEqual(
        Array.from(loaded.linear.weight.val().toDataSync().toArray()),
        Array.from(model.linear.weight.val().toDataSync().toArray()),
      );
      writeFileSync(join(dir, 'bomb.mpk.gz'), bomb);
      refused(
        () =>
          new Small(device).loadFile(
            join(dir, 'bomb.mpk.gz'),
            device,
            new NamedMpkGzFileRecorder().withLimits({ maxDecompressedBytes: 1 << 20 }),
          ),
        /bomb\.mpk\.gz: .*maxDecompressedBytes limit of 1048576 bytes/,
      );
    } finally {
      done();
    }
  });

  it('a trailer that lies about the size is corrupt (Node) or decoded in full (browser path), never truncated; bombs stop on both paths', () => {
    const r = new NamedMpkGzFileRecorder();
    const model = new Small(device);
    const good = r.toBytes({ tensors: new Map([['w', { data: model.linear.weight.val().toDataSync() }]]) });
    const expected = Array.from(model.linear.weight.val().toDataSync().toArray());
    const plain = gunzipSync(good);
    const fail = (m: string): never => {
      throw new BurnError('test', m);
    };
    const over = (): never => fail('over the limit');
    for (const declared of [0xffffffff, 10, 0]) {
      const lying = good.slice();
      new DataView(lying.buffer).setUint32(lying.length - 4, declared, true);
      // Node's zlib checks the trailer (corrupt: a BurnError naming the file); the browser path decodes the data in full, never truncated.
      assert.throws(
        () => r.fromBytes(lying, 'lying.mpk.gz'),
        (e: Error) => e instanceof BurnError && /lying\.mpk\.gz: corrupt or truncated gzip data/.test(e.message),
      );
      assert.deepEqual(
        Array.from(gunzipStreaming(lying, fail, 1 << 20, over)),
        Array.from(plain),
        `trailer size ${declared}`,
      );
    }
    assert.deepEqual(Array.from(r.fromBytes(good, 'good.mpk.gz').tensors.get('w')!.data.toArray()), expected);
    // A bomb whose trailer understates its size is still stopped at the limit, on both paths.
    const small = bomb.slice();
    new DataView(small.buffer).setUint32(small.length - 4, 1000, true);
    refused(
      () => r.withLimits({ maxDecompressedBytes: 16 << 20 }).fromBytes(small, 'small.gz'),
      /small\.gz: .*maxDecompressedBytes limit of 16777216 bytes/,
    );
    assert.throws(() => gunzipStreaming(small, fail, 16 << 20, over), /over the limit/);
    assert.throws(() => gunzipStreaming(bomb, fail, 16 << 20, over), /over the limit/);
    assert.equal(gunzipStreaming(bomb, fail, 64 << 20, over).length, 64 << 20);
  });

  it('limits must be positive integers', () => {
    refused(
      () => new NamedMpkGzFileRecorder().withLimits({ maxDecompressedBytes: -1 }).fromBytes(bomb, 'x'),
      /limit maxDecompressedBytes is -1; expected a positive integer/,
    );
  });
});

describe('deeply nested records: a BurnError naming maxNestingDepth, never a raw RangeError', () => {
  const depth = 100_000;

  /** MessagePack `{metadata: {}, item: {a: {a: … nil}}}` nested `n` maps deep. */
  const mpkNested = (n: number) => {
    const head = [0x82, 0xa8, ...enc.encode('metadata'), 0x80, 0xa4, ...enc.encode('item')];
    const out = new Uint8Array(head.length + 3 * n + 1);
    out.set(head);
    for (let i = 0; i < n; i++) out.set([0x81, 0xa1, 0x61], head.length + 3 * i);
    out[out.length - 1] = 0xc0;
    return out;
  };
  const jsonNested = (n: number) => enc.encode(`{"metadata":{},"item":${'{"a":'.repeat(n)}null${'}'.repeat(n)}}`);

  it('MessagePack (.mpk) 100k deep', () => {
    refused(
      () => new NamedMpkBytesRecorder().fromBytes(mpkNested(depth), 'deep.mpk'),
      /deep\.mpk: item\.a\.a.*nests deeper than 128 levels.*maxNestingDepth/,
    );
    assert.equal(
      new NamedMpkBytesRecorder().withLimits({ maxNestingDepth: 300 }).fromBytes(mpkNested(200), 'ok.mpk').tensors.size,
      0,
    );
    refused(() => new NamedMpkBytesRecorder().fromBytes(mpkNested(200), 'ok.mpk'), /maxNestingDepth/);
  });

  it('JSON (.json) 100k deep', () => {
    refused(
      () => new PrettyJsonFileRecorder().fromBytes(jsonNested(depth), 'deep.json'),
      /deep\.json: item\.a\.a.*nests deeper than 128 levels.*maxNestingDepth/,
    );
    assert.equal(
      new PrettyJsonFileRecorder().withLimits({ maxNestingDepth: 300 }).fromBytes(jsonNested(200), 'ok.json').tensors
        .size,
      0,
    );
  });

  it('a 100k-deep value where a dtype or shape belongs is shown briefly in the BurnError (JSON.stringify overflowed)', () => {
    const head = [
      0x82,
      0xa8,
      ...enc.encode('metadata'),
      0x80,
      0xa4,
      ...enc.encode('item'),
      0x81,
      0xa1,
      0x77,
      0x82,
      0xa2,
      ...enc.encode('id'),
      0xa1,
      0x78,
      0xa5,
      ...enc.encode('param'),
      0x83,
      0xa5,
      ...enc.encode('bytes'),
      0xc4,
      4,
      0,
      0,
      0,
      0,
    ];
    const deep = [...new Array<number>(depth).fill(0x91), 0xc0];
    const dtypeDeep = Uint8Array.from([
      ...head,
      0xa5,
      ...enc.encode('shape'),
      0x91,
      1,
      0xa5,
      ...enc.encode('dtype'),
      ...deep,
    ]);
    refused(
      () => new NamedMpkBytesRecorder().fromBytes(dtypeDeep, 'dtype.mpk'),
      /dtype\.mpk: item\.w\.param\.dtype: unsupported dtype \[\[\[\[…\]\]\]\]/,
    );
    const shapeDeep = Uint8Array.from([
      ...head,
      0xa5,
      ...enc.encode('dtype'),
      0xa3,
      ...enc.encode('F32'),
      0xa5,
      ...enc.encode('shape'),
      ...deep,
    ]);
    refused(
      () => new NamedMpkBytesRecorder().fromBytes(shapeDeep, 'shape.mpk'),
      /shape\.mpk: item\.w\.param\.shape: expected non-negative integers, found \[\[\[\[…\]\]\]\]/,
    );
  });

  it("burnpack's CBOR metadata 100k deep, through the recorder, the store and readBurnpack", () => {
    const cbor = [
      0xa2,
      0x67,
      ...enc.encode('tensors'),
      0xa0,
      0x68,
      ...enc.encode('metadata'),
      ...new Array<number>(depth).fill(0x81),
      0xf6,
    ];
    const file = new Uint8Array(10 + cbor.length);
    const v = new DataView(file.buffer);
    v.setUint32(0, 0x4255524e, true);
    v.setUint16(4, 1, true);
    v.setUint32(6, cbor.length, true);
    file.set(cbor, 10);
    refused(
      () => new BurnpackBytesRecorder().fromBytes(file, 'deep.bpk'),
      /deep\.bpk: invalid CBOR metadata at byte offset \d+: nesting deeper than 128 levels/,
    );
    refused(() => new Small(device).loadFrom(new BurnpackStore(file)), /nesting deeper than 128 levels/);
    refused(
      () => new Small(device).loadFrom(new BurnpackStore(file).withLimits({ maxNestingDepth: 64 })),
      /nesting deeper than 64 levels/,
    );
    refused(
      () => readBurnpack(bytesSource(file, 'deep.bpk'), 'op', { maxNestingDepth: 16 }),
      /deep\.bpk.*nesting deeper than 16 levels/,
    );
  });
});
