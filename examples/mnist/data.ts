// Turns dataset items into normalized image and label tensors (Burn's `MnistBatcher`).
import { Device, Tensor, type Int } from 'burn-ts';
import type { Batcher, MnistItem } from 'burn-ts/data';

export interface MnistBatch {
  images: Tensor<3>;
  targets: Tensor<1, Int>;
}

/** Normalization of the guide: scale to [0, 1], then MNIST's mean and standard deviation. */
const MEAN = 0.1307;
const STD = 0.3081;

export class MnistBatcher implements Batcher<MnistItem, MnistBatch> {
  batch(items: MnistItem[], device: Device): MnistBatch {
    const pixels = new Float32Array(items.length * 28 * 28);
    items.forEach((item, i) => item.image.forEach((row, y) => pixels.set(row, (i * 28 + y) * 28)));
    const images = Tensor.fromFloats(pixels, device).reshape([items.length, 28, 28]).div(255).sub(MEAN).div(STD);
    const targets = Tensor.fromInts(
      Int32Array.from(items, (item) => item.label),
      device,
    );
    return { images, targets };
  }
}
