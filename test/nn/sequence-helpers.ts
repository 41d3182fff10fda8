// Shared helpers of the sequence-layer tests (attention, transformer, encodings, RNNs): fixture
// cases from test/fixtures/gen_nn_sequence.py, parameters loaded by module path, and gradient checks.
import assert from 'node:assert/strict';
import type { Gradients } from '../../src/backend/autodiff.js';
import { BurnError, Device, type Float, type Kind, type Module, type Tensor } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose, fxTensor, loadFixture, type FixtureCase, type Tol } from '../helpers/fixtures.js';

/** A case of nn_sequence.json. */
export function seqCase(name: string): FixtureCase {
  const c = loadFixture('nn_sequence')[name];
  if (!c) throw new Error(`nn_sequence.json has no case ${name}`);
  return c;
}

/** The devices every forward runs on: the conformance devices plus the default CPU device. */
export function forwardDevices(): { name: string; device: () => Device }[] {
  return [...conformanceDevices(), { name: 'cpu', device: () => Device.cpu() }];
}

/** The device of the gradient checks. */
export const gradDevice = (): Device => Device.cpu({ engine: 'js' }).autodiff();

/** A fixture input on `device` (as a Float tensor, or Bool/Int by its dtype). */
export function fx<D extends number = number, K extends Kind = Float>(
  c: FixtureCase,
  key: string,
  device: Device,
): Tensor<D, K> {
  const t = c.inputs[key];
  if (!t) throw new Error(`fixture input ${key} missing`);
  return fxTensor<D, K>(t, device);
}

/** `module` with every parameter replaced by the fixture input of the same path (all must exist; none left over). */
export function withFixtureParams<M extends Module>(module: M, c: FixtureCase, device: Device): M {
  const used = new Set<string>();
  const loaded = module.map((p, path) => {
    const t = c.inputs[path];
    if (!t) throw new Error(`fixture has no parameter ${path}`);
    used.add(path);
    return p.withTensor(fxTensor(t, device));
  });
  const paramLike = Object.keys(c.inputs).filter((k) => k.includes('.') && !used.has(k));
  assert.deepEqual(paramLike, [], 'fixture parameters the module does not have');
  return loaded;
}

/** Checks the gradient of every parameter against the fixture's `grad.<path>` outputs. */
export async function expectParamGrads(
  module: Module,
  c: FixtureCase,
  grads: Gradients,
  tol: Tol,
  label: string,
): Promise<void> {
  let n = 0;
  for (const [path, p] of module.params()) {
    const want = c.outputs[`grad.${path}`];
    if (!want) throw new Error(`${label}: fixture has no grad.${path}`);
    const g = p.val().grad(grads);
    assert.ok(g, `${label}: no gradient for ${path}`);
    await expectClose(g, want, tol, `${label} grad.${path}`);
    n++;
  }
  assert.ok(n > 0);
}

/** Asserts that `fn` throws a BurnError whose message matches every pattern. */
export function throwsBurn(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}
