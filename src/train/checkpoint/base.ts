import type { MetricHistory } from '../renderer/base.js';

/** What a checkpoint holds: the model, the optimizer and the scheduler. */
export interface CheckpointState {
  readonly model: unknown;
  readonly optimizer: unknown;
  readonly scheduler: unknown;
}

/** Saves and restores training state per epoch (Burn's `Checkpointer`). */
export interface Checkpointer {
  /** Writes the checkpoint of `epoch` (atomically). */
  save(epoch: number, state: CheckpointState): Promise<void>;
  /** Loads the checkpoint of `epoch` into the optimizer and scheduler; returns the restored model. */
  restore(epoch: number, state: CheckpointState): Promise<{ model: unknown }>;
  /** The epochs that have a checkpoint. */
  epochs(): number[];
  /** Removes the checkpoint of `epoch`. */
  delete(epoch: number): void;
}

/** Which checkpoints to keep after each epoch (Burn's `CheckpointingStrategy`). */
export interface CheckpointingStrategy {
  /** The epochs to keep among `saved` (the others are deleted). */
  keep(saved: readonly number[], history: MetricHistory): number[];
}
