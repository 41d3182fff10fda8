import {
  bf16BitsToF32,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
  intRange,
  isFloatDType,
  type DType,
} from './dtype.js';

/** A typed array holding numbers. */
export type NumericArray =
  | Float32Array
  | Float64Array
  | Int32Array
  | Int16Array
  | Int8Array
  | Uint32Array
  | Uint16Array
  | Uint8Array;

/** The typed array that stores each dtype in {@link TensorData}: f16/bf16 as raw bits, i64 as BigInt64Array, bool as 0/1 bytes. */
export type StorageArray = NumericArray | BigInt64Array;

type NumericCtor = {
  new (n: number): NumericArray;
  new (buf: ArrayBufferLike, off: number, len: number): NumericArray;
  BYTES_PER_ELEMENT: number;
};

const CTORS: Record<Exclude<DType, 'i64'>, NumericCtor> = {
  f64: Float64Array,
  f32: Float32Array,
  f16: Uint16Array,
  bf16: Uint16Array,
  i32: Int32Array,
  i16: Int16Array,
  i8: Int8Array,
  u32: Uint32Array,
  u16: Uint16Array,
  u8: Uint8Array,
  bool: Uint8Array,
};

/** Allocates zeroed storage for `n` elements of `dtype`. */
export function allocStorage(dtype: DType, n: number): StorageArray {
  return dtype === 'i64' ? new BigInt64Array(n) : new CTORS[dtype](n);
}

/** Views raw little-endian bytes as the storage of `dtype` (copying when unaligned). */
export function storageFromBytes(bytes: Uint8Array, dtype: DType, n: number): StorageArray {
  const size = dtype === 'i64' ? 8 : CTORS[dtype].BYTES_PER_ELEMENT;
  // A copy, not `slice()`: a Node Buffer's slice is a view at the same unaligned offset.
  const aligned = bytes.byteOffset % size === 0 ? bytes : new Uint8Array(bytes);
  return dtype === 'i64'
    ? new BigInt64Array(aligned.buffer, aligned.byteOffset, n)
    : new CTORS[dtype](aligned.buffer, aligned.byteOffset, n);
}

/** Converts one number to the value stored for `dtype`, with Burn's cast rules (floats to ints truncate and saturate, NaN to 0). */
export function castNumber(value: number, dtype: DType): number {
  if (isFloatDType(dtype)) return value;
  if (dtype === 'bool') return value !== 0 ? 1 : 0;
  if (Number.isNaN(value)) return 0;
  const [lo, hi] = intRange(dtype);
  const t = Math.trunc(value);
  return t < lo ? lo : t > hi ? hi : t;
}

/** Writes numbers into storage of `dtype` (encoding half precision, converting ints). */
export function storageFromNumbers(values: ArrayLike<number>, dtype: DType): StorageArray {
  const n = values.length;
  const out = allocStorage(dtype, n);
  if (dtype === 'i64') {
    const o = out as BigInt64Array;
    for (let i = 0; i < n; i++) o[i] = BigInt(castNumber(values[i]!, dtype));
  } else if (dtype === 'f16') {
    for (let i = 0; i < n; i++) out[i] = f32ToF16Bits(values[i]!);
  } else if (dtype === 'bf16') {
    for (let i = 0; i < n; i++) out[i] = f32ToBf16Bits(values[i]!);
  } else if (isFloatDType(dtype)) {
    (out as NumericArray).set(values);
  } else {
    for (let i = 0; i < n; i++) out[i] = castNumber(values[i]!, dtype);
  }
  return out;
}

/** Reads storage of `dtype` as numbers: half precision decoded into a Float32Array, i64 into a Float64Array. */
export function storageToNumbers(storage: StorageArray, dtype: DType): NumericArray {
  if (dtype === 'f16' || dtype === 'bf16') {
    const decode = dtype === 'f16' ? f16BitsToF32 : bf16BitsToF32;
    const out = new Float32Array(storage.length);
    for (let i = 0; i < out.length; i++) out[i] = decode(storage[i] as number);
    return out;
  }
  if (storage instanceof BigInt64Array) {
    const out = new Float64Array(storage.length);
    for (let i = 0; i < out.length; i++) out[i] = Number(storage[i]!);
    return out;
  }
  return storage;
}
