import { z } from 'zod';
import type { Device } from '../../device/device.js';
import { BurnError } from '../../core/errors.js';
import { Identity } from '../identity.js';
import { BatchNorm, BatchNormConfig } from './batch-norm.js';
import { GroupNorm, GroupNormConfig, InstanceNorm, InstanceNormConfig } from './group-norm.js';
import { LayerNorm, LayerNormConfig } from './layer-norm.js';
import { RmsNorm, RmsNormConfig } from './rms-norm.js';

/**
 * A normalization layer chosen by a {@link NormalizationConfig} (Burn's `Normalization` enum).
 * Every member has `forward<D>(input: Tensor<D>): Tensor<D>`, so `norm.forward(x)` works on the
 * union, and a module field of this type is discovered like any layer.
 */
export type Normalization = Identity | BatchNorm | GroupNorm | InstanceNorm | LayerNorm | RmsNorm;

/** Helpers of the {@link Normalization} union. */
export const Normalization = {
  /** The number of features the layer normalizes (0 for `Identity`), as Burn's `num_features`. */
  numFeatures(layer: Normalization): number {
    if (layer instanceof GroupNorm || layer instanceof InstanceNorm) return layer.numChannels;
    if (layer instanceof Identity) return 0;
    return layer.gamma.dims()[0]!;
  },
} as const;

/** The variants of a {@link NormalizationConfig}. */
export type NormalizationKind = 'identity' | 'batch' | 'group' | 'instance' | 'layer' | 'rms';

type Inner = BatchNormConfig | GroupNormConfig | InstanceNormConfig | LayerNormConfig | RmsNormConfig;

/** The JSON form of a {@link NormalizationConfig}: `{ kind: 'batch', config: { numFeatures: 16 } }`, `{ kind: 'identity' }`. */
export type NormalizationConfigJson =
  | { readonly kind: 'identity' }
  | { readonly kind: 'batch'; readonly config: ConstructorParameters<typeof BatchNormConfig>[0] | BatchNormConfig }
  | { readonly kind: 'group'; readonly config: ConstructorParameters<typeof GroupNormConfig>[0] | GroupNormConfig }
  | {
      readonly kind: 'instance';
      readonly config: ConstructorParameters<typeof InstanceNormConfig>[0] | InstanceNormConfig;
    }
  | { readonly kind: 'layer'; readonly config: ConstructorParameters<typeof LayerNormConfig>[0] | LayerNormConfig }
  | { readonly kind: 'rms'; readonly config: ConstructorParameters<typeof RmsNormConfig>[0] | RmsNormConfig };

const jsonSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('identity') }).strict(),
  z.object({ kind: z.literal('batch'), config: BatchNormConfig.nested() }).strict(),
  z.object({ kind: z.literal('group'), config: GroupNormConfig.nested() }).strict(),
  z.object({ kind: z.literal('instance'), config: InstanceNormConfig.nested() }).strict(),
  z.object({ kind: z.literal('layer'), config: LayerNormConfig.nested() }).strict(),
  z.object({ kind: z.literal('rms'), config: RmsNormConfig.nested() }).strict(),
]);

/**
 * Chooses a normalization layer (Burn's `NormalizationConfig` enum):
 * `NormalizationConfig.Batch(new BatchNormConfig({ numFeatures: 0 })).withNumFeatures(64).init(device)`.
 * Nest it in a config with `norm: NormalizationConfig.schema`; it saves as {@link NormalizationConfigJson}.
 */
export class NormalizationConfig {
  /** No normalization (an {@link Identity} layer). */
  static readonly Identity: NormalizationConfig = new NormalizationConfig('identity', undefined);

  private constructor(
    /** The variant. */
    readonly kind: NormalizationKind,
    /** The variant's config (undefined for `identity`). */
    readonly config: Inner | undefined,
  ) {}

  /** Batch normalization. */
  static Batch(config: BatchNormConfig): NormalizationConfig {
    return new NormalizationConfig('batch', config);
  }
  /** Group normalization. */
  static Group(config: GroupNormConfig): NormalizationConfig {
    return new NormalizationConfig('group', config);
  }
  /** Instance normalization. */
  static Instance(config: InstanceNormConfig): NormalizationConfig {
    return new NormalizationConfig('instance', config);
  }
  /** Layer normalization. */
  static Layer(config: LayerNormConfig): NormalizationConfig {
    return new NormalizationConfig('layer', config);
  }
  /** RMS normalization. */
  static Rms(config: RmsNormConfig): NormalizationConfig {
    return new NormalizationConfig('rms', config);
  }

  /** The zod schema for nesting in a config: accepts an instance or its JSON form, yields an instance. */
  static readonly schema: z.ZodType<NormalizationConfig, NormalizationConfigJson | NormalizationConfig> = z
    .unknown()
    .transform((value, ctx) => {
      if (value instanceof NormalizationConfig) return value;
      const result = jsonSchema.safeParse(value);
      if (!result.success) {
        for (const issue of result.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] });
        return z.NEVER;
      }
      const j = result.data;
      return 'config' in j ? new NormalizationConfig(j.kind, j.config) : NormalizationConfig.Identity;
    }) as unknown as z.ZodType<NormalizationConfig, NormalizationConfigJson | NormalizationConfig>;

  /** Validates the JSON form (a BurnError names the bad field). */
  static fromJSON(json: unknown): NormalizationConfig {
    const result = NormalizationConfig.schema.safeParse(json);
    if (!result.success) {
      const issues = result.error.issues
        .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
        .join('; ');
      throw new BurnError('NormalizationConfig', `invalid config: ${issues}`);
    }
    return result.data;
  }

  /** Creates the chosen layer on `device`. */
  init(device: Device): Normalization {
    const c = this.config;
    if (c === undefined) return new Identity();
    return c.init(device);
  }

  /** The same variant sized for `numFeatures` features (channels or `dModel`); `identity` is unchanged. */
  withNumFeatures(numFeatures: number): NormalizationConfig {
    const c = this.config;
    if (c instanceof BatchNormConfig) return NormalizationConfig.Batch(c.withNumFeatures(numFeatures));
    if (c instanceof GroupNormConfig) return NormalizationConfig.Group(c.withNumChannels(numFeatures));
    if (c instanceof InstanceNormConfig) return NormalizationConfig.Instance(c.withNumChannels(numFeatures));
    if (c instanceof LayerNormConfig) return NormalizationConfig.Layer(c.withDModel(numFeatures));
    if (c instanceof RmsNormConfig) return NormalizationConfig.Rms(c.withDModel(numFeatures));
    return this;
  }

  /** The number of features of the chosen layer (0 for `identity`). */
  numFeatures(): number {
    const c = this.config;
    if (c instanceof BatchNormConfig) return c.numFeatures;
    if (c instanceof GroupNormConfig || c instanceof InstanceNormConfig) return c.numChannels;
    if (c instanceof LayerNormConfig || c instanceof RmsNormConfig) return c.dModel;
    return 0;
  }

  /** The JSON form. */
  toJSON(): NormalizationConfigJson {
    return (
      this.config === undefined ? { kind: 'identity' } : { kind: this.kind, config: this.config.toJSON() }
    ) as NormalizationConfigJson;
  }

  /** `NormalizationConfig {"kind":"batch",...}`. */
  toString(): string {
    return `NormalizationConfig ${JSON.stringify(this.toJSON())}`;
  }
}
