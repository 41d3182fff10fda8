// Conformance of the float-only ops against PyTorch (fixtures: test/fixtures/gen_conformance_float.py):
// math functions on every float dtype and on special values (±0, ±inf, NaN), rounding (half to
// even, as Burn and torch.round), fmod, cross, statistics, predicates, isClose/allClose, the
// activation methods and float → int casts. Burn semantics where PyTorch differs: var is unbiased
// unless varBias; `cov(dim, correction)` treats `dim` as the observations (torch.cov wants
// variables in rows); Dim results keep the dim.
import type { DType, Tensor } from '../../src/index.js';
import { conformance, type Ctx, type Table } from './harness.js';

type UnaryName =
  | 'exp'
  | 'expm1'
  | 'log'
  | 'log1p'
  | 'sqrt'
  | 'recip'
  | 'sin'
  | 'cos'
  | 'tan'
  | 'asin'
  | 'acos'
  | 'atan'
  | 'sinh'
  | 'cosh'
  | 'tanh'
  | 'asinh'
  | 'acosh'
  | 'atanh'
  | 'erf'
  | 'round'
  | 'floor'
  | 'ceil'
  | 'trunc'
  | 'sigmoid'
  | 'relu'
  | 'gelu'
  | 'deg2rad'
  | 'rad2deg'
  | 'square'
  | 'neg'
  | 'abs';

const unary = (op: UnaryName) => (c: Ctx) => (c.f() as Tensor<number, 'float'>)[op]();

const UNARY: UnaryName[] = [
  'exp',
  'expm1',
  'log',
  'log1p',
  'sqrt',
  'recip',
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
  'sigmoid',
  'relu',
  'gelu',
  'deg2rad',
  'rad2deg',
  'square',
  'neg',
  'abs',
];

const table: Table = {
  ...Object.fromEntries(UNARY.map((op) => [op, unary(op)])),
  powf: (c) => c.f().powf(c.f('b')),
  powfScalar: (c) => c.f().powf(c.p<number>('s')),
  atan2: (c) => c.f().atan2(c.f('b')),
  atan2Scalar: (c) => c.f().atan2(c.p<number>('s')),
  hypot: (c) => c.f().hypot(c.f('b')),
  hypotScalar: (c) => c.f().hypot(c.p<number>('s')),
  fmod: (c) => c.f().fmod(c.f('b')),
  fmodScalar: (c) => c.f().fmod(c.p<number>('s')),
  cross: (c) => c.f().cross(c.f('b'), c.p('dim')),
  var: (c) => c.f().var(c.p('dim')),
  varBias: (c) => c.f().varBias(c.p('dim')),
  varMean: (c) => c.f().varMean(c.p('dim')),
  varMeanBias: (c) => c.f().varMeanBias(c.p('dim')),
  median: (c) => c.f().median(c.p('dim')),
  medianWithIndices: (c) => c.f().medianWithIndices(c.p('dim')),
  cov: (c) => c.f().cov(c.p('dim'), c.p('correction')),
  isNan: (c) => c.f().isNan(),
  isInf: (c) => c.f().isInf(),
  isFinite: (c) => c.f().isFinite(),
  containsNan: (c) => c.f().containsNan(),
  isClose: (c) =>
    c.f().isClose(c.f('b'), c.opt<number | undefined>('rtol', undefined), c.opt<number | undefined>('atol', undefined)),
  allClose: (c) =>
    c
      .f()
      .allClose(c.f('b'), c.opt<number | undefined>('rtol', undefined), c.opt<number | undefined>('atol', undefined)),
  softmax: (c) => c.f().softmax(c.p('dim')),
  logSoftmax: (c) => c.f().logSoftmax(c.p('dim')),
  int: (c) => {
    const dtype = c.opt<DType | undefined>('dtype', undefined);
    return dtype === undefined ? c.f().int() : c.f().int(dtype);
  },
};

conformance('conformance_float', table);
