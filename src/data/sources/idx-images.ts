import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BurnError } from '../../core/errors.js';
import { DatasetBase } from '../dataset/dataset.js';
import type { WorkerRecipe } from '../dataset/recipe.js';
import { readIdx, type IdxReadOptions } from './idx.js';

/** An MNIST-style item: a grayscale image as rows of pixel values 0–255, and its class label. */
export interface MnistItem {
  /** `image[y][x]`, 28 rows of 28 pixel values in 0–255 for MNIST and Fashion-MNIST. */
  image: number[][];
  /** The class, 0–9. */
  label: number;
}

/** Where an image dataset's data came from. */
export type ImageSource =
  | { readonly kind: 'idx'; readonly images: string; readonly labels: string }
  | { readonly kind: 'npm'; readonly package: string };

function toShared(a: Uint8Array): Uint8Array {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const shared = new Uint8Array(new SharedArrayBuffer(a.byteLength));
  shared.set(a);
  return shared;
}

/**
 * Grayscale images of one size with one label each, held as two byte arrays (the layout of
 * MNIST's IDX files). `get(i)` builds the item's `number[][]` on demand. In data loader workers
 * the bytes are shared (a `SharedArrayBuffer`), not copied.
 */
export class IdxImageDataset extends DatasetBase<MnistItem> {
  private images: Uint8Array;
  private labels: Uint8Array;

  constructor(
    images: Uint8Array,
    labels: Uint8Array,
    readonly rows: number,
    readonly cols: number,
    readonly source: ImageSource,
  ) {
    super();
    if (images.length !== labels.length * rows * cols) {
      throw new BurnError(
        'IdxImageDataset',
        `${images.length} pixel bytes for ${labels.length} labels of ${rows}x${cols} images; expected ${labels.length * rows * cols}`,
      );
    }
    this.images = images;
    this.labels = labels;
  }

  /**
   * Reads an images file (`[n, rows, cols]` u8) and a labels file (`[n]` u8) in IDX format (raw or
   * gzip); a `BurnError` names the file and what is wrong with it. `numClasses` (default 10)
   * bounds the labels; `maxBytes` bounds each file's array (see `readIdx`).
   */
  static fromIdxFiles(
    imagesPath: string,
    labelsPath: string,
    options: { readonly numClasses?: number } & IdxReadOptions = {},
  ): IdxImageDataset {
    const op = 'IdxImageDataset.fromIdxFiles';
    const images = readIdx(imagesPath, options);
    const labels = readIdx(labelsPath, options);
    if (images.type !== 'u8' || images.dims.length !== 3)
      throw new BurnError(
        op,
        `${imagesPath} holds ${images.type} [${images.dims.join(', ')}]; expected u8 images [n, rows, cols]`,
      );
    if (labels.type !== 'u8' || labels.dims.length !== 1)
      throw new BurnError(op, `${labelsPath} holds ${labels.type} [${labels.dims.join(', ')}]; expected u8 labels [n]`);
    if (images.dims[0] !== labels.dims[0])
      throw new BurnError(
        op,
        `${imagesPath} has ${images.dims[0]} images but ${labelsPath} has ${labels.dims[0]} labels`,
      );
    const classes = options.numClasses ?? 10;
    const l = labels.data as Uint8Array;
    const bad = l.findIndex((v) => v >= classes);
    if (bad >= 0) throw new BurnError(op, `${labelsPath}: label ${l[bad]} at index ${bad}; expected 0..${classes - 1}`);
    return new IdxImageDataset(images.data as Uint8Array, l, images.dims[1]!, images.dims[2]!, {
      kind: 'idx',
      images: imagesPath,
      labels: labelsPath,
    });
  }

  get(index: number): MnistItem | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.labels.length) return undefined;
    const { rows, cols } = this;
    const base = index * rows * cols;
    const image: number[][] = new Array(rows);
    for (let y = 0; y < rows; y++) {
      const row: number[] = new Array(cols);
      for (let x = 0; x < cols; x++) row[x] = this.images[base + y * cols + x]!;
      image[y] = row;
    }
    return { image, label: this.labels[index]! };
  }

  len(): number {
    return this.labels.length;
  }

  /** Every pixel byte, item after item (`len * rows * cols`). */
  imagesArray(): Uint8Array {
    return this.images;
  }

  /** Every label. */
  labelsArray(): Uint8Array {
    return this.labels;
  }

  /** The raw pixel bytes of item `index` (`rows * cols` values, row-major), without building arrays. */
  imageBytes(index: number): Uint8Array | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.labels.length) return undefined;
    const size = this.rows * this.cols;
    return this.images.subarray(index * size, (index + 1) * size);
  }

  /** Workers share the bytes through a `SharedArrayBuffer` (made on the first call). */
  workerRecipe(): WorkerRecipe {
    this.images = toShared(this.images);
    this.labels = toShared(this.labels);
    return {
      module: import.meta.url,
      export: 'openIdxImageDataset',
      args: { images: this.images, labels: this.labels, rows: this.rows, cols: this.cols, source: this.source },
    };
  }
}

/**
 * Worker factory of {@link IdxImageDataset}.
 * @public a data loader worker imports it by the name its recipe gives.
 */
export function openIdxImageDataset(args: {
  images: Uint8Array;
  labels: Uint8Array;
  rows: number;
  cols: number;
  source: ImageSource;
}): IdxImageDataset {
  return new IdxImageDataset(args.images, args.labels, args.rows, args.cols, args.source);
}

/** The standard file names of an MNIST-layout split. */
export function idxFileNames(split: 'train' | 'test'): { images: string; labels: string } {
  const prefix = split === 'train' ? 'train' : 't10k';
  return { images: `${prefix}-images-idx3-ubyte`, labels: `${prefix}-labels-idx1-ubyte` };
}

/** The path of `name` (raw) or `name.gz` in `dir`, or `undefined` when neither exists. */
export function findIdxFile(dir: string, name: string): string | undefined {
  for (const candidate of [join(dir, name), join(dir, `${name}.gz`)]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/**
 * The split's IDX files in `dir`: both paths, `undefined` when neither exists, and a `BurnError`
 * naming the missing one when only one does.
 */
export function findIdxSplit(
  op: string,
  dir: string,
  split: 'train' | 'test',
): { images: string; labels: string } | undefined {
  const names = idxFileNames(split);
  const images = findIdxFile(dir, names.images);
  const labels = findIdxFile(dir, names.labels);
  if (!images && !labels) return undefined;
  if (!images || !labels)
    throw new BurnError(
      op,
      `${dir} has ${images ?? labels} but not ${images ? names.labels : names.images}(.gz); expected both files of the ${split} split`,
    );
  return { images, labels };
}
