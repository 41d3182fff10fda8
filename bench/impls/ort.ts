/**
 * onnxruntime-node on its CPU execution provider: each case is a one-node ONNX model built in
 * memory (bench/impls/onnx-proto.ts), run through an `InferenceSession`. `session.run` is
 * asynchronous; awaiting it is the synchronization point (its outputs are host arrays).
 */
import { createRequire } from 'node:module';
import { errorText, inProcessImpl } from '../lib/measure.js';
import { NotAvailable, type BenchCase, type Impl, type Prepared } from '../lib/types.js';
import { encodeOneOpModel, type OneOpModel } from './onnx-proto.js';
import { prepareOrtOnnx } from './ort-onnx.js';

type Ort = typeof import('onnxruntime-node');

/** Threads of ORT's intra-op pool (the machine's two cores). */
const ORT_THREADS = 2;
const OPSET = 17;

function modelOf(c: BenchCase): OneOpModel {
  const inputs = c.inputs.map((s, k) => ({ name: `x${k}`, shape: s.shape }));
  const names = inputs.map((i) => i.name);
  const base = { inputs, nodeInputs: names, opset: OPSET };
  switch (c.op) {
    case 'add':
      return { ...base, opType: 'Add' };
    case 'mul':
      return { ...base, opType: 'Mul' };
    case 'mulScalar':
      return {
        ...base,
        opType: 'Mul',
        nodeInputs: [...names, 's'],
        initializers: [{ name: 's', shape: [], values: [c.attrs?.scalar ?? 2] }],
      };
    case 'matmul':
      return { ...base, opType: 'MatMul' };
    case 'exp':
      return { ...base, opType: 'Exp' };
    case 'sum':
      return { ...base, opType: 'ReduceSum', attrs: [{ name: 'keepdims', int: 0 }] };
    case 'softmax':
      return { ...base, opType: 'Softmax', attrs: [{ name: 'axis', int: c.attrs?.dim ?? -1 }] };
    case 'transposeCopy':
      return { ...base, opType: 'Transpose', attrs: [{ name: 'perm', ints: [1, 0] }] };
    case 'conv2d': {
      const p = c.attrs?.padding ?? 0;
      const [kh, kw] = c.inputs[1]!.shape.slice(2);
      return {
        ...base,
        opType: 'Conv',
        attrs: [
          { name: 'kernel_shape', ints: [kh!, kw!] },
          { name: 'pads', ints: [p, p, p, p] },
          { name: 'strides', ints: [1, 1] },
        ],
      };
    }
    case 'mlpStep':
    case 'convnetStep':
    case 'adamStep':
    case 'mnistTrainStep':
      throw new NotAvailable('onnxruntime-node runs inference only (no gradients)');
    case 'storeSave':
    case 'storeLoad':
      throw new NotAvailable('the file cases compare burn-ts with torch.save/torch.load only');
    case 'onnxRun':
    case 'onnxLoad':
      throw new NotAvailable(`${c.op} runs a model file (impls/ort-onnx.ts)`);
  }
}

/** The onnxruntime-node column. */
export function ortImpl(): Impl {
  let ort: Ort | undefined;
  return inProcessImpl({
    name: 'onnxruntime',
    isBurn: false,
    async init() {
      try {
        ort = await import('onnxruntime-node');
      } catch (e) {
        throw new NotAvailable(`onnxruntime-node is not installed (${errorText(e)})`);
      }
      const version = (createRequire(import.meta.url)('onnxruntime-node/package.json') as { version: string }).version;
      return `onnxruntime-node ${version}, CPU execution provider, ${ORT_THREADS} intra-op threads`;
    },
    async prepare(c, inputs): Promise<Prepared> {
      if (c.metric.kind === 'decorator')
        throw new NotAvailable("burn-ts's autodiff decorator only (ONNX Runtime has no such layer)");
      const lib = ort!;
      if (c.family === 'onnx') return prepareOrtOnnx(lib, c, inputs, ORT_THREADS);
      const session = await lib.InferenceSession.create(encodeOneOpModel(modelOf(c)), {
        executionProviders: ['cpu'],
        intraOpNumThreads: ORT_THREADS,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
      const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
      inputs.forEach((values, k) => {
        feeds[`x${k}`] = new lib.Tensor('float32', values, [...c.inputs[k]!.shape]);
      });
      return {
        run: () => session.run(feeds),
        isAsync: true,
        async output() {
          const out = (await session.run(feeds))['y']!;
          return new Float32Array(out.data as Float32Array);
        },
        dispose() {
          void session.release();
        },
      };
    },
  });
}
