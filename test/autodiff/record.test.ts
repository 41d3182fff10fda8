// The autodiff backend's one recording entry point, record({ inputs, forward, cost, save, backward }):
// named saves, what checkpointing keeps or recomputes per cost, untracked results, bad saves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TensorPrimitive } from '../../src/backend/backend.js';
import { AutodiffBackend } from '../../src/backends/autodiff/backend.js';
import { retainedBytes } from '../../src/backends/autodiff/graph.js';
import type { AdTensor } from '../../src/backends/autodiff/tensor.js';
import { BurnError, Device, Tensor } from '../../src/index.js';

const values = async (t: Tensor<number> | undefined) => Array.from((await t!.toData()).toArray());

/** `x * w + x` as one recorded op on `device`, counting forward runs; its backward reads saves by name. */
function mulAdd(
  device: Device,
  x: Tensor<1>,
  w: Tensor<1>,
  cost: 'memory-bound' | 'compute-bound',
  runs: { forward: number },
): Tensor<1> {
  const ad = device.backend as unknown as AutodiffBackend;
  const b = ad.innerBackend;
  const out = ad.record({
    inputs: [x.primitive as AdTensor, w.primitive as AdTensor],
    forward: ([a, c]) => {
      runs.forward++;
      return b.binary('add', b.binary('mul', a!, c!), a!);
    },
    cost,
    save: { x: 0, w: 1 },
    // d/dx = g (w + 1), d/dw = g x
    backward: (g, { x: xv, w: wv }, needs) => [
      needs[0] ? b.binary('mul', g, b.binaryScalar('add', wv, 1)) : undefined,
      needs[1] ? b.binary('mul', g, xv) : undefined,
    ],
  });
  return Tensor.fromPrimitive(out, device);
}

describe('AutodiffBackend.record', () => {
  const plain = Device.cpu({ engine: 'js' }).autodiff();
  const ckpt = Device.cpu({ engine: 'js' }).gradientCheckpointing();

  it('a custom op records one node whose backward reads its saves by name', async () => {
    assert.ok(plain.backend instanceof AutodiffBackend);
    const x = Tensor.fromFloats([1, 2, 3], plain).requireGrad();
    const w = Tensor.fromFloats([4, 5, 6], plain).requireGrad();
    const runs = { forward: 0 };
    const y = mulAdd(plain, x, w, 'compute-bound', runs);
    assert.deepEqual(await values(y), [5, 12, 21]);
    const grads = y
      .mul(Tensor.fromFloats([1, 10, 100], plain))
      .sum()
      .backward();
    assert.deepEqual(await values(x.grad(grads)), [5, 60, 700]);
    assert.deepEqual(await values(w.grad(grads)), [1, 20, 300]);
    assert.equal(runs.forward, 1);
  });

  it('needs tells which inputs are tracked; an untracked input gets no gradient', async () => {
    const x = Tensor.fromFloats([1, 2], plain);
    const w = Tensor.fromFloats([3, 4], plain).requireGrad();
    const grads = mulAdd(plain, x, w, 'compute-bound', { forward: 0 }).sum().backward();
    assert.equal(x.grad(grads), undefined);
    assert.deepEqual(await values(w.grad(grads)), [1, 2]);
  });

  it('no tracked input, or no backward: the result is not tracked and nothing is saved', () => {
    const x = Tensor.fromFloats([1, 2], plain);
    assert.equal(mulAdd(plain, x, x, 'compute-bound', { forward: 0 }).isRequireGrad(), false);
    const ad = plain.backend as unknown as AutodiffBackend;
    const t = Tensor.fromFloats([1, 2], plain).requireGrad().primitive as AdTensor;
    const out = ad.record({ inputs: [t], forward: ([p]) => ad.innerBackend.unary('exp', p!), cost: 'memory-bound' });
    assert.equal(out.node, undefined);
  });

  it('under checkpointing a memory-bound op recomputes its forward in the backward pass; a compute-bound one keeps its saves', async () => {
    for (const [cost, forwardRuns] of [
      ['memory-bound', 2],
      ['compute-bound', 1],
    ] as const) {
      const runs = { forward: 0 };
      // exp() before the op, so that `x` is itself a recomputable value under checkpointing.
      const x = Tensor.fromFloats([0, 1], ckpt).requireGrad();
      const w = Tensor.fromFloats([2, 3], ckpt).requireGrad();
      const y = mulAdd(ckpt, x.exp(), w, cost, runs).mul(mulAdd(ckpt, w, w, cost, { forward: 0 }));
      const grads = y.sum().backward();
      assert.equal(runs.forward, forwardRuns, `${cost}: forward runs`);
      // y = (e^x w + e^x)(w² + w): dy/dx = e^x (w + 1)(w² + w); dy/dw = e^x (w² + w) + (e^x w + e^x)(2w + 1).
      const e = [1, Math.E];
      const gx = [0, 1].map((i) => e[i]! * ([2, 3][i]! + 1) * ([2, 3][i]! ** 2 + [2, 3][i]!));
      const gw = [0, 1].map((i) => {
        const wv = [2, 3][i]!;
        return e[i]! * (wv * wv + wv) + (e[i]! * wv + e[i]!) * (2 * wv + 1);
      });
      (await values(x.grad(grads))).forEach((v, i) =>
        assert.ok(Math.abs(v - gx[i]!) < 1e-4 * Math.abs(gx[i]!), `${cost} dx[${i}] ${v} vs ${gx[i]}`),
      );
      (await values(w.grad(grads))).forEach((v, i) =>
        assert.ok(Math.abs(v - gw[i]!) < 1e-4 * Math.abs(gw[i]!), `${cost} dw[${i}] ${v} vs ${gw[i]}`),
      );
    }
  });

  it("only the named saves are kept: 'out', an input, a side value", () => {
    const ad = plain.backend as unknown as AutodiffBackend;
    const b = ad.innerBackend;
    const x = Tensor.fromFloats(new Array<number>(16).fill(1), plain).requireGrad().primitive as AdTensor;
    const side = b.fill([4], 0, 'f32');
    const bytes = (save: Record<string, 0 | 'out' | TensorPrimitive>) =>
      retainedBytes(
        ad.record({
          inputs: [x],
          forward: ([p]) => b.reshape(p!, [2, 8]),
          cost: 'compute-bound',
          save,
          backward: (g) => [g],
        }).node!,
      );
    assert.equal(bytes({}), 0);
    assert.equal(bytes({ x: 0 }), 16 * 4);
    assert.equal(bytes({ out: 'out' }), 16 * 4);
    assert.equal(bytes({ x: 0, out: 'out', side }), 2 * 16 * 4 + 4 * 4);
    assert.equal(bytes({ side }), 4 * 4);
  });

  it('a save naming an input the op does not have is a BurnError naming it, tracked or not, before the forward runs', () => {
    const ad = plain.backend as unknown as AutodiffBackend;
    const tracked = Tensor.fromFloats([1], plain).requireGrad().primitive as AdTensor;
    const untracked = Tensor.fromFloats([1], plain).primitive as AdTensor;
    let forwardRuns = 0;
    const forward = ([p]: TensorPrimitive[]) => {
      forwardRuns++;
      return p!;
    };
    const cases = [1, -1, 0.5].flatMap((index) => [tracked, untracked].map((x) => ({ index, x })));
    for (const { index, x } of cases) {
      const bad = () =>
        ad.record({ inputs: [x], forward, cost: 'compute-bound', save: { w: index }, backward: (g) => [g] });
      assert.throws(
        bad,
        (e: unknown) =>
          e instanceof BurnError &&
          /record/.test(e.message) &&
          new RegExp(`save\\.w names input ${index}`).test(e.message) &&
          /1 input/.test(e.message),
      );
    }
    assert.equal(forwardRuns, 0);
  });

  it('a backward returning a gradient count other than one per input is a BurnError at backward()', () => {
    const ad = plain.backend as unknown as AutodiffBackend;
    for (const count of [0, 1, 3]) {
      const x = Tensor.fromFloats([1, 2], plain).requireGrad();
      const w = Tensor.fromFloats([3, 4], plain).requireGrad();
      const out = ad.record({
        inputs: [x.primitive as AdTensor, w.primitive as AdTensor],
        forward: ([a, c]) => ad.innerBackend.binary('add', a!, c!),
        cost: 'compute-bound',
        backward: (g) => Array.from({ length: count }, () => g),
      });
      assert.throws(
        () => Tensor.fromPrimitive(out, plain).sum().backward(),
        (e: unknown) =>
          e instanceof BurnError &&
          /backward/.test(e.message) &&
          new RegExp(`returned ${count} gradient\\(s\\) for 2 input\\(s\\)`).test(e.message),
        `${count} gradients`,
      );
    }
  });
});
