// Hostile PyTorch checkpoints: expanded (stride-0) tensors stay views of their small
// storage, overlapping views are bounded, offsets and sizes outside the storage are refused, and
// the unpickler decodes huge integers, huge APPENDS and deep nesting in linear time without a
// raw RangeError. Files are built by hand (pickle-builder.ts) to state exactly what they declare.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it } from 'node:test';
import { deflateSync, zipSync } from 'fflate';
import { BurnError, Device, Module, Tensor } from '../../src/index.js';
import { Linear, LinearConfig } from '../../src/nn/index.js';
import { PytorchStore } from '../../src/store/index.js';
import { unpickle } from '../../src/store/pytorch/pickle.js';
import { readPytorch } from '../../src/store/pytorch/reader.js';
import { inflateBounded, ZipReader } from '../../src/store/pytorch/zip.js';
import { bytesSource } from '../../src/record/source.js';
import { f32Bytes, legacyCheckpoint, P, statePickle, zipCheckpoint, type HandTensor } from './pickle-builder.js';

const device = Device.cpu();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Bytes held by live ArrayBuffers after a full collection. */
function liveBuffers(): number {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

const read = (bytes: Uint8Array, name = 'hostile.pt') => readPytorch(bytesSource(bytes, name));
const refused = (bytes: Uint8Array, re: RegExp, name = 'hostile.pt') =>
  assert.throws(
    () => read(bytes, name).tensors.forEach((s) => s.toData()),
    (e: Error) => e instanceof BurnError && e.message.includes(name) && re.test(e.message),
    re.source,
  );

const tensor = (t: Partial<HandTensor> & Pick<HandTensor, 'size' | 'stride'>): HandTensor => ({
  name: 'w',
  key: '0',
  numel: 4,
  offset: 0,
  ...t,
});

describe('PyTorch: expanded (stride-0) tensors stay views of their storage', () => {
  it('a 1-element storage expanded to [8192, 8192] (256 MiB of f32) reads as a 4-byte view', () => {
    const file = zipCheckpoint([tensor({ numel: 1, size: [8192, 8192], stride: [0, 0] })], { 0: f32Bytes([7]) });
    assert.ok(file.length < 1024, `the hostile file is small (${file.length} bytes)`);
    const before = liveBuffers();
    const snap = read(file).tensors.get('w')!;
    assert.deepEqual(snap.shape, [8192, 8192]);
    assert.ok(snap.isExpanded());
    assert.deepEqual(snap.compactShape, [1, 1]);
    const compact = snap.toCompactData();
    assert.deepEqual(Array.from(compact.toArray()), [7]);
    const t = snap.toTensor(device);
    assert.deepEqual(t.dims(), [8192, 8192]);
    assert.deepEqual(
      Array.from(
        t
          .slice([
            [8190, 8192],
            [0, 3],
          ])
          .toDataSync()
          .toArray(),
      ),
      [7, 7, 7, 7, 7, 7],
    );
    const grown = liveBuffers() - before;
    assert.ok(
      grown < 8 << 20,
      `reading the expanded tensor kept ${grown} bytes alive (expected far below its 256 MiB)`,
    );
    void t;
  });

  it('a module loads a partly expanded Linear weight as an expanded view (values exact, memory bounded by the storage)', () => {
    class Net extends Module {
      fc: Linear = new LinearConfig({ dInput: 2048, dOutput: 2048 }).init(device);
    }
    const n = 2048;
    const rows = Array.from({ length: n }, (_, i) => i * 0.5);
    // PyTorch layout [out, in] with stride [1, 0]: W[o][i] = rows[o]; the bias is one value broadcast.
    const file = zipCheckpoint(
      [
        { name: 'fc.weight', key: '0', numel: n, offset: 0, size: [n, n], stride: [1, 0] },
        { name: 'fc.bias', key: '1', numel: 1, offset: 0, size: [n], stride: [0] },
      ],
      { 0: f32Bytes(rows), 1: f32Bytes([-3]) },
    );
    const model = new Net();
    // The initial weights stay referenced, so the measure counts only what the load adds.
    const initial = [model.fc.weight.val(), model.fc.bias!.val()];
    const before = liveBuffers();
    const result = model.loadFrom(new PytorchStore(file));
    const grown = liveBuffers() - before;
    assert.equal(initial.length, 2);
    assert.ok(result.isSuccess(), String(result));
    assert.ok(grown < 4 << 20, `loading kept ${grown} bytes alive; the dense weight would be ${4 * n * n}`);
    // Burn layout [in, out]: weight[i][o] = rows[o].
    const w = model.fc.weight.val();
    assert.deepEqual(w.dims(), [n, n]);
    assert.deepEqual(
      Array.from(
        w
          .slice([
            [5, 7],
            [0, 4],
          ])
          .toDataSync()
          .toArray(),
      ),
      [0, 0.5, 1, 1.5, 0, 0.5, 1, 1.5],
    );
    assert.deepEqual(
      Array.from(
        w
          .slice([
            [0, 1],
            [n - 2, n],
          ])
          .toDataSync()
          .toArray(),
      ),
      [(n - 2) * 0.5, (n - 1) * 0.5],
    );
    assert.deepEqual(
      Array.from(
        model.fc
          .bias!.val()
          .slice([[0, 3]])
          .toDataSync()
          .toArray(),
      ),
      [-3, -3, -3],
    );
    // The view computes like the dense tensor: x·W with x = ones gives n·rows[o].
    const o = model.fc
      .forward(Tensor.ones([1, n], device))
      .toDataSync()
      .toArray();
    assert.equal(o[3], n * 1.5 - 3);
  });

  it('toData() of an expanded snapshot still gives the dense values', () => {
    const file = zipCheckpoint([tensor({ numel: 3, size: [2, 3], stride: [0, 1] })], { 0: f32Bytes([1, 2, 3]) });
    const snap = read(file).tensors.get('w')!;
    assert.deepEqual(snap.compactShape, [1, 3]);
    assert.deepEqual(Array.from(snap.toData().toArray()), [1, 2, 3, 1, 2, 3]);
  });

  it('an overlapping view whose copy would outgrow its storage past maxStridedCopyBytes is refused', () => {
    // 512 floats read with strides [1, 1, 1, 1] as [128, 128, 128, 128]: 1 GiB from a 2 KiB storage.
    const file = zipCheckpoint([tensor({ numel: 512, size: [128, 128, 128, 128], stride: [1, 1, 1, 1] })], {
      0: new Uint8Array(2048),
    });
    refused(file, /tensor 'w'.*\[128, 128, 128, 128\].*stride \[1, 1, 1, 1\].*1073741824 bytes.*maxStridedCopyBytes/s);
    // A small overlapping view (unfold-like) is copied.
    const small = zipCheckpoint([tensor({ numel: 4, size: [3, 2], stride: [1, 1] })], { 0: f32Bytes([1, 2, 3, 4]) });
    assert.deepEqual(Array.from(read(small).tensors.get('w')!.toData().toArray()), [1, 2, 2, 3, 3, 4]);
  });
});

describe('PyTorch: offsets, sizes and strides outside the storage are refused', () => {
  const data = { 0: f32Bytes([1, 2, 3, 4]) };
  it('a negative storage offset (it read the zip header)', () => {
    refused(
      zipCheckpoint([tensor({ offset: -16, size: [4], stride: [1] })], data),
      /tensor 'w'.*storage offset -16.*expected an integer in 0\.\.4/,
    );
    refused(zipCheckpoint([tensor({ offset: -1, size: [0], stride: [1] })], data), /storage offset -1/);
  });

  it('an offset past the storage end, negative sizes, and offset + size·stride past the end or beyond 2^53', () => {
    refused(
      zipCheckpoint([tensor({ offset: 5, size: [0], stride: [1] })], data),
      /storage offset 5.*expected an integer in 0\.\.4/,
    );
    refused(
      zipCheckpoint([tensor({ offset: 3, size: [2], stride: [1] })], data),
      /reaches element 4 of a storage of 4 elements/,
    );
    refused(zipCheckpoint([tensor({ size: [-4], stride: [1] })], data), /size \[-4\].*non-negative/);
    refused(zipCheckpoint([tensor({ size: [2, -2], stride: [1, 1] })], data), /size \[2, -2\]/);
    refused(zipCheckpoint([tensor({ size: [2], stride: [2n ** 62n] })], data), /PytorchStore/);
    refused(zipCheckpoint([tensor({ offset: 2n ** 62n, size: [1], stride: [1] })], data), /PytorchStore/);
    refused(zipCheckpoint([tensor({ size: [3], stride: [2 ** 52] })], data), /reaches element|beyond 2\^53/);
    refused(
      zipCheckpoint([tensor({ size: [2 ** 26, 2 ** 26, 2 ** 26], stride: [0, 0, 0], numel: 1 })], { 0: f32Bytes([1]) }),
      /2\^53|elements/,
    );
  });

  it('a ZIP64 extra field too short for the sizes it must give (it threw a raw RangeError)', () => {
    const z = zipCheckpoint([], {}, Uint8Array.from([0x80, 2, 0x7d, 0x2e]));
    const dv = new DataView(z.buffer, z.byteOffset);
    let cd = 0;
    while (dv.getUint32(cd, true) !== 0x02014b50) cd++;
    const end = cd + 46 + dv.getUint16(cd + 28, true) + dv.getUint16(cd + 30, true) + dv.getUint16(cd + 32, true);
    // The first entry's uncompressed size becomes 0xffffffff, with an empty ZIP64 extra field after its name.
    const out = new Uint8Array(z.length + 4);
    out.set(z.subarray(0, end));
    out.set([1, 0, 0, 0], end);
    out.set(z.subarray(end), end + 4);
    const ov = new DataView(out.buffer);
    ov.setUint32(cd + 24, 0xffffffff, true);
    ov.setUint16(cd + 30, dv.getUint16(cd + 30, true) + 4, true);
    let eocd = out.length - 22;
    while (ov.getUint32(eocd, true) !== 0x06054b50) eocd--;
    ov.setUint32(eocd + 12, ov.getUint32(eocd + 12, true) + 4, true);
    assert.throws(
      () => read(out, 'z64.pt'),
      (e: Error) =>
        e instanceof BurnError &&
        /z64\.pt: not a valid PyTorch zip archive: central directory entry 0 \('archive\/data\.pkl'\): its ZIP64 extra field holds 0 bytes/.test(
          e.message,
        ),
    );
  });

  it('more than 64 dims', () => {
    refused(
      zipCheckpoint(
        [tensor({ numel: 1, size: new Array<number>(100_000).fill(1), stride: new Array<number>(100_000).fill(1) })],
        { 0: f32Bytes([1]) },
      ),
      /tensor 'w' has 100000 dims; expected at most 64/,
    );
  });

  it('a deflated storage entry that understates its size stops within about 1 MiB of inflation (rather than inflating a whole 64 KiB slice, ~64 MiB, first)', () => {
    const zeros = new Uint8Array(16 << 20);
    const file = zipSync({
      'archive/data.pkl': [statePickle([tensor({ size: [4], stride: [1] })]), { level: 0 }],
      'archive/data/0': [zeros, { level: 9 }],
    });
    // The central directory's uncompressed size of archive/data/0 becomes 16 (the storage's 4 floats).
    const dv = new DataView(file.buffer, file.byteOffset);
    for (let p = file.length - 22; p >= 0; p--) {
      if (dv.getUint32(p, true) !== 0x02014b50) continue;
      const name = new TextDecoder().decode(file.subarray(p + 46, p + 46 + dv.getUint16(p + 28, true)));
      if (name === 'archive/data/0') dv.setUint32(p + 24, 16, true);
    }
    refused(file, /entry 'archive\/data\/0' inflates past its declared 16 bytes \(.*zip bomb/);
    // The browser path (fflate) reports how far it went before stopping.
    const raw = deflateSync(zeros, { level: 9 });
    let inflated = -1;
    assert.throws(
      () =>
        inflateBounded(
          raw,
          16,
          (n) => {
            inflated = n;
            throw new BurnError('t', 'past');
          },
          (m) => {
            throw new BurnError('t', m);
          },
        ),
      /past/,
    );
    assert.ok(inflated > 16 && inflated <= 2 << 20, `inflated ${inflated} bytes before stopping`);
    assert.deepEqual(
      Array.from(
        inflateBounded(
          deflateSync(f32Bytes([1, 2])),
          8,
          () => {
            throw new Error('past');
          },
          (m) => {
            throw new Error(m);
          },
        ),
      ),
      Array.from(f32Bytes([1, 2])),
    );
  });

  it('tensors sharing a deflated storage inflate it once, not once per tensor', () => {
    const n = 200;
    const tensors = Array.from({ length: n }, (_, i) =>
      tensor({ name: `t${i}`, numel: 1 << 18, offset: i, size: [4], stride: [1] }),
    );
    const values = Float32Array.from({ length: 1 << 18 }, (_, i) => i);
    const file = zipSync({
      'archive/data.pkl': [statePickle(tensors), { level: 0 }],
      'archive/data/0': [new Uint8Array(values.buffer), { level: 6 }],
    });
    const read0 = ZipReader.prototype.read;
    let inflations = 0;
    ZipReader.prototype.read = function (this: ZipReader, entry) {
      if (entry.name === 'archive/data/0') inflations++;
      return read0.call(this, entry);
    };
    try {
      const loaded = [...read(file).tensors.values()].map((t) => t.toData());
      assert.deepEqual(Array.from(loaded[n - 1]!.toArray()), [n - 1, n, n + 1, n + 2]);
      assert.equal(inflations, 1);
    } finally {
      ZipReader.prototype.read = read0;
    }
  });

  it('a storage declaring more elements than its entry holds', () => {
    refused(
      zipCheckpoint([tensor({ numel: 100, size: [4], stride: [1] })], data),
      /storage '0' holds 16 bytes but 100 elements of f32 need 400/,
    );
  });

  it('legacy format: a storage view past its root storage is refused (it read the next storage)', () => {
    const storages = { a: f32Bytes([1, 2, 3, 4]), b: f32Bytes([9, 9, 9, 9]) };
    const ok = legacyCheckpoint(
      [
        { name: 'w', key: 'a', numel: 4, offset: 0, size: [2], stride: [1], view: { key: 'v', offset: 2, size: 2 } },
        { name: 'u', key: 'b', numel: 4, offset: 0, size: [4], stride: [1] },
      ],
      storages,
    );
    assert.deepEqual(Array.from(read(ok).tensors.get('w')!.toData().toArray()), [3, 4]);
    const past = legacyCheckpoint(
      [
        { name: 'w', key: 'a', numel: 4, offset: 0, size: [4], stride: [1], view: { key: 'v', offset: 2, size: 4 } },
        { name: 'u', key: 'b', numel: 4, offset: 0, size: [4], stride: [1] },
      ],
      storages,
    );
    refused(past, /storage view 'v' of 'a'.*elements 2\.\.6.*4 elements/);
  });
});

describe('PyTorch: the unpickler is linear and never throws a raw RangeError', () => {
  const run = (pickle: number[] | Uint8Array) => unpickle(Uint8Array.from(pickle), { source: 'big.pkl' }).value;

  it('LONG4 of 1 MiB decodes in linear time (it never finished)', () => {
    // Run in a child process with a deadline: the quadratic decoder never returns.
    const code = `
      import { unpickle } from './src/store/pytorch/pickle.ts';
      const n = 1 << 20;
      const long4 = (fill, top) => { const b = new Uint8Array(6 + n); b.set([0x8b, n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24]); b.fill(fill, 5, 5 + n); b[4 + n] = top; b[5 + n] = 0x2e; return b; };
      const t0 = performance.now();
      const minus1 = unpickle(long4(0xff, 0xff), { source: 'x' }).value;
      const max = unpickle(long4(0xff, 0x7f), { source: 'x' }).value;
      const ok = minus1 === -1 && max === (1n << BigInt(8 * n - 1)) - 1n;
      console.log(ok ? 'ok' : 'wrong', Math.round(performance.now() - t0));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: new URL('../..', import.meta.url).pathname,
      timeout: 30_000,
      encoding: 'utf8',
    });
    assert.equal(r.signal, null, 'the decoder finished within 30 s');
    assert.match(r.stdout, /^ok \d+/, r.stderr);
  });

  it('small LONG1/LONG4 values keep their sign', () => {
    assert.equal(run([0x80, 2, ...P.int(-(2n ** 40n)), 0x2e]), -(2 ** 40));
    assert.equal(run([0x80, 2, ...P.int(2n ** 70n), 0x2e]), 2n ** 70n);
    assert.equal(run([0x80, 2, 0x8b, 0, 0, 0, 0, 0x2e]), 0);
  });

  it('400k items in one APPENDS, SETITEMS and TUPLE', () => {
    const n = 400_000;
    const items = new Array<number>(n).fill(0).flatMap(() => [0x4b, 1]);
    const list = run([0x80, 2, 0x5d, 0x28, ...items, 0x65, 0x2e]) as number[];
    assert.equal(list.length, n);
    assert.equal(list[n - 1], 1);
    const set = run([0x80, 4, 0x8f, 0x28, ...items, 0x90, 0x2e]) as Set<number>;
    assert.equal(set.size, 1);
    const tuple = run([0x80, 2, 0x28, ...items, 0x74, 0x2e]) as { items: number[] };
    assert.equal(tuple.items.length, n);
  });

  it('100k-deep nested dicts in a checkpoint: a BurnError naming the limit (was a raw RangeError)', () => {
    const depth = 100_000;
    const key = P.str('a');
    const open = new Array<number[]>(depth).fill([...key, 0x7d]).flat();
    const pickle = Uint8Array.from([0x80, 2, 0x7d, ...open, ...new Array<number>(depth).fill(0x73), 0x2e]);
    const file = zipCheckpoint([], {}, pickle);
    assert.throws(
      () => read(file, 'deep.pt'),
      (e: Error) =>
        e instanceof BurnError && /deep\.pt.*nested deeper than 128 levels.*maxNestingDepth/.test(e.message),
      'depth',
    );
    // A raised limit reads deeper files; the default allows ordinary nesting.
    const nested = Uint8Array.from([
      0x80,
      2,
      0x7d,
      ...new Array<number[]>(200).fill([...key, 0x7d]).flat(),
      ...new Array<number>(200).fill(0x73),
      0x2e,
    ]);
    assert.throws(() => readPytorch(bytesSource(zipCheckpoint([], {}, nested))), /maxNestingDepth/);
    assert.equal(
      readPytorch(bytesSource(zipCheckpoint([], {}, nested)), { limits: { maxNestingDepth: 300 } }).tensors.size,
      0,
    );
    // Deep lists are not walked: they load (and are ignored, as every non-tensor value).
    const lists = Uint8Array.from([
      0x80,
      2,
      0x7d,
      ...key,
      ...new Array<number>(depth).fill(0x5d),
      ...new Array<number>(depth - 1).fill(0x61),
      0x73,
      0x2e,
    ]);
    assert.equal(read(zipCheckpoint([], {}, lists)).tensors.size, 0);
  });

  it('a 100k-deep tuple used as a dict key is refused with a BurnError naming the limit', () => {
    const depth = 100_000;
    const pickle = [
      0x80,
      2,
      0x7d,
      ...new Array<number>(depth).fill(0x29).flatMap(() => [0x29]),
      ...new Array<number>(depth - 1).fill(0x86),
      0x4e,
      0x73,
      0x2e,
    ];
    // EMPTY_TUPLE × depth, then TUPLE2 pairs them into a deep chain: ((((), ()), ()), …).
    assert.throws(
      () => run(pickle),
      (e: Error) =>
        e instanceof BurnError && /big\.pkl.*nested deeper than 128 levels.*maxNestingDepth/.test(e.message),
    );
  });

  it('statePickle with no tensors is an empty state dict', () => {
    assert.equal(read(zipCheckpoint([], {}, statePickle([]))).tensors.size, 0);
  });
});
