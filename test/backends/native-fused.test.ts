// The native engine's fused-program kernel (native/src/fused_program.cc, a tiled interpreter over
// the addon's vectorized loops) against the IR's op-by-op replay on the same native device:
// elementwise chains, broadcasts and views, softmax, LayerNorm, reductions to a scalar, odd sizes,
// NaN in max, masks, f64, and the programs the interpreter declines.
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
import { cpuFusedStats } from '../../src/backends/cpu/fusion/run.js';
import { encodeFusedProgram } from '../../src/backends/cpu/native/fused.js';
import {
  NativeEngine,
  nativeAddon,
  nativeOpCodes,
  nativeUnavailableReason,
} from '../../src/backends/cpu/native/index.js';
import type { CpuArray, CpuTensor } from '../../src/backends/cpu/storage.js';
import { TensorData, type DType } from '../../src/index.js';
import { nativeTestDevice } from '../helpers/devices.js';

const device = nativeTestDevice();
const skip = device ? false : `native addon unavailable: ${nativeUnavailableReason()}`;
const backend = device?.backend as unknown as CpuBackend | undefined;
const engine = backend?.engine as NativeEngine | undefined;
const fusedSkip = skip || (typeof nativeAddon()?.fused !== 'function' ? 'the addon predates fused programs' : false);

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
  assert.ok(got !== undefined, 'the native engine declined the program');
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
function softmaxProgram(d: 'f32' | 'f64' = f32): FusedProgram {
  const instrs: FusedInstr[] = [
    { kind: 'load', input: 0, dtype: d },
    { kind: 'reduce', op: 'max', x: 0, dtype: d },
    { kind: 'binary', op: 'sub', x: 0, y: 1, dtype: d },
    { kind: 'unary', op: 'exp', x: 2, dtype: d },
    { kind: 'reduce', op: 'sum', x: 3, dtype: d },
    { kind: 'binary', op: 'div', x: 3, y: 4, dtype: d },
  ];
  return fusedProgram({ inputs: [el(d)], scalars: 0, instrs, outputs: [{ value: 5 }, { value: 4 }] });
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

describe('native fused programs', { skip: fusedSkip }, () => {
  it('8-op elementwise chain, odd sizes (1, 7, 1023, 4097, 70001): bit-equal to the unfused native ops', () => {
    for (const n of [1, 7, 1023, 4097, 70001]) {
      const x = tensor(values(n, n), [n]);
      check(call(chainProgram(), [n], [], [x], [0.5, 1]));
    }
  });

  it('f64 chain: bit-equal', () => {
    const n = 5003;
    const x = tensor(values(n, 3), [n], 'f64');
    check(call(chainProgram('f64'), [n], [], [x], [0.5, 1]));
  });

  it('an inexact scalar operand is the op’s double scalar (binaryScalar), as unfused', () => {
    const n = 999;
    const x = tensor(values(n, 4), [n]);
    check(call(chainProgram(), [n], [], [x], [0.1, 1 / 3]));
  });

  it('broadcasts: a bias [C] over [N, C], a column [N, 1] and a transposed view', () => {
    const N = 37;
    const C = 129;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // x [N, C]
      { kind: 'load', input: 1, dtype: f32 }, // bias [C] expanded
      { kind: 'load', input: 2, dtype: f32 }, // col [N, 1] expanded
      { kind: 'load', input: 3, dtype: f32 }, // y^T: a [C, N] transposed
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
    const yt = backend!.permute(tensor(values(C * N, 5), [C, N]), [1, 0]);
    check(call(p, [N, C], [], [x, bias, col, yt]));
  });

  it('compare, where, isnan, cast and a bool mask input', () => {
    const n = 3001;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0 x
      { kind: 'load', input: 1, dtype: f32 }, // 1 y
      { kind: 'load', input: 2, dtype: 'bool' }, // 2 mask
      { kind: 'compare', op: 'gt', x: 0, y: 1, dtype: 'bool' }, // 3
      { kind: 'where', c: 3, x: 0, y: 1, dtype: f32 }, // 4 max-like
      { kind: 'scalar', index: 0, dtype: f32 }, // 5 fill
      { kind: 'where', c: 2, x: 5, y: 4, dtype: f32 }, // 6 masked fill
      { kind: 'predicate', op: 'isnan', x: 0, dtype: 'bool' }, // 7
      { kind: 'cast', x: 7, dtype: f32 }, // 8
      { kind: 'binary', op: 'add', x: 6, y: 8, dtype: f32 }, // 9
      { kind: 'compare', op: 'le', x: 9, y: 5, dtype: 'bool' }, // 10
    ];
    const p = fusedProgram({
      inputs: [el(), el(), el('bool')],
      scalars: 1,
      instrs,
      outputs: [{ value: 9 }, { value: 10 }, { value: 3 }],
    });
    const xs = values(n, 7);
    for (let i = 0; i < n; i += 97) xs[i] = Number.NaN;
    const mask = values(n, 8).map((v) => (v > 0.5 ? 1 : 0));
    check(call(p, [n], [], [tensor(xs, [n]), tensor(values(n, 9), [n]), tensor(mask, [n], 'bool')], [-0.25]));
  });

  it('softmax over rows of 1, 7, 128, 1023 and 4097 values (row sums as a row output)', () => {
    for (const len of [1, 7, 128, 1023, 4097]) {
      const rows = len > 1000 ? 3 : 33;
      const x = tensor(values(rows * len, len), [rows, len]);
      check(call(softmaxProgram(), [rows], [len], [x]), len > 4096 ? 1e-6 : 0);
    }
  });

  it('f64 softmax over short and long rows', () => {
    for (const [rows, len] of [
      [40, 33],
      [3, 9000],
    ] as const) {
      check(
        call(softmaxProgram('f64'), [rows], [len], [tensor(values(rows * len, len), [rows, len], 'f64')]),
        len > 4096 ? 1e-12 : 0,
      );
    }
  });

  it('softmax over a long row (tiled reduction): within 1e-6', () => {
    const len = 20000;
    check(call(softmaxProgram(), [2], [len], [tensor(values(2 * len, 11), [2, len])]), 1e-6);
  });

  it('LayerNorm over [4, 16, 512] with gamma and beta broadcast along the rows', () => {
    const [a, b, c] = [4, 16, 512];
    const x = tensor(values(a * b * c, 12), [a, b, c]);
    const gamma = backend!.expand(tensor(values(c, 13), [c]), [a, b, c]);
    const beta = backend!.expand(tensor(values(c, 14), [c]), [a, b, c]);
    check(call(layerNormProgram(), [a, b], [c], [x, gamma, beta], [1 / c, 1e-5]));
  });

  it('sum of squares to a scalar (one row of everything), odd sizes', () => {
    for (const n of [1, 7, 1023, 4097, 100003]) {
      const x = tensor(values(n, n + 1), [n]);
      check(call(sumSquaresProgram(), [], [n], [x]), 1e-6);
    }
  });

  it('a reduction over several inner dims of a permuted view', () => {
    const x = backend!.permute(tensor(values(6 * 5 * 9, 15), [6, 5, 9]), [2, 0, 1]); // [9, 6, 5]
    check(call(sumSquaresProgram(), [9], [6, 5], [x]), 1e-6);
  });

  it('max propagates NaN per row; a row input broadcasts along its row', () => {
    const rows = 6;
    const len = 300;
    const xs = values(rows * len, 16);
    xs[1 * len + 5] = Number.NaN; // row 1
    xs[4 * len + len - 1] = Number.NaN; // row 4, last element
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 },
      { kind: 'reduce', op: 'max', x: 0, dtype: f32 }, // 1
      { kind: 'reduce', op: 'min', x: 0, dtype: f32 }, // 2
      { kind: 'load', input: 1, dtype: f32 }, // 3 row input
      { kind: 'binary', op: 'mul', x: 1, y: 3, dtype: f32 }, // 4 row value
      { kind: 'binary', op: 'sub', x: 0, y: 4, dtype: f32 }, // 5 element
    ];
    const p = fusedProgram({
      inputs: [el(), row()],
      scalars: 0,
      instrs,
      outputs: [{ value: 1 }, { value: 2 }, { value: 5 }],
    });
    check(call(p, [rows], [len], [tensor(xs, [rows, len]), tensor(values(rows, 17), [rows])]));
  });

  it('a large chain (4M) autotunes its tile and stays bit-equal', () => {
    const n = 1 << 22;
    const x = tensor(values(n, 21), [n]);
    check(call(chainProgram(), [n], [], [x], [0.5, 1]));
    check(call(chainProgram(), [n], [], [x], [0.5, 1]));
  });

  it('row values in compare, where and non-commutative binaries over blocks of short rows', () => {
    const rows = 50;
    const len = 24;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0
      { kind: 'reduce', op: 'sum', x: 0, dtype: f32 }, // 1 row
      { kind: 'scalar', index: 0, dtype: f32 }, // 2 row
      { kind: 'binary', op: 'mul', x: 1, y: 2, dtype: f32 }, // 3 mean (row)
      { kind: 'compare', op: 'gt', x: 0, y: 3, dtype: 'bool' }, // 4 element vs row
      { kind: 'compare', op: 'lt', x: 3, y: 0, dtype: 'bool' }, // 5 row vs element
      { kind: 'binary', op: 'sub', x: 3, y: 0, dtype: f32 }, // 6 row − element
      { kind: 'binary', op: 'div', x: 0, y: 3, dtype: f32 }, // 7 element / row
      { kind: 'compare', op: 'gt', x: 3, y: 2, dtype: 'bool' }, // 8 row bool
      { kind: 'where', c: 4, x: 6, y: 3, dtype: f32 }, // 9
      { kind: 'where', c: 8, x: 7, y: 0, dtype: f32 }, // 10 row condition
      { kind: 'cast', x: 5, dtype: f32 }, // 11
      { kind: 'binary', op: 'add', x: 9, y: 10, dtype: f32 }, // 12
      { kind: 'binary', op: 'add', x: 12, y: 11, dtype: f32 }, // 13
    ];
    const p = fusedProgram({
      inputs: [el()],
      scalars: 1,
      instrs,
      outputs: [{ value: 13 }, { value: 3 }, { value: 4 }],
    });
    check(call(p, [rows], [len], [tensor(values(rows * len, 31), [rows, len])], [1 / len]));
  });

  it('column programs (reducing a dim that is not innermost in memory): softmax down columns, masks, element outputs', () => {
    // x is [R, C] in memory; the program reduces over R: shape [C, R] with strides [1, C].
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 }, // 0 x
      { kind: 'reduce', op: 'max', x: 0, dtype: f32 }, // 1
      { kind: 'binary', op: 'sub', x: 0, y: 1, dtype: f32 }, // 2
      { kind: 'unary', op: 'exp', x: 2, dtype: f32 }, // 3
      { kind: 'reduce', op: 'sum', x: 3, dtype: f32 }, // 4
      { kind: 'binary', op: 'div', x: 3, y: 4, dtype: f32 }, // 5 element output
      { kind: 'load', input: 1, dtype: f32 }, // 6 row input (per column)
      { kind: 'compare', op: 'gt', x: 0, y: 6, dtype: 'bool' }, // 7
      { kind: 'where', c: 7, x: 5, y: 6, dtype: f32 }, // 8
      { kind: 'reduce', op: 'sum', x: 8, dtype: f32 }, // 9 row output
    ];
    const p = fusedProgram({
      inputs: [el(), row()],
      scalars: 0,
      instrs,
      outputs: [{ value: 5 }, { value: 9 }, { value: 1 }],
    });
    for (const [R, C] of [
      [301, 37],
      [50, 1500],
      [3000, 8],
    ] as const) {
      const x = backend!.permute(tensor(values(R * C, R + C), [R, C]), [1, 0]);
      const thr = tensor(values(C, 5), [C]);
      check(call(p, [C], [R], [x, thr]), 1e-6);
    }
  });

  it('f64 column sums of products (a weight-gradient shape), many and few columns', () => {
    const d = 'f64' as const;
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: d },
      { kind: 'load', input: 1, dtype: d },
      { kind: 'binary', op: 'mul', x: 0, y: 1, dtype: d },
      { kind: 'reduce', op: 'sum', x: 2, dtype: d },
    ];
    const p = fusedProgram({ inputs: [el(d), el(d)], scalars: 0, instrs, outputs: [{ value: 3 }] });
    for (const [R, C] of [
      [200, 1100],
      [777, 5],
    ] as const) {
      const x = backend!.permute(tensor(values(R * C, 1), [R, C], d), [1, 0]);
      const y = backend!.permute(tensor(values(R * C, 2), [R, C], d), [1, 0]);
      check(call(p, [C], [R], [x, y]), 1e-12);
    }
  });

  it('a rank-0 space, an empty space, and an output that is a scalar', () => {
    const instrs: FusedInstr[] = [
      { kind: 'load', input: 0, dtype: f32 },
      { kind: 'scalar', index: 0, dtype: f32 },
      { kind: 'unary', op: 'exp', x: 1, dtype: f32 },
      { kind: 'binary', op: 'add', x: 0, y: 2, dtype: f32 },
    ];
    const p = fusedProgram({ inputs: [el()], scalars: 1, instrs, outputs: [{ value: 3 }, { value: 2 }] });
    check(call(p, [], [], [tensor([1.5], [])], [0.3]));
    check(call(p, [0], [], [tensor([], [0])], [0.3]));
    check(call(p, [5, 3], [], [tensor(values(15, 32), [5, 3])], [0.3]));
  });

  it('through the CPU backend (Backend.fused): the engine runs it, values as the replay', () => {
    const [a, b, c] = [3, 10, 96];
    const x = backend!.permute(tensor(values(a * b * c, 41), [b, a, c]), [1, 0, 2]); // [a, b, c], a view
    const gamma = backend!.expand(tensor(values(c, 42), [c]), [a, b, c]);
    const beta = backend!.expand(tensor(values(c, 43), [c]), [a, b, c]);
    const cases: FusedCall<CpuTensor>[] = [
      call(layerNormProgram(), [a, b], [c], [x, gamma, beta], [1 / c, 1e-5]),
      call(softmaxProgram(), [a * b], [c], [backend!.reshape(tensor(values(a * b * c, 44), [a, b, c]), [a * b, c])]),
      call(chainProgram(), [a, b, c], [], [x], [0.5, 1]),
    ];
    for (const fc of cases) {
      const before = cpuFusedStats.engineRuns;
      const outs = backend!.fused(fc);
      assert.ok(outs !== undefined, 'the backend declined the program');
      const got = outs.map((t) => backend!.toDataSync(t).values as ArrayLike<number>);
      assert.equal(cpuFusedStats.engineRuns, before + 1, 'the native engine took the program');
      const want = replayFused(backend as unknown as Backend<CpuTensor>, fc).map(
        (t) => backend!.toDataSync(t).values as ArrayLike<number>,
      );
      got.forEach((g, k) => {
        for (let i = 0; i < g.length; i++)
          assert.ok(g[i] === want[k]![i], `output ${k}[${i}]: ${g[i]} vs ${want[k]![i]}`);
      });
    }
  });

  it('the addon refuses malformed bytecode and arguments (a BURN_NATIVE error, no crash)', () => {
    const addon = nativeAddon()!;
    const enc = encodeFusedProgram(softmaxProgram(), nativeOpCodes(addon.ops))!;
    const n = 64;
    const x = new Float32Array(n);
    const params = new Float64Array([2, 1, 4, 16, 0, 16, 1]);
    const arrays: readonly CpuArray[] = [x, new Float32Array(n), new Float32Array(4)];
    addon.fused!(enc.code, params, arrays); // well-formed: runs
    const bad = (mutate: (c: Int32Array) => Int32Array, args = arrays, p = params) =>
      assert.throws(() => addon.fused!(mutate(enc.code.slice()), p, args), /fused/);
    bad((c) => c.subarray(0, c.length - 3)); // truncated
    bad((c) => ((c[0] = 99), c)); // another version
    bad((c) => ((c[8 + 2 + 7 + 2] = 5), c)); // instruction 1 (reduce) reads value 5, defined later
    bad((c) => c, [x, new Float32Array(n)]); // an output missing
    bad((c) => c, [x, new Float32Array(n - 1), new Float32Array(4)]); // an output too small
    bad((c) => c, [new Float32Array(n - 1), new Float32Array(n), new Float32Array(4)]); // an input out of range
    bad((c) => c, [new Float64Array(n), new Float32Array(n), new Float32Array(4)]); // an input of another type
  });

  it('declines what it does not take: f16, integer dtypes, ops the addon lacks', () => {
    const n = 16;
    const f16 = fusedProgram({
      inputs: [el('f16')],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: 'f16' },
        { kind: 'unary', op: 'exp', x: 0, dtype: 'f16' },
      ],
      outputs: [{ value: 1 }],
    });
    const args = engineArgs(call(f16, [n], [], [tensor(values(n, 1), [n], 'f16')]));
    assert.equal(engine!.fused(args), undefined);
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
  });
});
