// CpuBackend.fused (src/backends/cpu/fusion/): fused programs built with fusedProgram() against the
// op-by-op reference replayFused on the SAME backend. On the js engine the generated JavaScript
// and the closure interpreter must give the replay's values bit for bit (reductions too: they sum
// in the unfused kernel's order); on the native and wasm engines (whose kernels or whose unfused
// ops may round differently) within 1e-6 relative. Also: the kernel cache compiles a program once,
// outputs come from the backend's pool, empty and rank-0 spaces.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import {
  fusedProgram,
  type FusedCall,
  type FusedInput,
  type FusedInstr,
  type FusedProgram,
} from '../../src/backend/fusion/program.js';
import { replayFused } from '../../src/backend/fusion/replay.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { jsEngine, type CpuEngineKernels, type FusedEngineArgs } from '../../src/backends/cpu/engine.js';
import {
  cpuFusedChoices,
  cpuFusedStats,
  setCpuFusedAutotune,
  setCpuFusedCodegen,
} from '../../src/backends/cpu/fusion/run.js';
import { roundF16, roundF16Bits } from '../../src/backends/cpu/fusion/expr.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import type { CpuTensor } from '../../src/backends/cpu/storage.js';
import { TensorData, type DType } from '../../src/index.js';
import { f16BitsToF32 } from '../../src/core/dtype.js';
import { withFakeAutotuneClock } from '../helpers/autotune.js';
import { nativeTestDevice, wasmTestDevice } from '../helpers/devices.js';

type Spec = { inputs: FusedInput[]; scalars: number; instrs: FusedInstr[]; outputs: number[] };
const prog = (s: Spec): FusedProgram =>
  fusedProgram({
    inputs: s.inputs,
    scalars: s.scalars,
    instrs: s.instrs,
    outputs: s.outputs.map((value) => ({ value })),
  });
const el = (dtype: DType): FusedInput => ({ dtype, level: 'element' });
const row = (dtype: DType): FusedInput => ({ dtype, level: 'row' });

/** Deterministic test values: a mix of signs and magnitudes, with some specials where asked. */
function values(n: number, seed: number, scale = 3, specials = false): number[] {
  return Array.from({ length: n }, (_, i) => {
    if (specials && i % 11 === 3) return [NaN, Infinity, -Infinity, 0, -0][(i + seed) % 5]!;
    return Math.sin(seed * 7.31 + i * 1.37) * scale * (1 + (i % 5) / 3);
  });
}

/** A tensor of `dtype` on `b` (made in f64, then cast, so int values are exact and half values rounded). */
function tensor(b: CpuBackend, vals: readonly number[], shape: number[], dtype: DType): CpuTensor {
  const t = b.fromData(new TensorData(Float64Array.from(vals), shape, 'f64'));
  return dtype === 'f64' ? t : b.cast(t, dtype);
}

/** Values of `t` as numbers (exact: every dtype converts to f64 exactly). */
function read(b: CpuBackend, t: CpuTensor): number[] {
  return Array.from(b.toDataSync(b.cast(t, 'f64')).values as Float64Array);
}

function assertSame(actual: number[], expected: number[], what: string, tol: number): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!,
      e = expected[i]!;
    if (tol === 0) {
      if (!Object.is(a, e)) assert.fail(`${what}[${i}]: fused ${a}, replay ${e}`);
    } else if (
      !(Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e)) || Math.abs(a - e) <= tol * Math.max(1, Math.abs(e)))
    )
      assert.fail(`${what}[${i}]: fused ${a}, replay ${e} (tolerance ${tol})`);
  }
}

/** Runs `call` fused and replayed on `b`; compares every output. */
function check(b: CpuBackend, call: FusedCall<CpuTensor>, what: string, tol = 0): number[][] {
  const fused = b.fused(call);
  assert.ok(fused, `${what}: fused ran`);
  const replay = replayFused(b, call);
  assert.equal(fused.length, replay.length);
  const out = fused.map((t, k) => {
    assert.deepEqual(t.shape, replay[k]!.shape, `${what}: output ${k} shape`);
    assert.equal(t.dtype, replay[k]!.dtype, `${what}: output ${k} dtype`);
    const got = read(b, t);
    assertSame(got, read(b, replay[k]!), `${what}: output ${k}`, tol);
    return got;
  });
  return out;
}

// --- the programs ---

/** An 8-op chain: ((x·0.5 + 1).exp() − x).tanh() · y + x, sigmoid, · y. */
function chain8(dtype: DType): FusedProgram {
  return prog({
    inputs: [el(dtype), el(dtype)],
    scalars: 2,
    instrs: [
      { kind: 'load', input: 0, dtype },
      { kind: 'load', input: 1, dtype },
      { kind: 'scalar', index: 0, dtype },
      { kind: 'scalar', index: 1, dtype },
      { kind: 'binary', op: 'mul', x: 0, y: 2, dtype }, // 4
      { kind: 'binary', op: 'add', x: 4, y: 3, dtype }, // 5
      { kind: 'unary', op: 'exp', x: 5, dtype }, // 6
      { kind: 'binary', op: 'sub', x: 6, y: 0, dtype }, // 7
      { kind: 'unary', op: 'tanh', x: 7, dtype }, // 8
      { kind: 'binary', op: 'mul', x: 8, y: 1, dtype }, // 9
      { kind: 'binary', op: 'add', x: 9, y: 0, dtype }, // 10
      { kind: 'unary', op: 'sigmoid', x: 10, dtype }, // 11
      { kind: 'binary', op: 'mul', x: 11, y: 1, dtype }, // 12
    ],
    outputs: [12],
  });
}

/** softmax (log: log-softmax) over the row; outputs the result and the row sum. */
function softmax(dtype: DType, log: boolean): FusedProgram {
  const tail: FusedInstr[] = log
    ? [
        { kind: 'unary', op: 'log', x: 4, dtype }, // 5
        { kind: 'binary', op: 'sub', x: 2, y: 5, dtype }, // 6
      ]
    : [
        { kind: 'binary', op: 'div', x: 3, y: 4, dtype }, // 5
        { kind: 'unary', op: 'neg', x: 5, dtype }, // 6 (neg of neg below)
      ];
  return prog({
    inputs: [el(dtype)],
    scalars: 0,
    instrs: [
      { kind: 'load', input: 0, dtype },
      { kind: 'reduce', op: 'max', x: 0, dtype },
      { kind: 'binary', op: 'sub', x: 0, y: 1, dtype },
      { kind: 'unary', op: 'exp', x: 2, dtype },
      { kind: 'reduce', op: 'sum', x: 3, dtype },
      ...tail,
    ],
    outputs: log ? [6, 4] : [5, 4],
  });
}

/** LayerNorm: (x − mean)/√(var + eps) · gamma + beta + rowBias (gamma, beta element inputs; rowBias a row input). */
function layerNorm(dtype: DType): FusedProgram {
  return prog({
    inputs: [el(dtype), el(dtype), el(dtype), row(dtype)],
    scalars: 2,
    instrs: [
      { kind: 'load', input: 0, dtype }, // 0 x
      { kind: 'scalar', index: 0, dtype }, // 1 1/n
      { kind: 'scalar', index: 1, dtype }, // 2 eps
      { kind: 'reduce', op: 'sum', x: 0, dtype }, // 3
      { kind: 'binary', op: 'mul', x: 3, y: 1, dtype }, // 4 mean
      { kind: 'binary', op: 'sub', x: 0, y: 4, dtype }, // 5 xc
      { kind: 'binary', op: 'mul', x: 5, y: 5, dtype }, // 6
      { kind: 'reduce', op: 'sum', x: 6, dtype }, // 7
      { kind: 'binary', op: 'mul', x: 7, y: 1, dtype }, // 8 var
      { kind: 'binary', op: 'add', x: 8, y: 2, dtype }, // 9
      { kind: 'unary', op: 'sqrt', x: 9, dtype }, // 10
      { kind: 'binary', op: 'div', x: 5, y: 10, dtype }, // 11
      { kind: 'load', input: 1, dtype }, // 12 gamma
      { kind: 'binary', op: 'mul', x: 11, y: 12, dtype }, // 13
      { kind: 'load', input: 2, dtype }, // 14 beta
      { kind: 'binary', op: 'add', x: 13, y: 14, dtype }, // 15
      { kind: 'load', input: 3, dtype }, // 16 row bias
      { kind: 'binary', op: 'add', x: 15, y: 16, dtype }, // 17
    ],
    outputs: [17, 4, 8],
  });
}

/** tanh(GELU(x)) then LayerNorm without affine: two expensive calls in a pass, a value every pass needs. */
function geluLayerNorm(dtype: DType): FusedProgram {
  return prog({
    inputs: [el(dtype)],
    scalars: 4,
    instrs: [
      { kind: 'load', input: 0, dtype }, // 0
      { kind: 'scalar', index: 0, dtype }, // 1 1/√2
      { kind: 'binary', op: 'mul', x: 0, y: 1, dtype }, // 2
      { kind: 'unary', op: 'erf', x: 2, dtype }, // 3
      { kind: 'scalar', index: 1, dtype }, // 4 1
      { kind: 'binary', op: 'add', x: 3, y: 4, dtype }, // 5
      { kind: 'binary', op: 'mul', x: 0, y: 5, dtype }, // 6
      { kind: 'scalar', index: 2, dtype }, // 7 0.5
      { kind: 'binary', op: 'mul', x: 6, y: 7, dtype }, // 8 gelu
      { kind: 'unary', op: 'tanh', x: 8, dtype }, // 9
      { kind: 'reduce', op: 'sum', x: 9, dtype }, // 10
      { kind: 'scalar', index: 3, dtype }, // 11 1/n
      { kind: 'binary', op: 'mul', x: 10, y: 11, dtype }, // 12 mean
      { kind: 'binary', op: 'sub', x: 9, y: 12, dtype }, // 13
      { kind: 'binary', op: 'mul', x: 13, y: 13, dtype }, // 14
      { kind: 'reduce', op: 'sum', x: 14, dtype }, // 15
      { kind: 'binary', op: 'mul', x: 15, y: 11, dtype }, // 16
      { kind: 'unary', op: 'sqrt', x: 16, dtype }, // 17
      { kind: 'binary', op: 'div', x: 13, y: 17, dtype }, // 18
      { kind: 'binary', op: 'add', x: 18, y: 9, dtype }, // 19
    ],
    outputs: [19, 8],
  });
}

/** Unbiased variance over the row: Σ(x − Σx/n)² / (n − 1). */
function variance(dtype: DType): FusedProgram {
  return prog({
    inputs: [el(dtype)],
    scalars: 2,
    instrs: [
      { kind: 'load', input: 0, dtype },
      { kind: 'reduce', op: 'sum', x: 0, dtype },
      { kind: 'scalar', index: 0, dtype },
      { kind: 'binary', op: 'div', x: 1, y: 2, dtype }, // 3 mean
      { kind: 'binary', op: 'sub', x: 0, y: 3, dtype },
      { kind: 'binary', op: 'mul', x: 4, y: 4, dtype },
      { kind: 'reduce', op: 'sum', x: 5, dtype }, // 6
      { kind: 'scalar', index: 1, dtype },
      { kind: 'binary', op: 'div', x: 6, y: 7, dtype }, // 8
    ],
    outputs: [8],
  });
}

/** Sum of squared errors: Σ (x − y)², a row output. */
function sse(dtype: DType): FusedProgram {
  return prog({
    inputs: [el(dtype), el(dtype)],
    scalars: 0,
    instrs: [
      { kind: 'load', input: 0, dtype },
      { kind: 'load', input: 1, dtype },
      { kind: 'binary', op: 'sub', x: 0, y: 1, dtype },
      { kind: 'binary', op: 'mul', x: 2, y: 2, dtype },
      { kind: 'reduce', op: 'sum', x: 3, dtype },
    ],
    outputs: [4],
  });
}

/** Every reduce op of `x · 1` (prod/max/min/sum) and any/all of x ≠ 0, side by side. */
function allReduces(dtype: DType): FusedProgram {
  return prog({
    inputs: [el(dtype)],
    scalars: 0,
    instrs: [
      { kind: 'load', input: 0, dtype },
      { kind: 'reduce', op: 'sum', x: 0, dtype },
      { kind: 'reduce', op: 'prod', x: 0, dtype },
      { kind: 'reduce', op: 'max', x: 0, dtype },
      { kind: 'reduce', op: 'min', x: 0, dtype },
      { kind: 'cast', x: 0, dtype: 'bool' }, // 5
      { kind: 'reduce', op: 'any', x: 5, dtype: 'bool' },
      { kind: 'reduce', op: 'all', x: 5, dtype: 'bool' },
    ],
    outputs: [1, 2, 3, 4, 6, 7],
  });
}

/** Builds an element-level call over `shape` (no reduction). */
const ew = (
  program: FusedProgram,
  shape: number[],
  inputs: CpuTensor[],
  scalars: number[] = [],
): FusedCall<CpuTensor> => ({
  program,
  outer: shape,
  inner: [],
  inputs,
  scalars,
});

/** The cases every path runs: [name, run(b, tol)]. */
function cases(): [string, (b: CpuBackend, tol: number) => void][] {
  return [
    [
      '8-op f32 chain (contiguous, odd sizes)',
      (b, tol) => {
        for (const shape of [[1], [7], [1023], [4, 1025], [3, 5, 7]]) {
          const n = shape.reduce((a, s) => a * s, 1);
          const x = tensor(b, values(n, 1), shape, 'f32'),
            y = tensor(b, values(n, 2), shape, 'f32');
          check(b, ew(chain8('f32'), shape, [x, y], [0.1, 1]), `chain8 ${shape}`, tol);
        }
      },
    ],
    [
      '8-op chains in f64, f16 and bf16',
      (b, tol) => {
        for (const dtype of ['f64', 'f16', 'bf16'] as const) {
          const x = tensor(b, values(300, 3), [10, 30], dtype),
            y = tensor(b, values(300, 4), [10, 30], dtype);
          check(
            b,
            ew(chain8(dtype), [10, 30], [x, y], [0.3, 1.7]),
            `chain8 ${dtype}`,
            dtype === 'f64' ? tol : tol * 1e3,
          );
        }
      },
    ],
    [
      'broadcast inputs (stride 0), permuted and negative-step sliced views',
      (b, tol) => {
        const base = tensor(b, values(7, 5), [1, 7], 'f32');
        const bx = b.expand(base, [5, 7]); // rows broadcast
        const col = b.expand(tensor(b, values(5, 6), [5, 1], 'f32'), [5, 7]); // columns broadcast
        check(b, ew(chain8('f32'), [5, 7], [bx, col], [0.5, -2]), 'broadcast', tol);
        const m = tensor(b, values(7 * 5, 7), [7, 5], 'f32');
        const perm = b.permute(m, [1, 0]); // [5, 7], strides [1, 5]
        const flip = b.slice(tensor(b, values(5 * 14, 8), [5, 14], 'f32'), [
          { start: 4, size: 5, step: -1 },
          { start: 13, size: 7, step: -2 },
        ]);
        check(b, ew(chain8('f32'), [5, 7], [perm, flip], [0.25, 1]), 'permuted/flipped', tol);
        // Rank 3 with a middle broadcast dim and a permutation.
        const t3 = b.permute(tensor(b, values(4 * 6, 9), [6, 1, 4], 'f32'), [2, 1, 0]); // [4, 1, 6]
        const e3 = b.expand(t3, [4, 3, 6]);
        const c3 = tensor(b, values(72, 10), [4, 3, 6], 'f32');
        check(b, ew(chain8('f32'), [4, 3, 6], [e3, c3], [2, 0.5]), 'rank-3 broadcast + permute', tol);
      },
    ],
    [
      'int chains wrap like the unfused ops (i32 overflow, u8, i16, i8, u16, u32, i64)',
      (b) => {
        for (const dtype of ['i32', 'u8', 'i16', 'i8', 'u16', 'u32', 'i64'] as const) {
          const p = prog({
            inputs: [el(dtype), el(dtype)],
            scalars: 1,
            instrs: [
              { kind: 'load', input: 0, dtype },
              { kind: 'load', input: 1, dtype },
              { kind: 'binary', op: 'mul', x: 0, y: 1, dtype }, // overflow
              { kind: 'scalar', index: 0, dtype },
              { kind: 'binary', op: 'add', x: 2, y: 3, dtype },
              { kind: 'binary', op: 'sub', x: 4, y: 0, dtype },
              { kind: 'binary', op: 'div', x: 5, y: 1, dtype }, // includes division by 0
              { kind: 'binary', op: 'rem', x: 5, y: 1, dtype },
              { kind: 'binary', op: 'xor', x: 6, y: 7, dtype },
              { kind: 'binary', op: 'mul', x: 8, y: 2, dtype },
              { kind: 'unary', op: 'abs', x: 9, dtype },
              { kind: 'binary', op: 'pow', x: 1, y: 3, dtype },
            ],
            outputs: [10, 11, 6],
          });
          const big = { i32: 2e9, u8: 250, i16: 32000, i8: 120, u16: 65000, u32: 4e9, i64: 3e12 }[dtype];
          const lo = dtype.startsWith('u') ? 0 : -big;
          const v = (seed: number) =>
            Array.from({ length: 60 }, (_, i) =>
              i % 13 === 0 ? 0 : Math.round(lo + ((Math.sin(seed + i) + 1) / 2) * (big - lo)),
            );
          check(b, ew(p, [6, 10], [tensor(b, v(1), [6, 10], dtype), tensor(b, v(2), [6, 10], dtype)], [3]), dtype, 0);
        }
      },
    ],
    [
      'bool logic, compares, predicates and where',
      (b) => {
        const p = prog({
          inputs: [el('f32'), el('f32'), el('bool')],
          scalars: 1,
          instrs: [
            { kind: 'load', input: 0, dtype: 'f32' },
            { kind: 'load', input: 1, dtype: 'f32' },
            { kind: 'load', input: 2, dtype: 'bool' },
            { kind: 'compare', op: 'gt', x: 0, y: 1, dtype: 'bool' }, // 3
            { kind: 'predicate', op: 'isnan', x: 0, dtype: 'bool' }, // 4
            { kind: 'predicate', op: 'isinf', x: 1, dtype: 'bool' }, // 5
            { kind: 'binary', op: 'or', x: 3, y: 4, dtype: 'bool' }, // 6
            { kind: 'binary', op: 'xor', x: 6, y: 2, dtype: 'bool' }, // 7
            { kind: 'unary', op: 'not', x: 7, dtype: 'bool' }, // 8
            { kind: 'binary', op: 'and', x: 8, y: 5, dtype: 'bool' }, // 9
            { kind: 'scalar', index: 0, dtype: 'f32' }, // 10
            { kind: 'where', c: 7, x: 0, y: 10, dtype: 'f32' }, // 11
            { kind: 'compare', op: 'le', x: 11, y: 10, dtype: 'bool' }, // 12
            { kind: 'where', c: 12, x: 1, y: 11, dtype: 'f32' }, // 13
            { kind: 'compare', op: 'eq', x: 0, y: 10, dtype: 'bool' }, // 14 scalar rhs through fill
          ],
          outputs: [13, 9, 8, 14],
        });
        const x = tensor(b, values(48, 1, 3, true), [6, 8], 'f32');
        const y = tensor(b, values(48, 2, 3, true), [6, 8], 'f32');
        const c = tensor(
          b,
          values(48, 3).map((v) => (v > 0 ? 1 : 0)),
          [6, 8],
          'bool',
        );
        check(b, ew(p, [6, 8], [x, y, c], [0.1]), 'bool logic', 0);
      },
    ],
    [
      'casts: float → int saturation (NaN to 0), int → narrower int, float → half, → bool',
      (b) => {
        for (const to of ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'f16', 'bf16', 'bool'] as const) {
          const p = prog({
            inputs: [el('f32')],
            scalars: 0,
            instrs: [
              { kind: 'load', input: 0, dtype: 'f32' },
              { kind: 'cast', x: 0, dtype: to },
              { kind: 'cast', x: 1, dtype: 'f32' },
              // (an int of another dtype: the replay's cast of a value to its own dtype is the same handle)
              { kind: 'cast', x: 0, dtype: to === 'i32' ? 'i16' : 'i32' },
              { kind: 'cast', x: 3, dtype: to },
            ],
            outputs: [1, 2, 4],
          });
          const x = tensor(b, values(66, 4, 3e9, true), [66], 'f32');
          check(b, ew(p, [66], [x]), `cast to ${to}`, 0);
        }
      },
    ],
    [
      'softmax and log-softmax rows (also over two inner dims of a permuted input)',
      (b, tol) => {
        for (const log of [false, true]) {
          for (const [outer, inner] of [
            [[3], [16]],
            [[2, 3], [1000]],
            [[5], [1]],
          ]) {
            const x = tensor(
              b,
              values(
                [...outer!, ...inner!].reduce((a, s) => a * s, 1),
                11,
                5,
              ),
              [...outer!, ...inner!],
              'f32',
            );
            check(
              b,
              { program: softmax('f32', log), outer: outer!, inner: inner!, inputs: [x], scalars: [] },
              `softmax log=${log}`,
              tol,
            );
          }
          const t = b.permute(tensor(b, values(4 * 5 * 6, 12, 5), [5, 4, 6], 'f32'), [1, 2, 0]); // [4, 6, 5]
          check(
            b,
            { program: softmax('f32', log), outer: [4], inner: [6, 5], inputs: [t], scalars: [] },
            'softmax 2 inner dims',
            tol,
          );
        }
      },
    ],
    [
      'LayerNorm (two dependent reductions) with element gamma/beta and a row-input bias',
      (b, tol) => {
        for (const [rows, d] of [
          [4, 32],
          [3, 513],
        ] as const) {
          const x = tensor(b, values(rows * d, 13, 2), [rows, d], 'f32');
          const gamma = b.expand(tensor(b, values(d, 14), [1, d], 'f32'), [rows, d]);
          const beta = b.expand(tensor(b, values(d, 15), [d], 'f32'), [rows, d]);
          const bias = tensor(b, values(rows, 16), [rows], 'f32');
          check(
            b,
            {
              program: layerNorm('f32'),
              outer: [rows],
              inner: [d],
              inputs: [x, gamma, beta, bias],
              scalars: [1 / d, 1e-5],
            },
            `layerNorm ${rows}x${d}`,
            tol,
          );
        }
        // f64 too.
        const x = tensor(b, values(60, 17), [3, 20], 'f64');
        const g = b.expand(tensor(b, values(20, 18), [20], 'f64'), [3, 20]);
        const bias = tensor(b, values(3, 19), [3], 'f64');
        check(
          b,
          { program: layerNorm('f64'), outer: [3], inner: [20], inputs: [x, g, g, bias], scalars: [1 / 20, 1e-5] },
          'layerNorm f64',
          tol,
        );
      },
    ],
    [
      'GELU then LayerNorm: expensive values kept across passes, short and long (uncached) rows',
      (b, tol) => {
        for (const [rows, d] of [
          [6, 100],
          [2, 300],
          [1, 70000],
        ] as const) {
          const x = tensor(b, values(rows * d, 31, 2), [rows, d], 'f32');
          check(
            b,
            {
              program: geluLayerNorm('f32'),
              outer: [rows],
              inner: [d],
              inputs: [x],
              scalars: [Math.SQRT1_2, 1, 0.5, 1 / d],
            },
            `gelu+layerNorm ${rows}x${d}`,
            tol,
          );
        }
      },
    ],
    [
      'var over the row, the sum of squared errors to a scalar (outer = [])',
      (b, tol) => {
        const x = tensor(b, values(6 * 50, 20), [6, 50], 'f32');
        check(b, { program: variance('f32'), outer: [6], inner: [50], inputs: [x], scalars: [50, 49] }, 'var', tol);
        const p = tensor(b, values(1000, 21), [10, 100], 'f32'),
          q = tensor(b, values(1000, 22), [10, 100], 'f32');
        check(
          b,
          { program: sse('f32'), outer: [], inner: [10, 100], inputs: [p, q], scalars: [] },
          'sse to scalar',
          tol,
        );
        // A reduction over a leading dim: inner dims are permuted to the end by the caller.
        const pt = b.permute(p, [1, 0]);
        const qt = b.permute(q, [1, 0]);
        check(
          b,
          { program: sse('f32'), outer: [100], inner: [10], inputs: [pt, qt], scalars: [] },
          'sse over columns',
          tol,
        );
      },
    ],
    [
      'prod/max/min/sum/any/all with NaN and ±∞ inputs',
      (b, tol) => {
        for (const dtype of ['f32', 'f64', 'i32'] as const) {
          const vals = values(8 * 9, 23, 1.5, dtype !== 'i32');
          const x = tensor(b, dtype === 'i32' ? vals.map(Math.round) : vals, [8, 9], dtype);
          check(
            b,
            { program: allReduces(dtype), outer: [8], inner: [9], inputs: [x], scalars: [] },
            `reduces ${dtype}`,
            tol,
          );
        }
        // Rows entirely NaN, entirely -∞, all zero.
        const x = tensor(b, [NaN, NaN, NaN, -Infinity, -Infinity, -Infinity, 0, 0, 0, 1, NaN, 2], [4, 3], 'f32');
        check(b, { program: allReduces('f32'), outer: [4], inner: [3], inputs: [x], scalars: [] }, 'special rows', tol);
      },
    ],
    [
      'empty spaces (a dim of 0) and rank 0',
      (b, tol) => {
        const e0 = tensor(b, [], [0, 5], 'f32');
        const [r] = check(b, ew(chain8('f32'), [0, 5], [e0, e0], [1, 2]), 'empty elementwise', tol);
        assert.equal(r!.length, 0);
        check(b, { program: sse('f32'), outer: [0], inner: [5], inputs: [e0, e0], scalars: [] }, 'empty rows', tol);
        const e1 = tensor(b, [], [3, 0], 'f32');
        const [sums] = check(
          b,
          { program: sse('f32'), outer: [3], inner: [0], inputs: [e1, e1], scalars: [] },
          'empty inner',
          tol,
        );
        assert.deepEqual(sums, [0, 0, 0]);
        const s0 = tensor(b, [0.75], [], 'f32'),
          s1 = tensor(b, [-1.5], [], 'f32');
        check(b, ew(chain8('f32'), [], [s0, s1], [3, 1]), 'rank 0', tol);
        // No inputs at all: a scalar's math broadcast over the space.
        const constant = prog({
          inputs: [],
          scalars: 1,
          instrs: [
            { kind: 'scalar', index: 0, dtype: 'f32' },
            { kind: 'unary', op: 'exp', x: 0, dtype: 'f32' },
          ],
          outputs: [1],
        });
        check(b, ew(constant, [2, 3], [], [0.1]), 'no inputs', tol);
        check(
          b,
          { program: softmax('f32', false), outer: [], inner: [], inputs: [s0], scalars: [] },
          'rank-0 row program',
          tol,
        );
      },
    ],
  ];
}

const js = () => new CpuBackend(jsEngine, new BufferPool({ minBytes: 0 }));

// These tests check the fused kernels themselves: the fused-vs-replay autotune stays off but in its own test.
setCpuFusedAutotune({ enabled: false });

/** A seeded generator of small random programs (row programs with several passes, cached and segmented values). */
function randomProgram(seed: number): { program: FusedProgram; outer: number[]; inner: number[] } | undefined {
  let state = seed * 2654435761 + 1;
  const rnd = () => ((state = (Math.imul(state ^ (state >>> 15), 2246822519) + 0x9e3779b9) | 0) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  // Mostly f32; half precision, f64 and i32 (wrapping) too.
  const dtype = pick(['f32', 'f32', 'f32', 'f64', 'f16', 'bf16', 'i32'] as const);
  const int = dtype === 'i32';
  const reducing = rnd() < 0.7;
  const inputs: FusedInput[] = [el(dtype), el(dtype)];
  if (reducing && rnd() < 0.5) inputs.push(row(dtype));
  const instrs: FusedInstr[] = inputs.map((_, k) => ({ kind: 'load', input: k, dtype }));
  const levels: ('element' | 'row')[] = inputs.map((x) => x.level);
  let scalars = 0;
  const count = 6 + Math.floor(rnd() * 16);
  for (let n = 0; n < count; n++) {
    const i = instrs.length;
    // An f32 value (compare results are bool: only where's condition reads them).
    const any = (): number => {
      for (;;) {
        // Mostly recent values: deep chains, reductions over values that depend on reductions.
        const v = rnd() < 0.7 ? Math.max(0, i - 1 - Math.floor(rnd() * 4)) : Math.floor(rnd() * i);
        if (instrs[v]!.dtype === dtype) return v;
      }
    };
    const r = rnd();
    let instr: FusedInstr;
    if (r < 0.25)
      instr = {
        kind: 'unary',
        op: pick(
          int ? (['neg', 'abs', 'sign'] as const) : (['exp', 'tanh', 'neg', 'abs', 'sin', 'sigmoid', 'erf'] as const),
        ),
        x: any(),
        dtype,
      };
    else if (r < 0.55)
      instr = {
        kind: 'binary',
        op: pick(['add', 'sub', 'mul', 'max', 'min', 'div'] as const),
        x: any(),
        y: any(),
        dtype,
      };
    else if (r < 0.65) instr = { kind: 'scalar', index: scalars++, dtype };
    else if (r < 0.75) {
      instrs.push({ kind: 'compare', op: pick(['gt', 'le'] as const), x: any(), y: any(), dtype: 'bool' });
      levels.push(
        levels[(instrs[i] as { x: number }).x] === 'element' || levels[(instrs[i] as { y: number }).y] === 'element'
          ? 'element'
          : 'row',
      );
      instr = { kind: 'where', c: i, x: any(), y: any(), dtype };
    } else if (reducing) {
      const elements = levels
        .map((l, v) => [l, v] as const)
        .filter(([l, v]) => l === 'element' && instrs[v]!.dtype === dtype);
      if (elements.length === 0) continue;
      instr = { kind: 'reduce', op: pick(['sum', 'max', 'min', 'prod'] as const), x: pick(elements)[1], dtype };
    } else continue;
    const args =
      'c' in instr ? [instr.c, instr.x, instr.y] : 'y' in instr ? [instr.x, instr.y] : 'x' in instr ? [instr.x] : [];
    levels.push(
      instr.kind === 'reduce' || instr.kind === 'scalar'
        ? 'row'
        : args.some((a) => levels[a] === 'element')
          ? 'element'
          : 'row',
    );
    instrs.push(instr);
  }
  const f32Values = instrs.map((x, v) => [x, v] as const).filter(([x]) => x.dtype === dtype);
  const outs = [...new Set([pick(f32Values)[1], pick(f32Values)[1], instrs.length - 1])].filter(
    (v) => instrs[v]!.dtype === dtype,
  );
  try {
    const program = fusedProgram({ inputs, scalars, instrs, outputs: outs.map((value) => ({ value })) });
    const outer = pick([[], [3], [2, 3]]);
    const inner = program.reduces ? pick([[5], [2, 300], [1], [700]]) : [];
    return { program, outer, inner };
  } catch {
    return undefined;
  }
}

for (const codegen of ['function', 'interpreter'] as const) {
  describe(`CpuBackend.fused on the js engine (${codegen}): bit-equal to replayFused`, () => {
    after(() => setCpuFusedCodegen('auto'));
    for (const [name, run] of cases())
      it(name, () => {
        setCpuFusedCodegen(codegen);
        run(js(), 0);
      });
  });
}

for (const [name, make] of [
  ['native', nativeTestDevice],
  ['wasm', wasmTestDevice],
] as const) {
  const device = make();
  describe(`CpuBackend.fused on the ${name} engine: replayFused's values within 1e-6`, () => {
    for (const [what, run] of cases())
      it(what, { skip: device ? false : `the ${name} engine is unavailable` }, () =>
        run(device!.backend as unknown as CpuBackend, 1e-6),
      );
  });
}

/** Runs `count` random programs on `b` (inputs made per program) and compares each with the replay. */
function randomPrograms(b: CpuBackend, count: number, tol: number): void {
  let ran = 0;
  for (let seed = 1; ran < count; seed++) {
    const r = randomProgram(seed);
    if (!r) continue;
    ran++;
    const full = [...r.outer, ...r.inner];
    const n = full.reduce((a, s) => a * s, 1);
    const inputs = r.program.inputs.map((x, k) => {
      const scale = x.dtype === 'i32' ? 1000 : 1.5;
      return x.level === 'element'
        ? tensor(b, values(n, seed + k, scale), full, x.dtype)
        : tensor(
            b,
            values(
              r.outer.reduce((a, s) => a * s, 1),
              seed + 9,
              scale,
            ),
            r.outer,
            x.dtype,
          );
    });
    const scalars = Array.from({ length: r.program.scalars }, (_, i) => 0.3 + i * 0.7);
    check(
      b,
      { program: r.program, outer: r.outer, inner: r.inner, inputs, scalars },
      `seed ${seed} ${r.program.key}`,
      tol,
    );
  }
}

for (const [name, make] of [
  ['native', nativeTestDevice],
  ['wasm', wasmTestDevice],
] as const) {
  const device = make();
  it(
    `random programs on the ${name} engine: the replay's values (1e-3: the engines' own transcendentals, amplified by random chains)`,
    { skip: device ? false : `the ${name} engine is unavailable` },
    () => randomPrograms(device!.backend as unknown as CpuBackend, 160, 1e-3),
  );
}

describe('CpuBackend.fused: caches and memory', () => {
  it('the arithmetic f16 rounding equals the bit-encoding one (random f32 patterns, every f16 tie, specials)', () => {
    const f = new Float32Array(1),
      u = new Uint32Array(f.buffer);
    const same = (v: number) => {
      const a = roundF16Bits(v),
        b = roundF16(v);
      if (!Object.is(a, b) && !(Number.isNaN(a) && Number.isNaN(b)))
        assert.fail(`f16 rounding of ${v}: ${b}, expected ${a}`);
    };
    let state = 12345;
    for (let i = 0; i < 1_000_000; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) | 0;
      u[0] = state >>> 0;
      same(f[0]!);
    }
    // Every f16 value, its neighbours' midpoints (ties) and just around them.
    for (let h = 0; h < 0x7c00; h++) {
      const lo = f16BitsToF32(h),
        hi = f16BitsToF32(h + 1);
      for (const v of [
        lo,
        (lo + hi) / 2,
        Math.fround((lo + hi) / 2) * (1 + 2 ** -23),
        Math.fround((lo + hi) / 2) * (1 - 2 ** -24),
      ]) {
        same(v);
        same(-v);
      }
    }
    for (const v of [0, -0, NaN, Infinity, -Infinity, 65504, 65519.99, 65520, 1e-30, 3.4e38, 2 ** -25, 2 ** -24 * 1.5])
      same(v);
  });

  it('the same program (the same key) compiles once per layout, whatever the sizes', () => {
    setCpuFusedCodegen('function');
    try {
      const b = js();
      // A program no other test builds (a distinct scalar count makes its key unique).
      const p = () =>
        prog({
          inputs: [el('f32')],
          scalars: 3,
          instrs: [
            { kind: 'load', input: 0, dtype: 'f32' },
            { kind: 'scalar', index: 2, dtype: 'f32' },
            { kind: 'binary', op: 'hypot', x: 0, y: 1, dtype: 'f32' },
          ],
          outputs: [2],
        });
      const before = cpuFusedStats.compiled;
      for (const n of [3, 100, 5000])
        check(b, ew(p(), [n], [tensor(b, values(n, 1), [n], 'f32')], [0, 0, 2]), `n=${n}`);
      assert.equal(cpuFusedStats.compiled - before, 1, 'one compile for three calls of equal programs');
      // A strided layout is another kernel, compiled once too.
      const m = tensor(b, values(20, 2), [4, 5], 'f32');
      for (let i = 0; i < 2; i++) check(b, ew(p(), [5, 4], [b.permute(m, [1, 0])], [0, 0, 2]), 'strided');
      assert.equal(cpuFusedStats.compiled - before, 2);
    } finally {
      setCpuFusedCodegen('auto');
    }
  });

  it('random row and elementwise programs in f32, f64, f16, bf16 and i32: both paths equal the replay bit for bit', () => {
    try {
      for (const mode of ['function', 'interpreter'] as const) {
        setCpuFusedCodegen(mode);
        randomPrograms(js(), 160, 0);
      }
    } finally {
      setCpuFusedCodegen('auto');
    }
  });

  it('autotune: times fused and replay on a big call, keeps the faster per (program, size class)', () => {
    for (const replayFaster of [false, true]) {
      withFakeAutotuneClock(replayFaster, (replayed) => {
        const b = js();
        const unary = b.unary.bind(b);
        b.unary = (op, p) => {
          replayed();
          return unary(op, p);
        };
        const n = 3000;
        const x = tensor(b, values(n, 1), [n], 'f32');
        const call = ew(chain8('f32'), [n], [x, x], [0.5, 1]);
        const expected = read(b, replayFused(b, call)[0]!);
        // The first call tunes (both sides, warm-ups then timed rounds), then the choice holds.
        const results = Array.from({ length: 4 }, () => b.fused(call));
        const choice = replayFaster ? 'replay' : 'fused';
        assert.deepEqual([...cpuFusedChoices(b).values()], [choice]);
        for (const out of results)
          if (replayFaster) assert.equal(out, undefined, 'declined: the decorator replays');
          else assert.deepEqual(read(b, out![0]!), expected);
        // Another size class is tuned on its own; small calls are never timed.
        assert.ok(
          b.fused(
            ew(
              chain8('f32'),
              [10],
              [x, x].map((v) => b.slice(v, [{ start: 0, size: 10, step: 1 }])),
              [0.5, 1],
            ),
          ),
        );
        assert.equal(cpuFusedChoices(b).size, 1);
      });
    }
  });

  it('outputs come from the pool and go back to it', () => {
    const b = js();
    const n = 4096;
    const x = tensor(b, values(n, 1), [n], 'f32');
    const call = ew(chain8('f32'), [n], [x, x], [0.5, 1]);
    const first = b.fused(call)!;
    const reusedBefore = b.pool.reused;
    b.dispose(first[0]!);
    const second = b.fused(call)!;
    assert.equal(b.pool.reused, reusedBefore + 1, 'the released output array was reused');
    assert.deepEqual(read(b, second[0]!), read(b, replayFused(b, call)[0]!));
  });

  it('the engine is offered f32/f64 programs over the collapsed layout, never half, int or empty ones', () => {
    const offers: FusedEngineArgs[] = [];
    let accept = false;
    const engine: CpuEngineKernels = {
      name: 'fake',
      fused: (args) => {
        offers.push(args);
        if (!accept) return undefined;
        for (const o of args.outputs) o.fill(7);
        return args.outputs;
      },
    };
    const b = new CpuBackend(engine, new BufferPool({ minBytes: 0 }));
    const x = tensor(b, values(24, 1), [2, 3, 4], 'f32');
    // Contiguous: one flat dim.
    check(b, ew(chain8('f32'), [2, 3, 4], [x, x], [1, 2]), 'declined f32');
    assert.equal(offers.length, 1);
    assert.deepEqual(offers[0]!.shape, [24]);
    assert.equal(offers[0]!.innerRank, 0);
    assert.deepEqual(offers[0]!.scalars, [1, 2]);
    // A row program over a permuted input: outer and inner collapsed apart, row input strides 0 inside.
    const xt = b.permute(tensor(b, values(24, 2), [4, 2, 3], 'f32'), [1, 2, 0]); // [2, 3, 4]
    const ln = layerNorm('f32');
    const g = b.expand(tensor(b, values(4, 3), [4], 'f32'), [2, 3, 4]);
    const bias = tensor(b, values(6, 4), [2, 3], 'f32');
    check(
      b,
      { program: ln, outer: [2, 3], inner: [4], inputs: [xt, g, g, bias], scalars: [0.25, 1e-5] },
      'declined rows',
    );
    const o = offers[1]!;
    assert.deepEqual([o.shape, o.innerRank], [[6, 4], 1]);
    assert.deepEqual(
      o.inputs.map((i) => i.strides),
      [
        [1, 6],
        [0, 1],
        [0, 1],
        [1, 0],
      ],
    );
    // Not offered: f16, int, empty.
    check(b, ew(chain8('f16'), [2, 3, 4], [b.cast(x, 'f16'), b.cast(x, 'f16')], [1, 2]), 'f16');
    const xi = b.cast(x, 'i32');
    const intProg = prog({
      inputs: [el('i32')],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: 'i32' },
        { kind: 'binary', op: 'mul', x: 0, y: 0, dtype: 'i32' },
      ],
      outputs: [1],
    });
    check(b, ew(intProg, [2, 3, 4], [xi]), 'i32');
    const e0 = tensor(b, [], [0, 3], 'f32');
    check(b, ew(chain8('f32'), [0, 3], [e0, e0], [1, 2]), 'empty');
    assert.equal(offers.length, 2);
    // Taken: the engine's outputs are the result.
    accept = true;
    const [out] = b.fused(ew(chain8('f32'), [2, 3, 4], [x, x], [1, 2]))!;
    assert.deepEqual(read(b, out!), new Array(24).fill(7));
  });

  it('where code generation is forbidden (a CSP without unsafe-eval), the interpreter runs: the same values', () => {
    // A child Node process with eval and new Function disabled, as such a page has them.
    const url = (path: string) => new URL(`../../src/${path}`, import.meta.url).href;
    const script = `
      const { fusedProgram } = await import(${JSON.stringify(url('backend/fusion/program.ts'))});
      const { CpuBackend } = await import(${JSON.stringify(url('backends/cpu/backend.ts'))});
      const { cpuFusedStats } = await import(${JSON.stringify(url('backends/cpu/fusion/run.ts'))});
      const { TensorData } = await import(${JSON.stringify(url('core/data.ts'))});
      const program = fusedProgram(${JSON.stringify({ ...softmax('f32', false), levels: undefined, key: undefined })});
      const b = new CpuBackend();
      const x = b.fromData(new TensorData(Float32Array.from(${JSON.stringify(values(12, 5))}), [3, 4], 'f32'));
      const out = b.fused({ program, outer: [3], inner: [4], inputs: [x], scalars: [] });
      console.log(JSON.stringify({ values: out.map((t) => Array.from(b.toDataSync(t).values)), ...cpuFusedStats }));
    `;
    const stdout = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    );
    const got = JSON.parse(stdout.trim().split('\n').pop()!) as {
      values: number[][];
      interpreted: number;
      compiled: number;
    };
    assert.equal(got.compiled, 0, 'nothing generated');
    assert.equal(got.interpreted, 1, 'the interpreter compiled the program');
    const b = js();
    const x = tensor(b, values(12, 5), [3, 4], 'f32');
    const expected = replayFused(b, {
      program: softmax('f32', false),
      outer: [3],
      inner: [4],
      inputs: [x],
      scalars: [],
    });
    got.values.forEach((v, k) => assert.deepEqual(v, Array.from(b.toDataSync(expected[k]!).values as Float32Array)));
  });

  it('a call that does not match its program is a BurnError naming the input', () => {
    const b = js();
    const x = tensor(b, [1, 2, 3], [3], 'f32');
    const p = chain8('f32');
    assert.throws(() => b.fused(ew(p, [3], [x], [1, 2])), /1 inputs for a program of 2/);
    assert.throws(() => b.fused(ew(p, [3], [x, b.cast(x, 'f64')], [1, 2])), /input 1 has dtype f64, expected f32/);
    assert.throws(() => b.fused(ew(p, [4], [x, x], [1, 2])), /input 0 has shape \[3\], expected \[4\]/);
    assert.throws(() => b.fused(ew(p, [3], [x, x], [1])), /1 scalars for a program of 2/);
  });

  it('an output that is an input value is a new array (the program still writes it)', () => {
    const b = js();
    const x = tensor(b, [1, 2, 3], [3], 'f32');
    const p = prog({
      inputs: [el('f32')],
      scalars: 0,
      instrs: [
        { kind: 'load', input: 0, dtype: 'f32' },
        { kind: 'unary', op: 'exp', x: 0, dtype: 'f32' },
      ],
      outputs: [0, 1],
    });
    const [a] = b.fused(ew(p, [3], [x]))!;
    assert.notEqual(a!.data, x.data);
    assert.deepEqual(read(b, a!), [1, 2, 3]);
  });
});
