import { BurnError } from '../../core/errors.js';
import type { LearningRate } from '../base.js';

/**
 * The state of a learning-rate scheduler (Burn's `LrSchedulerRecord`): named scalars (step
 * counters, the current rate). Schedulers built from others nest their children's records under
 * an index prefix (`0.step`, `1.previousLr`).
 */
export type LrSchedulerRecord = { readonly [key: string]: number };

/**
 * How the learning rate evolves during training (Burn's `LrScheduler`): each `step()` advances
 * the schedule and returns the rate to use for the next optimizer step. A plain number works
 * wherever a scheduler is accepted (a constant rate, see {@link toLrScheduler}).
 */
export interface LrScheduler {
  /** Advances the schedule and returns the learning rate. */
  step(): LearningRate;
  /** The scheduler's state. */
  toRecord(): LrSchedulerRecord;
  /** Restores a state from {@link toRecord} (resuming gives the same rates as never stopping). */
  loadRecord(record: LrSchedulerRecord): this;
}

/** A constant learning rate (Burn's `ConstantLr`). */
export class ConstantLr implements LrScheduler {
  constructor(readonly lr: LearningRate) {
    if (typeof lr !== 'number' || !Number.isFinite(lr))
      throw new BurnError('ConstantLr', `the learning rate must be a finite number, got ${String(lr)}`);
  }

  step(): LearningRate {
    return this.lr;
  }

  toRecord(): LrSchedulerRecord {
    return {};
  }

  loadRecord(_record: LrSchedulerRecord): this {
    return this;
  }
}

/** A scheduler, or a number as a {@link ConstantLr}. */
export function toLrScheduler(lr: LearningRate | LrScheduler): LrScheduler {
  return typeof lr === 'number' ? new ConstantLr(lr) : lr;
}

/** Nests `child` under `prefix` in `into` (Burn's `with_record`). */
export function nestRecord(into: Record<string, number>, prefix: string, child: LrSchedulerRecord): void {
  for (const [k, v] of Object.entries(child)) into[`${prefix}.${k}`] = v;
}

/** The entries of `record` under `prefix`, without it (Burn's `record(prefix)`). */
export function subRecord(record: LrSchedulerRecord, prefix: string): LrSchedulerRecord {
  const head = `${prefix}.`;
  return Object.fromEntries(
    Object.entries(record)
      .filter(([k]) => k.startsWith(head))
      .map(([k, v]) => [k.slice(head.length), v]),
  );
}

/** Reads a numeric entry of a scheduler record, or throws a BurnError naming it. */
export function recordScalar(record: LrSchedulerRecord, key: string, op: string): number {
  const v = (record as Record<string, unknown>)[key];
  if (typeof v !== 'number' || Number.isNaN(v)) {
    throw new BurnError(op, `the record has no number '${key}' (keys: ${Object.keys(record).join(', ') || 'none'})`);
  }
  return v;
}
