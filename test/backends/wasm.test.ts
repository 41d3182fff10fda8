// The `wasm` CPU engine: every accelerated kernel against the `js` engine on many shapes
// and layouts (odd sizes, transposed and strided operands, batch broadcast, tiny tensors, f16 and
// the f64 fallback), the worker-thread path, engine selection, and flat memory over a long loop.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import type { CpuEngineKernels } from '../../src/backends/cpu/engine.js';
import { TASK_KINDS, wasmOpCodes } from '../../src/backends/cpu/wasm/ops.js';
import {
  WasmEngine,
  wasmEngine,
  wasmRuntime,
  wasmUnavailableReason,
  WasmRuntime,
  type WasmEngineOptions,
} from '../../src/backends/cpu/wasm/index.js';
import { compileSync } from '../../src/backends/cpu/wasm/loader.js';
import {
  activation,
  BurnError,
  Device,
  Distribution,
  functional,
  Tensor,
  TensorData,
  type DType,
  type Float,
} from '../../src/index.js';

const runtime = wasmRuntime();
const skip = runtime ? false : `the wasm engine is unavailable: ${wasmUnavailableReason()}`;
const js = Device.cpu({ engine: 'js' });
const root = fileURLToPath(new URL('../..', import.meta.url));

type F = Tensor<number, Float>;

/** A device over the given kernels that counts, per kernel, the calls the engine handled. */
function counting(engine: CpuEngineKernels): { device: Device; handled: Record<string, number> } {
  const handled: Record<string, number> = {};
  const wrapped: Record<string, unknown> = { name: engine.name };
  // The engine's kernels: its own functions and the methods of its class.
  const proto = Object.getPrototypeOf(engine) as object;
  const methods = [
    ...Object.keys(engine),
    ...(proto === Object.prototype ? [] : Object.getOwnPropertyNames(proto)),
  ].filter((key) => key !== 'constructor');
  for (const key of methods) {
    const fn = (engine as unknown as Record<string, unknown>)[key];
    if (typeof fn !== 'function') continue;
    wrapped[key] = (...args: unknown[]) => {
      const result = (fn as (...a: unknown[]) => unknown).apply(engine, args);
      // A kernel returns its output, or undefined where it declines.
      if (result !== undefined) handled[key] = (handled[key] ?? 0) + 1;
      return result;
    };
  }
  return {
    device: new Device(
      new CpuBackend(wrapped as unknown as CpuEngineKernels) as unknown as Backend<TensorPrimitive>,
      'cpu(wasm)',
    ),
    handled,
  };
}

const ALL: WasmEngineOptions = { minElements: 0, minCostlyElements: 0, minGemm: 0 };

/** Deterministic values in [-scale, scale). */
function values(n: number, seed: number, scale = 1): number[] {
  const out = new Array<number>(n);
  let s = (seed * 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 31 - 1) * scale;
  }
  return out;
}

function tensor(shape: number[], seed: number, device: Device, dtype: DType = 'f32', scale = 1): F {
  return Tensor.fromData<number, Float>(
    new TensorData(
      values(
        shape.reduce((a, b) => a * b, 1),
        seed,
        scale,
      ),
      shape,
      'f32',
    ).convert(dtype),
    device,
  );
}

/** Asserts `got` (wasm) matches `want` (js): same shape, |g - w| <= atol + rtol·|w|, NaN and infinities matching. */
function close(got: F, want: F, label: string, rtol = 2e-6, atol = 1e-6): void {
  const g = got.toDataSync(),
    w = want.toDataSync();
  assert.deepEqual(g.shape, w.shape, `${label}: shape`);
  assert.equal(g.dtype, w.dtype, `${label}: dtype`);
  const ga = g.toArray() as ArrayLike<number>,
    wa = w.toArray() as ArrayLike<number>;
  for (let i = 0; i < wa.length; i++) {
    const a = ga[i]!,
      e = wa[i]!;
    const ok = Number.isNaN(e)
      ? Number.isNaN(a)
      : !Number.isFinite(e)
        ? a === e
        : Math.abs(a - e) <= atol + rtol * Math.abs(e);
    if (!ok) assert.fail(`${label}: [${i}] ${a} != ${e} (rtol ${rtol}, atol ${atol})`);
  }
}

/** Runs `op` on the same inputs on the js device and on `device`, and compares. */
function same(device: Device, label: string, make: (d: Device) => F, rtol?: number, atol?: number): void {
  close(make(device), make(js), label, rtol, atol);
}

describe('wasm engine', { skip }, () => {
  const { device, handled } = counting(runtime ? wasmEngine(ALL) : { name: 'none' });

  it('loads the threaded module in Node, with BURN_NUM_THREADS threads (default: the cores)', async () => {
    assert.equal(runtime!.variant, 'mt');
    assert.ok(runtime!.threads >= 1);
    assert.equal(Device.cpu({ engine: 'wasm' }).toString(), 'cpu(wasm)');
    // The browser entry point (asynchronous compile) gives the same device.
    assert.equal(await Device.cpuAsync({ engine: 'wasm' }), Device.cpu({ engine: 'wasm' }));
  });

  it("the module's op codes and task kinds are matched by name: every exported name is known, the ops it had are all there", () => {
    const codes = wasmOpCodes(runtime!);
    for (const op of [
      'neg',
      'abs',
      'sqrt',
      'recip',
      'exp',
      'log',
      'sigmoid',
      'tanh',
      'floor',
      'ceil',
      'trunc',
      'round',
      'sign',
    ] as const)
      assert.equal(typeof codes.unary[op], 'number', op);
    for (const op of ['add', 'sub', 'mul', 'div', 'max', 'min', 'reluGrad'] as const)
      assert.equal(typeof codes.binary[op], 'number', op);
    for (const op of ['sum', 'prod', 'max', 'min'] as const) assert.equal(typeof codes.reduce[op], 'number', op);
    for (const k of TASK_KINDS) assert.equal(typeof codes.kind[k], 'number', k);
    for (const [prefix, table] of [
      ['UNARY', codes.unary],
      ['BINARY', codes.binary],
      ['REDUCE', codes.reduce],
      ['RANDOM', codes.random],
      ['KIND', codes.kind],
    ] as const) {
      for (const [name, code] of Object.entries(runtime!.constantsNamed(prefix)))
        assert.equal((table as Record<string, number | undefined>)[name], code, `${prefix}_${name}`);
    }
    // Ops the module lacks are declined (the js kernels run them).
    assert.equal(codes.unary.sin, undefined);
    assert.equal(codes.binary.pow, undefined);
    // A name this build does not know is an error, not an op silently dropped or miscoded.
    const fake = {
      constantsNamed: (prefix: string) => (prefix === 'UNARY' ? { exp: 0, frobnicate: 1 } : {}),
    } as unknown as WasmRuntime;
    assert.throws(() => wasmOpCodes(fake), /UNARY_\*.*frobnicate/);
  });

  it('matmul: odd sizes, transposed and strided operands, batch broadcast, a · aᵀ', () => {
    const before = handled['gemm'] ?? 0;
    // [9, 1100, 13]: a small product over several K-blocks (the tiled path accumulates block by block);
    // [70, 530, 9]: a tile with more rows than one packed A block holds at that depth (blocks of 60 and 10 rows).
    const shapes: [number, number, number][] = [
      [1, 1, 1],
      [2, 3, 4],
      [7, 13, 5],
      [4, 8, 8],
      [33, 65, 17],
      [129, 31, 257],
      [64, 300, 72],
      [9, 1100, 13],
      [70, 530, 9],
    ];
    for (const [m, k, n] of shapes) {
      const tol = 2e-6 * Math.sqrt(k);
      same(device, `${m}x${k}x${n}`, (d) => tensor([m, k], 1, d).matmul(tensor([k, n], 2, d)), 1e-5, tol);
      same(
        device,
        `${m}x${k}x${n} Aᵀ`,
        (d) =>
          tensor([k, m], 3, d)
            .transpose()
            .matmul(tensor([k, n], 4, d)),
        1e-5,
        tol,
      );
      same(
        device,
        `${m}x${k}x${n} Bᵀ`,
        (d) => tensor([m, k], 5, d).matmul(tensor([n, k], 6, d).transpose()),
        1e-5,
        tol,
      );
      same(
        device,
        `${m}x${k}x${n} AᵀBᵀ`,
        (d) =>
          tensor([k, m], 7, d)
            .transpose()
            .matmul(tensor([n, k], 8, d).transpose()),
        1e-5,
        tol,
      );
      // Step-2 slices and negative strides (flip).
      same(
        device,
        `${m}x${k}x${n} strided`,
        (d) =>
          tensor([2 * m, 2 * k], 9, d)
            .slice([
              [0, 2 * m, 2],
              [1, 2 * k, 2],
            ])
            .matmul(tensor([k, n], 10, d).flip([0, 1])),
        1e-5,
        tol,
      );
    }
    same(device, 'batched', (d) => tensor([3, 17, 9], 11, d).matmul(tensor([3, 9, 23], 12, d)), 1e-5, 1e-5);
    same(
      device,
      'batch broadcast [3,1]·[1,4]',
      (d) => tensor([3, 1, 6, 10], 13, d).matmul(tensor([1, 4, 10, 7], 14, d)),
      1e-5,
      1e-5,
    );
    same(
      device,
      'batch · matrix (folded into one product)',
      (d) => tensor([5, 11, 16], 15, d).matmul(tensor([16, 9], 16, d).unsqueeze<3>()),
      1e-5,
      1e-5,
    );
    same(
      device,
      'matrix · batch',
      (d) =>
        tensor([11, 16], 17, d)
          .unsqueeze<3>()
          .matmul(tensor([5, 16, 9], 18, d)),
      1e-5,
      1e-5,
    );
    same(
      device,
      'transposed batch',
      (d) =>
        tensor([4, 12, 10], 19, d)
          .swapDims(1, 2)
          .matmul(tensor([4, 12, 6], 20, d)),
      1e-5,
      1e-5,
    );
    same(
      device,
      'a · aᵀ (one buffer)',
      (d) => {
        const a = tensor([37, 29], 21, d);
        return a.matmul(a.transpose());
      },
      1e-5,
      1e-5,
    );
    assert.ok((handled['gemm'] ?? 0) - before >= shapes.length * 5 + 6, 'every product ran in WebAssembly');
  });

  it('products with fewer rows than the micro-kernel (B read in place): ragged columns, deep K, transposed A, a conv with bias', () => {
    const before = handled['gemm'] ?? 0;
    let products = 0;
    for (const m of [1, 2, 3])
      for (const [k, n] of [
        [1, 1],
        [7, 5],
        [600, 13],
        [1100, 300],
        [1024, 512],
      ] as const) {
        const tol = 2e-6 * Math.sqrt(k);
        same(device, `${m}x${k}x${n}`, (d) => tensor([m, k], 80, d).matmul(tensor([k, n], 81, d)), 1e-5, tol);
        same(
          device,
          `${m}x${k}x${n} Aᵀ`,
          (d) =>
            tensor([k, m], 82, d)
              .transpose()
              .matmul(tensor([k, n], 83, d)),
          1e-5,
          tol,
        );
        products += 2;
      }
    assert.equal((handled['gemm'] ?? 0) - before, products, 'every product ran in WebAssembly');
    const o = { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 };
    same(
      device,
      'conv with 3 output channels and bias',
      (d) =>
        functional.conv2d(
          tensor([2, 5, 9, 11], 84, d) as Tensor<4, Float>,
          tensor([3, 5, 3, 3], 85, d) as Tensor<4, Float>,
          tensor([3], 86, d) as Tensor<1, Float>,
          o,
        ),
      1e-5,
      1e-5,
    );
  });

  it('large products on the threads: B packed once and shared (several K-blocks, ragged edges, transposed A, a conv with bias)', () => {
    const before = handled['gemm'] ?? 0;
    same(
      device,
      'shared 96x600x130',
      (d) => tensor([96, 600], 60, d).matmul(tensor([600, 130], 61, d)),
      1e-5,
      2e-6 * Math.sqrt(600),
    );
    same(
      device,
      'shared Aᵀ 70x513x64',
      (d) =>
        tensor([513, 70], 62, d)
          .transpose()
          .matmul(tensor([513, 64], 63, d)),
      1e-5,
      2e-6 * Math.sqrt(513),
    );
    // Jobs of 76 rows, packed in A blocks of 60 and 16 rows (depth 260).
    same(
      device,
      'shared 600x520x40',
      (d) => tensor([600, 520], 67, d).matmul(tensor([520, 40], 68, d)),
      1e-5,
      2e-6 * Math.sqrt(520),
    );
    assert.equal((handled['gemm'] ?? 0) - before, 3);
    const o = { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 };
    same(
      device,
      'single-image conv with bias',
      (d) =>
        functional.conv2d(
          tensor([1, 16, 40, 40], 64, d) as Tensor<4, Float>,
          tensor([48, 16, 3, 3], 65, d) as Tensor<4, Float>,
          tensor([48], 66, d) as Tensor<1, Float>,
          o,
        ),
      1e-5,
      1e-5,
    );
  });

  it('conv2d: groups, stride, padding, dilation, 1×1, bias, odd sizes', () => {
    const before = handled['conv2d'] ?? 0;
    const cases: { x: number[]; w: number[]; bias: boolean; o: functional.ConvFnOptions }[] = [
      { x: [2, 3, 9, 11], w: [4, 3, 3, 3], bias: true, o: {} },
      { x: [2, 3, 9, 11], w: [5, 3, 3, 2], bias: false, o: { padding: [1, 2], stride: [2, 1] } },
      { x: [1, 4, 12, 12], w: [6, 2, 3, 3], bias: true, o: { groups: 2, padding: 1, dilation: 2 } },
      { x: [3, 8, 7, 5], w: [8, 1, 3, 3], bias: true, o: { groups: 8, padding: 1 } },
      { x: [2, 16, 6, 6], w: [12, 16, 1, 1], bias: true, o: {} },
      { x: [2, 16, 7, 7], w: [12, 16, 1, 1], bias: false, o: { stride: 2 } },
      { x: [1, 1, 28, 28], w: [8, 1, 5, 5], bias: true, o: { stride: 3, padding: 2 } },
      { x: [1, 2, 3, 3], w: [1, 2, 3, 3], bias: false, o: { padding: 4 } },
    ];
    for (const [i, c] of cases.entries()) {
      same(
        device,
        `conv ${i}`,
        (d) =>
          functional.conv2d(
            tensor(c.x, 30 + i, d) as Tensor<4, Float>,
            tensor(c.w, 40 + i, d) as Tensor<4, Float>,
            c.bias ? (tensor([c.w[0]!], 50 + i, d) as Tensor<1, Float>) : undefined,
            c.o,
          ),
        1e-5,
        1e-5,
      );
    }
    assert.equal((handled['conv2d'] ?? 0) - before, cases.length);
  });

  it('conv2d weight gradient: groups, stride, padding, dilation, 1×1, odd sizes, the seed ConvNet layer', () => {
    const before = handled['conv2dWeightGrad'] ?? 0;
    const cases: { x: number[]; w: number[]; o: functional.ConvFnOptions }[] = [
      { x: [2, 3, 9, 11], w: [4, 3, 3, 3], o: {} },
      { x: [2, 3, 9, 11], w: [5, 3, 3, 2], o: { padding: [1, 2], stride: [2, 1] } },
      { x: [1, 4, 12, 12], w: [6, 2, 3, 3], o: { groups: 2, padding: 1, dilation: 2 } },
      { x: [3, 8, 7, 5], w: [8, 1, 3, 3], o: { groups: 8, padding: 1 } },
      { x: [2, 16, 7, 7], w: [12, 16, 1, 1], o: { stride: 2 } },
      { x: [64, 8, 26, 26], w: [16, 8, 3, 3], o: {} },
    ];
    for (const [i, c] of cases.entries()) {
      same(
        device,
        `conv weight grad ${i}`,
        (d) => {
          const ad = d.autodiff();
          const w = (tensor(c.w, 60 + i, ad) as Tensor<4, Float>).requireGrad();
          const y = functional.conv2d(tensor(c.x, 70 + i, ad) as Tensor<4, Float>, w, undefined, c.o);
          const grads = y
            .mul(tensor(y.dims(), 80 + i, ad))
            .sum()
            .backward();
          return Tensor.fromData<4, Float>(w.grad(grads)!.toDataSync(), d);
        },
        1e-5,
        1e-4,
      );
    }
    assert.equal((handled['conv2dWeightGrad'] ?? 0) - before, cases.length);
  });

  it('convTranspose2d: groups, stride, padding, output padding, dilation, bias', () => {
    const before = handled['convTranspose2d'] ?? 0;
    const cases: { x: number[]; w: number[]; bias: boolean; o: functional.ConvTransposeFnOptions }[] = [
      { x: [2, 3, 5, 6], w: [3, 4, 3, 3], bias: true, o: {} },
      { x: [2, 4, 5, 5], w: [4, 3, 3, 2], bias: false, o: { stride: [2, 3], padding: [1, 0], paddingOut: [1, 2] } },
      { x: [1, 4, 6, 7], w: [4, 2, 3, 3], bias: true, o: { groups: 2, padding: 1, dilation: 2 } },
      { x: [3, 8, 4, 4], w: [8, 6, 1, 1], bias: true, o: {} },
      { x: [1, 2, 9, 9], w: [2, 3, 4, 4], bias: false, o: { stride: 2, padding: 3 } },
    ];
    for (const [i, c] of cases.entries()) {
      same(
        device,
        `convT ${i}`,
        (d) =>
          functional.convTranspose2d(
            tensor(c.x, 200 + i, d) as Tensor<4, Float>,
            tensor(c.w, 210 + i, d) as Tensor<4, Float>,
            c.bias ? (tensor([c.w[1]! * (c.o.groups ?? 1)], 220 + i, d) as Tensor<1, Float>) : undefined,
            c.o,
          ),
        1e-5,
        1e-5,
      );
    }
    assert.equal((handled['convTranspose2d'] ?? 0) - before, cases.length);
  });

  it('unfold4d (im2col) matches the js kernels', () => {
    const before = handled['unfold2d'] ?? 0;
    same(
      device,
      'unfold',
      (d) =>
        functional.unfold4d(tensor([2, 3, 7, 6], 60, d) as Tensor<4, Float>, [3, 2], {
          padding: [1, 0],
          stride: [2, 1],
          dilation: [1, 2],
        }) as F,
      0,
      0,
    );
    same(
      device,
      'unfold 1x1',
      (d) => functional.unfold4d(tensor([1, 5, 4, 4], 61, d) as Tensor<4, Float>, 1) as F,
      0,
      0,
    );
    assert.equal((handled['unfold2d'] ?? 0) - before, 2);
  });

  it('max pooling with indices: stride, padding, dilation, ceil mode, NaN and -inf', () => {
    const before = handled['maxPool2d'] ?? 0;
    const cases: { shape: number[]; k: number[]; o: functional.MaxPoolFnOptions }[] = [
      { shape: [2, 3, 8, 8], k: [2, 2], o: {} },
      { shape: [1, 2, 9, 7], k: [3, 3], o: { stride: 2, padding: 1 } },
      { shape: [1, 2, 10, 9], k: [3, 2], o: { stride: [2, 3], dilation: [2, 1], ceilMode: true } },
      { shape: [2, 1, 5, 5], k: [2, 2], o: { stride: 2, ceilMode: true } },
    ];
    for (const [i, c] of cases.entries()) {
      const make = (d: Device): [F, Tensor<4, 'int'>] => {
        const v = values(
          c.shape.reduce((a, b) => a * b, 1),
          70 + i,
        );
        v[3] = NaN;
        v[10] = -Infinity;
        v[11] = -Infinity;
        v[20] = v[21] = v[22] = 0.5; // ties keep the first position
        const x = Tensor.fromData<4, Float>(new TensorData(v, c.shape, 'f32'), d);
        return functional.maxPool2dWithIndices(x, c.k, c.o);
      };
      const [gv, gi] = make(device),
        [wv, wi] = make(js);
      close(gv, wv, `pool ${i} values`, 0, 0);
      assert.deepEqual(
        Array.from(gi.toDataSync().toArray()),
        Array.from(wi.toDataSync().toArray()),
        `pool ${i} indices`,
      );
      same(
        device,
        `pool ${i} (no indices)`,
        (d) => functional.maxPool2d(tensor(c.shape, 80 + i, d) as Tensor<4, Float>, c.k, c.o),
        0,
        0,
      );
    }
    assert.equal((handled['maxPool2d'] ?? 0) - before, cases.length * 2);
  });

  it('2×2 stride-2 max pooling (the vector path): ties, -inf, odd widths, a NaN plane beside clean ones', () => {
    const before = handled['maxPool2d'] ?? 0;
    for (const [i, shape] of [
      [2, 3, 9, 19],
      [1, 2, 16, 16],
      [3, 1, 4, 7],
    ].entries()) {
      const make = (d: Device): [F, Tensor<4, 'int'>] => {
        // Values on a coarse grid: equal maxima in a window are common, and the first must win.
        const v = values(
          shape.reduce((a, b) => a * b, 1),
          170 + i,
        ).map((x) => Math.round(x * 2) / 2);
        const plane = shape[2]! * shape[3]!;
        v[plane + 1] = v[plane + 2] = -Infinity;
        v[plane + shape[3]!] = Infinity;
        v[5] = NaN; // the first plane takes the generic path; the others the vector path
        return functional.maxPool2dWithIndices(Tensor.fromData<4, Float>(new TensorData(v, shape, 'f32'), d), [2, 2], {
          stride: [2, 2],
        });
      };
      const [gv, gi] = make(device),
        [wv, wi] = make(js);
      close(gv, wv, `pool ${shape} values`, 0, 0);
      assert.deepEqual(
        Array.from(gi.toDataSync().toArray()),
        Array.from(wi.toDataSync().toArray()),
        `pool ${shape} indices`,
      );
      same(
        device,
        `pool ${shape} (no indices)`,
        (d) => functional.maxPool2d(tensor(shape, 180 + i, d) as Tensor<4, Float>, [2, 2], { stride: [2, 2] }),
        0,
        0,
      );
    }
    assert.equal((handled['maxPool2d'] ?? 0) - before, 6);
  });

  it('ReLU backward: the gradient where the output is > 0 or NaN, 0 at ±0 and below, odd lengths', () => {
    const before = handled['reluBackward'] ?? 0;
    for (const n of [1031, 4099]) {
      const x = [...values(n - 6, 190, 3), 0, -0, NaN, -Infinity, Infinity, 1e-40];
      const up = values(n, 191, 2);
      up[7] = -0;
      const grad = (d: Device): F => {
        const ad = d.autodiff();
        const t = Tensor.fromData<1, Float>(new TensorData(x, [n], 'f32'), ad).requireGrad();
        const g = t.grad(
          t
            .relu()
            .mul(Tensor.fromData<1, Float>(new TensorData(up, [n], 'f32'), ad))
            .sum()
            .backward(),
        )!;
        return Tensor.fromData<1, Float>(g.toDataSync(), d);
      };
      const got = grad(device).toDataSync().values as Float32Array,
        want = grad(js).toDataSync().values as Float32Array;
      assert.deepEqual(
        Array.from(got, (v) => (Object.is(v, -0) ? '-0' : v)),
        Array.from(want, (v) => (Object.is(v, -0) ? '-0' : v)),
        `relu gradient n=${n}`,
      );
    }
    assert.equal((handled['reluBackward'] ?? 0) - before, 2);
  });

  it('random draws: the same Philox values as the js engine (default, uniform, bernoulli; seeds, sizes, several draws)', () => {
    const before = handled['random'] ?? 0;
    const dists = [Distribution.Default, Distribution.Uniform(-3, 5), Distribution.Bernoulli(0.3)];
    for (const seed of [7, 4294967291]) {
      for (const n of [1029, 4099, 70001]) {
        device.seed(seed);
        js.seed(seed);
        for (const d of dists) {
          for (let k = 0; k < 2; k++) {
            const got = Tensor.random([n], d, { device }).toDataSync().values,
              want = Tensor.random([n], d, { device: js }).toDataSync().values;
            assert.deepEqual(got, want, `${d.kind} n=${n} seed=${seed} draw ${k}`);
          }
        }
      }
    }
    assert.equal((handled['random'] ?? 0) - before, 2 * 3 * 3 * 2);
  });

  it('unary ops over odd lengths and special values', () => {
    const special = [
      0,
      -0,
      1,
      -1,
      0.5,
      -0.5,
      2.5,
      -2.5,
      3.5,
      1e-3,
      -1e-3,
      10,
      -10,
      20,
      -20,
      50,
      88,
      88.7,
      89,
      -87,
      -100,
      -104,
      -200,
      1e-40,
      -1e-40,
      1e30,
      -1e30,
      Infinity,
      -Infinity,
      NaN,
      3.4e38,
      0.6249,
      0.6251,
      9,
      -9,
    ];
    const data = [...special, ...values(997, 90, 30)];
    const make = (d: Device): F => Tensor.fromData<1, Float>(new TensorData(data, [data.length], 'f32'), d);
    const pos = (d: Device): F => make(d).abs();
    const cases: [string, (d: Device) => F, number?][] = [
      ['neg', (d) => make(d).neg(), 0],
      ['abs', (d) => make(d).abs(), 0],
      ['sqrt', (d) => make(d).sqrt(), 0],
      ['recip', (d) => make(d).recip(), 0],
      ['floor', (d) => make(d).floor(), 0],
      ['ceil', (d) => make(d).ceil(), 0],
      ['trunc', (d) => make(d).trunc(), 0],
      ['round', (d) => make(d).round(), 0],
      ['sign', (d) => make(d).sign(), 0],
      ['exp', (d) => make(d).exp()],
      ['log', (d) => make(d).log()],
      ['log |x|', (d) => pos(d).log()],
      ['tanh', (d) => make(d).tanh()],
      ['sigmoid', (d) => make(d).sigmoid()],
    ];
    const before = handled['unary'] ?? 0;
    for (const [name, fn, rtol] of cases) {
      same(device, name, fn, rtol ?? 4e-7, rtol === 0 ? 0 : 1e-37);
      // Tails of every length below a vector.
      for (const n of [1, 2, 3, 5])
        same(device, `${name} n=${n}`, (d) => fn(d).slice([[7, 7 + n]]), rtol ?? 4e-7, rtol === 0 ? 0 : 1e-37);
    }
    assert.ok((handled['unary'] ?? 0) - before >= cases.length * 5);
  });

  it('binary and scalar ops, NaN included; a scalar that is not an f32 is applied in f64 as in js', () => {
    const a = [...values(1001, 100, 4), NaN, 1, -0, 0];
    const b = [...values(1001, 101, 4), 1, NaN, 0, -0];
    const make = (d: Device, v: number[]): F => Tensor.fromData<1, Float>(new TensorData(v, [v.length], 'f32'), d);
    const before = { binary: handled['binary'] ?? 0, scalar: handled['binaryScalar'] ?? 0 };
    const ops: [string, (x: F, y: F) => F][] = [
      ['add', (x, y) => x.add(y)],
      ['sub', (x, y) => x.sub(y)],
      ['mul', (x, y) => x.mul(y)],
      ['div', (x, y) => x.div(y)],
      ['max', (x, y) => x.maxPair(y)],
      ['min', (x, y) => x.minPair(y)],
    ];
    for (const [name, fn] of ops) same(device, name, (d) => fn(make(d, a), make(d, b)), 0, 0);
    for (const s of [2, 0.1, -3.7, 1e-8]) {
      same(device, `add ${s}`, (d) => make(d, a).add(s), 0, 0);
      same(device, `sub ${s}`, (d) => make(d, a).sub(s), 0, 0);
      same(device, `mul ${s}`, (d) => make(d, a).mul(s), 0, 0);
      same(device, `div ${s}`, (d) => make(d, a).div(s), 0, 0);
      same(device, `clampMin ${s}`, (d) => make(d, a).clampMin(s), 0, 0);
    }
    assert.ok((handled['binary'] ?? 0) - before.binary >= ops.length);
    assert.ok((handled['binaryScalar'] ?? 0) - before.scalar >= 16);
  });

  it('broadcast and strided binary ops: bias rows, column scales, transposed and flipped operands', () => {
    const before = handled['binaryStrided'] ?? 0;
    same(device, 'rows + bias', (d) => tensor([37, 53], 230, d).add(tensor([53], 231, d)), 0, 0);
    same(device, 'rows · column', (d) => tensor([37, 53], 232, d).mul(tensor([37, 1], 233, d)), 0, 0);
    same(device, 'column - rows', (d) => tensor([37, 1], 234, d).sub(tensor([37, 53], 235, d)), 0, 0);
    same(device, 'scalar-like / rows', (d) => tensor([1, 53], 236, d).div(tensor([6, 37, 53], 237, d)), 0, 0);
    same(
      device,
      'transposed max',
      (d) =>
        tensor([29, 31], 238, d)
          .transpose()
          .maxPair(tensor([31, 29], 239, d)),
      0,
      0,
    );
    same(
      device,
      'flipped min',
      (d) =>
        tensor([5, 7, 11], 240, d)
          .flip([1])
          .minPair(tensor([5, 7, 11], 241, d).flip([0, 2])),
      0,
      0,
    );
    same(
      device,
      'a + aᵀ',
      (d) => {
        const a = tensor([23, 23], 242, d);
        return a.add(a.transpose());
      },
      0,
      0,
    );
    same(device, 'outer sum', (d) => tensor([40, 1], 243, d).add(tensor([1, 41], 244, d)), 0, 0);
    assert.ok((handled['binaryStrided'] ?? 0) - before >= 7);
  });

  it('reductions over the last dim: sum, prod, max, min on odd rows and lengths, NaN', () => {
    const before = handled['reduceRows'] ?? 0;
    // [3, 70001]: rows longer than the streaming window reduce segment by segment.
    for (const [rows, len] of [
      [1, 1],
      [3, 3],
      [5, 17],
      [7, 64],
      [2, 1000],
      [33, 129],
      [3, 70001],
    ] as const) {
      const v = values(rows * len, rows * 31 + len, 2);
      if (len > 3) v[len + 2] = NaN;
      if (len > 70000) v[2 * len + 40000] = NaN;
      const make = (d: Device): F => Tensor.fromData<2, Float>(new TensorData(v, [rows, len], 'f32'), d);
      same(device, `sum ${rows}x${len}`, (d) => make(d).sumDim(1), 1e-5, 1e-5);
      same(
        device,
        `prod ${rows}x${len}`,
        (d) =>
          make(d)
            .slice([null, [0, Math.min(len, 24)]])
            .prodDim(1),
        1e-5,
        1e-6,
      );
      same(device, `max ${rows}x${len}`, (d) => make(d).maxDim(1), 0, 0);
      same(device, `min ${rows}x${len}`, (d) => make(d).minDim(1), 0, 0);
    }
    assert.ok((handled['reduceRows'] ?? 0) - before >= 21);
  });

  it('reductions over several dims end with the trailing ones as rows (a bias gradient: dims 0, 2, 3), NaN kept', () => {
    const before = handled['reduceRows'] ?? 0;
    const v = values(5 * 7 * 9 * 11, 260, 2);
    v[100] = NaN;
    const x = (d: Device): F => Tensor.fromData<4, Float>(new TensorData(v, [5, 7, 9, 11], 'f32'), d);
    const cases: [string, (t: F) => F, number][] = [
      ['sum 0,2,3', (t) => t.sumDims([0, 2, 3]), 1e-5],
      ['sum 2,3', (t) => t.sumDims([2, 3]), 1e-5],
      ['sum 1,3', (t) => t.sumDims([1, 3]), 1e-5],
      ['max 0,2,3', (t) => t.maxDims([0, 2, 3]), 0],
      ['min 0,3', (t) => t.minDims([0, 3]), 0],
      ['mean 0,2,3', (t) => t.meanDims([0, 2, 3]), 1e-5],
    ];
    for (const [label, op, tol] of cases) same(device, label, (d) => op(x(d)), tol, tol);
    assert.ok((handled['reduceRows'] ?? 0) - before >= 5);
  });

  it('softmax and log-softmax: odd lengths, large logits, -inf entries, other dims', () => {
    const before = handled['softmaxRows'] ?? 0;
    for (const [rows, len, scale] of [
      [1, 1, 1],
      [3, 5, 1],
      [4, 33, 10],
      [9, 257, 50],
      [2, 1000, 500],
      [2, 40000, 20],
    ] as const) {
      const v = values(rows * len, len, scale);
      if (len > 4) v[1] = -Infinity;
      const make = (d: Device): F => Tensor.fromData<2, Float>(new TensorData(v, [rows, len], 'f32'), d);
      same(device, `softmax ${rows}x${len}`, (d) => activation.softmax(make(d), 1), 1e-5, 1e-7);
      same(device, `logSoftmax ${rows}x${len}`, (d) => activation.logSoftmax(make(d), 1), 1e-5, 1e-5);
    }
    same(device, 'softmax over dim 0', (d) => activation.softmax(tensor([6, 5, 4], 110, d), 0), 1e-5, 1e-7);
    assert.ok((handled['softmaxRows'] ?? 0) - before >= 13);
  });

  it('f16 tensors run through the engine and round like js; f64 falls back to the js kernels', () => {
    same(
      device,
      'f16 matmul',
      (d) => tensor([9, 14], 120, d, 'f16').matmul(tensor([14, 6], 121, d, 'f16')),
      2e-3,
      2e-3,
    );
    same(device, 'f16 exp', (d) => tensor([50], 122, d, 'f16').exp(), 2e-3, 1e-4);
    const before = { ...handled };
    same(device, 'f64 matmul', (d) => tensor([9, 14], 123, d, 'f64').matmul(tensor([14, 6], 124, d, 'f64')), 0, 0);
    same(device, 'f64 exp', (d) => tensor([50], 125, d, 'f64').exp(), 0, 0);
    same(
      device,
      'f64 conv',
      (d) =>
        functional.conv2d(
          tensor([1, 2, 5, 5], 126, d, 'f64') as Tensor<4, Float>,
          tensor([3, 2, 3, 3], 127, d, 'f64') as Tensor<4, Float>,
        ),
      0,
      0,
    );
    same(device, 'f64 softmax', (d) => activation.softmax(tensor([3, 7], 128, d, 'f64'), 1), 0, 0);
    assert.deepEqual(handled, before, 'no f64 op reached the engine');
  });

  it('tiny tensors stay on the js kernels on the default wasm device', () => {
    const { device: standard, handled: counts } = counting(wasmEngine());
    const a = tensor([2, 2], 130, standard),
      b = tensor([2, 2], 131, standard);
    close(a.add(b), tensor([2, 2], 130, js).add(tensor([2, 2], 131, js)), 'add 2x2', 0, 0);
    close(a.matmul(b), tensor([2, 2], 130, js).matmul(tensor([2, 2], 131, js)), 'matmul 2x2', 0, 0);
    close(a.exp(), tensor([2, 2], 130, js).exp(), 'exp 2x2', 0, 0);
    assert.deepEqual(counts, {});
    // Large ones do not.
    tensor([64, 64], 132, standard).matmul(tensor([64, 64], 133, standard));
    tensor([100000], 134, standard).exp();
    assert.deepEqual(counts, { gemm: 1, unary: 1 });
  });

  it('worker threads: every kernel split over 3 threads matches the single-threaded result', async () => {
    const compiled = compileSync('mt');
    assert.ok('module' in compiled, 'reason' in compiled ? compiled.reason : '');
    const rt3 = new WasmRuntime(compiled, 3);
    try {
      assert.equal(rt3.threads, 3);
      const { device: threaded, handled: counts } = counting(new WasmEngine(rt3, { ...ALL, minParallel: 0 }));
      for (let round = 0; round < 3; round++) {
        same(
          threaded,
          'matmul',
          (d) => tensor([150, 70], 140 + round, d).matmul(tensor([70, 300], 141, d)),
          1e-5,
          2e-5,
        );
        same(
          threaded,
          'batched matmul',
          (d) => tensor([6, 20, 30], 142, d).matmul(tensor([6, 40, 30], 143, d).swapDims(1, 2)),
          1e-5,
          2e-5,
        );
        same(
          threaded,
          'conv',
          (d) =>
            functional.conv2d(
              tensor([5, 6, 11, 13], 144, d) as Tensor<4, Float>,
              tensor([8, 3, 3, 3], 145, d) as Tensor<4, Float>,
              tensor([8], 146, d) as Tensor<1, Float>,
              { padding: 1, groups: 2 },
            ),
          1e-5,
          2e-5,
        );
        same(threaded, 'exp', (d) => tensor([70001], 147, d, 'f32', 10).exp(), 4e-7, 0);
        same(threaded, 'add', (d) => tensor([70001], 148, d).add(tensor([70001], 149, d)), 0, 0);
        same(threaded, 'mul scalar', (d) => tensor([70001], 150, d).mul(0.3), 0, 0);
        same(threaded, 'sum rows', (d) => tensor([301, 77], 151, d).sumDim(1), 1e-5, 1e-5);
        same(threaded, 'softmax', (d) => activation.softmax(tensor([301, 77], 152, d, 'f32', 5), 1), 1e-5, 1e-7);
        same(
          threaded,
          'max pool',
          (d) => functional.maxPool2d(tensor([3, 7, 12, 12], 153, d) as Tensor<4, Float>, 2),
          0,
          0,
        );
        same(
          threaded,
          'random',
          (d) => {
            d.seed(11 + round);
            return Tensor.random([70001], Distribution.Uniform(-1, 2), { device: d });
          },
          0,
          0,
        );
        same(
          threaded,
          'conv transpose',
          (d) =>
            functional.convTranspose2d(
              tensor([4, 6, 9, 9], 154, d) as Tensor<4, Float>,
              tensor([6, 4, 3, 3], 155, d) as Tensor<4, Float>,
              tensor([8], 156, d) as Tensor<1, Float>,
              { stride: 2, padding: 1, groups: 2 },
            ),
          1e-5,
          2e-5,
        );
      }
      assert.equal(counts['gemm'], 6);
      assert.equal(counts['conv2d'], 3);
      assert.equal(counts['maxPool2d'], 3);
      assert.equal(counts['random'], 3);
      assert.equal(counts['convTranspose2d'], 3);
      // The workers take jobs (they start asynchronously and a loaded machine may delay them, so
      // give them a few chances).
      const a = tensor([256, 256], 157, threaded),
        b = tensor([256, 256], 158, threaded);
      for (
        let i = 0;
        i < 50 &&
        rt3
          .jobsRun()
          .slice(1)
          .every((n) => n === 0);
        i++
      ) {
        a.matmul(b);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(
        rt3
          .jobsRun()
          .slice(1)
          .some((n) => n > 0),
        `jobs per thread: ${rt3.jobsRun()}`,
      );
      // The hooks of a large product: A's copy once before the jobs of the first task (packing B),
      // then every block of rows of C reported once, the workers' included, and copied out.
      const tasks: { jobs: number; before: number; done: number[] }[] = [];
      const run = rt3.run.bind(rt3);
      rt3.run = (kind, args, jobs, parallel, hooks) => {
        if (!hooks) return run(kind, args, jobs, parallel);
        const rec = { jobs, before: 0, done: [] as number[] };
        tasks.push(rec);
        const { beforeJobs, jobDone } = hooks;
        run(kind, args, jobs, parallel, {
          beforeJobs: beforeJobs && (() => (rec.before++, beforeJobs())),
          jobDone: jobDone && ((job) => (rec.done.push(job), jobDone(job))),
        });
      };
      same(
        threaded,
        'matmul, copies overlapped',
        (d) => tensor([600, 64], 159, d).matmul(tensor([64, 96], 160, d)),
        1e-5,
        2e-5,
      );
      assert.equal(tasks.length, 2);
      assert.deepEqual([tasks[0]!.before, tasks[0]!.done.length], [1, 0]);
      assert.deepEqual(
        [tasks[1]!.before, [...tasks[1]!.done].sort((x, y) => x - y)],
        [0, Array.from({ length: tasks[1]!.jobs }, (_, j) => j)],
      );
    } finally {
      rt3.close();
    }
  });

  it('memory stays flat over a long training-like loop without dispose()', () => {
    const d = Device.cpu({ engine: 'wasm' });
    const rt = wasmRuntime()!;
    const x = tensor([32, 1, 28, 28], 160, d);
    const w1 = tensor([8, 1, 3, 3], 161, d, 'f32', 0.3),
      w2 = tensor([8 * 13 * 13, 10], 162, d, 'f32', 0.05);
    const step = (): number => {
      const h = functional.maxPool2d(functional.conv2d(x as Tensor<4, Float>, w1 as Tensor<4, Float>).relu(), 2);
      const logits = h
        .reshape([32, 8 * 13 * 13])
        .matmul(w2)
        .tanh();
      return activation.logSoftmax(logits, 1).sum().intoScalarSync() as number;
    };
    const first = step();
    for (let i = 0; i < 3; i++) step();
    const wasmBytes = rt.memoryBytes;
    const rss = process.memoryUsage().rss;
    for (let i = 0; i < 300; i++) assert.equal(step(), first);
    assert.equal(rt.memoryBytes, wasmBytes, 'the WebAssembly memory did not grow');
    const grown = process.memoryUsage().rss - rss;
    assert.ok(grown < 256 * 2 ** 20, `process memory grew by ${(grown / 2 ** 20).toFixed(0)} MiB over 300 steps`);
  });

  it('copies in and out of the module memory (shared and plain) keep every value, at any offset, after growth too', () => {
    for (const variant of ['mt', 'st'] as const) {
      const compiled = compileSync(variant);
      assert.ok('module' in compiled, 'reason' in compiled ? compiled.reason : '');
      const rt = new WasmRuntime(compiled, variant === 'mt' ? 2 : 1);
      try {
        const src = Float32Array.from({ length: 4099 }, (_, i) => i * 0.5 - 7);
        const ints = Int32Array.from({ length: 1001 }, (_, i) => (i * 2654435761) | 0);
        const check = (): void => {
          rt.reset();
          // Offsets that leave the two sides' addresses differently aligned (3 elements in, 64-byte arena blocks).
          const at = rt.copyIn(src, 3, 4099),
            iat = rt.alloc(ints.length * 4);
          rt.write(iat, ints, 0, ints.length);
          rt.write(iat, ints, 5, 5); // empty: nothing written, no error
          assert.deepEqual(
            Array.from(rt.f32.subarray(at >>> 2, (at >>> 2) + 4096)),
            Array.from(src.subarray(3)),
            variant,
          );
          const out = new Float32Array(4200).fill(9);
          rt.read(at, out, 4096, 101);
          assert.deepEqual(Array.from(out.subarray(101, 4197)), Array.from(src.subarray(3)), variant);
          assert.deepEqual([out[100], out[4197]], [9, 9], `${variant}: nothing outside the range is written`);
          const back = new Int32Array(ints.length + 2);
          rt.read(iat, back, ints.length, 1);
          rt.read(iat, back, 0, 0);
          assert.deepEqual(Array.from(back.subarray(1, ints.length + 1)), Array.from(ints), variant);
        };
        check();
        // After the memory grows its views are new; the copies must follow them.
        const before = rt.memoryBytes;
        rt.reset();
        assert.ok(rt.alloc(before + 65536) >= 0);
        assert.ok(rt.memoryBytes > before);
        check();
      } finally {
        rt.close();
      }
    }
  });

  it('the memory grows to the largest single call, not with the number of calls', () => {
    const compiled = compileSync('st');
    assert.ok('module' in compiled);
    const rt1 = new WasmRuntime(compiled, 1);
    const { device: d1 } = counting(new WasmEngine(rt1, ALL));
    tensor([400, 400], 170, d1).matmul(tensor([400, 400], 171, d1));
    const peak = rt1.memoryBytes;
    for (let i = 0; i < 50; i++)
      tensor([300, 300], 172 + i, d1)
        .matmul(tensor([300, 300], 171, d1))
        .exp();
    assert.equal(rt1.memoryBytes, peak);
  });
});

describe('wasm engine selection', () => {
  const run = (args: string[], env: Record<string, string>, code: string) =>
    spawnSync(process.execPath, [...args, '--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });

  it('BURN_CPU_ENGINE=wasm chooses it, BURN_NUM_THREADS sets the threads', { skip }, () => {
    const code = `import { Device } from './src/index.js'; import { wasmRuntime } from './src/backends/cpu/wasm/index.js';
console.log(Device.cpu().toString(), wasmRuntime().threads, wasmRuntime().variant);`;
    const three = run([], { BURN_CPU_ENGINE: 'wasm', BURN_NUM_THREADS: '3' }, code);
    assert.equal(three.stdout.trim(), 'cpu(wasm) 3 mt', three.stderr);
    const one = run([], { BURN_CPU_ENGINE: 'wasm', BURN_NUM_THREADS: '1' }, code);
    assert.equal(one.stdout.trim(), 'cpu(wasm) 1 st', one.stderr);
  });

  it('a bad BURN_NUM_THREADS is a BurnError naming the value', () => {
    const r = run(
      [],
      { BURN_NUM_THREADS: 'many' },
      `import { Device } from './src/index.js';
try { Device.cpu({ engine: 'wasm' }); } catch (e) { console.log(e.name + ': ' + e.message); }`,
    );
    assert.match(r.stdout, /BurnError: Device\.cpu: BURN_NUM_THREADS=many; expected a positive integer/, r.stderr);
  });

  it('forcing wasm where WebAssembly is missing throws a BurnError that says why', () => {
    const r = run(
      ['--jitless'],
      {},
      `import { Device, BurnError } from './src/index.js';
try { Device.cpu({ engine: 'wasm' }); console.log('no error'); } catch (e) { console.log(String(e instanceof BurnError) + ' ' + e.message); }`,
    );
    assert.match(
      r.stdout,
      /^true Device\.cpu: the 'wasm' engine is not available: this JavaScript environment has no WebAssembly/,
      r.stderr,
    );
    assert.ok(BurnError);
  });
});
