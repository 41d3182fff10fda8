import type { MetricHistory } from '../renderer/base.js';

/** The training loop's own state in a checkpoint: what an exact resume needs besides model, optimizer and scheduler. */
export interface TrainingCheckpoint {
  /** The run's random seed: epoch `e` reseeds the device from it, so a resumed run draws as the uninterrupted one. */
  readonly seed: number;
}

/** What a checkpoint holds: the model, the optimizer, the scheduler and the loop's state. */
export interface CheckpointState {
  readonly model: unknown;
  readonly optimizer: unknown;
  readonly scheduler: unknown;
  /** The loop's state (absent in checkpoints written before it existed). */
  readonly training?: TrainingCheckpoint;
}

/** Saves and restores training state per epoch (Burn's `Checkpointer`). */
export interface Checkpointer {
  /** Writes the checkpoint of `epoch` (atomically). */
  save(epoch: number, state: CheckpointState): Promise<void>;
  /** Loads the checkpoint of `epoch` into the optimizer and scheduler; returns the restored model and loop state. */
  restore(epoch: number, state: CheckpointState): Promise<{ model: unknown; training?: TrainingCheckpoint }>;
  /** The epochs that have a checkpoint. */
  epochs(): number[];
  /** Removes the checkpoint of `epoch`. */
  delete(epoch: number): void;
  /** The model file of the checkpoint of `epoch` (for `TrainingResult.bestModelPath`). */
  modelPath?(epoch: number): string;
  /** The model of the checkpoint of `epoch` loaded into a copy of `model` (optimizer and scheduler untouched). */
  loadModel?(epoch: number, model: unknown): Promise<unknown>;
}

/** Which checkpoints to keep after each epoch (Burn's `CheckpointingStrategy`). */
export interface CheckpointingStrategy {
  /** The epochs to keep among `saved` (the others are deleted). */
  keep(saved: readonly number[], history: MetricHistory): number[];
}
