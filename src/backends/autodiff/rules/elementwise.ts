import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import type { BinaryOp, UnaryOp } from '../../../backend/ops.js';
import { div, mul, neg, scale, sumToShape, zerosLike } from './shared.js';

/**
 * Backward rules of the elementwise ops, one per op name (a missing op is a compile error).
 * `keep` names the values a rule reads: the input `x`, the output `out`, or nothing.
 */

type P = TensorPrimitive;

/** The rule of a unary op: `grad(b, g, x, out)` → gradient of x, or undefined where none flows. */
export interface UnaryRule {
  readonly keep: 'x' | 'out' | 'none';
  readonly grad?: (b: Backend, g: P, v: P) => P;
}


/** `1 - v²`. */
const oneMinusSq = (b: Backend, v: P): P => b.binaryScalar('add', neg(b, mul(b, v, v)), 1);
/** `v² + c`. */
const sqPlus = (b: Backend, v: P, c: number): P => b.binaryScalar('add', mul(b, v, v), c);

export const UNARY_RULES: { readonly [K in UnaryOp]: UnaryRule } = {
  neg: { keep: 'none', grad: (b, g) => neg(b, g) },
  abs: { keep: 'x', grad: (b, g, x) => mul(b, g, b.unary('sign', x)) },
  // Piecewise constant: a zero gradient (Burn's rules), so the graph goes on through them.
  sign: { keep: 'none', grad: (b, g) => zerosLike(b, g) },
  exp: { keep: 'out', grad: (b, g, out) => mul(b, g, out) },
  expm1: { keep: 'out', grad: (b, g, out) => mul(b, g, b.binaryScalar('add', out, 1)) },
  log: { keep: 'x', grad: (b, g, x) => div(b, g, x) },
  log1p: { keep: 'x', grad: (b, g, x) => div(b, g, b.binaryScalar('add', x, 1)) },
  sqrt: { keep: 'out', grad: (b, g, out) => div(b, g, scale(b, out, 2)) },
  recip: { keep: 'out', grad: (b, g, out) => neg(b, mul(b, g, mul(b, out, out))) },
  sigmoid: { keep: 'out', grad: (b, g, out) => mul(b, g, mul(b, out, b.binaryScalar('add', neg(b, out), 1))) },
  sin: { keep: 'x', grad: (b, g, x) => mul(b, g, b.unary('cos', x)) },
  cos: { keep: 'x', grad: (b, g, x) => neg(b, mul(b, g, b.unary('sin', x))) },
  tan: { keep: 'out', grad: (b, g, out) => mul(b, g, sqPlus(b, out, 1)) },
  asin: { keep: 'x', grad: (b, g, x) => div(b, g, b.unary('sqrt', oneMinusSq(b, x))) },
  acos: { keep: 'x', grad: (b, g, x) => neg(b, div(b, g, b.unary('sqrt', oneMinusSq(b, x)))) },
  atan: { keep: 'x', grad: (b, g, x) => div(b, g, sqPlus(b, x, 1)) },
  sinh: { keep: 'x', grad: (b, g, x) => mul(b, g, b.unary('cosh', x)) },
  cosh: { keep: 'x', grad: (b, g, x) => mul(b, g, b.unary('sinh', x)) },
  tanh: { keep: 'out', grad: (b, g, out) => mul(b, g, oneMinusSq(b, out)) },
  asinh: { keep: 'x', grad: (b, g, x) => div(b, g, b.unary('sqrt', sqPlus(b, x, 1))) },
  acosh: { keep: 'x', grad: (b, g, x) => div(b, g, b.unary('sqrt', sqPlus(b, x, -1))) },
  atanh: { keep: 'x', grad: (b, g, x) => div(b, g, oneMinusSq(b, x)) },
  erf: { keep: 'x', grad: (b, g, x) => mul(b, g, scale(b, b.unary('exp', neg(b, mul(b, x, x))), 2 / Math.sqrt(Math.PI))) },
  round: { keep: 'none', grad: (b, g) => zerosLike(b, g) },
  floor: { keep: 'none', grad: (b, g) => zerosLike(b, g) },
  ceil: { keep: 'none', grad: (b, g) => zerosLike(b, g) },
  trunc: { keep: 'none', grad: (b, g) => zerosLike(b, g) },
  not: { keep: 'none' },
};

/** The rule of a binary op: gradients of (a, b) before reduction to their shapes. */
export interface BinaryRule {
  readonly keep: readonly ('a' | 'b' | 'out')[];
  /** `needs[i]`: whether operand i is tracked (a rule may skip the other's gradient). */
  readonly grad?: (b: Backend, g: P, v: { a: P; b: P; out: P }, needs: readonly boolean[]) => [P | undefined, P | undefined];
}

/** `mask ? x : 0`. */
const keepWhere = (b: Backend, mask: P, x: P): P => b.where(mask, x, zerosLike(b, x));

export const BINARY_RULES: { readonly [K in BinaryOp]: BinaryRule } = {
  add: { keep: [], grad: (_b, g) => [g, g] },
  sub: { keep: [], grad: (b, g) => [g, neg(b, g)] },
  mul: { keep: ['a', 'b'], grad: (b, g, v) => [mul(b, g, v.b), mul(b, g, v.a)] },
  div: { keep: ['a', 'b'], grad: (b, g, v) => [div(b, g, v.b), neg(b, div(b, mul(b, g, v.a), mul(b, v.b, v.b)))] },
  // a - floor(a / b) * b
  rem: { keep: ['a', 'b'], grad: (b, g, v) => [g, neg(b, mul(b, g, b.unary('floor', div(b, v.a, v.b))))] },
  // a - trunc(a / b) * b
  fmod: { keep: ['a', 'b'], grad: (b, g, v) => [g, neg(b, mul(b, g, b.unary('trunc', div(b, v.a, v.b))))] },
  // d/da = b a^(b-1) (0 where b == 0); d/db = out ln a (0 where a == 0 and b >= 0), as PyTorch.
  pow: {
    keep: ['a', 'b', 'out'],
    grad: (b, g, v) => {
      const da = mul(b, g, mul(b, v.b, b.binary('pow', v.a, b.binaryScalar('sub', v.b, 1))));
      const db = mul(b, g, mul(b, v.out, b.unary('log', v.a)));
      const aZero = b.binary('and', b.compareScalar('eq', v.a, 0), b.compareScalar('ge', v.b, 0));
      return [keepWhere(b, b.compareScalar('ne', v.b, 0), da), keepWhere(b, b.unary('not', aZero), db)];
    },
  },
  atan2: {
    keep: ['a', 'b'],
    grad: (b, g, v) => {
      const den = b.binary('add', mul(b, v.a, v.a), mul(b, v.b, v.b));
      return [div(b, mul(b, g, v.b), den), neg(b, div(b, mul(b, g, v.a), den))];
    },
  },
  // Ties share the gradient equally, as PyTorch's maximum/minimum.
  max: { keep: ['a', 'b'], grad: (b, g, v, needs) => pairGrad(b, g, b.compare('gt', v.a, v.b), b.compare('eq', v.a, v.b), needs) },
  min: { keep: ['a', 'b'], grad: (b, g, v, needs) => pairGrad(b, g, b.compare('lt', v.a, v.b), b.compare('eq', v.a, v.b), needs) },
  and: { keep: [] },
  or: { keep: [] },
  xor: { keep: [] },
  shl: { keep: [] },
  shr: { keep: [] },
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
export function reduceBinary(b: Backend, grads: [P | undefined, P | undefined], aShape: readonly number[], bShape: readonly number[]): [P | undefined, P | undefined] {
  return [grads[0] && sumToShape(b, grads[0], aShape), grads[1] && sumToShape(b, grads[1], bShape)];
}
