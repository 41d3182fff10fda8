import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import type { BinaryOp, UnaryOp } from '../../../backend/ops.js';
import type { Saved } from '../graph.js';
import { div, mul, neg, scale, sumToShape, zerosLike } from './shared.js';

/**
 * Backward rules of the elementwise ops, one per op name (a missing op is a compile error).
 * `save` names the values a rule reads, which the op keeps for it: the input `x`, the output
 * `out`, or nothing; the rule reads them by those names.
 */

type P = TensorPrimitive;

/** The rule of a unary op: `grad(b, g, saved)` → the gradient of x; an op without `grad` passes none. */
export type UnaryRule =
  | { readonly save: 'x'; readonly grad: (b: Backend, g: P, saved: Saved<'x'>) => P }
  | { readonly save: 'out'; readonly grad: (b: Backend, g: P, saved: Saved<'out'>) => P }
  | { readonly save: 'none'; readonly grad?: (b: Backend, g: P) => P };

/** `1 - v²`. */
const oneMinusSq = (b: Backend, v: P): P => b.binaryScalar('add', neg(b, mul(b, v, v)), 1);
/** `v² + c`. */
const sqPlus = (b: Backend, v: P, c: number): P => b.binaryScalar('add', mul(b, v, v), c);

export const UNARY_RULES: { readonly [K in UnaryOp]: UnaryRule } = {
  neg: { save: 'none', grad: (b, g) => neg(b, g) },
  abs: { save: 'x', grad: (b, g, { x }) => mul(b, g, b.unary('sign', x)) },
  // Piecewise constant: a zero gradient (Burn's rules), so the graph goes on through them.
  sign: { save: 'none', grad: (b, g) => zerosLike(b, g) },
  exp: { save: 'out', grad: (b, g, { out }) => mul(b, g, out) },
  expm1: { save: 'out', grad: (b, g, { out }) => mul(b, g, b.binaryScalar('add', out, 1)) },
  log: { save: 'x', grad: (b, g, { x }) => div(b, g, x) },
  log1p: { save: 'x', grad: (b, g, { x }) => div(b, g, b.binaryScalar('add', x, 1)) },
  sqrt: { save: 'out', grad: (b, g, { out }) => div(b, g, scale(b, out, 2)) },
  recip: { save: 'out', grad: (b, g, { out }) => neg(b, mul(b, g, mul(b, out, out))) },
  sigmoid: { save: 'out', grad: (b, g, { out }) => mul(b, g, mul(b, out, b.binaryScalar('add', neg(b, out), 1))) },
  sin: { save: 'x', grad: (b, g, { x }) => mul(b, g, b.unary('cos', x)) },
  cos: { save: 'x', grad: (b, g, { x }) => neg(b, mul(b, g, b.unary('sin', x))) },
  tan: { save: 'out', grad: (b, g, { out }) => mul(b, g, sqPlus(b, out, 1)) },
  asin: { save: 'x', grad: (b, g, { x }) => div(b, g, b.unary('sqrt', oneMinusSq(b, x))) },
  acos: { save: 'x', grad: (b, g, { x }) => neg(b, div(b, g, b.unary('sqrt', oneMinusSq(b, x)))) },
  atan: { save: 'x', grad: (b, g, { x }) => div(b, g, sqPlus(b, x, 1)) },
  sinh: { save: 'x', grad: (b, g, { x }) => mul(b, g, b.unary('cosh', x)) },
  cosh: { save: 'x', grad: (b, g, { x }) => mul(b, g, b.unary('sinh', x)) },
  tanh: { save: 'out', grad: (b, g, { out }) => mul(b, g, oneMinusSq(b, out)) },
  asinh: { save: 'x', grad: (b, g, { x }) => div(b, g, b.unary('sqrt', sqPlus(b, x, 1))) },
  acosh: { save: 'x', grad: (b, g, { x }) => div(b, g, b.unary('sqrt', sqPlus(b, x, -1))) },
  atanh: { save: 'x', grad: (b, g, { x }) => div(b, g, oneMinusSq(b, x)) },
  erf: {
    save: 'x',
    grad: (b, g, { x }) => mul(b, g, scale(b, b.unary('exp', neg(b, mul(b, x, x))), 2 / Math.sqrt(Math.PI))),
  },
  round: { save: 'none', grad: (b, g) => zerosLike(b, g) },
  floor: { save: 'none', grad: (b, g) => zerosLike(b, g) },
  ceil: { save: 'none', grad: (b, g) => zerosLike(b, g) },
  trunc: { save: 'none', grad: (b, g) => zerosLike(b, g) },
  not: { save: 'none' },
};

/** A value a binary rule reads: the operands `a`, `b` or the output `out`. */
export type BinarySaved = 'a' | 'b' | 'out';

/** The rule of a binary op: gradients of (a, b) before reduction to their shapes. */
export interface BinaryRule {
  /** The values `grad` reads; only these are kept (a rule reads no name it does not save). */
  readonly save: readonly BinarySaved[];
  /** `needs[i]`: whether operand i is tracked (a rule may skip the other's gradient). */
  readonly grad?: (
    b: Backend,
    g: P,
    saved: Saved<BinarySaved>,
    needs: readonly boolean[],
  ) => [P | undefined, P | undefined];
}

/** `mask ? x : 0`. */
const keepWhere = (b: Backend, mask: P, x: P): P => b.where(mask, x, zerosLike(b, x));

export const BINARY_RULES: { readonly [K in BinaryOp]: BinaryRule } = {
  add: { save: [], grad: (_b, g) => [g, g] },
  sub: { save: [], grad: (b, g) => [g, neg(b, g)] },
  mul: { save: ['a', 'b'], grad: (b, g, v) => [mul(b, g, v.b), mul(b, g, v.a)] },
  div: { save: ['a', 'b'], grad: (b, g, v) => [div(b, g, v.b), neg(b, div(b, mul(b, g, v.a), mul(b, v.b, v.b)))] },
  // a - floor(a / b) * b
  rem: { save: ['a', 'b'], grad: (b, g, v) => [g, neg(b, mul(b, g, b.unary('floor', div(b, v.a, v.b))))] },
  // a - trunc(a / b) * b
  fmod: { save: ['a', 'b'], grad: (b, g, v) => [g, neg(b, mul(b, g, b.unary('trunc', div(b, v.a, v.b))))] },
  // d/da = b a^(b-1) (0 where b == 0); d/db = out ln a (0 where a == 0 and b >= 0), as PyTorch.
  pow: {
    save: ['a', 'b', 'out'],
    grad: (b, g, v) => {
      const da = mul(b, g, mul(b, v.b, b.binary('pow', v.a, b.binaryScalar('sub', v.b, 1))));
      const db = mul(b, g, mul(b, v.out, b.unary('log', v.a)));
      const aZero = b.binary('and', b.compareScalar('eq', v.a, 0), b.compareScalar('ge', v.b, 0));
      return [keepWhere(b, b.compareScalar('ne', v.b, 0), da), keepWhere(b, b.unary('not', aZero), db)];
    },
  },
  atan2: {
    save: ['a', 'b'],
    grad: (b, g, v) => {
      const den = b.binary('add', mul(b, v.a, v.a), mul(b, v.b, v.b));
      return [div(b, mul(b, g, v.b), den), neg(b, div(b, mul(b, g, v.a), den))];
    },
  },
  // d/da = a / out, d/db = b / out, as PyTorch (NaN where both are 0).
  hypot: {
    save: ['a', 'b', 'out'],
    grad: (b, g, v) => {
      const gOut = div(b, g, v.out);
      return [mul(b, gOut, v.a), mul(b, gOut, v.b)];
    },
  },
  // Ties share the gradient equally, as PyTorch's maximum/minimum.
  max: {
    save: ['a', 'b'],
    grad: (b, g, v, needs) => pairGrad(b, g, b.compare('gt', v.a, v.b), b.compare('eq', v.a, v.b), needs),
  },
  min: {
    save: ['a', 'b'],
    grad: (b, g, v, needs) => pairGrad(b, g, b.compare('lt', v.a, v.b), b.compare('eq', v.a, v.b), needs),
  },
  and: { save: [] },
  or: { save: [] },
  xor: { save: [] },
  shl: { save: [] },
  shr: { save: [] },
};

function pairGrad(b: Backend, g: P, aWins: P, tie: P, needs: readonly boolean[]): [P | undefined, P | undefined] {
  const half = scale(b, g, 0.5);
  const zero = b.fill([], 0, g.dtype);
  return [
    needs[0] ? b.where(tie, half, b.where(aWins, g, zero)) : undefined,
    needs[1] ? b.where(tie, half, b.where(aWins, zero, g)) : undefined,
  ];
}

/** Reduces the two gradients of a broadcasting binary op to the operand shapes. */
export function reduceBinary(
  b: Backend,
  grads: [P | undefined, P | undefined],
  aShape: readonly number[],
  bShape: readonly number[],
): [P | undefined, P | undefined] {
  return [grads[0] && sumToShape(b, grads[0], aShape), grads[1] && sumToShape(b, grads[1], bShape)];
}
