import type { TensorPrimitive } from '../../backend/backend.js';
import type { BinaryOp, CompareOp, ReduceOp } from '../../backend/ops.js';
import { TensorData } from '../../core/data.js';
import { checkIntLiteral, isFloatDType, isIntDType } from '../../core/dtype.js';
import { BurnError, fmt, renameError } from '../../core/errors.js';
import type { Bool, Float, Inc, Int, Kind, Numeric, Sub } from '../kind.js';
import { broadcastShapes, checkNumel, MAX_ELEMENTS, normDim, normDims, numel, sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { dataOf, reduceHint, refuseArgs, type TensorBase } from './base.js';
import { TensorIndexing } from './indexing.js';

/** A tensor operand or a scalar. */
type Operand<D extends number, K extends Kind> = Tensor<D, K> | number;

/** Arithmetic, reductions, comparisons, ordering and matmul for Float and Int tensors (Burn's `api/numeric.rs`, `orderable.rs`). */
export class TensorNumeric<D extends number = number, K extends Kind = Float> extends TensorIndexing<D, K> {
  /**
   * @internal Applies a broadcasting binary op with a tensor or scalar. A scalar must fit an
   * integer tensor's dtype (as PyTorch: `u8 + 300` is an error, not a saturated 255); Bool
   * tensors take only the logical ops. Checks are O(1) beside the broadcast.
   */
  binaryOp(op: BinaryOp, other: TensorBase<number, Kind> | number, name: string): TensorPrimitive {
    const dtype = this.primitive.dtype;
    if (dtype === 'bool' && op !== 'and' && op !== 'or' && op !== 'xor' && op !== 'max' && op !== 'min') {
      throw new BurnError(name, 'is not defined for bool tensors; expected a Float or Int tensor');
    }
    if (typeof other === 'number') {
      if (isIntDType(dtype)) checkIntLiteral(other, dtype, name, 'scalar');
      return this.backend.binaryScalar(op, this.primitive, other);
    }
    this.sameDevice(other, name);
    if (!sameShape(this.primitive.shape, other.primitive.shape))
      checkNumel(broadcastShapes(this.primitive.shape, other.primitive.shape, name), name);
    return this.backend.binary(op, this.primitive, this.castLike(other.primitive));
  }

  /** @internal Applies a broadcasting comparison with a tensor or scalar (a scalar must fit an integer tensor's dtype). */
  compareOp(op: CompareOp, other: TensorBase<number, Kind> | number | boolean, name: string): TensorPrimitive {
    if (typeof other === 'number' || typeof other === 'boolean') {
      const dtype = this.primitive.dtype;
      if (isIntDType(dtype)) checkIntLiteral(Number(other), dtype, name, 'scalar');
      return this.backend.compareScalar(op, this.primitive, Number(other));
    }
    this.sameDevice(other, name);
    if (!sameShape(this.primitive.shape, other.primitive.shape))
      checkNumel(broadcastShapes(this.primitive.shape, other.primitive.shape, name), name);
    return this.backend.compare(op, this.primitive, this.castLike(other.primitive));
  }

  /** Elementwise sum (broadcasting). */
  add(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('add', other, 'add'));
  }
  /** Elementwise difference. */
  sub(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('sub', other, 'sub'));
  }
  /** Elementwise product. */
  mul(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('mul', other, 'mul'));
  }
  /** Elementwise quotient (ints truncate toward zero; an int division by zero gives 0). */
  div(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('div', other, 'div'));
  }
  /** Remainder with the sign of the divisor (Python's `%`, Burn's `remainder`). */
  remainder(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('rem', other, 'remainder'));
  }
  /** `-x`. */
  neg(this: Tensor<D, Numeric>): Tensor<D, K> {
    return this.wrap<D, K>(this.backend.unary('neg', this.primitive));
  }
  /** `|x|`. */
  abs(this: Tensor<D, Numeric>): Tensor<D, K> {
    return this.wrap<D, K>(this.backend.unary('abs', this.primitive));
  }
  /** -1, 0 or 1 by sign. */
  sign(this: Tensor<D, Numeric>): Tensor<D, K> {
    return this.wrap<D, K>(this.backend.unary('sign', this.primitive));
  }
  /** `x * x`. */
  square(this: Tensor<D, Numeric>): Tensor<D, K> {
    if (this.primitive.dtype === 'bool')
      throw new BurnError('square', 'is not defined for bool tensors; expected a Float or Int tensor');
    return this.wrap<D, K>(this.backend.binary('mul', this.primitive, this.primitive));
  }
  /** `x^n` for an integer exponent (a scalar or an Int tensor). */
  powi(this: Tensor<D, Numeric>, exponent: Tensor<D, Int> | number): Tensor<D, K> {
    if (typeof exponent === 'number' && !Number.isInteger(exponent))
      throw new BurnError('powi', `exponent ${exponent}; expected an integer (use powf)`);
    return this.wrap<D, K>(this.binaryOp('pow', exponent, 'powi'));
  }

  // --- reductions ---

  private reduceAll(op: ReduceOp): TensorPrimitive {
    const shape = this.primitive.shape;
    const all = shape.map((_, i) => i);
    return this.backend.reshape(this.backend.reduce(op, this.primitive, all), [1]);
  }
  private reduceDims(op: ReduceOp, dims: readonly number[], name: string): TensorPrimitive {
    return this.backend.reduce(op, this.primitive, normDims(dims, this.primitive.shape.length, name));
  }
  /** Sums, products and their scans are not bool ops (Burn's Bool has none): they would leave values other than 0 and 1. */
  private checkNotBool(name: string): void {
    if (this.primitive.dtype === 'bool')
      throw new BurnError(name, 'is not defined for bool tensors; convert with .int() first');
  }
  private checkNonEmpty(name: string): void {
    if (numel(this.primitive.shape) === 0)
      throw new BurnError(name, `cannot reduce an empty tensor of shape ${fmt(this.primitive.shape)}`);
  }
  /** A max/min over `dims` needs elements along them (the other dims may be empty: the result then is, as in PyTorch). */
  private checkReducedDims(name: string, dims: readonly number[]): void {
    const shape = this.primitive.shape;
    for (const d of normDims(dims, shape.length, name)) {
      if (shape[d] === 0)
        throw new BurnError(
          name,
          `cannot reduce over dim ${d} of size 0 (shape ${fmt(shape)}); expected a non-empty reduced dim`,
        );
    }
  }

  /** Sum of all elements, as a 1-element tensor. */
  sum(this: Tensor<D, Numeric>): Tensor<1, K>;
  /**
   * Sum along `dim`, kept with size 1: the same as {@link sumDim} (for the PyTorch habit of
   * `sum(dim)`, which would otherwise be read as a sum of everything).
   */
  sum(this: Tensor<D, Numeric>, dim: number): Tensor<D, K>;
  sum(this: Tensor<D, Numeric>, dim?: number, unexpected?: unknown): Tensor<1, K> | Tensor<D, K> {
    if (unexpected !== undefined || (dim !== undefined && typeof dim !== 'number'))
      refuseArgs(
        'sum',
        [dim, unexpected],
        'sums every element (or along the one dim given)',
        reduceHint('sumDim', 'sumDims'),
        'no argument or one dim',
      );
    this.checkNotBool('sum');
    if (dim !== undefined) return this.wrap<D, K>(this.reduceDims('sum', [dim], 'sum'));
    return this.wrap<1, K>(this.reduceAll('sum'));
  }
  /** Sum along `dim` (kept with size 1). */
  sumDim(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    this.checkNotBool('sumDim');
    return this.wrap<D, K>(this.reduceDims('sum', [dim], 'sumDim'));
  }
  /** Sum along `dims` (kept with size 1). */
  sumDims(this: Tensor<D, Numeric>, dims: readonly number[]): Tensor<D, K> {
    this.checkNotBool('sumDims');
    return this.wrap<D, K>(this.reduceDims('sum', dims, 'sumDims'));
  }
  /** Sum along `dims`, which are then removed (Burn's `sum_dims_squeeze`). */
  sumDimsSqueeze<const S extends readonly number[]>(
    this: Tensor<D, Numeric>,
    dims: S,
  ): Tensor<number extends S['length'] ? number : Sub<D, S['length']>, K> {
    this.checkNotBool('sumDimsSqueeze');
    const shape = this.primitive.shape;
    const ds = normDims(dims, shape.length, 'sumDimsSqueeze');
    const b = this.backend;
    return this.wrap(
      b.reshape(
        b.reduce('sum', this.primitive, ds),
        shape.filter((_, i) => !ds.includes(i)),
      ),
    );
  }
  /** Mean of all elements (ints: integer division). */
  mean(this: Tensor<D, Numeric>): Tensor<1, K>;
  mean(this: Tensor<D, Numeric>, unexpected?: unknown): Tensor<1, K> {
    if (unexpected !== undefined)
      refuseArgs('mean', [unexpected], 'averages every element', reduceHint('meanDim', 'meanDims'));
    const shape = this.primitive.shape;
    if (isIntDType(this.primitive.dtype) && numel(shape) === 0) {
      throw new BurnError(
        'mean',
        `of an empty Int tensor (shape ${fmt(shape)}): an integer mean of nothing has no value (a Float tensor's is NaN)`,
      );
    }
    try {
      return this.wrap<1, K>(this.backend.binaryScalar('div', this.reduceAll('sum'), numel(this.primitive.shape)));
    } catch (e) {
      throw renameError(e, 'mean');
    }
  }
  /** Mean along `dim` (kept). */
  meanDim(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    return this.meanAlong([dim], 'meanDim') as Tensor<D, K>;
  }
  /** Mean along `dims` (kept). */
  meanDims(this: Tensor<D, Numeric>, dims: readonly number[]): Tensor<D, K> {
    return this.meanAlong(dims, 'meanDims') as Tensor<D, K>;
  }
  private meanAlong(dims: readonly number[], op: string): Tensor<D, K> {
    const ds = normDims(dims, this.primitive.shape.length, op);
    const n = ds.reduce((acc, d) => acc * this.primitive.shape[d]!, 1);
    if (n === 0 && isIntDType(this.primitive.dtype)) {
      throw new BurnError(
        op,
        `over dims ${fmt(dims)} of shape ${fmt(this.primitive.shape)}, which are empty: an integer mean of nothing has no value (a Float tensor's is NaN)`,
      );
    }
    try {
      return this.wrap<D, K>(this.backend.binaryScalar('div', this.backend.reduce('sum', this.primitive, ds), n));
    } catch (e) {
      throw renameError(e, op);
    }
  }
  /** Product of all elements. */
  prod(this: Tensor<D, Numeric>): Tensor<1, K>;
  prod(this: Tensor<D, Numeric>, unexpected?: unknown): Tensor<1, K> {
    if (unexpected !== undefined)
      refuseArgs('prod', [unexpected], 'multiplies every element', reduceHint('prodDim', 'prodDims'));
    this.checkNotBool('prod');
    return this.wrap<1, K>(this.reduceAll('prod'));
  }
  /** Product along `dim` (kept). */
  prodDim(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    this.checkNotBool('prodDim');
    return this.wrap<D, K>(this.reduceDims('prod', [dim], 'prodDim'));
  }
  /** Product along `dims` (kept). */
  prodDims(this: Tensor<D, Numeric>, dims: readonly number[]): Tensor<D, K> {
    this.checkNotBool('prodDims');
    return this.wrap<D, K>(this.reduceDims('prod', dims, 'prodDims'));
  }
  /** Maximum of all elements (NaN propagates). */
  max(this: Tensor<D, Numeric>): Tensor<1, K>;
  max(this: Tensor<D, Numeric>, unexpected?: unknown): Tensor<1, K> {
    if (unexpected !== undefined)
      refuseArgs('max', [unexpected], 'reduces every element', reduceHint('maxDim', 'maxDims'));
    this.checkNonEmpty('max');
    return this.wrap<1, K>(this.reduceAll('max'));
  }
  /** Minimum of all elements (NaN propagates). */
  min(this: Tensor<D, Numeric>): Tensor<1, K>;
  min(this: Tensor<D, Numeric>, unexpected?: unknown): Tensor<1, K> {
    if (unexpected !== undefined)
      refuseArgs('min', [unexpected], 'reduces every element', reduceHint('minDim', 'minDims'));
    this.checkNonEmpty('min');
    return this.wrap<1, K>(this.reduceAll('min'));
  }
  /** Maximum along `dim` (kept). */
  maxDim(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    this.checkReducedDims('maxDim', [dim]);
    return this.wrap<D, K>(this.reduceDims('max', [dim], 'maxDim'));
  }
  /** Maximum along `dims` (kept). */
  maxDims(this: Tensor<D, Numeric>, dims: readonly number[]): Tensor<D, K> {
    this.checkReducedDims('maxDims', dims);
    return this.wrap<D, K>(this.reduceDims('max', dims, 'maxDims'));
  }
  /** Minimum along `dim` (kept). */
  minDim(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    this.checkReducedDims('minDim', [dim]);
    return this.wrap<D, K>(this.reduceDims('min', [dim], 'minDim'));
  }
  /** Minimum along `dims` (kept). */
  minDims(this: Tensor<D, Numeric>, dims: readonly number[]): Tensor<D, K> {
    this.checkReducedDims('minDims', dims);
    return this.wrap<D, K>(this.reduceDims('min', dims, 'minDims'));
  }
  /** Maximum along `dim` and its index (first occurrence). */
  maxDimWithIndices(this: Tensor<D, Numeric>, dim: number): [Tensor<D, K>, Tensor<D, Int>] {
    const d = normDim(dim, this.primitive.shape.length, 'maxDimWithIndices');
    this.checkReducedDims('maxDimWithIndices', [d]);
    const idx = this.argmax(d);
    return [this.wrap<D, K>(this.backend.gather(this.primitive, d, idx.primitive)), idx];
  }
  /** Minimum along `dim` and its index (first occurrence). */
  minDimWithIndices(this: Tensor<D, Numeric>, dim: number): [Tensor<D, K>, Tensor<D, Int>] {
    const d = normDim(dim, this.primitive.shape.length, 'minDimWithIndices');
    this.checkReducedDims('minDimWithIndices', [d]);
    const idx = this.argmin(d);
    return [this.wrap<D, K>(this.backend.gather(this.primitive, d, idx.primitive)), idx];
  }
  /** Index of the maximum along `dim` (kept; first occurrence; NaN counts as the maximum). */
  argmax(this: Tensor<D, Numeric>, dim: number): Tensor<D, Int> {
    this.checkReducedDims('argmax', [dim]);
    return this.wrap<D, Int>(
      this.backend.argReduce('argmax', this.primitive, normDim(dim, this.primitive.shape.length, 'argmax')),
    );
  }
  /** Index of the minimum along `dim` (kept; first occurrence). */
  argmin(this: Tensor<D, Numeric>, dim: number): Tensor<D, Int> {
    this.checkReducedDims('argmin', [dim]);
    return this.wrap<D, Int>(
      this.backend.argReduce('argmin', this.primitive, normDim(dim, this.primitive.shape.length, 'argmin')),
    );
  }
  /** Largest absolute value. */
  maxAbs(this: Tensor<D, Numeric>): Tensor<1, K>;
  maxAbs(this: Tensor<D, Numeric>, unexpected?: unknown): Tensor<1, K> {
    if (unexpected !== undefined)
      refuseArgs('maxAbs', [unexpected], 'reduces every element', reduceHint('maxAbsDim', 'maxAbsDims'));
    this.checkNonEmpty('maxAbs');
    return this.abs().max() as Tensor<1, K>;
  }
  /** Largest absolute value along `dim` (kept). */
  maxAbsDim(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    const d = normDim(dim, this.primitive.shape.length, 'maxAbsDim');
    this.checkReducedDims('maxAbsDim', [d]);
    return this.abs().maxDim(d) as Tensor<D, K>;
  }
  /** Largest absolute value along `dims` (kept; Burn's `max_abs_dims`). */
  maxAbsDims(this: Tensor<D, Numeric>, dims: readonly number[]): Tensor<D, K> {
    const ds = normDims(dims, this.primitive.shape.length, 'maxAbsDims');
    this.checkNonEmpty('maxAbsDims');
    return this.wrap<D, K>(this.backend.reduce('max', this.abs().primitive, ds));
  }
  /** Elementwise maximum of two tensors (NaN propagates). */
  maxPair(this: Tensor<D, Numeric>, other: Tensor<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('max', other, 'maxPair'));
  }
  /** Elementwise minimum of two tensors (NaN propagates). */
  minPair(this: Tensor<D, Numeric>, other: Tensor<D, K>): Tensor<D, K> {
    return this.wrap<D, K>(this.binaryOp('min', other, 'minPair'));
  }
  /** Clamps into `[min, max]`. */
  clamp(this: Tensor<D, Numeric>, min: number, max: number): Tensor<D, K> {
    if (min > max) throw new BurnError('clamp', `min ${min} is greater than max ${max}`);
    return this.wrap<D, K>(this.backend.clamp(this.primitive, min, max));
  }
  /** Clamps from below. */
  clampMin(this: Tensor<D, Numeric>, min: number): Tensor<D, K> {
    return this.wrap<D, K>(this.backend.clamp(this.primitive, min, undefined));
  }
  /** Clamps from above. */
  clampMax(this: Tensor<D, Numeric>, max: number): Tensor<D, K> {
    return this.wrap<D, K>(this.backend.clamp(this.primitive, undefined, max));
  }

  // --- scans ---

  /** Cumulative sum along `dim`. */
  cumsum(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    this.checkNotBool('cumsum');
    return this.wrap<D, K>(
      this.backend.scan('sum', this.primitive, normDim(dim, this.primitive.shape.length, 'cumsum')),
    );
  }
  /** Cumulative product along `dim`. */
  cumprod(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    this.checkNotBool('cumprod');
    return this.wrap<D, K>(
      this.backend.scan('prod', this.primitive, normDim(dim, this.primitive.shape.length, 'cumprod')),
    );
  }
  /** Cumulative minimum along `dim`. */
  cummin(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    return this.wrap<D, K>(
      this.backend.scan('min', this.primitive, normDim(dim, this.primitive.shape.length, 'cummin')),
    );
  }
  /** Cumulative maximum along `dim`. */
  cummax(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    return this.wrap<D, K>(
      this.backend.scan('max', this.primitive, normDim(dim, this.primitive.shape.length, 'cummax')),
    );
  }

  // --- comparisons (every kind) ---

  /** `self == other` elementwise. */
  equal(other: Tensor<D, K> | number | boolean): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.compareOp('eq', other, 'equal'));
  }
  /** `self != other` elementwise. */
  notEqual(other: Tensor<D, K> | number | boolean): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.compareOp('ne', other, 'notEqual'));
  }
  /** `self > other` elementwise. */
  greater(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.compareOp('gt', other, 'greater'));
  }
  /** `self >= other` elementwise. */
  greaterEqual(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.compareOp('ge', other, 'greaterEqual'));
  }
  /** `self < other` elementwise. */
  lower(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.compareOp('lt', other, 'lower'));
  }
  /** `self <= other` elementwise. */
  lowerEqual(this: Tensor<D, Numeric>, other: Operand<D, K>): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.compareOp('le', other, 'lowerEqual'));
  }
  /** True if any element is non-zero / true. */
  any(): Tensor<1, Bool>;
  any(unexpected?: unknown): Tensor<1, Bool> {
    if (unexpected !== undefined) refuseArgs('any', [unexpected], 'reduces every element', reduceHint('anyDim'));
    return this.wrap<1, Bool>(this.reduceAll('any'));
  }
  /** Per `dim` (kept): true if any element is non-zero / true. */
  anyDim(dim: number): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.reduceDims('any', [dim], 'anyDim'));
  }
  /** True if every element is non-zero / true. */
  all(): Tensor<1, Bool>;
  all(unexpected?: unknown): Tensor<1, Bool> {
    if (unexpected !== undefined) refuseArgs('all', [unexpected], 'reduces every element', reduceHint('allDim'));
    return this.wrap<1, Bool>(this.reduceAll('all'));
  }
  /** Per `dim` (kept): true if every element is non-zero / true. */
  allDim(dim: number): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.reduceDims('all', [dim], 'allDim'));
  }
  /** `self != 0` as a Bool tensor. */
  bool(this: Tensor<D, Numeric>): Tensor<D, Bool> {
    return this.wrap<D, Bool>(this.backend.cast(this.primitive, 'bool'));
  }

  // --- ordering ---

  /** Sorted ascending along `dim` (stable; NaN last). */
  sort(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    return this.sortWithIndices(dim)[0] as Tensor<D, K>;
  }
  /** Sorted descending along `dim` (stable; NaN first). */
  sortDescending(this: Tensor<D, Numeric>, dim: number): Tensor<D, K> {
    return this.sortDescendingWithIndices(dim)[0] as Tensor<D, K>;
  }
  /** Sorted ascending along `dim`, with the source indices. */
  sortWithIndices(this: Tensor<D, Numeric>, dim: number): [Tensor<D, K>, Tensor<D, Int>] {
    const [v, i] = this.backend.sort(this.primitive, normDim(dim, this.primitive.shape.length, 'sort'), false);
    return [this.wrap<D, K>(v), this.wrap<D, Int>(i)];
  }
  /** Sorted descending along `dim`, with the source indices. */
  sortDescendingWithIndices(this: Tensor<D, Numeric>, dim: number): [Tensor<D, K>, Tensor<D, Int>] {
    const [v, i] = this.backend.sort(this.primitive, normDim(dim, this.primitive.shape.length, 'sortDescending'), true);
    return [this.wrap<D, K>(v), this.wrap<D, Int>(i)];
  }
  /** Indices that sort ascending along `dim`. */
  argsort(this: Tensor<D, Numeric>, dim: number): Tensor<D, Int> {
    return this.sortWithIndices(normDim(dim, this.primitive.shape.length, 'argsort'))[1];
  }
  /** Indices that sort descending along `dim`. */
  argsortDescending(this: Tensor<D, Numeric>, dim: number): Tensor<D, Int> {
    return this.sortDescendingWithIndices(normDim(dim, this.primitive.shape.length, 'argsortDescending'))[1];
  }
  /** The `k` largest values along `dim`, largest first. */
  topk(this: Tensor<D, Numeric>, k: number, dim: number): Tensor<D, K> {
    return this.topkWithIndices(k, dim)[0] as Tensor<D, K>;
  }
  /** The `k` largest values along `dim` with their indices (the first occurrence first on ties). */
  topkWithIndices(this: Tensor<D, Numeric>, k: number, dim: number): [Tensor<D, K>, Tensor<D, Int>] {
    return this.topkOf(k, dim, 'topk') as [Tensor<D, K>, Tensor<D, Int>];
  }
  /** The indices of the `k` largest values along `dim`, largest first (the first occurrence first on ties; Burn's `argtopk`). */
  argtopk(this: Tensor<D, Numeric>, k: number, dim: number): Tensor<D, Int> {
    return this.topkOf(k, dim, 'argtopk')[1];
  }
  private topkOf(this: Tensor<D, Numeric>, k: number, dim: number, op: string): [Tensor<D, K>, Tensor<D, Int>] {
    const d = normDim(dim, this.primitive.shape.length, op);
    const n = this.primitive.shape[d]!;
    if (!(Number.isInteger(k) && k >= 0 && k <= n))
      throw new BurnError(op, `k = ${k} for dim ${dim} of size ${n}; expected 0 <= k <= ${n}`);
    const [v, i] = this.sortDescendingWithIndices(d);
    return [v.sliceDim(d, [0, k]) as Tensor<D, K>, i.sliceDim(d, [0, k])];
  }

  // --- linear algebra ---

  /**
   * Matrix product over the last two dims, broadcasting the leading (batch) dims. Both operands
   * are Float or both Int (as PyTorch, int × float and bool × bool are refused).
   */
  matmul(this: Tensor<D, Numeric>, other: Tensor<D, K>): Tensor<D, K> {
    this.sameDevice(other, 'matmul');
    let a = this.primitive,
      b = other.primitive;
    if (a.dtype === 'bool' || b.dtype === 'bool' || isFloatDType(a.dtype) !== isFloatDType(b.dtype)) {
      throw new BurnError(
        'matmul',
        `operands of dtypes ${a.dtype} and ${b.dtype} (${operandsOf(a, b)}); expected two Float or two Int tensors`,
      );
    }
    if (a.shape.length < 2 || b.shape.length < 2) {
      throw new BurnError(
        'matmul',
        `operands of shapes ${fmt(a.shape)} and ${fmt(b.shape)}; expected rank >= 2 (use dot for vectors)`,
      );
    }
    if (a.shape[a.shape.length - 1] !== b.shape[b.shape.length - 2]) {
      throw new BurnError('matmul', `inner dimensions differ: ${operandsOf(a, b)}; expected lhs[-1] == rhs[-2]`);
    }
    const rank = Math.max(a.shape.length, b.shape.length);
    if (rank > 2 || a.shape[0]! * b.shape[1]! > MAX_ELEMENTS) checkMatmulShapes(a.shape, b.shape);
    const lift = (p: TensorPrimitive) =>
      p.shape.length === rank
        ? p
        : this.backend.reshape(p, [...new Array<number>(rank - p.shape.length).fill(1), ...p.shape]);
    a = lift(a);
    b = lift(this.castLike(b));
    return this.wrap<D, K>(this.backend.matmul(a, b));
  }
  /** Dot product of two vectors, as a 1-element tensor. */
  dot(this: Tensor<1, Numeric>, other: Tensor<1, K>): Tensor<1, K> {
    if (
      this.primitive.shape.length !== 1 ||
      other.primitive.shape.length !== 1 ||
      this.primitive.shape[0] !== other.primitive.shape[0]
    ) {
      throw new BurnError(
        'dot',
        `operands of shapes ${fmt(this.primitive.shape)} and ${fmt(other.primitive.shape)}; expected two vectors of equal length`,
      );
    }
    return this.mul(other as Tensor<1, Numeric> as never).sum() as unknown as Tensor<1, K>;
  }

  // --- triangles and one-hot ---

  /** Zeroes the elements below the `diagonal`-th diagonal of the last two dims. */
  triu(this: Tensor<D, Numeric>, diagonal = 0): Tensor<D, K> {
    return this.wrap<D, K>(this.triangle('triu', diagonal));
  }
  /** Zeroes the elements above the `diagonal`-th diagonal of the last two dims. */
  tril(this: Tensor<D, Numeric>, diagonal = 0): Tensor<D, K> {
    return this.wrap<D, K>(this.triangle('tril', diagonal));
  }
  private triangle(which: 'triu' | 'tril', diagonal: number): TensorPrimitive {
    const shape = this.primitive.shape;
    if (shape.length < 2) throw new BurnError(which, `tensor of shape ${fmt(shape)}; expected rank >= 2`);
    const [r, c] = shape.slice(-2) as [number, number];
    const keep = new Uint8Array(r * c);
    for (let i = 0; i < r; i++)
      for (let j = 0; j < c; j++) keep[i * c + j] = which === 'triu' ? +(j - i >= diagonal) : +(j - i <= diagonal);
    const mask = this.backend.fromData(new TensorData(keep, [r, c], 'bool'));
    return this.backend.where(mask, this.primitive, this.backend.fill([], 0, this.primitive.dtype));
  }

  /** One-hot encoding of class indices with `numClasses` classes, as a new last dim (0 and 1 of this tensor's kind). */
  oneHot(this: Tensor<D, Numeric>, numClasses: number): Tensor<Inc<D>, K> {
    return this.oneHotWith(numClasses, 1, 0, -1, 'oneHot') as Tensor<Inc<D>, K>;
  }
  /** One-hot with custom on/off values at `axis`; negative indices count from `numClasses` (ONNX). */
  oneHotFill(
    this: Tensor<D, Numeric>,
    numClasses: number,
    onValue: number,
    offValue: number,
    axis = -1,
  ): Tensor<Inc<D>, K> {
    return this.oneHotWith(numClasses, onValue, offValue, axis, 'oneHotFill') as Tensor<Inc<D>, K>;
  }
  private oneHotWith(
    numClasses: number,
    onValue: number,
    offValue: number,
    axis: number,
    op: string,
  ): Tensor<Inc<D>, K> {
    if (!(Number.isInteger(numClasses) && numClasses > 0))
      throw new BurnError(op, `numClasses ${numClasses}; expected a positive integer`);
    const shape = this.primitive.shape;
    const rank = shape.length + 1;
    const ax = normDim(axis, rank, op);
    checkNumel([...shape.slice(0, ax), numClasses, ...shape.slice(ax)], op);
    const dtype = this.primitive.dtype;
    if (isIntDType(dtype)) {
      checkIntLiteral(onValue, dtype, op);
      checkIntLiteral(offValue, dtype, op);
    }
    const b = this.backend;
    let indices = this.primitive;
    const data = b.toDataSync(indices);
    if (data) {
      for (const v of data.toArray()) {
        if (!(v >= -numClasses && v < numClasses))
          throw new BurnError(op, `class index ${v} is out of range for ${numClasses} classes`);
      }
    } else if (b.checkIndices) {
      // A device that reads asynchronously (WebGPU) checks them itself; reads of the result throw.
      indices = b.checkIndices(
        indices,
        -numClasses,
        numClasses,
        (v) => new BurnError(op, `class index ${v} is out of range for ${numClasses} classes`),
      );
    }
    // Indices as i32, negative ones wrapped, compared against 0..numClasses along the new axis.
    let idx = b.cast(indices, 'i32');
    idx = b.where(b.compareScalar('lt', idx, 0), b.binaryScalar('add', idx, numClasses), idx);
    const expanded = b.reshape(idx, [...shape.slice(0, ax), 1, ...shape.slice(ax)]);
    const classes = b.reshape(
      b.arange(0, numClasses, 1, 'i32'),
      Array.from({ length: rank }, (_, i) => (i === ax ? numClasses : 1)),
    );
    const hot = b.compare('eq', expanded, classes);
    return this.wrap<Inc<D>, K>(b.where(hot, b.fill([], onValue, dtype), b.fill([], offValue, dtype)));
  }

  /** @internal True for float dtypes. */
  isFloat(): boolean {
    return isFloatDType(this.primitive.dtype);
  }
  /** @internal Index tensor helper for subclasses. */
  indexData(values: Int32Array, shape?: readonly number[]): TensorData {
    return dataOf(values, shape);
  }
}

function operandsOf(a: TensorPrimitive, b: TensorPrimitive): string {
  return `lhs ${fmt(a.shape)} and rhs ${fmt(b.shape)}`;
}

/** Checks that the batch dims of two matmul operands (rank >= 2, inner dims equal) broadcast and the product fits the element limit. O(rank). */
function checkMatmulShapes(a: readonly number[], b: readonly number[]): void {
  const rank = Math.max(a.length, b.length);
  const m = a[a.length - 2]!,
    n = b[b.length - 1]!;
  const batch = new Array<number>(rank - 2);
  let count = m * n;
  for (let i = 0; i < rank - 2; i++) {
    const da = i < rank - a.length ? 1 : a[i - (rank - a.length)]!;
    const db = i < rank - b.length ? 1 : b[i - (rank - b.length)]!;
    if (da !== db && da !== 1 && db !== 1) {
      throw new BurnError(
        'matmul',
        `batch dims of lhs ${fmt(a)} and rhs ${fmt(b)} cannot be broadcast together (batch dim ${i}: ${da} vs ${db}); expected equal sizes or 1`,
      );
    }
    batch[i] = da === 1 ? db : da;
    count *= batch[i]!;
  }
  if (count > MAX_ELEMENTS) {
    throw new BurnError(
      'matmul',
      `output shape ${fmt([...batch, m, n])} of lhs ${fmt(a)} and rhs ${fmt(b)} has ${count} elements; expected at most ${MAX_ELEMENTS} (2^32 - 1) elements per tensor`,
    );
  }
}
