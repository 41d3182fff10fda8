// Fashion-MNIST from Debian's dataset-fashion-mnist package (.ci/run installs it; without it the
// tests skip, and BURN_TEST_STRICT=1 turns the skip into a failure).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import { DEBIAN_FASHION_MNIST_DIR, FashionMnistDataset } from '../../src/data/index.js';

const installed = FashionMnistDataset.available({ dir: DEBIAN_FASHION_MNIST_DIR });
const skip = installed
  ? false
  : `Debian's dataset-fashion-mnist is not installed (${DEBIAN_FASHION_MNIST_DIR}); apt-get install dataset-fashion-mnist`;

describe('FashionMnistDataset', () => {
  it('reads the 60 000 + 10 000 images of the Debian package', { skip }, () => {
    const train = FashionMnistDataset.train({ dir: DEBIAN_FASHION_MNIST_DIR });
    const test = FashionMnistDataset.test({ dir: DEBIAN_FASHION_MNIST_DIR });
    assert.equal(train.len(), 60000);
    assert.equal(test.len(), 10000);
    assert.deepEqual(train.source, {
      kind: 'idx',
      images: join(DEBIAN_FASHION_MNIST_DIR, 'train-images-idx3-ubyte.gz'),
      labels: join(DEBIAN_FASHION_MNIST_DIR, 'train-labels-idx1-ubyte.gz'),
    });
    // Fashion-MNIST is balanced: 6 000 training and 1 000 test images per class.
    const counts = (d: FashionMnistDataset): number[] => {
      const c = new Array(10).fill(0);
      for (let i = 0; i < d.len(); i++) c[d.get(i)!.label]++;
      return c;
    };
    assert.deepEqual(counts(train), new Array(10).fill(6000));
    assert.deepEqual(counts(test), new Array(10).fill(1000));
    // The first training image is an ankle boot (label 9), the first test image too.
    assert.equal(train.get(0)!.label, 9);
    assert.equal(FashionMnistDataset.CLASSES[train.get(0)!.label], 'Ankle boot');
    assert.equal(test.get(0)!.label, 9);
    const image = train.get(0)!.image;
    assert.equal(image.length, 28);
    assert.equal(image[27]!.length, 28);
    const flat = image.flat();
    assert.ok(flat.every((v) => Number.isInteger(v) && v >= 0 && v <= 255));
    assert.equal(Math.max(...flat), 255);
    assert.equal(flat[0], 0);
  });

  it('is found without options (cache directory, then the Debian package)', { skip }, () => {
    const saved = process.env.BURN_DATA_DIR;
    process.env.BURN_DATA_DIR = mkdtempSync(join(tmpdir(), 'burn-ts-fashion-'));
    try {
      assert.equal(FashionMnistDataset.test().len(), 10000);
    } finally {
      rmSync(process.env.BURN_DATA_DIR, { recursive: true, force: true });
      if (saved === undefined) delete process.env.BURN_DATA_DIR;
      else process.env.BURN_DATA_DIR = saved;
    }
  });

  it('says how to get the files when they are missing', () => {
    const empty = mkdtempSync(join(tmpdir(), 'burn-ts-fashion-empty-'));
    try {
      assert.throws(
        () => FashionMnistDataset.train({ dir: empty }),
        (e: unknown) =>
          e instanceof BurnError &&
          e.message ===
            `FashionMnistDataset: no Fashion-MNIST train files in ${empty}; install Debian's package (apt-get install dataset-fashion-mnist) or download them with await FashionMnistDataset.download()`,
      );
      assert.equal(FashionMnistDataset.available({ dir: empty }), false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
