// External data (tensors stored in files beside the model): read tensor by tensor at their
// offsets, only from inside the model's folder — `../`, absolute paths and symbolic links that
// lead out are refused with a BurnError before anything is read.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BurnError, Device, Tensor } from '../../src/index.js';
import { loadOnnx } from '../../src/onnx/index.js';
import {
  StringStringEntryProtoSchema,
  TensorProto_DataLocation,
  TensorProtoSchema,
} from '../../src/onnx/proto/onnx/onnx-ml_pb.js';
import { graph, model, node, T, value } from './builder.js';

const dir = mkdtempSync(join(tmpdir(), 'burn-onnx-ext-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** An f32 initializer `name` of `dims` stored in `location` at `offset` (and `length`, when given). */
function external(name: string, dims: number[], location: string, offset?: number, length?: number) {
  const entries = [
    ['location', location],
    ...(offset !== undefined ? [['offset', String(offset)]] : []),
    ...(length !== undefined ? [['length', String(length)]] : []),
  ];
  return create(TensorProtoSchema, {
    name,
    dataType: T.f32,
    dims: dims.map(BigInt),
    dataLocation: TensorProto_DataLocation.EXTERNAL,
    externalData: entries.map(([key, v]) => create(StringStringEntryProtoSchema, { key: key!, value: v! })),
  });
}

/** `y = x + a + b` with a and b external; writes model.onnx into `sub` and returns its path. */
function writeModel(sub: string, a: ReturnType<typeof external>, b: ReturnType<typeof external>): string {
  const folder = join(dir, sub);
  mkdirSync(folder, { recursive: true });
  const bytes = model(
    graph({
      nodes: [node('Add', ['x', 'a'], ['s']), node('Add', ['s', 'b'], ['y'])],
      inputs: [value('x', T.f32, [2])],
      outputs: [value('y', T.f32, [2])],
      initializers: [a, b],
    }),
  );
  const path = join(folder, 'model.onnx');
  writeFileSync(path, bytes);
  return path;
}

const f32 = (v: number[]) => new Uint8Array(Float32Array.from(v).buffer);

describe('ONNX external data', () => {
  it('reads tensors at their offsets from files beside the model', async () => {
    const data = new Uint8Array(64);
    data.set(f32([1, 2]), 8);
    data.set(f32([10, 20]), 40);
    mkdirSync(join(dir, 'ok'), { recursive: true });
    writeFileSync(join(dir, 'ok', 'weights.bin'), data);
    mkdirSync(join(dir, 'ok', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'ok', 'sub', 'b.bin'), f32([100, 200]));
    const path = writeModel('ok', external('a', [2], 'weights.bin', 8, 8), external('b', [2], 'sub/b.bin'));
    const m = await loadOnnx(path, Device.cpu());
    const y = m.run({ x: Tensor.fromFloats([0.5, 0.25]) }).y!;
    assert.deepEqual(Array.from(y.toDataSync().toArray()), [101.5, 202.25]);
    assert.equal(m.numParams(), 4);
    // The data's offset 40 tensor through a URL path too.
    const path2 = writeModel('ok', external('a', [2], 'weights.bin', 40, 8), external('b', [2], 'sub/b.bin'));
    const m2 = await loadOnnx(new URL(`file://${path2}`));
    assert.deepEqual(
      Array.from(
        m2
          .run({ x: Tensor.fromFloats([0, 0]) })
          .y!.toDataSync()
          .toArray(),
      ),
      [110, 220],
    );
  });

  const escapes: [string, string][] = [
    ['a parent-folder path', '../secret.bin'],
    ['a nested parent-folder path', 'sub/../../secret.bin'],
    ['an absolute path', '/etc/passwd'],
    ['a Windows absolute path', 'C:\\secret.bin'],
    ['a backslash parent path', '..\\secret.bin'],
  ];
  for (const [what, location] of escapes) {
    it(`refuses ${what} (${location})`, async () => {
      writeFileSync(join(dir, 'secret.bin'), f32([1, 2]));
      const path = writeModel('esc', external('a', [2], location), external('b', [2], location));
      await assert.rejects(
        loadOnnx(path),
        (e: Error) =>
          e instanceof BurnError &&
          e.message.includes(`names external data '${location}'`) &&
          e.message.includes("inside the model's folder"),
      );
    });
  }

  it('refuses a symbolic link that leads out of the folder', async () => {
    writeFileSync(join(dir, 'outside.bin'), f32([1, 2]));
    mkdirSync(join(dir, 'link'), { recursive: true });
    rmSync(join(dir, 'link', 'w.bin'), { force: true });
    symlinkSync(join(dir, 'outside.bin'), join(dir, 'link', 'w.bin'));
    const path = writeModel('link', external('a', [2], 'w.bin'), external('b', [2], 'w.bin'));
    await assert.rejects(
      loadOnnx(path),
      (e: Error) => e instanceof BurnError && /resolves outside the model's folder/.test(e.message),
    );
  });

  it('names a missing file, a short file and a wrong length', async () => {
    mkdirSync(join(dir, 'bad'), { recursive: true });
    writeFileSync(join(dir, 'bad', 'short.bin'), f32([1]));
    const cases: [ReturnType<typeof external>, RegExp][] = [
      [external('a', [2], 'missing.bin'), /tensor 'a' is stored in 'missing.bin', which does not exist/],
      [external('a', [2], 'short.bin', 0, 8), /tensor 'a' reads bytes 0\.\.8 of 'short.bin', which has 4 bytes/],
      [external('a', [2], 'short.bin'), /tensor 'a' has 4 bytes of external data for dims \[2\] of FLOAT; expected 8/],
    ];
    for (const [a, re] of cases) {
      const path = writeModel('bad', a, external('b', [2], 'short.bin', 0, 4));
      await assert.rejects(loadOnnx(path), (e: Error) => e instanceof BurnError && re.test(e.message), re.source);
    }
  });

  it('needs a folder when the model comes as bytes', async () => {
    const bytes = model(
      graph({
        nodes: [node('Identity', ['a'], ['y'])],
        inputs: [],
        outputs: [value('y', T.f32)],
        initializers: [external('a', [2], 'w.bin')],
      }),
    );
    await assert.rejects(
      loadOnnx(bytes),
      (e: Error) => e instanceof BurnError && /load it from its path, or give options.baseDir/.test(e.message),
    );
    mkdirSync(join(dir, 'base'), { recursive: true });
    writeFileSync(join(dir, 'base', 'w.bin'), f32([3, 4]));
    const m = await loadOnnx(bytes, Device.cpu(), { baseDir: join(dir, 'base') });
    assert.deepEqual(Array.from(m.run({}).y!.toDataSync().toArray()), [3, 4]);
  });
});
