/**
 * Training throughput: one training step of Burn's MNIST ConvNet (the `Model` of the MNIST
 * example) on a batch of 64 images, in images per second. A step is forward, cross-entropy
 * loss read back to the host, backward, and an Adam update of every parameter.
 *
 * The inputs are the batch `[64, 28, 28]`, then the parameters in layer order (Burn's layouts:
 * conv weight `[out, in, kh, kw]`, Linear weight `[dIn, dOut]`). Weights are the usual inputs
 * scaled by 1/√fan-in — exactly the range of Burn's default initializer, KaimingUniform with gain
 * 1/√3 — and biases by 0.1; labels come from `labelValues`.
 */
import type { BenchCase, InputSpec } from '../lib/types.js';
import { inputsOf } from './common.js';

/** Images per training step. */
export const TRAIN_BATCH = 64;
/** Classes of the MNIST model. */
const CLASSES = 10;
/** Width of the model's hidden Linear layer (the MNIST example's `ModelConfig.hiddenSize`). */
const HIDDEN = 64;
/** The learning rate of the training step's Adam (Burn's other Adam defaults: β 0.9 / 0.999, ε 1e-5; torch_train.py uses the same). */
export const TRAIN_LR = 1e-3;

/** `inputsOf` with a scale per input (1 for the batch). */
function scaledInputs(...specs: [shape: readonly number[], scale: number][]): InputSpec[] {
  const plain = inputsOf(...specs.map(([shape]) => shape));
  return plain.map((spec, k) => (specs[k]![1] === 1 ? spec : { ...spec, scale: specs[k]![1] }));
}

/** Training-throughput cases. */
export const trainCases: readonly BenchCase[] = [
  {
    // conv2d 1→8 3×3 → relu → conv2d 8→16 3×3 → relu → maxPool2d 2×2 stride 2 → flatten (16·12·12)
    // → linear 2304→64 → relu → linear 64→10 → cross-entropy; Adam, lr 1e-3.
    id: 'train/mnist-convnet',
    family: 'train',
    title: 'MNIST ConvNet training step, batch 64',
    op: 'mnistTrainStep',
    inputs: scaledInputs(
      [[TRAIN_BATCH, 28, 28], 1],
      [[8, 1, 3, 3], 1 / 3],
      [[8], 0.1],
      [[16, 8, 3, 3], 1 / Math.sqrt(72)],
      [[16], 0.1],
      [[16 * 12 * 12, HIDDEN], 1 / 48],
      [[HIDDEN], 0.1],
      [[HIDDEN, CLASSES], 1 / 8],
      [[CLASSES], 0.1],
    ),
    attrs: { classes: CLASSES },
    metric: { kind: 'rate', items: TRAIN_BATCH, unit: 'images/s' },
    // A training loop's first steps are not its speed: V8 keeps optimizing the step's functions for
    // its first ~400 steps (2 s; the compiler threads share the 2 cores with the engine's threads,
    // so those steps run 5–20% slower at the median and up to 40% at the upper quartile) and memory pools fill. Every column
    // warms up for 3 s (an MNIST epoch is 938 steps) and times up to 200 steps.
    measure: { warmupRuns: 20, warmupSeconds: 3, maxWarmupRuns: 2000, minRuns: 25, maxRuns: 200, budgetSeconds: 1.5 },
    target: { cmp: '>=', value: 1, source: 'engines goal', impl: 'burn-ts(native)', peer: 'torch' },
  },
];
