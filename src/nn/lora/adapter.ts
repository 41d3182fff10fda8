import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param } from '../../module/param.js';
import { Distribution } from '../../core/distribution.js';
import type { FloatDType } from '../../core/dtype.js';
import { linear } from '../../tensor/functional/linear.js';
import type { Float } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import { Dropout } from '../dropout.js';

/** What a {@link LoraAdapter} is built from (checked by `applyLora`). */
export interface LoraAdapterInit {
  /** Input features of the adapted layer. */
  readonly dInput: number;
  /** Output features of the adapted layer. */
  readonly dOutput: number;
  /** Rank `r` of the low-rank update. */
  readonly rank: number;
  /** Scaling numerator: the update is multiplied by `alpha / rank`. */
  readonly alpha: number;
  /** Dropout on the adapter's input (training only). */
  readonly dropout: number;
  /** Where the factors live. */
  readonly device: Device;
  /** Their dtype (the base weight's, so the sum does not mix precisions). */
  readonly dtype: FloatDType;
}

/**
 * The trainable low-rank update of a LoRA-adapted layer (Burn's `LoraAdapter`): the factors
 * `a` `[dInput, rank]` and `b` `[rank, dOutput]`, in Burn's row layout (PyTorch/PEFT's `lora_A`
 * and `lora_B` transposed), and the scale `alpha / rank`. It adds
 * `scale · dropout(x) · a · b` to the frozen layer's output, which is
 * `scale · x · Aᵀ · Bᵀ` in PEFT's notation.
 *
 * `a` starts Kaiming-uniform (`U(-1/√dInput, 1/√dInput)`, as PEFT and PyTorch's Linear) and `b`
 * at zero, so a freshly adapted model computes exactly what the base model did.
 */
export class LoraAdapter extends Module {
  /** Down-projection `[dInput, rank]`. */
  a: Param<Tensor<2, Float>>;
  /** Up-projection `[rank, dOutput]`. */
  b: Param<Tensor<2, Float>>;
  /** Dropout on the adapter's input (identity outside autodiff devices). */
  dropout: Dropout;
  /** Scaling numerator (the update is scaled by `alpha / rank`). */
  readonly alpha: number;
  /** `alpha / rank`. */
  readonly scale: number;

  constructor(init: LoraAdapterInit) {
    super();
    const { dInput, dOutput, rank, device, dtype } = init;
    const bound = 1 / Math.sqrt(dInput);
    this.a = new Param(
      Tensor.random([dInput, rank], Distribution.Uniform(-bound, bound), { device, dtype }) as Tensor<2, Float>,
    );
    this.b = new Param(Tensor.zeros([rank, dOutput], { device, dtype }) as Tensor<2, Float>);
    this.dropout = new Dropout(init.dropout);
    this.alpha = init.alpha;
    this.scale = init.alpha / rank;
  }

  /** The rank `r` of the update. */
  rank(): number {
    return this.a.dims()[1]!;
  }

  /** The update of the layer's output: `[..., dInput]` → `[..., dOutput]`, `scale · dropout(x) · a · b`. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    // Down to rank r first: two thin matmuls instead of forming the [dInput, dOutput] delta.
    const low = linear(this.dropout.forward(input), this.a.val());
    return linear(low, this.b.val()).mul(this.scale);
  }

  /** The update of the weight, `scale · a · b`, `[dInput, dOutput]` (what merging adds). */
  delta(): Tensor<2, Float> {
    return this.a.val().matmul(this.b.val()).mul(this.scale);
  }

  override displayAttributes(): Record<string, unknown> {
    return { rank: this.rank(), alpha: this.alpha, dropout: this.dropout.prob };
  }
}
