import { BurnError } from '../../core/errors.js';
import type { LearningRate } from '../base.js';
import {
  nestRecord,
  recordScalar,
  subRecord,
  toLrScheduler,
  type LrScheduler,
  type LrSchedulerRecord,
} from './base.js';

/**
 * Schedulers run one after another (Burn's `SequentialLrScheduler`; PyTorch's `SequentialLR`):
 * scheduler `i + 1` takes over, from its own first step, once `milestones[i]` steps are done.
 * `N` schedulers need `N − 1` strictly increasing, positive milestones.
 */
export class SequentialLrScheduler implements LrScheduler {
  private readonly schedulers: LrScheduler[];
  private readonly milestones: number[];
  private stepCount = 0;

  constructor(schedulers: readonly (LearningRate | LrScheduler)[], milestones: readonly number[]) {
    checkMilestones(schedulers.length, milestones, 'SequentialLrScheduler');
    this.schedulers = schedulers.map(toLrScheduler);
    this.milestones = [...milestones];
  }

  private active(): number {
    let i = 0;
    while (i < this.milestones.length && this.stepCount >= this.milestones[i]!) i++;
    return i;
  }

  step(): LearningRate {
    const lr = this.schedulers[this.active()]!.step();
    this.stepCount++;
    return lr;
  }

  toRecord(): LrSchedulerRecord {
    const out: Record<string, number> = { step: this.stepCount };
    this.schedulers.forEach((s, i) => nestRecord(out, String(i), s.toRecord()));
    return out;
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.stepCount = recordScalar(record, 'step', 'SequentialLrScheduler.loadRecord');
    this.schedulers.forEach((s, i) => s.loadRecord(subRecord(record, String(i))));
    return this;
  }
}

/** Checks Burn's rules for the milestones of `count` schedulers. */
export function checkMilestones(count: number, milestones: readonly number[], op: string): void {
  if (count === 0) throw new BurnError(op, 'at least one scheduler is required');
  if (milestones.length + 1 !== count) {
    throw new BurnError(
      op,
      `${count} schedulers need ${count - 1} milestones, got ${milestones.length} ([${milestones.join(', ')}])`,
    );
  }
  milestones.forEach((m, i) => {
    if (!Number.isInteger(m) || m <= 0 || (i > 0 && m <= milestones[i - 1]!)) {
      throw new BurnError(
        op,
        `milestones must be positive integers in strictly increasing order, got [${milestones.join(', ')}]`,
      );
    }
  });
}
