// Shared helpers of the nn layer tests: fixture cases from test/fixtures/nn_layers.json (written by
// gen_nn_layers.py from PyTorch), parameter loading by path, and the forward/gradient check.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BurnError, Device, Tensor, type Float, type Kind, type Module } from '../../src/index.js';
import { expectClose, fxTensor, loadFixture, type FixtureCase, type Tol } from '../helpers/fixtures.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

/** Tolerance of f32 results against the float64 reference. */
export const ACC: Tol = { rtol: 1e-4, atol: 1e-5 };

/** A case of nn_layers.json. */
export function lcase(name: string): FixtureCase {
  const c = loadFixture('nn_layers')[name];
  if (!c) throw new Error(`no fixture case '${name}'`);
  return c;
}

/** A case parameter. */
export function lparam<T>(c: FixtureCase, name: string): T {
  assert.ok(c.params && name in c.params, `missing param ${name}`);
  return c.params[name] as T;
}

/** Devices without autodiff: the forward runs in inference mode on each. */
export const PLAIN: readonly [string, () => Device][] = [
  ['cpu(js)', () => Device.cpu({ engine: 'js' })],
  ['required-only', requiredOnlyDevice],
];
/** Autodiff devices: forward in training mode, gradients checked on each. */
export const AUTODIFF: readonly [string, () => Device][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
];

/**
 * The layer with every parameter replaced by the case input of the same name as its path
 * (`weight`, `bias`, `gamma`, …); `transform` adapts a tensor (e.g. a transposed layout).
 */
export function loadParams<M extends Module>(
  layer: M,
  c: FixtureCase,
  device: Device,
  transform: (t: Tensor<number, Float>, path: string) => Tensor<number, Float> = (t) => t,
): M {
  return layer.map((p, path) => {
    const fx = c.inputs[path];
    assert.ok(fx, `case has no input for parameter '${path}'`);
    return p.withTensor(transform(fxTensor<number, Float>(fx, device), path));
  });
}

/** A layer check: how to build the layer and run it on the case's inputs. */
export interface LayerCheck<M extends Module> {
  /** The fixture case. */
  readonly name: string;
  /** Shown in the test names (default: the case name). */
  readonly label?: string;
  /** Builds the layer (its parameters are then loaded from the case). */
  readonly layer: (device: Device) => M;
  /** Runs the forward on the named inputs. */
  readonly forward: (layer: M, inputs: Record<string, Tensor<number, Kind>>) => Tensor<number, Float>;
  /** Input names (float inputs get gradients compared when the case has `g_<name>`). */
  readonly inputs: readonly string[];
  /** Tolerance (default {@link ACC}). */
  readonly tol?: Tol;
  /** Adapts loaded parameters (default: as stored). */
  readonly transform?: (t: Tensor<number, Float>, path: string) => Tensor<number, Float>;
  /** Adapts the gradient of a parameter before comparing (default: as computed). */
  readonly gradTransform?: (t: Tensor<number, Float>, path: string) => Tensor<number, Float>;
  /** Skip the plain-device forward (layers whose inference output differs, e.g. BatchNorm). */
  readonly trainOnly?: boolean;
}

function inputsOn(
  c: FixtureCase,
  names: readonly string[],
  device: Device,
  track: boolean,
): Record<string, Tensor<number, Kind>> {
  const out: Record<string, Tensor<number, Kind>> = {};
  for (const n of names) {
    const fx = c.inputs[n];
    assert.ok(fx, `case has no input '${n}'`);
    const t = fxTensor<number, Kind>(fx, device);
    out[n] = track && fx.dtype.startsWith('f') ? t.requireGrad() : t;
  }
  return out;
}

/**
 * Registers tests: the forward on every plain device equals `y`; on every autodiff device the
 * forward equals `y` and the gradients of `sum(y · R)` equal `g_<input>` and `g_<param path>`.
 */
export function checkLayer<M extends Module>(check: LayerCheck<M>): void {
  const c = lcase(check.name);
  const tol = check.tol ?? ACC;
  const title = check.label ?? check.name;
  if (!check.trainOnly) {
    for (const [label, device] of PLAIN) {
      it(`${title}: forward on ${label}`, async () => {
        const dev = device();
        const layer = loadParams(check.layer(dev), c, dev, check.transform);
        await expectClose(check.forward(layer, inputsOn(c, check.inputs, dev, false)), c.outputs.y!, tol, check.name);
      });
    }
  }
  for (const [label, device] of AUTODIFF) {
    it(`${title}: forward and gradients on ${label}`, async () => {
      const dev = device();
      const layer = loadParams(check.layer(dev), c, dev, check.transform);
      const inputs = inputsOn(c, check.inputs, dev, true);
      const y = check.forward(layer, inputs);
      await expectClose(y, c.outputs.y!, tol, `${check.name} y`);
      const grads = y.mul(fxTensor<number, Float>(c.inputs.R!, dev)).sum().backward();
      let compared = 0;
      for (const n of check.inputs) {
        const want = c.outputs[`g_${n}`];
        if (!want) continue;
        const g = inputs[n]!.grad(grads);
        assert.ok(g, `no gradient for input ${n}`);
        await expectClose(g, want, tol, `${check.name} g_${n}`);
        compared++;
      }
      for (const [path, p] of layer.params()) {
        const want = c.outputs[`g_${path}`];
        assert.ok(want, `case has no gradient for parameter '${path}'`);
        const g = p.val().grad(grads) as Tensor<number, Float> | undefined;
        assert.ok(g, `no gradient for parameter ${path}`);
        await expectClose(check.gradTransform ? check.gradTransform(g, path) : g, want, tol, `${check.name} g_${path}`);
        compared++;
      }
      assert.ok(compared > 0, 'no gradient compared');
    });
  }
}

/** Asserts that `fn` throws a BurnError of `op` whose message contains every part. */
export function throwsBurn(fn: () => unknown, op: string, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, op);
    for (const p of parts)
      assert.match(e.message, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
    return true;
  });
}

/** Values of a tensor as a plain array. */
export async function values(t: Tensor<number, Kind>): Promise<number[]> {
  return Array.from((await t.toData()).toArray() as ArrayLike<number>);
}
