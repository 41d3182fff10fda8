// WebGPU in a browser: headless Chromium (Debian's /usr/bin/chromium driven by playwright-core, no
// downloaded browser) loads a page bundled with esbuild from browser/page.ts and served from
// 127.0.0.1 (a secure context, as navigator.gpu requires). The page runs a matmul + softmax and 30
// training steps of a linear regression on `await Device.webgpu()` through navigator.gpu; the values
// are checked against the same computations on the CPU backend here, and a select with an
// out-of-range index must throw its BurnError at the read there too. Chromium without a GPU uses its
// SwiftShader WebGPU adapter once --enable-unsafe-webgpu is given. Skips (and fails under
// BURN_TEST_STRICT=1) when Chromium or playwright-core is missing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Device, Tensor } from '../../../src/index.js';
import { browserMissing, runPage } from '../../helpers/browser.js';
import type { PageResult } from './browser/page.js';

/** The same computations as the page, on the CPU. */
async function expected(): Promise<Omit<PageResult, 'device' | 'runtime' | 'badIndex' | 'afterBadIndex'>> {
  const cpu = Device.cpu({ engine: 'js' });
  const product = Tensor.fromFloats(
    [
      [1, 2],
      [3, 4],
      [5, 6],
    ],
    cpu,
  ).matmul(
    Tensor.fromFloats(
      [
        [1, 0, -1],
        [0.5, 2, 1],
      ],
      cpu,
    ),
  );
  const ad = cpu.autodiff();
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
    if (step === 0) grad = Array.from(gw.toDataSync().toArray());
    losses.push(loss.intoScalarSync());
    w = Tensor.fromInner(w.inner().sub(gw.mul(0.2)), ad).requireGrad();
    bias = Tensor.fromInner(bias.inner().sub(bias.grad(grads)!.mul(0.2)), ad).requireGrad();
  }
  return {
    product: Array.from(product.toDataSync().toArray()),
    softmax: Array.from(product.softmax(1).toDataSync().toArray()),
    grad,
    losses,
    weights: Array.from(w.toDataSync().toArray()),
  };
}

function close(got: readonly number[], want: readonly number[], label: string, tol = 1e-5): void {
  assert.equal(got.length, want.length, `${label}: length`);
  got.forEach((v, i) =>
    assert.ok(Math.abs(v - want[i]!) <= tol * Math.max(1, Math.abs(want[i]!)), `${label}[${i}]: ${v} vs ${want[i]}`),
  );
}

describe('WebGPU in headless Chromium (navigator.gpu)', () => {
  it("a bundled page runs matmul + softmax and a training loop with the CPU's values", {
    skip: browserMissing ?? false,
    timeout: 180_000,
  }, async () => {
    const result = await runPage<PageResult>(fileURLToPath(new URL('./browser/page.ts', import.meta.url)));
    assert.match(result.device, /^webgpu\(/);
    assert.equal(result.runtime, 'browser (navigator.gpu)');
    const want = await expected();
    close(result.product, want.product, 'matmul', 0);
    close(result.softmax, want.softmax, 'softmax');
    close(result.grad, want.grad, 'gradient');
    close(result.losses, want.losses, 'losses', 1e-4);
    close(result.weights, want.weights, 'weights', 1e-4);
    assert.ok(
      result.losses[29]! < result.losses[0]! / 10,
      `the loss falls: ${result.losses[0]} → ${result.losses[29]}`,
    );
    assert.match(result.badIndex, /^BurnError select: index 3 is out of bounds for dim 0 of size 3/);
    assert.deepEqual(result.afterBadIndex, [2, 3, 4, 5, 6, 7]);
  });
});
