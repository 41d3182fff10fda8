// The wasm engine's fused-program kernel (wasm/assembly/fused.ts, a tiled interpreter over the
// module's vector ops; compiled by src/backends/cpu/wasm/fused.ts) against the IR's op-by-op replay
// on the same wasm device: elementwise chains, broadcasts, softmax, LayerNorm, reductions to a
// scalar, odd sizes, NaN in max, masks, and the programs the interpreter declines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend } from '../../src/backend/backend.js';
import {
  fusedOutputDtype,
  fusedOutputShape,
  fusedProgram,
  type FusedCall,
  type FusedInput,
  type FusedInstr,
  type FusedProgram,
} from '../../src/backend/fusion/program.js';
import { replayFused } from '../../src/backend/fusion/replay.js';
import type { CpuBackend } from '../../src/backends/cpu/backend.js';
import type { FusedEngineArgs } from '../../src/backends/cpu/engine.js';
import { wasmRuntime, wasmUnavailableReason, type WasmEngine } from '../../src/backends/cpu/wasm/index.js';
import type { CpuArray, CpuTensor } from '../../src/backends/cpu/storage.js';
import { TensorData, type DType } from '../../src/index.js';
import { wasmTestDevice } from '../helpers/devices.js';

const device = wasmTestDevice();
const skip = device ? false : `wasm engine unavailable: ${wasmUnavailableReason()}`;
const backend = device?.backend as unknown as CpuBackend | undefined;
const engine = backend?.engine as WasmEngine | undefined;

const f32 = 'f32' as const;
const el = (dtype: DType = f32): FusedInput => ({ dtype, level: 'element' });
const row = (dtype: DType = f32): FusedInput => ({ dtype, level: 'row' });

/** Deterministic values in [-2, 2) (a 32-bit LCG). */
function values(n: number, seed: number): number[] {
  let s = (seed * 2654435761 + 12345) >>> 0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 4 - 2;
  }
  return out;
}

function tensor(vals: ArrayLike<number>, shape: readonly number[], dtype: DType = f32): CpuTensor {
  return backend!.fromData(new TensorData(vals, shape, dtype));
}

/** The engine's arguments for `call`: element inputs over [...outer, ...inner], row inputs stride 0 along inner. */
function engineArgs(call: FusedCall<CpuTensor>): FusedEngineArgs {
  const { program, outer, inner } = call;
  const shape = [...outer, ...inner];
  const inputs = call.inputs.map((t, i) => {
    const strides = program.inputs[i]!.level === 'row' ? [...t.strides, ...inner.map(() => 0)] : [...t.strides];
    assert.equal(strides.length, shape.length);
    return { data: t.data, offset: t.offset, strides };
  });
  const outputs = program.outputs.map((_, k): CpuArray => {
    const n = fusedOutputShape(call, k).reduce((a, s) => a * s, 1);
    // Garbage in the outputs: the kernel must write every element.
    return fusedOutputDtype(program, k) === 'bool'
      ? new Uint8Array(n).fill(7)
      : fusedOutputDtype(program, k) === 'f64'
        ? new Float64Array(n).fill(-12345)
        : new Float32Array(n).fill(-12345);
  });
  return { program, shape, innerRank: inner.length, inputs, outputs, scalars: call.scalars };
}

/** Runs `call` fused on the engine and by replay; asserts equal values (within `rel` relative, 0: bit-equal up to NaN). */
function check(call: FusedCall<CpuTensor>, rel = 0): void {
  const ref = replayFused(backend as unknown as Backend<CpuTensor>, call).map((t) => backend!.toDataSync(t));
  const got = engine!.fused(engineArgs(call));
  assert.ok(got !== undefined, 'the wasm engine declined the program');
  got.forEach((arr, k) => {
    const want = ref[k]!.values as ArrayLike<number>;
    assert.equal(arr.length, want.length, `output ${k} length`);
    for (let i = 0; i < want.length; i++) {
      const a = Number(arr[i]);
      const b = Number(want[i]);
      if (Number.isNaN(b)) assert.ok(Number.isNaN(a), `output ${k}[${i}]: ${a}, expected NaN`);
      else if (rel === 0) assert.ok(a === b, `output ${k}[${i}]: ${a}, expected ${b}`);
      else assert.ok(Math.abs(a - b) <= rel * Math.max(1, Math.abs(b)), `output ${k}[${i}]: ${a}, expected ${b}`);
    }
  });
}

/** x*0.5+1 → exp → sub x → tanh → mul x → add x → sigmoid → mul x: the 8-op chain of the issue. */
function chainProgram(dtype: 'f32' | 'f64' = f32): FusedProgram {
  const d = dtype;
  const instrs: FusedInstr[] = [
    { kind: 'load', input: 0, dtype: d }, // 0 x
    { kind: 'scalar', index: 0, dtype: d }, // 1 0.5
    { kind: 'scalar', index: 1, dtype: d }, // 2 1
    { kind: 'binary', op: 'mul', x: 0, y: 1, dtype: d }, // 3
    { kind: 'binary', op: 'add', x: 3, y: 2, dtype: d }, // 4
    { kind: 'unary', op: 'exp', x: 4, dtype: d }, // 5
    { kind: 'binary', op: 'sub', x: 5, y: 0, dtype: d }, // 6
    { kind: 'unary', op: 'tanh', x: 6, dtype: d }, // 7
    { kind: 'binary', op: 'mul', x: 7, y: 0, dtype: d }, // 8
    { kind: 'binary', op: 'add', x: 8, y: 0, dtype: d }, // 9
    { kind: 'unary', op: 'sigmoid', x: 9, dtype: d }, // 10
    { kind: 'binary', op: 'mul', x: 10, y: 0, dtype: d }, // 11
  ];
  return fusedProgram({ inputs: [el(d)], scalars: 2, instrs, outputs: [{ value: 11 }] });
}

/** softmax over the row, also storing the row sums. */
function softmaxProgram(): FusedProgram {
  const instrs: FusedInstr[] = [
    { kind: 'load', input: 0, dtype: f32 },
    { kind: 'reduce', op: 'max', x: 0, dtype: f32 },
    { kind: 'binary', op: 'sub', x: 0, y: 1, dtype: f32 },
    { kind: 'unary', op: 'exp', x: 2, dtype: f32 },
    { kind: 'reduce', op: 'sum', x: 3, dtype: f32 },
    { kind: 'binary', op: 'div', x: 3, y: 4, dtype: f32 },
  ];
  return fusedProgram({ inputs: [el()], scalars: 0, instrs, outputs: [{ value: 5 }, { value: 4 }] });
}

/** LayerNorm with gamma and beta (broadcast along the rows): mean, variance of x − mean, affine. */
function layerNormProgram(): FusedProgram {
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
    { kind: 'binary', op: 'div', x: 5, y: 10, dtype: f32 }, // 11
    { kind: 'load', input: 1, dtype: f32 }, // 12 gamma
    { kind: 'load', input: 2, dtype: f32 }, // 13 beta
    { kind: 'binary', op: 'mul', x: 11, y: 12, dtype: f32 }, // 14
    { kind: 'binary', op: 'add', x: 14, y: 13, dtype: f32 }, // 15
  ];
  return fusedProgram({ inputs: [el(), el(), el()], scalars: 2, instrs, outputs: [{ value: 15 }] });
}

/** Σ x² over the row (to a scalar when the row is everything). */
function sumSquaresProgram(): FusedProgram {
  const instrs: FusedInstr[] = [
    { kind: 'load', input: 0, dtype: f32 },
    { kind: 'binary', op: 'mul', x: 0, y: 0, dtype: f32 },
    { kind: 'reduce', op: 'sum', x: 1, dtype: f32 },
  ];
  return fusedProgram({ inputs: [el()], scalars: 0, instrs, outputs: [{ value: 2 }] });
}

function call(
  program: FusedProgram,
  outer: number[],
  inner: number[],
  inputs: CpuTensor[],
  scalars: number[] = [],
): FusedCall<CpuTensor> {
  return { program, outer, inner, inputs, scalars };
}

describe('wasm fused programs', { skip }, () => {
  it('8-op elementwise chain, odd sizes (1, 7, 1023, 4097, 70001): bit-equal to the unfused wasm ops', () => {
    for (const n of [1, 7, 1023, 4097, 70001]) {
      const x = tensor(values(n, n), [n]);
      check(call(chainProgram(), [n], [], [x], [0.5, 1]));
    }
  });

  it('cheap elementwise chains run emitted WebAssembly: bit-equal at odd sizes, a splatted input, every cheap op', () => {
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0 x
      { kind: 'load', input: 1, dtype: f32 }, // 1 s: one value expanded
      { kind: 'scalar', index: 0, dtype: f32 }, // 2
      { kind: 'binary', op: 'mul', x: 0, y: 2, dtype: f32 }, // 3
      { kind: 'binary', op: 'add', x: 3, y: 1, dtype: f32 }, // 4
      { kind: 'unary', op: 'sign', x: 4, dtype: f32 }, // 5
      { kind: 'binary', op: 'sub', x: 0, y: 5, dtype: f32 }, // 6
      { kind: 'unary', op: 'recip', x: 6, dtype: f32 }, // 7
      { kind: 'unary', op: 'round', x: 7, dtype: f32 }, // 8
      { kind: 'binary', op: 'max', x: 8, y: 0, dtype: f32 }, // 9
      { kind: 'binary', op: 'min', x: 1, y: 9, dtype: f32 }, // 10
      { kind: 'unary', op: 'sqrt', x: 10, dtype: f32 }, // 11 NaN below 0
      { kind: 'unary', op: 'abs', x: 6, dtype: f32 }, // 12
      { kind: 'unary', op: 'floor', x: 12, dtype: f32 }, // 13
      { kind: 'binary', op: 'div', x: 13, y: 4, dtype: f32 }, // 14
      { kind: 'unary', op: 'neg', x: 14, dtype: f32 }, // 15
    ];
    const p = fusedProgram({ inputs: [el(), el()], scalars: 1, instrs, outputs: [{ value: 11 }, { value: 15 }] });
    for (const n of [1, 7, 1023, 4097, 70001]) {
      const xs = values(n, n + 3);
      if (n > 7) xs[3] = Number.NaN;
      const sv = backend!.expand(tensor([0.75], [1]), [n]);
      const before = engine!.fusedRuns.emitted;
      check(call(p, [n], [], [tensor(xs, [n]), sv], [3]));
      assert.equal(engine!.fusedRuns.emitted, before + 1, `n=${n}: the emitted kernel ran`);
      // An inexact scalar is applied in f64 (binaryScalar): the interpreter runs it.
      const interpreted = engine!.fusedRuns.interpreted;
      check(call(p, [n], [], [tensor(xs, [n]), sv], [0.1]));
      assert.equal(engine!.fusedRuns.interpreted, interpreted + 1);
    }
  });

  it('softmax over rows of 1, 7, 128, 1023 and 4097 values (row sums as a row output)', () => {
    for (const len of [1, 7, 128, 1023, 4097]) {
      const rows = len > 1000 ? 3 : 33;
      const x = tensor(values(rows * len, len), [rows, len]);
      check(call(softmaxProgram(), [rows], [len], [x]));
    }
  });

  it('LayerNorm over [4, 16, 512] with gamma and beta broadcast along the rows', () => {
    const [a, b, c] = [4, 16, 512];
    const x = tensor(values(a * b * c, 12), [a, b, c]);
    const gamma = backend!.expand(tensor(values(c, 13), [c]), [a, b, c]);
    const beta = backend!.expand(tensor(values(c, 14), [c]), [a, b, c]);
    check(call(layerNormProgram(), [a, b], [c], [x, gamma, beta], [1 / c, 1e-5]));
  });

  it('a row value on the left of a binary op over short and long rows (max − x, then x / that, where on a row mask)', () => {
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0
      { kind: 'reduce', op: 'max', x: 0, dtype: f32 }, // 1
      { kind: 'binary', op: 'sub', x: 1, y: 0, dtype: f32 }, // 2 row − element
      { kind: 'reduce', op: 'sum', x: 2, dtype: f32 }, // 3
      { kind: 'binary', op: 'div', x: 3, y: 2, dtype: f32 }, // 4 row / element
      { kind: 'scalar', index: 0, dtype: f32 }, // 5
      { kind: 'compare', op: 'gt', x: 3, y: 5, dtype: 'bool' }, // 6 row mask
      { kind: 'where', c: 6, x: 4, y: 0, dtype: f32 }, // 7
    ];
    const p = fusedProgram({ inputs: [el()], scalars: 1, instrs, outputs: [{ value: 7 }, { value: 3 }] });
    for (const len of [5, 33, 300, 2500]) {
      const rows = 41;
      check(call(p, [rows], [len], [tensor(values(rows * len, len + 40), [rows, len])], [len]));
    }
  });

  it('a reduction of a value after an element op has read it last among element ops (its register stays live)', () => {
    // Found by the random-program suite (test/backends/cpu-fused.test.ts, seed 44).
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0
      { kind: 'load', input: 1, dtype: f32 }, // 1 (unused)
      { kind: 'load', input: 2, dtype: f32 }, // 2 row input
      { kind: 'binary', op: 'add', x: 2, y: 0, dtype: f32 }, // 3 the last element op reading 0
      { kind: 'reduce', op: 'max', x: 0, dtype: f32 }, // 4 reads 0 after it
      { kind: 'scalar', index: 0, dtype: f32 }, // 5
      { kind: 'reduce', op: 'min', x: 3, dtype: f32 }, // 6 (unused)
      { kind: 'binary', op: 'mul', x: 4, y: 3, dtype: f32 }, // 7
      { kind: 'unary', op: 'sigmoid', x: 5, dtype: f32 }, // 8 a row value from a scalar
    ];
    const p = fusedProgram({
      inputs: [el(), el(), row()],
      scalars: 1,
      instrs,
      outputs: [{ value: 7 }, { value: 2 }, { value: 8 }],
    });
    for (const [outer, inner] of [
      [[], [700]],
      [[3], [5]],
      [
        [2, 3],
        [2, 300],
      ],
      [[4], [2000]],
    ] as const) {
      const n = [...outer, ...inner].reduce((a, d) => a * d, 1);
      const rows = outer.reduce((a, d) => a * d, 1);
      const full = [...outer, ...inner];
      check(
        call(
          p,
          [...outer],
          [...inner],
          [tensor(values(n, 1), full), tensor(values(n, 2), full), tensor(values(rows, 3), [...outer])],
          [0.3],
        ),
      );
    }
  });

  it('LayerNorm over [16, 128, 512] (streamed: cheap ops stay on the calling thread): bit-equal', () => {
    const [a, b, c] = [16, 128, 512];
    const x = tensor(values(a * b * c, 22), [a, b, c]);
    const gamma = backend!.expand(tensor(values(c, 23), [c]), [a, b, c]);
    const beta = backend!.expand(tensor(values(c, 24), [c]), [a, b, c]);
    check(call(layerNormProgram(), [a, b], [c], [x, gamma, beta], [1 / c, 1e-5]));
  });

  it('softmax over [512, 1000] (on the worker threads where there are several): bit-equal', () => {
    const x = tensor(values(512 * 1000, 25), [512, 1000]);
    const before = wasmRuntime()!.jobsRun();
    check(call(softmaxProgram(), [512], [1000], [x]));
    const after = wasmRuntime()!.jobsRun();
    if (after.length > 1)
      assert.ok(
        after.slice(1).some((j, t) => j > before[t + 1]!),
        'no worker ran a job',
      );
  });

  it('sum of squares to a scalar (one row of everything), odd sizes', () => {
    for (const n of [1, 7, 1023, 4097, 30001]) {
      const x = tensor(values(n, n + 1), [n]);
      check(call(sumSquaresProgram(), [], [n], [x]));
    }
  });

  it('an inexact scalar operand is the op’s double scalar (binaryScalar), as unfused', () => {
    const n = 999;
    const x = tensor(values(n, 4), [n]);
    check(call(chainProgram(), [n], [], [x], [0.1, 1 / 3]));
  });

  it('broadcasts: a bias [C] over [N, C] and a column [N, 1] (lhs broadcast too); and a transposed view (gathered)', () => {
    const N = 37;
    const C = 129;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // x [N, C]
      { kind: 'load', input: 1, dtype: f32 }, // bias [C] expanded
      { kind: 'load', input: 2, dtype: f32 }, // col [N, 1] expanded
      { kind: 'load', input: 3, dtype: f32 }, // y
      { kind: 'binary', op: 'add', x: 0, y: 1, dtype: f32 },
      { kind: 'binary', op: 'sub', x: 2, y: 4, dtype: f32 }, // lhs broadcast, not commutative
      { kind: 'binary', op: 'mul', x: 5, y: 3, dtype: f32 },
      { kind: 'unary', op: 'tanh', x: 6, dtype: f32 },
    ];
    const p = fusedProgram({
      inputs: [el(), el(), el(), el()],
      scalars: 0,
      instrs,
      outputs: [{ value: 7 }, { value: 4 }],
    });
    const x = tensor(values(N * C, 1), [N, C]);
    const bias = backend!.expand(tensor(values(C, 2), [C]), [N, C]);
    const col = backend!.expand(tensor(values(N, 3), [N, 1]), [N, C]);
    const y = tensor(values(C * N, 5), [N, C]);
    check(call(p, [N, C], [], [x, bias, col, y]));
    // Large enough that the column and the rows stream in several blocks.
    const M = 1000;
    const xl = tensor(values(M * C, 6), [M, C]);
    const biasl = backend!.expand(tensor(values(C, 7), [C]), [M, C]);
    const coll = backend!.expand(tensor(values(M, 8), [M, 1]), [M, C]);
    check(call(p, [M, C], [], [xl, biasl, coll, tensor(values(M * C, 9), [M, C])]));
    const yt = backend!.permute(tensor(values(C * N, 5), [C, N]), [1, 0]);
    // Any other view is gathered per tile.
    check(call(p, [N, C], [], [x, bias, col, yt]));
  });

  it('a column over more rows than are copied once streams with the blocks (blocks that split a row)', () => {
    const N = 5003;
    const C = 9;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 },
      { kind: 'load', input: 1, dtype: f32 },
      { kind: 'binary', op: 'mul', x: 0, y: 1, dtype: f32 },
      { kind: 'unary', op: 'exp', x: 2, dtype: f32 },
    ];
    const p = fusedProgram({ inputs: [el(), el()], scalars: 0, instrs, outputs: [{ value: 3 }] });
    const col = backend!.expand(tensor(values(N, 3), [N, 1]), [N, C]);
    check(call(p, [N, C], [], [tensor(values(N * C, 4), [N, C]), col]));
    // The same column in a row program (element level, stride 0 along the row).
    const sum = fusedProgram({
      inputs: [el(), el()],
      scalars: 0,
      instrs: [...instrs, { kind: 'reduce', op: 'sum', x: 3, dtype: f32 }],
      outputs: [{ value: 4 }, { value: 3 }],
    });
    check(call(sum, [N], [C], [tensor(values(N * C, 4), [N, C]), col]));
  });

  it('compare, where and isnan as lane masks; a bool output is declined', () => {
    const n = 3001;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0 x
      { kind: 'load', input: 1, dtype: f32 }, // 1 y
      { kind: 'compare', op: 'gt', x: 0, y: 1, dtype: 'bool' }, // 2
      { kind: 'where', c: 2, x: 0, y: 1, dtype: f32 }, // 3 max-like
      { kind: 'scalar', index: 0, dtype: f32 }, // 4 fill
      { kind: 'predicate', op: 'isnan', x: 0, dtype: 'bool' }, // 5
      { kind: 'where', c: 5, x: 4, y: 3, dtype: f32 }, // 6 NaN filled
      { kind: 'compare', op: 'le', x: 6, y: 4, dtype: 'bool' }, // 7
      { kind: 'where', c: 7, x: 4, y: 6, dtype: f32 }, // 8 clamp below
      { kind: 'cast', x: 8, dtype: f32 }, // 9
    ];
    // The cast's argument is an output too: replayFused disposes a dead argument, and the CPU
    // backend's same-dtype cast returns its argument's handle.
    const p = fusedProgram({
      inputs: [el(), el()],
      scalars: 1,
      instrs,
      outputs: [{ value: 9 }, { value: 3 }, { value: 8 }],
    });
    const xs = values(n, 7);
    for (let i = 0; i < n; i += 97) xs[i] = Number.NaN;
    check(call(p, [n], [], [tensor(xs, [n]), tensor(values(n, 9), [n])], [-0.25]));
    const withBool = fusedProgram({ inputs: [el(), el()], scalars: 1, instrs, outputs: [{ value: 9 }, { value: 7 }] });
    const args = engineArgs(call(withBool, [n], [], [tensor(xs, [n]), tensor(values(n, 9), [n])], [-0.25]));
    assert.equal(engine!.fused(args), undefined);
  });

  it('casts between masks and f32: isnan as 1/0, x != 0 as a mask', () => {
    const n = 2049;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0 x
      { kind: 'predicate', op: 'isnan', x: 0, dtype: 'bool' }, // 1
      { kind: 'cast', x: 1, dtype: f32 }, // 2 1 or 0
      { kind: 'cast', x: 0, dtype: 'bool' }, // 3 x != 0
      { kind: 'scalar', index: 0, dtype: f32 }, // 4
      { kind: 'where', c: 3, x: 2, y: 4, dtype: f32 }, // 5
      { kind: 'predicate', op: 'isinf', x: 0, dtype: 'bool' }, // 6
      { kind: 'cast', x: 6, dtype: f32 }, // 7
      { kind: 'binary', op: 'add', x: 5, y: 7, dtype: f32 }, // 8
    ];
    const p = fusedProgram({ inputs: [el()], scalars: 1, instrs, outputs: [{ value: 8 }] });
    const xs = values(n, 19);
    for (let i = 0; i < n; i += 13) xs[i] = 0;
    for (let i = 5; i < n; i += 29) xs[i] = Number.NaN;
    for (let i = 7; i < n; i += 31) xs[i] = i % 2 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    check(call(p, [n], [], [tensor(xs, [n])], [3]));
  });

  it('bool inputs as lane masks: a masked softmax (mask fill with −∞), a bool row input, a mask cast to f32, a transposed mask', () => {
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0 scores
      { kind: 'load', input: 1, dtype: 'bool' }, // 1 mask
      { kind: 'scalar', index: 0, dtype: f32 }, // 2 −∞
      { kind: 'where', c: 1, x: 2, y: 0, dtype: f32 }, // 3 masked
      { kind: 'reduce', op: 'max', x: 3, dtype: f32 }, // 4
      { kind: 'binary', op: 'sub', x: 3, y: 4, dtype: f32 }, // 5
      { kind: 'unary', op: 'exp', x: 5, dtype: f32 }, // 6
      { kind: 'reduce', op: 'sum', x: 6, dtype: f32 }, // 7
      { kind: 'binary', op: 'div', x: 6, y: 7, dtype: f32 }, // 8
      { kind: 'load', input: 2, dtype: 'bool' }, // 9 a row mask
      { kind: 'cast', x: 1, dtype: f32 }, // 10 the mask as 1 / 0
      { kind: 'where', c: 9, x: 8, y: 10, dtype: f32 }, // 11
    ];
    const p = fusedProgram({
      inputs: [el(), el('bool'), row('bool')],
      scalars: 1,
      instrs,
      outputs: [{ value: 11 }, { value: 7 }],
    });
    for (const len of [7, 128, 1500]) {
      const rows = 37;
      const n = rows * len;
      const mask = values(n, len + 5).map((v) => (v > 1 ? 1 : 0));
      for (let r = 0; r < rows; r++) mask[r * len] = 0; // one unmasked value a row
      const rowMask = values(rows, 6).map((v) => (v > 0 ? 1 : 0));
      const args = [
        tensor(values(n, len), [rows, len]),
        tensor(mask, [rows, len], 'bool'),
        tensor(rowMask, [rows], 'bool'),
      ];
      check(call(p, [rows], [len], args, [Number.NEGATIVE_INFINITY]));
    }
    // A mask read through a transposed view (gathered).
    const ew = fusedProgram({
      inputs: [el(), el('bool')],
      scalars: 1,
      instrs: [
        { kind: 'load', input: 0, dtype: f32 },
        { kind: 'load', input: 1, dtype: 'bool' },
        { kind: 'scalar', index: 0, dtype: f32 },
        { kind: 'where', c: 1, x: 2, y: 0, dtype: f32 },
        { kind: 'unary', op: 'exp', x: 3, dtype: f32 },
      ],
      outputs: [{ value: 4 }],
    });
    const m = backend!.permute(
      tensor(
        values(40 * 30, 8).map((v) => (v > 0 ? 1 : 0)),
        [40, 30],
        'bool',
      ),
      [1, 0],
    );
    check(call(ew, [30, 40], [], [tensor(values(1200, 9), [30, 40]), m], [-3]));
  });

  it('softmax over a long row (tiled reduction, 20000 values): bit-equal', () => {
    const len = 20000;
    check(call(softmaxProgram(), [2], [len], [tensor(values(2 * len, 11), [2, len])]));
  });

  it('sum of squares over a row longer than a streamed block: within 1e-6 (the unfused op sums its blocks in f64)', () => {
    const n = 100003;
    check(call(sumSquaresProgram(), [], [n], [tensor(values(n, 5), [n])]), 1e-6);
  });

  it('max and min propagate NaN per row; a row input and a column broadcast along the row', () => {
    const rows = 300;
    const len = 300;
    const xs = values(rows * len, 16);
    xs[1 * len + 5] = Number.NaN; // row 1
    xs[4 * len + len - 1] = Number.NaN; // row 4, last element
    xs[200 * len] = Number.NaN; // row 200, first element (a later block)
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 },
      { kind: 'reduce', op: 'max', x: 0, dtype: f32 }, // 1
      { kind: 'reduce', op: 'min', x: 0, dtype: f32 }, // 2
      { kind: 'load', input: 1, dtype: f32 }, // 3 row input
      { kind: 'binary', op: 'mul', x: 1, y: 3, dtype: f32 }, // 4 row value
      { kind: 'binary', op: 'sub', x: 0, y: 4, dtype: f32 }, // 5 element
      { kind: 'load', input: 2, dtype: f32 }, // 6 a column, element level
      { kind: 'binary', op: 'mul', x: 5, y: 6, dtype: f32 }, // 7
    ];
    const p = fusedProgram({
      inputs: [el(), row(), el()],
      scalars: 0,
      instrs,
      outputs: [{ value: 1 }, { value: 2 }, { value: 7 }],
    });
    const col = backend!.expand(tensor(values(rows, 18), [rows, 1]), [rows, len]);
    check(call(p, [rows], [len], [tensor(xs, [rows, len]), tensor(values(rows, 17), [rows]), col]));
  });

  it('a 4M chain (on the worker threads where there are several): bit-equal, and the same program compiles once', () => {
    const n = 1 << 22;
    const x = tensor(values(n, 21), [n]);
    const before = wasmRuntime()!.jobsRun();
    check(call(chainProgram(), [n], [], [x], [0.5, 1]));
    check(call(chainProgram(), [n], [], [x], [0.5, 1]));
    const after = wasmRuntime()!.jobsRun();
    if (after.length > 1)
      assert.ok(
        after.slice(1).some((j, t) => j > before[t + 1]!),
        'no worker ran a job',
      );
  });

  it('a reduction over several inner dims of a permuted view (gathered), and a permuted rank-4 view', () => {
    const x = backend!.permute(tensor(values(6 * 5 * 9, 15), [6, 5, 9]), [2, 0, 1]); // [9, 6, 5]
    check(call(sumSquaresProgram(), [9], [6, 5], [x]), 1e-6);
    const y = backend!.permute(tensor(values(3 * 4 * 5 * 7, 16), [3, 4, 5, 7]), [3, 1, 0, 2]); // [7, 4, 3, 5]
    const chain = chainProgram();
    const n = 7 * 4 * 3 * 5;
    const args = engineArgs(call(chain, [7, 4, 3, 5], [], [y], [0.5, 1]));
    const got = engine!.fused(args);
    assert.ok(got !== undefined);
    const flat = backend!.reshape(backend!.permute(tensor(values(3 * 4 * 5 * 7, 16), [3, 4, 5, 7]), [3, 1, 0, 2]), [n]);
    const want = replayFused(backend as unknown as Backend<CpuTensor>, call(chain, [n], [], [flat], [0.5, 1]));
    assert.deepEqual(
      Array.from(got[0] as Float32Array),
      Array.from(backend!.toDataSync(want[0]!).values as Float32Array),
    );
  });

  it('a reversed operand (a negative stride) is gathered', () => {
    const n = 3001;
    const xs = values(n, 41);
    const reversed = tensor([...xs].reverse(), [n]);
    const want = replayFused(
      backend as unknown as Backend<CpuTensor>,
      call(chainProgram(), [n], [], [reversed], [0.5, 1]),
    );
    const out = new Float32Array(n);
    const got = engine!.fused({
      program: chainProgram(),
      shape: [n],
      innerRank: 0,
      inputs: [{ data: Float32Array.from(xs), offset: n - 1, strides: [-1] }],
      outputs: [out],
      scalars: [0.5, 1],
    });
    assert.ok(got !== undefined);
    assert.deepEqual(Array.from(out), Array.from(backend!.toDataSync(want[0]!).values as Float32Array));
  });

  it('declines what it does not take: f16, integer dtypes, ops the module lacks', () => {
    const n = 16;
    const unary = (dtype: DType, op: 'exp' | 'erf') =>
      fusedProgram({
        inputs: [el(dtype)],
        scalars: 0,
        instrs: [
          { kind: 'load', input: 0, dtype },
          { kind: 'unary', op, x: 0, dtype },
        ],
        outputs: [{ value: 1 }],
      });
    assert.equal(
      engine!.fused(engineArgs(call(unary('f16', 'exp'), [n], [], [tensor(values(n, 1), [n], 'f16')]))),
      undefined,
    );
    assert.equal(engine!.fused(engineArgs(call(unary('f32', 'erf'), [n], [], [tensor(values(n, 1), [n])]))), undefined);
    const i32 = fusedProgram({
      inputs: [el('i32')],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: 'i32' },
        { kind: 'binary', op: 'add', x: 0, y: 0, dtype: 'i32' },
      ],
      outputs: [{ value: 1 }],
    });
    assert.equal(engine!.fused(engineArgs(call(i32, [n], [], [tensor(new Array(n).fill(3), [n], 'i32')]))), undefined);
    const pow = fusedProgram({
      inputs: [el()],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: f32 },
        { kind: 'binary', op: 'pow', x: 0, y: 0, dtype: f32 },
      ],
      outputs: [{ value: 1 }],
    });
    assert.equal(engine!.fused(engineArgs(call(pow, [n], [], [tensor(values(n, 2), [n])]))), undefined);
  });

  it('through the backend (device.backend.fused) when the CPU backend has it: equal to the replay', {
    skip: typeof backend?.fused !== 'function' ? 'CpuBackend.fused is not there yet' : false,
  }, () => {
    const n = 4097;
    const c = call(chainProgram(), [n], [], [tensor(values(n, 31), [n])], [0.5, 1]);
    const got = backend!.fused!(c as never);
    assert.ok(got !== undefined);
    const want = replayFused(backend as unknown as Backend<CpuTensor>, c);
    assert.deepEqual(backend!.toDataSync(got[0] as CpuTensor).values, backend!.toDataSync(want[0]!).values);
  });
});
