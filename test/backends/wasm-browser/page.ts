// The page of the wasm-engine browser test (bundled by ../wasm-browser.test.ts with esbuild): loads
// the engine as a page must (`await Device.cpuAsync`), runs threaded and streamed kernels, and
// compares them with the js engine in the same page.
import { wasmRuntime } from '../../../src/backends/cpu/wasm/index.js';
import { Device, Distribution, Tensor, TensorData, type Float } from '../../../src/index.js';

/** What the page reports to the test. */
export interface WasmPageResult {
  /** `crossOriginIsolated` of the page. */
  readonly isolated: boolean;
  readonly device: string;
  /** The module variant the engine loaded (`mt`: shared memory and workers, `st`: one thread). */
  readonly variant: string;
  readonly threads: number;
  /** Jobs the Web Workers ran (0 without workers). */
  readonly workerJobs: number;
  /** Largest |wasm − js| / (1 + |js|) per op. */
  readonly errors: Record<string, number>;
  /** Whether a uniform draw equals the js engine's bit for bit. */
  readonly sameRandom: boolean;
}

/** Deterministic values in [-1, 1). */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = (seed * 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

async function run(): Promise<WasmPageResult> {
  const wasm = await Device.cpuAsync({ engine: 'wasm' });
  const js = Device.cpu({ engine: 'js' });
  const runtime = wasmRuntime()!;
  const tensor = (shape: number[], seed: number, device: Device): Tensor<number, Float> =>
    Tensor.fromData(
      new TensorData(
        values(
          shape.reduce((a, b) => a * b, 1),
          seed,
        ),
        shape,
        'f32',
      ),
      device,
    );
  const ops: Record<string, (d: Device) => Tensor<number, Float>> = {
    matmul: (d) => tensor([256, 256], 1, d).matmul(tensor([256, 256], 2, d)),
    add: (d) => tensor([100003], 3, d).add(tensor([100003], 4, d).mul(0.5)),
    exp: (d) => tensor([100003], 5, d).mul(4).exp(),
    softmax: (d) => tensor([301, 257], 6, d).mul(3).softmax(1),
  };
  const errors: Record<string, number> = {};
  for (const [name, op] of Object.entries(ops)) {
    const got = (await op(wasm).toData()).values as Float32Array,
      want = (await op(js).toData()).values as Float32Array;
    errors[name] =
      got.length === want.length
        ? want.reduce((worst, w, i) => Math.max(worst, Math.abs(got[i]! - w) / (1 + Math.abs(w))), 0)
        : Infinity;
  }
  // Workers start asynchronously: give them a few products to join.
  const a = tensor([256, 256], 7, wasm),
    b = tensor([256, 256], 8, wasm);
  const workerJobs = () =>
    runtime
      .jobsRun()
      .slice(1)
      .reduce((s, n) => s + n, 0);
  for (let i = 0; i < 50 && runtime.threads > 1 && workerJobs() === 0; i++) {
    a.matmul(b);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  wasm.seed(5);
  js.seed(5);
  const draw = async (d: Device) =>
    Array.from(
      (await Tensor.random([70001], Distribution.Uniform(-1, 2), { device: d }).toData()).values as Float32Array,
    );
  const [r1, r2] = [await draw(wasm), await draw(js)];
  return {
    isolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
    device: String(wasm),
    variant: runtime.variant,
    threads: runtime.threads,
    workerJobs: workerJobs(),
    errors,
    sameRandom: r1.length === r2.length && r1.every((v, i) => Object.is(v, r2[i])),
  };
}

(globalThis as { burnResult?: Promise<WasmPageResult | { error: string }> }).burnResult = run().catch((e: unknown) => ({
  error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e),
}));
