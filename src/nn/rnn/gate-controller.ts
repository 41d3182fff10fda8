import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Initializer } from '../init.js';
import { Linear, LinearConfig } from '../linear.js';

/**
 * One gate of a recurrent cell (Burn's `GateController`): `x·Wᵢ + bᵢ + h·Wₕ + bₕ`, with
 * `inputTransform` `[dInput, dOutput]` and `hiddenTransform` `[dOutput, dOutput]` (PyTorch's
 * `weight_ih`/`weight_hh` rows of this gate, transposed; `bias_ih`/`bias_hh`).
 */
export class GateController extends Module {
  /** Applied to the input. */
  inputTransform: Linear;
  /** Applied to the previous hidden state. */
  hiddenTransform: Linear;

  constructor(dInput: number, dOutput: number, bias: boolean, initializer: Initializer, device: Device) {
    super();
    this.inputTransform = new LinearConfig({ dInput, dOutput, bias, initializer }).init(device);
    this.hiddenTransform = new LinearConfig({ dInput: dOutput, dOutput, bias, initializer }).init(device);
  }

  /** `inputTransform(input) + hiddenTransform(hidden)`, both `[batch, ·]` → `[batch, dOutput]`. */
  gateProduct(input: Tensor<2, Float>, hidden: Tensor<2, Float>): Tensor<2, Float> {
    return this.inputTransform.forward(input).add(this.hiddenTransform.forward(hidden));
  }
}
