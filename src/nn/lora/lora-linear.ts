import type { Device } from '../../device/device.js';
import type { Float } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import { Linear, type LinearConfig } from '../linear.js';
import type { LoraAdapter } from './adapter.js';

/**
 * A {@link Linear} layer with a LoRA adapter: `y = x·W + b + (alpha / rank)·dropout(x)·a·b`,
 * where the base `weight` and `bias` are frozen and only the adapter's factors train. It is a
 * `Linear` (same fields, same record paths for the base, plus `lora.a` and `lora.b`), so models
 * typed with `Linear` fields keep working after `applyLora`. Made by `applyLora`; folded back into
 * a plain `Linear` by {@link merge} or `mergeLora`.
 */
export class LoraLinear extends Linear {
  /** The trainable low-rank update. */
  declare readonly lora: LoraAdapter;

  // Only built by `wrap` (from an existing layer); the constructor would draw fresh weights.
  private constructor(config: LinearConfig, device: Device) {
    super(config, device);
  }

  /** `base` with `adapter` attached (shares the base's parameters). */
  static wrap(base: Linear, adapter: LoraAdapter): LoraLinear {
    // Built field by field as the module mappers do: no constructor, the base's leaves kept.
    const out = Object.create(LoraLinear.prototype) as Record<string, unknown>;
    for (const key of Object.keys(base)) out[key] = (base as unknown as Record<string, unknown>)[key];
    out.lora = adapter;
    return Tensor.keep(out as unknown as LoraLinear);
  }

  /** `[..., dInput]` → `[..., dOutput]`: the frozen layer plus the adapter's update. */
  override forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return super.forward(input).add(this.lora.forward(input));
  }

  /**
   * The plain {@link Linear} computing the same function: `weight + (alpha / rank)·a·b` (in the
   * layer's layout), detached, with the base weight's id and requireGrad flag; the bias is shared.
   */
  merge(): Linear {
    const delta = this.lora.delta();
    const weight = this.weight.val();
    const merged = weight.add(this.layout === 'col' ? delta.transpose() : delta).detach();
    const out = Object.create(Linear.prototype) as Record<string, unknown>;
    for (const key of Object.keys(this)) {
      if (key !== 'lora') out[key] = (this as unknown as Record<string, unknown>)[key];
    }
    out.weight = this.weight.withTensor(merged);
    return Tensor.keep(out as unknown as Linear);
  }

  override displayAttributes(): Record<string, unknown> {
    return { ...super.displayAttributes(), rank: this.lora.rank(), alpha: this.lora.alpha };
  }
}
