// Conformance of the shape and layout ops and the deterministic creation ops against PyTorch
// (fixtures: test/fixtures/gen_conformance_shape.py). Where Burn differs from PyTorch we follow
// Burn: reshape's 0 keeps the input size (PyTorch: a zero-sized dim); unsqueezeDims takes Burn's
// positions (repeated negatives count down, duplicates insert several dims); the tri masks are
// true where Burn's `triu_mask`/`tril_mask`/`diag_mask` are (outside the kept part); roll shifts
// the other way (the PyTorch cases run with negated shifts); narrow refuses a length of 0 (that case
// runs as the equal empty slice) and splitWithSizes makes no empty pieces (put back for the
// comparison). test/burn-fidelity pins Burn's behaviour in each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Tensor, type DType, type IntDType, type PadMode } from '../../src/index.js';
import { conformance, type Table } from './harness.js';

const table: Table = {
  reshape: (c) => c.t().reshape(c.p<number[]>('shape')),
  transpose: (c) => c.t().transpose(),
  swapDims: (c) => c.t().swapDims(...c.p<[number, number]>('dims')),
  permute: (c) => c.t().permute(c.p<number[]>('axes')),
  movedim: (c) => c.t().movedim(c.p<number | number[]>('source'), c.p<number | number[]>('destination')),
  flip: (c) => c.t().flip(c.p<number[]>('dims')),
  flatten: (c) => c.t().flatten(c.p('start'), c.p('end')),
  squeeze: (c) => c.t().squeeze(),
  squeezeDim: (c) => c.t().squeezeDim(c.p('dim')),
  squeezeDims: (c) => c.t().squeezeDims(c.p<number[]>('dims')),
  unsqueeze: (c) => c.t().unsqueeze(c.opt<number | undefined>('rank', undefined)),
  unsqueezeDim: (c) => c.t().unsqueezeDim(c.p('dim')),
  unsqueezeDims: (c) => c.t().unsqueezeDims(c.p<number[]>('dims')),
  roll: (c) =>
    c.t().roll(
      c.p<number[]>('shifts').map((s) => -s),
      c.p<number[]>('dims'),
    ),
  rollDim: (c) => c.t().rollDim(-c.p<number>('shift'), c.p('dim')),
  expand: (c) => c.t().expand(c.p<number[]>('shape')),
  unfold: (c) => c.t().unfold(c.p('dim'), c.p('size'), c.p('step')),
  repeat: (c) => c.t().repeat(c.p<number[]>('sizes')),
  repeatDim: (c) => c.t().repeatDim(c.p('dim'), c.p('times')),
  narrow: (c) => {
    const [dim, start, length] = [c.p<number>('dim'), c.p<number>('start'), c.p<number>('length')];
    return length === 0 ? c.t().sliceDim(dim, [start, start]) : c.t().narrow(dim, start, length);
  },
  chunk: (c) => c.t().chunk(c.p('chunks'), c.p('dim')),
  split: (c) => c.t().split(c.p('size'), c.p('dim')),
  splitWithSizes: (c) => {
    const sizes = c.p<number[]>('sizes'),
      dim = c.p<number>('dim');
    const pieces = c.t().splitWithSizes(sizes, dim);
    let k = 0;
    return sizes.map((s) => (s === 0 ? c.t().sliceDim(dim, [0, 0]) : pieces[k++]!));
  },
  iterDim: (c) => [...c.t().iterDim(c.p('dim'))],
  cat: (c) => Tensor.cat(c.all(), c.p('dim')),
  stack: (c) => Tensor.stack(c.all(), c.p('dim')),
  pad: (c) => {
    const mode = c.p<PadMode>('mode');
    const pairs = c.opt<[number, number][] | undefined>('pairs', undefined);
    const t = c.f();
    return pairs ? t.pad(pairs, mode) : t.pad(c.p<[number, number, number, number]>('padding'), mode);
  },
  arange: (c) => Tensor.arange(c.p('start'), c.p('end'), { device: c.device, dtype: c.opt<IntDType>('dtype', 'i32') }),
  arangeStep: (c) =>
    Tensor.arangeStep(c.p('start'), c.p('end'), c.p('step'), { device: c.device, dtype: c.p<IntDType>('dtype') }),
  eye: (c) => Tensor.eye(c.p('size'), { device: c.device, dtype: c.p<DType>('dtype') }),
  cartesianGrid: (c) => Tensor.cartesianGrid(c.p<number[]>('shape'), c.device),
  triuMask: (c) => Tensor.triuMask(c.p<number[]>('shape'), c.p('offset'), c.device),
  trilMask: (c) => Tensor.trilMask(c.p<number[]>('shape'), c.p('offset'), c.device),
  diagMask: (c) => Tensor.diagMask(c.p<number[]>('shape'), c.p('offset'), c.device),
  oneHot: (c) => (c.t().dtype().startsWith('f') ? c.f().oneHot(c.p('classes')) : c.i().oneHot(c.p('classes'))),
  oneHotFill: (c) =>
    (c.t().dtype().startsWith('f') ? c.f() : c.i()).oneHotFill(c.p('classes'), c.p('on'), c.p('off'), c.p('axis')),
  full: (c) =>
    Tensor.full(c.p<number[]>('shape'), c.p<number | boolean>('value'), {
      device: c.device,
      dtype: c.p<DType>('dtype'),
    }),
  zeros: (c) => Tensor.zeros(c.p<number[]>('shape'), { device: c.device, dtype: c.p<DType>('dtype') }),
  ones: (c) => Tensor.ones(c.p<number[]>('shape'), { device: c.device, dtype: c.p<DType>('dtype') }),
  fullLike: (c) => c.t().fullLike(c.p<number | boolean>('value')),
  zerosLike: (c) => c.t().zerosLike(),
  onesLike: (c) => c.t().onesLike(),
};

conformance('conformance_shape', table);

describe('conformance: unsqueezeDims errors (Burn rejects dims outside the result rank)', () => {
  const t = Tensor.zeros([3, 4, 5]);
  const burn = (pattern: RegExp) => (e: unknown) =>
    e instanceof BurnError && e.op === 'unsqueezeDims' && pattern.test(e.message);
  it('a dim outside -rank..rank of the result', () => {
    assert.throws(
      () => t.unsqueezeDims([0, -6]),
      burn(/dim -6 is out of range for a result of rank 5; expected -5 <= dim < 5/),
    );
    assert.throws(() => t.unsqueezeDims([5, 0]), burn(/dim 5 is out of range/));
  });
  it('duplicates pushed past the end', () => {
    assert.throws(
      () => Tensor.zeros([4]).unsqueezeDims([2, 2]),
      burn(/dims \[2, 2\] insert past the end of a result of rank 3/),
    );
  });
});
