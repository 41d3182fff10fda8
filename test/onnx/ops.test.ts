// Operators and opset versions beyond onnx 1.12's node tests (opsets 18-20, Col2Im, AffineGrid,
// CenterCropPad, DeformConv, MaxRoiPool, antialiased Resize…): single-node models with outputs
// computed by PyTorch / torchvision / NumPy (test/fixtures/onnx/op-cases.json, made by
// scripts/onnx/gen_op_cases.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Device, Tensor, TensorData, type DType } from '../../src/index.js';
import { loadOnnx } from '../../src/onnx/index.js';

interface Encoded {
  dtype: string;
  shape: number[];
  data: number[];
}
interface Case {
  name: string;
  op: string;
  opset: number;
  model: string;
  inputs: Record<string, Encoded>;
  outputs: Record<string, Encoded>;
}

const cases = JSON.parse(readFileSync(new URL('../fixtures/onnx/op-cases.json', import.meta.url), 'utf8')) as Case[];
const DTYPES: Record<string, DType> = {
  float32: 'f32',
  float64: 'f64',
  int64: 'i64',
  int32: 'i32',
  int8: 'i8',
  uint8: 'u8',
  bool: 'bool',
};

describe('ONNX operators checked against PyTorch / NumPy', () => {
  for (const c of cases) {
    it(`${c.name} (${c.op}, opset ${c.opset})`, async () => {
      const m = await loadOnnx(Buffer.from(c.model, 'base64'), Device.cpu());
      const feeds = Object.fromEntries(
        Object.entries(c.inputs).map(([k, v]) => [
          k,
          Tensor.fromData(new TensorData(v.data, v.shape, DTYPES[v.dtype]!)),
        ]),
      );
      const outs = m.run(feeds);
      for (const [k, want] of Object.entries(c.outputs)) {
        const got = outs[k]!;
        assert.equal(got.dtype(), DTYPES[want.dtype], `${k} dtype`);
        assert.deepEqual(got.dims(), want.shape, `${k} shape`);
        const values = got.toDataSync().toArray();
        want.data.forEach((w, i) =>
          assert.ok(
            Math.abs(values[i]! - w) <= 1e-4 * Math.max(1, Math.abs(w)),
            `${k}[${i}] = ${values[i]}, expected ${w}`,
          ),
        );
      }
    });
  }
});
