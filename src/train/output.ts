import type { Gradients } from '../backend/autodiff.js';
import type { Float, Int } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';

/**
 * What a training step returns (Burn's `TrainOutput`): the model the gradients belong to, the
 * gradients from `loss.backward()`, and the step's output item for the metrics.
 */
export class TrainOutput<O> {
  constructor(
    /** The model the step ran (its parameters own the gradients). */
    readonly model: unknown,
    /** The gradients of the loss. */
    readonly grads: Gradients,
    /** The step's output, fed to the metrics. */
    readonly item: O,
  ) {}
}

/** Classification output: loss, logits `[batch, classes]`, class targets `[batch]`. */
export class ClassificationOutput {
  constructor(
    readonly loss: Tensor<1, Float>,
    readonly output: Tensor<2, Float>,
    readonly targets: Tensor<1, Int>,
  ) {}
}

/** Multi-label classification output: loss, logits `[batch, classes]`, 0/1 targets `[batch, classes]`. */
export class MultiLabelClassificationOutput {
  constructor(
    readonly loss: Tensor<1, Float>,
    readonly output: Tensor<2, Float>,
    readonly targets: Tensor<2, Int>,
  ) {}
}

/** Regression output: loss, predictions and targets of the same shape `[batch, outputs]`. */
export class RegressionOutput {
  constructor(
    readonly loss: Tensor<1, Float>,
    readonly output: Tensor<2, Float>,
    readonly targets: Tensor<2, Float>,
  ) {}
}

/** Sequence output: loss, logits `[batch, seq, vocab]`, token targets `[batch, seq]`. */
export class SequenceOutput {
  constructor(
    readonly loss: Tensor<1, Float>,
    readonly output: Tensor<3, Float>,
    readonly targets: Tensor<2, Int>,
  ) {}
}
