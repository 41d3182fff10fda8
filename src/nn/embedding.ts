import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import { isIntDType } from '../core/dtype.js';
import { BurnError, fmt } from '../core/errors.js';
import { embedding } from '../tensor/functional/linear.js';
import type { Float, Int } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { Initializer, initializerSchema, initTensor } from './init.js';

/** Configuration of an {@link Embedding} layer (Burn's `EmbeddingConfig`). */
export class EmbeddingConfig extends Config.define({
  /** Number of embedding vectors. */
  nEmbedding: z.number().int().positive(),
  /** Size of each vector. */
  dModel: z.number().int().positive(),
  /** Initializer of the table (default Normal(0, 1)). */
  initializer: initializerSchema.default(Initializer.Normal(0, 1)),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Embedding {
    return new Embedding(this, device);
  }
}

/** A lookup table of `nEmbedding` learnable vectors of size `dModel` (Burn's `Embedding`). */
export class Embedding extends Module {
  /** `[nEmbedding, dModel]`. */
  weight: Param<Tensor<2, Float>>;

  constructor(config: EmbeddingConfig, device: Device) {
    super();
    this.weight = new Param(initTensor(config.initializer, [config.nEmbedding, config.dModel], {}, device));
  }

  /** Int indices `[batch, seqLength]` → vectors `[batch, seqLength, dModel]`. */
  forward(input: Tensor<2, Int>): Tensor<3, Float> {
    const dims = input.dims();
    const [nEmbedding, dModel] = this.weight.dims() as [number, number];
    if (dims.length !== 2)
      throw new BurnError(
        'Embedding',
        `input of shape ${fmt(dims)} has rank ${dims.length}; expected Int indices [batch, seqLength]`,
      );
    if (!isIntDType(input.dtype())) {
      throw new BurnError(
        'Embedding',
        `input of dtype ${input.dtype()}; expected Int indices [batch, seqLength] into ${nEmbedding} vectors of size ${dModel}`,
      );
    }
    return embedding(this.weight.val(), input);
  }

  override displayAttributes(): Record<string, unknown> {
    const [nEmbedding, dModel] = this.weight.dims();
    return { nEmbedding, dModel };
  }
}
