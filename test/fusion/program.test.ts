// The fused-kernel IR (src/backend/fusion/program.ts): structural keys, levels, the pass
// schedule of row programs, malformed programs refused, and the op-by-op replay's values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { fusedProgram, scheduleFused, type FusedInstr, type FusedInput } from '../../src/backend/fusion/program.js';
import { replayFused } from '../../src/backend/fusion/replay.js';
import { BurnError, Device, TensorData } from '../../src/index.js';

const f32 = 'f32' as const;
const el: FusedInput = { dtype: f32, level: 'element' };

/** softmax over the row: max, exp(x − max), sum, exp(x − max) / sum. */
function softmaxProgram() {
  const instrs: FusedInstr[] = [
    { kind: 'load', input: 0, dtype: f32 },
    { kind: 'reduce', op: 'max', x: 0, dtype: f32 },
    { kind: 'binary', op: 'sub', x: 0, y: 1, dtype: f32 },
    { kind: 'unary', op: 'exp', x: 2, dtype: f32 },
    { kind: 'reduce', op: 'sum', x: 3, dtype: f32 },
    { kind: 'binary', op: 'div', x: 3, y: 4, dtype: f32 },
  ];
  return fusedProgram({ inputs: [el], scalars: 0, instrs, outputs: [{ value: 5 }, { value: 4 }] });
}

/** LayerNorm without affine: mean, then the variance of x − mean (a dependent reduction), then the output. */
function layerNormProgram() {
  const instrs: FusedInstr[] = [
    { kind: 'load', input: 0, dtype: f32 }, // 0 x
    { kind: 'scalar', index: 0, dtype: f32 }, // 1 1/n
    { kind: 'scalar', index: 1, dtype: f32 }, // 2 eps
    { kind: 'reduce', op: 'sum', x: 0, dtype: f32 }, // 3
    { kind: 'binary', op: 'mul', x: 3, y: 1, dtype: f32 }, // 4 mean
    { kind: 'binary', op: 'sub', x: 0, y: 4, dtype: f32 }, // 5 xc
    { kind: 'binary', op: 'mul', x: 5, y: 5, dtype: f32 }, // 6 xc²
    { kind: 'reduce', op: 'sum', x: 6, dtype: f32 }, // 7
    { kind: 'binary', op: 'mul', x: 7, y: 1, dtype: f32 }, // 8 var
    { kind: 'binary', op: 'add', x: 8, y: 2, dtype: f32 }, // 9
    { kind: 'unary', op: 'sqrt', x: 9, dtype: f32 }, // 10
    { kind: 'binary', op: 'div', x: 5, y: 10, dtype: f32 }, // 11 out
  ];
  return fusedProgram({ inputs: [el], scalars: 2, instrs, outputs: [{ value: 11 }] });
}

describe('fused program IR', () => {
  it('levels: reductions make row values; element math over them stays per element', () => {
    const p = softmaxProgram();
    assert.equal(p.reduces, true);
    assert.deepEqual(p.levels, ['element', 'row', 'element', 'element', 'row', 'element']);
  });

  it('keys are structural: equal for equal programs, different for another op, dtype or output', () => {
    assert.equal(softmaxProgram().key, softmaxProgram().key);
    const chain = (op: 'exp' | 'log', dtype: 'f32' | 'f64') =>
      fusedProgram({
        inputs: [{ dtype, level: 'element' }],
        scalars: 0,
        instrs: [
          { kind: 'load', input: 0, dtype },
          { kind: 'unary', op, x: 0, dtype },
        ],
        outputs: [{ value: 1 }],
      }).key;
    assert.notEqual(chain('exp', 'f32'), chain('log', 'f32'));
    assert.notEqual(chain('exp', 'f32'), chain('exp', 'f64'));
    assert.notEqual(softmaxProgram().key, layerNormProgram().key);
  });

  it('schedule: independent reductions share a pass, a dependent one takes the next', () => {
    const s = scheduleFused(softmaxProgram());
    // max in pass 0; the sum of exp(x − max) needs max: pass 1; the output needs the sum: pass 2.
    assert.equal(s.passes.length, 3);
    assert.deepEqual(s.passes[0]!.reduces, [1]);
    assert.deepEqual(s.passes[1]!.reduces, [4]);
    assert.deepEqual(s.passes[2]!.stores, [0]);
    assert.deepEqual(s.passes[2]!.elementInstrs, [0, 2, 3, 5]);
    assert.deepEqual(s.rowStores, [1]);
    const ln = scheduleFused(layerNormProgram());
    assert.equal(ln.passes.length, 3);
    assert.deepEqual(
      ln.passes.map((p) => p.reduces),
      [[3], [7], []],
    );
    assert.deepEqual(ln.passes[2]!.stores, [0]);
    // mean before pass 1, var/sqrt before pass 2; the scalars before pass 0.
    assert.deepEqual(ln.rowBefore[0], [1, 2]);
    assert.deepEqual(ln.rowBefore[1], [4]);
    assert.deepEqual(ln.rowBefore[2], [8, 9, 10]);
  });

  it('schedule of an elementwise program: one pass storing every output', () => {
    const p = fusedProgram({
      inputs: [el, el],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: f32 },
        { kind: 'load', input: 1, dtype: f32 },
        { kind: 'binary', op: 'add', x: 0, y: 1, dtype: f32 },
        { kind: 'unary', op: 'exp', x: 2, dtype: f32 },
      ],
      outputs: [{ value: 3 }, { value: 2 }],
    });
    const s = scheduleFused(p);
    assert.equal(s.passes.length, 1);
    assert.deepEqual(s.passes[0]!.elementInstrs, [0, 1, 2, 3]);
    assert.deepEqual(s.passes[0]!.stores, [0, 1]);
  });

  it('malformed programs are BurnErrors naming the instruction', () => {
    const bad =
      (instrs: FusedInstr[], inputs: FusedInput[] = [el]) =>
      () =>
        fusedProgram({ inputs, scalars: 0, instrs, outputs: [{ value: 0 }] });
    assert.throws(bad([{ kind: 'unary', op: 'exp', x: 0, dtype: f32 }]), BurnError);
    assert.throws(bad([{ kind: 'load', input: 3, dtype: f32 }]), /loads input 3 of 1/);
    assert.throws(bad([{ kind: 'load', input: 0, dtype: 'f64' }]), /has dtype f64, its input f32/);
    assert.throws(
      bad([{ kind: 'load', input: 0, dtype: f32 }], [{ dtype: f32, level: 'row' }]),
      /a row input in a program without reductions/,
    );
  });
});

describe('replayFused: the reference semantics', () => {
  const device = Device.cpu({ engine: 'js' });
  const b = device.backend as Backend<TensorPrimitive>;

  it('softmax rows and their sums', async () => {
    const x = [1, 2, 3, -1, 0, 1];
    const call = {
      program: softmaxProgram(),
      outer: [2],
      inner: [3],
      inputs: [b.fromData(new TensorData(x, [2, 3], 'f32'))],
      scalars: [],
    };
    const [out, sums] = replayFused(b, call);
    assert.deepEqual(out!.shape, [2, 3]);
    assert.deepEqual(sums!.shape, [2]);
    const got = Array.from((await b.toData(out!)).toArray() as ArrayLike<number>);
    const want = [0, 1].flatMap((r) => {
      const row = x.slice(3 * r, 3 * r + 3);
      const m = Math.max(...row);
      const s = row.reduce((a, v) => a + Math.exp(v - m), 0);
      return row.map((v) => Math.exp(v - m) / s);
    });
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-6, `${v} vs ${want[i]}`));
  });

  it('LayerNorm rows (two dependent reductions)', async () => {
    const x = [1, 2, 3, 4, -2, 0, 2, 8];
    const call = {
      program: layerNormProgram(),
      outer: [2],
      inner: [4],
      inputs: [b.fromData(new TensorData(x, [2, 4], 'f32'))],
      scalars: [1 / 4, 1e-5],
    };
    const [out] = replayFused(b, call);
    const got = Array.from((await b.toData(out!)).toArray() as ArrayLike<number>);
    const want = [0, 1].flatMap((r) => {
      const row = x.slice(4 * r, 4 * r + 4);
      const m = row.reduce((a, v) => a + v, 0) / 4;
      const v = row.reduce((a, y) => a + (y - m) ** 2, 0) / 4;
      return row.map((y) => (y - m) / Math.sqrt(v + 1e-5));
    });
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-5, `${v} vs ${want[i]}`));
  });

  it('an op that hands back its operand (a cast to the same dtype) neither frees the input nor a live value', async () => {
    const x = b.fromData(new TensorData([1, 2, 3], [3], 'f32'));
    const program = fusedProgram({
      inputs: [el],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: f32 },
        { kind: 'cast', x: 0, dtype: f32 }, // the input itself
        { kind: 'unary', op: 'exp', x: 1, dtype: f32 },
        { kind: 'cast', x: 2, dtype: f32 }, // the intermediate itself
        { kind: 'unary', op: 'neg', x: 3, dtype: f32 },
        { kind: 'binary', op: 'add', x: 4, y: 3, dtype: f32 },
      ],
      outputs: [{ value: 5 }, { value: 1 }],
    });
    const [out, same] = replayFused(b, { program, outer: [3], inner: [], inputs: [x], scalars: [] });
    assert.deepEqual(Array.from((await b.toData(out!)).toArray() as ArrayLike<number>), [0, 0, 0]);
    assert.deepEqual(Array.from((await b.toData(same!)).toArray() as ArrayLike<number>), [1, 2, 3]);
    assert.deepEqual(Array.from((await b.toData(x)).toArray() as ArrayLike<number>), [1, 2, 3]);
  });
});
