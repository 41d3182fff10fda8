// Real models exported by torch.onnx.export (test/fixtures/onnx/models, made by
// scripts/onnx/gen_models.py with random weights): a small ResNet and MobileNetV2 (CNNs), a
// transformer encoder over integer tokens, a bidirectional LSTM + GRU, and an encoder-decoder
// with ConvTranspose and Resize — at opsets 13 and 17, with dynamic batch (and sequence) axes.
// Outputs must equal PyTorch's within float32 tolerance; a smaller batch must give the same rows.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Device, Tensor, TensorData, type DType } from '../../src/index.js';
import { loadOnnx } from '../../src/onnx/index.js';
import { webgpu } from '../helpers/devices.js';

const dir = new URL('../fixtures/onnx/models/', import.meta.url);

interface Fixture {
  inputs: Record<string, { dtype: string; shape: number[]; data: number[] }>;
  outputs: Record<string, { shape: number[]; data: number[] }>;
  opset: number;
}

const DTYPES: Record<string, DType> = { float32: 'f32', int64: 'i64', int32: 'i32' };

function readFixture(name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8')) as Fixture;
}

function assertClose(name: string, got: ArrayLike<number>, want: readonly number[], tol: number): void {
  assert.equal(got.length, want.length, `${name}: ${got.length} values, PyTorch has ${want.length}`);
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i]! - want[i]!) / Math.max(1, Math.abs(want[i]!));
    if (!(err <= tol)) assert.fail(`${name}[${i}] = ${got[i]}, PyTorch ${want[i]}`);
    worst = Math.max(worst, err);
  }
}

const names = readdirSync(dir)
  .filter((f) => f.endsWith('.onnx'))
  .map((f) => f.slice(0, -5))
  .sort();

describe('ONNX models exported by PyTorch', () => {
  it('has the fixtures', () =>
    assert.deepEqual(names, [
      'mobilenet_v2',
      'recurrent',
      'resnet_opset13',
      'resnet_opset17',
      'transformer_opset13',
      'transformer_opset17',
      'unet',
    ]));

  for (const name of names) {
    it(`${name}: outputs equal PyTorch's, on the full batch and on its first entry`, async () => {
      const fx = readFixture(name);
      const device = Device.cpu();
      const model = await loadOnnx(new URL(`${name}.onnx`, dir), device);
      assert.equal(model.opsets.get(''), fx.opset);
      const feeds = Object.fromEntries(
        Object.entries(fx.inputs).map(([k, v]) => [
          k,
          Tensor.fromData(new TensorData(v.data, v.shape, DTYPES[v.dtype]!), device),
        ]),
      );
      const outs = model.run(feeds);
      for (const [k, want] of Object.entries(fx.outputs)) {
        assert.deepEqual(outs[k]!.dims(), want.shape, `${k} shape`);
        assertClose(k, outs[k]!.toDataSync().toArray(), want.data, 2e-4);
      }
      // Dynamic batch: the first entry alone gives the first rows (batch is dim 0 of every input and
      // output here, except the recurrent state [layers, batch, hidden]).
      const first = Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, t.slice([[0, 1]])]));
      const one = model.run(first);
      for (const [k, want] of Object.entries(fx.outputs)) {
        const batchDim = k === 'state' ? 1 : 0;
        const rows = Tensor.fromData(new TensorData(want.data, want.shape, 'f32')).sliceDim(batchDim, [0, 1]);
        assertClose(`${k} (batch 1)`, one[k]!.toDataSync().toArray(), Array.from(rows.toDataSync().toArray()), 2e-4);
      }
    });
  }

  it('gives the same outputs on the js and wasm CPU engines', async () => {
    for (const engine of ['js', 'wasm'] as const) {
      let device: Device;
      try {
        device = Device.cpu({ engine });
      } catch {
        continue; // the wasm module may be unbuilt; the default engine ran above
      }
      for (const name of ['resnet_opset13', 'transformer_opset13', 'recurrent', 'unet']) {
        const fx = readFixture(name);
        const model = await loadOnnx(new URL(`${name}.onnx`, dir), device);
        const feeds = Object.fromEntries(
          Object.entries(fx.inputs).map(([k, v]) => [
            k,
            Tensor.fromData(new TensorData(v.data, v.shape, DTYPES[v.dtype]!), device),
          ]),
        );
        const outs = model.run(feeds);
        for (const [k, want] of Object.entries(fx.outputs))
          assertClose(`${engine} ${name} ${k}`, outs[k]!.toDataSync().toArray(), want.data, 2e-4);
      }
    }
  });

  it('runs on WebGPU (i64 index math as i32 there) with the same outputs', {
    skip: webgpu.reason ? `no WebGPU device: ${webgpu.reason}` : false,
  }, async () => {
    const gpu = webgpu.device!;
    for (const name of ['resnet_opset17', 'unet', 'transformer_opset17', 'recurrent']) {
      const fx = readFixture(name);
      const model = await loadOnnx(new URL(`${name}.onnx`, dir), gpu);
      // WGSL has no 64-bit integers: integer inputs go in as i32.
      const feeds = Object.fromEntries(
        Object.entries(fx.inputs).map(([k, v]) => [
          k,
          Tensor.fromData(new TensorData(v.data, v.shape, v.dtype === 'int64' ? 'i32' : DTYPES[v.dtype]!), gpu),
        ]),
      );
      const outs = model.run(feeds);
      for (const [k, want] of Object.entries(fx.outputs))
        assertClose(`${name} ${k}`, (await outs[k]!.toData()).toArray(), want.data, 2e-4);
    }
  });

  it('the transformer takes another sequence length (symbolic seq axis)', async () => {
    const model = await loadOnnx(new URL('transformer_opset17.onnx', dir), Device.cpu());
    assert.deepEqual(model.inputs[0]!.shape, ['batch', 'seq']);
    const tokens = Tensor.fromData(new TensorData([1, 2, 3, 4, 5], [1, 5], 'i64'));
    assert.deepEqual(model.run({ tokens }).logits!.dims(), [1, 5]);
  });
});
