import { z } from 'zod';
import type { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { BurnError } from '../../core/errors.js';
import { Identity } from '../identity.js';
import { SwiGlu, SwiGluConfig, type GLU } from './gated.js';
import {
  Celu,
  CeluConfig,
  Elu,
  EluConfig,
  LeakyRelu,
  LeakyReluConfig,
  PRelu,
  PReluConfig,
  Relu,
  Selu,
  ThresholdedRelu,
  ThresholdedReluConfig,
} from './rectifier.js';
import { HardShrink, HardShrinkConfig, Shrink, ShrinkConfig, SoftShrink, SoftShrinkConfig } from './shrink.js';
import {
  Gelu,
  HardSigmoid,
  HardSigmoidConfig,
  HardSwish,
  Sigmoid,
  Softplus,
  SoftplusConfig,
  Softsign,
  Tanh,
} from './smooth.js';

/**
 * A selectable activation layer (Burn's `Activation` enum): the modules an
 * {@link ActivationConfig} creates. Each has `forward(input)` with the input's shape kept
 * (SwiGlu maps the last dim from `dInput` to `dOutput`); {@link GLU}, which halves a dim, is not
 * one of them, as in Burn.
 */
export type Activation =
  | Identity
  | Gelu
  | PRelu
  | Relu
  | LeakyRelu
  | SwiGlu
  | Selu
  | Sigmoid
  | Tanh
  | HardSigmoid
  | HardSwish
  | Softplus
  | Softsign
  | Elu
  | Celu
  | ThresholdedRelu
  | HardShrink
  | SoftShrink
  | Shrink;

/** The variant configs of {@link ActivationConfig} that carry parameters. */
interface ConfiguredVariants {
  prelu: PReluConfig;
  leakyRelu: LeakyReluConfig;
  swiGlu: SwiGluConfig;
  hardSigmoid: HardSigmoidConfig;
  softplus: SoftplusConfig;
  elu: EluConfig;
  celu: CeluConfig;
  thresholdedRelu: ThresholdedReluConfig;
  hardShrink: HardShrinkConfig;
  softShrink: SoftShrinkConfig;
  shrink: ShrinkConfig;
}

/** The variants without parameters. */
type SimpleKind =
  | 'identity'
  | 'gelu'
  | 'geluApproximate'
  | 'relu'
  | 'selu'
  | 'sigmoid'
  | 'tanh'
  | 'hardSwish'
  | 'softsign';

/** The variant names of {@link ActivationConfig} (Burn's variant names in camelCase). */
export type ActivationKind = SimpleKind | keyof ConfiguredVariants;

/** An {@link ActivationConfig} as JSON: `{ kind: 'relu' }`, `{ kind: 'leakyRelu', negativeSlope: 0.01 }`, … */
export type ActivationConfigJSON = { readonly kind: ActivationKind } & Record<string, unknown>;

type ConfigCtor<C> = (new (values?: never) => C) & { readonly name: string };
type InputOf<C> = C extends { with(values: Partial<infer I>): unknown } ? I : never;

const SIMPLE: readonly SimpleKind[] = [
  'identity',
  'gelu',
  'geluApproximate',
  'relu',
  'selu',
  'sigmoid',
  'tanh',
  'hardSwish',
  'softsign',
];

const CONFIGS: { readonly [K in keyof ConfiguredVariants]: ConfigCtor<ConfiguredVariants[K]> } = {
  prelu: PReluConfig as unknown as ConfigCtor<PReluConfig>,
  leakyRelu: LeakyReluConfig as unknown as ConfigCtor<LeakyReluConfig>,
  swiGlu: SwiGluConfig as unknown as ConfigCtor<SwiGluConfig>,
  hardSigmoid: HardSigmoidConfig as unknown as ConfigCtor<HardSigmoidConfig>,
  softplus: SoftplusConfig as unknown as ConfigCtor<SoftplusConfig>,
  elu: EluConfig as unknown as ConfigCtor<EluConfig>,
  celu: CeluConfig as unknown as ConfigCtor<CeluConfig>,
  thresholdedRelu: ThresholdedReluConfig as unknown as ConfigCtor<ThresholdedReluConfig>,
  hardShrink: HardShrinkConfig as unknown as ConfigCtor<HardShrinkConfig>,
  softShrink: SoftShrinkConfig as unknown as ConfigCtor<SoftShrinkConfig>,
  shrink: ShrinkConfig as unknown as ConfigCtor<ShrinkConfig>,
};

function isConfigured(kind: string): kind is keyof ConfiguredVariants {
  return Object.prototype.hasOwnProperty.call(CONFIGS, kind);
}

/**
 * Selects one activation (Burn's `ActivationConfig` enum), for config fields such as an RNN's
 * `hiddenActivation`: `ActivationConfig.Relu`, `ActivationConfig.LeakyRelu({ negativeSlope: 0.1 })`,
 * `ActivationConfig.SwiGlu({ dInput: 8, dOutput: 8 })`, … `init(device)` creates the
 * {@link Activation} module. It serializes as `{ kind, ...fields }` and nests in a config with
 * `ActivationConfig.schema` (which also accepts that JSON):
 *
 * ```ts
 * class BlockConfig extends Config.define({ activation: ActivationConfig.schema.default(ActivationConfig.Gelu) }) {}
 * ```
 */
export class ActivationConfig {
  /** The selected variant. */
  readonly kind: ActivationKind;
  /** The variant's own config, for variants with parameters. */
  readonly config: ConfiguredVariants[keyof ConfiguredVariants] | undefined;

  private constructor(kind: ActivationKind, config?: ConfiguredVariants[keyof ConfiguredVariants]) {
    this.kind = kind;
    this.config = config;
    Object.freeze(this);
  }

  /** {@link Identity}. */
  static readonly Identity = new ActivationConfig('identity');
  /** Exact {@link Gelu}. */
  static readonly Gelu = new ActivationConfig('gelu');
  /** Tanh-approximated {@link Gelu}. */
  static readonly GeluApproximate = new ActivationConfig('geluApproximate');
  /** {@link Relu}. */
  static readonly Relu = new ActivationConfig('relu');
  /** {@link Selu}. */
  static readonly Selu = new ActivationConfig('selu');
  /** {@link Sigmoid}. */
  static readonly Sigmoid = new ActivationConfig('sigmoid');
  /** {@link Tanh}. */
  static readonly Tanh = new ActivationConfig('tanh');
  /** {@link HardSwish}. */
  static readonly HardSwish = new ActivationConfig('hardSwish');
  /** {@link Softsign}. */
  static readonly Softsign = new ActivationConfig('softsign');

  /** {@link PRelu} (default `PReluConfig`). */
  static PRelu(config: PReluConfig | InputOf<PReluConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('prelu', config);
  }
  /** {@link LeakyRelu}. */
  static LeakyRelu(config: LeakyReluConfig | InputOf<LeakyReluConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('leakyRelu', config);
  }
  /** {@link SwiGlu} (`dInput` and `dOutput` are required). */
  static SwiGlu(config: SwiGluConfig | InputOf<SwiGluConfig>): ActivationConfig {
    return ActivationConfig.variant('swiGlu', config);
  }
  /** {@link HardSigmoid}. */
  static HardSigmoid(config: HardSigmoidConfig | InputOf<HardSigmoidConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('hardSigmoid', config);
  }
  /** {@link Softplus}. */
  static Softplus(config: SoftplusConfig | InputOf<SoftplusConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('softplus', config);
  }
  /** {@link Elu}. */
  static Elu(config: EluConfig | InputOf<EluConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('elu', config);
  }
  /** {@link Celu}. */
  static Celu(config: CeluConfig | InputOf<CeluConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('celu', config);
  }
  /** {@link ThresholdedRelu}. */
  static ThresholdedRelu(config: ThresholdedReluConfig | InputOf<ThresholdedReluConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('thresholdedRelu', config);
  }
  /** {@link HardShrink}. */
  static HardShrink(config: HardShrinkConfig | InputOf<HardShrinkConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('hardShrink', config);
  }
  /** {@link SoftShrink}. */
  static SoftShrink(config: SoftShrinkConfig | InputOf<SoftShrinkConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('softShrink', config);
  }
  /** {@link Shrink}. */
  static Shrink(config: ShrinkConfig | InputOf<ShrinkConfig> = {}): ActivationConfig {
    return ActivationConfig.variant('shrink', config);
  }

  /** The variant of a layer config (Burn's `From<XConfig> for ActivationConfig`). */
  static from(config: ConfiguredVariants[keyof ConfiguredVariants]): ActivationConfig {
    for (const kind of Object.keys(CONFIGS) as (keyof ConfiguredVariants)[]) {
      if (config instanceof CONFIGS[kind]) return new ActivationConfig(kind, config);
    }
    throw new BurnError(
      'ActivationConfig',
      `${describe(config)} is not the config of an activation variant; expected one of ${Object.values(CONFIGS)
        .map((c) => c.name)
        .join(', ')}`,
    );
  }

  /** Parses `{ kind, ...fields }` (as written by `toJSON`), or returns an ActivationConfig as is. */
  static fromJSON(json: unknown): ActivationConfig {
    if (json instanceof ActivationConfig) return json;
    if (typeof json === 'string') return ActivationConfig.fromJSON({ kind: json });
    if (
      typeof json !== 'object' ||
      json === null ||
      Array.isArray(json) ||
      typeof (json as { kind?: unknown }).kind !== 'string'
    ) {
      throw new BurnError(
        'ActivationConfig',
        `${describe(json)} is not an activation config; expected { kind: ${allKinds()}, ...fields }`,
      );
    }
    const { kind, ...fields } = json as { kind: string } & Record<string, unknown>;
    if (isConfigured(kind)) return ActivationConfig.variant(kind, fields as never);
    if ((SIMPLE as readonly string[]).includes(kind)) {
      const extra = Object.keys(fields);
      if (extra.length > 0)
        throw new BurnError('ActivationConfig', `activation '${kind}' takes no fields, got ${extra.join(', ')}`);
      return new ActivationConfig(kind as SimpleKind);
    }
    throw new BurnError(
      'ActivationConfig',
      `unknown activation kind ${JSON.stringify(kind)}; expected one of ${allKinds()}`,
    );
  }

  /** A zod schema for config fields: accepts an ActivationConfig or its JSON, yields an ActivationConfig. */
  static get schema(): z.ZodType<ActivationConfig, ActivationConfig | ActivationConfigJSON | ActivationKind> {
    return z.unknown().transform((value, ctx) => {
      try {
        return ActivationConfig.fromJSON(value);
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          message: e instanceof BurnError ? e.message.replace(/^ActivationConfig: /, '') : String(e),
        });
        return z.NEVER;
      }
    }) as unknown as z.ZodType<ActivationConfig, ActivationConfig | ActivationConfigJSON | ActivationKind>;
  }

  private static variant<K extends keyof ConfiguredVariants>(
    kind: K,
    config: ConfiguredVariants[K] | InputOf<ConfiguredVariants[K]>,
  ): ActivationConfig {
    const Ctor = CONFIGS[kind];
    if (config instanceof Ctor) return new ActivationConfig(kind, config);
    return new ActivationConfig(kind, new Ctor(config as never));
  }

  /** Creates the selected activation on `device` (Burn's `ActivationConfig::init`). */
  init(device: Device): Activation {
    switch (this.kind) {
      case 'identity':
        return new Identity();
      case 'gelu':
        return new Gelu();
      case 'geluApproximate':
        return Gelu.newApproximate();
      case 'relu':
        return new Relu();
      case 'selu':
        return new Selu();
      case 'sigmoid':
        return new Sigmoid();
      case 'tanh':
        return new Tanh();
      case 'hardSwish':
        return new HardSwish();
      case 'softsign':
        return new Softsign();
      case 'prelu':
        return (this.config as PReluConfig).init(device);
      case 'leakyRelu':
        return (this.config as LeakyReluConfig).init();
      case 'swiGlu':
        return (this.config as SwiGluConfig).init(device);
      case 'hardSigmoid':
        return (this.config as HardSigmoidConfig).init();
      case 'softplus':
        return (this.config as SoftplusConfig).init();
      case 'elu':
        return (this.config as EluConfig).init();
      case 'celu':
        return (this.config as CeluConfig).init();
      case 'thresholdedRelu':
        return (this.config as ThresholdedReluConfig).init();
      case 'hardShrink':
        return (this.config as HardShrinkConfig).init();
      case 'softShrink':
        return (this.config as SoftShrinkConfig).init();
      case 'shrink':
        return (this.config as ShrinkConfig).init();
    }
  }

  /** `{ kind, ...fields }`. */
  toJSON(): ActivationConfigJSON {
    return { kind: this.kind, ...(this.config ? (this.config as Config).toJSON() : {}) };
  }

  /** `ActivationConfig {"kind":"leakyRelu","negativeSlope":0.01}`. */
  toString(): string {
    return `ActivationConfig ${JSON.stringify(this.toJSON())}`;
  }
}

function allKinds(): string {
  return [...SIMPLE, ...Object.keys(CONFIGS)].map((k) => `'${k}'`).join(', ');
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return (value as object).constructor?.name ?? 'object';
  return JSON.stringify(value) ?? String(value);
}
