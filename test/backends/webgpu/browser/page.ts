// The page of the headless-Chromium test (bundled by browser.test.ts with esbuild): WebGPU through
// navigator.gpu runs a matmul + softmax and a few training steps, and reports the values, and the
// error a read of an out-of-range select throws.
import { Device, Tensor } from '../../../../src/index.js';

/** What the page reports to the test. */
export interface PageResult {
  readonly device: string;
  readonly runtime: string;
  readonly product: number[];
  readonly softmax: number[];
  readonly grad: number[];
  readonly losses: number[];
  readonly weights: number[];
  /** The error a read of a select with an out-of-range index threw, and a later read's values. */
  readonly badIndex: string;
  readonly afterBadIndex: number[];
}

async function run(): Promise<PageResult> {
  const device = await Device.webgpu();
  const a = Tensor.fromFloats(
    [
      [1, 2],
      [3, 4],
      [5, 6],
    ],
    device,
  );
  const b = Tensor.fromFloats(
    [
      [1, 0, -1],
      [0.5, 2, 1],
    ],
    device,
  );
  const product = a.matmul(b);
  const softmax = product.softmax(1);
  // A tiny linear regression: y = x · [2, -1] + 0.5, fitted by gradient descent on the autodiff device.
  const ad = device.autodiff();
  const x = Tensor.fromFloats(
    [
      [1, 0],
      [0, 1],
      [1, 1],
      [2, 1],
      [0.5, -1],
    ],
    ad,
  );
  const y = Tensor.fromFloats([[2.5], [-0.5], [1.5], [3.5], [2.5]], ad);
  let w = Tensor.zeros([2, 1], ad).requireGrad();
  let bias = Tensor.zeros([1], ad).requireGrad();
  const losses: number[] = [];
  let grad: number[] = [];
  for (let step = 0; step < 30; step++) {
    const loss = x.matmul(w).add(bias.unsqueeze()).sub(y).square().mean();
    const grads = loss.backward();
    const gw = w.grad(grads)!;
    if (step === 0) grad = Array.from((await gw.toData()).toArray());
    losses.push(await loss.intoScalar());
    w = Tensor.fromInner(w.inner().sub(gw.mul(0.2)), ad).requireGrad();
    bias = Tensor.fromInner(bias.inner().sub(bias.grad(grads)!.mul(0.2)), ad).requireGrad();
  }
  // An out-of-range index is flagged on the device and thrown by the read; other reads are unaffected.
  let badIndex = 'no error';
  try {
    await a.select(0, Tensor.fromInts([0, 3], device)).toData();
  } catch (e) {
    badIndex = `${e instanceof Error ? e.name : 'non-Error'} ${e instanceof Error ? e.message : String(e)}`;
  }
  const afterBadIndex = Array.from((await a.add(1).toData()).toArray());
  const info = device.info() as { runtime?: string };
  return {
    device: String(device),
    runtime: info.runtime ?? '',
    product: Array.from((await product.toData()).toArray()),
    softmax: Array.from((await softmax.toData()).toArray()),
    grad,
    losses,
    weights: Array.from((await w.toData()).toArray()),
    badIndex,
    afterBadIndex,
  };
}

(globalThis as { burnResult?: Promise<PageResult | { error: string }> }).burnResult = run().catch((e: unknown) => ({
  error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e),
}));
