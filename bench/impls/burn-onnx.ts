/**
 * burn-ts's side of the ONNX rows (cases/onnx.ts): `loadOnnx` on the column's device, then
 * `model.run` timed (CPU ops finish inside the call); each run's output is released before the
 * next. The load row times `loadOnnx` from the file (parse, simplify, parameters).
 */
import { Tensor, TensorData, type Device } from '../../src/index.js';
import { loadOnnx, type OnnxModel } from '../../src/onnx/index.js';
import { onnxModelPath } from '../lib/onnx-models.js';
import { NotAvailable, type BenchCase, type Prepared } from '../lib/types.js';

/** The one output of a bench model's run, as host floats. */
function outputOf(model: OnnxModel, feeds: Record<string, Tensor<number>>): Float32Array {
  const out = Object.values(model.run(feeds))[0]!;
  const values = out.toDataSync().values;
  out.dispose();
  return values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>);
}

/** An ONNX case on `device`. */
export async function prepareOnnx(c: BenchCase, inputs: readonly Float32Array[], device: Device): Promise<Prepared> {
  const name = c.attrs?.model;
  if (!name) throw new NotAvailable(`${c.id} names no model`);
  const path = await onnxModelPath(name);
  const model = await loadOnnx(path, device);
  const input = model.inputs[0]!.name;
  const feeds = { [input]: Tensor.fromData(new TensorData(inputs[0]!, c.inputs[0]!.shape, 'f32'), device) };
  if (c.op === 'onnxLoad') {
    return {
      run: () => loadOnnx(path, device),
      isAsync: true,
      output: async () => outputOf(model, feeds),
      dispose() {},
    };
  }
  if (c.op !== 'onnxRun') throw new NotAvailable(`${c.op} is not an ONNX case`);
  let last: Tensor[] = [];
  return {
    run: () => {
      for (const t of last) t.dispose();
      last = Object.values(model.run(feeds));
      return last;
    },
    isAsync: false,
    output: async () => outputOf(model, feeds),
    dispose() {
      for (const t of last) t.dispose();
      last = [];
    },
  };
}
