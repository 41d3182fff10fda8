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
  initialHidden,
  runBidirectional,
  scanTime,
} from './sequence.js';

const gruFields = {
  /** Size of the input features. */
  dInput: z.number().int().positive(),
  /** Size of the hidden state. */
  dHidden: z.number().int().positive(),
  /** Whether the gates have biases. */
  bias: z.boolean(),
  /**
   * Apply the reset gate after the hidden projection, `n = tanh(Wₙx + bₙ + r·(Uₙh + cₙ))` (as
   * PyTorch and cuDNN), or before it, `n = tanh(Wₙx + bₙ + Uₙ(r·h) + cₙ)` (the original paper).
   */
  resetAfter: z.boolean().default(true),
  /** Initializer of the gate weights and biases. */
  initializer: initializerSchema.default(Initializer.XavierNormal({ gain: 1 })),
  /** Activation of the update and reset gates. */
  gateActivation: ActivationConfig.schema.default(ActivationConfig.Sigmoid),
  /** Activation of the candidate hidden state. */
  hiddenActivation: ActivationConfig.schema.default(ActivationConfig.Tanh),
  /** Clamps the hidden state to `[-clip, clip]` after each step. */
  clip: z.number().positive().optional(),
};

/** Configuration of a {@link Gru} layer (Burn's `GruConfig`). */
export class GruConfig extends Config.define(gruFields) {
  /** Creates the layer on `device`. */
  init(device: Device): Gru {
    return new Gru(this, device);
  }
}

/**
 * Gated recurrent unit (Burn's `Gru`) over batch-first input: `z, r = σ(…)`, candidate `n`,
 * `h' = (1 - z)·n + z·h`. PyTorch's `weight_ih_l0` rows are the gates in the order r, z, n
 * (`resetGate`, `updateGate`, `newGate`); PyTorch's GRU is `resetAfter: true`.
 */
export class Gru extends Module {
  /** Update gate (z). */
  updateGate: GateController;
  /** Reset gate (r). */
  resetGate: GateController;
  /** Candidate (new) gate (n). */
  newGate: GateController;
  /** Gate activation. */
  gateActivation: Activation;
  /** Candidate activation. */
  hiddenActivation: Activation;
  /** Size of the hidden state. */
  readonly dHidden: number;
  /** Whether the reset gate is applied after the hidden projection. */
  readonly resetAfter: boolean;
  /** Hidden state clipping bound. */
  readonly clip: number | undefined;

  constructor(config: GruConfig, device: Device) {
    super();
    const gate = () => new GateController(config.dInput, config.dHidden, config.bias, config.initializer, device);
    this.updateGate = gate();
    this.resetGate = gate();
    this.newGate = gate();
    this.gateActivation = config.gateActivation.init(device);
    this.hiddenActivation = config.hiddenActivation.init(device);
    this.dHidden = config.dHidden;
    this.resetAfter = config.resetAfter;
    this.clip = config.clip;
  }

  /** Size of the input features. */
  get dInput(): number {
    return this.updateGate.inputTransform.weight.dims()[0]!;
  }

  /**
   * `batchedInput` `[batch, seq, dInput]`, `state` `[batch, dHidden]` (zeros when absent) → the
   * hidden state of every step `[batch, seq, dHidden]` (as Burn, the final state is not returned;
   * it is the last step of the output).
   */
  forward(batchedInput: Tensor<3, Float>, state?: Tensor<2, Float>): Tensor<3, Float> {
    const input = batchFirstInput('Gru', batchedInput, this.dInput, true);
    return this.run(input, state, false)[0];
  }

  /** @internal The recurrence over batch-first input; returns the outputs and the final state. */
  run(
    input: Tensor<3, Float>,
    state: Tensor<2, Float> | undefined,
    reverse: boolean,
  ): [Tensor<3, Float>, Tensor<2, Float>] {
    const seq = input.dims()[1]!;
    let hidden = initialHidden('Gru', state, input, this.dHidden);
    const xz = this.updateGate.inputTransform.forward(input);
    const xr = this.resetGate.inputTransform.forward(input);
    const xn = this.newGate.inputTransform.forward(input);
    const output = scanTime(seq, reverse, (t) => {
      const z = this.gateActivation.forward(atTime(xz, t).add(this.updateGate.hiddenTransform.forward(hidden)));
      const r = this.gateActivation.forward(atTime(xr, t).add(this.resetGate.hiddenTransform.forward(hidden)));
      const hn = this.resetAfter
        ? r.mul(this.newGate.hiddenTransform.forward(hidden))
        : this.newGate.hiddenTransform.forward(hidden.mul(r));
      const n = this.hiddenActivation.forward(atTime(xn, t).add(hn));
      hidden = n.mul(z.neg().add(1)).add(z.mul(hidden));
      if (this.clip !== undefined) hidden = hidden.clamp(-this.clip, this.clip);
      return hidden;
    });
    return [output, hidden];
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dInput: this.dInput,
      dHidden: this.dHidden,
      bias: this.updateGate.inputTransform.bias !== undefined,
      resetAfter: this.resetAfter,
    };
  }
}

/** Configuration of a {@link BiGru} layer (Burn's `BiGruConfig`). */
export class BiGruConfig extends Config.define({
  ...gruFields,
  /** `[batch, seq, dInput]` inputs (true) or `[seq, batch, dInput]` (false). */
  batchFirst: z.boolean().default(true),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): BiGru {
    return new BiGru(this, device);
  }
}

/**
 * Bidirectional GRU (Burn's `BiGru`): one {@link Gru} forwards, one backwards, hidden states
 * concatenated on the feature dim (`[..., 2·dHidden]`).
 */
export class BiGru extends Module {
  /** The forward-direction GRU (Burn's field `forward`, renamed: it would shadow the method). */
  forwardGru: Gru;
  /** The backward-direction GRU (Burn's field `reverse`). */
  reverseGru: Gru;
  /** Size of each direction's hidden state. */
  readonly dHidden: number;
  /** Whether inputs are batch-first. */
  readonly batchFirst: boolean;

  constructor(config: BiGruConfig, device: Device) {
    super();
    const base = new GruConfig({
      dInput: config.dInput,
      dHidden: config.dHidden,
      bias: config.bias,
      resetAfter: config.resetAfter,
      initializer: config.initializer,
      gateActivation: config.gateActivation,
      hiddenActivation: config.hiddenActivation,
      clip: config.clip,
    });
    this.forwardGru = base.init(device);
    this.reverseGru = base.init(device);
    this.dHidden = config.dHidden;
    this.batchFirst = config.batchFirst;
  }

  /**
   * `batchedInput` `[batch, seq, dInput]` (or seq-first), `state` `[2, batch, dHidden]` (0 forward,
   * 1 backward) → `[batch, seq, 2·dHidden]` and the final states `[2, batch, dHidden]`.
   */
  forward(batchedInput: Tensor<3, Float>, state?: Tensor<3, Float>): [Tensor<3, Float>, Tensor<3, Float>] {
    const input = batchFirstInput('BiGru', batchedInput, this.forwardGru.dInput, this.batchFirst);
    if (state) checkState('BiGru', 'hidden state', state, [2, input.dims()[0]!, this.dHidden]);
    const [output, hF, hR] = runBidirectional(
      this.forwardGru,
      this.reverseGru,
      input,
      (k) => state && direction(state, k),
      this.batchFirst,
    );
    return [output, Tensor.stack([hF, hR], 0)];
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dInput: this.forwardGru.dInput,
      dHidden: this.dHidden,
      bias: this.forwardGru.updateGate.inputTransform.bias !== undefined,
    };
  }
}
