import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param, RunningState } from '../../module/param.js';
import { BurnError, fmt } from '../../core/errors.js';
import { batchNorm, batchNormWithStats } from '../../tensor/functional/norm.js';
import type { Float, Kind } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

/** Configuration of a {@link BatchNorm} layer (Burn's `BatchNormConfig`). */
export class BatchNormConfig extends Config.define({
  /** Number of channels (dim 1 of the input; 0 is allowed for a `NormalizationConfig` policy sized later). */
  numFeatures: z.number().int().nonnegative(),
  /** Added to the variance for numerical stability (default 1e-5). */
  epsilon: z.number().nonnegative().default(1e-5),
  /** Weight of the batch statistics in the running statistics (default 0.1). */
  momentum: z.number().min(0).max(1).default(0.1),
}) {
  /** Creates the layer on `device`: γ = 1, β = 0, running mean 0, running variance 1. */
  init(device: Device): BatchNorm {
    return new BatchNorm(this, device);
  }
}

/** The result of {@link BatchNorm.forwardTrain}: the output and the layer with updated running statistics. */
export interface BatchNormStep<D extends number> {
  /** The normalized input. */
  readonly output: Tensor<D, Float>;
  /** A new layer holding the updated running statistics (the same parameters). */
  readonly module: BatchNorm;
}

/** `t` on `device`, moving between an autodiff device and its inner device without copying. */
function onDevice<D extends number, K extends Kind>(t: Tensor<D, K>, device: Device): Tensor<D, K> {
  const from = t.device();
  if (from.equals(device)) return t;
  if (device.isAutodiff() && device.inner().equals(from)) return Tensor.fromInner(t, device);
  if (from.isAutodiff() && from.inner().equals(device)) return t.inner();
  return t.toDevice(device);
}

/**
 * Batch normalization over dim 1 of `[batch, channels, ...]` (Burn's `BatchNorm`):
 * `(x - mean) / sqrt(var + epsilon) · γ + β`.
 *
 * As in Burn, the mode follows the device: on an autodiff device (training) {@link forward}
 * normalizes with the batch mean and biased batch variance and updates the running statistics,
 * `running = (1 - momentum) · running + momentum · batch` (Burn uses the biased variance here;
 * PyTorch the unbiased one); on any other device (inference, e.g. after `module.valid()`) it uses
 * the running statistics.
 *
 * Running statistics are state, like PyTorch's buffers and Burn's `RunningState`: `forward` stores
 * the updated statistics on this layer (replacing its `runningMean`/`runningVar` fields), so a
 * model that calls `this.norm.forward(x)` in its own `forward` keeps them through a plain training
 * loop, and the model the optimizer returns carries them on. Parameters are never touched. For a
 * pure step use {@link forwardTrain}, which leaves this layer unchanged and returns the updated
 * one; {@link forwardInference} always uses the running statistics.
 *
 * ```ts
 * const bn = new BatchNormConfig({ numFeatures: 16 }).init(device.autodiff());
 * const y = bn.forward(x);                        // batch statistics; bn's running stats updated
 * const { output, module } = bn.forwardTrain(x);  // pure: `module` has the updated stats
 * const z = bn.valid().forward(x);                // inference with the running statistics
 * ```
 */
export class BatchNorm extends Module {
  /** Scale γ `[numFeatures]` (initialized to ones). */
  gamma: Param<Tensor<1, Float>>;
  /** Shift β `[numFeatures]` (initialized to zeros). */
  beta: Param<Tensor<1, Float>>;
  /** Running mean `[numFeatures]` (initialized to zeros; replaced by `forward` in training). */
  runningMean: RunningState<Tensor<1, Float>>;
  /** Running variance `[numFeatures]` (initialized to ones; replaced by `forward` in training). */
  runningVar: RunningState<Tensor<1, Float>>;
  /** Weight of the batch statistics in the running statistics. */
  readonly momentum: number;
  /** Added to the variance. */
  readonly epsilon: number;

  constructor(config: BatchNormConfig, device: Device) {
    super();
    const n = config.numFeatures;
    this.gamma = new Param(Tensor.ones([n], device));
    this.beta = new Param(Tensor.zeros([n], device));
    this.runningMean = new RunningState(Tensor.zeros([n], device));
    this.runningVar = new RunningState(Tensor.ones([n], device));
    this.momentum = config.momentum;
    this.epsilon = config.epsilon;
  }

  private check(input: Tensor<number, Float>): void {
    const dims = input.dims();
    const [n] = this.gamma.dims() as [number];
    if (dims.length < 2 || dims[1] !== n) {
      throw new BurnError(
        'BatchNorm',
        `input of shape ${fmt(dims)}; expected [batch, ${n}, ...] (rank >= 2 with numFeatures ${n} channels in dim 1)`,
      );
    }
  }

  /**
   * Training mode (batch statistics, running statistics updated on this layer) on an autodiff
   * device, inference mode (running statistics) elsewhere. `[batch, channels, ...]` → same shape.
   */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    if (!input.device().isAutodiff()) return this.forwardInference(input);
    const step = this.forwardTrain(input);
    // Burn's RunningState is updated in place by `forward`; keep the new statistics on this layer.
    this.runningMean = step.module.runningMean;
    this.runningVar = step.module.runningVar;
    return step.output;
  }

  /** Normalizes with the batch statistics and returns a new layer with the updated running statistics (this layer is unchanged). */
  forwardTrain<D extends number>(input: Tensor<D, Float>): BatchNormStep<D> {
    this.check(input);
    const device = input.device();
    const { output, runningMean, runningVar } = batchNormWithStats(
      input,
      onDevice(this.runningMean.value(), device),
      onDevice(this.runningVar.value(), device),
      {
        weight: this.gamma.val(),
        bias: this.beta.val(),
        epsilon: this.epsilon,
        momentum: this.momentum,
        training: true,
      },
    );
    const module = this.clone();
    module.runningMean = this.runningMean.update(runningMean.detach());
    module.runningVar = this.runningVar.update(runningVar.detach());
    return { output, module };
  }

  /** Normalizes with the running statistics (whatever the device). */
  forwardInference<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    this.check(input);
    const device = input.device();
    return batchNorm(input, onDevice(this.runningMean.value(), device), onDevice(this.runningVar.value(), device), {
      weight: this.gamma.val(),
      bias: this.beta.val(),
      epsilon: this.epsilon,
    });
  }

  override displayAttributes(): Record<string, unknown> {
    return { numFeatures: this.gamma.dims()[0], momentum: this.momentum, epsilon: this.epsilon };
  }
}
