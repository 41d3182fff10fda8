/**
 * Automatic differentiation: a training step of an MLP and of a small convnet, forward
 * and backward timed separately (the table shows backward ÷ forward beside PyTorch's), and the
 * per-op cost of the autodiff decorator on tiny ops.
 *
 * The step cases' inputs are the batch, then the parameters in layer order (weights scaled by
 * 1/√fan-in, biases by 0.1, so the loss is a realistic ≈ 2.3); labels come from `labelValues`.
 * The loss is cross-entropy: `-mean(gather(logSoftmax(logits, 1), 1, labels))`.
 */
import type { BenchCase, InputSpec } from '../lib/types.js';
import { inputsOf } from './common.js';

const BATCH = 64;
const CLASSES = 10;

/** `inputsOf` with a scale per input (1 for the batch). */
function scaledInputs(...specs: [shape: readonly number[], scale: number][]): InputSpec[] {
  const plain = inputsOf(...specs.map(([shape]) => shape));
  return plain.map((spec, k) => (specs[k]![1] === 1 ? spec : { ...spec, scale: specs[k]![1] }));
}

/** Autodiff cases: two training steps, then the decorator's overhead. */
export const autodiffCases: readonly BenchCase[] = [
  {
    // x·W1 + b1 → relu → ·W2 + b2 → logSoftmax → cross-entropy (Burn's Linear layout: W is [dIn, dOut]).
    id: 'autodiff/mlp-step',
    family: 'autodiff',
    title: 'MLP step 64×784→256→10',
    op: 'mlpStep',
    inputs: scaledInputs(
      [[BATCH, 784], 1],
      [[784, 256], 1 / 28],
      [[256], 0.1],
      [[256, CLASSES], 1 / 16],
      [[CLASSES], 0.1],
    ),
    attrs: { classes: CLASSES },
    metric: { kind: 'step' },
  },
  {
    // conv 1→8 3×3 → relu → conv 8→16 3×3 → relu → adaptiveAvgPool2d [8, 8] → flatten → linear 1024→10 → logSoftmax → cross-entropy.
    id: 'autodiff/convnet-step',
    family: 'autodiff',
    title: 'convnet step 64×1×28²',
    op: 'convnetStep',
    inputs: scaledInputs(
      [[BATCH, 1, 28, 28], 1],
      [[8, 1, 3, 3], 1 / 3],
      [[8], 0.1],
      [[16, 8, 3, 3], 1 / Math.sqrt(72)],
      [[16], 0.1],
      [[1024, CLASSES], 1 / 32],
      [[CLASSES], 0.1],
    ),
    attrs: { classes: CLASSES },
    metric: { kind: 'step' },
  },
  {
    id: 'autodiff/decorator-add-2x2',
    family: 'autodiff',
    title: 'autodiff decorator: add 2×2',
    op: 'add',
    inputs: inputsOf([2, 2], [2, 2]),
    metric: { kind: 'decorator', tracked: false },
    target: { cmp: '<=', value: 1, source: 'autodiff goal' },
  },
  {
    id: 'autodiff/decorator-exp-2x2',
    family: 'autodiff',
    title: 'autodiff decorator: exp 2×2',
    op: 'exp',
    inputs: inputsOf([2, 2]),
    metric: { kind: 'decorator', tracked: false },
    target: { cmp: '<=', value: 1, source: 'autodiff goal' },
  },
  {
    id: 'autodiff/decorator-add-2x2-tracked',
    family: 'autodiff',
    title: 'autodiff decorator: add 2×2, tracked inputs',
    op: 'add',
    inputs: inputsOf([2, 2], [2, 2]),
    metric: { kind: 'decorator', tracked: true },
  },
  {
    id: 'autodiff/decorator-exp-2x2-tracked',
    family: 'autodiff',
    title: 'autodiff decorator: exp 2×2, tracked input',
    op: 'exp',
    inputs: inputsOf([2, 2]),
    metric: { kind: 'decorator', tracked: true },
  },
];
