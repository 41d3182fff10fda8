// Shared setup of the optimizer tests: the fixture problem (a 2-layer MLP), configs by name, and
// flattening of parameters to compare with PyTorch's trajectories (test/fixtures/gen_optim.py).
import { Device, Module, Tensor, type DType, type Float } from '../../src/index.js';
import { Linear, LinearConfig } from '../../src/nn/index.js';
import {
  AdaGradConfig,
  AdamConfig,
  AdamWConfig,
  AdanConfig,
  GradientsParams,
  LbfgsConfig,
  MuonConfig,
  RmsPropConfig,
  SgdConfig,
  type ModuleOptimizer,
  type SimpleOptimizer,
} from '../../src/optim/index.js';
import { fxTensor, loadFixture, type FixtureCase } from '../helpers/fixtures.js';

export const fixture = loadFixture('optim');
export const problem = fixture['problem']!;

/** The fixture's MLP: tanh(x·W1 + b1)·W2 + b2 (Burn's Linear layout). */
export class Mlp extends Module {
  l1: Linear;
  l2: Linear;
  constructor(device: Device, bias = true) {
    super();
    this.l1 = new LinearConfig({ dInput: 3, dOutput: 4, bias }).init(device);
    this.l2 = new LinearConfig({ dInput: 4, dOutput: 2, bias }).init(device);
  }
  forward(x: Tensor<2>): Tensor<2> {
    return this.l2.forward(this.l1.forward(x).tanh());
  }
}

/** The MLP with the fixture's initial parameters, in `dtype`, on `device`. */
export function initialMlp(device: Device, dtype: DType, bias = true): Mlp {
  return new Mlp(device, bias).map((p, path) => p.withTensor(fxTensor(problem.inputs[path]!, device, dtype)));
}

/** The fixture's batch. */
export function batch(device: Device, dtype: DType): { x: Tensor<2>; y: Tensor<2> } {
  return { x: fxTensor<2>(problem.inputs['x']!, device, dtype), y: fxTensor<2>(problem.inputs['y']!, device, dtype) };
}

/** mean((model(x) − y)²). */
export function lossOf(model: Mlp, x: Tensor<2>, y: Tensor<2>): Tensor<1> {
  return model.forward(x).sub(y).square().mean();
}

/** The loss and its gradients by parameter. */
export function lossAndGrads(model: Mlp, x: Tensor<2>, y: Tensor<2>): { loss: Tensor<1>; grads: GradientsParams } {
  const loss = lossOf(model, x, y);
  return { loss, grads: GradientsParams.fromGrads(loss.backward(), model) };
}

/** Every parameter value in visit order (the fixture's column order). */
export function flatParams(model: Module): number[] {
  const out: number[] = [];
  model.visit((p) =>
    out.push(...Array.from((p.val() as Tensor<number, Float>).toDataSync().toArray() as ArrayLike<number>)),
  );
  return out;
}

type OptimizerConfigClass = { fromJSON(json: unknown): { init(): ModuleOptimizer; build(): SimpleOptimizer } };

/** The config class of each optimizer name used by the fixture. */
export const CONFIGS: Record<string, OptimizerConfigClass> = {
  sgd: SgdConfig,
  adam: AdamConfig,
  adamw: AdamWConfig,
  adagrad: AdaGradConfig,
  rmsprop: RmsPropConfig,
  adan: AdanConfig,
  muon: MuonConfig,
};

/** The optimizer of a fixture case (with its groups). */
export function optimizerOf(c: FixtureCase): ModuleOptimizer {
  const p = c.params as {
    optimizer: string;
    config: unknown;
    groups?: { name: string; optimizer: string; config: unknown; filter: string }[];
  };
  const optim = CONFIGS[p.optimizer]!.fromJSON(p.config).init();
  for (const g of p.groups ?? [])
    optim.withGroup(g.name, new RegExp(g.filter), CONFIGS[g.optimizer]!.fromJSON(g.config).build());
  return optim;
}

/** The L-BFGS config of a fixture case. */
export function lbfgsConfigOf(c: FixtureCase): LbfgsConfig {
  return LbfgsConfig.fromJSON((c.params as { config: unknown }).config);
}

/** Asserts |a − e| <= atol + rtol·|e| elementwise. */
export function assertClose(
  actual: readonly number[],
  expected: readonly number[],
  rtol: number,
  atol: number,
  label: string,
): void {
  if (actual.length !== expected.length)
    throw new Error(`${label}: ${actual.length} values, expected ${expected.length}`);
  const bad: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!,
      e = expected[i]!;
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e)) && bad.length < 6) bad.push(`[${i}] ${a} != ${e}`);
  }
  if (bad.length > 0) throw new Error(`${label}: values differ (rtol ${rtol}, atol ${atol}):\n  ${bad.join('\n  ')}`);
}
