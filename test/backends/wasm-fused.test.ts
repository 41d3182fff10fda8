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
import { wasmUnavailableReason, type WasmEngine } from '../../src/backends/cpu/wasm/index.js';
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

  it('sum of squares to a scalar (one row of everything), odd sizes', () => {
    for (const n of [1, 7, 1023, 4097, 30001]) {
      const x = tensor(values(n, n + 1), [n]);
      check(call(sumSquaresProgram(), [], [n], [x]));
    }
  });
});
