// Runs ONNX backend node tests (model.onnx + test_data_set_*/input_*.pb, output_*.pb) through
// burn-ts/onnx and classifies each as pass, fail or unsupported. Shared by the conformance test
// and by scripts/onnx/run-node-tests.ts (which prints the per-test detail).
import { fromBinary } from '@bufbuild/protobuf';
import { Device } from '../../src/device/device.js';
import { BurnError } from '../../src/core/errors.js';
import type { Kind } from '../../src/tensor/kind.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { TensorData } from '../../src/core/data.js';
import { loadOnnx } from '../../src/onnx/index.js';
import type { OnnxValue } from '../../src/onnx/runtime/model.js';
import type { ValueType } from '../../src/onnx/ir/types.js';
import { readTensorProto } from '../../src/onnx/parse/tensor.js';
import {
  OptionalProtoSchema,
  SequenceProtoSchema,
  type OptionalProto,
  type SequenceProto,
} from '../../src/onnx/proto/onnx/onnx-data_pb.js';
import { TensorProtoSchema, type TensorProto } from '../../src/onnx/proto/onnx/onnx-ml_pb.js';
import { parseModel } from '../../src/onnx/parse/model.js';
import { dataForDevice, deviceDType } from '../../src/onnx/ops/device-dtype.js';

/** One node test: the model bytes and its data sets (each a list of input and output .pb bytes). */
export interface NodeTest {
  readonly name: string;
  readonly model: Uint8Array;
  readonly sets: readonly { readonly inputs: readonly Uint8Array[]; readonly outputs: readonly Uint8Array[] }[];
}

/** The outcome of one test. */
export interface NodeResult {
  readonly name: string;
  readonly status: 'pass' | 'fail' | 'unsupported';
  readonly ops: readonly string[];
  readonly detail?: string;
  /** True for tests of random ops, checked on dtype, shape and range only (their values are the reference generator's). */
  readonly randomOnly?: boolean;
}

const RANDOM_OPS = new Set([
  'Bernoulli',
  'RandomNormal',
  'RandomNormalLike',
  'RandomUniform',
  'RandomUniformLike',
  'Multinomial',
]);

/** Dropout with a training_mode input draws a random mask (NumPy's generator in the reference). */
function isRandom(node: { opType: string; inputs: readonly string[] }): boolean {
  return RANDOM_OPS.has(node.opType) || (node.opType === 'Dropout' && (node.inputs[2] ?? '') !== '');
}

/** Tolerances of ONNX's backend test runner (onnx/backend/test/runner): rtol 1e-3, atol 1e-7. */
const RTOL = 1e-3;
const ATOL = 1e-7;

function tensorData(p: TensorProto, declared?: ValueType): TensorData {
  const c = readTensorProto(p);
  if (!c.data) throw new BurnError('node test', `tensor '${c.name}' of element type ${c.elem} cannot be held`);
  // NumPy has no bfloat16: ONNX's generator stores bf16 data as its uint16 bits.
  if (declared?.kind === 'tensor' && declared.elem === 'bf16' && c.data.dtype === 'u16')
    return new TensorData(c.data.values, c.data.shape, 'bf16');
  return c.data;
}

function decodeValue(bytes: Uint8Array, type: ValueType | undefined, device: Device): OnnxValue {
  if (type?.kind === 'sequence') return decodeSequence(fromBinary(SequenceProtoSchema, bytes), device);
  if (type?.kind === 'optional') return decodeOptional(fromBinary(OptionalProtoSchema, bytes), device);
  return Tensor.fromData(dataForDevice(tensorData(fromBinary(TensorProtoSchema, bytes), type), device), device);
}

function decodeSequence(s: SequenceProto, device: Device): Tensor<number, Kind>[] {
  return s.tensorValues.map((t) => Tensor.fromData(dataForDevice(tensorData(t), device), device));
}

function decodeOptional(o: OptionalProto, device: Device): OnnxValue {
  if (o.tensorValue) return Tensor.fromData(dataForDevice(tensorData(o.tensorValue), device), device);
  if (o.sequenceValue) return decodeSequence(o.sequenceValue, device);
  return undefined;
}

/** Reference outputs decode by the declared output type. */
function decodeExpected(bytes: Uint8Array, type: ValueType | undefined): TensorData[] | TensorData | undefined {
  if (type?.kind === 'sequence') return fromBinary(SequenceProtoSchema, bytes).tensorValues.map((t) => tensorData(t));
  if (type?.kind === 'optional') {
    const o = fromBinary(OptionalProtoSchema, bytes);
    if (o.tensorValue) return tensorData(o.tensorValue);
    if (o.sequenceValue) return o.sequenceValue.tensorValues.map((t) => tensorData(t));
    return undefined;
  }
  return tensorData(fromBinary(TensorProtoSchema, bytes), type);
}

function compare(
  name: string,
  got: TensorData,
  want: TensorData,
  randomOnly: boolean,
  device: Device,
): string | undefined {
  // Devices without 64-bit types give i32/f32 where ONNX says i64/f64.
  if (got.dtype !== deviceDType(want.dtype, device)) return `${name}: dtype ${got.dtype}, expected ${want.dtype}`;
  if (got.shape.length !== want.shape.length || got.shape.some((d, i) => d !== want.shape[i]))
    return `${name}: shape [${got.shape}], expected [${want.shape}]`;
  if (randomOnly) return undefined;
  const a = got.dtype === want.dtype ? got.values : got.toArray();
  const b = want.dtype === got.dtype ? want.values : want.toArray();
  for (let i = 0; i < b.length; i++) {
    const x = Number(a[i]!);
    const y = Number(b[i]!);
    if (Number.isNaN(y) ? Number.isNaN(x) : x === y || Math.abs(x - y) <= ATOL + RTOL * Math.abs(y)) continue;
    if (got.dtype === 'f16' || got.dtype === 'bf16') {
      const xf = got.toArray()[i]!;
      const yf = want.toArray()[i]!;
      if (Math.abs(xf - yf) <= ATOL + RTOL * Math.abs(yf)) continue;
      return `${name}[${i}] = ${xf}, expected ${yf}`;
    }
    return `${name}[${i}] = ${x}, expected ${y}`;
  }
  return undefined;
}

/** Runs one node test on `device`. */
export async function runNodeTest(test: NodeTest, device: Device = Device.cpu()): Promise<NodeResult> {
  let ops: string[] = [];
  let randomOnly = false;
  let types: { inputs: (ValueType | undefined)[]; outputs: (ValueType | undefined)[] };
  try {
    const ir = parseModel(test.model);
    ops = [...new Set(ir.graph.nodes.map((n) => (n.domain ? `${n.domain}.${n.opType}` : n.opType)))];
    randomOnly = ir.graph.nodes.some(isRandom);
    types = { inputs: ir.graph.inputs.map((v) => v.type), outputs: ir.graph.outputs.map((v) => v.type) };
  } catch (e) {
    return { name: test.name, status: 'fail', ops, detail: `parse: ${(e as Error).message}` };
  }
  let model;
  try {
    model = await loadOnnx(test.model, device);
  } catch (e) {
    const msg = (e as Error).message;
    const unsupported = msg.includes('unsupported item');
    return {
      name: test.name,
      status: unsupported ? 'unsupported' : 'fail',
      ops,
      detail: msg.split('\n').slice(0, 4).join(' | '),
    };
  }
  // Devices that cannot read synchronously (WebGPU) run through runValuesAsync.
  let readsSync = true;
  try {
    Tensor.zeros([1], device).toDataSync();
  } catch {
    readsSync = false;
  }
  try {
    for (const set of test.sets) {
      const feeds: Record<string, OnnxValue> = {};
      model.inputs.forEach((info, i) => {
        if (set.inputs[i] !== undefined) feeds[info.name] = decodeValue(set.inputs[i]!, types.inputs[i], device);
      });
      const outs = readsSync ? model.runValues(feeds) : await model.runValuesAsync(feeds);
      for (let i = 0; i < model.outputs.length; i++) {
        const name = model.outputs[i]!.name;
        const want = decodeExpected(set.outputs[i]!, types.outputs[i]);
        const got = outs[name];
        if (want === undefined) {
          if (got !== undefined)
            return { name: test.name, status: 'fail', ops, detail: `${name}: expected an empty optional` };
          continue;
        }
        if (Array.isArray(want)) {
          if (!Array.isArray(got) || got.length !== want.length)
            return { name: test.name, status: 'fail', ops, detail: `${name}: expected a sequence of ${want.length}` };
          for (let k = 0; k < want.length; k++) {
            const err = compare(`${name}[${k}]`, await got[k]!.toData(), want[k]!, randomOnly, device);
            if (err) return { name: test.name, status: 'fail', ops, detail: err };
          }
          continue;
        }
        if (got === undefined || Array.isArray(got))
          return { name: test.name, status: 'fail', ops, detail: `${name}: expected a tensor` };
        const err = compare(name, await got.toData(), want, randomOnly, device);
        if (err) return { name: test.name, status: 'fail', ops, detail: err };
      }
    }
  } catch (e) {
    return { name: test.name, status: 'fail', ops, detail: `run: ${(e as Error).message.split('\n')[0]}` };
  }
  return { name: test.name, status: 'pass', ops, randomOnly };
}
