// The WebGPU backend's fused kernels (src/backends/webgpu/kernels/fused.ts): generated WGSL for
// fused programs gives the values of the op-by-op replay on the same device (elementwise chains,
// broadcasts and views, int/bool/half dtypes, row programs: softmax, LayerNorm, variance, a loss
// to a scalar, NaN in max), compiles each program once, and keeps the pool flat.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
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
import { activation, Device, Distribution, Tensor, TensorData, type DType } from '../../src/index.js';
import { layerNorm as layerNormOp } from '../../src/tensor/functional/norm.js';
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

/** Full collections with pauses, so finalizers of handles dropped earlier have run before counting bytes. */
async function settle(): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const collect = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 20));
  }
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
  it('a 48-op chain (instruction ids 16 and 32 generate functions too)', async () => {
    const instrs: FusedInstr[] = [load(0), load(1)];
    const ops = ['add', 'mul', 'sub', 'div', 'max', 'min'] as const;
    for (let k = 0; k < 46; k++) {
      const last = instrs.length - 1;
      instrs.push(k % 3 === 2 ? un('tanh', last) : bin(ops[k % ops.length]!, last, k % 2));
    }
    const n = 300;
    const a = tensor([n], f32, 1),
      c = tensor([n], f32, 2, values(n, 2, f32, 1, 2));
    const call = { program: program([el(), el()], 0, instrs), outer: [n], inner: [], inputs: [a, c], scalars: [] };
    const outs = await check(call, '48 ops');
    dispose(a, c, ...outs);
  });

  it('an 8-op chain with two outputs equals the replay (odd sizes: 1, 7, 1023, 4097)', async () => {
    for (const n of [1, 7, 1023, 4097]) {
      const a = tensor([n], f32, 1),
        b = tensor([n], f32, 2);
      const outs = await check({ program: chain8(), outer: [n], inner: [], inputs: [a, b], scalars: [0.7] }, `n=${n}`);
      dispose(a, b, ...outs);
    }
  });
});

describe('WebGPU fused kernels: views, broadcasts and dtypes', { skip }, () => {
  const add3 = () =>
    program([el(), el(), el()], 0, [load(0), load(1), load(2), bin('mul', 0, 1), bin('add', 3, 2), un('sin', 4)]);

  it('broadcast inputs (stride 0, a smaller rank, a scalar) and permuted and sliced views', async () => {
    const b = backend();
    const m = 37,
      n = 129;
    const base = tensor([n, m], f32, 3); // permuted to [m, n]
    const big = tensor([m + 4, 2 * n + 3], f32, 4); // sliced to [m, n] with a step
    const colv = tensor([m, 1], f32, 5);
    const rowv = tensor([n], f32, 6);
    const one = tensor([], f32, 7);
    const perm = b.permute(base, [1, 0]);
    const spec: SliceSpecs = [
      { start: 2, size: m, step: 1 },
      { start: 1, size: n, step: 2 },
    ];
    const sliced = b.slice(big, spec);
    const colE = b.expand(colv, [m, n]);
    const oneE = b.expand(one, [m, n]);
    const rowE = b.expand(rowv, [m, n]);
    const cases: [string, WebGpuTensor[]][] = [
      ['permuted, sliced, column', [perm, sliced, colE]],
      ['row of smaller rank, scalar, permuted', [rowE, oneE, perm]],
      ['sliced only', [sliced, sliced, sliced]],
    ];
    for (const [what, inputs] of cases) {
      const outs = await check({ program: add3(), outer: [m, n], inner: [], inputs, scalars: [] }, what);
      dispose(...outs);
    }
    // A smaller-rank input that is not expanded first reads as its broadcast.
    const outs = b.fused({ program: add3(), outer: [m, n], inner: [], inputs: [perm, colv, rowv], scalars: [] })!;
    const want = replayFused(b, { program: add3(), outer: [m, n], inner: [], inputs: [perm, colE, rowE], scalars: [] });
    assertSame(await read(outs[0]!), await read(want[0]!), 'unexpanded broadcasts');
    dispose(base, big, colv, rowv, one, perm, sliced, colE, oneE, rowE, ...outs, ...want);
  });

  it('int chains wrap as the unfused ops store them (i8, u8, i16, i32, u32)', async () => {
    for (const dtype of ['i8', 'u8', 'i16', 'u16', 'i32', 'u32'] as const) {
      const p = program(
        [el(dtype), el(dtype)],
        1,
        [
          load(0, dtype),
          load(1, dtype),
          scalar(0, dtype),
          bin('mul', 0, 2, dtype),
          bin('add', 3, 1, dtype),
          bin('mul', 4, 4, dtype),
          bin('div', 5, 1, dtype),
          bin('rem', 6, 0, dtype),
          un('neg', 7, dtype),
          un('abs', 8, dtype),
          bin('xor', 9, 0, dtype),
          un('exp', 10, dtype),
        ],
        [11, 9, 5],
      );
      const n = 1000;
      const lo = dtype.startsWith('u') ? 0 : -100;
      const a = tensor([n], dtype, 1, values(n, 1, dtype, lo, 100)),
        c = tensor([n], dtype, 2, values(n, 2, dtype, lo, 100));
      const outs = await check({ program: p, outer: [n], inner: [], inputs: [a, c], scalars: [77] }, dtype);
      dispose(a, c, ...outs);
    }
  });

  it('f16 and bf16 chains round every instruction as the unfused stores do', async () => {
    for (const dtype of ['f16', 'bf16'] as const) {
      const p = program(
        [el(dtype), el(dtype)],
        1,
        [
          load(0, dtype),
          load(1, dtype),
          scalar(0, dtype),
          bin('mul', 0, 2, dtype),
          bin('add', 3, 1, dtype),
          un('exp', 4, dtype),
          bin('div', 5, 1, dtype),
          un('log1p', 6, dtype),
          { kind: 'cast', x: 7, dtype: f32 },
          un('sqrt', 8),
        ],
        [9, 7],
      );
      const n = 777;
      const a = tensor([n], dtype, 1),
        c = tensor([n], dtype, 2);
      const outs = await check({ program: p, outer: [n], inner: [], inputs: [a, c], scalars: [1.1] }, dtype);
      dispose(a, c, ...outs);
    }
  });

  it('compare, where, predicate, cast and bool logic', async () => {
    const p = program(
      [el(), el(), el('bool'), el('i32')],
      1,
      [
        load(0), // 0
        load(1), // 1
        load(2, 'bool'), // 2
        load(3, 'i32'), // 3
        { kind: 'compare', op: 'gt', x: 0, y: 1, dtype: 'bool' }, // 4
        bin('xor', 4, 2, 'bool'), // 5
        { kind: 'where', c: 5, x: 0, y: 1, dtype: f32 }, // 6
        { kind: 'cast', x: 6, dtype: 'i32' }, // 7
        bin('add', 7, 3, 'i32'), // 8
        { kind: 'cast', x: 8, dtype: 'u8' }, // 9
        un('log', 0), // 10: NaN for negatives
        { kind: 'predicate', op: 'isnan', x: 10, dtype: 'bool' }, // 11
        scalar(0), // 12
        { kind: 'compare', op: 'le', x: 10, y: 12, dtype: 'bool' }, // 13
        bin('or', 11, 13, 'bool'), // 14
        { kind: 'cast', x: 14, dtype: f32 }, // 15
        { kind: 'cast', x: 9, dtype: 'bool' }, // 16
        scalar(0, 'i32'), // 17: the same scalar read as an int (truncated)
        bin('mul', 3, 17, 'i32'), // 18
      ],
      [9, 14, 15, 16, 6, 18],
    );
    const n = 500;
    const inputs = [
      tensor([n], f32, 1, values(n, 1, f32, -300, 300)),
      tensor([n], f32, 2, values(n, 2, f32, -300, 300)),
      tensor([n], 'bool', 3),
      tensor([n], 'i32', 4, values(n, 4, 'i32', -1000, 1000)),
    ];
    const outs = await check({ program: p, outer: [n], inner: [], inputs, scalars: [2.5] }, 'logic');
    dispose(...inputs, ...outs);
  });
});

describe('WebGPU fused kernels: row programs', { skip }, () => {
  it('softmax and its row sums (rows of 1, 7, 63, 64, 1023, 4097: narrow and workgroup rows)', async () => {
    for (const d of [1, 7, 63, 64, 1023, 4097]) {
      const rows = d > 1000 ? 5 : 33;
      const x = tensor([rows, d], f32, d);
      const outs = await check({ program: softmax(), outer: [rows], inner: [d], inputs: [x], scalars: [] }, `d=${d}`);
      dispose(x, ...outs);
    }
  });

  it('reversed views (negative strides) in elementwise and row programs', async () => {
    const b = backend();
    const x = tensor([6, 130], f32, 12);
    const rev = b.slice(x, [
      { start: 5, size: 6, step: -1 },
      { start: 129, size: 130, step: -1 },
    ]);
    const outs = await check({ program: softmax(), outer: [6], inner: [130], inputs: [rev], scalars: [] }, 'rows');
    const outs2 = await check(
      { program: chain8(), outer: [6, 130], inner: [], inputs: [rev, x], scalars: [0.3] },
      'elementwise',
    );
    dispose(x, rev, ...outs, ...outs2);
  });

  it('softmax over a permuted view and over two inner dims', async () => {
    const b = backend();
    const x = tensor([96, 3, 5], f32, 9);
    const v = b.permute(x, [1, 2, 0]); // [3, 5, 96], rows non-contiguous
    const outs = await check({ program: softmax(), outer: [3, 5], inner: [96], inputs: [v], scalars: [] }, 'permuted');
    const y = tensor([4, 9, 17], f32, 10);
    const outs2 = await check({ program: softmax(), outer: [4], inner: [9, 17], inputs: [y], scalars: [] }, '2 inner');
    const t = b.permute(y, [2, 0, 1]); // [17, 4, 9]; reduce the last two dims: a strided inner walk
    const outs3 = await check(
      { program: softmax(), outer: [17], inner: [4, 9], inputs: [t], scalars: [] },
      'strided inner',
    );
    dispose(x, v, y, t, ...outs, ...outs2, ...outs3);
  });

  it('LayerNorm with affine weights broadcast along the rows, its mean and variance', async () => {
    const b = backend();
    for (const d of [7, 512, 1000]) {
      const rows = 19;
      const x = tensor([rows, d], f32, d);
      const w = tensor([d], f32, 2),
        bias = tensor([d], f32, 3);
      const we = b.expand(w, [rows, d]),
        be = b.expand(bias, [rows, d]);
      const outs = await check(
        { program: layerNorm(), outer: [rows], inner: [d], inputs: [x, we, be], scalars: [1 / d, 1e-5] },
        `d=${d}`,
      );
      dispose(x, w, bias, we, be, ...outs);
    }
  });

  it('a row input, scalars and row math after the last pass; var as E[x²] − E[x]²', async () => {
    const p = program(
      [el(), row()],
      1,
      [
        load(0), // 0
        load(1), // 1 per-row scale
        scalar(0), // 2 1/n
        bin('mul', 0, 1), // 3
        red('sum', 3), // 4
        bin('mul', 3, 3), // 5
        red('sum', 5), // 6
        bin('mul', 4, 2), // 7 mean
        bin('mul', 6, 2), // 8 E[x²]
        bin('mul', 7, 7), // 9
        bin('sub', 8, 9), // 10 var
        red('min', 3), // 11
        red('prod', 0), // 12
      ],
      [10, 11, 7, 12],
    );
    for (const d of [5, 300]) {
      const x = tensor([6, d], f32, 1, values(6 * d, 1, f32, 0.9, 1.1)),
        s = tensor([6], f32, 2);
      const outs = await check({ program: p, outer: [6], inner: [d], inputs: [x, s], scalars: [1 / d] }, `d=${d}`);
      dispose(x, s, ...outs);
    }
  });

  it('a sum of squared errors to a scalar (outer = [])', async () => {
    const p = program(
      [el(), el()],
      1,
      [load(0), load(1), bin('sub', 0, 1), bin('mul', 2, 2), red('sum', 3), scalar(0), bin('mul', 4, 5)],
      [6],
    );
    for (const n of [1, 50, 4097, 100000]) {
      const a = tensor([n], f32, 1),
        c = tensor([n], f32, 2);
      const outs = await check({ program: p, outer: [], inner: [n], inputs: [a, c], scalars: [1 / n] }, `n=${n}`);
      assert.deepEqual(outs[0]!.shape, []);
      dispose(a, c, ...outs);
    }
  });

  it('NaN in max and min, any and all, and int and bool reductions', async () => {
    const floats = program(
      [el()],
      0,
      [
        load(0), // 0
        red('max', 0), // 1
        red('min', 0), // 2
        red('any', 0, 'bool'), // 3
        red('all', 0, 'bool'), // 4
        bin('sub', 0, 1), // 5: x − max, NaN rows stay NaN
      ],
      [1, 2, 3, 4, 5],
    );
    const others = program(
      [el('i32'), el('bool')],
      0,
      [
        load(0, 'i32'), // 0
        red('max', 0, 'i32'), // 1
        red('min', 0, 'i32'), // 2
        red('sum', 0, 'i32'), // 3
        load(1, 'bool'), // 4
        red('any', 4, 'bool'), // 5
        red('all', 4, 'bool'), // 6
        red('max', 4, 'bool'), // 7
      ],
      [1, 2, 3, 5, 6, 7],
    );
    for (const d of [9, 200]) {
      const rows = 6;
      const xs = values(rows * d, 3, f32);
      xs[d + 3] = Number.NaN; // row 1
      xs[2 * d + d - 1] = Number.NaN; // row 2, last
      for (let j = 0; j < d; j++) xs[3 * d + j] = 0; // row 3 all zero: any false
      xs[4 * d + 5] = -0; // row 4
      xs[5 * d] = Number.NEGATIVE_INFINITY;
      const x = tensor([rows, d], f32, 0, xs);
      const outs = await check({ program: floats, outer: [rows], inner: [d], inputs: [x], scalars: [] }, `f32 d=${d}`);
      const max = await read(outs[0]!);
      assert.ok(Number.isNaN(max[1]!) && Number.isNaN(max[2]!), 'NaN wins max');
      assert.equal((await read(outs[2]!))[3], 0, 'any of zeros');
      const ints = tensor([rows, d], 'i32', 0, values(rows * d, 5, 'i32', -2e9, 2e9));
      const bools = tensor([rows, d], 'bool', 0, values(rows * d, 6, 'bool', -1, 40));
      const outs2 = await check(
        { program: others, outer: [rows], inner: [d], inputs: [ints, bools], scalars: [] },
        `ints d=${d}`,
      );
      dispose(x, ints, bools, ...outs, ...outs2);
    }
  });

  it('f16 LayerNorm rounds every step as the unfused ops do', async () => {
    const h = 'f16' as const;
    const p = program(
      [el(h)],
      2,
      [
        load(0, h),
        scalar(0, h),
        scalar(1, h),
        red('sum', 0, h),
        bin('mul', 3, 1, h),
        bin('sub', 0, 4, h),
        bin('mul', 5, 5, h),
        red('sum', 6, h),
        bin('mul', 7, 1, h),
        bin('add', 8, 2, h),
        un('sqrt', 9, h),
        bin('div', 5, 10, h),
      ],
      [11],
    );
    const x = tensor([8, 300], h, 4);
    const outs = await check({ program: p, outer: [8], inner: [300], inputs: [x], scalars: [1 / 300, 1e-5] }, 'f16');
    dispose(x, ...outs);
  });
});

describe('WebGPU fused kernels: edge cases', { skip }, () => {
  it('inputs the outputs do not need are not bound; dead instructions are not generated', async () => {
    const p = program([el(), el(), el()], 0, [load(0), load(1), un('exp', 1), load(2), bin('add', 0, 3)], [4]);
    const xs = [tensor([9], f32, 1), tensor([9], f32, 2), tensor([9], f32, 3)];
    const outs = await check({ program: p, outer: [9], inner: [], inputs: xs, scalars: [] }, 'elementwise');
    const r = program(
      [el(), el(), row()],
      0,
      [load(0), load(1), un('exp', 1), load(2), red('sum', 0), bin('add', 4, 3)],
      [5, 4],
    );
    const ys = [tensor([3, 70], f32, 1), tensor([3, 70], f32, 2), tensor([3], f32, 3)];
    const outs2 = await check({ program: r, outer: [3], inner: [70], inputs: ys, scalars: [] }, 'rows');
    dispose(...xs, ...ys, ...outs, ...outs2);
  });

  it('empty outer spaces give empty outputs without a dispatch; empty rows are declined', async () => {
    const b = backend();
    const x = tensor([0, 5], f32, 1);
    const d0 = b.info().stream.dispatches;
    const outs = b.fused({ program: chain8(), outer: [0, 5], inner: [], inputs: [x, x], scalars: [1] })!;
    assert.deepEqual(outs[0]!.shape, [0, 5]);
    const rows = b.fused({ program: softmax(), outer: [0], inner: [5], inputs: [x], scalars: [] })!;
    assert.deepEqual(rows[1]!.shape, [0]);
    assert.equal(b.info().stream.dispatches, d0);
    assert.deepEqual(await read(outs[0]!), []);
    const y = tensor([3, 0], f32, 1);
    assert.equal(b.fused({ program: softmax(), outer: [3], inner: [0], inputs: [y], scalars: [] }), undefined);
    dispose(x, y, ...outs, ...rows);
  });
});

describe('WebGPU fused kernels: compilation, dispatches and memory', { skip }, () => {
  it('one dispatch per call; one shader per program and layout, whatever the sizes', async () => {
    const b = backend();
    await b.sync();
    // A program no other test runs: scaled softmax.
    const p = program(
      [el()],
      1,
      [
        load(0),
        scalar(0),
        bin('mul', 0, 1),
        red('max', 2),
        bin('sub', 2, 3),
        un('exp', 4),
        red('sum', 5),
        bin('div', 5, 6),
      ],
      [7],
    );
    const before = b.info().stream;
    const gen0 = fusedKernelStats(b.rt).generated;
    for (const rows of [3, 10, 40]) {
      const x = tensor([rows, 300], f32, rows);
      const d0 = b.info().stream.dispatches;
      const outs = b.fused({ program: p, outer: [rows], inner: [300], inputs: [x], scalars: [0.125] })!;
      assert.equal(b.info().stream.dispatches - d0, 1, 'one dispatch');
      dispose(x, ...outs);
    }
    assert.equal(fusedKernelStats(b.rt).generated - gen0, 1, 'generated once');
    assert.equal(b.info().stream.pipelines - before.pipelines, 1, 'compiled once');
    // The same program rebuilt (an equal key) reuses the shader too.
    const x = tensor([4, 300], f32, 1);
    const p0 = b.info().stream.pipelines;
    const again = program([el()], 1, [...p.instrs], [7]);
    const outs = b.fused({ program: again, outer: [4], inner: [300], inputs: [x], scalars: [3] })!;
    assert.equal(b.info().stream.pipelines, p0);
    assert.equal(fusedKernelStats(b.rt).generated - gen0, 1);
    dispose(x, ...outs);
  });

  it('a program binding exactly maxFusedBindings tensors runs', async () => {
    const b = backend();
    const n = b.maxFusedBindings - 1;
    const inputs = Array.from({ length: n }, () => el());
    const instrs: FusedInstr[] = inputs.map((_, k) => load(k));
    for (let k = 1; k < n; k++) instrs.push(bin(k % 2 ? 'add' : 'mul', k === 1 ? 0 : instrs.length - 1, k));
    const xs = inputs.map((_, k) => tensor([33], f32, k + 1));
    const outs = await check(
      { program: program(inputs, 0, instrs), outer: [33], inner: [], inputs: xs, scalars: [] },
      'limit',
    );
    dispose(...xs, ...outs);
  });

  it('declines what it has no kernel for: more tensors than the binding limit, f64, undefined ops', () => {
    const b = backend();
    assert.ok(b.maxFusedBindings >= 8, `maxFusedBindings ${b.maxFusedBindings}`);
    const many = b.maxFusedBindings;
    const inputs = Array.from({ length: many }, () => el());
    const instrs: FusedInstr[] = inputs.map((_, k) => load(k));
    for (let k = 1; k < many; k++) instrs.push(bin('add', k === 1 ? 0 : instrs.length - 1, k));
    const x = tensor([4], f32, 1);
    assert.equal(
      b.fused({ program: program(inputs, 0, instrs), outer: [4], inner: [], inputs: inputs.map(() => x), scalars: [] }),
      undefined,
    );
    const f64 = program([el()], 0, [load(0), { kind: 'cast', x: 0, dtype: 'f64' }]);
    assert.equal(b.fused({ program: f64, outer: [4], inner: [], inputs: [x], scalars: [] }), undefined);
    const notF = program([el()], 0, [load(0), un('not', 0)]);
    assert.equal(b.fused({ program: notF, outer: [4], inner: [], inputs: [x], scalars: [] }), undefined);
    dispose(x);
  });

  it('200 runs disposing the outputs keep the pool flat', async () => {
    const b = backend();
    const x = tensor([16, 256], f32, 1);
    const w = tensor([256], f32, 2);
    const we = b.expand(w, [16, 256]);
    const flat = b.reshape(x, [16 * 256]);
    const run = () => {
      const outs = b.fused({
        program: layerNorm(),
        outer: [16],
        inner: [256],
        inputs: [x, we, we],
        scalars: [1 / 256, 1e-5],
      })!;
      const e = b.fused({
        program: chain8(),
        outer: [16 * 256],
        inner: [],
        inputs: [flat, flat],
        scalars: [2],
      });
      dispose(...outs, ...e!);
    };
    for (let i = 0; i < 10; i++) run();
    await b.sync();
    await settle();
    const m0 = b.memory();
    for (let i = 0; i < 200; i++) run();
    await b.sync();
    const m1 = b.memory();
    // Every output came from the free lists: no buffer was created, none is left live.
    assert.equal(m1.created, m0.created, 'buffers created');
    assert.equal(m1.liveBytes, m0.liveBytes, 'live bytes');
    assert.equal(m1.allocatedBytes, m0.allocatedBytes, 'allocated bytes');
    assert.ok(m1.reused - m0.reused >= 200 * 4, 'outputs served by the pool');
    dispose(x, w, we, flat);
  });
});

describe('WebGPU fused kernels under device.fusion()', { skip }, () => {
  type AnyTensor = Tensor<number, never>;
  const rand = (d: Device, shape: number[], seed: number) => {
    d.seed(seed);
    return Tensor.random(shape, Distribution.Normal(0, 1), d);
  };
  const info = (d: Device) =>
    (
      d.backend as unknown as { info(): { fusion: { fused: number; replays: number }; stream: { dispatches: number } } }
    ).info();

  it('chains, softmax, LayerNorm and a loss run as fused kernels (no replay) with the plain values', async () => {
    const plain = gpu!;
    const fused = plain.fusion();
    const work = (d: Device) => {
      const x = rand(d, [24, 300], 5).mul(3);
      const w = rand(d, [300], 6);
      const b = rand(d, [300], 7);
      return [
        x.mul(0.5).add(1).exp().sub(0.25).tanh().mul(3).sigmoid().sqrt(),
        activation.softmax(x.mul(0.125), 1),
        activation.logSoftmax(x, 0),
        layerNormOp(x, [300], { weight: w, bias: b }),
        x.var(1),
        x.sub(x.exp()).powf(2).mean(),
      ] as AnyTensor[];
    };
    const want = work(plain);
    const f0 = info(fused).fusion;
    const got = work(fused);
    for (let i = 0; i < want.length; i++) {
      const a = Array.from((await got[i]!.toData()).toArray() as ArrayLike<number>);
      const e = Array.from((await want[i]!.toData()).toArray() as ArrayLike<number>);
      assert.deepEqual(got[i]!.shape(), want[i]!.shape());
      assertSame(a, e, `result ${i}`, 8);
    }
    const f1 = info(fused).fusion;
    assert.equal(f1.replays - f0.replays, 0, 'nothing replayed');
    assert.ok(f1.fused - f0.fused >= want.length, `fused programs: ${f1.fused - f0.fused}`);
    // An 8-op chain on a computed input is one dispatch.
    const x = rand(fused, [1000], 3);
    await x.toData();
    const d0 = info(fused).stream.dispatches;
    await x.mul(0.5).add(1).exp().sub(0.25).tanh().mul(3).sigmoid().sqrt().toData();
    assert.equal(info(fused).stream.dispatches - d0, 1, 'one dispatch for the chain');
  });
});
