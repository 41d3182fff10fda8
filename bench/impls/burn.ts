/**
 * burn-ts on the CPU device with the `js` engine (and, as `burn-ts(native)`, the native addon), imported from src/ (tsx strips the types; the
 * code is the same as the built package's, and the type check never depends on a stale dist/).
 * CPU ops finish inside the call, so a call's return is its synchronization point (`--readback`
 * adds `toDataSync()`). The autodiff cases are in burn-autodiff.ts, the training-throughput case in
 * burn-train.ts.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Device, functional, type Tensor } from '../../src/index.js';
import { nativeAddon, nativeUnavailableReason } from '../../src/backends/cpu/native/index.js';
import { wasmRuntime, wasmUnavailableReason } from '../../src/backends/cpu/wasm/index.js';
import { inProcessImpl } from '../lib/measure.js';
import { prepareDecorator, prepareStep, tensorsOf } from './burn-autodiff.js';
import { prepareOnnx } from './burn-onnx.js';
import { prepareStore } from './burn-store.js';
import { prepareOptim } from './burn-optim.js';
import { prepareTrain } from './burn-train.js';
import { NotAvailable, referenceFigures, type BenchCase, type Impl, type Prepared } from '../lib/types.js';

type FloatTensor = Tensor<number>;
/** The timed call of a single-op case on tensors `t` (on any device; the WebGPU column uses it too). */
export function body(c: BenchCase, t: readonly FloatTensor[]): () => FloatTensor {
  const [a, b] = [t[0]!, t[1]];
  switch (c.op) {
    case 'add':
      return () => a.add(b!);
    case 'mul':
      return () => a.mul(b!);
    case 'mulScalar': {
      const s = c.attrs?.scalar ?? 2;
      return () => a.mul(s);
    }
    case 'matmul':
      return () => a.matmul(b!);
    case 'exp':
      return () => a.exp();
    case 'sum':
      return () => a.sum();
    case 'softmax': {
      const dim = c.attrs?.dim ?? -1;
      return () => a.softmax(dim);
    }
    // A transposed tensor is a strided view; flattening it makes the contiguous copy.
    case 'transposeCopy':
      return () => a.transpose().flatten(0, 1);
    case 'conv2d': {
      const p = c.attrs?.padding ?? 0;
      const options = { stride: [1, 1], padding: [p, p], dilation: [1, 1], groups: 1 };
      return () => functional.conv2d(a as Tensor<4>, b as Tensor<4>, undefined, options);
    }
    case 'mlpStep':
    case 'convnetStep':
    case 'adamStep':
    case 'mnistTrainStep':
      throw new NotAvailable(`${c.op} is a training step, not a single op`);
    case 'storeSave':
    case 'storeLoad':
      throw new NotAvailable(`${c.op} is a file case (impls/burn-store.ts)`);
    case 'onnxRun':
    case 'onnxLoad':
      throw new NotAvailable(`${c.op} is a model case (impls/burn-onnx.ts)`);
  }
}

/**
 * A full garbage collection (untimed, before each case): the previous cases' dead tensors go back
 * to the allocator, so a case starts on a clean heap instead of paying first-touch page faults for
 * fresh memory until V8 happens to collect (PyTorch frees each tensor as soon as it dies).
 */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * The machine's copy bandwidth in bytes/s, the way the elementwise rows count bytes (read +
 * written): the median of 25 multi-threaded copies of 4M f32 by the native addon. The highest
 * figure of the run becomes the `memcpy` reference of the elementwise targets (GB/s), so a
 * measurement taken while the machine was busy cannot make them easier.
 */
function measureCopyBandwidth(): number {
  const addon = nativeAddon();
  if (!addon) return Number.NaN;
  const bw = [...Array(25)].map(() => addon.bandwidth(4 * 1024 * 1024, 1)).sort((x, y) => x - y)[12]!;
  referenceFigures.set('memcpy', Math.max(referenceFigures.get('memcpy') ?? 0, bw / 1e9));
  return bw;
}

/**
 * A burn-ts column: `burn-ts` on the `js` engine (1 thread), `burn-ts(native)` on the native addon
 * (its thread pool; n/a when the addon is not built), `burn-ts(wasm)` on the WebAssembly engine
 * (SIMD128, `BURN_NUM_THREADS` worker threads, default the cores). `readback` adds `toDataSync()` (a copy into
 * `TensorData`) to the timed body.
 */
export function burnImpl(options: { readback: boolean; engine?: 'js' | 'native' | 'wasm' }): Impl {
  const engine = options.engine ?? 'js';
  let device = undefined as unknown as Device;
  return inProcessImpl({
    name: engine === 'js' ? 'burn-ts' : `burn-ts(${engine})`,
    isBurn: true,
    async init() {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      };
      if (engine === 'js') {
        device = Device.cpu({ engine });
        return `burn-ts ${pkg.version}, ${device.toString()}, 1 thread`;
      }
      if (engine === 'wasm') {
        const runtime = wasmRuntime();
        if (!runtime) throw new NotAvailable(`wasm engine unavailable: ${wasmUnavailableReason()}`);
        device = Device.cpu({ engine });
        return `burn-ts ${pkg.version}, ${device.toString()}: WebAssembly SIMD128, ${runtime.threads} thread${runtime.threads === 1 ? '' : 's'} (${runtime.variant === 'mt' ? 'shared memory' : 'single-threaded module'})`;
      }
      const addon = nativeAddon();
      if (!addon) throw new NotAvailable(`native engine unavailable: ${nativeUnavailableReason()}`);
      device = Device.cpu({ engine });
      const { isa, threads } = addon.info();
      const bw = measureCopyBandwidth();
      return `burn-ts ${pkg.version}, ${device.toString()}: ${isa} kernels, ${threads} threads; memcpy of 4M f32 (read + written): ${(bw / 1e9).toFixed(1)} GB/s`;
    },
    async prepare(c, inputs): Promise<Prepared> {
      collectGarbage();
      // The elementwise targets are fractions of the copy bandwidth: measured again next to them.
      if (engine === 'native' && c.family === 'elementwise') measureCopyBandwidth();
      if (c.metric.kind === 'step') return prepareStep(c, inputs, device);
      if (c.op === 'adamStep') return prepareOptim(c, inputs, device);
      if (c.op === 'mnistTrainStep') return prepareTrain(c, inputs, device);
      if (c.op === 'storeSave' || c.op === 'storeLoad') return prepareStore(c, inputs, device);
      if (c.family === 'onnx') return prepareOnnx(c, inputs, device);
      if (c.metric.kind === 'decorator') return prepareDecorator(c, inputs, device, body, options.readback);
      const tensors = tensorsOf(c, inputs, device);
      const run = body(c, tensors);
      let last: FloatTensor | undefined;
      // Each call releases the previous output, as the tfjs column disposes its own (PyTorch frees
      // it by reference counting): its memory then serves the next output.
      const next = (): FloatTensor => {
        last?.dispose();
        return (last = run());
      };
      return {
        run: options.readback ? () => next().toDataSync() : next,
        isAsync: false,
        async output() {
          const values = (last ?? run()).toDataSync().values;
          return values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>);
        },
        dispose() {
          last = undefined;
        },
      };
    },
  });
}
