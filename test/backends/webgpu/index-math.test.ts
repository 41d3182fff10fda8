// The shared WGSL flat-index decomposition: the text it generates (no GPU needed).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decomposeIndex, indexDims } from '../../../src/backends/webgpu/wgsl/index-math.js';
import { Params } from '../../../src/backends/webgpu/wgsl/params.js';
import { windowDims } from '../../../src/backends/webgpu/wgsl/window.js';
import { geometry3 } from '../../../src/core/geometry.js';

describe('decomposeIndex', () => {
  it('walks the dims last first, the first dim without a modulo, every offset in step', () => {
    const dims = [
      { size: 'S0', strides: ['a0', 'b0'] },
      { size: 'S1', strides: ['a1', 'b1'], extra: 'f(c);' },
    ];
    assert.deepEqual(decomposeIndex('i', 'r', ['pa', 'pb'], dims), [
      '  var r = i;',
      '  { let c = i32(r % S1); r = r / S1; pa = pa + c * a1; pb = pb + c * b1; f(c); }',
      '  { let c = i32(r); pa = pa + c * a0; pb = pb + c * b0; }',
    ]);
  });

  it('declares only the remainder at rank 0, with the given indent', () => {
    assert.deepEqual(decomposeIndex('j', 'q_r', ['q'], [], '    '), ['    var q_r = j;']);
  });
});

describe('indexDims', () => {
  it('appends each dim’s size then its strides, dim by dim, as uniform words', () => {
    const p = new Params();
    const dims = indexDims(
      p,
      [3, 4],
      [
        [4, 1],
        [-1, 0],
      ],
    );
    assert.deepEqual(p.words, [3, 4, 0xffffffff, 4, 1, 0]);
    assert.equal(dims[0]!.size, 'prm.v[0][0]');
    assert.deepEqual(dims[1]!.strides, ['bitcast<i32>(prm.v[1][0])', 'bitcast<i32>(prm.v[1][1])']);
  });
});

describe('windowDims', () => {
  it('packs a window lifted to 3 dims, seven words a dim, the kernel as u32 or i32', () => {
    const g = geometry3([5], [3], [3], { stride: [2], padding: [1], dilation: [1] });
    const p = new Params();
    const dims = windowDims(p, g, [0, 0, 4], 'i32');
    // in, out, kernel, stride, padding, dilation, input stride; leading dims are size 1, padding 0.
    assert.deepEqual(p.words, [1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 5, 3, 3, 2, 1, 1, 4]);
    assert.equal(dims[2]!.k, 'bitcast<i32>(prm.v[4][0])');
    assert.equal(windowDims(new Params(), g, [0, 0, 4], 'u32')[2]!.k, 'prm.v[4][0]');
  });
});
