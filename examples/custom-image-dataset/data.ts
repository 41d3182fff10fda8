// Turns decoded image-folder items into normalized image batches and class targets.
import { BurnError, Device, Tensor, type Int } from 'burn-ts';
import type { Batcher, ImageDatasetItem } from 'burn-ts/data';

/** Fashion-MNIST's mean and standard deviation of pixel values in [0, 1]. */
const MEAN = 0.286;
const STD = 0.353;

/** Images `[batch, 1, 28, 28]`, class indices, and the files they came from. */
export interface ImageBatch {
  images: Tensor<4>;
  targets: Tensor<1, Int>;
  imagePaths: string[];
}

export class ImageBatcher implements Batcher<ImageDatasetItem, ImageBatch> {
  batch(items: ImageDatasetItem[], device: Device): ImageBatch {
    const size = 28 * 28;
    const pixels = new Float32Array(items.length * size);
    const labels = new Int32Array(items.length);
    items.forEach((item, i) => {
      if (item.channels !== 1 || item.imageWidth !== 28 || item.imageHeight !== 28) {
        throw new BurnError(
          'ImageBatcher',
          `${item.imagePath}: ${item.imageWidth}x${item.imageHeight} with ${item.channels} channels; expected 28x28 gray`,
        );
      }
      if (item.annotation.kind !== 'label')
        throw new BurnError(
          'ImageBatcher',
          `${item.imagePath}: a ${item.annotation.kind} annotation; expected a class label`,
        );
      pixels.set(item.image, i * size);
      labels[i] = item.annotation.label;
    });
    const images = Tensor.fromFloats(pixels, device).reshape([items.length, 1, 28, 28]).div(255).sub(MEAN).div(STD);
    return { images, targets: Tensor.fromInts(labels, device), imagePaths: items.map((item) => item.imagePath) };
  }
}
