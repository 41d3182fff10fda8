import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import { sameShape } from '../../core/shape.js';
import { Tensor } from '../../tensor/tensor.js';
import { type Activation, ActivationConfig } from '../activation/activation-config.js';
import { Initializer, initializerSchema } from '../init.js';
import { GateController } from './gate-controller.js';
import {
  atTime,
  batchFirstInput,
  checkState,
  direction,
  fromBatchFirst,
  runBidirectional,
  scanTime,
} from './sequence.js';

/**
 * The state of an LSTM (Burn's `LstmState`): cell and hidden tensors of the same shape —
 * `[batch, dHidden]` for {@link Lstm}, `[2, batch, dHidden]` for {@link BiLstm}.
 */
export class LstmState<D extends number = 2> {
  /** The cell state. */
  readonly cell: Tensor<D, Float>;
  /** The hidden state. */
  readonly hidden: Tensor<D, Float>;

  constructor(cell: Tensor<D, Float>, hidden: Tensor<D, Float>) {
    if (!sameShape(cell.dims(), hidden.dims())) {
      throw new BurnError(
        'LstmState',
        `cell of shape ${fmt(cell.dims())} and hidden of shape ${fmt(hidden.dims())}; expected equal shapes`,
      );
    }
    this.cell = cell;
    this.hidden = hidden;
  }

  /** Zero cell and hidden states of `shape`. */
  static initial<const S extends readonly number[]>(shape: S, device?: Device): LstmState<S['length']> {
    const zeros = Tensor.zeros(shape, device) as unknown as Tensor<S['length'], Float>;
    return new LstmState(zeros, zeros);
  }

  /** The shape of the state tensors. */
  dims(): number[] {
    return this.cell.dims();
  }
}

const lstmFields = {
  /** Size of the input features. */
  dInput: z.number().int().positive(),
  /** Size of the hidden state. */
  dHidden: z.number().int().positive(),
  /** Whether the gates have biases. */
  bias: z.boolean(),
  /** Initializer of the gate weights and biases. */
  initializer: initializerSchema.default(Initializer.XavierNormal({ gain: 1 })),
  /** `[batch, seq, dInput]` inputs (true) or `[seq, batch, dInput]` (false). */
  batchFirst: z.boolean().default(true),
  /** Clamps the cell state to `[-clip, clip]` after each step. */
  clip: z.number().positive().optional(),
  /** Couples the forget gate to the input gate: `f = 1 - i` (the forget gate is unused). */
  inputForget: z.boolean().default(false),
  /** Activation of the input, forget and output gates. */
  gateActivation: ActivationConfig.schema.default(ActivationConfig.Sigmoid),
  /** Activation of the candidate cell state. */
  cellActivation: ActivationConfig.schema.default(ActivationConfig.Tanh),
  /** Activation applied to the cell state to make the hidden state. */
  hiddenActivation: ActivationConfig.schema.default(ActivationConfig.Tanh),
};

/** Configuration of an {@link Lstm} layer (Burn's `LstmConfig`). */
export class LstmConfig extends Config.define({
  ...lstmFields,
  /** Process the sequence from the last time step to the first. */
  reverse: z.boolean().default(false),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Lstm {
    return new Lstm(this, device);
  }
}

/**
 * Long short-term memory (Burn's `Lstm`), with one {@link GateController} per gate:
 * `i, f, o = σ(…)`, `g = tanh(…)`, `c' = f·c + i·g`, `h' = o·tanh(c')`. PyTorch's `weight_ih_l0`
 * rows are the gates in the order i, f, g, o (`inputGate`, `forgetGate`, `cellGate`, `outputGate`).
 */
export class Lstm extends Module {
  /** Input gate. */
  inputGate: GateController;
  /** Forget gate. */
  forgetGate: GateController;
  /** Output gate. */
  outputGate: GateController;
  /** Candidate cell gate. */
  cellGate: GateController;
  /** Gate activation. */
  gateActivation: Activation;
  /** Candidate cell activation. */
  cellActivation: Activation;
  /** Hidden activation. */
  hiddenActivation: Activation;
  /** Size of the hidden state. */
  readonly dHidden: number;
  /** Whether inputs are batch-first. */
  readonly batchFirst: boolean;
  /** Whether the sequence is processed backwards. */
  readonly reverse: boolean;
  /** Cell state clipping bound. */
  readonly clip: number | undefined;
  /** Whether the forget gate is coupled to the input gate. */
  readonly inputForget: boolean;

  constructor(config: LstmConfig, device: Device) {
    super();
    const gate = () => new GateController(config.dInput, config.dHidden, config.bias, config.initializer, device);
    this.inputGate = gate();
    this.forgetGate = gate();
    this.outputGate = gate();
    this.cellGate = gate();
    this.gateActivation = config.gateActivation.init(device);
    this.cellActivation = config.cellActivation.init(device);
    this.hiddenActivation = config.hiddenActivation.init(device);
    this.dHidden = config.dHidden;
    this.batchFirst = config.batchFirst;
    this.reverse = config.reverse;
    this.clip = config.clip;
    this.inputForget = config.inputForget;
  }

  /** Size of the input features. */
  get dInput(): number {
    return this.inputGate.inputTransform.weight.dims()[0]!;
  }

  /**
   * Runs the sequence. `batchedInput`: `[batch, seq, dInput]` (`[seq, batch, dInput]` when not
   * batch-first); `state`: `[batch, dHidden]` cell and hidden (zeros when absent). Returns the
   * hidden state of every step `[batch, seq, dHidden]` (same layout as the input) and the final state.
   */
  forward(batchedInput: Tensor<3, Float>, state?: LstmState<2>): [Tensor<3, Float>, LstmState<2>] {
    const input = batchFirstInput('Lstm', batchedInput, this.dInput, this.batchFirst);
    const [output, last] = this.run(input, state, this.reverse);
    return [fromBatchFirst(output, this.batchFirst), last];
  }

  /** @internal The recurrence over batch-first input, forward or reversed. */
  run(input: Tensor<3, Float>, state: LstmState<2> | undefined, reverse: boolean): [Tensor<3, Float>, LstmState<2>] {
    const [batch, seq] = input.dims() as [number, number, number];
    if (state) {
      checkState('Lstm', 'cell state', state.cell, [batch, this.dHidden]);
      checkState('Lstm', 'hidden state', state.hidden, [batch, this.dHidden]);
    }
    let { cell, hidden } = state ?? LstmState.initial([batch, this.dHidden], input.device());
    // The input projections of all time steps at once; the recurrence adds the hidden part.
    const xi = this.inputGate.inputTransform.forward(input);
    const xf = this.inputForget ? undefined : this.forgetGate.inputTransform.forward(input);
    const xo = this.outputGate.inputTransform.forward(input);
    const xc = this.cellGate.inputTransform.forward(input);
    const output = scanTime(seq, reverse, (t) => {
      const i = this.gateActivation.forward(atTime(xi, t).add(this.inputGate.hiddenTransform.forward(hidden)));
      const f = xf
        ? this.gateActivation.forward(atTime(xf, t).add(this.forgetGate.hiddenTransform.forward(hidden)))
        : i.neg().add(1);
      const o = this.gateActivation.forward(atTime(xo, t).add(this.outputGate.hiddenTransform.forward(hidden)));
      const g = this.cellActivation.forward(atTime(xc, t).add(this.cellGate.hiddenTransform.forward(hidden)));
      cell = f.mul(cell).add(i.mul(g));
      if (this.clip !== undefined) cell = cell.clamp(-this.clip, this.clip);
      hidden = o.mul(this.hiddenActivation.forward(cell));
      return hidden;
    });
    return [output, new LstmState(cell, hidden)];
  }

  override displayAttributes(): Record<string, unknown> {
    return { dInput: this.dInput, dHidden: this.dHidden, bias: this.inputGate.inputTransform.bias !== undefined };
  }
}

/** Configuration of a {@link BiLstm} layer (Burn's `BiLstmConfig`). */
export class BiLstmConfig extends Config.define(lstmFields) {
  /** Creates the layer on `device`. */
  init(device: Device): BiLstm {
    return new BiLstm(this, device);
  }
}

/**
 * Bidirectional LSTM (Burn's `BiLstm`): one {@link Lstm} reads the sequence forwards, another
 * backwards; their hidden states are concatenated on the feature dim (`[..., 2·dHidden]`).
 */
export class BiLstm extends Module {
  /** The forward-direction LSTM (Burn's field `forward`, renamed: it would shadow the method). */
  forwardLstm: Lstm;
  /** The backward-direction LSTM (Burn's field `reverse`). */
  reverseLstm: Lstm;
  /** Size of each direction's hidden state. */
  readonly dHidden: number;
  /** Whether inputs are batch-first. */
  readonly batchFirst: boolean;

  constructor(config: BiLstmConfig, device: Device) {
    super();
    const base = new LstmConfig({
      dInput: config.dInput,
      dHidden: config.dHidden,
      bias: config.bias,
      initializer: config.initializer,
      batchFirst: true,
      clip: config.clip,
      inputForget: config.inputForget,
      gateActivation: config.gateActivation,
      cellActivation: config.cellActivation,
      hiddenActivation: config.hiddenActivation,
    });
    this.forwardLstm = base.init(device);
    this.reverseLstm = base.init(device);
    this.dHidden = config.dHidden;
    this.batchFirst = config.batchFirst;
  }

  /**
   * `batchedInput` `[batch, seq, dInput]` (or seq-first); `state` `[2, batch, dHidden]` cell and
   * hidden (index 0 forward, 1 backward). Returns `[batch, seq, 2·dHidden]` and the final state
   * `[2, batch, dHidden]`.
   */
  forward(batchedInput: Tensor<3, Float>, state?: LstmState<3>): [Tensor<3, Float>, LstmState<3>] {
    const input = batchFirstInput('BiLstm', batchedInput, this.forwardLstm.dInput, this.batchFirst);
    const batch = input.dims()[0]!;
    if (state) {
      checkState('BiLstm', 'cell state', state.cell, [2, batch, this.dHidden]);
      checkState('BiLstm', 'hidden state', state.hidden, [2, batch, this.dHidden]);
    }
    const part = (k: 0 | 1) => state && new LstmState(direction(state.cell, k), direction(state.hidden, k));
    const [output, stateF, stateR] = runBidirectional(this.forwardLstm, this.reverseLstm, input, part, this.batchFirst);
    return [
      output,
      new LstmState(Tensor.stack([stateF.cell, stateR.cell], 0), Tensor.stack([stateF.hidden, stateR.hidden], 0)),
    ];
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dInput: this.forwardLstm.dInput,
      dHidden: this.dHidden,
      bias: this.forwardLstm.inputGate.inputTransform.bias !== undefined,
    };
  }
}
