// Recurrent layers against torch.nn.RNN / LSTM / GRU (uni- and bidirectional, with and without
// bias, with initial states): PyTorch's stacked gate weights are split onto Burn's per-gate
// GateControllers (LSTM rows i, f, g, o → inputGate, forgetGate, cellGate, outputGate; GRU rows
// r, z, n → resetGate, updateGate, newGate; Linear weights transposed to [dIn, dOut]). Burn's GRU
// with resetAfter = false (the original GRU) has no torch module: the generator writes it out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Distribution, Tensor, type Float } from '../../src/index.js';
import { ActivationConfig } from '../../src/nn/activation/activation-config.js';
import {
  BiGruConfig,
  BiLstmConfig,
  BiRnnConfig,
  GruConfig,
  LstmConfig,
  LstmState,
  RnnConfig,
  RnnState,
} from '../../src/nn/index.js';
import { expectClose, type FixtureCase } from '../helpers/fixtures.js';
import {
  expectParamGrads,
  forwardDevices,
  fx,
  gradDevice,
  seqCase,
  throwsBurn,
  withFixtureParams,
} from './sequence-helpers.js';

const TOL = { rtol: 1e-4, atol: 1e-5 };
type P = { dInput: number; dHidden: number; bias: boolean };

const cfg = (c: FixtureCase) => c.params as P;
const values = (t: Tensor<number, Float>) => Array.from(t.toDataSync().toArray());

/** Runs a fixture case of `kind` on `device`: returns the module, outputs [out, hn, cn?] and the leaves. */
function run(name: string, device: Device, track = false) {
  const c = seqCase(name);
  const p = cfg(c);
  const leaf = (k: string) => (track ? fx<3>(c, k, device).requireGrad() : fx<3>(c, k, device));
  const x = leaf('x'),
    h0 = leaf('h0');
  const c0 = c.inputs.c0 ? leaf('c0') : undefined;
  const first = (t: Tensor<3, Float>) => t.slice([0]).squeezeDim(0);
  switch (name.replace('_nobias', '')) {
    case 'lstm': {
      const m = withFixtureParams(new LstmConfig(p).init(device), c, device);
      const [out, s] = m.forward(x, new LstmState(first(c0!), first(h0)));
      return { c, m, out, hn: s.hidden.unsqueeze<3>(), cn: s.cell.unsqueeze<3>(), leaves: { x, h0, c0 } };
    }
    case 'bilstm': {
      const m = withFixtureParams(new BiLstmConfig(p).init(device), c, device);
      const [out, s] = m.forward(x, new LstmState(c0!, h0));
      return { c, m, out, hn: s.hidden, cn: s.cell, leaves: { x, h0, c0 } };
    }
    case 'gru': {
      const m = withFixtureParams(new GruConfig(p).init(device), c, device);
      const out = m.forward(x, first(h0));
      return { c, m, out, hn: out.slice([null, -1]).swapDims(0, 1), cn: undefined, leaves: { x, h0 } };
    }
    case 'bigru': {
      const m = withFixtureParams(new BiGruConfig(p).init(device), c, device);
      const [out, hn] = m.forward(x, h0);
      return { c, m, out, hn, cn: undefined, leaves: { x, h0 } };
    }
    case 'rnn': {
      const m = withFixtureParams(new RnnConfig(p).init(device), c, device);
      const [out, s] = m.forward(x, new RnnState(first(h0)));
      return { c, m, out, hn: s.hidden.unsqueeze<3>(), cn: undefined, leaves: { x, h0 } };
    }
    case 'birnn': {
      const m = withFixtureParams(new BiRnnConfig(p).init(device), c, device);
      const [out, s] = m.forward(x, new RnnState(h0));
      return { c, m, out, hn: s.hidden, cn: undefined, leaves: { x, h0 } };
    }
  }
  throw new Error(name);
}

const CASES = ['lstm', 'lstm_nobias', 'bilstm', 'gru', 'gru_nobias', 'bigru', 'rnn', 'rnn_nobias', 'birnn'];

describe('Rnn, Lstm, Gru and their bidirectional forms', () => {
  it("have Burn's config defaults, gate layout and display", () => {
    const device = Device.cpu();
    const lstm = new LstmConfig({ dInput: 3, dHidden: 4, bias: true });
    assert.deepEqual(
      [lstm.batchFirst, lstm.reverse, lstm.clip, lstm.inputForget, lstm.initializer.kind],
      [true, false, undefined, false, 'xavierNormal'],
    );
    assert.deepEqual(
      [lstm.gateActivation.kind, lstm.cellActivation.kind, lstm.hiddenActivation.kind],
      ['sigmoid', 'tanh', 'tanh'],
    );
    const l = lstm.init(device);
    assert.deepEqual(l.inputGate.inputTransform.weight.dims(), [3, 4]);
    assert.deepEqual(l.cellGate.hiddenTransform.weight.dims(), [4, 4]);
    assert.equal(l.numParams(), 4 * (12 + 4 + 16 + 4));
    assert.equal(l.toString(), 'Lstm {dInput: 3, dHidden: 4, bias: true, params: 144}');
    const gru = new GruConfig({ dInput: 3, dHidden: 4, bias: false });
    assert.deepEqual([gru.resetAfter, gru.gateActivation.kind, gru.hiddenActivation.kind], [true, 'sigmoid', 'tanh']);
    assert.equal(gru.init(device).toString(), 'Gru {dInput: 3, dHidden: 4, bias: false, resetAfter: true, params: 84}');
    assert.equal(
      new RnnConfig({ dInput: 3, dHidden: 4, bias: true }).init(device).toString(),
      'Rnn {dInput: 3, dHidden: 4, bias: true, params: 36}',
    );
    assert.equal(
      new BiLstmConfig({ dInput: 3, dHidden: 4, bias: true }).init(device).toString(),
      'BiLstm {dInput: 3, dHidden: 4, bias: true, params: 288}',
    );
    assert.equal(new BiGruConfig({ dInput: 3, dHidden: 4, bias: true }).init(device).numParams(), 2 * 3 * 36);
    assert.equal(new BiRnnConfig({ dInput: 3, dHidden: 4, bias: true }).init(device).numParams(), 72);
  });

  for (const { name, device } of forwardDevices()) {
    it(`outputs and final states equal PyTorch's (${name})`, async () => {
      for (const kind of CASES) {
        const { c, out, hn, cn } = run(kind, device());
        await expectClose(out, c.outputs.out!, TOL, `${kind} out`);
        await expectClose(hn, c.outputs.hn!, TOL, `${kind} hn`);
        if (cn) await expectClose(cn, c.outputs.cn!, TOL, `${kind} cn`);
      }
    });
  }

  it("input, state and weight gradients equal PyTorch's", async () => {
    for (const kind of CASES) {
      const d = gradDevice();
      const { c, m, out, hn, cn, leaves } = run(kind, d, true);
      let loss = out
        .mul(fx(c, 'R', d))
        .sum()
        .add(hn.mul(fx(c, 'Rh', d)).sum());
      if (cn) loss = loss.add(cn.mul(fx(c, 'Rc', d)).sum());
      const grads = loss.backward();
      for (const [key, t] of Object.entries(leaves)) {
        if (t) await expectClose(t.grad(grads)!, c.outputs[`grad.${key}`]!, TOL, `${kind} grad.${key}`);
      }
      await expectParamGrads(m, c, grads, TOL, kind);
    }
  });

  it('GRU with resetAfter = false (reset gate before the hidden projection)', async () => {
    const c = seqCase('gru_reset_before');
    for (const { device } of forwardDevices()) {
      const d = device();
      const m = withFixtureParams(
        new GruConfig({ dInput: 3, dHidden: 4, bias: true, resetAfter: false }).init(d),
        c,
        d,
      );
      await expectClose(m.forward(fx(c, 'x', d)), c.outputs.out!, TOL, 'out');
    }
    const d = gradDevice();
    const m = withFixtureParams(new GruConfig({ dInput: 3, dHidden: 4, bias: true, resetAfter: false }).init(d), c, d);
    const x = fx<3>(c, 'x', d).requireGrad();
    const grads = m
      .forward(x)
      .mul(fx(c, 'R', d))
      .sum()
      .backward();
    await expectClose(x.grad(grads)!, c.outputs['grad.x']!, TOL, 'grad.x');
    await expectParamGrads(m, c, grads, TOL, 'gru_reset_before');
  });

  it('seq-first layout, reverse, zero initial state, clip and coupled forget gate', async () => {
    const device = Device.cpu({ engine: 'js' });
    const c = seqCase('lstm');
    const base = withFixtureParams(new LstmConfig(cfg(c)).init(device), c, device);
    const x = fx<3>(c, 'x', device);
    const [outB, stateB] = base.forward(x);
    // batchFirst = false: the same parameters on [seq, batch, dIn]
    const seqFirst = withFixtureParams(new LstmConfig({ ...cfg(c), batchFirst: false }).init(device), c, device);
    const [outS, stateS] = seqFirst.forward(x.swapDims(0, 1));
    await expectClose(outS.swapDims(0, 1), { shape: outB.dims(), data: values(outB) }, TOL, 'seq-first');
    await expectClose(stateS.hidden, { shape: [2, 4], data: values(stateB.hidden) }, TOL, 'seq-first state');
    // reverse = running the flipped sequence, output flipped back
    const rev = withFixtureParams(new LstmConfig({ ...cfg(c), reverse: true }).init(device), c, device);
    const [outR] = rev.forward(x);
    const [outF] = base.forward(x.flip([1]));
    await expectClose(outR, { shape: outF.dims(), data: values(outF.flip([1])) }, TOL, 'reverse');
    // clip bounds the cell state
    const clipped = withFixtureParams(new LstmConfig({ ...cfg(c), clip: 0.05 }).init(device), c, device);
    const [, s] = clipped.forward(x.mul(10));
    assert.ok(s.cell.abs().max().intoScalarSync() <= 0.05 + 1e-7);
    // inputForget: f = 1 - i; the forget gate's weights do not matter
    const coupled = withFixtureParams(new LstmConfig({ ...cfg(c), inputForget: true }).init(device), c, device);
    const changed = coupled.map((p, path) =>
      path.startsWith('forgetGate') ? p.withTensor((p.val() as Tensor<2, Float>).mul(0)) : p,
    );
    await expectClose(
      changed.forward(x)[0],
      { shape: outB.dims(), data: values(coupled.forward(x)[0]) },
      TOL,
      'inputForget',
    );
    // a custom activation
    const relu = new RnnConfig({ dInput: 2, dHidden: 2, bias: false, hiddenActivation: ActivationConfig.Relu }).init(
      device,
    );
    const eye = relu.map((p) => p.withTensor(Tensor.eye(2, device)));
    await expectClose(
      eye.forward(
        Tensor.fromFloats(
          [
            [
              [1, -2],
              [1, 1],
            ],
          ],
          device,
        ),
      )[0],
      { shape: [1, 2, 2], data: [1, 0, 2, 1] },
      TOL,
      'relu rnn',
    );
  });

  it('runs the 09-layers API shapes', () => {
    const device = Device.cpu();
    const lstm = new LstmConfig({ dInput: 256, dHidden: 512, bias: true }).init(device);
    const [out, state] = lstm.forward(Tensor.zeros([2, 7, 256], device));
    assert.deepEqual(
      [out.dims(), state.hidden.dims(), state.cell.dims()],
      [
        [2, 7, 512],
        [2, 512],
        [2, 512],
      ],
    );
    const gru = new GruConfig({ dInput: 256, dHidden: 128, bias: true }).init(device);
    assert.deepEqual(gru.forward(Tensor.random([2, 7, 256], Distribution.Default, device)).dims(), [2, 7, 128]);
  });

  it('rejects bad shapes and states with clear errors', () => {
    const device = Device.cpu();
    const lstm = new LstmConfig({ dInput: 3, dHidden: 4, bias: true }).init(device);
    throwsBurn(() => lstm.forward(Tensor.zeros([2, 5, 6], device)), /Lstm/, /\[2, 5, 6\]/, /\[batch, seq, 3\]/);
    throwsBurn(() => lstm.forward(Tensor.zeros([2, 0, 3], device)), /no time steps/);
    throwsBurn(
      () => lstm.forward(Tensor.zeros([2, 5, 3], device), LstmState.initial([3, 4], device)),
      /initial cell state of shape \[3, 4\]/,
      /\[2, 4\]/,
    );
    throwsBurn(
      () => new LstmState(Tensor.zeros([2, 4], device), Tensor.zeros([2, 3], device)),
      /LstmState/,
      /equal shapes/,
    );
    const seqFirst = new LstmConfig({ dInput: 3, dHidden: 4, bias: true, batchFirst: false }).init(device);
    throwsBurn(() => seqFirst.forward(Tensor.zeros([2, 5, 4], device)), /\[seq, batch, 3\]/);
    const bilstm = new BiLstmConfig({ dInput: 3, dHidden: 4, bias: true }).init(device);
    throwsBurn(
      () =>
        bilstm.forward(Tensor.zeros([2, 5, 3], device), LstmState.initial([2, 4], device) as unknown as LstmState<3>),
      /BiLstm/,
      /\[2, 2, 4\]/,
    );
    const gru = new GruConfig({ dInput: 3, dHidden: 4, bias: true }).init(device);
    throwsBurn(() => gru.forward(Tensor.zeros([2, 5, 2], device)), /Gru/, /\[2, 5, 2\]/);
    throwsBurn(
      () => gru.forward(Tensor.zeros([2, 5, 3], device), Tensor.zeros([2, 5], device)),
      /hidden state of shape \[2, 5\]/,
      /\[2, 4\]/,
    );
    const bigru = new BiGruConfig({ dInput: 3, dHidden: 4, bias: true }).init(device);
    throwsBurn(
      () => bigru.forward(Tensor.zeros([2, 5, 3], device), Tensor.zeros([1, 2, 4], device)),
      /BiGru/,
      /\[2, 2, 4\]/,
    );
    const rnn = new RnnConfig({ dInput: 3, dHidden: 4, bias: true }).init(device);
    throwsBurn(() => rnn.forward(Tensor.zeros([5, 3], device) as unknown as Tensor<3>), /Rnn/, /\[5, 3\]/);
    const birnn = new BiRnnConfig({ dInput: 3, dHidden: 4, bias: true }).init(device);
    throwsBurn(
      () => birnn.forward(Tensor.zeros([2, 5, 3], device), new RnnState(Tensor.zeros([2, 3, 4], device))),
      /BiRnn/,
      /\[2, 3, 4\]/,
    );
    throwsBurn(() => new LstmConfig({ dInput: 3, dHidden: 0, bias: true }), /dHidden/);
    throwsBurn(() => new GruConfig({ dInput: 3, dHidden: 4 } as never), /bias/);
  });
});
