/**
 * onnxruntime-node's side of the ONNX rows (cases/onnx.ts): an `InferenceSession` on the
 * exported file (CPU execution provider, 2 intra-op threads, all graph optimizations), `run`
 * awaited; the load row times `InferenceSession.create` from the file.
 */
import { onnxModelPath } from '../lib/onnx-models.js';
import { NotAvailable, type BenchCase, type Prepared } from '../lib/types.js';

type Ort = typeof import('onnxruntime-node');

/** The session options of every ORT column (the same as the single-op cases'). */
export function sessionOptions(threads: number): import('onnxruntime-node').InferenceSession.SessionOptions {
  return {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
}

/** An ONNX case on onnxruntime-node. */
export async function prepareOrtOnnx(
  ort: Ort,
  c: BenchCase,
  inputs: readonly Float32Array[],
  threads: number,
): Promise<Prepared> {
  const name = c.attrs?.model;
  if (!name) throw new NotAvailable(`${c.id} names no model`);
  const path = await onnxModelPath(name);
  const session = await ort.InferenceSession.create(path, sessionOptions(threads));
  const feeds = { [session.inputNames[0]!]: new ort.Tensor('float32', inputs[0]!, [...c.inputs[0]!.shape]) };
  const output = async () => {
    const out = (await session.run(feeds))[session.outputNames[0]!]!;
    return new Float32Array(out.data as Float32Array);
  };
  if (c.op === 'onnxLoad') {
    return {
      run: async () => (await ort.InferenceSession.create(path, sessionOptions(threads))).release(),
      isAsync: true,
      output,
      dispose() {
        void session.release();
      },
    };
  }
  return {
    run: () => session.run(feeds),
    isAsync: true,
    output,
    dispose() {
      void session.release();
    },
  };
}
