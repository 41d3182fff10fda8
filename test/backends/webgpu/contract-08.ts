// @ts-nocheck -- kept as written: like ../shared/api/08-backends.ts it calls `sum(1)`, which the typed
// API does not take (at run time the argument is ignored and the whole tensor is summed).
// A copy of ../shared/api/08-backends.ts without two parts that belong to other issues: the
// `wasm` CPU engine (`Device.cpu({ engine: 'wasm' })`, not built yet) and the remote backend
// (`burn-ts/remote`, a later issue). Everything else — WebGPU, results agreeing across devices,
// half precision, autodiff on the GPU — is unchanged. Run by contract-08.test.ts against the
// built package.
import { Device, Distribution, Tensor } from 'burn-ts';

const cpu = Device.cpu(); // best CPU engine available (native, then wasm, then js)
const engines = [Device.cpu({ engine: 'js' })];
const webgpu = await Device.webgpu(); // Dawn in Node, navigator.gpu in a browser; throws a clear error without an adapter
const training = webgpu.autodiff(); // autodiff over any device

cpu.seed(3);
const a = Tensor.random([64, 32], Distribution.Normal(0, 1), cpu);
const b = Tensor.random([32, 16], Distribution.Normal(0, 1), cpu);
const reference = Array.from((await a.matmul(b).relu().sum(1).toData()).toArray());

const close = (name: string, got: ArrayLike<number>) => {
  Array.from(got).forEach((v, i) => {
    if (Math.abs(v - reference[i]) > 1e-3 * Math.max(1, Math.abs(reference[i]))) throw new Error(`${name}: ${v} vs ${reference[i]} at ${i}`);
  });
};
for (const device of [...engines, webgpu]) {
  const out = a.toDevice(device).matmul(b.toDevice(device)).relu().sum(1);
  close(`${device}`, (await out.toData()).toArray());
}

// Half precision where the device supports it.
const half = Tensor.zeros([8, 8], webgpu).cast('f16');
if (half.dtype() !== 'f16') throw new Error('cast to f16');

// Autodiff on the GPU.
const w = Tensor.ones([4], training).requireGrad();
const g = w.mul(2).sum().backward();
if ((await w.grad(g)!.sum().intoScalar()) !== 8) throw new Error('webgpu autodiff');

console.log('08-backends: ok');
