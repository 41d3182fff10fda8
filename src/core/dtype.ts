import { BurnError } from './errors.js';

/** Element data types, written as in Burn's `DType` (`'f32'` is the default float, `'i32'` the default int). */
export type DType = 'f64' | 'f32' | 'f16' | 'bf16' | 'i64' | 'i32' | 'i16' | 'i8' | 'u32' | 'u16' | 'u8' | 'bool';

/** Floating-point dtypes. */
export type FloatDType = 'f64' | 'f32' | 'f16' | 'bf16';
/** Integer dtypes. */
export type IntDType = 'i64' | 'i32' | 'i16' | 'i8' | 'u32' | 'u16' | 'u8';

/** Every dtype, in Burn's order. */
export const DTYPES: readonly DType[] = [
  'f64',
  'f32',
  'f16',
  'bf16',
  'i64',
  'i32',
  'i16',
  'i8',
  'u32',
  'u16',
  'u8',
  'bool',
];

/** Size of one element in bytes. */
export function dtypeSize(dtype: DType): number {
  switch (dtype) {
    case 'f64':
    case 'i64':
      return 8;
    case 'f32':
    case 'i32':
    case 'u32':
      return 4;
    case 'f16':
    case 'bf16':
    case 'i16':
    case 'u16':
      return 2;
    case 'i8':
    case 'u8':
    case 'bool':
      return 1;
  }
}

/** True for `f64`, `f32`, `f16`, `bf16`. */
export function isFloatDType(dtype: DType): dtype is FloatDType {
  return dtype === 'f32' || dtype === 'f64' || dtype === 'f16' || dtype === 'bf16';
}

/** True for the signed and unsigned integer dtypes. */
export function isIntDType(dtype: DType): dtype is IntDType {
  return dtype !== 'bool' && !isFloatDType(dtype);
}

/** True for the unsigned integer dtypes. */
export function isUnsignedDType(dtype: DType): boolean {
  return dtype === 'u8' || dtype === 'u16' || dtype === 'u32';
}

/** Checks that `value` names a dtype. */
export function assertDType(value: unknown, op: string): DType {
  if (typeof value === 'string' && (DTYPES as readonly string[]).includes(value)) return value as DType;
  throw new BurnError(op, `unknown dtype ${JSON.stringify(value)}; expected one of ${DTYPES.join(', ')}`);
}

/** Range of an integer dtype (i64 is limited to the exactly representable doubles). */
export function intRange(dtype: IntDType): [number, number] {
  switch (dtype) {
    case 'i64':
      return [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    case 'i32':
      return [-2147483648, 2147483647];
    case 'i16':
      return [-32768, 32767];
    case 'i8':
      return [-128, 127];
    case 'u32':
      return [0, 4294967295];
    case 'u16':
      return [0, 65535];
    case 'u8':
      return [0, 255];
  }
}

/** True when `value` converts to `dtype` exactly up to truncation: finite and, truncated toward zero, inside {@link intRange}. */
export function fitsInt(value: number, dtype: IntDType): boolean {
  const t = Math.trunc(value);
  // A switch, not intRange: this runs on every scalar op of an integer tensor (no allocation).
  switch (dtype) {
    case 'i32':
      return t >= -2147483648 && t <= 2147483647; // all false for NaN
    case 'i64':
      return t >= Number.MIN_SAFE_INTEGER && t <= Number.MAX_SAFE_INTEGER;
    case 'i16':
      return t >= -32768 && t <= 32767;
    case 'i8':
      return t >= -128 && t <= 127;
    case 'u32':
      return t >= 0 && t <= 4294967295;
    case 'u16':
      return t >= 0 && t <= 65535;
    case 'u8':
      return t >= 0 && t <= 255;
  }
}

/** The expectation part of an out-of-range message: `expected 0 <= value <= 255`. */
export function intRangeText(dtype: IntDType): string {
  const [lo, hi] = intRange(dtype);
  // i64 holds more than a number can say exactly; BigInt64Array data carries the rest.
  return `expected ${lo} <= value <= ${hi}${dtype === 'i64' ? ' (larger i64 values need a BigInt64Array)' : ''}`;
}

/**
 * Refuses a literal value (a fill value, a scalar operand) that `dtype` cannot hold, where a
 * conversion would silently saturate: as PyTorch, out-of-range literals are errors. `what` names
 * the value in the message (`value`, `scalar`). Fractions in range truncate, as PyTorch's.
 */
export function checkIntLiteral(value: number, dtype: IntDType, op: string, what = 'value'): void {
  if (!fitsInt(value, dtype))
    throw new BurnError(op, `${what} ${value} is out of range for ${dtype}; ${intRangeText(dtype)}`);
}

/** Refuses the first of `values` (host data being created as `dtype`) that `dtype` cannot hold; one pass, creation only. */
export function checkIntValues(values: ArrayLike<number> | ArrayLike<bigint>, dtype: IntDType, op: string): void {
  const [lo, hi] = intRange(dtype);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v === 'bigint') {
      const ok = dtype === 'i64' ? v >= -(2n ** 63n) && v < 2n ** 63n : v >= BigInt(lo) && v <= BigInt(hi);
      if (!ok)
        throw new BurnError(
          op,
          `value ${v} at position ${i} is out of range for ${dtype}; ${dtype === 'i64' ? `expected ${-(2n ** 63n)} <= value < ${2n ** 63n}` : intRangeText(dtype)}`,
        );
      continue;
    }
    const t = Math.trunc(v);
    if (t >= lo && t <= hi) continue;
    if (!Number.isFinite(v))
      throw new BurnError(op, `value ${v} at position ${i} cannot be stored as ${dtype}; ${intRangeText(dtype)}`);
    throw new BurnError(op, `value ${v} at position ${i} is out of range for ${dtype}; ${intRangeText(dtype)}`);
  }
}

// --- half precision conversion (shared by storage, TensorData and kernels) ---

const f32Buf = new Float32Array(1);
const u32Buf = new Uint32Array(f32Buf.buffer);

/** Rounds a number to the nearest IEEE binary16 value and returns its bits (round half to even). */
export function f32ToF16Bits(value: number): number {
  f32Buf[0] = value;
  const x = u32Buf[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf / nan
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow -> inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow -> signed zero
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let m = mant >>> shift;
    if (rest > half || (rest === half && m & 1)) m++;
    return sign | m;
  }
  let m = mant >>> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && m & 1)) {
    m++;
    if (m === 0x400) {
      m = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

/** Decodes IEEE binary16 bits. */
export function f16BitsToF32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Rounds a number to the nearest bfloat16 value and returns its bits (round half to even). */
export function f32ToBf16Bits(value: number): number {
  f32Buf[0] = value;
  const x = u32Buf[0]!;
  if ((x & 0x7f800000) === 0x7f800000 && x & 0x7fffff) return ((x >>> 16) | 0x40) & 0xffff; // quiet nan
  const rounded = x + 0x7fff + ((x >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}

/** Decodes bfloat16 bits. */
export function bf16BitsToF32(bits: number): number {
  u32Buf[0] = (bits & 0xffff) << 16;
  return f32Buf[0]!;
}
