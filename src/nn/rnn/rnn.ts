import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
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
  initialHidden,
  runBidirectional,
  scanTime,
} from './sequence.js';

/** The state of an {@link Rnn} (`[batch, dHidden]`) or {@link BiRnn} (`[2, batch, dHidden]`) (Burn's `RnnState`). */
export class RnnState<D extends number = 2> {
  constructor(/** The hidden state. */ readonly hidden: Tensor<D, Float>) {}
}

const rnnFields = {
  /** Size of the input features. */
  dInput: z.number().int().positive(),
  /** Size of the hidden state. */
  dHidden: z.number().int().positive(),
  /** Whether the gate has biases. */
  bias: z.boolean(),
  /** Initializer of the weights and biases. */
  initializer: initializerSchema.default(Initializer.XavierNormal({ gain: 1 })),
  /** `[batch, seq, dInput]` inputs (true) or `[seq, batch, dInput]` (false). */
  batchFirst: z.boolean().default(true),
  /** Clamps the hidden state to `[-clip, clip]` after each step. */
  clip: z.number().positive().optional(),
  /** Activation of the hidden state. */
  hiddenActivation: ActivationConfig.schema.default(ActivationConfig.Tanh),
};

/** Configuration of an {@link Rnn} layer (Burn's `RnnConfig`). */
export class RnnConfig extends Config.define({
  ...rnnFields,
  /** Process the sequence from the last time step to the first. */
  reverse: z.boolean().default(false),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Rnn {
    return new Rnn(this, device);
  }
}

/**
 * The Elman recurrent layer (Burn's `Rnn`; PyTorch's `nn.RNN` with tanh):
 * `h' = tanh(x·Wᵢ + bᵢ + h·Wₕ + bₕ)`, with `gate.inputTransform` = `weight_ih_l0`ᵀ and
 * `gate.hiddenTransform` = `weight_hh_l0`ᵀ.
 */
export class Rnn extends Module {
  /** The input and hidden projections. */
  gate: GateController;
  /** Hidden activation. */
  hiddenActivation: Activation;
  /** Size of the hidden state. */
  readonly dHidden: number;
  /** Whether inputs are batch-first. */
  readonly batchFirst: boolean;
  /** Whether the sequence is processed backwards. */
  readonly reverse: boolean;
  /** Hidden state clipping bound. */
  readonly clip: number | undefined;

  constructor(config: RnnConfig, device: Device) {
    super();
    this.gate = new GateController(config.dInput, config.dHidden, config.bias, config.initializer, device);
    this.hiddenActivation = config.hiddenActivation.init(device);
    this.dHidden = config.dHidden;
    this.batchFirst = config.batchFirst;
    this.reverse = config.reverse;
    this.clip = config.clip;
  }

  /** Size of the input features. */
  get dInput(): number {
    return this.gate.inputTransform.weight.dims()[0]!;
  }

  /**
   * `batchedInput` `[batch, seq, dInput]` (or seq-first), `state` `[batch, dHidden]` (zeros when
   * absent) → the hidden state of every step `[batch, seq, dHidden]` and the final state.
   */
  forward(batchedInput: Tensor<3, Float>, state?: RnnState<2>): [Tensor<3, Float>, RnnState<2>] {
    const input = batchFirstInput('Rnn', batchedInput, this.dInput, this.batchFirst);
    const [output, last] = this.run(input, state?.hidden, this.reverse);
    return [fromBatchFirst(output, this.batchFirst), new RnnState(last)];
  }

  /** @internal The recurrence over batch-first input; returns the outputs and the final state. */
  run(
    input: Tensor<3, Float>,
    state: Tensor<2, Float> | undefined,
    reverse: boolean,
  ): [Tensor<3, Float>, Tensor<2, Float>] {
    const seq = input.dims()[1]!;
    let hidden = initialHidden('Rnn', state, input, this.dHidden);
    const x = this.gate.inputTransform.forward(input);
    const output = scanTime(seq, reverse, (t) => {
      hidden = this.hiddenActivation.forward(atTime(x, t).add(this.gate.hiddenTransform.forward(hidden)));
      if (this.clip !== undefined) hidden = hidden.clamp(-this.clip, this.clip);
      return hidden;
    });
    return [output, hidden];
  }

  override displayAttributes(): Record<string, unknown> {
    return { dInput: this.dInput, dHidden: this.dHidden, bias: this.gate.inputTransform.bias !== undefined };
  }
}

/** Configuration of a {@link BiRnn} layer (Burn's `BiRnnConfig`). */
export class BiRnnConfig extends Config.define(rnnFields) {
  /** Creates the layer on `device`. */
  init(device: Device): BiRnn {
    return new BiRnn(this, device);
  }
}

/**
 * Bidirectional Elman RNN (Burn's `BiRnn`): one {@link Rnn} forwards, one backwards, hidden
 * states concatenated on the feature dim (`[..., 2·dHidden]`).
 */
export class BiRnn extends Module {
  /** The forward-direction RNN (Burn's field `forward`, renamed: it would shadow the method). */
  forwardRnn: Rnn;
  /** The backward-direction RNN (Burn's field `reverse`). */
  reverseRnn: Rnn;
  /** Size of each direction's hidden state. */
  readonly dHidden: number;
  /** Whether inputs are batch-first. */
  readonly batchFirst: boolean;

  constructor(config: BiRnnConfig, device: Device) {
    super();
    const base = new RnnConfig({
      dInput: config.dInput,
      dHidden: config.dHidden,
      bias: config.bias,
      initializer: config.initializer,
      batchFirst: true,
      clip: config.clip,
      hiddenActivation: config.hiddenActivation,
    });
    this.forwardRnn = base.init(device);
    this.reverseRnn = base.init(device);
    this.dHidden = config.dHidden;
    this.batchFirst = config.batchFirst;
  }

  /**
   * `batchedInput` `[batch, seq, dInput]` (or seq-first), `state` `[2, batch, dHidden]` (0 forward,
   * 1 backward) → `[batch, seq, 2·dHidden]` and the final states `[2, batch, dHidden]`.
   */
  forward(batchedInput: Tensor<3, Float>, state?: RnnState<3>): [Tensor<3, Float>, RnnState<3>] {
    const input = batchFirstInput('BiRnn', batchedInput, this.forwardRnn.dInput, this.batchFirst);
    if (state) checkState('BiRnn', 'hidden state', state.hidden, [2, input.dims()[0]!, this.dHidden]);
    const [output, hF, hR] = runBidirectional(
      this.forwardRnn,
      this.reverseRnn,
      input,
      (k) => state && direction(state.hidden, k),
      this.batchFirst,
    );
    return [output, new RnnState(Tensor.stack([hF, hR], 0))];
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dInput: this.forwardRnn.dInput,
      dHidden: this.dHidden,
      bias: this.forwardRnn.gate.inputTransform.bias !== undefined,
    };
  }
}
