// The burnpack container against Burn's format: a file written by Rust Burn
// (examples/mnist-inference-web/model.bpk in tracel-ai/burn) is read and re-written byte for
// byte; the layout rules (magic, version, CBOR metadata, 256-byte alignment, dtype names) are
// checked on files we write; corrupt files fail with the file, the field and the byte offset.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import { CborFloat, decodeCbor, encodeCbor } from '../../src/record/cbor.js';
import { encodeBurnpack, readBurnpack, type BurnpackTensorInput } from '../../src/record/burnpack.js';
import { bytesSource } from '../../src/record/source.js';
import { TensorData } from '../../src/core/data.js';
import { burnFile, compatDescribe } from '../store/helpers.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

compatDescribe('burnpack: files written by Rust Burn', () => {
  it("reads Burn's mnist model.bpk and re-encodes it byte for byte", () => {
    const bytes = burnFile('examples/mnist-inference-web/model.bpk');
    const c = readBurnpack(bytesSource(bytes, 'model.bpk'));
    assert.equal(c.tensors.length, 18);
    const conv = c.tensors.find((t) => t.name === 'conv1.conv.weight')!;
    assert.deepEqual([conv.dtype, conv.shape, conv.paramId!.toString(16)], ['f32', [64, 1, 3, 3], '958fe051d890fbca']);
    const rm = c.tensors.find((t) => t.name === 'conv1.norm.running_mean')!;
    assert.deepEqual(rm.shape, [64]);
    for (const t of c.tensors) assert.equal(t.offset % 256, 0, `${t.name} is 256-byte aligned`);
    // Re-write in the file's data order: identical bytes (metadata CBOR, padding, offsets, ids).
    const order = [...c.tensors].sort((a, b) => a.offset - b.offset);
    const out = encodeBurnpack(
      order.map(
        (t): BurnpackTensorInput => ({
          name: t.name,
          dtype: t.dtype,
          shape: t.shape,
          paramId: t.paramId!,
          bytes: t.read(),
        }),
      ),
      c.metadata,
    );
    assert.equal(out.length, bytes.length);
    assert.ok(
      out.every((v, i) => v === bytes[i]),
      'byte-identical',
    );
  });
});

describe('burnpack: layout', () => {
  const tensors: BurnpackTensorInput[] = [
    { name: 'b', dtype: 'f32', shape: [3], paramId: 7n, bytes: new TensorData([1, 2, 3], [3]).bytes },
    { name: 'a', dtype: 'i64', shape: [2], bytes: new TensorData([5n, -6n], [2], 'i64').bytes },
    {
      name: 'm',
      dtype: 'bool',
      shape: [2],
      paramId: 0xfedcba9876543210n,
      bytes: new TensorData([1, 0], [2], 'bool').bytes,
    },
  ];
  const file = encodeBurnpack(tensors, new Map([['producer', 'burn-ts']]));

  it('header: magic NRUB, version 1, metadata size; data section and every tensor 256-aligned', () => {
    assert.equal(hex(file.subarray(0, 6)), '4e5255420100');
    const metaSize = new DataView(file.buffer).getUint32(6, true);
    const dataStart = Math.ceil((10 + metaSize) / 256) * 256;
    const c = readBurnpack(bytesSource(file));
    assert.deepEqual(
      c.tensors.map((t) => [t.name, t.offset - dataStart]),
      [
        ['a', 256],
        ['b', 0],
        ['m', 512],
      ],
      'names sorted in metadata; data in write order at 256-byte steps',
    );
    assert.equal(file.length, dataStart + 512 + 2, 'no trailing padding');
    assert.ok(
      file.subarray(10 + metaSize, dataStart).every((b) => b === 0),
      'zero padding',
    );
  });

  it("metadata CBOR: Burn's field names, dtype names, u64 param ids, bool as {Bool: Native}", () => {
    const metaSize = new DataView(file.buffer).getUint32(6, true);
    const meta = decodeCbor(file.subarray(10, 10 + metaSize)) as Map<string, unknown>;
    assert.deepEqual([...meta.keys()], ['tensors', 'metadata']);
    const t = meta.get('tensors') as Map<string, Map<string, unknown>>;
    assert.deepEqual([...t.keys()], ['a', 'b', 'm']);
    assert.deepEqual(
      [...t.get('b')!.entries()],
      [
        ['dtype', 'F32'],
        ['shape', [3]],
        ['data_offsets', [0, 12]],
        ['param_id', 7],
      ],
    );
    assert.deepEqual([...t.get('a')!.keys()], ['dtype', 'shape', 'data_offsets'], 'absent param_id left out');
    assert.equal(t.get('a')!.get('dtype'), 'I64');
    assert.deepEqual([...(t.get('m')!.get('dtype') as Map<string, string>)], [['Bool', 'Native']]);
    assert.equal(t.get('m')!.get('param_id'), 0xfedcba9876543210n);
    // The exact bytes of one descriptor, as ciborium writes it.
    assert.equal(
      hex(
        encodeCbor(
          new Map<string, never>([
            ['dtype', 'F32' as never],
            ['shape', [3] as never],
          ]),
        ),
      ),
      'a2656474797065634633326573686170658103',
    );
  });

  it('reads back values, ids and metadata; scalars round-trip', () => {
    const c = readBurnpack(bytesSource(file));
    const b = c.tensors.find((t) => t.name === 'b')!;
    assert.deepEqual(Array.from(TensorData.fromBytes(b.read(), b.shape, b.dtype).toArray()), [1, 2, 3]);
    assert.equal(c.metadata.get('producer'), 'burn-ts');
    const s = encodeBurnpack(
      [],
      new Map(),
      new Map([
        ['epoch', { type: 'UInt', value: 3n }],
        ['lr', { type: 'Float', value: 2 }],
        ['done', { type: 'Bool', value: true }],
      ]),
    );
    const back = readBurnpack(bytesSource(s)).scalars;
    assert.deepEqual(back.get('epoch'), { type: 'UInt', value: 3n });
    assert.deepEqual(back.get('lr'), { type: 'Float', value: 2 });
    assert.deepEqual(back.get('done'), { type: 'Bool', value: true });
  });

  it('CBOR: shortest float widths, bigints, indefinite lengths, depth limit', () => {
    assert.equal(hex(encodeCbor(new CborFloat(1.5))), 'f93e00');
    assert.equal(hex(encodeCbor(new CborFloat(0.1))), 'fb3fb999999999999a');
    assert.equal(hex(encodeCbor(new CborFloat(100000))), 'fa47c35000');
    assert.equal(hex(encodeCbor(2n ** 64n - 1n)), '1bffffffffffffffff');
    assert.equal(decodeCbor(Uint8Array.from([0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), 2n ** 64n - 1n);
    assert.deepEqual(decodeCbor(Uint8Array.from([0x9f, 0x01, 0x02, 0xff])), [1, 2]);
    assert.equal(decodeCbor(Uint8Array.from([0x7f, 0x61, 0x61, 0x61, 0x62, 0xff])), 'ab');
    const deep = new Uint8Array(200).fill(0x81);
    assert.throws(
      () => decodeCbor(deep, { source: 'f.bpk' }),
      /f\.bpk: invalid CBOR metadata at byte offset 129: nesting deeper than 128/,
    );
  });

  it('errors name the file, what was expected and where', () => {
    const bad = (bytes: Uint8Array, re: RegExp) =>
      assert.throws(
        () => readBurnpack(bytesSource(bytes, 'model.bpk')),
        (e: Error) => e instanceof BurnError && re.test(e.message),
        re.source,
      );
    bad(file.subarray(0, 5), /model\.bpk: not a burnpack file: 5 bytes, the header alone needs 10/);
    const magic = file.slice();
    magic[0] = 0x50;
    bad(magic, /bytes 0\.\.4 are 50 52 55 42, expected 4e 52 55 42/);
    const version = file.slice();
    version[4] = 2;
    bad(version, /format version 2 \(byte offset 4\) is newer than the supported version 1/);
    bad(file.subarray(0, 40), /truncated: the header announces \d+ bytes of metadata at byte offset 10/);
    bad(file.subarray(0, file.length - 1), /truncated: tensor 'm' needs bytes \d+\.\.\d+, but the file has \d+ bytes/);
    const meta = file.slice();
    meta[12] = 0xff; // break the CBOR inside the metadata
    bad(meta, /invalid CBOR metadata at byte offset 1[0-9]/);
    const big = file.slice();
    new DataView(big.buffer).setUint32(6, 200 * 1024 * 1024, true);
    bad(big, /metadata size 209715200 \(byte offset 6\) exceeds the 104857600-byte limit/);
    // A descriptor whose offsets do not match its shape.
    const wrong = encodeBurnpack([{ name: 'w', dtype: 'f32', shape: [2], bytes: new Uint8Array(8) }]);
    const m = new DataView(wrong.buffer).getUint32(6, true);
    const md = decodeCbor(wrong.subarray(10, 10 + m)) as Map<string, Map<string, Map<string, unknown>>>;
    md.get('tensors')!.get('w')!.set('shape', [3]);
    const enc = encodeCbor(md as never);
    const patched = new Uint8Array(wrong.length);
    patched.set(wrong);
    patched.set(enc, 10);
    bad(patched, /tensor 'w': data_offsets \[0, 8\] hold 8 bytes, but shape \[3\] of f32 needs 12/);
  });

  it('refuses dtypes burn-ts cannot hold with the accepted list', () => {
    const f = encodeBurnpack([{ name: 'x', dtype: 'u32', shape: [1], bytes: new Uint8Array(4) }]);
    const m = new DataView(f.buffer).getUint32(6, true);
    const text = Buffer.from(f.subarray(10, 10 + m))
      .toString('latin1')
      .replace('U32', 'U64');
    const g = f.slice();
    g.set(Buffer.from(text, 'latin1'), 10);
    assert.throws(
      () => readBurnpack(bytesSource(g, 'u64.bpk')),
      /u64\.bpk: invalid metadata: tensor 'x' field 'dtype': dtype "U64" is not supported/,
    );
  });
});
