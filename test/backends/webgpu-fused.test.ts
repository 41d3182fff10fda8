// The WebGPU backend's fused kernels (src/backends/webgpu/kernels/fused.ts): generated WGSL for
// fused programs gives the values of the op-by-op replay on the same device (elementwise chains,
// broadcasts and views, int/bool/half dtypes, row programs: softmax, LayerNorm, variance, a loss
// to a scalar, NaN in max), compiles each program once, and keeps the pool flat.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SliceSpecs } from '../../src/backend/backend.js';
import {
  fusedProgram,
  type FusedCall,
  type FusedInput,
  type FusedInstr,
  type FusedOutput,
  type FusedProgram,
} from '../../src/backend/fusion/program.js';
import { replayFused } from '../../src/backend/fusion/replay.js';
import type { WebGpuBackend } from '../../src/backends/webgpu/backend.js';
import { fusedKernelStats } from '../../src/backends/webgpu/kernels/fused.js';
import type { WebGpuTensor } from '../../src/backends/webgpu/tensor.js';
import { TensorData, type DType } from '../../src/index.js';
import { webgpu } from '../helpers/devices.js';

const gpu = webgpu.device;
const skip = gpu ? false : `no WebGPU device: ${webgpu.reason}`;
const backend = () => gpu!.backend as unknown as WebGpuBackend;

const f32 = 'f32' as const;
const el = (dtype: DType = f32): FusedInput => ({ dtype, level: 'element' });
const row = (dtype: DType = f32): FusedInput => ({ dtype, level: 'row' });

function program(
  inputs: FusedInput[],
  scalars: number,
  instrs: FusedInstr[],
  outputs: number[] = [instrs.length - 1],
): FusedProgram {
  return fusedProgram({ inputs, scalars, instrs, outputs: outputs.map((value): FusedOutput => ({ value })) });
}

/** Deterministic values in [lo, hi), rounded for ints. */
function values(n: number, seed: number, dtype: DType, lo = -4, hi = 4): number[] {
  let s = seed * 2654435761 + 12345;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const v = lo + (s / 2147483648) * (hi - lo);
    out.push(dtype === 'bool' ? (v > 0 ? 1 : 0) : dtype.startsWith('f') || dtype === 'bf16' ? v : Math.floor(v));
  }
  return out;
}

function tensor(shape: number[], dtype: DType = f32, seed = 1, vals?: number[]): WebGpuTensor {
  const n = shape.reduce((a, s) => a * s, 1);
  return backend().fromData(new TensorData(vals ?? values(n, seed, dtype), shape, dtype));
}

async function read(p: WebGpuTensor): Promise<number[]> {
  return Array.from((await backend().toData(p)).toArray() as ArrayLike<number>);
}

/** Element `i` of two arrays is the same number (NaN equals NaN; -0 and +0 differ). */
function assertSame(got: number[], want: number[], what: string, ulps = 0): void {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < got.length; i++) {
    const a = got[i]!,
      b = want[i]!;
    if (Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b))) continue;
    if (ulps > 0 && Math.abs(a - b) <= ulps * 1.2e-7 * Math.max(1, Math.abs(b))) continue;
    assert.fail(`${what}: element ${i} is ${a}, the replay gives ${b}`);
  }
}

/** Runs `call` fused and replayed on the WebGPU backend and compares every output. */
async function check(call: FusedCall<WebGpuTensor>, what: string, ulps = 0): Promise<WebGpuTensor[]> {
  const b = backend();
  const fused = b.fused(call);
  assert.ok(fused, `${what}: the WebGPU backend declined the program`);
  const replayed = replayFused(b, call);
  assert.equal(fused.length, replayed.length);
  for (let k = 0; k < fused.length; k++) {
    assert.deepEqual(fused[k]!.shape, replayed[k]!.shape, `${what}: output ${k} shape`);
    assert.equal(fused[k]!.dtype, replayed[k]!.dtype, `${what}: output ${k} dtype`);
    assertSame(await read(fused[k]!), await read(replayed[k]!), `${what}: output ${k}`, ulps);
  }
  for (const r of replayed) b.dispose(r);
  return fused;
}

function dispose(...ps: WebGpuTensor[]): void {
  for (const p of ps) backend().dispose(p);
}

const load = (input: number, dtype: DType = f32): FusedInstr => ({ kind: 'load', input, dtype });
const un = (op: Extract<FusedInstr, { kind: 'unary' }>['op'], x: number, dtype: DType = f32): FusedInstr => ({
  kind: 'unary',
  op,
  x,
  dtype,
});
const bin = (
  op: Extract<FusedInstr, { kind: 'binary' }>['op'],
  x: number,
  y: number,
  dtype: DType = f32,
): FusedInstr => ({ kind: 'binary', op, x, y, dtype });
const red = (op: Extract<FusedInstr, { kind: 'reduce' }>['op'], x: number, dtype: DType = f32): FusedInstr => ({
  kind: 'reduce',
  op,
  x,
  dtype,
});
const scalar = (index: number, dtype: DType = f32): FusedInstr => ({ kind: 'scalar', index, dtype });

/** An 8-op chain over two inputs and a scalar: the benchmark shape. */
function chain8(): FusedProgram {
  return program(
    [el(), el()],
    1,
    [
      load(0), // 0
      load(1), // 1
      scalar(0), // 2
      bin('mul', 0, 2), // 3
      bin('add', 3, 1), // 4
      un('tanh', 4), // 5
      un('exp', 5), // 6
      bin('sub', 6, 1), // 7
      un('abs', 7), // 8
      un('sqrt', 8), // 9
      bin('max', 9, 0), // 10
      un('neg', 10), // 11
    ],
    [11, 5],
  );
}

/** softmax over the row, with its sums. */
function softmax(): FusedProgram {
  return program(
    [el()],
    0,
    [load(0), red('max', 0), bin('sub', 0, 1), un('exp', 2), red('sum', 3), bin('div', 3, 4)],
    [5, 4],
  );
}

/** LayerNorm with affine row-broadcast weights: mean, variance of x − mean, then (x − mean)/sqrt(var + eps)·w + b. */
function layerNorm(): FusedProgram {
  return program(
    [el(), el(), el()],
    2,
    [
      load(0), // 0 x
      scalar(0), // 1 1/n
      scalar(1), // 2 eps
      red('sum', 0), // 3
      bin('mul', 3, 1), // 4 mean
      bin('sub', 0, 4), // 5 xc
      bin('mul', 5, 5), // 6
      red('sum', 6), // 7
      bin('mul', 7, 1), // 8 var
      bin('add', 8, 2), // 9
      un('sqrt', 9), // 10
      bin('div', 5, 10), // 11
      load(1), // 12 w
      load(2), // 13 b
      bin('mul', 11, 12), // 14
      bin('add', 14, 13), // 15
    ],
    [15, 4, 8],
  );
}

describe('WebGPU fused kernels: elementwise programs', { skip }, () => {
  it('an 8-op chain with two outputs equals the replay (odd sizes: 1, 7, 1023, 4097)', async () => {
    for (const n of [1, 7, 1023, 4097]) {
      const a = tensor([n], f32, 1),
        b = tensor([n], f32, 2);
      const outs = await check({ program: chain8(), outer: [n], inner: [], inputs: [a, b], scalars: [0.7] }, `n=${n}`);
      dispose(a, b, ...outs);
    }
  });
});
