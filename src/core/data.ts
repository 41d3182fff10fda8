import { assertDType, checkIntLiteral, checkIntValues, isIntDType, type DType } from './dtype.js';
import {
  allocStorage,
  storageFromBytes,
  storageFromNumbers,
  storageToNumbers,
  type NumericArray,
  type StorageArray,
} from './element.js';
import { BurnError, fmt } from './errors.js';
import { flattenNested, unflatten, type Nested } from './nested.js';
import { checkShape, numel, sameShape, type Shape } from './shape.js';
import { Tolerance } from './tolerance.js';

/**
 * Tensor values on the host: a shape, a dtype and the elements in row-major order.
 * This is what `tensor.toData()` returns and what `Tensor.fromData` takes.
 */
export class TensorData {
  /** The shape. */
  readonly shape: number[];
  /** The element type. */
  readonly dtype: DType;
  /** Row-major element storage (f16/bf16 as raw bits, i64 as BigInt64Array, bool as 0/1 bytes). */
  readonly values: StorageArray;

  /**
   * Creates data from values. Numbers are converted to `dtype` (default: `f32`, or `bool` for
   * booleans); typed arrays already of the storage type of `dtype` are used as they are. A value
   * an integer dtype cannot hold is refused (fractions truncate); {@link convert} saturates instead.
   */
  constructor(
    values: ArrayLike<number> | ArrayLike<boolean> | StorageArray | readonly bigint[],
    shape: Shape,
    dtype?: DType,
  ) {
    checkShape(shape, 'TensorData');
    const n = numel(shape);
    if (values.length !== n)
      throw new BurnError('TensorData', `${values.length} values do not fill shape ${fmt(shape)} (${n} elements)`);
    const first = values[0];
    const dt = dtype === undefined ? (typeof first === 'boolean' ? 'bool' : 'f32') : assertDType(dtype, 'TensorData');
    this.shape = [...shape];
    this.dtype = dt;
    this.values = toStorage(values, dt);
  }

  /** Builds data from nested arrays of numbers or booleans; the shape comes from the nesting. */
  static from(values: Nested<number> | Nested<boolean>, dtype?: DType): TensorData {
    const { values: flat, shape } = flattenNested<number | boolean>(values, 'TensorData.from');
    return new TensorData(
      flat as number[] | boolean[],
      shape,
      dtype ?? (typeof flat[0] === 'boolean' ? 'bool' : 'f32'),
    );
  }

  /** Data from raw little-endian bytes (as in SafeTensors and burnpack files). */
  static fromBytes(bytes: Uint8Array, shape: Shape, dtype: DType): TensorData {
    checkShape(shape, 'TensorData.fromBytes');
    const n = numel(shape);
    const size = dtype === 'bool' ? 1 : bytesPerElement(dtype);
    if (bytes.byteLength !== n * size) {
      throw new BurnError(
        'TensorData.fromBytes',
        `${bytes.byteLength} bytes for shape ${fmt(shape)} of ${dtype}; expected ${n * size}`,
      );
    }
    return new TensorData(storageFromBytes(bytes, dtype, n), shape, dtype);
  }

  /** Zeroed data. */
  static zeros(shape: Shape, dtype: DType = 'f32'): TensorData {
    checkShape(shape, 'TensorData.zeros');
    return new TensorData(allocStorage(dtype, numel(shape)), shape, dtype);
  }

  /**
   * Data of `shape` with `value` everywhere (Burn's `TensorData::full`); the dtype defaults to
   * `f32`, or `bool` for a boolean, and an integer dtype must hold the value.
   */
  static full(shape: Shape, value: number | boolean, dtype?: DType): TensorData {
    const op = 'TensorData.full';
    checkShape(shape, op);
    const dt = dtype === undefined ? (typeof value === 'boolean' ? 'bool' : 'f32') : assertDType(dtype, op);
    const v = Number(value);
    if (isIntDType(dt)) checkIntLiteral(v, dt, op);
    const one = storageFromNumbers([v], dt);
    const out = allocStorage(dt, numel(shape));
    // One element converted (f16 bits, i64 as a bigint), then copied everywhere.
    (out as { fill(x: number | bigint): unknown }).fill(one[0]!);
    return new TensorData(out, shape, dt);
  }

  /** Number of elements. */
  numElements(): number {
    return this.values.length;
  }

  /** The raw little-endian bytes (a view, not a copy). */
  get bytes(): Uint8Array {
    return new Uint8Array(this.values.buffer, this.values.byteOffset, this.values.byteLength);
  }

  /**
   * The values as numbers: Float32Array for f32/f16/bf16, Float64Array for f64 and i64 (an i64
   * beyond ±2^53 throws instead of rounding), the matching integer array otherwise, Uint8Array of
   * 0/1 for bool.
   */
  toArray(): NumericArray {
    if (this.values instanceof BigInt64Array) {
      for (const v of this.values) {
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
          throw new BurnError(
            'TensorData.toArray',
            `i64 value ${v} is not exactly representable as a number; use .values (BigInt64Array)`,
          );
        }
      }
    }
    return storageToNumbers(this.values, this.dtype);
  }

  /** The values as nested JavaScript arrays (booleans for bool data), like PyTorch's `tolist()`. */
  toList(): Nested<number> | Nested<boolean> {
    const flat = this.toArray();
    if (this.dtype === 'bool')
      return unflatten(
        Array.from(flat, (v) => v !== 0),
        this.shape,
      );
    return unflatten(Array.from(flat), this.shape);
  }

  /** Converts to another dtype with Burn's cast rules (floats to ints truncate and saturate). */
  convert(dtype: DType): TensorData {
    if (dtype === this.dtype) return this;
    return new TensorData(storageFromNumbers(this.toArray(), dtype), this.shape, dtype);
  }

  /** Asserts equal shape and values (and dtype when `strict`), throwing a BurnError naming the first differences. */
  assertEq(other: TensorData, strict = true): void {
    if (strict && this.dtype !== other.dtype)
      throw new BurnError('TensorData.assertEq', `dtypes differ (${this.dtype} != ${other.dtype})`);
    this.compare(other, 'TensorData.assertEq', (a, b) => a === b || (Number.isNaN(a) && Number.isNaN(b)));
  }

  /**
   * Asserts equal shape and approximately equal values under `tolerance` (default
   * {@link Tolerance.default}); two NaNs count as equal, as in Burn.
   */
  assertApproxEq(other: TensorData, tolerance: Tolerance = Tolerance.default()): void {
    this.compare(
      other,
      'TensorData.assertApproxEq',
      (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || tolerance.approxEq(a, b),
    );
  }

  private compare(other: TensorData, op: string, eq: (a: number, b: number) => boolean): void {
    if (!sameShape(this.shape, other.shape))
      throw new BurnError(op, `shapes differ: ${fmt(this.shape)} != ${fmt(other.shape)}`);
    const a = this.toArray();
    const b = other.toArray();
    const lines: string[] = [];
    let count = 0;
    for (let i = 0; i < a.length; i++) {
      if (!eq(a[i]!, b[i]!)) {
        if (count < 10) lines.push(`  => position ${i}: ${a[i]} != ${b[i]} (difference ${Math.abs(a[i]! - b[i]!)})`);
        count++;
      }
    }
    if (count > 0) {
      throw new BurnError(
        op,
        `tensors differ at ${count} of ${a.length} positions:\n${lines.join('\n')}${count > 10 ? `\n  … ${count - 10} more` : ''}`,
      );
    }
  }
}

function bytesPerElement(dtype: DType): number {
  return allocStorage(dtype, 0).BYTES_PER_ELEMENT;
}

function toStorage(
  values: ArrayLike<number> | ArrayLike<boolean> | StorageArray | readonly bigint[],
  dtype: DType,
): StorageArray {
  if (ArrayBuffer.isView(values) && allocStorage(dtype, 0).constructor === values.constructor) {
    // Already the storage type: half precision arrays hold bits only when declared so.
    if (!((dtype === 'f16' || dtype === 'bf16') && !(values instanceof Uint16Array))) return values as StorageArray;
  }
  if (values instanceof BigInt64Array || (values.length > 0 && typeof values[0] === 'bigint')) {
    const big = values as ArrayLike<bigint>;
    if (isIntDType(dtype)) checkIntValues(big, dtype, 'TensorData');
    if (dtype === 'i64') return BigInt64Array.from(Array.from(big));
    return storageFromNumbers(
      Array.from(big, (v) => Number(v)),
      dtype,
    );
  }
  const nums = values as ArrayLike<number | boolean>;
  if (nums.length > 0 && typeof nums[0] === 'boolean') {
    return storageFromNumbers(
      Array.from(nums, (v) => (v ? 1 : 0)),
      dtype,
    );
  }
  // Creation, not a cast: a value the dtype cannot hold is an error, never a saturated value.
  if (isIntDType(dtype)) checkIntValues(nums as ArrayLike<number>, dtype, 'TensorData');
  return storageFromNumbers(nums as ArrayLike<number>, dtype);
}
