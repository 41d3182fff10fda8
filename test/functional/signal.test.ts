// signal.rfft / irfft / cfft and the Hann, Hamming and Blackman windows with the values of Burn's
// backend tests (crates/burn-backend-tests at 2c06be35: tests/cubecl/fft.rs, tests/autodiff/rfft.rs,
// tests/tensor/float/ops/{hann,hamming,blackman}_window.rs; each case names its Burn test), on
// every conformance device; gradients against finite differences; large sizes (the split
// transform) against a direct DFT in float64.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, signal, Tensor, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';
import { absolute, assertApproxEq, BALANCED, relAbs, type BurnTol } from './burn-helpers.js';
import { throwsBurn } from './helpers.js';

const SQ2INV = Math.SQRT1_2;
const P = SQ2INV + 0.5;
const M = SQ2INV - 0.5;

type T = Tensor<number, Float>;
/** One ported value test: the tensors it computes and their expected values. */
type Case = [burnTest: string, run: (dev: Device) => [T, unknown][], tol: BurnTol];

const f = (values: unknown, dev: Device): T => Tensor.fromData(values as number[], dev) as T;

const RFFT: Case[] = [
  ['rfft_zeros', (d) => pair(signal.rfft(f([0, 0, 0, 0], d), 0), [0, 0, 0], [0, 0, 0]), absolute(1e-4)],
  ['rfft_constant', (d) => pair(signal.rfft(f([1, 1, 1, 1], d), 0), [4, 0, 0], [0, 0, 0]), absolute(1e-4)],
  ['rfft_length2', (d) => pair(signal.rfft(f([1, -1], d), 0), [0, 2], [0, 0]), absolute(1e-4)],
  [
    'rfft_dim1_sine_wave_produces_imaginary_spectrum',
    (d) => pair(signal.rfft(f([[0, P, 1, M, 0, -M, -1, -P]], d), 1), [[0, 0, 0, 0, 0]], [[0, -4, -2, 0, 0]]),
    absolute(1e-4),
  ],
  [
    'rfft_dim1_cosine_wave_produces_real_spectrum',
    (d) =>
      pair(
        signal.rfft(f([[1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV, 0, SQ2INV]], d), 1),
        [[0, 4, 0, 0, 0]],
        [[0, 0, 0, 0, 0]],
      ),
    absolute(1e-3),
  ],
  [
    'rfft_dim1_2d_tensor_distinct_rows',
    (d) =>
      pair(
        signal.rfft(
          f(
            [
              [0, SQ2INV, 1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV],
              [0, 1, 0, -1, 0, 1, 0, -1],
            ],
            d,
          ),
          1,
        ),
        [
          [0, 0, 0, 0, 0],
          [0, 0, 0, 0, 0],
        ],
        [
          [0, -4, 0, 0, 0],
          [0, 0, -4, 0, 0],
        ],
      ),
    absolute(1e-3),
  ],
  [
    'rfft_dim0_2d_tensor',
    (d) =>
      pair(
        signal.rfft(
          f(
            [
              [0, 0],
              [SQ2INV, 1],
              [1, 0],
              [SQ2INV, -1],
              [0, 0],
              [-SQ2INV, 1],
              [-1, 0],
              [-SQ2INV, -1],
            ],
            d,
          ),
          0,
        ),
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
        ],
        [
          [0, 0],
          [-4, 0],
          [0, -4],
          [0, 0],
          [0, 0],
        ],
      ),
    absolute(1e-3),
  ],
  [
    'rfft_dim2_3d_tensor',
    (d) =>
      pair(
        signal.rfft(
          f(
            [
              [
                [0, SQ2INV, 1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV],
                [0, 1, 0, -1, 0, 1, 0, -1],
              ],
              [
                [0, 1, 0, -1, 0, 1, 0, -1],
                [0, SQ2INV, 1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV],
              ],
            ],
            d,
          ),
          2,
        ),
        [
          [
            [0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0],
          ],
          [
            [0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0],
          ],
        ],
        [
          [
            [0, -4, 0, 0, 0],
            [0, 0, -4, 0, 0],
          ],
          [
            [0, 0, -4, 0, 0],
            [0, -4, 0, 0, 0],
          ],
        ],
      ),
    absolute(1e-3),
  ],
  [
    'rfft_dim1_3d_tensor',
    (d) =>
      pair(
        signal.rfft(
          f(
            [
              [
                [1, 0],
                [0, 0],
                [-1, 0],
                [0, 0],
              ],
              [
                [0, 1],
                [0, 0],
                [0, -1],
                [0, 0],
              ],
            ],
            d,
          ),
          1,
        ),
        [
          [
            [0, 0],
            [2, 0],
            [0, 0],
          ],
          [
            [0, 0],
            [0, 2],
            [0, 0],
          ],
        ],
        [
          [
            [0, 0],
            [0, 0],
            [0, 0],
          ],
          [
            [0, 0],
            [0, 0],
            [0, 0],
          ],
        ],
      ),
    absolute(1e-3),
  ],
  [
    'rfft_with_n_larger_than_signal',
    (d) => pair(signal.rfft(f([1, 0, 0, 0], d), 0, 8), [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]),
    absolute(1e-3),
  ],
  [
    'rfft_with_n_smaller_than_signal',
    (d) => pair(signal.rfft(f([1, 0, 0, 0, 99, 99, 99, 99], d), 0, 4), [1, 1, 1], [0, 0, 0]),
    absolute(1e-3),
  ],
  // Burn checks row 0 only; row 1 (all ones, zero-padded to 8) is the DFT of a box: 4, 1-2.414i, 0, 1-0.414i, 0.
  [
    'rfft_2d_with_n_padded',
    (d) =>
      pair(
        signal.rfft(
          f(
            [
              [1, 0, 0, 0],
              [1, 1, 1, 1],
            ],
            d,
          ),
          1,
          8,
        ),
        [
          [1, 1, 1, 1, 1],
          [4, 1, 0, 1, 0],
        ],
        [
          [0, 0, 0, 0, 0],
          [0, -1 - Math.SQRT2, 0, 1 - Math.SQRT2, 0],
        ],
      ),
    absolute(1e-3),
  ],
];

const IRFFT: Case[] = [
  [
    'irfft_dim1_imaginary_spectrum_produces_sine_wave',
    (d) => [[signal.irfft(f([[0, 0, 0, 0, 0]], d), f([[0, -4, -2, 0, 0]], d), 1), [[0, P, 1, M, 0, -M, -1, -P]]]],
    absolute(1e-3),
  ],
  [
    'irfft_dim1_real_spectrum_produces_cosine_wave',
    (d) => [
      [
        signal.irfft(f([[0, 4, 0, 0, 0]], d), f([[0, 0, 0, 0, 0]], d), 1),
        [[1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV, 0, SQ2INV]],
      ],
    ],
    absolute(1e-3),
  ],
  [
    'irfft_dim1_2d_tensor_distinct_rows',
    (d) => [
      [
        signal.irfft(
          f(
            [
              [0, 0, 0, 0, 0],
              [0, 0, 0, 0, 0],
            ],
            d,
          ),
          f(
            [
              [0, -4, 0, 0, 0],
              [0, 0, -4, 0, 0],
            ],
            d,
          ),
          1,
        ),
        [
          [0, SQ2INV, 1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV],
          [0, 1, 0, -1, 0, 1, 0, -1],
        ],
      ],
    ],
    absolute(1e-3),
  ],
  [
    'irfft_dim0_2d_tensor',
    (d) => [
      [
        signal.irfft(
          f(
            [
              [0, 0],
              [4, 4],
              [0, 0],
              [0, 0],
              [0, 0],
            ],
            d,
          ),
          f(
            [
              [0, 0],
              [0, 0],
              [0, 0],
              [0, 0],
              [0, 0],
            ],
            d,
          ),
          0,
        ),
        [
          [1, 1],
          [SQ2INV, SQ2INV],
          [0, 0],
          [-SQ2INV, -SQ2INV],
          [-1, -1],
          [-SQ2INV, -SQ2INV],
          [0, 0],
          [SQ2INV, SQ2INV],
        ],
      ],
    ],
    absolute(1e-3),
  ],
  // Burn's doc example: the spectrum of [1, 2, 3, 4].
  [
    'irfft (doc example)',
    (d) => [[signal.irfft(f([10, -2, -2], d), f([0, 2, 0], d), 0), [1, 2, 3, 4]]],
    absolute(1e-4),
  ],
];

const roundTrip =
  (x: number[] | number[][] | number[][][], dim: number, n?: number) =>
  (d: Device): [T, unknown][] => {
    const t = f(x, d);
    const [re, im] = signal.rfft(t, dim, n);
    return [[signal.irfft(re, im, dim, n), x]];
  };

const ROUND_TRIPS: Case[] = [
  ['rfft_irfft_roundtrip_1d', roundTrip([0, P, 1, M, 0, -M, -1, -P], 0), absolute(1e-3)],
  [
    'rfft_irfft_roundtrip_dim1_2d',
    roundTrip(
      [
        [0, SQ2INV, 1, SQ2INV, 0, -SQ2INV, -1, -SQ2INV],
        [0, 1, 0, -1, 0, 1, 0, -1],
      ],
      1,
    ),
    absolute(1e-3),
  ],
  [
    'rfft_irfft_roundtrip_dim0_2d',
    roundTrip(
      [
        [1, 0],
        [SQ2INV, 1],
        [0, 0],
        [-SQ2INV, -1],
        [-1, 0],
        [-SQ2INV, 1],
        [0, 0],
        [SQ2INV, -1],
      ],
      0,
    ),
    absolute(1e-3),
  ],
  [
    'rfft_irfft_roundtrip_dim1_3d',
    roundTrip(
      [
        [
          [0, 1],
          [1, 0],
          [0, -1],
          [-1, 0],
          [0, 1],
          [1, 0],
          [0, -1],
          [-1, 0],
        ],
        [
          [1, 0],
          [SQ2INV, 1],
          [0, 0],
          [-SQ2INV, -1],
          [-1, 0],
          [-SQ2INV, 1],
          [0, 0],
          [SQ2INV, -1],
        ],
      ],
      1,
    ),
    absolute(1e-3),
  ],
  ['rfft_irfft_roundtrip_with_n', roundTrip([1, 2, 3, 4], 0, 4), absolute(1e-3)],
];

const CFFT: Case[] = [
  [
    'cfft_pure_real_input',
    (d) => pair(signal.cfft(f([1, 2, 3, 4], d), f([0, 0, 0, 0], d), 0), [10, -2, -2, -2], [0, 2, 0, -2]),
    absolute(1e-3),
  ],
  [
    'cfft_pure_imaginary_input',
    (d) => pair(signal.cfft(f([0, 0, 0, 0], d), f([1, 2, 3, 4], d), 0), [0, -2, 0, 2], [10, -2, -2, -2]),
    absolute(1e-3),
  ],
  [
    'cfft_complex_exponential',
    (d) => pair(signal.cfft(f([1, 0, -1, 0], d), f([0, 1, 0, -1], d), 0), [0, 4, 0, 0], [0, 0, 0, 0]),
    absolute(1e-3),
  ],
  [
    'cfft_zeros',
    (d) => pair(signal.cfft(f([0, 0, 0, 0], d), f([0, 0, 0, 0], d), 0), [0, 0, 0, 0], [0, 0, 0, 0]),
    absolute(1e-4),
  ],
  [
    'cfft_dim1_2d_tensor',
    (d) =>
      pair(
        signal.cfft(
          f(
            [
              [1, 2, 3, 4],
              [1, 0, -1, 0],
            ],
            d,
          ),
          f(
            [
              [0, 0, 0, 0],
              [0, 1, 0, -1],
            ],
            d,
          ),
          1,
        ),
        [
          [10, -2, -2, -2],
          [0, 4, 0, 0],
        ],
        [
          [0, 2, 0, -2],
          [0, 0, 0, 0],
        ],
      ),
    absolute(1e-3),
  ],
  [
    'cfft_with_n_padding',
    (d) => pair(signal.cfft(f([1, 0], d), f([0, 0], d), 0, 4), [1, 1, 1, 1], [0, 0, 0, 0]),
    absolute(1e-3),
  ],
  ['cfft_length_2', (d) => pair(signal.cfft(f([1, 3], d), f([2, 4], d), 0), [4, -2], [6, -2]), absolute(1e-4)],
  [
    'cfft_dim0_2d_tensor',
    (d) =>
      pair(
        signal.cfft(
          f(
            [
              [1, 1],
              [0, 2],
              [-1, 3],
              [0, 4],
            ],
            d,
          ),
          f(
            [
              [0, 0],
              [1, 0],
              [0, 0],
              [-1, 0],
            ],
            d,
          ),
          0,
        ),
        [
          [0, 10],
          [4, -2],
          [0, -2],
          [0, -2],
        ],
        [
          [0, 0],
          [0, 2],
          [0, 0],
          [0, -2],
        ],
      ),
    absolute(1e-3),
  ],
  [
    'cfft_with_n_truncation',
    (d) =>
      pair(
        signal.cfft(f([1, 2, 3, 4, 99, 99, 99, 99], d), f([0, 0, 0, 0, 99, 99, 99, 99], d), 0, 4),
        [10, -2, -2, -2],
        [0, 2, 0, -2],
      ),
    absolute(1e-3),
  ],
];

const WINDOWS: Case[] = [
  // Burn's window tests use Tolerance::default() (half precision aside).
  [
    'should_support_hann_window_periodic',
    (d) => [[signal.hannWindow(8, true, d), [0, 0.146447, 0.5, 0.853553, 1, 0.853553, 0.5, 0.146447]]],
    BALANCED,
  ],
  [
    'should_support_hann_window_symmetric',
    (d) => [[signal.hannWindow(8, false, d), [0, 0.188255, 0.61126, 0.950484, 0.950484, 0.61126, 0.188255, 0]]],
    BALANCED,
  ],
  ['should_handle_hann_window_size_one_symmetric', (d) => [[signal.hannWindow(1, false, d), [1]]], BALANCED],
  ['should_handle_hann_window_size_one_periodic', (d) => [[signal.hannWindow(1, true, d), [1]]], BALANCED],
  [
    'should_support_hamming_window_periodic',
    (d) => [
      [signal.hammingWindow(8, true, d), [0.086957, 0.220669, 0.543478, 0.866288, 1, 0.866288, 0.543478, 0.220669]],
    ],
    BALANCED,
  ],
  [
    'should_support_hamming_window_symmetric',
    (d) => [
      [
        signal.hammingWindow(8, false, d),
        [0.086957, 0.258842, 0.645064, 0.95479, 0.95479, 0.645064, 0.258842, 0.086957],
      ],
    ],
    BALANCED,
  ],
  ['should_handle_hamming_window_size_one_symmetric', (d) => [[signal.hammingWindow(1, false, d), [1]]], BALANCED],
  ['should_handle_hamming_window_size_one_periodic', (d) => [[signal.hammingWindow(1, true, d), [1]]], BALANCED],
  ['should_handle_blackman_window_size_1_symmetric', (d) => [[signal.blackmanWindow(1, false, d), [1]]], relAbs(0, 0)],
  ['should_handle_blackman_window_size_1_periodic', (d) => [[signal.blackmanWindow(1, true, d), [1]]], relAbs(0, 0)],
  // Positions 0 and 7 are (nearly) 0: Burn sets an absolute tolerance of 1e-3 for them.
  [
    'should_support_blackman_window_size_8_periodic',
    (d) => [[signal.blackmanWindow(8, true, d), [0, 6.6447e-2, 3.4e-1, 7.7355e-1, 1, 7.7355e-1, 3.4e-1, 6.6447e-2]]],
    relAbs(0.005, 1e-3),
  ],
  [
    'should_support_blackman_window_size_8_symmetric',
    (d) => [
      [signal.blackmanWindow(8, false, d), [0, 9.0453e-2, 4.5918e-1, 9.2036e-1, 9.2036e-1, 4.5918e-1, 9.0453e-2, 0]],
    ],
    relAbs(0.005, 1e-3),
  ],
];

function pair([re, im]: [T, T], wantRe: unknown, wantIm: unknown): [T, unknown][] {
  return [
    [re, wantRe],
    [im, wantIm],
  ];
}

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`signal on ${name}`, () => {
    for (const [burnTest, run, tol] of [...RFFT, ...IRFFT, ...ROUND_TRIPS, ...CFFT, ...WINDOWS]) {
      it(burnTest, async () => {
        for (const [k, [actual, expected]] of run(device()).entries())
          await assertApproxEq(actual, expected, tol, `${burnTest} output ${k}`);
      });
    }

    it('rfft_negative_dim_matches_positive_dim, irfft_ and cfft_negative_dim_matches_positive_dim', async () => {
      const d = device();
      const x = f(
        [
          [1, 2, 3, 4],
          [0, 1, 0, -1],
        ],
        d,
      );
      const [a, b] = signal.rfft(x, 1),
        [c, e] = signal.rfft(x, -1);
      await assertApproxEq(c, await nested(a), absolute(1e-4));
      await assertApproxEq(e, await nested(b), absolute(1e-4));
      const re = f(
          [
            [10, -2, -2],
            [0, 0, 0],
          ],
          d,
        ),
        im = f(
          [
            [0, 2, 0],
            [0, -2, 0],
          ],
          d,
        );
      await assertApproxEq(signal.irfft(re, im, -1), await nested(signal.irfft(re, im, 1)), absolute(1e-4));
      const [cr, ci] = signal.cfft(
        x,
        f(
          [
            [0, 0, 0, 0],
            [0, 1, 0, -1],
          ],
          d,
        ),
        -1,
      );
      const [dr, di] = signal.cfft(
        x,
        f(
          [
            [0, 0, 0, 0],
            [0, 1, 0, -1],
          ],
          d,
        ),
        1,
      );
      await assertApproxEq(cr, await nested(dr), absolute(1e-4));
      await assertApproxEq(ci, await nested(di), absolute(1e-4));
    });

    it('irfft_with_n_different_from_natural and cfft_output_has_n_bins: output lengths', () => {
      const d = device();
      const [re, im] = signal.rfft(f([1, 0, 0, 0], d), 0);
      assert.deepEqual(signal.irfft(re, im, 0, 8).dims(), [8]);
      const [cr, ci] = signal.cfft(f([1, 2, 3, 4], d), f([0, 0, 0, 0], d), 0);
      assert.deepEqual([cr.dims(), ci.dims()], [[4], [4]]);
    });

    it('windows: should_support_*_window_options_dtype and _empty / _size_0', () => {
      const d = device();
      for (const w of [signal.hannWindow, signal.hammingWindow, signal.blackmanWindow]) {
        assert.equal(w(4, true, { device: d, dtype: 'f32' }).dtype(), 'f32');
        assert.deepEqual(w(0, true, d).dims(), [0]);
        assert.deepEqual(w(0, false, d).dims(), [0]);
      }
    });

    it('length 1 transforms are the identity (Burn panics there: rfft_length1, cfft_length_1)', async () => {
      const d = device();
      await assertApproxEq(signal.rfft(f([5], d), 0)[0], [5], absolute(1e-6));
      await assertApproxEq(signal.rfft(f([5], d), 0)[1], [0], absolute(1e-6));
      const [cr, ci] = signal.cfft(f([3], d), f([5], d), 0);
      await assertApproxEq(cr, [3], absolute(1e-6));
      await assertApproxEq(ci, [5], absolute(1e-6));
      await assertApproxEq(signal.irfft(f([7, 1], d), f([0, 0], d), 0, 1), [7], absolute(1e-6));
    });
  });
}

async function nested(t: T): Promise<unknown> {
  const data = await t.toData();
  const values = Array.from(data.toArray(), Number);
  const build = (dims: readonly number[], offset: number): unknown => {
    if (dims.length === 0) return values[offset];
    const inner = dims.slice(1).reduce((a, b) => a * b, 1);
    return Array.from({ length: dims[0]! }, (_, i) => build(dims.slice(1), offset + i * inner));
  };
  return build(data.shape, 0);
}

describe('signal errors (Burn: rfft_rejects_non_power_of_two_n, irfft_rejects_non_power_of_two_n, cfft_rejects_mismatched_shapes)', () => {
  const d = Device.cpu();
  it('non-power-of-two sizes name the size and what was expected', () => {
    throwsBurn(() => signal.rfft(f([1, 2, 3, 4], d), 0, 5), 'rfft', 'n 5', 'power of two');
    throwsBurn(() => signal.irfft(f([1, 2, 3], d), f([0, 0, 0], d), 0, 5), 'irfft', 'n 5', 'power of two');
    throwsBurn(() => signal.rfft(f([1, 2, 3], d), 0), 'rfft', 'length 3 along dim 0', 'power of two');
    throwsBurn(
      () => signal.irfft(f([1, 2, 3, 4], d), f([0, 0, 0, 0], d), 0),
      'irfft',
      '4 bins',
      '= 6 samples',
      'power of two',
    );
    throwsBurn(() => signal.irfft(f([1], d), f([0], d), 0), 'irfft', '1 bins', '= 0 samples');
    throwsBurn(
      () => signal.cfft(f([1, 2, 3, 4, 5, 6], d), f([0, 0, 0, 0, 0, 0], d), 0),
      'cfft',
      'length 6',
      'power of two',
    );
  });
  it('shapes, dims, kinds and ranks', () => {
    throwsBurn(
      () => signal.cfft(f([1, 2, 3, 4], d), f([1, 2], d), 0),
      'cfft',
      'signalRe of shape [4] and signalIm of shape [2]',
      'same shape',
    );
    throwsBurn(
      () => signal.irfft(f([1, 2, 3], d), f([1, 2], d), 0),
      'irfft',
      'spectrumRe of shape [3] and spectrumIm of shape [2]',
    );
    throwsBurn(() => signal.rfft(f([[1, 2]], d), 2), 'rfft', 'dim 2 is out of range');
    throwsBurn(() => signal.rfft(Tensor.fromInts([1, 2], d) as never, 0), 'rfft');
    throwsBurn(
      () => signal.rfft(Tensor.fromFloats([1], d).reshape([]) as never, 0),
      'rfft',
      'signal of shape []',
      'rank >= 1',
    );
    throwsBurn(() => signal.hannWindow(-1, true, d), 'hannWindow', 'size -1', 'non-negative integer');
    throwsBurn(() => signal.hammingWindow(2.5, true, d), 'hammingWindow', 'size 2.5');
    throwsBurn(
      () => signal.blackmanWindow(4, true, { device: d, dtype: 'i32' as never }),
      'blackmanWindow',
      'dtype i32',
      'float dtype',
    );
    assert.throws(() => signal.rfft(f([1, 2], d), 0, 0), BurnError);
    // Sizes past the element limit are BurnErrors before anything is allocated.
    throwsBurn(() => signal.hannWindow(2 ** 33, true, d), 'hannWindow', 'output shape [8589934592]');
    throwsBurn(() => signal.rfft(f([1, 2], d), 0, 2 ** 33), 'rfft', 'output shape [8589934592]');
    throwsBurn(() => signal.irfft(f([1, 2], d), f([0, 0], d), 0, 2 ** 33), 'irfft', 'output shape [8589934592]');
  });
});

describe('signal: the split transform (n > 64) against a direct DFT in float64', () => {
  const d = Device.cpu({ engine: 'js' });
  for (const n of [128, 1024, 8192]) {
    it(`rfft, irfft and cfft of length ${n} along dim 0 of [${n}, 2]`, async () => {
      const x = Array.from({ length: n * 2 }, (_, i) => Math.sin(i * 0.37) + ((i * 7) % 11) * 0.1);
      const t = Tensor.fromFloats(new Float64Array(x), { device: d, dtype: 'f64' }).reshape([n, 2]);
      const [re, im] = signal.rfft(t, 0);
      assert.deepEqual(re.dims(), [n / 2 + 1, 2]);
      const R = (await re.toData()).toArray(),
        I = (await im.toData()).toArray();
      let worst = 0;
      for (const k of [0, 1, 2, 7, n / 4 + 3, n / 2 - 1, n / 2]) {
        for (const col of [0, 1]) {
          let sr = 0,
            si = 0;
          for (let j = 0; j < n; j++) {
            const a = (2 * Math.PI * ((j * k) % n)) / n;
            sr += x[j * 2 + col]! * Math.cos(a);
            si -= x[j * 2 + col]! * Math.sin(a);
          }
          worst = Math.max(worst, Math.abs(sr - R[k * 2 + col]!), Math.abs(si - I[k * 2 + col]!));
        }
      }
      assert.ok(worst < 1e-9 * n, `rfft error ${worst}`);
      const back = (await signal.irfft(re, im, 0).toData()).toArray();
      assert.ok(
        x.every((v, i) => Math.abs(v - back[i]!) < 1e-12 * n),
        'irfft(rfft(x)) = x',
      );
      // cfft of (x, x reversed) equals rfft extended by conjugate symmetry, combined: X + iY.
      const y = t.flip([0]);
      const [cr, ci] = signal.cfft(t, y, 0);
      const [yr, yi] = signal.rfft(y, 0);
      const k = 5;
      const at = async (u: T, row: number) => (await u.sliceDim(0, [row, row + 1]).toData()).toArray()[0]!;
      assert.ok(Math.abs((await at(cr, k)) - ((await at(re, k)) - (await at(yi, k)))) < 1e-9 * n);
      assert.ok(Math.abs((await at(ci, k)) - ((await at(im, k)) + (await at(yr, k)))) < 1e-9 * n);
    });
  }
  it('f32 keeps f32 accuracy at n = 4096 (round trip)', async () => {
    const n = 4096;
    const x = Array.from({ length: n }, (_, i) => Math.cos(i * 0.01) * 2 - 1);
    const [re, im] = signal.rfft(Tensor.fromFloats(new Float32Array(x), d), 0);
    const back = (await signal.irfft(re, im, 0).toData()).toArray();
    const worst = x.reduce((m, v, i) => Math.max(m, Math.abs(v - back[i]!)), 0);
    assert.ok(worst < 1e-4, `round trip error ${worst}`);
  });
});

// Gradients: Burn's autodiff tests (values), then finite differences in float64.
const gradDevices: [string, () => Device][] = [
  ['autodiff<cpu(js)>', () => Device.cpu({ engine: 'js' }).autodiff()],
  ['autodiff<required-only>', () => requiredOnlyDevice().autodiff()],
  ['checkpointing<cpu(js)>', () => Device.cpu({ engine: 'js' }).gradientCheckpointing()],
];
const R16 = [0.26, 0.13, 0.36, 0.24, 0.4, 0.93, 0.12, 0.18, 0.03, 0.74, 0.33, 0.7, 0.07, 0.61, 0.32, 0.66];

for (const [name, device] of gradDevices) {
  describe(`signal gradients on ${name}`, () => {
    it('should_diff_rfft: Σ x·∂loss/∂x = loss (the loss is linear in x)', async () => {
      const d = device();
      const x = Tensor.fromFloats([0.26, 0.13, 0.36, 0.24, 0.4, 0.93, 0.12, 0.18], d).requireGrad();
      const y = Tensor.fromFloats([0.03, 0.74, 0.33, 0.7, 0.07, 0.61, 0.32, 0.66], d);
      const [xr, xi] = signal.rfft(x, 0);
      const [yr, yi] = signal.rfft(y, 0);
      const loss = xr.mul(yr).add(xi.mul(yi)).sum();
      const grad = x.grad(loss.backward())!;
      await assertApproxEq(grad.mul(x.inner()).sum(), Array.from((await loss.toData()).toArray()), BALANCED);
    });

    // loss = ½‖irfft(2·rfft(3x))/6‖² = ½‖x‖² (for the bins kept), so the gradient is x.
    const trip = (values: number[], n: number | undefined, shape?: number[]) => async () => {
      const d = device();
      let x = Tensor.fromFloats(values, d) as T;
      if (shape) x = x.reshape(shape);
      x = x.requireGrad();
      const dim = shape ? 2 : 0;
      const [re, im] = signal.rfft(x.mul(3), dim, n);
      const y = signal.irfft(re.mul(2), im.mul(2), dim, n).div(6);
      const grad = x.grad(y.powi(2).sum().mul(0.5).backward())!.reshape([-1]);
      const keep = Math.min(values.length, n ?? values.length);
      await assertApproxEq(grad.sliceDim(0, [0, keep]), values.slice(0, keep), BALANCED);
      if (keep < values.length)
        await assertApproxEq(
          grad.sliceDim(0, [keep, values.length]),
          new Array(values.length - keep).fill(0),
          BALANCED,
        );
    };
    it('round_trip', trip(R16, undefined));
    it('round_trip_with_dim_nonzero', trip(R16, undefined, [1, 1, 16, 1, 1]));
    it('round_trip_with_some_n_greater', trip(R16.slice(0, 13), 16));
    it('round_trip_with_some_n_less', trip([...R16, 0.16, 0.05, 0.69], 16));

    // loss = ½‖rfft(3·irfft(2s, 0)/6).re‖²: the re bins kept pass through unchanged (s), so the gradient is s there.
    const inverse = (values: number[], keep: number) => async () => {
      const d = device();
      const s = Tensor.fromFloats(values, d).requireGrad();
      const x = signal.irfft(s.mul(2), s.zerosLike(), 0, 16).div(6);
      const [y] = signal.rfft(x.mul(3), 0, 16);
      const grad = s.grad(y.powi(2).sum().mul(0.5).backward())!;
      await assertApproxEq(grad.sliceDim(0, [0, keep]), values.slice(0, keep), BALANCED);
    };
    it('round_trip_inverse_with_some_n_greater', inverse([0.26, 0.13, 0.36, 0.24, 0.4, 0.93, 0.12], 7));
    it(
      'round_trip_inverse_with_some_n_less',
      inverse([0.26, 0.13, 0.36, 0.24, 0.4, 0.93, 0.12, 0.18, 0.03, 0.74, 0.33, 0.7], 9),
    );

    it('finite differences: rfft, irfft and cfft, direct (n <= 64) and split (n = 128)', async () => {
      const d = device();
      const cases: [string, number[][], (...xs: Tensor<number>[]) => Tensor<number>][] = [
        [
          'rfft dim 1 with padding',
          [[3, 6]],
          (x) => {
            const [r, i] = signal.rfft(x as T, 1, 8);
            return Tensor.cat([r, i], 1);
          },
        ],
        [
          'rfft dim 0 truncated',
          [[8, 2]],
          (x) => {
            const [r, i] = signal.rfft(x as T, 0, 4);
            return Tensor.cat([r, i], 0);
          },
        ],
        [
          'irfft (DC and Nyquist imaginary parts have zero gradient)',
          [
            [2, 5],
            [2, 5],
          ],
          (re, im) => signal.irfft(re as T, im as T, 1),
        ],
        ['irfft n=16 from 5 bins', [[5], [5]], (re, im) => signal.irfft(re as T, im as T, 0, 16)],
        [
          'cfft',
          [
            [4, 2],
            [4, 2],
          ],
          (re, im) => {
            const [r, i] = signal.cfft(re as T, im as T, 0);
            return Tensor.cat([r, i], 1);
          },
        ],
        [
          'rfft n=128 (split)',
          [[128]],
          (x) => {
            const [r, i] = signal.rfft(x as T, 0);
            return Tensor.cat([r, i], 0);
          },
        ],
        ['irfft n=128 (split)', [[65], [65]], (re, im) => signal.irfft(re as T, im as T, 0)],
      ];
      for (const [label, shapes, fn] of cases) {
        const err = await gradCheck(
          d,
          shapes.map((shape) => ({ shape })),
          fn,
        );
        assert.ok(err < 1e-6, `${label}: max relative error ${err}`);
      }
    });
  });
}
