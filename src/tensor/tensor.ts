import type { TensorPrimitive } from '../backend/backend.js';
import { Device } from '../device/device.js';
import { keepInScope, runScope } from '../backend/memory.js';
import { dataOf } from './api/base.js';
import { TensorAutodiff } from './api/autodiff.js';
import { TensorData } from './data.js';
import type { Distribution } from './distribution.js';
import { assertDType, isFloatDType, isIntDType, type DType, type FloatDType, type IntDType } from './dtype.js';
import { BurnError, fmt } from './errors.js';
import type { Bool, DepthOf, Float, Inc, Int, Kind, KindOf, RankOf } from './kind.js';
import type { Nested } from './nested.js';
import { checkShape, normDim, numel, sameShape } from './shape.js';

/** Where and how to create a tensor: the device (default: `Device.default()`) and dtype. */
export interface TensorOptions<DT extends DType = DType> {
  readonly device?: Device;
  readonly dtype?: DT;
}

/** A device, or options naming one. */
export type DeviceOrOptions<DT extends DType = DType> = Device | TensorOptions<DT>;

function resolve<DT extends DType>(options: DeviceOrOptions<DT> | undefined, fallback: DType, op: string): { device: Device; dtype: DType } {
  if (options instanceof Device) return { device: options, dtype: fallback };
  const dtype = options?.dtype === undefined ? fallback : assertDType(options.dtype, op);
  return { device: options?.device ?? Device.default(), dtype };
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
  static fromPrimitive<D extends number = number, K extends Kind = Float>(primitive: TensorPrimitive, device: Device): Tensor<D, K> {
    return new Tensor<D, K>(device, primitive);
  }

  /** A tensor of an autodiff device holding the values of `tensor` (from its inner device), untracked. */
  static fromInner<D extends number, K extends Kind>(tensor: Tensor<D, K>, device: Device): Tensor<D, K> {
    const ops = device.backend.autodiff;
    if (!ops) throw new BurnError('Tensor.fromInner', `${device} is not an autodiff device`);
    if (!tensor.dev.equals(device.inner())) throw new BurnError('Tensor.fromInner', `the tensor lives on ${tensor.dev}; expected ${device.inner()}`);
    return new Tensor<D, K>(device, ops.fromInner(tensor.primitive));
  }

  // --- creation ---

  // --- memory ---

  /**
   * Runs `fn` and then releases the device memory of every tensor it created that its result does
   * not reach (through tensors, arrays, maps, sets and object fields) — tfjs's `tidy`. Tensors kept
   * elsewhere must be returned or passed to {@link Tensor.keep}. WebGPU buffers return to their
   * pool; on the CPU the released arrays serve later outputs instead of waiting for the garbage
   * collector. `fn` must be synchronous: a scope cannot follow awaits.
   */
  static scope<T>(fn: () => T): T {
    const result = runScope(fn);
    if (result instanceof Promise) {
      throw new BurnError('Tensor.scope', 'the function returned a Promise; scopes are synchronous: await outside the scope, or scope the synchronous part');
    }
    return result;
  }

  /** Keeps `value` (and the tensors it reaches) alive past the end of the innermost scope; returns it. */
  static keep<T>(value: T): T {
    keepInScope(value);
    return value;
  }

  /** An uninitialized-by-contract tensor (zeros on the CPU). */
  static empty<const S extends readonly number[], DT extends DType = 'f32'>(shape: S, options?: DeviceOrOptions<DT>): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.full(shape, 0, options);
  }
  /** A tensor of zeros. */
  static zeros<const S extends readonly number[], DT extends DType = 'f32'>(shape: S, options?: DeviceOrOptions<DT>): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.full(shape, 0, options);
  }
  /** A tensor of ones. */
  static ones<const S extends readonly number[], DT extends DType = 'f32'>(shape: S, options?: DeviceOrOptions<DT>): Tensor<RankOf<S>, KindOf<DT>> {
    return Tensor.full(shape, 1, options);
  }
  /** A tensor filled with `value`. */
  static full<const S extends readonly number[], DT extends DType = 'f32'>(shape: S, value: number | boolean, options?: DeviceOrOptions<DT>): Tensor<RankOf<S>, KindOf<DT>> {
    checkShape(shape, 'Tensor.full');
    const { device, dtype } = resolve(options, typeof value === 'boolean' ? 'bool' : 'f32', 'Tensor.full');
    return new Tensor(device, device.backend.fill(shape, Number(value), dtype));
  }

  /** A tensor from `TensorData` or nested arrays; give the rank and kind as type arguments. */
  static fromData<D extends number = number, K extends Kind = Float>(data: TensorData | Nested<number> | Nested<boolean>, options?: DeviceOrOptions): Tensor<D, K> {
    const td = data instanceof TensorData ? data : TensorData.from(data);
    const { device, dtype } = resolve(options, td.dtype, 'Tensor.fromData');
    return new Tensor(device, device.backend.fromData(td.convert(dtype)));
  }

  /** A Float tensor from a typed array (rank 1). */
  static fromFloats(values: Float32Array | Float64Array, options?: DeviceOrOptions<FloatDType>): Tensor<1, Float>;
  /** A Float tensor from nested arrays; the rank comes from the nesting. */
  static fromFloats<const A extends Nested<number>>(values: A, options?: DeviceOrOptions<FloatDType>): Tensor<DepthOf<A>, Float>;
  static fromFloats(values: Nested<number> | Float32Array | Float64Array, options?: DeviceOrOptions<FloatDType>): Tensor<number, Float> {
    return Tensor.fromKind(values, options, 'f32', 'Tensor.fromFloats', (d) => isFloatDType(d));
  }

  /** An Int tensor from a typed array (rank 1). */
  static fromInts(values: Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array, options?: DeviceOrOptions<IntDType>): Tensor<1, Int>;
  /** An Int tensor from nested arrays of integers. */
  static fromInts<const A extends Nested<number>>(values: A, options?: DeviceOrOptions<IntDType>): Tensor<DepthOf<A>, Int>;
  static fromInts(values: Nested<number> | ArrayLike<number>, options?: DeviceOrOptions<IntDType>): Tensor<number, Int> {
    return Tensor.fromKind(values, options, 'i32', 'Tensor.fromInts', (d) => isIntDType(d));
  }

  /** A Bool tensor from nested arrays of booleans. */
  static fromBools<const A extends Nested<boolean>>(values: A, device?: Device): Tensor<DepthOf<A>, Bool> {
    return Tensor.fromKind(values, device, 'bool', 'Tensor.fromBools', (d) => d === 'bool');
  }

  private static fromKind<D extends number, K extends Kind>(
    values: Nested<number> | Nested<boolean> | ArrayLike<number>, options: DeviceOrOptions | undefined, fallback: DType, op: string, ok: (d: DType) => boolean,
  ): Tensor<D, K> {
    const { device, dtype } = resolve(options, fallback, op);
    if (!ok(dtype)) throw new BurnError(op, `dtype ${dtype} does not match the tensor kind`);
    let data: TensorData;
    if (ArrayBuffer.isView(values)) {
      data = new TensorData(values as ArrayLike<number>, [(values as ArrayLike<number>).length], dtype);
    } else {
      data = TensorData.from(values as Nested<number>, dtype);
      if (fallback === 'bool' && data.numElements() > 0 && typeof firstLeaf(values) !== 'boolean') throw new BurnError(op, 'expected booleans');
    }
    if (isIntDType(dtype)) {
      const src = ArrayBuffer.isView(values) ? (values as ArrayLike<number>) : flatNumbers(values as Nested<number>);
      for (let i = 0; i < src.length; i++) {
        if (!Number.isInteger(src[i])) throw new BurnError(op, `value ${src[i]} at position ${i} is not an integer`);
      }
    }
    return new Tensor<D, K>(device, device.backend.fromData(data));
  }

  /** Random values from `distribution` (uniform [0, 1) by default), reproducible under `device.seed(n)`. */
  static random<const S extends readonly number[], DT extends DType = 'f32'>(shape: S, distribution: Distribution, options?: DeviceOrOptions<DT>): Tensor<RankOf<S>, KindOf<DT>> {
    checkShape(shape, 'Tensor.random');
    const { device, dtype } = resolve(options, 'f32', 'Tensor.random');
    return new Tensor(device, device.backend.random(shape, distribution, dtype, device.nextRandomKey()));
  }

  /** The integers `start, start + 1, …` below `end`. */
  static arange(start: number, end: number, options?: DeviceOrOptions<IntDType>): Tensor<1, Int> {
    return Tensor.arangeStep(start, end, 1, options);
  }
  /** The integers `start, start + step, …` up to (excluding) `end`; `step` may be negative. */
  static arangeStep(start: number, end: number, step: number, options?: DeviceOrOptions<IntDType>): Tensor<1, Int> {
    if (![start, end, step].every(Number.isInteger) || step === 0) {
      throw new BurnError('Tensor.arangeStep', `start ${start}, end ${end}, step ${step}; expected integers and a non-zero step`);
    }
    const { device, dtype } = resolve(options, 'i32', 'Tensor.arange');
    return new Tensor(device, device.backend.arange(start, end, step, dtype));
  }

  /** The `size × size` identity matrix. */
  static eye<DT extends DType = 'f32'>(size: number, options?: DeviceOrOptions<DT>): Tensor<2, KindOf<DT>> {
    if (!(Number.isInteger(size) && size >= 0)) throw new BurnError('Tensor.eye', `size ${size}; expected a non-negative integer`);
    const { device, dtype } = resolve(options, 'f32', 'Tensor.eye');
    const values = new Float64Array(size * size);
    for (let i = 0; i < size; i++) values[i * size + i] = 1;
    return new Tensor(device, device.backend.fromData(new TensorData(values, [size, size], dtype)));
  }

  /** An Int tensor of shape `[...shape, rank]` holding every element's multi-index. */
  static cartesianGrid<const S extends readonly number[]>(shape: S, options?: DeviceOrOptions<IntDType>): Tensor<Inc<RankOf<S>>, Int> {
    checkShape(shape, 'Tensor.cartesianGrid');
    const { device, dtype } = resolve(options, 'i32', 'Tensor.cartesianGrid');
    const rank = shape.length;
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
    return Tensor.triMask(shape, offset, device, (c) => c >= offset);
  }
  /** A Bool mask: false on and below the `offset`-th diagonal (the part `tril` keeps). */
  static trilMask<const S extends readonly number[]>(shape: S, offset = 0, device?: Device): Tensor<RankOf<S>, Bool> {
    return Tensor.triMask(shape, offset, device, (c) => c <= offset);
  }
  /** A Bool mask: false on the `offset`-th diagonal, true elsewhere. */
  static diagMask<const S extends readonly number[]>(shape: S, offset = 0, device?: Device): Tensor<RankOf<S>, Bool> {
    return Tensor.triMask(shape, offset, device, (c) => c === offset);
  }
  private static triMask<D extends number>(shape: readonly number[], offset: number, device: Device | undefined, keep: (colMinusRow: number) => boolean): Tensor<D, Bool> {
    checkShape(shape, 'Tensor.triuMask');
    if (shape.length < 2) throw new BurnError('Tensor.triuMask', `shape ${fmt(shape)}; expected rank >= 2`);
    void offset;
    const dev = device ?? Device.default();
    const [r, c] = shape.slice(-2) as [number, number];
    const mask = new Uint8Array(r * c);
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) mask[i * c + j] = keep(j - i) ? 0 : 1;
    const b = dev.backend;
    const small = b.fromData(new TensorData(mask, [r, c], 'bool'));
    return new Tensor<D, Bool>(dev, b.expand(b.reshape(small, [...new Array<number>(shape.length - 2).fill(1), r, c]), shape));
  }

  /** Concatenates along `dim`; all tensors share the device, kind and the other dims. */
  static cat<D extends number, K extends Kind>(tensors: readonly Tensor<D, K>[], dim: number): Tensor<D, K> {
    const first = tensors[0];
    if (!first) throw new BurnError('cat', 'no tensors to concatenate; expected at least one');
    const shape = first.primitive.shape;
    const d = normDim(dim, shape.length, 'cat');
    tensors.forEach((t, i) => {
      first.sameDevice(t, 'cat');
      const s = t.primitive.shape;
      if (s.length !== shape.length || s.some((n, j) => j !== d && n !== shape[j])) {
        throw new BurnError('cat', `tensor ${i} has shape ${fmt(s)}, tensor 0 has ${fmt(shape)}; expected equal sizes except in dim ${d}`);
      }
    });
    if (tensors.length === 1) return first.clone();
    return first.wrap<D, K>(first.backend.cat(tensors.map((t) => first.castLike(t.primitive)), d));
  }

  /** Stacks equal-shaped tensors along a new dim `dim`. */
  static stack<D extends number, K extends Kind>(tensors: readonly Tensor<D, K>[], dim: number): Tensor<Inc<D>, K> {
    const first = tensors[0];
    if (!first) throw new BurnError('stack', 'no tensors to stack; expected at least one');
    tensors.forEach((t, i) => {
      if (!sameShape(t.primitive.shape, first.primitive.shape)) {
        throw new BurnError('stack', `tensor ${i} has shape ${fmt(t.primitive.shape)}, tensor 0 has ${fmt(first.primitive.shape)}; expected equal shapes`);
      }
    });
    const d = normDim(dim, first.primitive.shape.length + 1, 'stack');
    return Tensor.cat(tensors.map((t) => t.unsqueezeDim(d) as unknown as Tensor<D, K>), d) as unknown as Tensor<Inc<D>, K>;
  }

  // --- creation like another tensor ---

  /** Zeros of this tensor's shape, dtype and device. */
  zerosLike(): Tensor<D, K> {
    return this.fullLike(0);
  }
  /** Ones of this tensor's shape, dtype and device. */
  onesLike(): Tensor<D, K> {
    return this.fullLike(1);
  }
  /** `value` everywhere, with this tensor's shape, dtype and device. */
  fullLike(value: number | boolean): Tensor<D, K> {
    return this.wrap(this.backend.fill(this.primitive.shape, Number(value), this.primitive.dtype));
  }
  /** Random values of this tensor's shape, dtype and device. */
  randomLike(distribution: Distribution): Tensor<D, K> {
    return this.wrap(this.backend.random(this.primitive.shape, distribution, this.primitive.dtype, this.dev.nextRandomKey()));
  }
}

function firstLeaf(v: unknown): unknown {
  while (Array.isArray(v)) v = v[0];
  return v;
}

function flatNumbers(v: Nested<number>): number[] {
  return Array.isArray(v) ? (v as Nested<number>[]).flatMap((x) => flatNumbers(x)) : [v as number];
}
