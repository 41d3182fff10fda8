// signal.stft / istft (Burn's `signal::stft`/`istft`; Burn's backend suite has no tests of them):
// frames against a direct DFT in float64, inversion (istft(stft(x)) = x), every option, on every
// conformance device; gradients against finite differences; errors.
import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { Device, signal, Tensor, type Float } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { gradCheck } from '../helpers/grad-check.js';
import { assertApproxEq, relAbs, uniform } from './burn-helpers.js';
import { throwsBurn } from './helpers.js';

/** The STFT by its definition, in float64: reflect padding, frames, window, direct DFT. */
function reference(
  x: number[][],
  window: number[],
  nFft: number,
  hop: number,
  center: boolean,
  onesided: boolean,
): number[][][][] {
  const left = Math.floor((nFft - window.length) / 2);
  const w = Array.from({ length: nFft }, (_, j) => (j >= left && j < left + window.length ? window[j - left]! : 0));
  return x.map((row) => {
    const p = nFft / 2;
    const padded = center ? [...row.slice(1, p + 1).reverse(), ...row, ...row.slice(-p - 1, -1).reverse()] : row;
    const frames = 1 + Math.floor((padded.length - nFft) / hop);
    const bins = onesided ? nFft / 2 + 1 : nFft;
    return Array.from({ length: frames }, (_, t) =>
      Array.from({ length: bins }, (_, k) => {
        let re = 0,
          im = 0;
        for (let j = 0; j < nFft; j++) {
          const a = (2 * Math.PI * ((j * k) % nFft)) / nFft;
          re += padded[t * hop + j]! * w[j]! * Math.cos(a);
          im -= padded[t * hop + j]! * w[j]! * Math.sin(a);
        }
        return [re, im];
      }),
    );
  });
}

const rows = (b: number, n: number, seed: number) => Array.from({ length: b }, (_, i) => uniform(n, seed + i));
const hann = (n: number) => Array.from({ length: n }, (_, j) => 0.5 - 0.5 * Math.cos((2 * Math.PI * j) / n));

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  const it = itOn(entry);
  describe(`stft and istft on ${name}`, () => {
    const cases: [
      string,
      { nFft: number; hopLength?: number; winLength?: number; center?: boolean; onesided?: boolean },
      number,
    ][] = [
      ['defaults (hop nFft/4, centered, onesided)', { nFft: 16 }, 40],
      ['winLength 10 < nFft, hop 5, not centered', { nFft: 16, winLength: 10, hopLength: 5, center: false }, 41],
      ['two-sided spectrum, hop 3', { nFft: 8, hopLength: 3, onesided: false }, 17],
    ];
    for (const [label, o, n] of cases) {
      it(`frames equal the direct DFT of the windowed frames: ${label}`, async () => {
        const d = device();
        const x = rows(2, n, 3);
        const win = hann(o.winLength ?? o.nFft);
        const y = signal.stft(Tensor.fromFloats(x, d), Tensor.fromFloats(win, d), o);
        await assertApproxEq(
          y,
          reference(x, win, o.nFft, o.hopLength ?? o.nFft / 4, o.center ?? true, o.onesided ?? true),
          relAbs(1e-4, 1e-4),
          label,
        );
      });
    }

    it('istft(stft(x)) = x: Hann window with 75% overlap (centered), rectangular window with 50% (not centered), two-sided', async () => {
      const d = device();
      const x = rows(2, 50, 9);
      const t = Tensor.fromFloats(x, d);
      const h = signal.hannWindow(16, true, d);
      await assertApproxEq(
        signal.istft(signal.stft(t, h, { nFft: 16 }), h, 50, { nFft: 16 }),
        x,
        relAbs(1e-4, 1e-4),
        'hann',
      );
      const o = { nFft: 8, hopLength: 4, center: false };
      const back = signal.istft(signal.stft(t, undefined, o), undefined, undefined, o);
      assert.deepEqual(back.dims(), [2, 48]);
      await assertApproxEq(
        back,
        x.map((r) => r.slice(0, 48)),
        relAbs(1e-4, 1e-4),
        'rectangular',
      );
      const two = { nFft: 8, hopLength: 2, onesided: false };
      await assertApproxEq(
        signal.istft(signal.stft(t, signal.hammingWindow(8, true, d), two), signal.hammingWindow(8, true, d), 50, two),
        x,
        relAbs(1e-4, 1e-4),
        'two-sided',
      );
      // Without a length: the frames' span less the center padding (48 of the 50 samples here).
      await assertApproxEq(
        signal.istft(signal.stft(t, h, { nFft: 16 }), h, undefined, { nFft: 16 }),
        x.map((r) => r.slice(0, 48)),
        relAbs(1e-4, 1e-4),
        'no length',
      );
      // A length past the signal: the frames cover 64 of the 66 padded samples, so samples 50..55
      // are the reflect padding (x[48], x[47], …) and 56..59 are zeros, as PyTorch's istft.
      const longer = signal.istft(signal.stft(t, h, { nFft: 16 }), h, 60, { nFft: 16 });
      const tail = (r: number[]) => [48, 47, 46, 45, 44, 43].map((i) => r[i]!).concat([0, 0, 0, 0]);
      await assertApproxEq(longer.narrow(1, 50, 10), [tail(x[0]!), tail(x[1]!)], relAbs(1e-4, 1e-4), 'longer');
    });
  });
}

describe('stft and istft gradients and errors', () => {
  plainIt('finite differences (signal, window and spectrum)', async () => {
    const d = Device.cpu({ engine: 'js' }).autodiff();
    const a = await gradCheck(d, [{ shape: [2, 12] }, { shape: [8], range: [0.2, 1] }], (x, w) =>
      signal.stft(x as Tensor<2, Float>, w as Tensor<1, Float>, { nFft: 8, hopLength: 3 }),
    );
    assert.ok(a < 1e-6, `stft: ${a}`);
    const b = await gradCheck(d, [{ shape: [1, 4, 5, 2] }, { shape: [8], range: [0.2, 1] }], (s, w) =>
      signal.istft(s as Tensor<4, Float>, w as Tensor<1, Float>, 10, { nFft: 8, hopLength: 2 }),
    );
    assert.ok(b < 1e-6, `istft: ${b}`);
  });
  plainIt('errors name the option, its value and what was expected', () => {
    const d = Device.cpu();
    const x = Tensor.zeros([1, 32], d);
    throwsBurn(() => signal.stft(x, undefined, { nFft: 12 }), 'stft', 'nFft 12', 'power of two');
    throwsBurn(() => signal.stft(x, undefined, { nFft: 8, winLength: 9 }), 'stft', 'winLength 9', '[1, nFft = 8]');
    throwsBurn(() => signal.stft(x, undefined, { nFft: 8, hopLength: 9 }), 'stft', 'hopLength 9', 'winLength = 8');
    throwsBurn(() => signal.stft(x, Tensor.ones([7], d), { nFft: 8 }), 'stft', 'window of shape [7]', 'expected [8]');
    throwsBurn(
      () => signal.stft(Tensor.zeros([1, 4], d), undefined, { nFft: 8 }),
      'stft',
      'signal length 4',
      'nFft / 2 = 4',
    );
    throwsBurn(
      () => signal.stft(Tensor.zeros([1, 4], d), undefined, { nFft: 8, center: false }),
      'stft',
      'signal length 4',
      'at least nFft = 8',
    );
    throwsBurn(
      () => signal.stft(Tensor.zeros([32], d) as never, undefined, { nFft: 8 }),
      'stft',
      'signal of shape [32]',
    );
    throwsBurn(
      () => signal.istft(Tensor.zeros([1, 3, 4, 2], d), undefined, undefined, { nFft: 8 }),
      'istft',
      'spectrum of shape [1, 3, 4, 2]',
      '[batch, frames >= 1, 5, 2]',
    );
    throwsBurn(() => signal.istft(Tensor.zeros([1, 3, 5, 2], d), undefined, -1, { nFft: 8 }), 'istft', 'length -1');
  });
});
