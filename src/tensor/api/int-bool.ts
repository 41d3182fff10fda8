import type { TensorPrimitive } from '../../backend/backend.js';
import type { BinaryOp } from '../../backend/ops.js';
import { assertDType, isFloatDType, isIntDType, type DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import type { Bool, Float, Int, Kind } from '../kind.js';
import { contiguousStrides } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { dataOf } from './base.js';
import { TensorFloat } from './float.js';

/** Int bitwise ops, Bool logic, kind conversions and nonzero (Burn's `api/int.rs`, `api/bool.rs`). */
export class TensorIntBool<D extends number = number, K extends Kind = Float> extends TensorFloat<D, K> {
  private bitwise(op: BinaryOp, other: Tensor<D, Int> | number, name: string): Tensor<D, Int> {
    if (!isIntDType(this.primitive.dtype))
      throw new BurnError(name, `needs an Int tensor, got ${this.primitive.dtype}`);
    return this.wrap<D, Int>(this.binaryOp(op, other, name));
  }

  /** Bitwise and. */
  bitwiseAnd(this: Tensor<D, Int>, other: Tensor<D, Int> | number): Tensor<D, Int> {
    return this.bitwise('and', other, 'bitwiseAnd');
  }
  /** Bitwise or. */
  bitwiseOr(this: Tensor<D, Int>, other: Tensor<D, Int> | number): Tensor<D, Int> {
    return this.bitwise('or', other, 'bitwiseOr');
  }
  /** Bitwise xor. */
  bitwiseXor(this: Tensor<D, Int>, other: Tensor<D, Int> | number): Tensor<D, Int> {
    return this.bitwise('xor', other, 'bitwiseXor');
  }
  /** Shifts left by `other` bits. */
  bitwiseLeftShift(this: Tensor<D, Int>, other: Tensor<D, Int> | number): Tensor<D, Int> {
    return this.bitwise('shl', other, 'bitwiseLeftShift');
  }
  /** Shifts right by `other` bits (arithmetic for signed dtypes). */
  bitwiseRightShift(this: Tensor<D, Int>, other: Tensor<D, Int> | number): Tensor<D, Int> {
    return this.bitwise('shr', other, 'bitwiseRightShift');
  }
  /** Bitwise not. */
  bitwiseNot(this: Tensor<D, Int>): Tensor<D, Int> {
    if (!isIntDType(this.primitive.dtype))
      throw new BurnError('bitwiseNot', `needs an Int tensor, got ${this.primitive.dtype}`);
    return this.wrap<D, Int>(this.backend.unary('not', this.primitive));
  }

  /** Converts to a Float tensor (`dtype`, default f32); bool gives 0 and 1. */
  float(this: Tensor<D, Int> | Tensor<D, Bool>, dtype: DType = 'f32'): Tensor<D, Float> {
    if (!isFloatDType(assertDType(dtype, 'float')))
      throw new BurnError('float', `dtype ${dtype}; expected a float dtype (f32, f64, f16, bf16)`);
    return this.wrap<D, Float>(this.backend.cast(this.primitive, dtype));
  }
  /** Converts to an Int tensor (`dtype`, default i32): floats truncate toward zero and saturate. */
  int(this: Tensor<D, Float> | Tensor<D, Bool>, dtype: DType = 'i32'): Tensor<D, Int> {
    if (!isIntDType(assertDType(dtype, 'int')))
      throw new BurnError('int', `dtype ${dtype}; expected an integer dtype (i64, i32, i16, i8, u32, u16, u8)`);
    return this.wrap<D, Int>(this.backend.cast(this.primitive, dtype));
  }

  private logic(op: BinaryOp, other: Tensor<D, Bool>, name: string): Tensor<D, Bool> {
    if (this.primitive.dtype !== 'bool' || other.primitive.dtype !== 'bool')
      throw new BurnError(name, `needs Bool tensors, got ${this.primitive.dtype} and ${other.primitive.dtype}`);
    return this.wrap<D, Bool>(this.binaryOp(op, other, name));
  }
  /** Logical not. */
  boolNot(this: Tensor<D, Bool>): Tensor<D, Bool> {
    if (this.primitive.dtype !== 'bool')
      throw new BurnError('boolNot', `needs a Bool tensor, got ${this.primitive.dtype}`);
    return this.wrap<D, Bool>(this.backend.unary('not', this.primitive));
  }
  /** Logical and. */
  boolAnd(this: Tensor<D, Bool>, other: Tensor<D, Bool>): Tensor<D, Bool> {
    return this.logic('and', other, 'boolAnd');
  }
  /** Logical or. */
  boolOr(this: Tensor<D, Bool>, other: Tensor<D, Bool>): Tensor<D, Bool> {
    return this.logic('or', other, 'boolOr');
  }
  /** Logical xor. */
  boolXor(this: Tensor<D, Bool>, other: Tensor<D, Bool>): Tensor<D, Bool> {
    return this.logic('xor', other, 'boolXor');
  }

  /**
   * For each dim, the indices of the true elements (reads synchronously; see {@link nonzeroAsync});
   * as Burn, an empty list when no element is true.
   */
  nonzero(this: Tensor<D, Bool>): Tensor<1, Int>[] {
    return this.splitArgwhere(this.argwhereSync('nonzero'));
  }
  /** For each dim, the indices of the true elements; an empty list when no element is true. */
  async nonzeroAsync(this: Tensor<D, Bool>): Promise<Tensor<1, Int>[]> {
    this.expectBool('nonzeroAsync');
    return this.splitArgwhere(await this.argwhereAsync());
  }
  private splitArgwhere(rows: Tensor<2, Int>): Tensor<1, Int>[] {
    const rank = this.primitive.shape.length;
    if (rows.primitive.shape[0] === 0) return [];
    return Array.from({ length: rank }, (_, d) => rows.sliceDim(1, [d, d + 1]).flatten(0, 1));
  }
  /** The multi-indices of the true elements, one row each: `[count, rank]` (reads synchronously). */
  argwhere(this: Tensor<D, Bool>): Tensor<2, Int> {
    return this.argwhereSync('argwhere');
  }
  private argwhereSync(op: string): Tensor<2, Int> {
    this.expectBool(op);
    const data = this.backend.toDataSync(this.primitive);
    if (!data) throw new BurnError(op, `${this.dev} cannot read synchronously; use await tensor.${op}Async()`);
    return this.argwhereOf(data.toArray());
  }
  /** The multi-indices of the true elements, one row each: `[count, rank]`. */
  async argwhereAsync(this: Tensor<D, Bool>): Promise<Tensor<2, Int>> {
    this.expectBool('argwhereAsync');
    return this.argwhereOf((await this.backend.toData(this.primitive)).toArray());
  }
  private expectBool(op: string): void {
    if (this.primitive.dtype !== 'bool') throw new BurnError(op, `needs a Bool tensor, got ${this.primitive.dtype}`);
  }
  private argwhereOf(values: ArrayLike<number>): Tensor<2, Int> {
    const shape = this.primitive.shape;
    const strides = contiguousStrides(shape);
    const rows: number[] = [];
    for (let i = 0; i < values.length; i++) {
      if (!values[i]) continue;
      for (let d = 0; d < shape.length; d++) rows.push(Math.floor(i / strides[d]!) % shape[d]!);
    }
    const p: TensorPrimitive = this.backend.fromData(
      dataOf(Int32Array.from(rows), [rows.length / Math.max(shape.length, 1), shape.length]),
    );
    return this.wrap<2, Int>(p);
  }
}
