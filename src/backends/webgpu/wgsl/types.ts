import type { DType } from '../../../core/dtype.js';
import { BurnError } from '../../../core/errors.js';

/**
 * How dtypes live on the GPU. WGSL has 32-bit types only (f16 behind a feature), so every dtype is
 * stored in a 32-bit word and computed in one of three compute types; narrower dtypes are
 * normalized when stored, exactly like the CPU backend's typed arrays: f16/bf16 rounded to half
 * precision (f32 words), i8/i16 wrapped (i32 words), u8/u16 wrapped and bool as 0/1 (u32 words).
 * f64 and i64 have no 32-bit representation and are refused with a BurnError.
 */

/** A WGSL compute (and storage) type. */
export type CType = 'f32' | 'i32' | 'u32';

/** The compute type of a dtype; throws a BurnError for f64/i64. */
export function ctype(dtype: DType, op = 'webgpu'): CType {
  switch (dtype) {
    case 'f32':
    case 'f16':
    case 'bf16':
      return 'f32';
    case 'i32':
    case 'i16':
    case 'i8':
      return 'i32';
    case 'u32':
    case 'u16':
    case 'u8':
    case 'bool':
      return 'u32';
    default:
      throw new BurnError(
        op,
        `dtype ${dtype} is not supported by the webgpu backend (WGSL has no 64-bit types); use ${dtype === 'f64' ? 'f32' : 'i32'}, or a CPU device for ${dtype}`,
      );
  }
}

/** WGSL expression storing a compute-type value `e` as `dtype` (rounding or wrapping narrow types). */
export function storeExpr(dtype: DType, e: string): string {
  switch (dtype) {
    case 'f16':
      return `round_f16(${e})`;
    case 'bf16':
      return `round_bf16(${e})`;
    case 'i8':
      return `((${e}) << 24u) >> 24u`;
    case 'i16':
      return `((${e}) << 16u) >> 16u`;
    case 'u8':
      return `((${e}) & 255u)`;
    case 'u16':
      return `((${e}) & 65535u)`;
    default:
      return e;
  }
}

/** The helper functions {@link storeExpr} may reference for `dtype`. */
export function storeHelpers(dtype: DType): string[] {
  return dtype === 'f16' ? ['round_f16'] : dtype === 'bf16' ? ['round_bf16'] : [];
}

/**
 * WGSL expression converting `x`, a compute-type value of `from`, to the compute type of `to`
 * with Burn's cast rules: floats to ints truncate and saturate (NaN to 0), to bool is `!= 0`,
 * ints between signednesses keep their bits (the store wraps them).
 */
export function castExpr(from: DType, to: DType, x: string): { expr: string; helpers: string[] } {
  const f = ctype(from),
    t = ctype(to);
  if (to === 'bool') {
    if (from === 'bool') return { expr: x, helpers: [] };
    if (f === 'f32') return { expr: `select(0u, 1u, (bitcast<u32>(${x}) & 0x7fffffffu) != 0u)`, helpers: [] };
    return { expr: `select(0u, 1u, ${x} != ${f === 'i32' ? '0' : '0u'})`, helpers: [] };
  }
  if (t === 'f32') return { expr: f === 'f32' ? x : `f32(${x})`, helpers: [] };
  if (f === 'f32') {
    switch (to) {
      case 'i32':
        return { expr: `sat_i32(${x})`, helpers: ['sat_i32'] };
      case 'u32':
        return { expr: `sat_u32(${x})`, helpers: ['sat_u32'] };
      case 'i16':
        return { expr: `sat_small(${x}, -32768.0, 32767.0)`, helpers: ['sat_small'] };
      case 'i8':
        return { expr: `sat_small(${x}, -128.0, 127.0)`, helpers: ['sat_small'] };
      case 'u16':
        return { expr: `u32(sat_small(${x}, 0.0, 65535.0))`, helpers: ['sat_small'] };
      case 'u8':
        return { expr: `u32(sat_small(${x}, 0.0, 255.0))`, helpers: ['sat_small'] };
      default:
        break;
    }
  }
  if (f === t) return { expr: x, helpers: [] };
  return { expr: `bitcast<${t}>(${x})`, helpers: [] };
}
