import type { Gradients } from '../backend/autodiff.js';
import type { Device } from '../device/device.js';
import type { Module } from '../module/module.js';
import type { ParamId } from '../module/param.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import { sameShape } from '../core/shape.js';
import type { Tensor } from '../tensor/tensor.js';

type AnyFloat = Tensor<number, Float>;

/**
 * The gradients of a module's parameters by {@link ParamId} (Burn's `GradientsParams`), each a
 * tensor of the parameter's inner (non-autodiff) device. Made from the `Gradients` of a backward
 * pass with {@link GradientsParams.fromGrads}; optimizers read it, accumulators sum it.
 */
export class GradientsParams {
  private readonly byId = new Map<ParamId, AnyFloat>();

  /**
   * The gradient of every trainable parameter of `module` found in `grads` (frozen parameters and
   * parameters the loss does not depend on are left out). The module must live on an autodiff device.
   */
  static fromGrads(grads: Gradients, module: Module): GradientsParams {
    return GradientsParams.fromModule(grads, module);
  }

  /** Same as {@link fromGrads} (Burn's `from_module`). */
  static fromModule(grads: Gradients, module: Module): GradientsParams {
    return GradientsParams.collect(grads, module, undefined);
  }

  /** Like {@link fromGrads}, limited to the parameters with the given ids (Burn's `from_params`). */
  static fromParams(grads: Gradients, module: Module, ids: readonly ParamId[]): GradientsParams {
    return GradientsParams.collect(grads, module, new Set(ids));
  }

  private static collect(grads: Gradients, module: Module, only: Set<ParamId> | undefined): GradientsParams {
    const out = new GradientsParams();
    module.visit((param) => {
      if (only !== undefined && !only.has(param.id)) return;
      if (!param.requireGrad) return;
      const grad = (param.val() as AnyFloat).grad(grads);
      if (grad !== undefined) out.byId.set(param.id, grad);
    });
    return out;
  }

  /** The gradient of parameter `id`, if any. */
  get<D extends number = number>(id: ParamId): Tensor<D, Float> | undefined {
    return this.byId.get(id) as Tensor<D, Float> | undefined;
  }

  /** Removes and returns the gradient of parameter `id`. */
  remove<D extends number = number>(id: ParamId): Tensor<D, Float> | undefined {
    const g = this.byId.get(id);
    this.byId.delete(id);
    return g as Tensor<D, Float> | undefined;
  }

  /** Sets (replaces) the gradient of parameter `id`. */
  register(id: ParamId, grad: Tensor<number, Float>): void {
    const current = this.byId.get(id);
    if (current !== undefined && !sameShape(current.dims(), grad.dims())) {
      throw new BurnError(
        'GradientsParams.register',
        `gradient of shape ${fmt(grad.dims())} for parameter ${id}, which had a gradient of shape ${fmt(current.dims())}`,
      );
    }
    this.byId.set(id, grad);
  }

  /** True when parameter `id` has a gradient. */
  has(id: ParamId): boolean {
    return this.byId.has(id);
  }

  /** The ids holding a gradient. */
  ids(): ParamId[] {
    return [...this.byId.keys()];
  }

  /** Number of gradients. */
  len(): number {
    return this.byId.size;
  }

  /** True when it holds no gradient. */
  isEmpty(): boolean {
    return this.byId.size === 0;
  }

  /** A copy with every gradient moved to `device` (Burn's `to_device`). */
  toDevice(device: Device): GradientsParams {
    const out = new GradientsParams();
    for (const [id, g] of this.byId) out.byId.set(id, g.device().equals(device) ? g : g.toDevice(device));
    return out;
  }
}
