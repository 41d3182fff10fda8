import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../tensor/errors.js';
import type { Float } from '../../tensor/kind.js';
import { sameShape } from '../../tensor/shape.js';
import { Tensor } from '../../tensor/tensor.js';
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

/** @internal Checks a recurrent input `[batch, seq, dInput]` (or `[seq, batch, dInput]`); returns it batch-first. */
export function batchFirstInput(layer: string, input: Tensor<3, Float>, dInput: number, batchFirst: boolean): Tensor<3, Float> {
  const dims = input.dims();
  if (dims.length !== 3 || dims[2] !== dInput) {
    const layout = batchFirst ? '[batch, seq, ' : '[seq, batch, ';
    throw new BurnError(layer, `input of shape ${fmt(dims)}; expected ${layout}${dInput}] (dInput ${dInput})`);
  }
  if (dims[batchFirst ? 1 : 0] === 0 || dims[batchFirst ? 0 : 1] === 0) {
    throw new BurnError(layer, `input of shape ${fmt(dims)} has no time steps or no batch; expected at least one of each`);
  }
  return batchFirst ? input : input.swapDims(0, 1);
}

/** @internal Checks an initial state's shape. */
export function checkState(layer: string, what: string, state: Tensor<number, Float>, expected: readonly number[]): void {
  if (!sameShape(state.dims(), expected)) {
    throw new BurnError(layer, `initial ${what} of shape ${fmt(state.dims())}; expected ${fmt(expected)}`);
  }
}

/**
 * @internal Runs `step(t, projectedInputs)` over the time steps of batch-first `[batch, seq, ·]`
 * inputs (forward or reversed) and stacks the returned hidden states at their time index:
 * `[batch, seq, dHidden]`. Each input is sliced to `[batch, ·]` at time `t`.
 */
export function scanTime(seq: number, reverse: boolean, step: (t: number) => Tensor<2, Float>): Tensor<3, Float> {
  const outputs = new Array<Tensor<2, Float>>(seq);
  for (let i = 0; i < seq; i++) {
    const t = reverse ? seq - 1 - i : i;
    outputs[t] = step(t);
  }
  return Tensor.stack(outputs, 1) as Tensor<3, Float>;
}

/** @internal `x[:, t, :]` of a `[batch, seq, d]` tensor as `[batch, d]`. */
export function atTime(x: Tensor<3, Float>, t: number): Tensor<2, Float> {
  return x.slice([null, t]).squeezeDim(1);
}
