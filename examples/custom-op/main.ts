// Burn's custom-wgpu-kernel example: a user-defined op — a fused matmul + add + ReLU with a CPU
// function, a WGSL kernel and its backward rule (./fused.ts) — checked against the composite
// relu(x · w + b) on every local device, then used as the hidden layer of a small regression
// model trained by hand under autodiff.
//   npm run example custom-op                 the checks and 300 training steps on each device
//   npm run example custom-op -- --smoke      the checks and 30 steps
//   options: --steps N  --cpu-only
import { parseArgs } from 'node:util';
import { Device, Distribution, Tensor } from 'burn-ts';
import { composite, fusedMatmulAddRelu } from './fused.ts';

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    steps: { type: 'string' },
    'cpu-only': { type: 'boolean', default: false },
  },
});
const smoke = args.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const steps = Number(args.steps ?? (smoke ? 30 : 300));

/** The largest absolute difference between two tensors' values. */
async function maxDiff(a: Tensor, b: Tensor): Promise<number> {
  return a.sub(b).abs().max().intoScalar();
}

/** Forward values and the gradients of all three inputs, the custom op against the composite. */
async function check(device: Device): Promise<{ forward: number; gradients: number }> {
  device.seed(1);
  const ad = device.autodiff();
  const normal = Distribution.Normal(0, 1);
  const x = Tensor.random([4, 32, 24], normal, ad).requireGrad();
  const w = Tensor.random([4, 24, 16], normal, ad).requireGrad();
  const b = Tensor.random([16], normal, ad).requireGrad();
  const fused = fusedMatmulAddRelu.apply(x, w, b);
  const reference = composite(x, w, b);
  const forward = await maxDiff(fused, reference);
  const g1 = fused.sum().backward();
  const g2 = reference.sum().backward();
  let gradients = 0;
  for (const t of [x, w, b]) gradients = Math.max(gradients, await maxDiff(t.grad(g1)!, t.grad(g2)!));
  return { forward, gradients };
}

/**
 * Fits y = sin(3·x₀) + x₁² with a hidden layer of the fused op and a linear output, by plain
 * gradient descent written by hand; returns the first and last mean squared errors.
 */
async function train(device: Device): Promise<{ first: number; last: number }> {
  device.seed(2);
  const ad = device.autodiff();
  const inputs = Tensor.random([256, 2], Distribution.Uniform(-1, 1), device);
  const [x0, x1] = [
    inputs.slice([
      [0, 256],
      [0, 1],
    ]),
    inputs.slice([
      [0, 256],
      [1, 2],
    ]),
  ];
  const target = x0.mul(3).sin().add(x1.mul(x1));
  // Parameters live on the plain device; each step tracks them on the autodiff device.
  let params: Tensor[] = [
    Tensor.random([2, 64], Distribution.Normal(0, 0.7), device),
    Tensor.zeros([64], device),
    Tensor.random([64, 1], Distribution.Normal(0, 0.1), device),
    Tensor.zeros([1], device),
  ];
  const lr = 0.1;
  const losses: number[] = [];
  for (let step = 0; step < steps; step++) {
    const [loss, next] = Tensor.scope(() => {
      const [w1, b1, w2, b2] = params.map((p) => Tensor.fromInner(p, ad).requireGrad()) as [
        Tensor,
        Tensor,
        Tensor,
        Tensor,
      ];
      const hidden = fusedMatmulAddRelu.apply(Tensor.fromInner(inputs, ad), w1, b1);
      const prediction = hidden.matmul(w2).add(b2);
      const mse = prediction.sub(Tensor.fromInner(target, ad)).square().mean();
      const grads = mse.backward();
      const updated = [w1, b1, w2, b2].map((p, i) => params[i]!.sub(p.grad(grads)!.mul(lr)));
      return [mse.detach(), updated] as const;
    });
    params.forEach((p) => p.dispose());
    params = [...next];
    if (step === 0 || step === steps - 1) losses.push(await loss.intoScalar());
    loss.dispose();
  }
  return { first: losses[0]!, last: losses[losses.length - 1]! };
}

const devices: Device[] = [Device.cpu()];
if (!args['cpu-only']) {
  const gpu = await Device.webgpu().catch((e: unknown) => {
    console.log(`WebGPU: not used (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
    return undefined;
  });
  if (gpu) devices.push(gpu);
}

const result: Record<string, unknown> = { steps };
for (const device of devices) {
  const key = device.toString().startsWith('cpu') ? 'cpu' : 'webgpu';
  console.log(`${key}: ${device}`);
  const { forward, gradients } = await check(device);
  console.log(
    `  fused vs composite: forward max |Δ| ${forward.toExponential(2)}, gradients max |Δ| ${gradients.toExponential(2)}`,
  );
  const { first, last } = await train(device);
  console.log(`  training with the fused hidden layer: MSE ${first.toFixed(4)} → ${last.toFixed(4)} in ${steps} steps`);
  result[key] = { forwardDiff: forward, gradientDiff: gradients, firstLoss: first, lastLoss: last };
}
console.log(`result ${JSON.stringify(result)}`);
