// Shared runner of the loss tests: each case of test/fixtures/nn_loss.json (written by
// test/fixtures/gen_nn_loss.py from PyTorch) names a burn-ts loss, its config and reduction; the
// runner builds that loss, compares the output on every conformance device and the input
// gradients of sum(out · R) on the autodiff devices.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, type Float, type Int, type Kind, type Tensor } from '../../src/index.js';
import {
  BinaryCrossEntropyLossConfig,
  CosineEmbeddingLossConfig,
  CrossEntropyLossConfig,
  CTCLossConfig,
  GaussianNLLLossConfig,
  HingeEmbeddingLossConfig,
  HuberLossConfig,
  KLDivLossConfig,
  LpLossConfig,
  MarginRankingLossConfig,
  MseLoss,
  MultiMarginLossConfig,
  PoissonNllLossConfig,
  SmoothL1LossConfig,
  SoftMarginLoss,
  TripletMarginLossConfig,
  type Reduction,
} from '../../src/nn/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose, fxTensor, loadFixture, type FixtureCase, type Tol } from '../helpers/fixtures.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

type F<D extends number = number> = Tensor<D, Float>;
type I<D extends number = number> = Tensor<D, Int>;

/** The case `name` of nn_loss.json. */
export function lossCase(name: string): FixtureCase {
  const c = loadFixture('nn_loss')[name];
  if (!c) throw new Error(`no fixture case '${name}'`);
  return c;
}

/** Every case name starting with `prefix`. */
export function lossCases(prefix: string): string[] {
  return Object.keys(loadFixture('nn_loss')).filter((n) => n.startsWith(`${prefix}_`));
}

/** Builds the case's loss and applies it to `t` (its inputs on one device). */
export function applyLoss(c: FixtureCase, t: Record<string, Tensor<number, Kind>>, device: Device): F {
  const p = c.params as { loss: string; reduction: Reduction | 'none'; config?: Record<string, unknown> };
  const cfg = (p.config ?? {}) as never;
  const red = p.reduction as Reduction;
  const none = p.reduction === 'none';
  const f = (k: string) => t[k] as F;
  const i = (k: string) => t[k] as I;
  switch (p.loss) {
    case 'mse': {
      const m = new MseLoss();
      return none ? m.forwardNoReduction(f('logits'), f('targets')) : m.forward(f('logits'), f('targets'), red);
    }
    case 'huber': {
      const m = new HuberLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('predictions'), f('targets'))
        : m.forward(f('predictions'), f('targets'), red);
    }
    case 'smoothL1': {
      const m = new SmoothL1LossConfig(cfg).init();
      return none
        ? m.forward(f('predictions'), f('targets'))
        : m.forwardWithReduction(f('predictions'), f('targets'), red);
    }
    case 'lp': {
      const m = new LpLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('predictions'), f('targets'))
        : m.forward(f('predictions'), f('targets'), red);
    }
    case 'klDiv': {
      const m = new KLDivLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('predictions'), f('targets'))
        : m.forward(f('predictions'), f('targets'), red);
    }
    case 'gaussianNll': {
      const m = new GaussianNLLLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('input'), f('target'), f('var'))
        : m.forward(f('input'), f('target'), f('var'), red);
    }
    case 'poissonNll': {
      const m = new PoissonNllLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('predictions'), f('targets'))
        : m.forward(f('predictions'), f('targets'), red);
    }
    case 'cosineEmbedding': {
      const m = new CosineEmbeddingLossConfig({ ...(cfg as object), reduction: none ? 'mean' : red }).init();
      return none
        ? m.forwardNoReduction(f('input1'), f('input2'), i('target'))
        : m.forward(f('input1'), f('input2'), i('target'));
    }
    case 'hingeEmbedding': {
      const m = new HingeEmbeddingLossConfig(cfg).init();
      return none ? m.forwardNoReduction(f('input'), f('target')) : m.forward(f('input'), f('target'), red);
    }
    case 'marginRanking': {
      const m = new MarginRankingLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('first'), f('second'), f('target'))
        : m.forward(f('first'), f('second'), f('target'), red);
    }
    case 'softMargin': {
      const m = new SoftMarginLoss();
      return none ? m.forwardNoReduction(f('logits'), f('targets')) : m.forward(f('logits'), f('targets'), red);
    }
    case 'multiMargin': {
      const m = new MultiMarginLossConfig(cfg).init(device);
      return none ? m.forwardNoReduction(f('input'), i('target')) : m.forward(f('input'), i('target'), red);
    }
    case 'tripletMargin': {
      const m = new TripletMarginLossConfig(cfg).init();
      return none
        ? m.forwardNoReduction(f('anchor'), f('positive'), f('negative'))
        : m.forward(f('anchor'), f('positive'), f('negative'), red);
    }
    case 'crossEntropy':
      return new CrossEntropyLossConfig(cfg).init(device).forward(f('logits') as F<2>, i('targets') as I<1>);
    case 'bce':
      return new BinaryCrossEntropyLossConfig(cfg).init(device).forward(f('logits'), i('targets'));
    case 'ctc': {
      const m = new CTCLossConfig(cfg).init();
      const logProbs = (f('x') as F<3>).logSoftmax(2);
      const args = [logProbs, i('targets') as I<2>, i('inputLengths') as I<1>, i('targetLengths') as I<1>] as const;
      return none ? m.forward(...args) : m.forwardWithReduction(...args, red);
    }
    default:
      throw new Error(`unknown loss ${p.loss}`);
  }
}

/** The case's inputs on `device`; gradient inputs as leaves when `grad`. */
function inputsOn(c: FixtureCase, device: Device, grad: boolean, dtype?: 'f64'): Record<string, Tensor<number, Kind>> {
  const names = (c.params?.grad as string[]) ?? [];
  const out: Record<string, Tensor<number, Kind>> = {};
  for (const [k, v] of Object.entries(c.inputs)) {
    const float = v.dtype === 'f32';
    const t = fxTensor(v, device, float && dtype ? dtype : v.dtype);
    out[k] = grad && names.includes(k) ? t.requireGrad() : t;
  }
  return out;
}

/** The forward devices (every conformance device) and the gradient devices (autodiff over cpu(js) and over the required-only backend). */
export const forwardDevices = conformanceDevices;
export const gradDevices = (): { name: string; device: () => Device }[] => [
  { name: 'autodiff<cpu(js)>', device: () => Device.cpu({ engine: 'js' }).autodiff() },
  { name: 'autodiff<required-only>', device: () => requiredOnlyDevice().autodiff() },
];

/** Default tolerance: float32 inputs against the float64 reference. */
export const TOL: Tol = { rtol: 1e-4, atol: 1e-5 };

/** Compares the case's output on `device`. */
export async function checkForward(name: string, device: Device, tol: Tol = TOL): Promise<void> {
  const c = lossCase(name);
  const out = applyLoss(c, inputsOn(c, device, false), device);
  await expectClose(out, c.outputs.out!, tol, `${name} out`);
}

/** Compares the output and the input gradients of sum(out · R) on an autodiff `device` (float32, then float64). */
export async function checkGrads(name: string, device: Device, tol: Tol = TOL): Promise<void> {
  const c = lossCase(name);
  const names = (c.params?.grad as string[]) ?? [];
  for (const dtype of [undefined, 'f64'] as const) {
    const t = inputsOn(c, device, true, dtype);
    const out = applyLoss(c, t, device);
    await expectClose(out, c.outputs.out!, dtype ? { rtol: 1e-7, atol: 1e-8 } : tol, `${name} out (${dtype ?? 'f32'})`);
    if (names.length === 0) continue;
    const R = fxTensor(c.inputs.R!, device, out.dtype());
    const grads = out
      .mul(R as F)
      .sum()
      .backward();
    for (const k of names) {
      const g = (t[k] as F).grad(grads);
      assert.ok(g, `${name}: no gradient for ${k}`);
      await expectClose(
        g,
        c.outputs[`grad_${k}`]!,
        dtype ? { rtol: 1e-6, atol: 1e-8 } : tol,
        `${name} grad_${k} (${dtype ?? 'f32'})`,
      );
    }
  }
}

/**
 * The PyTorch suites of each loss family (its cases `<family>_*`, at least 3): the values on
 * every forward device, the values and input gradients on every gradient device.
 */
export function describeLossFamilies(families: readonly string[]): void {
  for (const family of families) {
    describe(`${family} vs PyTorch`, () => {
      const names = lossCases(family);
      it('has fixture cases', () => assert.ok(names.length >= 3, family));
      for (const { name: dev, device } of forwardDevices()) {
        it(`values on ${dev}`, async () => {
          for (const name of names) await checkForward(name, device());
        });
      }
      for (const { name: dev, device } of gradDevices()) {
        it(`values and input gradients on ${dev}`, async () => {
          for (const name of names) await checkGrads(name, device());
        });
      }
    });
  }
}

/** Asserts that `fn` throws a BurnError of `op` whose message matches every part. */
export function throwsBurn(fn: () => unknown, op: string, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, op, e.message);
    for (const p of parts)
      assert.match(e.message, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
    return true;
  });
}
