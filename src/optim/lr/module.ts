import { z } from 'zod';
import { Config } from '../../config/config.js';
import { BurnError } from '../../core/errors.js';
import { DEFAULT_GROUP, type LearningRate } from '../base.js';
import { nestRecord, subRecord, toLrScheduler, type LrScheduler, type LrSchedulerRecord } from './base.js';
import { buildLrScheduler, lrSchedulerConfigSchema, lrSchedulerConfigToJSON } from './config.js';

/**
 * One scheduler per parameter group (Burn's `ModuleLrScheduler`): `step()` returns the rates by
 * group name (`{ default: …, encoder: … }`), which `ModuleOptimizer.step` takes; the names must
 * be groups of that optimizer (`ModuleOptimizer.withGroup`).
 */
export class ModuleLrScheduler {
  private readonly groups = new Map<string, LrScheduler>();

  /** The scheduler of the `default` group (a number is a constant rate). */
  constructor(base: LearningRate | LrScheduler) {
    this.groups.set(DEFAULT_GROUP, toLrScheduler(base));
  }

  /** Adds the scheduler of the group `name`. */
  withGroup(name: string, scheduler: LearningRate | LrScheduler): this {
    if (typeof name !== 'string' || name === '')
      throw new BurnError('ModuleLrScheduler.withGroup', `a group needs a non-empty name, got ${JSON.stringify(name)}`);
    if (this.groups.has(name))
      throw new BurnError('ModuleLrScheduler.withGroup', `the group '${name}' has a scheduler already`);
    this.groups.set(name, toLrScheduler(scheduler));
    return this;
  }

  /** The group names, `default` first. */
  groupNames(): string[] {
    return [...this.groups.keys()];
  }

  /** Steps every scheduler; returns the rate of each group. */
  step(): { readonly [group: string]: LearningRate } {
    const out: Record<string, LearningRate> = {};
    for (const [name, s] of this.groups) out[name] = s.step();
    return out;
  }

  /** The states of all schedulers, nested under their group names. */
  toRecord(): LrSchedulerRecord {
    const out: Record<string, number> = {};
    for (const [name, s] of this.groups) nestRecord(out, name, s.toRecord());
    return out;
  }

  /** Restores the states of all schedulers. */
  loadRecord(record: LrSchedulerRecord): this {
    for (const [name, s] of this.groups) s.loadRecord(subRecord(record, name));
    return this;
  }
}

/** Configuration of a {@link ModuleLrScheduler} (Burn's `ModuleLrSchedulerConfig`). */
export class ModuleLrSchedulerConfig extends Config.define({
  /** The scheduler of the `default` group. */
  base: lrSchedulerConfigSchema,
  /** The schedulers of named groups. */
  groups: z.record(z.string(), lrSchedulerConfigSchema).default({}),
}) {
  /** The nesting schema typed as this class (`scheduler: ModuleLrSchedulerConfig.schema` in another config). */
  static override readonly schema = ModuleLrSchedulerConfig.nested();

  /** The scheduler. */
  init(): ModuleLrScheduler {
    const out = new ModuleLrScheduler(buildLrScheduler(this.base));
    for (const [name, c] of Object.entries(this.groups)) out.withGroup(name, buildLrScheduler(c));
    return out;
  }

  /** The fields as JSON, the schedulers tagged with Burn's variant names. */
  override toJSON(): Record<string, unknown> {
    return {
      base: lrSchedulerConfigToJSON(this.base),
      groups: Object.fromEntries(Object.entries(this.groups).map(([k, c]) => [k, lrSchedulerConfigToJSON(c)])),
    };
  }
}
