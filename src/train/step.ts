import type { TrainOutput } from './output.js';

/** A model that can run one training step (Burn's `TrainStep`). */
export interface TrainStep<I, O> {
  /** Forward pass, loss and `loss.backward()` for one batch. */
  trainStep(batch: I): TrainOutput<O>;
}

/** A model that can run one inference (validation) step (Burn's `InferenceStep`). */
export interface InferenceStep<I, O> {
  /** Forward pass (and loss, for validation metrics) for one batch. */
  inferenceStep(batch: I): O;
}
