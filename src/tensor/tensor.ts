import type { TensorPrimitive } from '../backend/backend.js';
import { Device } from '../device/device.js';
import { keepInAllScopes, runScope } from '../backend/memory.js';
import { dataOf } from './api/base.js';
import { TensorAutodiff } from './api/autodiff.js';
import { TensorData } from '../core/data.js';
import type { Distribution } from '../core/distribution.js';
import {
  assertDType,
  checkIntLiteral,
  checkIntValues,
  intRange,
  isFloatDType,
  isIntDType,
  type DType,
  type FloatDType,
  type IntDType,
} from '../core/dtype.js';
import { BurnError, fmt, renameError } from '../core/errors.js';
import type { Bool, DepthOf, Float, Inc, Int, Kind, KindOf, RankOf } from './kind.js';
import { flattenNested, type LeafKind, type Nested } from '../core/nested.js';
import { checkNumel, checkShape, normDim, numel, sameShape } from '../core/shape.js';

/** The dims of a rank-`D` tensor: `[number, number]` for rank 2, `number[]` when the rank is not known. */
export type Dims<D extends number> = number[] & (number extends D ? number[] : TupleOf<D>);
type TupleOf<D extends number, Acc extends number[] = []> = Acc['length'] extends D
  ? Acc
  : Acc['length'] extends 12
    ? number[]
    : TupleOf<D, [...Acc, number]>;

/** `T`, unless it is a promise: then `never`, so that an `async` function passed to `Tensor.scope` is a type error. */
export type NotPromise<T> = T extends PromiseLike<unknown> ? never : T;

/**
 * Where and how to create a tensor: the device (default: `Device.default()`) and dtype (default:
 * the device's float or int dtype, `'f32'` and `'i32'` unless set by `Device.configure`).
 */
export interface TensorOptions<DT extends DType = DType> {
  readonly device?: Device;
  readonly dtype?: DT;
}

/** A device, or options naming one. */
export type DeviceOrOptions<DT extends DType = DType> = Device | TensorOptions<DT>;

/** The dtype a creation op uses without one: a fixed dtype, or the device's default float or int dtype ({@link Device.configure}). */
type Fallback = DType | 'float' | 'int';

function resolve<DT extends DType>(
  options: DeviceOrOptions<DT> | undefined,
  fallback: Fallback,
  op: string,
): { device: Device; dtype: DType } {
  const device = options instanceof Device ? options : (options?.device ?? Device.default());
  const given = options instanceof Device ? undefined : options?.dtype;
  if (given !== undefined) return { device, dtype: assertDType(given, op) };
  const dtype =
    fallback === 'float' ? device.defaultFloatDtype() : fallback === 'int' ? device.defaultIntDtype() : fallback;
  return { device, dtype };
}

/**
 * An n-dimensional array of rank `D` and kind `K` (`Float` by default, `Int` or `Bool`) on a
 * {@link Device}. Tensors are immutable: every op returns a new tensor. Reading values back is
 * asynchronous on every device (`await t.toData()`); the CPU also offers `toDataSync()`.
 *
 * ```ts
 * const a = Tensor.fromFloats([[1, 2], [3, 4]]);   // Tensor<2>
 * const b = a.matmul(a.transpose()).relu().sum();  // Tensor<1>
 * console.log(await b.intoScalar());
 * ```
 */
export class Tensor<D extends number = number, K extends Kind = Float> extends TensorAutodiff<D, K> {
  /** @internal Wraps a backend primitive (used by decorators and modules). */
  static fromPrimitive<D extends number = number, K extends Kind = Float>(
    primitive: TensorPrimitive,
    device: Device,
  ): Tensor<D, K> {
    return new Tensor<D, K>(device, primitive);
  }

  /** A tensor of an autodiff device holding the values of `tensor` (from its inner device), untracked. */
  static fromInner<D extends number, K extends Kind>(tensor: Tensor<D, K>, device: Device): Tensor<D, K> {
    const ops = device.backend.autodiff;
    if (!ops) throw new BurnError('Tensor.fromInner', `${device} is not an autodiff device`);
    if (!tensor.dev.equals(device.inner()))
      throw new BurnError('Tensor.fromInner', `the tensor lives on ${tensor.dev}; expected ${device.inner()}`);
    return new Tensor<D, K>(device, ops.fromInner(tensor.primitive));
  }

  // --- creation ---

  // --- memory ---

  /**
   * Runs `fn` and then releases the device memory of every tensor it created that its result does
   * not reach (through tensors, arrays, maps, sets and object fields) — tfjs's `tidy`. What
   * training keeps survives wherever it is stored: parameters, running statistics, modules and
   * optimizer state created inside the scope are kept, so `Tensor.scope(() => { …; model =
   * optim.step(lr, model, grads); })` works. Other tensors kept elsewhere must be returned or
   * passed to {@link Tensor.keep}. WebGPU buffers return to their pool; on the CPU the released
   * arrays serve later outputs instead of waiting for the garbage collector. `fn` must be
   * synchronous (an `async` function is a type error): a scope cannot follow awaits.
   */
  static scope<T>(fn: () => NotPromise<T>): T {
    const result: unknown = runScope(fn);
    if (result instanceof Promise) {
      throw new BurnError(
        'Tensor.scope',
        'the function returned a Promise; scopes are synchronous: await outside the scope, or scope the synchronous part',
      );
    }
    return result as T;
  }

  /**
   * Keeps `value` (and the tensors it reaches) alive past the end of every scope open now, as
   * tfjs's `keep`; returns it. Fields set on `value` later, before the scopes end, are kept too.
   */
  static keep<T>(value: T): T {
    keepInAllScopes(value);
    return value;
  }

  /** An uninitialized-by-contract tensor (zeros on the CPU). */
  static empty<const S extends readonly number[], DT extends DType = 'f32'>(
    shape: S,
    options?: DeviceOrOptions<DT>,
  ): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.filled(shape, 0, options, 'Tensor.empty');
  }
  /** A tensor of zeros. */
  static zeros<const S extends readonly number[], DT extends DType = 'f32'>(
    shape: S,
    options?: DeviceOrOptions<DT>,
  ): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.filled(shape, 0, options, 'Tensor.zeros');
  }
  /** A tensor of ones. */
  static ones<const S extends readonly number[], DT extends DType = 'f32'>(
    shape: S,
    options?: DeviceOrOptions<DT>,
  ): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.filled(shape, 1, options, 'Tensor.ones');
  }
  /** A tensor filled with `value` (an integer dtype must hold it: `300` as `u8` is an error, not 255). */
  static full<const S extends readonly number[], DT extends DType = 'f32'>(
    shape: S,
    value: number | boolean,
    options?: DeviceOrOptions<DT>,
  ): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.filled(shape, value, options, 'Tensor.full');
  }
  private static filled<D extends number, K extends Kind>(
    shape: readonly number[],
    value: number | boolean,
    options: DeviceOrOptions | undefined,
    op: string,
  ): Tensor<D, K> {
    checkShape(shape, op);
    const { device, dtype } = resolve(options, typeof value === 'boolean' ? 'bool' : 'float', op);
    if (isIntDType(dtype)) checkIntLiteral(Number(value), dtype, op);
    return new Tensor<D, K>(device, device.backend.fill(shape, Number(value), dtype));
  }

  /**
   * A tensor from `TensorData` or nested arrays; give the rank and kind as type arguments. With a
   * `dtype` the values are converted to it; an integer dtype must hold every value.
   */
  static fromData<D extends number = number, K extends Kind = Float>(
    data: TensorData | Nested<number> | Nested<boolean>,
    options?: DeviceOrOptions,
  ): Tensor<D, K> {
    const op = 'Tensor.fromData';
    if (data instanceof TensorData) {
      const { device, dtype } = resolve(options, data.dtype, op);
      // Creation, not a cast: values the integer dtype cannot hold are refused, as PyTorch's.
      if (dtype !== data.dtype && isIntDType(dtype)) {
        // f16/bf16 values are stored as bits: the numbers are their decoded form.
        checkIntValues(data.dtype === 'f16' || data.dtype === 'bf16' ? data.toArray() : data.values, dtype, op);
      }
      return new Tensor(device, device.backend.fromData(data.convert(dtype)));
    }
    const { values, shape } = flattenNested<number | boolean>(data, op);
    const { device, dtype } = resolve(options, typeof values[0] === 'boolean' ? 'bool' : 'float', op);
    // Built in the target dtype at once: a detour through f32 would round integers past 2^24.
    if (isIntDType(dtype) && typeof values[0] === 'number') checkIntValues(values as number[], dtype, op);
    return new Tensor(device, device.backend.fromData(new TensorData(values as number[] | boolean[], shape, dtype)));
  }

  /** A Float tensor from a typed array (rank 1). */
  static fromFloats(values: Float32Array | Float64Array, options?: DeviceOrOptions<FloatDType>): Tensor<1, Float>;
  /** A Float tensor from nested arrays; the rank comes from the nesting. */
  static fromFloats<const A extends Nested<number>>(
    values: A,
    options?: DeviceOrOptions<FloatDType>,
  ): Tensor<DepthOf<A>, Float>;
  static fromFloats(
    values: Nested<number> | Float32Array | Float64Array,
    options?: DeviceOrOptions<FloatDType>,
  ): Tensor<number, Float> {
    return Tensor.fromKind(values, options, 'float', 'Tensor.fromFloats', 'number', (d) => isFloatDType(d));
  }

  /** An Int tensor from a typed array (rank 1); the dtype (default: the device's int dtype, i32 unless configured) must hold every value. */
  static fromInts(
    values: Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array,
    options?: DeviceOrOptions<IntDType>,
  ): Tensor<1, Int>;
  /** An Int tensor from nested arrays of integers; the dtype (default: the device's int dtype, i32 unless configured) must hold every value. */
  static fromInts<const A extends Nested<number>>(
    values: A,
    options?: DeviceOrOptions<IntDType>,
  ): Tensor<DepthOf<A>, Int>;
  static fromInts(
    values: Nested<number> | ArrayLike<number>,
    options?: DeviceOrOptions<IntDType>,
  ): Tensor<number, Int> {
    return Tensor.fromKind(values, options, 'int', 'Tensor.fromInts', 'number', (d) => isIntDType(d));
  }

  /** A Bool tensor from nested arrays of booleans. */
  static fromBools<const A extends Nested<boolean>>(values: A, device?: Device): Tensor<DepthOf<A>, Bool> {
    return Tensor.fromKind(values, device, 'bool', 'Tensor.fromBools', 'boolean', (d) => d === 'bool');
  }

  private static fromKind<D extends number, K extends Kind>(
    values: Nested<number> | Nested<boolean> | ArrayLike<number>,
    options: DeviceOrOptions | undefined,
    fallback: Fallback,
    op: string,
    leaf: LeafKind,
    ok: (d: DType) => boolean,
  ): Tensor<D, K> {
    const { device, dtype } = resolve(options, fallback, op);
    if (!ok(dtype)) throw new BurnError(op, `dtype ${dtype} does not match the tensor kind`);
    let flat: ArrayLike<number> | boolean[], shape: number[];
    if (ArrayBuffer.isView(values)) {
      flat = values as ArrayLike<number>;
      shape = [flat.length];
    } else {
      ({ values: flat, shape } = flattenNested<number | boolean>(values as Nested<number | boolean>, op, leaf) as {
        values: number[] | boolean[];
        shape: number[];
      });
    }
    if (isIntDType(dtype)) {
      const nums = flat as ArrayLike<number>;
      checkIntValues(nums, dtype, op);
      for (let i = 0; i < nums.length; i++) {
        if (!Number.isInteger(nums[i])) throw new BurnError(op, `value ${nums[i]} at position ${i} is not an integer`);
      }
    }
    return new Tensor<D, K>(device, device.backend.fromData(new TensorData(flat, shape, dtype)));
  }

  /** Random values from `distribution` (uniform [0, 1) by default), reproducible under `device.seed(n)`. */
  static random<const S extends readonly number[], DT extends DType = 'f32'>(
    shape: S,
    distribution: Distribution,
    options?: DeviceOrOptions<DT>,
  ): Tensor<RankOf<S>, KindOf<DT>> {
    const op = 'Tensor.random';
    checkShape(shape, op);
    const { device, dtype } = resolve(options, 'float', op);
    if (distribution.kind === 'uniform' && isIntDType(dtype)) {
      // Integer draws lie in [low, high - 1]: both ends must be values of the dtype.
      const [lo, hi] = intRange(dtype);
      if (!(distribution.low >= lo && distribution.high <= hi + 1)) {
        throw new BurnError(
          op,
          `bounds [${distribution.low}, ${distribution.high}) of the uniform distribution do not fit ${dtype}; expected ${lo} <= low and high <= ${hi + 1}`,
        );
      }
    }
    return new Tensor(device, device.backend.random(shape, distribution, dtype, device.nextRandomKey()));
  }

  /** The integers `start, start + 1, …` below `end`; the dtype (default: the device's int dtype, i32 unless configured) must hold them all. */
  static arange(start: number, end: number, options?: DeviceOrOptions<IntDType>): Tensor<1, Int> {
    return Tensor.range(start, end, 1, options, 'Tensor.arange');
  }
  /** The integers `start, start + step, …` up to (excluding) `end`; `step` may be negative. */
  static arangeStep(start: number, end: number, step: number, options?: DeviceOrOptions<IntDType>): Tensor<1, Int> {
    return Tensor.range(start, end, step, options, 'Tensor.arangeStep');
  }
  private static range(
    start: number,
    end: number,
    step: number,
    options: DeviceOrOptions<IntDType> | undefined,
    op: string,
  ): Tensor<1, Int> {
    if (![start, end, step].every(Number.isInteger) || step === 0) {
      throw new BurnError(op, `start ${start}, end ${end}, step ${step}; expected integers and a non-zero step`);
    }
    const n = Math.max(0, Math.ceil((end - start) / step));
    checkNumel([n], op);
    const { device, dtype } = resolve(options, 'int', op);
    if (n > 0 && isIntDType(dtype)) {
      checkIntLiteral(start, dtype, op);
      checkIntLiteral(start + (n - 1) * step, dtype, op);
    }
    return new Tensor(device, device.backend.arange(start, end, step, dtype));
  }

  /** The `size × size` identity matrix. */
  static eye<DT extends DType = 'f32'>(size: number, options?: DeviceOrOptions<DT>): Tensor<2, KindOf<DT>> {
    if (!(Number.isInteger(size) && size >= 0))
      throw new BurnError('Tensor.eye', `size ${size}; expected a non-negative integer`);
    checkNumel([size, size], 'Tensor.eye', 'shape');
    const { device, dtype } = resolve(options, 'float', 'Tensor.eye');
    const values = new Float64Array(size * size);
    for (let i = 0; i < size; i++) values[i * size + i] = 1;
    return new Tensor(device, device.backend.fromData(new TensorData(values, [size, size], dtype)));
  }

  /** An Int tensor of shape `[...shape, rank]` holding every element's multi-index. */
  static cartesianGrid<const S extends readonly number[]>(
    shape: S,
    options?: DeviceOrOptions<IntDType>,
  ): Tensor<Inc<RankOf<S>>, Int> {
    checkShape(shape, 'Tensor.cartesianGrid');
    const rank = shape.length;
    checkNumel([...shape, rank], 'Tensor.cartesianGrid');
    const { device, dtype } = resolve(options, 'int', 'Tensor.cartesianGrid');
    const n = numel(shape);
    const values = new Int32Array(n * rank);
    for (let i = 0; i < n; i++) {
      let rest = i;
      for (let d = rank - 1; d >= 0; d--) {
        values[i * rank + d] = rest % shape[d]!;
        rest = Math.floor(rest / shape[d]!);
      }
    }
    return new Tensor(device, device.backend.fromData(dataOf(values, [...shape, rank]).convert(dtype)));
  }

  /** A Bool mask over the last two dims: false on and above the `offset`-th diagonal (the part `triu` keeps). */
  static triuMask<const S extends readonly number[]>(shape: S, offset = 0, device?: Device): Tensor<RankOf<S>, Bool> {
    return Tensor.triMask(shape, device, 'Tensor.triuMask', (c) => c >= offset);
  }
  /** A Bool mask: false on and below the `offset`-th diagonal (the part `tril` keeps). */
  static trilMask<const S extends readonly number[]>(shape: S, offset = 0, device?: Device): Tensor<RankOf<S>, Bool> {
    return Tensor.triMask(shape, device, 'Tensor.trilMask', (c) => c <= offset);
  }
  /** A Bool mask: false on the `offset`-th diagonal, true elsewhere. */
  static diagMask<const S extends readonly number[]>(shape: S, offset = 0, device?: Device): Tensor<RankOf<S>, Bool> {
    return Tensor.triMask(shape, device, 'Tensor.diagMask', (c) => c === offset);
  }
  private static triMask<D extends number>(
    shape: readonly number[],
    device: Device | undefined,
    op: string,
    keep: (colMinusRow: number) => boolean,
  ): Tensor<D, Bool> {
    checkShape(shape, op);
    if (shape.length < 2) throw new BurnError(op, `shape ${fmt(shape)}; expected rank >= 2`);
    const dev = device ?? Device.default();
    const [r, c] = shape.slice(-2) as [number, number];
    const mask = new Uint8Array(r * c);
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) mask[i * c + j] = keep(j - i) ? 0 : 1;
    const b = dev.backend;
    const small = b.fromData(new TensorData(mask, [r, c], 'bool'));
    return new Tensor<D, Bool>(
      dev,
      b.expand(b.reshape(small, [...new Array<number>(shape.length - 2).fill(1), r, c]), shape),
    );
  }

  /** Concatenates along `dim`; all tensors share the device, kind and the other dims. */
  static cat<D extends number, K extends Kind>(tensors: readonly Tensor<D, K>[], dim: number): Tensor<D, K> {
    return Tensor.concat(tensors, dim, 'cat');
  }
  private static concat<D extends number, K extends Kind>(
    tensors: readonly Tensor<D, K>[],
    dim: number,
    op: string,
  ): Tensor<D, K> {
    const first = tensors[0];
    if (!first) throw new BurnError(op, `no tensors to ${op === 'cat' ? 'concatenate' : op}; expected at least one`);
    const shape = first.primitive.shape;
    const d = normDim(dim, shape.length, op);
    let size = 0;
    tensors.forEach((t, i) => {
      first.sameDevice(t, op);
      const s = t.primitive.shape;
      if (s.length !== shape.length || s.some((n, j) => j !== d && n !== shape[j])) {
        throw new BurnError(
          op,
          `tensor ${i} has shape ${fmt(s)}, tensor 0 has ${fmt(shape)}; expected equal sizes except in dim ${d}`,
        );
      }
      size += s[d]!;
    });
    checkNumel(
      shape.map((n, j) => (j === d ? size : n)),
      op,
    );
    if (tensors.length === 1) return first.clone();
    try {
      return first.wrap<D, K>(
        first.backend.cat(
          tensors.map((t) => first.castLike(t.primitive)),
          d,
        ),
      );
    } catch (e) {
      throw renameError(e, op);
    }
  }

  /** Stacks equal-shaped tensors along a new dim `dim`. */
  static stack<D extends number, K extends Kind>(tensors: readonly Tensor<D, K>[], dim: number): Tensor<Inc<D>, K> {
    const first = tensors[0];
    if (!first) throw new BurnError('stack', 'no tensors to stack; expected at least one');
    tensors.forEach((t, i) => {
      if (!sameShape(t.primitive.shape, first.primitive.shape)) {
        throw new BurnError(
          'stack',
          `tensor ${i} has shape ${fmt(t.primitive.shape)}, tensor 0 has ${fmt(first.primitive.shape)}; expected equal shapes`,
        );
      }
    });
    const d = normDim(dim, first.primitive.shape.length + 1, 'stack');
    const shape = first.primitive.shape;
    checkNumel([...shape.slice(0, d), tensors.length, ...shape.slice(d)], 'stack');
    return Tensor.concat(
      tensors.map((t) => t.unsqueezeDim(d) as unknown as Tensor<D, K>),
      d,
      'stack',
    ) as unknown as Tensor<Inc<D>, K>;
  }

  // --- shape ---

  /** The size of every dimension: a tuple of the rank's length when the rank is known (`[number, number]` for `Tensor<2>`). */
  // Typed through `this` rather than `D`, so that the rank stays out of the class's variance (a
  // `Tensor<number>` still converts to a `Tensor<3>` and back).
  override dims<R extends number = D>(this: Tensor<R, Kind>): Dims<R> {
    return super.dims() as Dims<R>;
  }

  // --- creation like another tensor ---

  /** An uninitialized-by-contract tensor of this tensor's shape, dtype and device (Burn's `empty_like`; zeros where memory is zeroed). */
  emptyLike(): Tensor<D, K> {
    return this.wrap(this.backend.fill(this.primitive.shape, 0, this.primitive.dtype));
  }
  /** Zeros of this tensor's shape, dtype and device. */
  zerosLike(): Tensor<D, K> {
    return this.fullLike(0);
  }
  /** Ones of this tensor's shape, dtype and device. */
  onesLike(): Tensor<D, K> {
    return this.fullLike(1);
  }
  /** `value` everywhere, with this tensor's shape, dtype and device (an integer dtype must hold it). */
  fullLike(value: number | boolean): Tensor<D, K> {
    const dtype = this.primitive.dtype;
    if (isIntDType(dtype)) checkIntLiteral(Number(value), dtype, 'fullLike');
    return this.wrap(this.backend.fill(this.primitive.shape, Number(value), dtype));
  }
  /** Random values of this tensor's shape, dtype and device. */
  randomLike(distribution: Distribution): Tensor<D, K> {
    return this.wrap(
      this.backend.random(this.primitive.shape, distribution, this.primitive.dtype, this.dev.nextRandomKey()),
    );
  }
}
