import { z } from 'zod';
import { Config } from '../../config/config.js';
import { BurnError } from '../../core/errors.js';
import type { LearningRate } from '../base.js';
import { ConstantLr, type LrScheduler } from './base.js';
import { ComposedLrScheduler, type SchedulerReduction } from './composed.js';
import { CosineAnnealingLrSchedulerConfig } from './cosine.js';
import { ExponentialLrSchedulerConfig } from './exponential.js';
import { LinearLrSchedulerConfig } from './linear.js';
import { NoamLrSchedulerConfig } from './noam.js';
import { checkMilestones, SequentialLrScheduler } from './sequential.js';
import { StepLrSchedulerConfig } from './step.js';

/**
 * Burn's `LrSchedulerConfig` enum: a number (constant rate) or one of the scheduler configs
 * (`LinearLrSchedulerConfig`, `CosineAnnealingLrSchedulerConfig`, `ExponentialLrSchedulerConfig`,
 * `NoamLrSchedulerConfig`, `StepLrSchedulerConfig`, `ComposedLrSchedulerConfig`,
 * `SequentialLrSchedulerConfig`). In JSON a config is tagged with Burn's variant name
 * (`{ "Linear": { "initialLr": … } }`); a constant is a number (or `{ "Constant": 0.1 }`).
 *
 * The schema accepts instances, numbers and tagged JSON; this file also holds the two configs
 * that nest other scheduler configs (Composed, Sequential), since the union includes them.
 */
export type LrSchedulerConfig = LearningRate | SchedulerConfigLike;

/** What every scheduler config offers (structural, so the recursive configs can name it). */
export interface SchedulerConfigLike {
  /** The scheduler. */
  init(): LrScheduler;
  /** The fields as JSON. */
  toJSON(): Record<string, unknown>;
}

type ConfigCtor = (new (values: never) => SchedulerConfigLike) & { fromJSON(json: unknown): SchedulerConfigLike };

/** Burn's variant names of the configs. */
function variants(): [string, ConfigCtor][] {
  return [
    ['Linear', LinearLrSchedulerConfig],
    ['Cosine', CosineAnnealingLrSchedulerConfig],
    ['Exponential', ExponentialLrSchedulerConfig],
    ['Noam', NoamLrSchedulerConfig],
    ['Step', StepLrSchedulerConfig],
    ['Composed', ComposedLrSchedulerConfig],
    ['Sequential', SequentialLrSchedulerConfig],
  ];
}

/** The scheduler of a config (a number gives a {@link ConstantLr}). */
export function buildLrScheduler(config: LrSchedulerConfig): LrScheduler {
  return typeof config === 'number' ? new ConstantLr(config) : config.init();
}

/** A scheduler config as tagged JSON (`{ "Linear": {…} }`; a constant stays a number). */
export function lrSchedulerConfigToJSON(config: LrSchedulerConfig): unknown {
  if (typeof config === 'number') return config;
  const tag = variants().find(([, cls]) => config instanceof cls)?.[0];
  if (tag === undefined)
    throw new BurnError('LrSchedulerConfig', `cannot serialize ${String(config)}: not one of Burn's scheduler configs`);
  return { [tag]: config.toJSON() };
}

/** The zod schema of a scheduler config entry: a number, a config instance or tagged JSON. */
export const lrSchedulerConfigSchema: z.ZodType<LrSchedulerConfig, unknown> = z
  .unknown()
  .transform((value, ctx): LrSchedulerConfig => {
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return value;
      ctx.addIssue({ code: 'custom', message: `a constant learning rate must be finite, got ${value}` });
      return z.NEVER;
    }
    const all = variants();
    if (all.some(([, cls]) => value instanceof cls)) return value as SchedulerConfigLike;
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1) {
      const [tag, inner] = Object.entries(value)[0]!;
      if (tag === 'Constant' && typeof inner === 'number' && Number.isFinite(inner)) return inner;
      const cls = all.find(([t]) => t === tag)?.[1];
      if (cls !== undefined) {
        try {
          return cls.fromJSON(inner);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: `${tag}: ${(e as Error).message}` });
          return z.NEVER;
        }
      }
    }
    ctx.addIssue({
      code: 'custom',
      message: `expected a number or a scheduler config (instance, or JSON tagged ${['Constant', ...all.map(([t]) => t)].join('/')}), got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  });

/**
 * Configuration of a {@link ComposedLrScheduler} (Burn's `ComposedLrSchedulerConfig`): the
 * schedulers stepped together and how their rates combine (`'prod'` by default).
 */
export class ComposedLrSchedulerConfig extends Config.define({
  /** The schedulers (numbers are constants). */
  schedulers: z.array(lrSchedulerConfigSchema).default([]),
  /** `'avg'`, `'sum'` or `'prod'`. */
  reduction: z.enum(['avg', 'sum', 'prod']).default('prod'),
}) {
  /** The nesting schema typed as this class (`scheduler: ComposedLrSchedulerConfig.schema` in another config). */
  static override readonly schema = ComposedLrSchedulerConfig.nested();

  /** The scheduler. */
  init(): ComposedLrScheduler {
    return new ComposedLrScheduler(this.schedulers.map(buildLrScheduler), this.reduction as SchedulerReduction);
  }

  /** The fields as JSON, the schedulers tagged with Burn's variant names. */
  override toJSON(): Record<string, unknown> {
    return { schedulers: this.schedulers.map(lrSchedulerConfigToJSON), reduction: this.reduction };
  }
}

/**
 * Configuration of a {@link SequentialLrScheduler} (Burn's `SequentialLrSchedulerConfig`):
 * `N` schedulers and `N − 1` milestones (completed steps at which the next one takes over).
 */
export class SequentialLrSchedulerConfig extends Config.define({
  /** The schedulers, in order (numbers are constants). */
  schedulers: z.array(lrSchedulerConfigSchema),
  /** Positive, strictly increasing step counts. */
  milestones: z.array(z.number().int()),
}) {
  /** The nesting schema typed as this class (`scheduler: SequentialLrSchedulerConfig.schema` in another config). */
  static override readonly schema = SequentialLrSchedulerConfig.nested();

  /** The scheduler; wrong milestones are a BurnError. */
  init(): SequentialLrScheduler {
    checkMilestones(this.schedulers.length, this.milestones, 'SequentialLrSchedulerConfig');
    return new SequentialLrScheduler(this.schedulers.map(buildLrScheduler), this.milestones);
  }

  /** The fields as JSON, the schedulers tagged with Burn's variant names. */
  override toJSON(): Record<string, unknown> {
    return { schedulers: this.schedulers.map(lrSchedulerConfigToJSON), milestones: [...this.milestones] };
  }
}
