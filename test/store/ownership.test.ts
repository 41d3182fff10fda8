// Loads hand the arrays they read from a file over to the CPU backend (no second copy of every
// tensor); arrays that are views of the caller's bytes are always copied. Saves serialize views
// of contiguous CPU storage instead of copies.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Device, Module, Param, Tensor, TensorData, type Float } from '../../src/index.js';
import { BinFileRecorder, NamedMpkFileRecorder } from '../../src/record/index.js';
import { BurnpackStore, PytorchStore, SafetensorsStore } from '../../src/store/index.js';
import { handOver, takeOver } from '../../src/core/ownership.js';
import { Small, tempDir, values } from './helpers.js';

const device = Device.cpu({ engine: 'js' });

describe('array hand-over on load', () => {
  it('a handed-over array becomes the tensor storage once; other data is copied', () => {
    const values32 = new Float32Array([1, 2, 3, 4]);
    const data = handOver(new TensorData(values32, [2, 2], 'f32'));
    const kept = Tensor.fromData<2>(data, device);
    values32[0] = 100; // the backend owns it now: this shows that no copy was made
    assert.equal(kept.toDataSync().toArray()[0], 100);
    assert.equal(takeOver(data), false, 'the mark is taken once');
    const copied = Tensor.fromData<2>(data, device);
    values32[1] = 200;
    assert.deepEqual(Array.from(copied.toDataSync().toArray()), [100, 2, 3, 4], 'unmarked data is copied');
    // Arrays that are not the compute type of the dtype (f16 bits, i64 bigints) are converted, never kept.
    const half = handOver(TensorData.fromBytes(new Uint8Array([0, 0x3c, 0, 0x40]), [2], 'f16'));
    assert.deepEqual(Array.from(Tensor.fromData<1>(half, device).toDataSync().convert('f32').toArray()), [1, 2]);
  });

  for (const [name, store, ext] of [
    ['burnpack', (p: string) => new BurnpackStore(p), 'bpk'],
    ['SafeTensors', (p: string) => new SafetensorsStore(p), 'safetensors'],
    ['PyTorch', (p: string) => new PytorchStore(p), 'pt'],
  ] as const) {
    it(`${name}: loads from a file equal the saved values; loads from bytes do not alias the bytes`, () => {
      const [dir, done] = tempDir();
      try {
        const model = new Small(device);
        const path = join(dir, `m.${ext}`);
        model.saveInto(store(path));
        const fromFile = new Small(device);
        const result = fromFile.loadFrom(name === 'PyTorch' ? new PytorchStore(path).allowPartial(true) : store(path));
        assert.ok(result.errors.length === 0, result.toString());
        const expected = values(model);
        const got = values(fromFile);
        for (const key of result.applied) assert.deepEqual(got[key], expected[key], key);

        const memory =
          name === 'burnpack'
            ? BurnpackStore.fromBytes()
            : name === 'SafeTensors'
              ? SafetensorsStore.fromBytes()
              : PytorchStore.fromBytes();
        model.saveInto(memory);
        const bytes = memory.getBytes();
        const fromBytes = new Small(device);
        const r2 = fromBytes.loadFrom(
          name === 'burnpack'
            ? BurnpackStore.fromBytes(bytes)
            : name === 'SafeTensors'
              ? SafetensorsStore.fromBytes(bytes)
              : PytorchStore.fromBytes(bytes).allowPartial(true),
        );
        assert.ok(r2.errors.length === 0, r2.toString());
        const before = values(fromBytes);
        bytes.fill(0xff); // the caller reuses its buffer
        assert.deepEqual(values(fromBytes), before, 'tensors loaded from bytes keep their values');
      } finally {
        done();
      }
    });
  }

  it('saving reads contiguous storage as views (offset slices included) and copies strided tensors; every format round-trips', () => {
    class Views extends Module {
      constructor(readonly parts: Param<Tensor<number, Float>>[]) {
        super();
      }
    }
    const base = Tensor.fromFloats(
      [
        [1, 2, 3, 4],
        [5, 6, 7, 8],
        [9, 10, 11, 12],
      ],
      device,
    );
    const make = () =>
      new Views([
        new Param(base.slice([[1, 3]]) as Tensor<number, Float>), // contiguous at an offset
        new Param(base.transpose() as Tensor<number, Float>), // strided: copied
        new Param(base as Tensor<number, Float>), // the whole storage
        new Param(
          Tensor.fromData<2>(new TensorData(new Float64Array([0.5, 0.25]), [1, 2], 'f64'), device) as Tensor<
            number,
            Float
          >,
        ),
      ]);
    const expected = [
      [5, 6, 7, 8, 9, 10, 11, 12],
      [1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12],
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
      [0.5, 0.25],
    ];
    const zeros = () => new Views(make().parts.map((p) => new Param(p.val().zerosLike(), { id: p.id })));
    const [dir, done] = tempDir();
    try {
      for (const save of [
        (m: Views) => {
          m.saveInto(new BurnpackStore(join(dir, 'v.bpk')).overwrite(true));
          return () => new BurnpackStore(join(dir, 'v.bpk'));
        },
        (m: Views) => {
          m.saveInto(new SafetensorsStore(join(dir, 'v.safetensors')).overwrite(true));
          return () => new SafetensorsStore(join(dir, 'v.safetensors'));
        },
      ]) {
        const reopen = save(make());
        const target = zeros();
        assert.ok(target.loadFrom(reopen()).isSuccess());
        target.parts.forEach((p, i) =>
          assert.deepEqual(Array.from(p.val().toDataSync().toArray()), expected[i], `part ${i}`),
        );
      }
      for (const recorder of [new BinFileRecorder(), new NamedMpkFileRecorder()]) {
        const model = make();
        model.saveFile(join(dir, 'v'), recorder);
        const back = zeros().loadFile(join(dir, 'v'), device, recorder);
        back.parts.forEach((p, i) =>
          assert.deepEqual(
            Array.from(p.val().toDataSync().toArray()),
            expected[i],
            `${recorder.constructor.name} part ${i}`,
          ),
        );
      }
      assert.deepEqual(Array.from(base.toDataSync().toArray()), expected[2], 'the saved tensors are untouched');
    } finally {
      done();
    }
  });
});
