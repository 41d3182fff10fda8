import { z } from 'zod';
import { BurnError } from '../core/errors.js';
import { readTextFile, writeTextFileAtomic } from './files.js';

/** The zod fields of a config. */
export type ConfigShape = z.ZodRawShape;
/** The values a config holds (defaults filled). */
export type ConfigValues<S extends ConfigShape> = z.output<z.ZodObject<S>>;
/**
 * What a field accepts: its schema's input type, or — when that is `unknown` (a schema built as
 * `z.unknown().transform(…)`, or declared `z.ZodType<X>` with the input left out) — the type it
 * holds, so that `gradClipping: 5` is a compile error rather than a value only validation sees.
 */
export type FieldInput<T> = T extends z.ZodType ? (unknown extends z.input<T> ? z.output<T> : z.input<T>) : never;

/** The values its constructor takes (fields with defaults optional), each typed by {@link FieldInput}. */
export type ConfigInput<S extends ConfigShape> = {
  [K in keyof z.input<z.ZodObject<S>>]: K extends keyof S
    ? unknown extends z.input<z.ZodObject<S>>[K]
      ? FieldInput<S[K]>
      : z.input<z.ZodObject<S>>[K]
    : z.input<z.ZodObject<S>>[K];
};

/** A typed `withX(value)` setter for every field `x`, returning a new config of the same class. */
export type ConfigSetters<S extends ConfigShape> = {
  readonly [K in keyof S & string as `with${Capitalize<K>}`]: <T>(this: T, value: FieldInput<S[K]>) => T;
};

/** An instance of a class made by {@link Config.define}. */
export type ConfigInstance<S extends ConfigShape> = Config &
  Readonly<ConfigValues<S>> &
  ConfigSetters<S> & {
    /** A new config with some fields replaced (validated). */
    with<T>(this: T, values: Partial<ConfigInput<S>>): T;
  };

/** The class {@link Config.define} returns; extend it to add methods such as `init(device)`. */
export interface ConfigClass<S extends ConfigShape> {
  /** Validates `values` (optional when every field has a default or is optional). */
  new (...values: {} extends ConfigInput<S> ? [values?: ConfigInput<S>] : [values: ConfigInput<S>]): ConfigInstance<S>;
  /** The zod fields. */
  readonly shape: S;
  /**
   * A schema for nesting this config in another (`model: ModelConfig.schema`): accepts an
   * instance or plain values and yields an instance. Typed as the base config; use
   * {@link ConfigClass.nested} for the exact subclass type.
   */
  readonly schema: z.ZodType<ConfigInstance<S>, ConfigInput<S> | ConfigInstance<S>>;
  /** The nesting schema typed with the exact subclass (`model: ModelConfig.nested()`). */
  nested<T>(this: new (values: ConfigInput<S>) => T): z.ZodType<T, ConfigInput<S> | T>;
  /** Reads and validates a config saved with `save(path)`. */
  load<T>(this: new (values: ConfigInput<S>) => T, path: string): T;
  /** Validates plain JSON values. */
  fromJSON<T>(this: new (values: ConfigInput<S>) => T, json: unknown): T;
}

type AnyConfigClass = (new (values: never) => Config) & { readonly shape: ConfigShape; readonly name: string };

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Formats zod issues as `field.path: message; …`. */
function describe(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message.replace(/^Invalid input: /, '')}`)
    .join('; ');
}

/** Parses `values` with the class's fields, or throws a BurnError naming each bad field path. */
function parse(cls: AnyConfigClass, values: unknown): Record<string, unknown> {
  const result = z.object(cls.shape).strict().safeParse(values);
  if (!result.success) throw new BurnError(cls.name, `invalid config: ${describe(result.error)}`);
  return result.data as Record<string, unknown>;
}

/** Builds an instance of `cls` from already-validated values, without re-running the constructor. */
function build<T extends Config>(cls: AnyConfigClass, values: Record<string, unknown>): T {
  const instance = Object.create(cls.prototype as object) as T;
  Object.assign(instance, values);
  return instance;
}

/**
 * Configurations (Burn's `#[derive(Config)]`): `Config.define(zodShape)` makes a class with typed
 * fields, defaults, a validating options-object constructor, a `withX()` setter per field,
 * `with({...})`, `toJSON`, `save(path)`, static `load(path)` / `fromJSON` and a `schema` for nesting.
 *
 * ```ts
 * class ModelConfig extends Config.define({ hiddenSize: z.number().int().default(64) }) {
 *   init(device: Device) { return new Model(this, device); }
 * }
 * ```
 */
export abstract class Config {
  /** Defines a config class from zod fields. */
  static define<S extends ConfigShape>(shape: S): ConfigClass<S> {
    class Defined extends Config {
      static readonly shape = shape;

      constructor(values?: ConfigInput<S>) {
        super();
        // Validate everything before touching `this`: an invalid config never half-exists.
        const parsed = parse(new.target as unknown as AnyConfigClass, values ?? {});
        Object.assign(this, parsed);
      }

      static get schema(): z.ZodType {
        return (this as unknown as { nested(): z.ZodType }).nested();
      }

      static nested(this: AnyConfigClass): z.ZodType {
        const cls = this;
        return z.unknown().transform((value, ctx) => {
          if (value instanceof cls) return value;
          const result = z.object(cls.shape).strict().safeParse(value);
          if (!result.success) {
            for (const issue of result.error.issues)
              ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] });
            return z.NEVER;
          }
          return build(cls, result.data as Record<string, unknown>);
        });
      }

      static load(this: AnyConfigClass, path: string): Config {
        const text = readTextFile(path, `${this.name}.load`);
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch (e) {
          throw new BurnError(`${this.name}.load`, `${path} is not valid JSON: ${(e as Error).message}`);
        }
        return build(this, parse(this, json));
      }

      static fromJSON(this: AnyConfigClass, json: unknown): Config {
        return build(this, parse(this, json));
      }
    }
    for (const key of Object.keys(shape)) {
      Object.defineProperty(Defined.prototype, `with${capitalize(key)}`, {
        value(this: Config, value: unknown) {
          return this.with({ [key]: value });
        },
      });
    }
    return Defined as unknown as ConfigClass<S>;
  }

  /** A new config with some fields replaced (validated like the constructor). */
  with(values: object): this {
    const cls = this.constructor as unknown as AnyConfigClass;
    return build(cls, parse(cls, { ...this.toJSON(), ...values }));
  }

  /** The fields as plain JSON values (nested configs included). */
  toJSON(): Record<string, unknown> {
    const plain = (v: unknown): unknown => (v instanceof Config ? v.toJSON() : Array.isArray(v) ? v.map(plain) : v);
    return Object.fromEntries(Object.entries(this).map(([k, v]) => [k, plain(v)]));
  }

  /** Writes the config as JSON (atomically: a failed write leaves the old file intact). */
  save(path: string): void {
    writeTextFileAtomic(path, `${JSON.stringify(this.toJSON(), null, 2)}\n`, `${this.constructor.name}.save`);
  }

  /** The config as pretty JSON. */
  toString(): string {
    return `${this.constructor.name} ${JSON.stringify(this.toJSON())}`;
  }
}

export { z };
