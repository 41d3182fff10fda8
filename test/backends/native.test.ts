// The `native` CPU engine (native/, a Node addon) against the `js` engine: every accelerated
// kernel on many shapes (odd sizes around the SIMD widths, non-contiguous and broadcast inputs,
// tiny and large tensors, f32 and f64), once per instruction set this CPU has (AVX-512, AVX2,
// generic), plus device selection, threads and the addon's argument checks.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BINARY_OPS, COMPARE_OPS, REDUCE_OPS, UNARY_OPS } from '../../src/backend/ops.js';
import {
  NativeEngine,
  nativeAddon,
  nativeOpCodes,
  nativeUnavailableReason,
  type NativeAddon,
} from '../../src/backends/cpu/native/index.js';
import { Device, Distribution, Tensor, TensorData, functional, type DType, type Float } from '../../src/index.js';
import { nativeTestDevice } from '../helpers/devices.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

const addon = nativeAddon();
const strict = process.env['BURN_TEST_STRICT'] === '1';
const js = Device.cpu({ engine: 'js' });
type T = Tensor<number, Float>;

/** Deterministic values in [-1, 1) (a 32-bit LCG), `specials` mixed in at fixed positions. */
function values(n: number, seed: number, specials: readonly number[] = []): number[] {
  let s = (seed * 2654435761) >>> 0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  specials.forEach((v, k) => {
    if (n > 0) out[(k * 7919) % n] = v;
  });
  return out;
}

const numel = (shape: readonly number[]): number => shape.reduce((a, s) => a * s, 1);

/** The same tensor on both devices. */
function pair(
  shape: readonly number[],
  seed: number,
  dtype: DType = 'f32',
  scale = 1,
  specials: readonly number[] = [],
): [T, T] {
  const data = values(numel(shape), seed, specials).map((v) =>
    Number.isFinite(v) && Math.abs(v) <= 1 ? v * scale : v,
  );
  const td = new TensorData(dtype === 'f64' ? Float64Array.from(data) : Float32Array.from(data), [...shape], dtype);
  return [Tensor.fromData<number, Float>(td, js), Tensor.fromData<number, Float>(td, native())];
}

function native(): Device {
  const d = nativeTestDevice();
  if (!d) throw new Error(`native engine unavailable: ${nativeUnavailableReason()}`);
  return d;
}

/** |native − js| ≤ atol + rtol·|js| (+ `bound[i]`), NaN matching NaN and infinities exact. */
function expectNear(
  got: T,
  want: T,
  label: string,
  tol: { rtol?: number; atol?: number; bound?: ArrayLike<number> } = {},
): void {
  const g = got.toDataSync(),
    w = want.toDataSync();
  assert.deepEqual(g.shape, w.shape, `${label}: shape`);
  assert.equal(g.dtype, w.dtype, `${label}: dtype`);
  const a = g.values as Float32Array,
    b = w.values as Float32Array;
  const rtol = tol.rtol ?? 0,
    atol = tol.atol ?? 0;
  for (let i = 0; i < b.length; i++) {
    const x = a[i]!,
      y = b[i]!;
    if (Number.isNaN(y)) {
      assert.ok(Number.isNaN(x), `${label}[${i}]: ${x}, expected NaN`);
      continue;
    }
    if (!Number.isFinite(y)) {
      assert.equal(x, y, `${label}[${i}]`);
      continue;
    }
    const limit = atol + rtol * Math.abs(y) + (tol.bound ? tol.bound[i]! : 0);
    if (!(Math.abs(x - y) <= limit)) assert.fail(`${label}[${i}]: native ${x}, js ${y} (limit ${limit})`);
  }
}

/** f32 accumulation bound of a product over k terms: 2·k·2⁻²⁴·Σ|a||b| (`absProduct` on the js device). */
function productBound(absProduct: T, k: number, dtype: DType): Float64Array {
  const eps = dtype === 'f64' ? 2 ** -53 : 2 ** -24;
  return Float64Array.from(absProduct.toDataSync().values as Float32Array, (v) => 2 * (k + 2) * eps * v + 1e-30);
}

const ULP32 = 2 ** -23;
const EDGE = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1e-30,
  -1e-30,
  3e38,
  -3e38,
  Infinity,
  -Infinity,
  NaN,
  88.7,
  -88.7,
  100,
  -100,
  1e-40,
];

const isas = addon ? ['avx512', 'avx2', 'generic'].filter((isa) => addon.setIsa(isa)) : [];
const defaultIsa = addon?.info().isa;
if (addon && defaultIsa) addon.setIsa(defaultIsa);

describe('native engine availability', () => {
  it('the addon loads (built by npm install)', {
    skip: !addon && !strict ? `native engine unavailable: ${nativeUnavailableReason()}` : false,
  }, () => {
    assert.ok(addon, `native engine unavailable: ${nativeUnavailableReason()}`);
    const info = addon.info();
    assert.ok(['avx512', 'avx2', 'generic'].includes(info.isa), info.isa);
    assert.ok(info.threads >= 1);
  });

  it("the addon's op codes are matched by name: every addon op is a known name, distinct codes, and the ops the engine accelerates are there", {
    skip: !addon && !strict ? `native engine unavailable: ${nativeUnavailableReason()}` : false,
  }, () => {
    assert.ok(addon);
    const codes = nativeOpCodes(addon.ops);
    for (const family of ['unary', 'binary', 'reduce', 'compare'] as const) {
      const table: Readonly<Record<string, number>> = addon.ops[family];
      const all = Object.values(table);
      assert.equal(new Set(all).size, all.length, `${family}: distinct codes`);
      assert.deepEqual(
        [...all].sort((a, b) => a - b),
        all.map((_, i) => i),
        `${family}: codes 0..n-1`,
      );
      for (const [name, code] of Object.entries(table))
        assert.equal((codes[family] as Record<string, number | undefined>)[name], code, `${family}.${name}`);
    }
    // What the engine offered before the codes were matched by name: still all there.
    for (const op of UNARY_OPS.filter((o) => o !== 'not'))
      assert.equal(typeof codes.unary[op], 'number', `unary ${op}`);
    for (const op of BINARY_OPS.slice(0, 10)) assert.equal(typeof codes.binary[op], 'number', `binary ${op}`);
    assert.equal(typeof codes.binary.reluGrad, 'number');
    for (const op of REDUCE_OPS.slice(0, 4)) assert.equal(typeof codes.reduce[op], 'number', `reduce ${op}`);
    for (const op of COMPARE_OPS) assert.equal(typeof codes.compare[op], 'number', `compare ${op}`);
    // Ops the addon lacks are declined (undefined), never given another op's code.
    assert.equal(codes.unary.not, undefined);
    assert.equal(codes.binary.and, undefined);
    assert.equal(codes.reduce.any, undefined);
  });

  it('an op name the TypeScript side does not know is an error; an op the addon lacks is declined to the js kernels', () => {
    const ops = { unary: { exp: 0 }, binary: { add: 0 }, reduce: { sum: 0 }, compare: { eq: 0 } };
    assert.throws(() => nativeOpCodes({ ...ops, unary: { exp: 0, frobnicate: 1 } }), /ops\.unary.*frobnicate/);
    assert.throws(() => nativeOpCodes({ ...ops, binary: { add: 0, 'add ': 1 } }), /ops\.binary/);
    assert.throws(() => nativeOpCodes({ ...ops, compare: { eq: -1 } }), /eq is -1/);
    // A fake addon with only exp and add: exp goes to it with its code, log (absent) is declined.
    const calls: string[] = [];
    const fake = {
      ops,
      setIsa: () => true,
      unary: (code: number) => calls.push(`unary ${code}`),
      binary: (code: number) => calls.push(`binary ${code}`),
    } as unknown as NativeAddon;
    const engine = new NativeEngine(fake, { minElements: 0, minCostlyElements: 0 });
    const a = new Float32Array(4);
    assert.equal(engine.unary('exp', a, a, 0, 4), a);
    assert.equal(engine.unary('log', a, a, 0, 4), undefined);
    assert.equal(engine.binary('add', a, a, 0, a, 0, 4), a);
    assert.equal(engine.binary('sub', a, a, 0, a, 0, 4), undefined);
    assert.equal(engine.reluBackward(a, a, 0, a, 0, 4), undefined);
    assert.deepEqual(calls, ['unary 0', 'binary 0']);
  });
});

if (addon) {
  describe('native engine: device selection', () => {
    it('Device.cpu() picks native; engines are chosen by name or BURN_CPU_ENGINE', () => {
      assert.equal(Device.cpu().toString(), 'cpu(native)');
      assert.equal(Device.cpu({ engine: 'native' }), Device.cpu());
      assert.equal(Device.cpu({ engine: 'js' }).toString(), 'cpu(js)');
      const src = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
      for (const [engine, expected] of [
        ['js', 'cpu(js)'],
        ['native', 'cpu(native)'],
      ] as const) {
        const r = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            `const { Device } = await import(${JSON.stringify(src)}); process.stdout.write(Device.cpu().toString());`,
          ],
          { env: { ...process.env, BURN_CPU_ENGINE: engine }, encoding: 'utf8' },
        );
        assert.equal(r.stdout, expected, r.stderr);
      }
    });

    it('without addons (node --no-addons) native is unavailable: a BurnError says why, the default falls back with one line', () => {
      const src = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
      const script = `const { Device, BurnError } = await import(${JSON.stringify(src)});
        let error = '';
        try { Device.cpu({ engine: 'native' }); } catch (e) { error = (e instanceof BurnError ? 'BurnError ' : '') + e.message; }
        const d1 = Device.cpu().toString(), d2 = Device.cpu().toString();
        process.stdout.write(JSON.stringify({ error, d1, d2 }));`;
      const r = spawnSync(process.execPath, ['--no-addons', '--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, BURN_CPU_ENGINE: '' },
        encoding: 'utf8',
      });
      const out = JSON.parse(r.stdout || '{}') as { error: string; d1: string; d2: string };
      assert.match(
        out.error,
        /^BurnError Device\.cpu: the 'native' engine is not available: the addon failed to load: .*addons/i,
        r.stderr,
      );
      assert.notEqual(out.d1, 'cpu(native)');
      assert.equal(out.d1, out.d2);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('burn-ts:'));
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /native CPU engine is unavailable \(the addon failed to load/);
    });

    it('small ops stay on the js kernels and give the same values', () => {
      const a = Tensor.fromFloats(
        [
          [1, 2],
          [3, 4],
        ],
        Device.cpu(),
      );
      assert.deepEqual(
        Array.from(a.add(a).exp().toDataSync().values as Float32Array),
        [2, 4, 6, 8].map((v) => Math.fround(Math.exp(v))),
      );
    });

    it('BURN_NUM_THREADS sets the pool size; results do not depend on it', () => {
      const src = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
      const script = `const { Device, Tensor, TensorData } = await import(${JSON.stringify(src)});
        const { nativeAddon } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/backends/cpu/native/index.ts', import.meta.url)))});
        const d = Device.cpu({ engine: 'native' });
        const v = Float32Array.from({ length: 300 * 300 }, (_, i) => Math.sin(i));
        const a = Tensor.fromData(new TensorData(v, [300, 300], 'f32'), d);
        const s = a.matmul(a).sum().toDataSync().values[0];
        // A convolution's weight gradient is summed in a fixed order: bit-identical on any thread count.
        const { functional } = await import(${JSON.stringify(src)});
        const ad = d.autodiff();
        const x = Tensor.fromData(new TensorData(Float32Array.from({ length: 16 * 4 * 20 * 20 }, (_, i) => Math.cos(i * 0.37)), [16, 4, 20, 20], 'f32'), ad);
        const w = Tensor.fromData(new TensorData(Float32Array.from({ length: 8 * 4 * 9 }, (_, i) => Math.sin(i * 0.11)), [8, 4, 3, 3], 'f32'), ad).requireGrad();
        const y = functional.conv2d(x, w);
        const dw = Array.from(w.grad(y.mul(y).sum().backward()).toDataSync().values).join(',');
        process.stdout.write(nativeAddon().info().threads + ' ' + s + ' ' + dw);`;
      const runs = [1, 3].map((n) =>
        spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          env: { ...process.env, BURN_NUM_THREADS: String(n) },
          encoding: 'utf8',
        }),
      );
      assert.deepEqual(
        runs.map((r) => r.stdout.split(' ')[0]),
        ['1', '3'],
        runs.map((r) => r.stderr).join('\n'),
      );
      const sums = runs.map((r) => Number(r.stdout.split(' ')[1]));
      assert.ok(Math.abs(sums[0]! - sums[1]!) <= 1e-3 * Math.abs(sums[0]!), `sums ${sums}`);
      const grads = runs.map((r) => r.stdout.split(' ')[2]);
      assert.ok(grads[0]!.split(',').length === 288, grads[0]);
      assert.equal(grads[1], grads[0], 'conv weight gradient on 3 threads vs 1');
    });

    it('the addon rejects out-of-range arguments instead of touching memory', () => {
      const a = new Float32Array(8),
        out = new Float32Array(8);
      assert.throws(() => addon.binary(0, out, a, 4, a, 0, 8), /binary: bad arguments/);
      assert.throws(() => addon.unary(99, out, a, 0, 8), /unary: bad arguments/);
      assert.throws(() => addon.binary(0, out, new Float64Array(8), 0, a, 0, 8), /one type/);
      assert.throws(
        () => addon.gemm(Float64Array.from([3, 3, 3, 3, 1, 3, 1, 1, 0, 0]), a, a, out),
        /gemm: output too small|operand out of range/,
      );
      assert.throws(
        () => addon.copyStrided(Float64Array.from([1, 9, 0, 1, 0, 1]), out, a),
        /copyStrided: bad arguments/,
      );
    });
  });
}

for (const isa of isas) {
  describe(`native engine (${isa}) matches the js engine`, () => {
    before(() => assert.ok(addon!.setIsa(isa)));
    after(() => {
      addon!.setIsa(defaultIsa!);
    });

    for (const dtype of ['f32', 'f64'] as const) {
      it(`matmul ${dtype}: odd sizes, transposed and flipped operands, batch broadcasting`, () => {
        const cases: [number[], number[], (x: T) => T, (y: T) => T][] = [
          [[1, 1], [1, 1], (x) => x, (y) => y],
          [[3, 5], [5, 2], (x) => x, (y) => y],
          [[7, 13], [13, 17], (x) => x, (y) => y],
          [[33, 65], [65, 31], (x) => x, (y) => y],
          [[97, 513], [513, 65], (x) => x, (y) => y],
          [[150, 70], [70, 300], (x) => x, (y) => y],
          [[16, 3000], [3000, 24], (x) => x, (y) => y], // long K: split over K
          [[64, 2304], [2304, 70], (x) => x, (y) => y], // long K beside wide M and N: split over K too
          [[13, 40], [29, 40], (x) => x, (y) => y.transpose()],
          [[40, 13], [40, 29], (x) => x.transpose(), (y) => y],
          [[40, 13], [29, 40], (x) => x.transpose(), (y) => y.transpose()],
          [[21, 34], [34, 19], (x) => x.flip([0, 1]), (y) => y.flip([1])],
          [
            [70, 90],
            [160, 30],
            (x) =>
              x.slice([
                [0, 70, 2],
                [5, 85],
              ]),
            (y) => y.slice([[0, 160, 2], null]),
          ],
          [[3, 1, 9, 14], [1, 4, 14, 11], (x) => x, (y) => y],
          [[5, 66, 70], [70, 130], (x) => x, (y) => y],
          [[40, 200], [200, 256], (x) => x, (y) => y], // split over N, one column range per thread
          [[20, 64], [64, 2200], (x) => x, (y) => y], // split over N, two wide column ranges per thread (the last one partial)
          [[2, 3, 12, 20], [2, 3, 11, 20], (x) => x, (y) => y.transpose()],
        ];
        cases.forEach(([sa, sb, fa, fb], i) => {
          const [aj, an] = pair(sa, 10 + i, dtype),
            [bj, bn] = pair(sb, 50 + i, dtype);
          const want = fa(aj).matmul(fb(bj));
          const k = fa(aj).dims().at(-1)!;
          const bound = productBound(fa(aj).abs().matmul(fb(bj).abs()), k, dtype);
          expectNear(fa(an).matmul(fb(bn)), want, `matmul #${i} ${sa}×${sb}`, { bound });
        });
      });

      it(`elementwise binary ${dtype}: every op, sizes around the vector width, edge values`, () => {
        const ops = ['add', 'sub', 'mul', 'div', 'remainder', 'fmod', 'powf', 'atan2', 'max', 'min'] as const;
        for (const n of [1, 15, 16, 17, 33, 257, 5000, 70001]) {
          const [aj, an] = pair([n], n, dtype, 4, EDGE),
            [bj, bn] = pair([n], n + 1, dtype, 4, [...EDGE].reverse());
          for (const op of ops) {
            const f = (x: T, y: T): T =>
              op === 'max'
                ? x.maxPair(y)
                : op === 'min'
                  ? x.minPair(y)
                  : op === 'remainder'
                    ? x.remainder(y)
                    : op === 'fmod'
                      ? x.fmod(y)
                      : op === 'powf'
                        ? x.powf(y)
                        : op === 'atan2'
                          ? x.atan2(y)
                          : x[op](y);
            const exact =
              op === 'add' ||
              op === 'sub' ||
              op === 'mul' ||
              op === 'div' ||
              op === 'max' ||
              op === 'min' ||
              op === 'fmod';
            expectNear(
              f(an, bn),
              f(aj, bj),
              `${op} n=${n}`,
              exact ? {} : { rtol: dtype === 'f64' ? 1e-14 : ULP32, atol: 1e-300 },
            );
          }
        }
      });

      it(`elementwise ${dtype} on outputs beyond the caches (non-temporal stores), from misaligned views`, () => {
        // 8 MiB and more of output switches the kernels to streaming stores after an aligned peel.
        const n = (dtype === 'f32' ? 2 : 1) * (1 << 20) + 37;
        for (const offset of [0, 1, 3]) {
          const [aj, an] = pair([n + offset], 91 + offset, dtype, 4),
            [bj, bn] = pair([n + offset], 92 + offset, dtype, 4);
          const view = (x: T): T => x.slice([[offset, n + offset]]);
          expectNear(view(an).add(view(bn)), view(aj).add(view(bj)), `add offset ${offset}`);
          expectNear(view(an).mul(0.1), view(aj).mul(0.1), `mul scalar offset ${offset}`);
          expectNear(view(an).neg(), view(aj).neg(), `neg offset ${offset}`);
          expectNear(view(an).exp(), view(aj).exp(), `exp offset ${offset}`, {
            rtol: dtype === 'f64' ? 2e-15 : 2 * ULP32,
            atol: 1e-37,
          });
        }
      });

      it(`elementwise with a scalar ${dtype}: exact and inexact scalars`, () => {
        for (const n of [7, 64, 1001, 100003]) {
          const [aj, an] = pair([n], 3 * n, dtype, 10, EDGE);
          for (const s of [2, 0.1, -3.5, 1e-8, 0, Infinity, NaN]) {
            expectNear(an.add(s), aj.add(s), `add ${s} n=${n}`);
            expectNear(an.sub(s), aj.sub(s), `sub ${s} n=${n}`);
            expectNear(an.mul(s), aj.mul(s), `mul ${s} n=${n}`);
            expectNear(an.div(s), aj.div(s), `div ${s} n=${n}`);
            expectNear(an.clampMin(s), aj.clampMin(s), `clampMin ${s} n=${n}`);
            expectNear(an.powf(s), aj.powf(s), `powf ${s} n=${n}`, { rtol: dtype === 'f64' ? 1e-14 : ULP32 });
          }
        }
      });

      it(`elementwise with broadcasting and strided operands ${dtype}`, () => {
        const cases: [number[], number[], (x: T) => T, (y: T) => T][] = [
          [[64, 300], [300], (x) => x, (y) => y],
          [[8, 16, 9, 11], [1, 16, 1, 1], (x) => x, (y) => y],
          [[8, 16, 9, 11], [8, 16, 1, 11], (x) => x, (y) => y],
          [[300, 1], [1, 70], (x) => x, (y) => y],
          [[90, 70], [70, 90], (x) => x, (y) => y.transpose()],
          [
            [60, 200],
            [60, 200],
            (x) => x.flip([1]),
            (y) =>
              y.slice([
                [0, 60],
                [0, 200],
              ]),
          ],
        ];
        cases.forEach(([sa, sb, fa, fb], i) => {
          const [aj, an] = pair(sa, 7 + i, dtype),
            [bj, bn] = pair(sb, 70 + i, dtype);
          for (const op of ['add', 'sub', 'mul', 'div'] as const)
            expectNear(fa(an)[op](fb(bn)), fa(aj)[op](fb(bj)), `${op} #${i}`);
          expectNear(fb(bn).sub(fa(an)), fb(bj).sub(fa(aj)), `reversed sub #${i}`);
          expectNear(fa(an).maxPair(fb(bn)), fa(aj).maxPair(fb(bj)), `max #${i}`);
        });
      });

      it(`elementwise unary ${dtype}: every op on edge values and odd sizes`, () => {
        const ops = [
          'neg',
          'abs',
          'sign',
          'exp',
          'expm1',
          'log',
          'log1p',
          'sqrt',
          'recip',
          'sigmoid',
          'sin',
          'cos',
          'tan',
          'asin',
          'acos',
          'atan',
          'sinh',
          'cosh',
          'tanh',
          'asinh',
          'acosh',
          'atanh',
          'erf',
          'round',
          'floor',
          'ceil',
          'trunc',
        ] as const;
        // Vectorized f32 exp/log/tanh/sigmoid are within 2 ulp, erf within 6; the others compute as JavaScript does.
        const approx = new Set(['exp', 'log', 'tanh', 'sigmoid']);
        for (const n of [1, 17, 255, 4099, 65537]) {
          for (const scale of [1, 30]) {
            const [aj, an] = pair([n], n + scale, dtype, scale, EDGE);
            for (const op of ops) {
              // f64: glibc's libm against V8's (and the js engine's own erf series): a few ulp.
              const tol =
                dtype === 'f32' && op === 'erf'
                  ? { rtol: 6 * ULP32, atol: 1e-45 }
                  : dtype === 'f32' && approx.has(op)
                    ? { rtol: 2 * ULP32, atol: 1e-37 }
                    : dtype === 'f64'
                      ? { rtol: 2e-15, atol: 1e-300 }
                      : { rtol: ULP32 / 2, atol: 1e-45 };
              expectNear(an[op](), aj[op](), `${op} n=${n} scale=${scale}`, tol);
            }
          }
        }
      });

      it(`reductions over the last dim ${dtype}: sum, prod, max, min, with NaN and long rows`, () => {
        for (const shape of [
          [1, 1],
          [3, 17],
          [64, 1000],
          [1, 1000003],
          [2, 300001],
          [1000, 33],
        ]) {
          const [aj, an] = pair(shape, shape[1]!, dtype, 1, shape[1]! > 1000 ? [] : [NaN]);
          expectNear(an.sumDim(1), aj.sumDim(1), `sum ${shape}`, { rtol: dtype === 'f64' ? 1e-12 : ULP32, atol: 1e-9 });
          expectNear(an.add(1).prodDim(1), aj.add(1).prodDim(1), `prod ${shape}`, {
            rtol: dtype === 'f64' ? 1e-12 : 4 * ULP32,
            atol: 1e-30,
          });
          expectNear(an.maxDim(1), aj.maxDim(1), `max ${shape}`);
          expectNear(an.minDim(1), aj.minDim(1), `min ${shape}`);
          expectNear(an.sum(), aj.sum(), `sum all ${shape}`, { rtol: dtype === 'f64' ? 1e-12 : ULP32, atol: 1e-7 });
        }
      });

      it(`reductions over any dims ${dtype}: outer, middle, several, strided inputs`, () => {
        const [aj, an] = pair([9, 16, 13, 17], 31, dtype, 1, [NaN]);
        const [bj, bn] = pair([64, 16, 24, 24], 32, dtype);
        const tol = { rtol: dtype === 'f64' ? 1e-12 : ULP32, atol: 1e-6 };
        for (const [x, y] of [
          [an, aj],
          [bn, bj],
          [an.permute([2, 0, 3, 1]), aj.permute([2, 0, 3, 1])],
          [bn.flip([1]), bj.flip([1])],
        ] as [T, T][]) {
          for (const dims of [[0], [1], [2], [0, 2, 3], [0, 1], [1, 3], [0, 1, 2, 3]]) {
            expectNear(x.sumDims(dims), y.sumDims(dims), `sumDims ${dims} of ${x.dims()}`, tol);
            expectNear(x.maxDims(dims), y.maxDims(dims), `maxDims ${dims} of ${x.dims()}`);
            expectNear(x.minDims(dims), y.minDims(dims), `minDims ${dims} of ${x.dims()}`);
            expectNear(
              x.mul(0.001).add(1).prodDims(dims),
              y.mul(0.001).add(1).prodDims(dims),
              `prodDims ${dims} of ${x.dims()}`,
              { rtol: dtype === 'f64' ? 1e-12 : 8 * ULP32 },
            );
          }
        }
      });

      it(`comparisons with a scalar, where, maskFill and relu ${dtype}`, () => {
        for (const n of [5, 4099, 70001]) {
          const [aj, an] = pair([n], n, dtype, 2, EDGE),
            [bj, bn] = pair([n], n + 5, dtype, 2);
          for (const s of [0, 0.5, -1, NaN, Infinity]) {
            for (const op of ['equal', 'notEqual', 'greater', 'greaterEqual', 'lower', 'lowerEqual'] as const) {
              assert.deepEqual(an[op](s).toDataSync().values, aj[op](s).toDataSync().values, `${op} ${s} n=${n}`);
            }
          }
          expectNear(an.relu(), aj.relu(), `relu n=${n}`);
          // The ReLU gradient kernel (grad where the output is > 0 or NaN), edge values included.
          const reluGrad = (a: T, b: T): T => {
            const dev = a.device().autodiff();
            const x = Tensor.fromData<number, Float>(a.toDataSync(), dev).requireGrad();
            const g = x.grad(x.relu().mul(Tensor.fromData<number, Float>(b.toDataSync(), dev)).sum().backward())!;
            return Tensor.fromData<number, Float>(g.toDataSync(), a.device());
          };
          assert.deepEqual(
            reluGrad(an, bn).toDataSync().values,
            reluGrad(aj, bj).toDataSync().values,
            `relu gradient n=${n}`,
          );
          expectNear(an.maskWhere(an.greater(0.3), bn), aj.maskWhere(aj.greater(0.3), bj), `maskWhere n=${n}`);
          expectNear(an.maskFill(bn.lower(0), -7), aj.maskFill(bj.lower(0), -7), `maskFill n=${n}`);
        }
        const [xj, xn] = pair([64, 30, 20], 3, dtype),
          [mj, mn] = pair([30, 1], 4, dtype),
          [yj, yn] = pair([20], 5, dtype);
        const f = (x: T, m: T, y: T): T =>
          x.transpose().maskWhere(
            m
              .transpose()
              .greater(0)
              .expand([64, 20, 30] as never),
            y.unsqueezeDim(1).expand([64, 20, 30] as never),
          );
        expectNear(f(xn, mn, yn), f(xj, mj, yj), 'broadcast where');
      });

      it(`softmax and log-softmax ${dtype}: odd rows, large values, -inf and NaN`, () => {
        for (const shape of [
          [1, 1],
          [5, 7],
          [64, 10],
          [33, 1001],
          [3, 40000],
        ]) {
          const [aj, an] = pair(shape, shape[0]! + shape[1]!, dtype, 30, shape[1]! > 20 ? [-Infinity, 80, -80] : []);
          const tol = { rtol: dtype === 'f64' ? 1e-13 : 4 * ULP32, atol: dtype === 'f64' ? 1e-300 : 1e-30 };
          // Softmax: f32 exp of (x − max) in f32 with the rounding error of the subtraction compensated.
          expectNear(an.softmax(1), aj.softmax(1), `softmax ${shape}`, tol);
          expectNear(an.logSoftmax(1), aj.logSoftmax(1), `logSoftmax ${shape}`, {
            rtol: tol.rtol,
            atol: dtype === 'f64' ? 1e-13 : 1e-5,
          });
          expectNear(an.softmax(0), aj.softmax(0), `softmax dim 0 ${shape}`, tol);
        }
        const [nj, nn] = pair([4, 300], 9, dtype, 1, [NaN]);
        expectNear(nn.softmax(1), nj.softmax(1), 'softmax with NaN', { rtol: dtype === 'f64' ? 1e-13 : 4 * ULP32 });
      });

      it(`strided copies ${dtype}: transpose, permute, step slices, flips`, () => {
        const [aj, an] = pair([40, 30, 20], 5, dtype);
        const views: ((x: T) => T)[] = [
          (x) => x.permute([2, 0, 1]),
          (x) => x.transpose(),
          (x) => x.slice([[1, 40, 3], null, [0, 20, 2]]),
          (x) => x.flip([0, 2]),
          (x) => x.reshape([1200, 20]).transpose(),
          (x) => x.sliceDim(1, 7).expand([40, 5, 20] as never),
        ];
        views.forEach((v, i) => expectNear(v(an).reshape([-1]), v(aj).reshape([-1]), `view #${i}`));
      });

      it(`random ${dtype}: the same Philox values as JavaScript for default, uniform and bernoulli draws`, () => {
        // required-only: the backend default (generateRandom, then fromData) as the reference.
        const native = nativeTestDevice()!,
          js = Device.cpu({ engine: 'js' }),
          reference = requiredOnlyDevice();
        const dists = [
          Distribution.Default,
          Distribution.Uniform(-3, 5),
          Distribution.Bernoulli(0.3),
          Distribution.Normal(1, 2),
        ];
        for (const seed of [7, 4294967291]) {
          for (const n of [1, 6, 4099, 70001]) {
            for (const d of [native, js, reference]) d.seed(seed);
            for (const d of dists) {
              // Several draws per seed: later keys and streams differ from the first.
              for (let k = 0; k < 2; k++) {
                const got = Tensor.random([n], d, { device: native, dtype }).toDataSync().values;
                const viaJs = Tensor.random([n], d, { device: js, dtype }).toDataSync().values;
                const want = Tensor.random([n], d, { device: reference, dtype }).toDataSync().values;
                assert.deepEqual(got, want, `native: ${d.kind} n=${n} seed=${seed} draw ${k}`);
                assert.deepEqual(viaJs, want, `js: ${d.kind} n=${n} seed=${seed} draw ${k}`);
              }
            }
          }
        }
      });

      it(`conv2d ${dtype}: stride, padding, dilation, groups, bias`, () => {
        const cases: [number[], number[], object, boolean][] = [
          [[2, 3, 9, 11], [4, 3, 3, 3], { padding: [1, 1] }, true],
          [[3, 4, 13, 10], [6, 2, 3, 2], { stride: [2, 1], padding: [1, 0], groups: 2 }, true],
          [[2, 5, 17, 19], [7, 5, 3, 3], { dilation: [2, 3], padding: [2, 3] }, false],
          [[1, 8, 30, 30], [16, 8, 5, 5], { stride: [3, 3], padding: [2, 2] }, true],
          [[4, 6, 12, 12], [6, 1, 3, 3], { padding: [1, 1], groups: 6 }, true],
          [[9, 32, 28, 28], [64, 32, 3, 3], { padding: [1, 1] }, false],
          [[2, 3, 5, 5], [4, 3, 5, 5], {}, true],
          // Row stride 1 reads the im2col rows in place: several K blocks, a column stride, and one
          // sample (which takes the packed path).
          [[2, 64, 9, 9], [5, 64, 3, 3], { padding: [1, 1] }, true],
          [[3, 4, 11, 13], [5, 4, 3, 3], { stride: [1, 2], padding: [0, 1] }, true],
          [[1, 4, 10, 10], [3, 4, 3, 3], { padding: [1, 1] }, true],
        ];
        cases.forEach(([sx, sw, o, withBias], i) => {
          const [xj, xn] = pair(sx, 100 + i, dtype),
            [wj, wn] = pair(sw, 200 + i, dtype),
            [bj, bn] = pair([sw[0]!], 300 + i, dtype);
          const want = functional.conv2d(
            xj as Tensor<4, Float>,
            wj as Tensor<4, Float>,
            withBias ? (bj as Tensor<1, Float>) : undefined,
            o,
          );
          const absW = functional.conv2d(
            xj.abs() as Tensor<4, Float>,
            wj.abs() as Tensor<4, Float>,
            withBias ? (bj.abs() as Tensor<1, Float>) : undefined,
            o,
          );
          const got = functional.conv2d(
            xn as Tensor<4, Float>,
            wn as Tensor<4, Float>,
            withBias ? (bn as Tensor<1, Float>) : undefined,
            o,
          );
          expectNear(got, want, `conv2d #${i}`, { bound: productBound(absW, numel(sw.slice(1)), dtype) });
        });
      });

      it(`depthwise conv2d ${dtype}: strides, dilations, kernel sizes, odd planes, with and without a fused clamp`, () => {
        const backend = native().backend as unknown as {
          convClamp(x: unknown, w: unknown, b: unknown, o: object, lo: number, hi: number): unknown;
        };
        const cases: [
          number[],
          number[],
          { stride?: number[]; padding?: number[]; dilation?: number[]; groups: number },
        ][] = [
          [[2, 8, 17, 19], [8, 1, 3, 3], { padding: [1, 1], groups: 8 }],
          [[3, 5, 16, 15], [5, 1, 3, 3], { stride: [2, 2], padding: [1, 1], groups: 5 }],
          [[1, 4, 33, 31], [4, 1, 5, 5], { stride: [2, 1], padding: [2, 2], groups: 4 }],
          [[2, 3, 12, 40], [3, 1, 3, 3], { dilation: [2, 3], padding: [2, 3], groups: 3 }],
          [[1, 6, 7, 7], [6, 1, 7, 7], { padding: [3, 3], groups: 6 }],
          [[2, 7, 9, 10], [7, 1, 2, 3], { stride: [3, 2], padding: [0, 1], groups: 7 }],
          [[16, 32, 14, 14], [32, 1, 3, 3], { padding: [1, 1], groups: 32 }],
        ];
        cases.forEach(([sx, sw, o], i) => {
          const [xj, xn] = pair(sx, 400 + i, dtype, 1, [NaN]),
            [wj, wn] = pair(sw, 500 + i, dtype),
            [bj, bn] = pair([sw[0]!], 600 + i, dtype);
          const want = functional.conv2d(xj as Tensor<4, Float>, wj as Tensor<4, Float>, bj as Tensor<1, Float>, o);
          const bound = productBound(
            functional.conv2d(
              xj.abs() as Tensor<4, Float>,
              wj.abs() as Tensor<4, Float>,
              bj.abs() as Tensor<1, Float>,
              o,
            ),
            numel(sw.slice(1)),
            dtype,
          );
          expectNear(
            functional.conv2d(xn as Tensor<4, Float>, wn as Tensor<4, Float>, bn as Tensor<1, Float>, o),
            want,
            `depthwise #${i}`,
            { bound },
          );
          const full = {
            stride: o.stride ?? [1, 1],
            padding: o.padding ?? [0, 0],
            dilation: o.dilation ?? [1, 1],
            groups: o.groups,
          };
          for (const [lo, hi] of [
            [0, Infinity],
            [0, 6],
            [-0.25, 0.5],
          ] as const) {
            const p = backend.convClamp(xn.primitive, wn.primitive, bn.primitive, full, lo, hi);
            assert.ok(p, `convClamp #${i} runs on the native engine`);
            expectNear(
              Tensor.fromPrimitive(p as never, native()),
              want.clamp(lo, hi),
              `depthwise #${i} clamped to [${lo}, ${hi}]`,
              { bound },
            );
          }
        });
      });

      it(`conv2d with a fused clamp ${dtype}: the per-sample path, the GEMM path and one sample`, () => {
        const backend = native().backend as unknown as {
          convClamp(x: unknown, w: unknown, b: unknown, o: object, lo: number, hi: number): unknown;
        };
        const cases: [
          number[],
          number[],
          { stride: number[]; padding: number[]; dilation: number[]; groups: number },
        ][] = [
          [[4, 16, 12, 12], [24, 16, 3, 3], { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 }],
          [[1, 16, 20, 20], [8, 16, 3, 3], { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 }],
          [[3, 8, 15, 15], [16, 8, 3, 3], { stride: [2, 2], padding: [1, 1], dilation: [1, 1], groups: 1 }],
          [[2, 12, 9, 9], [12, 4, 1, 1], { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 3 }],
          // Pointwise convolutions on the GEMM path (one sample; planes past the per-sample limit): B packed straight from the image.
          [[1, 16, 20, 21], [8, 16, 1, 1], { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 1 }],
          [[2, 80, 60, 61], [9, 80, 1, 1], { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 1 }],
          [[1, 24, 13, 13], [30, 12, 1, 1], { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 2 }],
        ];
        cases.forEach(([sx, sw, o], i) => {
          const [xj, xn] = pair(sx, 700 + i, dtype, 1, [NaN]),
            [wj, wn] = pair(sw, 800 + i, dtype),
            [bj, bn] = pair([sw[0]!], 900 + i, dtype);
          const want = functional.conv2d(xj as Tensor<4, Float>, wj as Tensor<4, Float>, bj as Tensor<1, Float>, o);
          const bound = productBound(
            functional.conv2d(
              xj.abs() as Tensor<4, Float>,
              wj.abs() as Tensor<4, Float>,
              bj.abs() as Tensor<1, Float>,
              o,
            ),
            numel(sw.slice(1)),
            dtype,
          );
          for (const [lo, hi] of [
            [0, Infinity],
            [0, 6],
            [-Infinity, 0.25],
          ] as const) {
            const p = backend.convClamp(xn.primitive, wn.primitive, bn.primitive, o, lo, hi);
            assert.ok(p, `convClamp #${i}`);
            expectNear(
              Tensor.fromPrimitive(p as never, native()),
              want.clamp(lo, hi),
              `conv #${i} clamped to [${lo}, ${hi}]`,
              { bound },
            );
          }
        });
      });

      it(`conv2d with weights packed ahead and a residual ${dtype}: every path, layouts checked, the engine's cache`, () => {
        const a = addon!;
        const cases: [
          number[],
          number[],
          { stride: number[]; padding: number[]; dilation: number[]; groups: number },
        ][] = [
          // One sample, several K blocks (576 > KC on some ISAs), the GEMM path split over M or N.
          [[1, 64, 14, 14], [40, 64, 3, 3], { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 }],
          // Few output positions (the narrow micro-kernel), a long K (4608: blocks of KC).
          [[1, 512, 7, 7], [13, 512, 3, 3], { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 }],
          // Per-sample path (samples ≥ threads), groups, stride 2, pointwise.
          [[3, 8, 11, 11], [10, 4, 3, 3], { stride: [1, 1], padding: [1, 0], dilation: [1, 1], groups: 2 }],
          [[1, 16, 15, 15], [24, 16, 3, 3], { stride: [2, 2], padding: [1, 1], dilation: [1, 1], groups: 1 }],
          [[2, 32, 9, 9], [17, 32, 1, 1], { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 1 }],
        ];
        // One type for both dtypes (the addon takes either).
        const Ctor = (dtype === 'f64' ? Float64Array : Float32Array) as unknown as Float32ArrayConstructor;
        cases.forEach(([sx, sw, o], i) => {
          const [xj, xn] = pair(sx, 1300 + i, dtype),
            [wj, wn] = pair(sw, 1400 + i, dtype),
            [bj, bn] = pair([sw[0]!], 1500 + i, dtype);
          const want = functional.conv2d(xj as Tensor<4, Float>, wj as Tensor<4, Float>, bj as Tensor<1, Float>, o);
          const shape = want.shape();
          const [n, , oh, ow] = shape;
          const [rj] = pair(shape, 1600 + i, dtype);
          const bound = productBound(
            functional.conv2d(
              xj.abs() as Tensor<4, Float>,
              wj.abs() as Tensor<4, Float>,
              bj.abs() as Tensor<1, Float>,
              o,
            ),
            numel(sw.slice(1)),
            dtype,
          );
          const p = new Float64Array([
            n!,
            sx[1]!,
            sx[2]!,
            sx[3]!,
            sw[0]!,
            sw[2]!,
            sw[3]!,
            oh!,
            ow!,
            o.stride[0]!,
            o.stride[1]!,
            o.padding[0]!,
            o.padding[1]!,
            o.dilation[0]!,
            o.dilation[1]!,
            o.groups,
            0,
            6,
            0,
          ]);
          const x = xn.toDataSync().values as Float32Array,
            w = wn.toDataSync().values as Float32Array,
            b = bn.toDataSync().values as Float32Array,
            r = rj.toDataSync().values as Float32Array;
          const length = a.convPackWeights(p, w, null);
          assert.ok(length >= numel(sw), `packed length #${i}`);
          const packed = new Ctor(length);
          const tag = a.convPackWeights(p, w, packed);
          assert.ok(tag > 0, `layout tag #${i}`);
          const got = (residual: Float32Array | null, weights: Float32Array, layout: number): T => {
            const out = new Ctor(numel(shape));
            p[18] = layout;
            a.conv2d(p, x, weights, b, out, packed, residual);
            return Tensor.fromData<number, Float>(new TensorData(out, [...shape], dtype), js);
          };
          expectNear(got(null, w, tag), want.clamp(0, 6), `packed #${i}`, { bound });
          expectNear(got(r, w, tag), want.add(rj).clamp(0, 6), `packed + residual #${i}`, { bound });
          expectNear(got(r, w, 0), want.add(rj).clamp(0, 6), `residual #${i}`, { bound });
          // NaN in the packed copy: it is read under its tag, and not under another layout's.
          packed.fill(Number.NaN);
          p[16] = -Infinity;
          p[17] = Infinity;
          assert.ok(
            got(null, w, tag)
              .toDataSync()
              .values.some((v) => Number.isNaN(v)),
            `packed copy read #${i}`,
          );
          expectNear(got(null, w, tag + 1), want, `another layout's copy ignored #${i}`, { bound });
        });
        // Through the engine: the second call with one weight tensor packs it, later ones reuse it;
        // a new weight tensor (its array perhaps the released one's) is packed anew.
        const o = { padding: [1, 1] as [number, number] };
        const [xj, xn] = pair([1, 64, 12, 12], 1700, dtype);
        for (let round = 0; round < 2; round++) {
          const [wj, wn] = pair([48, 64, 3, 3], 1710 + round, dtype);
          const want = functional.conv2d(xj as Tensor<4, Float>, wj as Tensor<4, Float>, undefined, o);
          for (let call = 0; call < 3; call++) {
            const got = functional.conv2d(xn as Tensor<4, Float>, wn as Tensor<4, Float>, undefined, o);
            expectNear(got, want, `weight ${round}, call ${call}`, {
              bound: productBound(
                functional.conv2d(xj.abs() as Tensor<4, Float>, wj.abs() as Tensor<4, Float>, undefined, o),
                576,
                dtype,
              ),
            });
            got.dispose();
          }
          wn.dispose();
        }
      });

      it(`clamp and the fused GELU ${dtype}: one pass, JavaScript's max/min, edge values`, () => {
        const backend = native().backend as unknown as { gelu(p: unknown): unknown };
        for (const n of [5, 4099, 70001]) {
          const [aj, an] = pair([n], n + 11, dtype, 8, EDGE);
          for (const [lo, hi] of [
            [0, 6],
            [-1, 1],
            [0, undefined],
            [undefined, 0.5],
            [-0.5, -0.5],
          ] as const) {
            expectNear(
              an.clamp(lo ?? -Infinity, hi ?? Infinity),
              aj.clamp(lo ?? -Infinity, hi ?? Infinity),
              `clamp [${lo}, ${hi}] n=${n}`,
            );
            if (lo !== undefined) expectNear(an.clampMin(lo), aj.clampMin(lo), `clampMin ${lo} n=${n}`);
            if (hi !== undefined) expectNear(an.clampMax(hi), aj.clampMax(hi), `clampMax ${hi} n=${n}`);
          }
          // A bound f32 cannot hold exactly runs as before (max then min), with the same values.
          expectNear(an.clamp(0.1, 0.3), aj.clamp(0.1, 0.3), `clamp [0.1, 0.3] n=${n}`);
          const p = backend.gelu(an.primitive);
          assert.ok(p, `gelu n=${n}`);
          // The fused form rounds once where the op-by-op one rounds five times (f32's erf within 6
          // ulp, f64's libm erf against the js one); for negative x, 1 + erf cancels in both forms:
          // An absolute error e of erf becomes |x|·e/2 of the result, whatever its size.
          const bound = Float64Array.from(
            aj.abs().toDataSync().values as Float32Array,
            (v) => v * (dtype === 'f32' ? 4 * ULP32 : 1e-15),
          );
          expectNear(Tensor.fromPrimitive(p as never, native()), aj.gelu(), `gelu n=${n}`, {
            rtol: dtype === 'f32' ? 16 * ULP32 : 1e-13,
            atol: 1e-300,
            bound,
          });
        }
      });

      it(`fused layer normalization ${dtype}: rows of odd lengths, with and without a bias, offset values`, () => {
        const backend = native().backend as unknown as {
          layerNorm(x: unknown, g: unknown, b: unknown, eps: number): unknown;
        };
        for (const [rows, len] of [
          [1, 1],
          [3, 17],
          [64, 128],
          [5, 1000],
          [1024, 33],
        ] as const) {
          const [xj, xn] = pair([rows, len], rows + len, dtype, 3);
          const [gj, gn] = pair([len], len + 1, dtype),
            [bj, bn] = pair([len], len + 2, dtype);
          for (const offset of [0, 100]) {
            const xo = xj.add(offset),
              xno = xn.add(offset);
            const mean = xo.meanDim(1),
              centered = xo.sub(mean);
            const normed = centered.mul(centered.mul(centered).meanDim(1).add(1e-5).sqrt().recip());
            for (const withBias of [true, false]) {
              const want = withBias ? normed.mul(gj).add(bj) : normed.mul(gj);
              const p = backend.layerNorm(xno.primitive, gn.primitive, withBias ? bn.primitive : undefined, 1e-5);
              assert.ok(p, `layerNorm ${rows}×${len}`);
              // Statistics in double against the op-by-op f32 ones: an offset of 100 leaves f32 about 2⁻¹⁷ of the spread.
              const tol = dtype === 'f64' ? { rtol: 1e-12, atol: 1e-12 } : { rtol: 1e-5, atol: offset ? 2e-4 : 2e-6 };
              expectNear(
                Tensor.fromPrimitive(p as never, native()),
                want,
                `layerNorm ${rows}×${len} offset ${offset} bias ${withBias}`,
                tol,
              );
            }
          }
        }
      });

      it(`convTranspose2d ${dtype}: stride, padding, output padding, dilation, groups, bias`, () => {
        const cases: [number[], number[], object, boolean][] = [
          [[2, 4, 7, 9], [4, 3, 3, 3], { padding: [1, 1] }, true],
          [[3, 4, 6, 5], [4, 2, 3, 2], { stride: [2, 3], padding: [1, 0], paddingOut: [1, 2], groups: 2 }, true],
          [[2, 5, 8, 9], [5, 3, 3, 3], { dilation: [2, 1], stride: [2, 2], paddingOut: [1, 0] }, false],
          [[8, 16, 24, 24], [16, 8, 3, 3], { padding: [1, 1] }, true],
          // Stride 1 (runs over rows padded to the full width): no crop, groups and dilation on one
          // sample; rows cropped only; the seed ConvNet's input gradient.
          [[1, 6, 10, 12], [6, 4, 3, 2], { dilation: [2, 3], groups: 2 }, false],
          [[3, 5, 9, 7], [5, 3, 3, 3], { padding: [2, 0] }, true],
          [[4, 16, 24, 24], [16, 8, 3, 3], {}, true],
        ];
        cases.forEach(([sx, sw, o, withBias], i) => {
          const [xj, xn] = pair(sx, 400 + i, dtype),
            [wj, wn] = pair(sw, 500 + i, dtype),
            [bj, bn] = pair([sw[1]! * ((o as { groups?: number }).groups ?? 1)], 600 + i, dtype);
          const f = (x: T, w: T, b: T): T =>
            functional.convTranspose2d(
              x as Tensor<4, Float>,
              w as Tensor<4, Float>,
              withBias ? (b as Tensor<1, Float>) : undefined,
              o,
            );
          expectNear(f(xn, wn, bn), f(xj, wj, bj), `convTranspose2d #${i}`, {
            bound: productBound(f(xj.abs(), wj.abs(), bj.abs()), sx[1]! * 9, dtype),
          });
        });
      });

      it(`conv2d weight gradient ${dtype}: groups, stride, padding, dilation (dot products over shifted planes, or packed from the image)`, () => {
        // Row stride 1 takes the dot-product path (ragged tiles: fewer output channels or kernel
        // taps than a tile, positions not a multiple of the vector width); other strides the GEMM.
        const cases: [
          number[],
          number[],
          { stride?: number[]; padding?: number[]; dilation?: number[]; groups?: number },
        ][] = [
          [[4, 6, 13, 11], [8, 3, 3, 3], { groups: 2, padding: [1, 2] }],
          [[3, 4, 15, 16], [6, 4, 3, 2], { stride: [2, 3], dilation: [2, 1], padding: [2, 0] }],
          [[8, 16, 24, 24], [16, 16, 3, 3], { padding: [1, 1] }],
          [[5, 3, 20, 7], [9, 1, 5, 3], { groups: 3, stride: [3, 1] }],
          [[3, 5, 17, 19], [3, 5, 3, 3], { stride: [1, 2], dilation: [2, 1], padding: [0, 1] }],
          [[2, 3, 12, 12], [3, 1, 2, 2], { groups: 3 }],
          [[7, 1, 28, 28], [8, 1, 3, 3], {}],
        ];
        cases.forEach(([sx, sw, o], i) => {
          const [xj, xn] = pair(sx, 700 + i, dtype),
            [wj, wn] = pair(sw, 800 + i, dtype);
          // dL/dw of L = Σ conv2d(x, w) · r, with r weighing every output differently.
          const dw = (x: T, w: T, r?: T): [T, T] => {
            const dev = x.device().autodiff();
            const wa = Tensor.fromData<number, Float>(w.toDataSync(), dev).requireGrad();
            const y = functional.conv2d(
              Tensor.fromData<4, Float>(x.toDataSync(), dev),
              wa as Tensor<4, Float>,
              undefined,
              o,
            );
            const weights = Tensor.fromData<4, Float>((r ?? pair(y.dims(), 900 + i, dtype)[0]).toDataSync(), dev);
            const grad = wa.grad(y.mul(weights).sum().backward())!;
            return [
              Tensor.fromData<number, Float>(grad.toDataSync(), x.device()),
              Tensor.fromData<number, Float>(weights.toDataSync(), x.device()),
            ];
          };
          const [got] = dw(xn, wn),
            [want, r] = dw(xj, wj);
          // Rounding bound from Σ|r·x| per entry (the same gradient on absolute values).
          const [absSum] = dw(xj.abs(), wj, r.abs());
          const terms = numel(r.dims()) / r.dims()[1]!;
          expectNear(got, want, `conv2d weight gradient #${i}`, { bound: productBound(absSum, terms, dtype) });
        });
      });

      it(`unfold4d and max pooling ${dtype}: padding, dilation, ceil mode, indices, NaN`, () => {
        const [xj, xn] = pair([3, 4, 11, 13], 77, dtype, 1, [NaN]);
        for (const o of [{}, { stride: [2, 1], padding: [1, 2] }, { dilation: [2, 2], padding: [1, 1] }]) {
          expectNear(
            functional.unfold4d(xn as Tensor<4, Float>, [3, 2], o),
            functional.unfold4d(xj as Tensor<4, Float>, [3, 2], o),
            `unfold4d ${JSON.stringify(o)}`,
          );
        }
        for (const o of [
          {},
          { stride: [1, 1] },
          { stride: [2, 3], padding: [1, 1] },
          { dilation: [2, 1], ceilMode: true },
          { stride: [2, 2], ceilMode: true, padding: [1, 0] },
        ]) {
          const [vn, in_] = functional.maxPool2dWithIndices(xn as Tensor<4, Float>, [3, 2], o);
          const [vj, ij] = functional.maxPool2dWithIndices(xj as Tensor<4, Float>, [3, 2], o);
          expectNear(vn, vj, `maxPool2d ${JSON.stringify(o)}`);
          assert.deepEqual(
            Array.from(in_.toDataSync().values as Int32Array),
            Array.from(ij.toDataSync().values as Int32Array),
            `indices ${JSON.stringify(o)}`,
          );
          expectNear(
            functional.maxPool2d(xn as Tensor<4, Float>, [3, 2], o),
            vj,
            `maxPool2d without indices ${JSON.stringify(o)}`,
          );
        }
        // The 2×2 stride-2 fast path (no NaN, windows inside the plane), with ties: values rounded
        // to a few levels, so equal maxima are common and the first one's index must win.
        const levels = (t: Tensor<number, Float>) => t.mul(2).round().div(2) as Tensor<4, Float>;
        const [tj, tn] = pair([2, 3, 10, 12], 78, dtype, 1).map(levels);
        const [vn, in_] = functional.maxPool2dWithIndices(tn!, [2, 2], { stride: [2, 2] });
        const [vj, ij] = functional.maxPool2dWithIndices(tj!, [2, 2], { stride: [2, 2] });
        expectNear(vn, vj, 'maxPool2d 2×2 stride 2');
        assert.deepEqual(
          Array.from(in_.toDataSync().values as Int32Array),
          Array.from(ij.toDataSync().values as Int32Array),
          'indices of 2×2 stride 2 with ties',
        );
        expectNear(functional.maxPool2d(tn!, [2, 2], { stride: [2, 2] }), vj, 'maxPool2d 2×2 stride 2 without indices');
        // Values only, planes without NaN: the vector path over −∞-padded column phases (ResNet's
        // 3×3 stride 2 padding 1, odd and even sizes, rows wider than a vector), planes with a NaN
        // fall back per plane.
        const [rj, rn] = pair([2, 3, 37, 41], 79, dtype, 4);
        const [qj, qn] = pair([2, 3, 37, 41], 80, dtype, 4, [NaN]);
        const pools: [number[], { stride?: number[]; padding?: number[]; dilation?: number[]; ceilMode?: boolean }][] =
          [
            [[3, 3], { stride: [2, 2], padding: [1, 1] }],
            [[3, 3], { stride: [1, 1], padding: [1, 1] }],
            [[2, 3], { stride: [2, 3], padding: [1, 1], dilation: [2, 1] }],
            [[5, 5], { stride: [2, 2], padding: [2, 2], ceilMode: true }],
            [[3, 3], { stride: [2, 2] }],
          ];
        for (const [k, o] of pools) {
          expectNear(
            functional.maxPool2d(rn as Tensor<4, Float>, k, o),
            functional.maxPool2d(rj as Tensor<4, Float>, k, o),
            `maxPool2d ${k} ${JSON.stringify(o)}`,
          );
          expectNear(
            functional.maxPool2d(qn as Tensor<4, Float>, k, o),
            functional.maxPool2d(qj as Tensor<4, Float>, k, o),
            `maxPool2d ${k} ${JSON.stringify(o)} with NaN`,
          );
        }
      });
    }
  });
}

if (addon) {
  describe('native engine: training gradients', () => {
    it('a small convnet step gives the js engine gradients (f32, default thresholds)', () => {
      const grads = (device: Device): number[][] => {
        const dev = device.autodiff();
        const t = (shape: number[], seed: number, scale: number): T =>
          Tensor.fromData<number, Float>(
            new TensorData(
              Float32Array.from(values(numel(shape), seed), (v) => v * scale),
              shape,
              'f32',
            ),
            dev,
          );
        const x = t([16, 1, 28, 28], 1, 1);
        const w1 = t([8, 1, 3, 3], 2, 1 / 3).requireGrad(),
          b1 = t([8], 3, 0.1).requireGrad();
        const w2 = t([16, 8, 3, 3], 4, 1 / Math.sqrt(72)).requireGrad(),
          b2 = t([16], 5, 0.1).requireGrad();
        const w3 = t([16 * 13 * 13, 10], 6, 1 / 52).requireGrad();
        let h = functional
          .conv2d(x as Tensor<4, Float>, w1 as Tensor<4, Float>, b1 as Tensor<1, Float>, { padding: [1, 1] })
          .relu();
        h = functional.conv2d(h, w2 as Tensor<4, Float>, b2 as Tensor<1, Float>).relu();
        h = functional.maxPool2d(h, [2, 2]);
        const logits = h.reshape([16, -1]).matmul(w3);
        const loss = logits.logSoftmax(1).sliceDim(1, 3).mean().neg();
        const g = loss.backward();
        return [w1, b1, w2, b2, w3].map((p) => Array.from(p.grad(g)!.toDataSync().values as Float32Array));
      };
      const want = grads(js),
        got = grads(Device.cpu({ engine: 'native' }));
      want.forEach((w, k) => {
        const scale = Math.max(...w.map(Math.abs));
        w.forEach((v, i) =>
          assert.ok(Math.abs(got[k]![i]! - v) <= 1e-4 * scale, `param ${k}[${i}]: ${got[k]![i]} vs ${v}`),
        );
      });
    });
  });
}
