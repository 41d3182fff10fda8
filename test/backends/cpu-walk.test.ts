// The CPU kernels' shared strided walker (src/backends/cpu/js/walk.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forEachOffset, forEachOffset2, forEachOffset3 } from '../../src/backends/cpu/js/walk.js';

describe('cpu strided walker', () => {
  it('forEachOffset3 visits row-major positions with three offsets in step (permuted, broadcast, reversed)', () => {
    const seen: number[][] = [];
    forEachOffset3([2, 3], [1, 2], 10, [0, 1], 0, [3, -1], 5, (a, b, c) => seen.push([a, b, c]));
    assert.deepEqual(seen, [
      [10, 0, 5],
      [12, 1, 4],
      [14, 2, 3],
      [11, 0, 8],
      [13, 1, 7],
      [15, 2, 6],
    ]);
  });

  it('forEachOffset gives the row-major index with each offset; forEachOffset2 starts the second set at its offset', () => {
    const one: number[][] = [];
    forEachOffset([2, 2], [1, 2], 3, (o, i) => one.push([o, i]));
    assert.deepEqual(one, [
      [3, 0],
      [5, 1],
      [4, 2],
      [6, 3],
    ]);
    const two: number[][] = [];
    forEachOffset2([2], [4], 1, [0], 7, (a, b) => two.push([a, b]));
    assert.deepEqual(two, [
      [1, 7],
      [5, 7],
    ]);
  });

  it('visits a rank-0 shape once and an empty shape never', () => {
    let n = 0;
    forEachOffset3([], [], 4, [], 0, [], 0, (a) => (n += a));
    assert.equal(n, 4);
    forEachOffset([3, 0, 2], [0, 2, 1], 0, () => n++);
    assert.equal(n, 4);
  });
});
