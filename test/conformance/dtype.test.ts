// Conformance of dtypes against PyTorch (fixtures: test/fixtures/gen_conformance_dtype.py): storage
// round trips of every dtype, casts between every pair, int bitwise ops, bool logic, kind
// conversions and int arithmetic at large magnitudes. Burn semantics where PyTorch differs:
// out-of-range float → int saturates and NaN → 0 (undefined in PyTorch); u16/u32 exist (not in
// torch 1.13: the fixtures compute them in int64).
import { Tensor, type DType, type FloatDType, type IntDType } from '../../src/index.js';
import { isFloatDType, isIntDType } from '../../src/core/dtype.js';
import { conformance, type Ctx, type Table } from './harness.js';

/** Casts with the method Burn offers for each pair of kinds. */
function castTo(c: Ctx) {
  const dtype = c.p<DType>('dtype');
  const t = c.t();
  const from = t.dtype();
  if (dtype === 'bool') return from === 'bool' ? t : c.n().bool();
  if (from === 'bool') return isFloatDType(dtype) ? c.b().float(dtype) : c.b().int(dtype);
  if (isFloatDType(from) && isIntDType(dtype)) return c.f().int(dtype);
  if (isIntDType(from) && isFloatDType(dtype)) return c.i().float(dtype);
  return t.cast(dtype);
}

const bitwise =
  (op: 'bitwiseAnd' | 'bitwiseOr' | 'bitwiseXor' | 'bitwiseLeftShift' | 'bitwiseRightShift') => (c: Ctx) => {
    const s = c.opt<number | undefined>('s', undefined);
    return c.i()[op](s === undefined ? c.i('b') : s);
  };

const table: Table = {
  roundTrip: async (c) => Tensor.fromData(await c.t().toData(), c.device),
  cast: castTo,
  bitwiseAnd: bitwise('bitwiseAnd'),
  bitwiseOr: bitwise('bitwiseOr'),
  bitwiseXor: bitwise('bitwiseXor'),
  bitwiseLeftShift: bitwise('bitwiseLeftShift'),
  bitwiseRightShift: bitwise('bitwiseRightShift'),
  bitwiseNot: (c) => c.i().bitwiseNot(),
  boolNot: (c) => c.b().boolNot(),
  boolAnd: (c) => c.b().boolAnd(c.b('b')),
  boolOr: (c) => c.b().boolOr(c.b('b')),
  boolXor: (c) => c.b().boolXor(c.b('b')),
  boolInt: (c) => {
    const dtype = c.opt<IntDType | undefined>('dtype', undefined);
    return dtype ? c.b().int(dtype) : c.b().int();
  },
  boolFloat: (c) => {
    const dtype = c.opt<FloatDType | undefined>('dtype', undefined);
    return dtype ? c.b().float(dtype) : c.b().float();
  },
  intFloat: (c) => {
    const dtype = c.opt<FloatDType | undefined>('dtype', undefined);
    return dtype ? c.i().float(dtype) : c.i().float();
  },
  intBool: (c) => c.i().bool(),
  add: (c) => c.i().add(c.i('b')),
  sub: (c) => c.i().sub(c.i('b')),
  mul: (c) => c.i().mul(c.i('b')),
  div: (c) => c.i().div(c.i('b')),
  remainder: (c) => c.i().remainder(c.i('b')),
  greater: (c) => c.i().greater(c.i('b')),
  sum: (c) => c.i().sum(),
  max: (c) => c.i().max(),
  argmax: (c) => c.i().argmax(0),
  sort: (c) => c.i().sort(0),
};

conformance('conformance_dtype', table);
