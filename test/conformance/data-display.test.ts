// Conformance of TensorData (toArray, toList, convert, assertEq, assertApproxEq with Burn's
// Tolerance presets, fromBytes, bytes) and of tensor display against Burn's format
// (burn-tensor/src/tensor/api/base.rs and burn-backend-tests' display tests): elements in Rust's
// `{:?}` form (floats shortest round-trip, exponential below 1e-4 and from 1e16, f16/bf16 through
// f32), `{:.p}` with ties to even under a precision, rows joined by ",\n ", summarized dims
// elided by a bare "..." line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BurnError,
  setPrintOptions,
  getPrintOptions,
  Tensor,
  TensorData,
  Tolerance,
  type DType,
} from '../../src/index.js';
import { formatFloat } from '../../src/tensor/display.js';
import { conformanceDevices } from '../helpers/devices.js';
import { loadFixture, fxData } from '../helpers/fixtures.js';

const ALL: DType[] = ['f32', 'f64', 'f16', 'bf16', 'i64', 'i32', 'i16', 'i8', 'u32', 'u16', 'u8', 'bool'];

function throwsBurn(fn: () => unknown, op: string, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof BurnError && e.op === op && pattern.test(e.message));
}

describe('conformance: TensorData', () => {
  it('toArray gives the compute arrays; i64 beyond 2^53 refuses to round', () => {
    const arrays: Record<DType, string> = {
      f32: 'Float32Array',
      f64: 'Float64Array',
      f16: 'Float32Array',
      bf16: 'Float32Array',
      i64: 'Float64Array',
      i32: 'Int32Array',
      i16: 'Int16Array',
      i8: 'Int8Array',
      u32: 'Uint32Array',
      u16: 'Uint16Array',
      u8: 'Uint8Array',
      bool: 'Uint8Array',
    };
    for (const dtype of ALL) {
      const d = new TensorData(dtype === 'bool' ? [true, false] : [1, 0], [2], dtype);
      assert.equal(d.toArray().constructor.name, arrays[dtype], dtype);
      assert.deepEqual(Array.from(d.toArray()), [1, 0], dtype);
    }
    assert.equal(new TensorData([0.1], [1], 'f16').values[0], 0x2e66);
    assert.equal(new TensorData([1], [1], 'bf16').values[0], 0x3f80);
    const big = new TensorData(BigInt64Array.from([2n ** 60n]), [1], 'i64');
    throwsBurn(() => big.toArray(), 'TensorData.toArray', /2\^53|not exactly representable/);
    assert.equal(big.values[0], 2n ** 60n);
  });

  it('toList nests like the shape (booleans for bool data)', () => {
    assert.deepEqual(
      TensorData.from([
        [1, 2, 3],
        [4, 5, 6],
      ]).toList(),
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    );
    assert.deepEqual(TensorData.from([[true], [false]]).toList(), [[true], [false]]);
    assert.deepEqual(new TensorData([7], [], 'i32').toList(), 7);
    assert.deepEqual(new TensorData([], [2, 0], 'f32').toList(), [[], []]);
  });

  it('convert agrees with the cast fixtures (Burn rules: truncate, saturate, NaN → 0, x != 0 → true)', () => {
    const cases = loadFixture('conformance_dtype');
    let n = 0;
    for (const [name, c] of Object.entries(cases)) {
      if (!name.startsWith('cast/')) continue;
      const want = c.outputs['out0']!;
      const got = fxData(c.inputs['a']!).convert(want.dtype);
      assert.equal(got.dtype, want.dtype, name);
      got.assertEq(fxData(want), true);
      n++;
    }
    assert.ok(n >= 144, `${n} cast cases`);
    const d = TensorData.from([1.5]);
    assert.equal(d.convert('f32'), d);
  });

  it('assertEq: equal passes, differences are listed, strict checks the dtype', () => {
    const a = TensorData.from([
      [1, 2],
      [3, 4],
    ]);
    a.assertEq(
      TensorData.from([
        [1, 2],
        [3, 4],
      ]),
    );
    throwsBurn(
      () =>
        a.assertEq(
          TensorData.from([
            [1, 2],
            [3, 5],
          ]),
        ),
      'TensorData.assertEq',
      /differ at 1 of 4 positions[\s\S]*position 3: 4 != 5/,
    );
    throwsBurn(
      () => a.assertEq(TensorData.from([[1, 2, 3, 4]])),
      'TensorData.assertEq',
      /shapes differ: \[2, 2\] != \[1, 4\]/,
    );
    const i = new TensorData([1, 2, 3, 4], [2, 2], 'i32');
    throwsBurn(() => a.assertEq(i), 'TensorData.assertEq', /dtypes differ \(f32 != i32\)/);
    a.assertEq(i, false);
  });

  it('assertApproxEq with the Tolerance presets (|x - y| < max(abs, rel * max(|x|, |y|)))', () => {
    const one = TensorData.from([1]);
    const at = (v: number) => TensorData.from([v]);
    const passes = (tol: Tolerance, x: number, y: number) => {
      try {
        at(x).assertApproxEq(at(y), tol);
        return true;
      } catch (e) {
        assert.ok(e instanceof BurnError);
        return false;
      }
    };
    one.assertApproxEq(at(1.004));
    throwsBurn(() => one.assertApproxEq(at(1.006)), 'TensorData.assertApproxEq', /differ at 1 of 1/);
    assert.deepEqual(
      [
        passes(Tolerance.default(), 0, 9e-6),
        passes(Tolerance.default(), 0, 2e-5),
        passes(Tolerance.balanced(), 100, 100.4),
      ],
      [true, false, true],
    );
    assert.deepEqual(
      [passes(Tolerance.strict(), 1, 1), passes(Tolerance.strict(), 1, 1 + 1e-7), passes(Tolerance.strict(), 0, 1e-40)],
      [true, false, true],
    );
    assert.deepEqual(
      [
        passes(Tolerance.permissive(), 1, 1.009),
        passes(Tolerance.permissive(), 0, 0.009),
        passes(Tolerance.permissive(), 1, 1.02),
      ],
      [true, true, false],
    );
    assert.deepEqual(
      [passes(Tolerance.relative(0.1), 10, 10.9), passes(Tolerance.relative(0.1), 0, 1e-9)],
      [true, false],
    );
    assert.deepEqual(
      [passes(Tolerance.absolute(0.5), 100, 100.4), passes(Tolerance.absolute(0.5), 100, 100.6)],
      [true, false],
    );
    assert.deepEqual(
      [passes(Tolerance.relAbs(0.01, 0.1), 0, 0.05), passes(Tolerance.relAbs(0.01, 0.1), 50, 50.4)],
      [true, true],
    );
    const t = Tolerance.strict().setRelative(0.5).setAbsolute(1);
    assert.deepEqual([t.relative, t.absolute], [0.5, 1]);
    // Both NaN, or the same infinity, count as equal (Burn); opposite infinities do not.
    TensorData.from([NaN, Infinity, -Infinity]).assertApproxEq(TensorData.from([NaN, Infinity, -Infinity]));
    throwsBurn(
      () => TensorData.from([Infinity]).assertApproxEq(TensorData.from([-Infinity])),
      'TensorData.assertApproxEq',
      /Infinity != -Infinity/,
    );
    throwsBurn(
      () => TensorData.from([NaN]).assertApproxEq(TensorData.from([1])),
      'TensorData.assertApproxEq',
      /NaN != 1/,
    );
    throwsBurn(() => Tolerance.relative(1.5), 'Tolerance', /expected 0 <= r <= 1/);
    throwsBurn(() => Tolerance.absolute(-1), 'Tolerance', /expected a >= 0/);
  });

  it('fromBytes round-trips the little-endian bytes of every dtype, aligned or not', () => {
    for (const dtype of ALL) {
      const d = new TensorData(dtype === 'bool' ? [1, 0, 1] : [1, 2, 3], [3], dtype);
      const bytes = d.bytes;
      TensorData.fromBytes(bytes, [3], dtype).assertEq(d);
      const shifted = new Uint8Array(bytes.length + 1);
      shifted.set(bytes, 1);
      TensorData.fromBytes(shifted.subarray(1), [3, 1], dtype).assertEq(new TensorData(d.values, [3, 1], dtype));
      // A Node Buffer's slice() is a view, not a copy: unaligned Buffers must be copied too.
      TensorData.fromBytes(Buffer.from(shifted.buffer).subarray(1), [3], dtype).assertEq(d);
    }
    assert.deepEqual(Array.from(new TensorData([1, -2], [2], 'i32').bytes), [1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
    assert.deepEqual(Array.from(new TensorData([1], [1], 'f16').bytes), [0x00, 0x3c]);
    throwsBurn(
      () => TensorData.fromBytes(new Uint8Array(5), [2], 'f32'),
      'TensorData.fromBytes',
      /5 bytes for shape \[2\] of f32; expected 8/,
    );
  });
});

describe('conformance: float formatting (Rust {:?} and {:.p})', () => {
  it('shortest round-trip digits, Rust exponent thresholds', () => {
    const f32: [number, string][] = [
      [0.1, '0.1'],
      [1 / 3, '0.33333334'],
      [1e-5, '1e-5'],
      [0.0001, '0.0001'],
      [1e16, '1e16'],
      [1.5e16, '1.5e16'],
      [1e15, '1000000000000000.0'],
      [123456, '123456.0'],
      [3e-10, '3e-10'],
      [1.25e-7, '1.25e-7'],
      [16777216, '16777216.0'],
      [-0, '-0.0'],
      [0, '0.0'],
      [-2.5, '-2.5'],
      [NaN, 'NaN'],
      [Infinity, 'inf'],
      [-Infinity, '-inf'],
      [1e-45, '1e-45'],
      [3.4028234663852886e38, '3.4028235e38'],
    ];
    for (const [v, s] of f32) assert.equal(formatFloat(Math.fround(v), 'f32', undefined), s, String(v));
    const f64: [number, string][] = [
      [0.1, '0.1'],
      [1 / 3, '0.3333333333333333'],
      [1e-4, '0.0001'],
      [9.99e-5, '9.99e-5'],
      [1e100, '1e100'],
      [2 ** 53, '9007199254740992.0'],
    ];
    for (const [v, s] of f64) assert.equal(formatFloat(v, 'f64', undefined), s, String(v));
    // f16/bf16 print through f32, as the `half` crate's Debug does.
    assert.equal(formatFloat(0.0999755859375, 'f16', undefined), '0.099975586');
    assert.equal(formatFloat(0.10009765625, 'bf16', undefined), '0.100097656');
    assert.equal(formatFloat(65504, 'f16', undefined), '65504.0');
  });

  it('a precision prints exactly p digits, ties to even on the exact value', () => {
    const cases: [number, number, string][] = [
      [2.5, 0, '2'],
      [3.5, 0, '4'],
      [0.5, 0, '0'],
      [0.125, 2, '0.12'],
      [0.375, 2, '0.38'],
      [-0.001, 2, '-0.00'],
      [2.675, 2, '2.67'],
      [1e20, 1, '100000000000000000000.0'],
      [Math.fround(0.1), 20, '0.10000000149011611938'],
      [Math.fround(1e20), 1, '100000002004087734272.0'],
      [-1.25, 1, '-1.2'],
      [1.5, 3, '1.500'],
      [NaN, 2, 'NaN'],
      [-Infinity, 2, '-inf'],
    ];
    for (const [v, p, s] of cases) assert.equal(formatFloat(v, 'f64', p), s, `${v} .${p}`);
  });
});

// Display prints values only where they are readable synchronously; devices that cannot (WebGPU)
// print shape, device and dtype without values (test/backends/webgpu/backend.test.ts).
for (const { name, device: makeDevice } of conformanceDevices({ fusion: true }).filter((d) => d.readsSync !== false)) {
  describe(`conformance: display on ${name}`, () => {
    const wrap = (body: string, shape: string, kind: string, dtype: string) =>
      `Tensor {\n  data:\n${body},\n  shape:  ${shape},\n  device:  ${name},\n  kind:  "${kind}",\n  dtype:  "${dtype}",\n}`;

    it('2-d int, float and bool tensors (Burn display tests)', () => {
      const d = makeDevice();
      assert.equal(
        `${Tensor.fromInts(
          [
            [1, 2, 3],
            [4, 5, 6],
            [7, 8, 9],
          ],
          d,
        )}`,
        wrap('[[1, 2, 3],\n [4, 5, 6],\n [7, 8, 9]]', '[3, 3]', 'Int', 'i32'),
      );
      assert.equal(
        String(
          Tensor.fromFloats(
            [
              [1.1, 2.2, 3.3],
              [4.4, 5.5, 6.6],
              [7.7, 8.8, 9.9],
            ],
            d,
          ),
        ),
        wrap('[[1.1, 2.2, 3.3],\n [4.4, 5.5, 6.6],\n [7.7, 8.8, 9.9]]', '[3, 3]', 'Float', 'f32'),
      );
      assert.equal(
        Tensor.fromBools(
          [
            [true, false, true],
            [false, true, false],
            [false, true, true],
          ],
          d,
        ).toString(),
        wrap('[[true, false, true],\n [false, true, false],\n [false, true, true]]', '[3, 3]', 'Bool', 'bool'),
      );
    });

    it('3-d and 4-d tensors indent nested rows', () => {
      const d = makeDevice();
      const t3 = Tensor.arange(1, 25, d).reshape([2, 3, 4]);
      assert.equal(
        `${t3}`,
        wrap(
          '[[[1, 2, 3, 4],\n  [5, 6, 7, 8],\n  [9, 10, 11, 12]],\n [[13, 14, 15, 16],\n  [17, 18, 19, 20],\n  [21, 22, 23, 24]]]',
          '[2, 3, 4]',
          'Int',
          'i32',
        ),
      );
      const t4 = Tensor.arange(1, 25, { device: d, dtype: 'i64' }).reshape([2, 2, 2, 3]);
      assert.equal(
        `${t4}`,
        wrap(
          '[[[[1, 2, 3],\n   [4, 5, 6]],\n  [[7, 8, 9],\n   [10, 11, 12]]],\n [[[13, 14, 15],\n   [16, 17, 18]],\n  [[19, 20, 21],\n   [22, 23, 24]]]]',
          '[2, 2, 2, 3]',
          'Int',
          'i64',
        ),
      );
      // A non-contiguous view prints its logical order.
      assert.ok(
        `${Tensor.fromInts(
          [
            [1, 2],
            [3, 4],
          ],
          d,
        ).transpose()}`.includes('[[1, 3],\n [2, 4]]'),
      );
    });

    it('summarizes above the threshold: edge items, then a bare "..." element or line', () => {
      const d = makeDevice();
      const saved = getPrintOptions();
      try {
        const zeros = Tensor.zeros([2, 1, 2, 1000], d);
        const row = '[0.0, 0.0, 0.0, ..., 0.0, 0.0, 0.0]';
        assert.equal(
          `${zeros}`,
          wrap(`[[[${row},\n   ${row}]],\n [[${row},\n   ${row}]]]`, '[2, 1, 2, 1000]', 'Float', 'f32'),
        );
        setPrintOptions({ threshold: 10, edgeItems: 2 });
        assert.equal(
          `${Tensor.arange(0, 56, d).reshape([7, 8])}`,
          wrap(
            '[[0, 1, ..., 6, 7],\n [8, 9, ..., 14, 15],\n ...\n [40, 41, ..., 46, 47],\n [48, 49, ..., 54, 55]]',
            '[7, 8]',
            'Int',
            'i32',
          ),
        );
        setPrintOptions({ threshold: 10, edgeItems: 1 });
        assert.equal(
          `${Tensor.arange(0, 60, d).reshape([5, 2, 6])}`,
          wrap(
            '[[[0, ..., 5],\n  [6, ..., 11]],\n ...\n [[48, ..., 53],\n  [54, ..., 59]]]',
            '[5, 2, 6]',
            'Int',
            'i32',
          ),
        );
        // At or below the threshold everything prints.
        setPrintOptions({ threshold: 6, edgeItems: 1 });
        assert.equal(`${Tensor.fromInts([1, 2, 3, 4, 5, 6], d)}`, wrap('[1, 2, 3, 4, 5, 6]', '[6]', 'Int', 'i32'));
      } finally {
        setPrintOptions(saved);
      }
    });

    it('precision: shortest f32 digits by default, p digits when set', () => {
      const d = makeDevice();
      const saved = getPrintOptions();
      try {
        assert.equal(`${Tensor.full([1, 1], 0.123456789, d)}`, wrap('[[0.12345679]]', '[1, 1]', 'Float', 'f32'));
        setPrintOptions({ precision: 3 });
        assert.equal(
          `${Tensor.full([3, 2], 0.123456789, d)}`,
          wrap('[[0.123, 0.123],\n [0.123, 0.123],\n [0.123, 0.123]]', '[3, 2]', 'Float', 'f32'),
        );
        // Ints are unaffected by the precision.
        assert.equal(`${Tensor.fromInts([1, 2], d)}`, wrap('[1, 2]', '[2]', 'Int', 'i32'));
      } finally {
        setPrintOptions(saved);
      }
      assert.equal(
        `${Tensor.fromFloats([1e-5, 2, -0, Infinity, NaN], { device: d, dtype: 'f64' })}`,
        wrap('[1e-5, 2.0, -0.0, inf, NaN]', '[5]', 'Float', 'f64'),
      );
      assert.equal(
        `${Tensor.fromFloats([0.1, 1e20], { device: d, dtype: 'f16' })}`,
        wrap('[0.099975586, inf]', '[2]', 'Float', 'f16'),
      );
    });

    it('every dtype names itself; print options are validated', () => {
      const d = makeDevice();
      for (const dtype of ALL) {
        const s = `${Tensor.zeros([1], { device: d, dtype })}`;
        assert.ok(s.includes(`dtype:  "${dtype}"`), s);
        assert.ok(
          s.includes(dtype === 'bool' ? '[false]' : dtype.startsWith('f') || dtype === 'bf16' ? '[0.0]' : '[0]'),
          s,
        );
      }
      throwsBurn(() => setPrintOptions({ edgeItems: -1 }), 'setPrintOptions', /non-negative integers/);
      throwsBurn(() => setPrintOptions({ precision: 1.5 }), 'setPrintOptions', /precision 1.5/);
    });
  });
}
