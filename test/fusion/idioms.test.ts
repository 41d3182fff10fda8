/**
 * Idioms of fused programs (src/backend/fusion/idioms.ts): softmax, log-softmax, relu and relu's
 * backward recognized in the primitive formulas the fusion decorator records, replayed as the
 * backend's own kernels; and the CPU autotune choosing between the engine's fused kernel and that
 * replay (src/backends/cpu/fusion/run.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fusedIdioms } from '../../src/backend/fusion/idioms.js';
import { fusedProgram, type FusedCall, type FusedInstr, type FusedProgram } from '../../src/backend/fusion/program.js';
import { replayFused } from '../../src/backend/fusion/replay.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { jsEngine, type CpuEngineKernels } from '../../src/backends/cpu/engine.js';
import { cpuFusedChoices } from '../../src/backends/cpu/fusion/run.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import type { CpuTensor } from '../../src/backends/cpu/storage.js';
import { TensorData } from '../../src/index.js';
import { withFakeAutotuneClock } from '../helpers/autotune.js';

const f32 = 'f32' as const;

function program(instrs: FusedInstr[], outputs: number[], inputs = 1, scalars = 0): FusedProgram {
  return fusedProgram({
    inputs: Array.from({ length: inputs }, () => ({ dtype: f32, level: 'element' as const })),
    scalars,
    instrs,
    outputs: outputs.map((value) => ({ value })),
  });
}

/** The decorator's softmax formula over the inner dims, after `x · s` (prologue); `extra`: the exp values are an output too. */
function softmaxProgram(prologue: boolean, extra = false): FusedProgram {
  const instrs: FusedInstr[] = [{ kind: 'load', input: 0, dtype: f32 }];
  if (prologue)
    instrs.push({ kind: 'scalar', index: 0, dtype: f32 }, { kind: 'binary', op: 'mul', x: 0, y: 1, dtype: f32 });
  const x = instrs.length - 1;
  instrs.push(
    { kind: 'reduce', op: 'max', x, dtype: f32 },
    { kind: 'binary', op: 'sub', x, y: x + 1, dtype: f32 },
    { kind: 'unary', op: 'exp', x: x + 2, dtype: f32 },
    { kind: 'reduce', op: 'sum', x: x + 3, dtype: f32 },
    { kind: 'binary', op: 'div', x: x + 3, y: x + 4, dtype: f32 },
  );
  return program(instrs, extra ? [x + 5, x + 3] : [x + 5], 1, prologue ? 1 : 0);
}

function logSoftmaxProgram(): FusedProgram {
  return program(
    [
      { kind: 'load', input: 0, dtype: f32 },
      { kind: 'reduce', op: 'max', x: 0, dtype: f32 },
      { kind: 'binary', op: 'sub', x: 0, y: 1, dtype: f32 },
      { kind: 'unary', op: 'exp', x: 2, dtype: f32 },
      { kind: 'reduce', op: 'sum', x: 3, dtype: f32 },
      { kind: 'unary', op: 'log', x: 4, dtype: f32 },
      { kind: 'binary', op: 'sub', x: 2, y: 5, dtype: f32 },
    ],
    [6],
  );
}

/** where(a ≤ 0, 0, b): relu when a is b (one input), relu's backward otherwise (two inputs). */
function reluProgram(backward: boolean): FusedProgram {
  const instrs: FusedInstr[] = [{ kind: 'load', input: 0, dtype: f32 }];
  if (backward) instrs.push({ kind: 'load', input: 1, dtype: f32 });
  const z = instrs.length;
  instrs.push(
    { kind: 'scalar', index: 0, dtype: f32 },
    { kind: 'compare', op: 'le', x: 0, y: z, dtype: 'bool' },
    { kind: 'scalar', index: 1, dtype: f32 },
    { kind: 'where', c: z + 1, x: z + 2, y: backward ? 1 : 0, dtype: f32 },
  );
  return program(instrs, [z + 3], backward ? 2 : 1, 2);
}

const js = (engine: CpuEngineKernels = jsEngine) => new CpuBackend(engine, new BufferPool({ minBytes: 0 }));

function tensor(b: CpuBackend, shape: number[], seed: number): CpuTensor {
  const n = shape.reduce((a, s) => a * s, 1);
  const v = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 1.7 + seed) * 4);
  return b.fromData(new TensorData(v, shape, f32));
}

const read = (b: CpuBackend, t: CpuTensor): number[] => Array.from(b.toDataSync(t).values as Float32Array);

/** Counts the backend's calls of the named ops. */
function spy(b: CpuBackend, names: readonly ('softmax' | 'logSoftmax' | 'relu' | 'reluBackward' | 'reduce')[]) {
  const calls: Record<string, number> = {};
  for (const name of names) {
    const original = (b[name] as (...args: unknown[]) => CpuTensor).bind(b);
    calls[name] = 0;
    (b as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls[name]!++;
      return original(...args);
    };
  }
  return calls;
}

describe('fused program idioms', () => {
  it('finds softmax, log-softmax, relu and its backward in the decorator formulas', () => {
    assert.deepEqual(
      fusedIdioms(softmaxProgram(false)).map((i) => [i.kind, i.root, i.x]),
      [['softmax', 5, 0]],
    );
    assert.deepEqual(
      fusedIdioms(softmaxProgram(true)).map((i) => [i.kind, i.x]),
      [['softmax', 2]],
    );
    assert.deepEqual(
      fusedIdioms(logSoftmaxProgram()).map((i) => i.kind),
      ['logSoftmax'],
    );
    const relu = fusedIdioms(reluProgram(false))[0]!;
    assert.equal(relu.kind, 'relu');
    assert.ok(relu.kind === 'relu' && relu.x === relu.grad);
    const back = fusedIdioms(reluProgram(true))[0]!;
    assert.ok(back.kind === 'relu' && back.x === 0 && back.grad === 1);
  });

  it('leaves a formula alone when a value inside it is read elsewhere', () => {
    // The exp values are an output: the replay must compute them, so no softmax idiom.
    assert.deepEqual(fusedIdioms(softmaxProgram(false, true)), []);
  });

  it('replays softmax (with its prologue) and log-softmax as the backend kernels: the unfused values', () => {
    for (const inner of [[16], [4, 8]]) {
      const b = js();
      const shape = [3, ...inner];
      const x = tensor(b, shape, 1);
      const calls = spy(b, ['softmax', 'logSoftmax', 'reduce']);
      const call = (p: FusedProgram, scalars: number[] = []): FusedCall<CpuTensor> => ({
        program: p,
        outer: [3],
        inner,
        inputs: [x],
        scalars,
      });
      const flat = b.reshape(x, [3, inner.reduce((a, s) => a * s, 1)]);
      const expectSoft = read(b, b.softmax(flat, 1));
      const expectLog = read(b, b.logSoftmax(flat, 1));
      const expectScaled = read(b, b.softmax(b.binaryScalar('mul', flat, 0.3), 1));
      calls['softmax'] = calls['logSoftmax'] = calls['reduce'] = 0;
      assert.deepEqual(read(b, replayFused(b, call(softmaxProgram(false)), { idioms: true })[0]!), expectSoft);
      assert.deepEqual(read(b, replayFused(b, call(logSoftmaxProgram()), { idioms: true })[0]!), expectLog);
      assert.deepEqual(read(b, replayFused(b, call(softmaxProgram(true), [0.3]), { idioms: true })[0]!), expectScaled);
      assert.deepEqual(calls, { softmax: 2, logSoftmax: 1, reduce: 0 });
      // Without idioms: the primitives (max and sum reductions).
      replayFused(b, call(softmaxProgram(false)));
      assert.equal(calls['reduce'], 2);
    }
  });

  it('replays relu and its backward as the backend kernels, only when the scalars are zeros', () => {
    const b = js();
    const x = tensor(b, [40], 2);
    const g = tensor(b, [40], 3);
    const calls = spy(b, ['relu', 'reluBackward']);
    const run = (p: FusedProgram, inputs: CpuTensor[], scalars: number[]) =>
      read(b, replayFused(b, { program: p, outer: [40], inner: [], inputs, scalars }, { idioms: true })[0]!);
    const xs = read(b, x),
      gs = read(b, g);
    assert.deepEqual(
      run(reluProgram(false), [x], [0, 0]),
      xs.map((v) => (v <= 0 ? 0 : v)),
    );
    assert.deepEqual(
      run(reluProgram(true), [x, g], [0, 0]),
      xs.map((v, i) => (v <= 0 ? 0 : gs[i]!)),
    );
    assert.deepEqual(calls, { relu: 1, reluBackward: 1 });
    // where(x ≤ 1, 2, x) is no relu: the primitives run.
    assert.deepEqual(
      run(reluProgram(false), [x], [1, 2]),
      xs.map((v) => (v <= 1 ? 2 : v)),
    );
    assert.deepEqual(calls, { relu: 1, reluBackward: 1 });
  });
});

describe('CPU fused autotune on the engine path', () => {
  it("times the engine's kernel against the idiom replay and keeps the faster", () => {
    for (const replayFaster of [false, true]) {
      withFakeAutotuneClock(replayFaster, (replayed) => {
        let engineCalls = 0;
        let expected: Float32Array | undefined;
        const engine: CpuEngineKernels = {
          name: 'fake',
          fused: (args) => {
            engineCalls++;
            (args.outputs[0] as Float32Array).set(expected!);
            return args.outputs;
          },
        };
        const b = js(engine);
        const softmax = b.softmax.bind(b);
        b.softmax = (p, dim) => {
          replayed();
          return softmax(p, dim);
        };
        const x = tensor(b, [40, 64], 4);
        expected = Float32Array.from(read(b, softmax(b.binaryScalar('mul', x, 0.3), 1)));
        const call: FusedCall<CpuTensor> = {
          program: softmaxProgram(true),
          outer: [40],
          inner: [64],
          inputs: [x],
          scalars: [0.3],
        };
        // The first call runs each side 2 + 5 times (warm-ups, timed rounds), then the choice holds.
        const results = Array.from({ length: 4 }, () => b.fused(call));
        assert.deepEqual([...cpuFusedChoices(b).values()], [replayFaster ? 'replay' : 'fused']);
        assert.equal(engineCalls, replayFaster ? 7 : 11);
        for (const out of results)
          if (replayFaster) assert.equal(out, undefined);
          else assert.deepEqual(read(b, out![0]!), Array.from(expected!));
      });
    }
  });
});
