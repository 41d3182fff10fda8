/**
 * TensorFlow.js (`@tensorflow/tfjs-core`) with its `cpu` backend (plain JS kernels) and its
 * `wasm` backend (XNNPACK, SIMD, one thread; the binary is read from node_modules, never
 * fetched). Both backends compute inside the op call, so a call's return is its synchronization
 * point (`--readback` adds `dataSync()`). Outputs are disposed inside the timed body, as tfjs
 * code must. Convolutions run in tfjs's native NHWC layout (the wasm backend has no NCHW).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { errorText, inProcessImpl } from '../lib/measure.js';
import { NotAvailable, type BenchCase, type Impl, type Prepared } from '../lib/types.js';

type Tf = typeof import('@tensorflow/tfjs-core');
type TfTensor = import('@tensorflow/tfjs-core').Tensor;

let core: Promise<Tf> | undefined;

/** Loads tfjs-core once (shared by both columns) in production mode (no console warnings). */
function loadCore(): Promise<Tf> {
  core ??= import('@tensorflow/tfjs-core').then((tf) => {
    tf.enableProdMode();
    return tf;
  });
  return core;
}

async function need<T>(load: () => Promise<T>, what: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw new NotAvailable(`${what} is not installed (${errorText(e)})`);
  }
}

/** The op as tfjs calls it; `x` and `w` come NCHW / OIHW and were moved to NHWC / HWIO. */
function body(tf: Tf, c: BenchCase, t: readonly TfTensor[]): () => TfTensor {
  const [a, b] = [t[0]!, t[1]];
  switch (c.op) {
    case 'add':
      return () => tf.add(a, b!);
    case 'mul':
      return () => tf.mul(a, b!);
    case 'mulScalar': {
      const s = c.attrs?.scalar ?? 2;
      return () => tf.mul(a, s);
    }
    case 'matmul':
      return () => tf.matMul(a, b!);
    case 'exp':
      return () => tf.exp(a);
    case 'sum':
      return () => tf.sum(a);
    case 'softmax': {
      const dim = c.attrs?.dim ?? -1;
      return () => tf.softmax(a, dim);
    }
    case 'transposeCopy':
      return () => tf.transpose(a);
    case 'conv2d': {
      const p = c.attrs?.padding ?? 0;
      return () =>
        tf.conv2d(
          a as import('@tensorflow/tfjs-core').Tensor4D,
          b as import('@tensorflow/tfjs-core').Tensor4D,
          1,
          p,
          'NHWC',
        );
    }
    // tf.variableGrads runs forward and backward in one call: no forward time to divide by.
    case 'mlpStep':
    case 'convnetStep':
      throw new NotAvailable(
        'tfjs runs forward and backward in one call (tf.variableGrads), so there is no separate backward time',
      );
    case 'adamStep':
      throw new NotAvailable('the optimizer case compares burn-ts with torch.optim.Adam only');
    case 'mnistTrainStep':
      throw new NotAvailable(
        "the MNIST training step compares burn-ts's nn layers and Adam with torch.nn / torch.optim only (tfjs-core has no layers API)",
      );
    case 'storeSave':
    case 'storeLoad':
      throw new NotAvailable('the file cases compare burn-ts with torch.save/torch.load only');
    case 'onnxRun':
    case 'onnxLoad':
      throw new NotAvailable('the ONNX model cases compare burn-ts with onnxruntime-node only');
  }
}

/** A tfjs column on `backend` (`cpu` or `wasm`); `readback` adds `dataSync()` to the timed body. */
export function tfjsImpl(backend: 'cpu' | 'wasm', options: { readback: boolean }): Impl {
  let tf: Tf | undefined;
  return inProcessImpl({
    name: `tfjs-${backend}`,
    isBurn: false,
    async init() {
      const lib = await need(loadCore, '@tensorflow/tfjs-core');
      const require = createRequire(import.meta.url);
      const version = (require('@tensorflow/tfjs-core/package.json') as { version: string }).version;
      if (backend === 'cpu') {
        await need(() => import('@tensorflow/tfjs-backend-cpu'), '@tensorflow/tfjs-backend-cpu');
      } else {
        const wasm = await need(() => import('@tensorflow/tfjs-backend-wasm'), '@tensorflow/tfjs-backend-wasm');
        wasm.setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
        lib.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
        wasm.setThreadsCount(1);
      }
      if (!(await lib.setBackend(backend))) throw new NotAvailable(`tfjs backend '${backend}' failed to initialize`);
      await lib.ready();
      tf = lib;
      const simd = backend === 'wasm' ? (lib.env().getBool('WASM_HAS_SIMD_SUPPORT') ? ', SIMD' : ', no SIMD') : '';
      return `@tensorflow/tfjs-core ${version}, backend ${backend}${simd}, 1 thread`;
    },
    async prepare(c, inputs): Promise<Prepared> {
      if (c.metric.kind === 'decorator')
        throw new NotAvailable("burn-ts's autodiff decorator only (tfjs has no such layer)");
      const lib = tf!;
      await lib.setBackend(backend);
      let tensors = inputs.map((values, k) => lib.tensor(values, [...c.inputs[k]!.shape], 'float32'));
      if (c.op === 'conv2d') {
        const [x, w] = tensors as [TfTensor, TfTensor];
        tensors = [lib.transpose(x, [0, 2, 3, 1]), lib.transpose(w, [2, 3, 1, 0])];
        x.dispose();
        w.dispose();
      }
      const op = body(lib, c, tensors);
      const run = options.readback
        ? () => {
            const y = op();
            y.dataSync();
            y.dispose();
          }
        : () => {
            op().dispose();
          };
      return {
        run,
        isAsync: false,
        async output() {
          await lib.setBackend(backend);
          const y = op();
          const nchw = c.op === 'conv2d' ? lib.transpose(y, [0, 3, 1, 2]) : y;
          const values = new Float32Array(nchw.dataSync());
          if (nchw !== y) nchw.dispose();
          y.dispose();
          return values;
        },
        dispose() {
          for (const t of tensors) t.dispose();
        },
      };
    },
  });
}
