import { BurnError } from '../../core/errors.js';
import { dataDir } from './data-dir.js';
import { findIdxSplit, IdxImageDataset } from './idx-images.js';
import type { IdxReadOptions } from './idx.js';
import { downloadIdxSplits, type IdxDownloadOptions } from './mnist.js';

/** Options of {@link FashionMnistDataset.train} / {@link FashionMnistDataset.test}. */
export interface FashionMnistOptions extends IdxReadOptions {
  /** Directory of the IDX files; by default the cache directory, then Debian's package directory. */
  readonly dir?: string;
}

/** Where Debian's `dataset-fashion-mnist` package installs the gzip IDX files. */
export const DEBIAN_FASHION_MNIST_DIR = '/usr/share/datasets/fashion-mnist';

/** The official MD5 checksums of the Fashion-MNIST files (Zalando's release, used by torchvision). */
export const FASHION_MNIST_MD5: Readonly<Record<string, string>> = {
  'train-images-idx3-ubyte.gz': '8d4fb7e6c68d591d4c3dfef9ec88bf0d',
  'train-labels-idx1-ubyte.gz': '25c81989df183df01b3e8a0aad5dffbe',
  't10k-images-idx3-ubyte.gz': 'bef4ecab320f06d8554ea6380940ec79',
  't10k-labels-idx1-ubyte.gz': 'bb300cfdad3c16e7a12a480ee83cd310',
};

/** The default Fashion-MNIST mirror; `BURN_FASHION_MNIST_URL` overrides it. */
export const FASHION_MNIST_URL = 'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/';

/**
 * Fashion-MNIST: 70 000 28×28 grayscale images of clothing in 10 classes
 * ({@link FashionMnistDataset.CLASSES}), items `{ image: number[][], label }` as MNIST.
 *
 * Reads the IDX files from `options.dir`, else from the cache directory
 * ({@link FashionMnistDataset.cacheDir}, filled by `await FashionMnistDataset.download()`), else
 * from Debian's `dataset-fashion-mnist` package (`apt-get install dataset-fashion-mnist`). There is
 * no bundled fallback: without the files it throws a `BurnError` saying how to get them.
 */
export class FashionMnistDataset extends IdxImageDataset {
  /** The class names, by label. */
  static readonly CLASSES: readonly string[] = [
    'T-shirt/top',
    'Trouser',
    'Pullover',
    'Dress',
    'Coat',
    'Sandal',
    'Shirt',
    'Sneaker',
    'Bag',
    'Ankle boot',
  ];

  /** The 60 000 training images. */
  static train(options: FashionMnistOptions = {}): FashionMnistDataset {
    return FashionMnistDataset.load('train', options);
  }

  /** The 10 000 test images. */
  static test(options: FashionMnistOptions = {}): FashionMnistDataset {
    return FashionMnistDataset.load('test', options);
  }

  /** `$BURN_DATA_DIR/fashion-mnist`, or `~/.cache/burn-ts/fashion-mnist`. */
  static cacheDir(): string {
    return dataDir('fashion-mnist');
  }

  /** True when the files of both splits can be found (without reading them). */
  static available(options: FashionMnistOptions = {}): boolean {
    try {
      return (
        FashionMnistDataset.locate('train', options) !== undefined &&
        FashionMnistDataset.locate('test', options) !== undefined
      );
    } catch {
      return false;
    }
  }

  /**
   * Downloads the IDX files into the cache directory (only those missing) from `baseUrl` (default
   * `BURN_FASHION_MNIST_URL` or {@link FASHION_MNIST_URL}), verifying the official MD5 checksums.
   */
  static async download(options: IdxDownloadOptions = {}): Promise<string> {
    return downloadIdxSplits(
      options.dir ?? FashionMnistDataset.cacheDir(),
      options.baseUrl ?? process.env.BURN_FASHION_MNIST_URL ?? FASHION_MNIST_URL,
      FASHION_MNIST_MD5,
      options,
    );
  }

  private static locate(
    split: 'train' | 'test',
    options: FashionMnistOptions,
  ): { images: string; labels: string } | undefined {
    const dirs = options.dir !== undefined ? [options.dir] : [FashionMnistDataset.cacheDir(), DEBIAN_FASHION_MNIST_DIR];
    for (const dir of dirs) {
      const files = findIdxSplit('FashionMnistDataset', dir, split);
      if (files) return files;
    }
    return undefined;
  }

  private static load(split: 'train' | 'test', options: FashionMnistOptions): FashionMnistDataset {
    const files = FashionMnistDataset.locate(split, options);
    if (!files) {
      const where =
        options.dir !== undefined ? options.dir : `${FashionMnistDataset.cacheDir()} or ${DEBIAN_FASHION_MNIST_DIR}`;
      throw new BurnError(
        'FashionMnistDataset',
        `no Fashion-MNIST ${split} files in ${where}; install Debian's package (apt-get install dataset-fashion-mnist) or download them with await FashionMnistDataset.download()`,
      );
    }
    const d = IdxImageDataset.fromIdxFiles(files.images, files.labels, options);
    return new FashionMnistDataset(d.imagesArray(), d.labelsArray(), d.rows, d.cols, d.source);
  }
}
