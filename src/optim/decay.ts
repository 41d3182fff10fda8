import { Config } from '../config/config.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { nonNegative } from './schema.js';

/** Configuration of L2 weight decay added to the gradient (Burn's `WeightDecayConfig`). */
export class WeightDecayConfig extends Config.define({
  /** L2 penalty: the gradient becomes `g + penalty·θ`. */
  penalty: nonNegative(),
}) {}

/** L2 weight decay (Burn's `WeightDecay`): `g + penalty·θ`. */
export class WeightDecay {
  private readonly penalty: number;

  constructor(config: WeightDecayConfig) {
    this.penalty = config.penalty;
  }

  /** The gradient with the penalty of `tensor` added. */
  transform<D extends number>(grad: Tensor<D, Float>, tensor: Tensor<D, Float>): Tensor<D, Float> {
    return tensor.mul(this.penalty).add(grad);
  }
}
