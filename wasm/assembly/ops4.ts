// The per-vector ops the elementwise kernels and the fused-program interpreter share (fused.ts),
// so a fused program computes every value with the exact instructions of the unfused op.
import { exp4, log4, sigmoid4, tanh4 } from './vmath';
import {
  UNARY_neg, UNARY_abs, UNARY_sqrt, UNARY_recip, UNARY_exp, UNARY_log, UNARY_sigmoid, UNARY_tanh,
  UNARY_floor, UNARY_ceil, UNARY_trunc, UNARY_round,
  BINARY_add, BINARY_sub, BINARY_mul, BINARY_div, BINARY_max, BINARY_reluGrad,
} from './elementwise';

@inline export function unary4(op: i32, x: v128): v128 {
  switch (op) {
    case UNARY_neg: return f32x4.neg(x);
    case UNARY_abs: return f32x4.abs(x);
    case UNARY_sqrt: return f32x4.sqrt(x);
    case UNARY_recip: return f32x4.div(f32x4.splat(1), x);
    case UNARY_exp: return exp4(x);
    case UNARY_log: return log4(x);
    case UNARY_sigmoid: return sigmoid4(x);
    case UNARY_tanh: return tanh4(x);
    case UNARY_floor: return f32x4.floor(x);
    case UNARY_ceil: return f32x4.ceil(x);
    case UNARY_trunc: return f32x4.trunc(x);
    case UNARY_round: return f32x4.nearest(x);
    default: {
      // sign: 1, -1, or x + 0 for ±0 and NaN (-0 + 0 is +0, as Burn's sign(-0.0)).
      const pos = f32x4.gt(x, f32x4.splat(0)), neg = f32x4.lt(x, f32x4.splat(0));
      return v128.bitselect(f32x4.splat(1), v128.bitselect(f32x4.splat(-1), f32x4.add(x, f32x4.splat(0)), neg), pos);
    }
  }
}

@inline export function binary4(op: i32, x: v128, y: v128): v128 {
  switch (op) {
    case BINARY_add: return f32x4.add(x, y);
    case BINARY_sub: return f32x4.sub(x, y);
    case BINARY_mul: return f32x4.mul(x, y);
    case BINARY_div: return f32x4.div(x, y);
    case BINARY_max: return f32x4.max(x, y);
    case BINARY_reluGrad: return v128.andnot(y, f32x4.le(x, f32x4.splat(0)));
    default: return f32x4.min(x, y);
  }
}

@inline export function binary2d(op: i32, x: v128, y: v128): v128 {
  switch (op) {
    case BINARY_add: return f64x2.add(x, y);
    case BINARY_sub: return f64x2.sub(x, y);
    case BINARY_mul: return f64x2.mul(x, y);
    case BINARY_div: return f64x2.div(x, y);
    case BINARY_max: return f64x2.max(x, y);
    case BINARY_reluGrad: return v128.andnot(y, f64x2.le(x, f64x2.splat(0)));
    default: return f64x2.min(x, y);
  }
}

// The tail (fewer than 4 elements) goes through a zero-padded vector so every lane uses the same code.
@inline export function tailLoad(p: usize, count: i32): v128 {
  let v = f32x4.splat(0);
  if (count > 0) v = f32x4.replace_lane(v, 0, load<f32>(p));
  if (count > 1) v = f32x4.replace_lane(v, 1, load<f32>(p, 4));
  if (count > 2) v = f32x4.replace_lane(v, 2, load<f32>(p, 8));
  return v;
}

@inline export function tailStore(p: usize, v: v128, count: i32): void {
  if (count > 0) store<f32>(p, f32x4.extract_lane(v, 0));
  if (count > 1) store<f32>(p, f32x4.extract_lane(v, 1), 4);
  if (count > 2) store<f32>(p, f32x4.extract_lane(v, 2), 8);
}

