// Corrupted models end in a BurnError, never another exception: random byte changes to real
// exports are loaded (parse, sort, checks, inference, folding) and, when they still load, run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BurnError, Device, Tensor, type Kind } from '../../src/index.js';
import { loadOnnx } from '../../src/onnx/index.js';

const models = [
  '../api-contract/fixtures/tiny.onnx',
  '../fixtures/onnx/models/transformer_opset17.onnx',
  '../fixtures/onnx/models/recurrent.onnx',
].map((p) => readFileSync(new URL(p, import.meta.url)));

describe('ONNX: corrupted models', () => {
  it('load and run with byte flips: only BurnErrors escape', { timeout: 120_000 }, async () => {
    let loaded = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(models.length - 1),
        fc.array(fc.tuple(fc.nat(1 << 20), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        async (which, flips) => {
          const bytes = Uint8Array.from(models[which]!);
          for (const [i, v] of flips) bytes[i % bytes.length] = v;
          const only = (e: unknown) =>
            assert.ok(e instanceof BurnError, `${(e as Error).name}: ${(e as Error).message}\n${(e as Error).stack}`);
          let model;
          try {
            model = await loadOnnx(bytes, Device.cpu());
          } catch (e) {
            return only(e);
          }
          loaded++;
          const feeds: Record<string, Tensor<number, Kind>> = {};
          for (const info of model.inputs) {
            const shape = info.shape.map((d) => (typeof d === 'number' ? d : 2));
            feeds[info.name] = info.dtype === 'i64' ? Tensor.zeros(shape, { dtype: 'i64' }) : Tensor.ones(shape);
          }
          try {
            model.run(feeds);
          } catch (e) {
            only(e);
          }
        },
      ),
      { numRuns: 150, seed: 20 },
    );
    assert.ok(loaded > 10, `only ${loaded} corrupted models loaded: the run half was barely exercised`);
  });
});
