// Config.define: typed fields, defaults, validation with field paths, setters, JSON round trips,
// nested configs and atomic saves.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, Config, z } from '../../src/index.js';
import { Initializer, initializerSchema, PaddingConfig2d, paddingSchema } from '../../src/nn/index.js';

class ModelConfig extends Config.define({
  numClasses: z.number().int().positive(),
  hiddenSize: z.number().int().default(64),
  dropout: z.number().min(0).max(1).default(0.5),
  padding: paddingSchema.default('valid'),
  initializer: initializerSchema.default(Initializer.Zeros),
  activation: z.enum(['relu', 'gelu']).default('relu'),
}) {
  describe(): string {
    return `${this.numClasses}/${this.hiddenSize}`;
  }
}

class TrainingConfig extends Config.define({
  model: ModelConfig.nested(),
  legacy: ModelConfig.schema.optional(),
  epochs: z.number().int().default(2),
}) {}

const dir = mkdtempSync(join(tmpdir(), 'burn-ts-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('Config', () => {
  it('fills defaults, types fields, and keeps subclass methods', () => {
    const c = new ModelConfig({ numClasses: 10 });
    assert.equal(c.numClasses, 10);
    assert.equal(c.hiddenSize, 64);
    assert.equal(c.dropout, 0.5);
    assert.equal(c.padding, 'valid');
    assert.deepEqual(c.initializer, { kind: 'zeros' });
    assert.equal(c.describe(), '10/64');
    assert.ok(c instanceof ModelConfig && c instanceof Config);
  });

  it('withX setters and with() return new validated configs of the same class', () => {
    const c = new ModelConfig({ numClasses: 10 });
    const d = c
      .withDropout(0.25)
      .withPadding(PaddingConfig2d.Explicit(1, 2))
      .withInitializer(Initializer.XavierUniform({ gain: 2 }));
    assert.ok(d instanceof ModelConfig);
    assert.equal(d.describe(), '10/64');
    assert.equal(d.dropout, 0.25);
    assert.deepEqual(d.padding, { explicit: [1, 2] });
    assert.equal(c.dropout, 0.5, 'the original is unchanged');
    assert.equal(c.with({ hiddenSize: 3, numClasses: 4 }).describe(), '4/3');
    assert.throws(
      () => c.withDropout(2),
      (e: unknown) => e instanceof BurnError && /dropout/.test(e.message) && /<=1/.test(e.message.replace(/ /g, '')),
    );
  });

  it('rejects invalid values with the field path, never leaving a half-built object', () => {
    assert.throws(
      () => new ModelConfig({ numClasses: 'ten' as unknown as number }),
      /ModelConfig: invalid config: numClasses: expected number, received string/,
    );
    assert.throws(() => new ModelConfig({ numClasses: 1.5 }), /numClasses: expected int/);
    assert.throws(() => new ModelConfig({} as never), /numClasses/);
    assert.throws(() => new ModelConfig({ numClasses: 1, unknownField: 1 } as never), /unknownField/);
    assert.throws(() => new ModelConfig({ numClasses: 1, activation: 'tanh' as never }), /activation/);
    assert.throws(() => TrainingConfig.fromJSON({ model: { numClasses: 1, hiddenSize: 'big' } }), /model\.hiddenSize/);
    assert.throws(
      () => new ModelConfig({ numClasses: 1, initializer: { kind: 'kaimingUniform' } as never }),
      /initializer/,
    );
  });

  it('toJSON, save and load round-trip, nested configs included', () => {
    const t = new TrainingConfig({ model: new ModelConfig({ numClasses: 3 }).withHiddenSize(9), epochs: 5 });
    assert.deepEqual(t.toJSON(), {
      model: {
        numClasses: 3,
        hiddenSize: 9,
        dropout: 0.5,
        padding: 'valid',
        initializer: { kind: 'zeros' },
        activation: 'relu',
      },
      epochs: 5,
    });
    const path = join(dir, 'training.json');
    t.save(path);
    const loaded = TrainingConfig.load(path);
    assert.ok(loaded instanceof TrainingConfig);
    assert.ok(loaded.model instanceof ModelConfig);
    assert.equal(loaded.model.describe(), '3/9');
    assert.deepEqual(loaded.toJSON(), t.toJSON());
    // Plain values are accepted for nested configs.
    assert.equal(new TrainingConfig({ model: { numClasses: 2 } }).model.describe(), '2/64');
    assert.equal(new TrainingConfig({ model: { numClasses: 2 }, legacy: { numClasses: 7 } }).legacy?.numClasses, 7);
  });

  it('load errors name the file and the field', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"model": {"numClasses": -1}}');
    assert.throws(() => TrainingConfig.load(bad), /TrainingConfig: invalid config: model\.numClasses/);
    writeFileSync(bad, '{not json');
    assert.throws(() => TrainingConfig.load(bad), /TrainingConfig\.load: .*bad\.json is not valid JSON/);
    assert.throws(
      () => TrainingConfig.load(join(dir, 'missing.json')),
      /TrainingConfig\.load: cannot read .*missing\.json/,
    );
  });

  it('a failed save leaves the old file intact and no temporary file behind', () => {
    const target = join(dir, 'kept');
    mkdirSync(target);
    writeFileSync(join(target, 'inside.txt'), 'old');
    assert.throws(() => new ModelConfig({ numClasses: 1 }).save(target), /ModelConfig\.save: cannot write/);
    assert.equal(readFileSync(join(target, 'inside.txt'), 'utf8'), 'old');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('.tmp-')),
      [],
    );
    assert.throws(() => new ModelConfig({ numClasses: 1 }).save(join(dir, 'no-such-dir', 'c.json')), BurnError);
  });
});
