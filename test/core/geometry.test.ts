// core/geometry.ts: sliding-window output sizes and padding, checked against PyTorch's formulas on
// the examples of its docs and hand-computed cases (ceil mode, dilation, output padding, 'same').
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  convOutputSize,
  convOutputSizes,
  convTransposeOutputSize,
  convTransposeOutputSizes,
  dilatedKernel,
  geometry3,
  lift3,
  poolOutputSize,
  poolOutputSizes,
  poolOverhang,
  poolPaddingFits,
  poolPaddingLimit,
  samePadding,
} from '../../src/core/geometry.js';

describe('dilatedKernel', () => {
  it('spans dilation · (kernel − 1) + 1 elements', () => {
    assert.equal(dilatedKernel(3, 1), 3);
    assert.equal(dilatedKernel(3, 2), 5);
    assert.equal(dilatedKernel(1, 4), 1);
  });
});

describe('convOutputSize', () => {
  it("matches torch.nn.Conv2d's docs example: (3, 5) kernel, stride (2, 1), padding (4, 2), dilation (3, 1) on 50×100", () => {
    assert.deepEqual(
      convOutputSizes([50, 100], [3, 5], { stride: [2, 1], padding: [4, 2], dilation: [3, 1] }),
      [26, 100],
    );
  });
  it('floors a partial last window and counts asymmetric padding', () => {
    assert.equal(convOutputSize(7, 3, 2, 0, 1), 3);
    assert.equal(convOutputSize(8, 3, 2, 0, 1), 3);
    assert.equal(convOutputSize(8, 3, 2, 1, 1), 4);
    assert.equal(convOutputSize(5, 3, 1, 0, 1, 2), 5);
    assert.equal(convOutputSize(5, 3, 1, 2, 1, 0), 5);
  });
  it('gives 0 or less when no window fits (callers reject it)', () => {
    assert.equal(convOutputSize(0, 1, 1, 0, 1), 0);
    assert.equal(convOutputSize(2, 3, 1, 0, 1), 0);
    assert.equal(convOutputSize(2, 5, 1, 0, 1), -2);
  });
  it('is the input size for a 1-wide kernel at stride 1', () => {
    assert.equal(convOutputSize(1, 1, 1, 0, 1), 1);
    assert.equal(convOutputSize(9, 1, 1, 0, 1), 9);
  });
});

describe('convTransposeOutputSize', () => {
  it('inverts a stride-2 conv: output padding 1 restores 12 from 6 (torch.nn.ConvTranspose2d docs)', () => {
    assert.equal(convOutputSize(12, 3, 2, 1, 1), 6);
    assert.equal(convTransposeOutputSize(6, 3, 2, 1, 1, 1), 12);
    assert.equal(convTransposeOutputSize(6, 3, 2, 1, 1, 0), 11);
  });
  it('applies (in − 1)·stride − 2·padding + dilation·(k − 1) + paddingOut + 1 per dim', () => {
    assert.deepEqual(
      convTransposeOutputSizes([4, 5], [3, 2], {
        stride: [1, 3],
        padding: [1, 0],
        dilation: [2, 1],
        paddingOut: [0, 2],
      }),
      [6, 16],
    );
    assert.equal(convTransposeOutputSize(1, 1, 1, 0, 1, 0), 1);
  });
});

describe('poolOutputSize', () => {
  it('floors by default and rounds up in ceil mode', () => {
    assert.equal(poolOutputSize(5, 2, 2, 0, 1, false), 2);
    assert.equal(poolOutputSize(5, 2, 2, 0, 1, true), 3);
    assert.equal(poolOutputSize(6, 2, 2, 0, 1, true), 3);
  });
  it('drops a ceil-mode window that would start past the input and the left padding (PyTorch)', () => {
    // MaxPool1d(1, stride=3, ceil_mode=True) on 6: windows at 0 and 3; one at 6 would start past the input.
    assert.equal(poolOutputSize(6, 1, 3, 0, 1, true), 2);
    // With padding 1 a window starting in the right padding is dropped too: 5 + 2 − 2 = 5, ceil(5/2) + 1 = 4 → 3.
    assert.equal(poolOutputSize(5, 2, 2, 1, 1, true), 3);
    assert.equal(poolOutputSize(5, 2, 2, 1, 1, false), 3);
  });
  it('counts dilation and asymmetric padding', () => {
    assert.equal(poolOutputSize(10, 3, 1, 0, 2, false), 6);
    assert.equal(poolOutputSize(4, 3, 1, 0, 1, false, 2), 4);
    assert.deepEqual(poolOutputSizes([32, 31], [3, 3], [2, 2], [1, 1], [1, 1], true), [17, 16]);
  });
  it('gives 0 or less for an input smaller than the window (no clamp)', () => {
    assert.equal(poolOutputSize(1, 3, 1, 0, 1, false), -1);
  });
});

describe('poolOverhang', () => {
  it('is the far-side padding a ceil-mode partial window needs, 0 otherwise', () => {
    assert.equal(poolOverhang(5, 3, 2, 2, 0, 1), 1);
    assert.equal(poolOverhang(5, 2, 2, 2, 0, 1), 0);
    assert.equal(poolOverhang(6, 3, 2, 2, 0, 1), 0);
  });
});

describe('poolPaddingLimit and poolPaddingFits', () => {
  it('allow padding up to half the kernel, rounded down', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map(poolPaddingLimit), [0, 1, 1, 2, 2]);
    assert.equal(poolPaddingFits(0, 1), true);
    assert.equal(poolPaddingFits(1, 1), false);
    assert.equal(poolPaddingFits(1, 3), true);
    assert.equal(poolPaddingFits(2, 3), false);
    assert.equal(poolPaddingFits(2, 4), true);
    assert.equal(poolPaddingFits(3, 4), false);
  });
});

describe('samePadding', () => {
  it('keeps ceil(size / stride) outputs with the odd element after', () => {
    assert.deepEqual(samePadding(5, 3, 1, 1), [1, 1]);
    assert.deepEqual(samePadding(5, 4, 1, 1), [1, 2]);
    assert.deepEqual(samePadding(6, 3, 2, 1), [0, 1]);
    assert.deepEqual(samePadding(5, 3, 2, 1), [1, 1]);
  });
  it('pads for the dilated window and never negatively', () => {
    assert.deepEqual(samePadding(5, 3, 1, 2), [2, 2]);
    assert.deepEqual(samePadding(7, 1, 3, 1), [0, 0]);
  });
  it('gives outputs of ceil(size / stride) through convOutputSize', () => {
    for (const [size, k, s, d] of [
      [5, 3, 1, 1],
      [6, 4, 2, 1],
      [9, 3, 3, 2],
      [1, 5, 1, 1],
    ] as const) {
      const [before, after] = samePadding(size, k, s, d);
      assert.equal(convOutputSize(size, k, s, before, d, after), Math.ceil(size / s));
    }
  });
});

describe('lift3 and geometry3', () => {
  it('fill the leading dims of 1- and 2-d settings', () => {
    assert.deepEqual(lift3([7], 1), [1, 1, 7]);
    assert.deepEqual(lift3([2, 3], 0), [0, 2, 3]);
    assert.deepEqual(lift3([4, 5, 6], 1), [4, 5, 6]);
  });
  it('geometry3 lifts every field with padding 0 and the rest 1', () => {
    assert.deepEqual(geometry3([8], [4], [3], { stride: [2], padding: [1], dilation: [1] }), {
      in: [1, 1, 8],
      out: [1, 1, 4],
      kernel: [1, 1, 3],
      stride: [1, 1, 2],
      padding: [0, 0, 1],
      dilation: [1, 1, 1],
    });
  });
});
