// Type-level tests of config fields and shapes: a field whose schema accepts
// `unknown` input is typed by what it holds (`gradClipping: 5` does not compile), and `dims()` of a
// tensor of known rank is a tuple. `npm run typecheck` checks every `@ts-expect-error` line.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Config, Tensor, z } from '../../src/index.js';
import { AdamConfig, GradientClippingConfig, LinearLrSchedulerConfig, SgdConfig } from '../../src/optim/index.js';

it('config fields are typed by what they hold, also when their schema parses any input', () => {
  const ok = new AdamConfig({ gradClipping: GradientClippingConfig.Norm(1) });
  const ok2 = new SgdConfig({}).withGradientClipping({ kind: 'value', value: 0.5 });
  // @ts-expect-error a bare number is not a clipping config
  assert.throws(() => new AdamConfig({ gradClipping: 5 }), /gradClipping/);
  // @ts-expect-error the setter is typed the same way
  assert.throws(() => new SgdConfig({}).withGradientClipping(5), /gradientClipping: expected object, received number/);
  // A field made with z.unknown().transform(...) takes what the transform yields.
  class Schedule extends Config.define({
    lr: z
      .unknown()
      .transform((v) => Number(v))
      .pipe(z.number()),
    name: z.string().default('s'),
  }) {}
  const s = new Schedule({ lr: 0.5 });
  // @ts-expect-error a string where the field holds a number
  const t = () => new Schedule({ lr: 'fast' });
  class Nested extends Config.define({ scheduler: LinearLrSchedulerConfig.schema.optional() }) {}
  assert.equal(new Nested({}).scheduler, undefined);
  assert.deepEqual(
    [ok.gradClipping, ok2.gradientClipping, s.lr, typeof t],
    [{ kind: 'norm', value: 1 }, { kind: 'value', value: 0.5 }, 0.5, 'function'],
  );
});

it('dims() of a tensor of known rank is a tuple of that length', () => {
  const m = Tensor.zeros([2, 3]);
  const [rows, cols]: [number, number] = m.dims();
  const sum: number = rows + cols; // no `undefined` to rule out
  // @ts-expect-error a rank-2 tensor has two dims
  const three: [number, number, number] = m.dims();
  const any: number[] = Tensor.zeros([2, 3, 4]).reshape([-1]).dims(); // and it is still a number[]
  const unknownRank = m as Tensor<number>;
  const dims: number[] = unknownRank.dims();
  assert.deepEqual([rows, cols, sum, three.length, any, dims], [2, 3, 5, 2, [24], [2, 3]]);
});
