// Conformance of the numeric ops (Float and Int, every numeric dtype) against PyTorch
// (fixtures: test/fixtures/gen_conformance_numeric.py). Burn semantics where it differs from
// PyTorch: whole-tensor reductions return shape [1] (PyTorch: a scalar); Dim forms keep the dim;
// int `mean` is the truncated quotient (PyTorch has none); int division truncates toward zero
// (PyTorch's `rounding_mode='trunc'`); results keep the input dtype (PyTorch sums ints into
// int64); index outputs are i32 (PyTorch: int64).
import type { Tensor } from '../../src/index.js';
import { conformance, type Ctx, type Table } from './harness.js';

type Scalarish = 'add' | 'sub' | 'mul' | 'div' | 'remainder';

const scalarOp = (c: Ctx) => {
  const a = c.n();
  const s = c.p('s');
  switch (c.p<Scalarish>('op')) {
    case 'add':
      return a.add(s);
    case 'sub':
      return a.sub(s);
    case 'mul':
      return a.mul(s);
    case 'div':
      return a.div(s);
    case 'remainder':
      return a.remainder(s);
  }
};

/** A comparison with the `b` input, or with the scalar parameter `s`. */
function cmp(name: 'equal' | 'notEqual' | 'greater' | 'greaterEqual' | 'lower' | 'lowerEqual') {
  return (c: Ctx) => {
    const s = c.opt<number | boolean | undefined>('s', undefined);
    if (name === 'equal' || name === 'notEqual') {
      const a = c.t();
      return s === undefined ? a[name](c.t('b') as never) : a[name](s);
    }
    const a = c.n();
    return s === undefined ? a[name](c.n('b') as never) : a[name](s as number);
  };
}

const table: Table = {
  add: (c) => c.n().add(c.n('b') as never),
  sub: (c) => c.n().sub(c.n('b') as never),
  mul: (c) => c.n().mul(c.n('b') as never),
  div: (c) => c.n().div(c.n('b') as never),
  remainder: (c) => c.n().remainder(c.n('b') as never),
  addScalar: scalarOp,
  subScalar: scalarOp,
  mulScalar: scalarOp,
  divScalar: scalarOp,
  remainderScalar: scalarOp,
  neg: (c) => c.n().neg(),
  abs: (c) => c.n().abs(),
  sign: (c) => c.n().sign(),
  square: (c) => c.n().square(),

  sum: (c) => c.n().sum(),
  mean: (c) => c.n().mean(),
  prod: (c) => c.n().prod(),
  sumDim: (c) => c.n().sumDim(c.p('dim')),
  meanDim: (c) => c.n().meanDim(c.p('dim')),
  prodDim: (c) => c.n().prodDim(c.p('dim')),
  sumDims: (c) => c.n().sumDims(c.p<number[]>('dims')),
  meanDims: (c) => c.n().meanDims(c.p<number[]>('dims')),
  prodDims: (c) => c.n().prodDims(c.p<number[]>('dims')),

  max: (c) => c.n().max(),
  min: (c) => c.n().min(),
  maxDim: (c) => c.n().maxDim(c.p('dim')),
  minDim: (c) => c.n().minDim(c.p('dim')),
  maxDims: (c) => c.n().maxDims(c.p<number[]>('dims')),
  minDims: (c) => c.n().minDims(c.p<number[]>('dims')),
  maxDimWithIndices: (c) => c.n().maxDimWithIndices(c.p('dim')),
  minDimWithIndices: (c) => c.n().minDimWithIndices(c.p('dim')),
  argmax: (c) => c.n().argmax(c.p('dim')),
  argmin: (c) => c.n().argmin(c.p('dim')),
  maxAbs: (c) => c.n().maxAbs(),
  maxAbsDim: (c) => c.n().maxAbsDim(c.p('dim')),
  maxPair: (c) => c.n().maxPair(c.n('b') as never),
  minPair: (c) => c.n().minPair(c.n('b') as never),

  clamp: (c) => c.n().clamp(c.p('min'), c.p('max')),
  clampMin: (c) => c.n().clampMin(c.p('min')),
  clampMax: (c) => c.n().clampMax(c.p('max')),

  cumsum: (c) => c.n().cumsum(c.p('dim')),
  cumprod: (c) => c.n().cumprod(c.p('dim')),
  cummin: (c) => c.n().cummin(c.p('dim')),
  cummax: (c) => c.n().cummax(c.p('dim')),

  powi: (c) => {
    const n = c.opt<number | undefined>('n', undefined);
    return n === undefined ? c.n().powi(c.i('e') as never) : c.n().powi(n);
  },
  matmul: (c) => c.n().matmul(c.n('b') as never),
  dot: (c) => (c.n() as Tensor<1, 'float'>).dot(c.n('b') as Tensor<1, 'float'>),

  equal: cmp('equal'),
  notEqual: cmp('notEqual'),
  greater: cmp('greater'),
  greaterEqual: cmp('greaterEqual'),
  lower: cmp('lower'),
  lowerEqual: cmp('lowerEqual'),

  sort: (c) => c.n().sort(c.p('dim')),
  sortDescending: (c) => c.n().sortDescending(c.p('dim')),
  sortWithIndices: (c) => c.n().sortWithIndices(c.p('dim')),
  sortDescendingWithIndices: (c) => c.n().sortDescendingWithIndices(c.p('dim')),
  argsort: (c) => c.n().argsort(c.p('dim')),
  argsortDescending: (c) => c.n().argsortDescending(c.p('dim')),
  topk: (c) => c.n().topk(c.p('k'), c.p('dim')),
  topkWithIndices: (c) => c.n().topkWithIndices(c.p('k'), c.p('dim')),

  any: (c) => c.t().any(),
  all: (c) => c.t().all(),
  anyDim: (c) => c.t().anyDim(c.p('dim')),
  allDim: (c) => c.t().allDim(c.p('dim')),
  bool: (c) => c.n().bool(),
};

conformance('conformance_numeric', table);
