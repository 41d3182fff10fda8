import type { Device } from '../device/device.js';
import { isFloatDType } from '../core/dtype.js';
import type { Kind } from '../tensor/kind.js';
import { checkOptions } from '../core/options.js';
import { Tensor } from '../tensor/tensor.js';

/** A stable parameter identifier: kept through map, clone, device moves, save and load. */
export type ParamId = string;

/**
 * A fresh parameter id: a random u64 as 16 hex digits, as Burn's random `ParamId`, so it
 * round-trips through burnpack's `param_id` (a u64) unchanged.
 */
export function newParamId(): ParamId {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return `${words[0]!.toString(16).padStart(8, '0')}${words[1]!.toString(16).padStart(8, '0')}`;
}

/** Options of a {@link Param}. */
export interface ParamOptions {
  /** The id to keep (default: a new one). */
  readonly id?: ParamId;
  /** Whether the optimizer trains it (default: true for float tensors). */
  readonly requireGrad?: boolean;
}

/**
 * A trainable tensor of a {@link Module} (Burn's `Param`). On an autodiff device a parameter that
 * requires grad is a leaf of the graph, so `loss.backward()` computes its gradient.
 */
export class Param<T extends Tensor<number, Kind> = Tensor<number, Kind>> {
  /** The stable id. */
  readonly id: ParamId;
  /** Whether gradients are computed for it. */
  readonly requireGrad: boolean;
  private readonly tensor: T;

  constructor(tensor: T, options: ParamOptions = {}) {
    checkOptions(options, ['id', 'requireGrad'], 'Param');
    this.id = options.id ?? newParamId();
    this.requireGrad = (options.requireGrad ?? true) && isFloatDType(tensor.dtype());
    this.tensor = (this.requireGrad ? tensor.requireGrad() : tensor.setRequireGrad(false)) as T;
    // Training state outlives scopes: `Tensor.scope(() => { model = optim.step(…) })` keeps it.
    Tensor.keep(this);
  }

  /** A parameter holding `tensor`, with a new id. */
  static from<T extends Tensor<number, Kind>>(tensor: T, options: ParamOptions = {}): Param<T> {
    return new Param(tensor, options);
  }

  /** A parameter holding `tensor`, with a new id: Burn's name (`Param::from_tensor`) for {@link Param.from}. */
  static fromTensor<T extends Tensor<number, Kind>>(tensor: T, options: ParamOptions = {}): Param<T> {
    return new Param(tensor, options);
  }

  /** The tensor (Burn's `val()`). */
  val(): T {
    return this.tensor;
  }

  /** The shape of the tensor. */
  dims(): number[] {
    return this.tensor.dims();
  }

  /** The device of the tensor. */
  device(): Device {
    return this.tensor.device();
  }

  /** The same id with another tensor (and, optionally, another requireGrad). */
  withTensor<U extends Tensor<number, Kind>>(tensor: U, requireGrad = this.requireGrad): Param<U> {
    return new Param(tensor, { id: this.id, requireGrad });
  }

  /** The same parameter with requireGrad set. */
  setRequireGrad(requireGrad: boolean): Param<T> {
    return new Param(this.tensor, { id: this.id, requireGrad });
  }
}

/**
 * A non-trainable tensor a module carries and saves, such as batch norm's running statistics
 * (Burn's `RunningState`). Moved with the module, never tracked, not counted by `numParams`.
 */
export class RunningState<T extends Tensor<number, Kind> = Tensor<number, Kind>> {
  readonly id: ParamId;
  private readonly tensor: T;

  constructor(tensor: T, id: ParamId = newParamId()) {
    this.id = id;
    this.tensor = tensor.isRequireGrad() ? (tensor.detach() as T) : tensor;
    Tensor.keep(this);
  }

  /** The current value. */
  value(): T {
    return this.tensor;
  }

  /** A new state with the same id holding `tensor`. */
  update(tensor: T): RunningState<T> {
    return new RunningState(tensor, this.id);
  }
}
