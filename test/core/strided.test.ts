// core/strided.ts: the one strided-layout module of the CPU and WebGPU backends (views, broadcast
// strides, dim collapsing), checked on values including size-0, size-1 and negative-stride views.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alignStrides, collapse, isContiguous, permuteView, sliceView, splitReduced } from '../../src/core/strided.js';

describe('isContiguous', () => {
  it('accepts row-major strides and ignores the strides of size-1 dims', () => {
    assert.equal(isContiguous([2, 3, 4], [12, 4, 1]), true);
    assert.equal(isContiguous([1, 3], [99, 1]), true);
    assert.equal(isContiguous([2, 1, 4], [4, 0, 1]), true);
    assert.equal(isContiguous([], []), true);
  });
  it('rejects transposed, strided, broadcast and reversed views', () => {
    assert.equal(isContiguous([2, 3], [1, 2]), false);
    assert.equal(isContiguous([3], [2]), false);
    assert.equal(isContiguous([2, 3], [0, 1]), false);
    assert.equal(isContiguous([3], [-1]), false);
  });
  it('treats a zero-size shape with its row-major strides as contiguous', () => {
    assert.equal(isContiguous([2, 0, 3], [0, 3, 1]), true);
  });
});

describe('alignStrides', () => {
  it('gives stride 0 on missing leading dims and on widened size-1 dims', () => {
    assert.deepEqual(alignStrides([3, 1], [1, 1], [2, 3, 4]), [0, 1, 0]);
    assert.deepEqual(alignStrides([4], [1], [2, 3, 4]), [0, 0, 1]);
  });
  it('keeps the strides of dims that match, size-1 ones included', () => {
    assert.deepEqual(alignStrides([2, 3], [1, 2], [2, 3]), [1, 2]);
    assert.deepEqual(alignStrides([1], [5], [1]), [5]);
    assert.deepEqual(alignStrides([], [], []), []);
  });
});

describe('collapse', () => {
  it('merges a contiguous shape into one dim', () => {
    assert.deepEqual(collapse([2, 3, 4], [[12, 4, 1]]), { shape: [24], strides: [[1]] });
  });
  it('drops size-1 dims and merges only dims contiguous in every stride set', () => {
    assert.deepEqual(
      collapse(
        [2, 1, 3, 4],
        [
          [12, 12, 4, 1],
          [0, 0, 4, 1],
        ],
      ),
      {
        shape: [2, 12],
        strides: [
          [12, 1],
          [0, 1],
        ],
      },
    );
    assert.deepEqual(collapse([2, 3], [[1, 2]]), { shape: [2, 3], strides: [[1, 2]] });
    assert.deepEqual(collapse([1, 1], [[5, 7]]), { shape: [], strides: [[]] });
  });
  it('merges reversed (negative-stride) dims that walk as one', () => {
    assert.deepEqual(collapse([2, 3], [[-3, -1]]), { shape: [6], strides: [[-1]] });
    assert.deepEqual(collapse([2, 3], [[-3, 1]]), { shape: [2, 3], strides: [[-3, 1]] });
  });
  it('collapses any shape with a 0 to [0] with stride 1 in every set', () => {
    assert.deepEqual(
      collapse(
        [4, 0, 5],
        [
          [0, 5, 1],
          [5, 5, 1],
        ],
      ),
      { shape: [0], strides: [[1], [1]] },
    );
  });
  it('leaves rank 0 as rank 0', () => {
    assert.deepEqual(collapse([], [[], []]), { shape: [], strides: [[], []] });
  });
});

describe('splitReduced', () => {
  it('collapses the kept and the reduced dims separately', () => {
    assert.deepEqual(splitReduced([2, 3, 4], [12, 4, 1], [1, 2]), {
      kept: { shape: [2], strides: [12] },
      reduced: { shape: [12], strides: [1] },
    });
    assert.deepEqual(splitReduced([2, 3, 4], [12, 4, 1], [1]), {
      kept: { shape: [2, 4], strides: [12, 1] },
      reduced: { shape: [3], strides: [4] },
    });
  });
  it('gives rank 0 for an empty group and [0] for a zero-size one', () => {
    assert.deepEqual(splitReduced([2, 3], [3, 1], []), {
      kept: { shape: [6], strides: [1] },
      reduced: { shape: [], strides: [] },
    });
    assert.deepEqual(splitReduced([2, 0], [0, 1], [1]), {
      kept: { shape: [2], strides: [0] },
      reduced: { shape: [0], strides: [1] },
    });
  });
});

describe('views', () => {
  it('permuteView reorders sizes and strides and keeps the offset', () => {
    assert.deepEqual(permuteView([2, 3, 4], [12, 4, 1], 5, [2, 0, 1]), {
      shape: [4, 2, 3],
      strides: [1, 12, 4],
      offset: 5,
    });
  });
  it('sliceView moves the offset to the first element and scales strides by the step', () => {
    // x[1:3, ::2] of a [4, 6] view.
    assert.deepEqual(
      sliceView([4, 6], [6, 1], 0, [
        { start: 1, size: 2, step: 1 },
        { start: 0, size: 3, step: 2 },
      ]),
      { shape: [2, 3], strides: [6, 2], offset: 6 },
    );
  });
  it('sliceView with a negative step walks backwards from start', () => {
    assert.deepEqual(sliceView([5], [1], 10, [{ start: 4, size: 5, step: -1 }]), {
      shape: [5],
      strides: [-1],
      offset: 14,
    });
  });
  it('sliceView leaves dims past the ranges alone and never moves the offset along an empty dim', () => {
    assert.deepEqual(sliceView([3, 4], [4, 1], 2, [{ start: 3, size: 0, step: 1 }]), {
      shape: [0, 4],
      strides: [4, 1],
      offset: 2,
    });
  });
});
