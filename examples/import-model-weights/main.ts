// Burn's import-model-weights example: weights trained in PyTorch loaded into a burn-ts model from
// a PyTorch `.pt` file and from a SafeTensors file (through the store adapters), checked against
// PyTorch's own outputs, converted to burnpack and loaded back; then inference on test images.
//   npm run example import-model-weights                 all 10,000 Fashion-MNIST test images
//   npm run example import-model-weights -- --smoke      512 test images
//   options: --image N (the test image to classify, default 42)  --out DIR (where the .bpk goes)
// weights/export.py (PyTorch, Debian's python3-torch) wrote the files in weights/.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Device } from 'burn-ts';
import { FashionMnistDataset, getMany } from 'burn-ts/data';
import { BurnpackStore, PyTorchToBurnAdapter, PytorchStore, SafetensorsStore } from 'burn-ts/store';
import { Model, toInput } from './model.ts';

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    image: { type: 'string', default: '42' },
    out: { type: 'string' },
  },
});
const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
const weights = (name: string): string => fileURLToPath(new URL(`weights/${name}`, import.meta.url));
const expected = JSON.parse(readFileSync(weights('expected.json'), 'utf8')) as {
  testAccuracy: number;
  outputs: number[][];
  labels: number[];
};

const device = Device.default();
const testSet = FashionMnistDataset.test();
const first = getMany(
  testSet,
  expected.outputs.map((_, i) => i),
);
const firstInput = toInput(
  first.map((item) => item.image),
  device,
);

/** The largest difference between the model's outputs on the first test images and PyTorch's. */
async function maxDiffFromPytorch(model: Model): Promise<number> {
  const out = (await model.forward(firstInput).toData()).toArray() as Float32Array;
  return Math.max(...expected.outputs.flat().map((v, i) => Math.abs(v - out[i]!)));
}

// 1. PyTorch: the store reads the zip and its pickle without executing anything, and applies the
//    PyTorch-to-Burn adapter (Linear weights transposed, BatchNorm weight/bias → gamma/beta).
console.log(`Loading PyTorch model weights from file: ${weights('fashion.pt')}`);
const fromPt = new Model(device);
const ptReport = fromPt.loadFrom(PytorchStore.fromFile(weights('fashion.pt')));
console.log(
  `  ${ptReport.applied.length} tensors applied, ${ptReport.skipped.length} skipped, ${ptReport.unused.length} unused (${ptReport.unused.join(', ') || 'none'})`,
);
const ptDiff = await maxDiffFromPytorch(fromPt);
console.log(`  outputs on ${first.length} test images: max |burn-ts - PyTorch| = ${ptDiff.toExponential(2)}`);

// 2. SafeTensors: plain named tensors; the adapter is asked for, since the names and layouts are PyTorch's.
console.log(`Loading Safetensors model weights from file: ${weights('fashion.safetensors')}`);
const fromSt = new Model(device);
const stReport = fromSt.loadFrom(
  SafetensorsStore.fromFile(weights('fashion.safetensors')).withFromAdapter(new PyTorchToBurnAdapter()),
);
const stDiff = await maxDiffFromPytorch(fromSt);
console.log(`  ${stReport.applied.length} tensors applied; max |burn-ts - PyTorch| = ${stDiff.toExponential(2)}`);

// 3. Convert to burnpack (Burn's native format) and load it back.
const outDir = values.out ?? mkdtempSync(join(tmpdir(), 'burn-ts-import-'));
const bpk = join(outDir, 'fashion.bpk');
fromPt.saveInto(BurnpackStore.fromFile(bpk));
const fromBpk = new Model(device);
fromBpk.loadFrom(BurnpackStore.fromFile(bpk));
const bpkDiff = await maxDiffFromPytorch(fromBpk);
console.log(`Saved ${bpk} and loaded it back: max |burn-ts - PyTorch| = ${bpkDiff.toExponential(2)}`);
if (values.out === undefined) rmSync(outDir, { recursive: true, force: true });

// 4. Inference: one image, then the accuracy on the test set.
const index = Number(values.image);
const item = testSet.get(index);
if (item === undefined) throw new Error(`--image ${values.image}: expected an index below ${testSet.len()}`);
const predicted = Number(
  (
    await fromSt
      .forward(toInput([item.image], device))
      .argmax(1)
      .toData()
  ).toArray()[0],
);
console.log(
  `Image index: ${index}\nPredicted: ${predicted} (${FashionMnistDataset.CLASSES[predicted]})\nActual: ${item.label} (${FashionMnistDataset.CLASSES[item.label]})`,
);

const count = smoke ? 512 : testSet.len();
let correct = 0;
for (let start = 0; start < count; start += 512) {
  const batch = getMany(
    testSet,
    Array.from({ length: Math.min(512, count - start) }, (_, k) => start + k),
  );
  const labels = Array.from(
    (
      await fromBpk
        .forward(
          toInput(
            batch.map((b) => b.image),
            device,
          ),
        )
        .argmax(1)
        .toData()
    ).toArray(),
    Number,
  );
  correct += labels.filter((label, k) => label === batch[k]!.label).length;
}
const accuracy = (100 * correct) / count;
console.log(
  `test accuracy on ${count} images: ${accuracy.toFixed(2)}% (PyTorch on all 10,000: ${expected.testAccuracy}%)`,
);
const result = {
  ptApplied: ptReport.applied.length,
  stApplied: stReport.applied.length,
  ptDiff,
  stDiff,
  bpkDiff,
  firstPredictions: Array.from((await fromPt.forward(firstInput).argmax(1).toData()).toArray(), Number),
  firstLabels: expected.labels,
  image: index,
  predicted,
  actual: item.label,
  images: count,
  accuracy,
  pytorchAccuracy: expected.testAccuracy,
};
console.log(`result ${JSON.stringify(result)}`);
