// The client's job: a small MLP fitted to y = sin(πx₀)·x₁ by a hand-written loop on any device —
// the remote one or a local one, with the same code.
import { Device, Module, Tensor } from 'burn-ts';
import { SeededRng } from 'burn-ts/data';
import { Linear, LinearConfig, MseLoss, Reduction, Tanh } from 'burn-ts/nn';
import { AdamConfig, GradientsParams } from 'burn-ts/optim';

class Mlp extends Module {
  fc1: Linear;
  fc2: Linear;
  fc3: Linear;
  activation = new Tanh();

  constructor(device: Device) {
    super();
    this.fc1 = new LinearConfig({ dInput: 2, dOutput: 32 }).init(device);
    this.fc2 = new LinearConfig({ dInput: 32, dOutput: 32 }).init(device);
    this.fc3 = new LinearConfig({ dInput: 32, dOutput: 1 }).init(device);
  }

  forward(x: Tensor<2>): Tensor<2> {
    return this.fc3.forward(this.activation.forward(this.fc2.forward(this.activation.forward(this.fc1.forward(x)))));
  }
}

/** `n` points in [-1, 1]² and their targets, the same on every call (seeded). */
function points(n: number, seed: number): { x: Float32Array; y: Float32Array } {
  const rng = new SeededRng(seed);
  const x = Float32Array.from({ length: 2 * n }, () => 2 * rng.nextFloat() - 1);
  const y = Float32Array.from({ length: n }, (_, i) => Math.sin(Math.PI * x[2 * i]!) * x[2 * i + 1]!);
  return { x, y };
}

/** Losses of each step, the test MSE after training, and the time it took. */
export interface TrainingRun {
  losses: number[];
  testMse: number;
  seconds: number;
}

/** Trains the MLP for `steps` batches of 64 on `device` (its autodiff device) and tests it on 512 points. */
export async function train(device: Device, steps: number, label: string): Promise<TrainingRun> {
  const started = Date.now();
  const autodiff = device.autodiff();
  device.seed(7);
  let model = new Mlp(autodiff);
  const optim = new AdamConfig({}).init();
  const mse = new MseLoss();
  const losses: number[] = [];
  for (let step = 0; step < steps; step++) {
    const batch = points(64, 1000 + step);
    const x = Tensor.fromFloats(batch.x, autodiff).reshape([64, 2]);
    const y = Tensor.fromFloats(batch.y, autodiff).reshape([64, 1]);
    const loss = mse.forward(model.forward(x), y, Reduction.Mean);
    const grads = GradientsParams.fromGrads(loss.backward(), model);
    model = optim.step(1e-2, model, grads);
    // Reading the loss is a round trip to the server; everything else is sent without waiting.
    losses.push(await loss.intoScalar());
    if ((step + 1) % Math.max(1, Math.floor(steps / 5)) === 0)
      console.log(`[${label}] step ${step + 1}: loss ${losses.at(-1)!.toFixed(5)}`);
  }
  // Inference on the inner (non-autodiff) device: on the remote device, still on the server.
  const test = points(512, 1);
  const predicted = model.valid().forward(Tensor.fromFloats(test.x, device).reshape([512, 2]));
  const testMse = await mse
    .forward(predicted, Tensor.fromFloats(test.y, device).reshape([512, 1]), Reduction.Mean)
    .intoScalar();
  return { losses, testMse, seconds: (Date.now() - started) / 1000 };
}
