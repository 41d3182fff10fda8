import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import type { Device } from '../../device/device.js';
import { TensorData } from '../../core/data.js';
import { formatTensor, getPrintOptions } from '../display.js';
import { assertDType, type DType, type FloatDType, type IntDType } from '../../core/dtype.js';
import { BurnError, describeValue, fmt, fmtValues } from '../../core/errors.js';
import type { Add, Bool, Dec, FlattenRank, Inc, Int, Kind, Float, ElementOf, RankOf, Sub } from '../kind.js';
import { checkOptions } from '../../core/options.js';
import {
  checkBroadcastTo,
  checkNumel,
  checkShape,
  numel,
  normDim,
  normDims,
  resolveReshape,
  sameShape,
} from '../../core/shape.js';
import type { Tensor } from '../tensor.js';

declare const rankBrand: unique symbol;

/** Options of {@link TensorBase.toData} and `toDataSync`. */
export interface ToDataOptions {
  /** The dtype to read the values as (default: the tensor's own). */
  readonly dtype?: DType;
}

/** @internal Rank brand: makes `Tensor<2>` and `Tensor<3>` incompatible while `Tensor<number>` fits both. */
export interface TensorBase<D extends number = number, K extends Kind = Float> {
  [rankBrand](rank: D): void;
}

type TensorCtor = new (device: Device, primitive: TensorPrimitive) => Tensor<number, Kind>;

/**
 * The core of {@link Tensor}: identity, data read-back and shape manipulation. The tensor API is
 * split by op family into a chain of classes (base → indexing → numeric → float → int/bool →
 * Tensor), like Burn's `api/*.rs`; user code only ever sees `Tensor`.
 */
export class TensorBase<D extends number = number, K extends Kind = Float> {
  /** @internal Phantom kind marker (never set at run time). */
  declare readonly __kind?: K;
  /** @internal The device this tensor lives on. */
  readonly dev: Device;
  /** @internal The backend's handle; opaque to users. */
  readonly primitive: TensorPrimitive;

  /** @internal Use the static constructors (`Tensor.fromFloats`, `Tensor.zeros`, …). */
  constructor(device: Device, primitive: TensorPrimitive) {
    this.dev = device;
    this.primitive = primitive;
  }

  /** @internal Wraps a primitive on the same device. */
  wrap<D2 extends number = D, K2 extends Kind = K>(p: TensorPrimitive): Tensor<D2, K2> {
    return new (this.constructor as TensorCtor)(this.dev, p) as unknown as Tensor<D2, K2>;
  }

  /** @internal The device's backend. */
  get backend(): Backend {
    return this.dev.backend;
  }

  // --- identity ---

  /** The device this tensor lives on. */
  device(): Device {
    return this.dev;
  }

  /** The size of every dimension. */
  dims(): number[] {
    return [...this.primitive.shape];
  }

  /** The shape (same as {@link dims}). */
  shape(): number[] {
    return [...this.primitive.shape];
  }

  /** Number of dimensions. */
  rank(): number {
    return this.primitive.shape.length;
  }

  /** Number of elements. */
  numel(): number {
    return numel(this.primitive.shape);
  }

  /** The element type. */
  dtype(): DType {
    return this.primitive.dtype;
  }

  /**
   * Releases the device memory of this tensor now (WebGPU buffers return to the pool); the tensor
   * must not be used afterwards. A no-op on devices whose memory is garbage-collected (CPU).
   * Views and clones made before share the buffer and keep it alive.
   */
  dispose(): void {
    this.backend.dispose?.(this.primitive);
  }

  /** Makes `using t = ...` dispose the tensor at the end of the block. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A new handle on the same values (free: tensors are immutable). */
  clone(): Tensor<D, K> {
    // On backends that count references the clone holds its own, so disposing one keeps the other.
    return this.wrap(this.backend.retain?.(this.primitive) ?? this.primitive);
  }

  /** Moves the tensor to `device` (synchronous when the source can be read synchronously). */
  toDevice(device: Device): Tensor<D, K> {
    checkDevice(device, 'toDevice');
    if (device.equals(this.dev)) return this.wrap(this.primitive);
    const data = this.backend.toDataSync(this.primitive);
    if (!data)
      throw new BurnError(
        'toDevice',
        `tensor on ${this.dev} cannot be read synchronously; use await tensor.toDeviceAsync(${device})`,
      );
    return new (this.constructor as TensorCtor)(device, device.backend.fromData(data)) as unknown as Tensor<D, K>;
  }

  /** Moves the tensor to `device`, waiting for the data where the source is asynchronous. */
  async toDeviceAsync(device: Device): Promise<Tensor<D, K>> {
    checkDevice(device, 'toDeviceAsync');
    if (device.equals(this.dev)) return this.wrap(this.primitive);
    const data = await this.backend.toData(this.primitive);
    return new (this.constructor as TensorCtor)(device, device.backend.fromData(data)) as unknown as Tensor<D, K>;
  }

  // --- data ---

  /**
   * Reads the values back to the host (asynchronous on every device). With `{ dtype }` they are
   * converted on the host as they arrive (Burn's `into_data().convert()`, see
   * {@link TensorData.convert}), whatever the device supports: floats to ints truncate toward zero
   * and saturate (NaN gives 0), `'bool'` is true where non-zero, bools give 0 and 1, and f16/bf16
   * round to nearest even.
   *
   * ```ts
   * const labels = await logits.argmax(1).toData({ dtype: 'u8' });
   * ```
   */
  toData(options?: ToDataOptions): Promise<TensorData> {
    if (options === undefined) return this.backend.toData(this.primitive);
    const dtype = readDTypeOption(options, 'toData');
    return this.backend.toData(this.primitive).then((data) => (dtype === undefined ? data : data.convert(dtype)));
  }

  /**
   * Reads the values synchronously (converted to `dtype` when given, as {@link toData}); throws a
   * BurnError on devices that cannot (WebGPU, remote).
   */
  toDataSync(options?: ToDataOptions): TensorData {
    const dtype = options === undefined ? undefined : readDTypeOption(options, 'toDataSync');
    const data = this.backend.toDataSync(this.primitive);
    if (!data) throw new BurnError('toDataSync', `${this.dev} cannot read synchronously; use await tensor.toData()`);
    return dtype === undefined ? data : data.convert(dtype);
  }

  /** The single value of a one-element tensor. */
  async intoScalar(): Promise<ElementOf<K>> {
    return scalarOf(await this.toData(), 'intoScalar') as ElementOf<K>;
  }

  /** The single value of a one-element tensor, read synchronously. */
  intoScalarSync(): ElementOf<K> {
    return scalarOf(this.toDataSync(), 'intoScalarSync') as ElementOf<K>;
  }

  /** Burn-style display with values (where readable synchronously), shape, device, dtype. */
  toString(): string {
    const data = this.backend.toDataSync(this.primitive);
    return formatTensor(data, this.primitive.shape, this.primitive.dtype, String(this.dev), getPrintOptions());
  }

  /** @internal Node's util.inspect hook, so console.log shows the display form. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }

  // --- shape ---

  /** Reshapes; `-1` infers a size, `0` keeps the input's size at that position. */
  reshape<const S extends readonly number[]>(shape: S): Tensor<RankOf<S>, K> {
    const target = resolveReshape(this.primitive.shape, shape);
    if (sameShape(target, this.primitive.shape)) return this.wrap(this.primitive);
    return this.wrap(this.backend.reshape(this.primitive, target));
  }

  /** Flattens dims `start..=end` into one. */
  flatten<const S extends number, const E extends number>(start: S, end: E): Tensor<FlattenRank<D, S, E>, K> {
    const shape = this.primitive.shape;
    const rank = Math.max(shape.length, 1);
    const s = normDim(start, rank, 'flatten');
    const e = normDim(end, rank, 'flatten');
    if (s > e) throw new BurnError('flatten', `start dim ${start} is after end dim ${end}`);
    if (shape.length === 0) return this.reshape([1]) as unknown as Tensor<FlattenRank<D, S, E>, K>;
    const target = [...shape.slice(0, s), numel(shape.slice(s, e + 1)), ...shape.slice(e + 1)];
    return this.wrap(this.backend.reshape(this.primitive, target));
  }

  /** Removes every size-1 dim; give the resulting rank as `D2`. */
  squeeze<D2 extends number = number>(): Tensor<D2, K>;
  squeeze<D2 extends number = number>(unexpected?: unknown): Tensor<D2, K> {
    // A plain JavaScript `squeeze(1)` (PyTorch's habit) would squeeze every size-1 dim.
    if (unexpected !== undefined)
      refuseArgs(
        'squeeze',
        [unexpected],
        'removes every size-1 dim',
        (a) => `to remove one dim use squeezeDim(${describeValue(a[0])})`,
      );
    return this.wrap(
      this.backend.reshape(
        this.primitive,
        this.primitive.shape.filter((s) => s !== 1),
      ),
    );
  }

  /** Removes dim `dim`, which must have size 1. */
  squeezeDim(dim: number): Tensor<Dec<D>, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'squeezeDim');
    if (shape[d] !== 1)
      throw new BurnError('squeezeDim', `dim ${dim} has size ${shape[d]} in shape ${fmt(shape)}; expected size 1`);
    return this.wrap(
      this.backend.reshape(
        this.primitive,
        shape.filter((_, i) => i !== d),
      ),
    );
  }

  /** Removes the given size-1 dims (all size-1 dims when `dims` is empty). */
  squeezeDims<const S extends readonly number[]>(
    dims: S,
  ): Tensor<number extends S['length'] ? number : S['length'] extends 0 ? number : Sub<D, S['length']>, K> {
    const shape = this.primitive.shape;
    // As Burn: repeated dims are squeezed once.
    const ds =
      dims.length === 0
        ? shape.flatMap((s, i) => (s === 1 ? [i] : []))
        : [...new Set(dims.map((d) => normDim(d, shape.length, 'squeezeDims')))];
    for (const d of ds) {
      if (shape[d] !== 1)
        throw new BurnError('squeezeDims', `dim ${d} has size ${shape[d]} in shape ${fmt(shape)}; expected size 1`);
    }
    return this.wrap(
      this.backend.reshape(
        this.primitive,
        shape.filter((_, i) => !ds.includes(i)),
      ),
    );
  }

  /** Adds leading size-1 dims up to rank `D2` (default: one more). */
  unsqueeze<D2 extends number = Inc<D>>(rank?: D2): Tensor<D2, K> {
    const shape = this.primitive.shape;
    const target = rank ?? shape.length + 1;
    if (target < shape.length)
      throw new BurnError('unsqueeze', `target rank ${target} is below the tensor's rank ${shape.length}`);
    return this.wrap(
      this.backend.reshape(this.primitive, [...new Array<number>(target - shape.length).fill(1), ...shape]),
    );
  }

  /** Inserts a size-1 dim at `dim` (negative counts from the end of the result). */
  unsqueezeDim(dim: number): Tensor<Inc<D>, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length + 1, 'unsqueezeDim');
    return this.wrap(this.backend.reshape(this.primitive, [...shape.slice(0, d), 1, ...shape.slice(d)]));
  }

  /** Inserts size-1 dims at the given positions of the result. */
  unsqueezeDims<const S extends readonly number[]>(dims: S): Tensor<Add<D, RankOf<S>>, K> {
    const shape = this.primitive.shape;
    const rank = shape.length + dims.length;
    const at = unsqueezePositions(dims, rank);
    const out: number[] = [];
    let src = 0;
    for (let i = 0; i < rank; i++) out.push(at.includes(i) ? 1 : shape[src++]!);
    return this.wrap(this.backend.reshape(this.primitive, out));
  }

  /** Swaps the last two dims. */
  transpose(): Tensor<D, K>;
  transpose(dim1?: unknown, dim2?: unknown): Tensor<D, K> {
    // A plain JavaScript `transpose(0, 1)` (PyTorch's habit) would swap the last two dims instead.
    if (dim1 !== undefined || dim2 !== undefined)
      refuseArgs('transpose', [dim1, dim2], 'swaps the last two dims', swapHint);
    const rank = this.primitive.shape.length;
    if (rank < 2) return this.wrap(this.primitive);
    return this.swapDims(rank - 2, rank - 1);
  }

  /** Swaps the last two dims: Burn's short alias of {@link transpose}. */
  t(): Tensor<D, K>;
  t(dim1?: unknown, dim2?: unknown): Tensor<D, K> {
    if (dim1 !== undefined || dim2 !== undefined) refuseArgs('t', [dim1, dim2], 'swaps the last two dims', swapHint);
    return this.transpose();
  }

  /** Swaps two dims. */
  swapDims(dim1: number, dim2: number): Tensor<D, K> {
    const rank = this.primitive.shape.length;
    const a = normDim(dim1, rank, 'swapDims');
    const b = normDim(dim2, rank, 'swapDims');
    const axes = Array.from({ length: rank }, (_, i) => (i === a ? b : i === b ? a : i));
    return this.wrap(this.backend.permute(this.primitive, axes));
  }

  /** Reorders dims: result dim `i` is input dim `axes[i]`. */
  permute(axes: readonly number[]): Tensor<D, K> {
    const rank = this.primitive.shape.length;
    if (axes.length !== rank)
      throw new BurnError('permute', `${axes.length} axes ${fmt(axes)} for a tensor of rank ${rank}; expected ${rank}`);
    return this.wrap(this.backend.permute(this.primitive, normDims(axes, rank, 'permute')));
  }

  /** Moves dims `source` to positions `destination`, keeping the order of the others. */
  movedim(source: number | readonly number[], destination: number | readonly number[]): Tensor<D, K> {
    const rank = this.primitive.shape.length;
    const src = normDims(typeof source === 'number' ? [source] : source, rank, 'movedim');
    const dst = normDims(typeof destination === 'number' ? [destination] : destination, rank, 'movedim');
    if (src.length !== dst.length)
      throw new BurnError(
        'movedim',
        `${src.length} source dims and ${dst.length} destination dims; expected the same number`,
      );
    const axes = new Array<number>(rank).fill(-1);
    dst.forEach((d, i) => (axes[d] = src[i]!));
    const rest = Array.from({ length: rank }, (_, i) => i).filter((i) => !src.includes(i));
    for (let i = 0, r = 0; i < rank; i++) if (axes[i] === -1) axes[i] = rest[r++]!;
    return this.wrap(this.backend.permute(this.primitive, axes));
  }

  /** Reverses the order of elements along `dims`. */
  flip(dims: readonly number[]): Tensor<D, K> {
    const shape = this.primitive.shape;
    const ds = normDims(dims, shape.length, 'flip');
    const specs = shape.map((s, d) =>
      ds.includes(d) ? { start: s - 1, size: s, step: -1 } : { start: 0, size: s, step: 1 },
    );
    return this.wrap(this.backend.slice(this.primitive, specs));
  }

  /** Broadcasts to `shape` (size-1 dims stretch; `-1` keeps a size; new dims are added in front). */
  expand<const S extends readonly number[]>(shape: S): Tensor<RankOf<S>, K> {
    const from = this.primitive.shape;
    const off = shape.length - from.length;
    const target = shape.map((s, i) => (s === -1 && i >= off ? from[i - off]! : s));
    checkShape(target, 'expand');
    checkBroadcastTo(from, target, 'expand');
    if (sameShape(from, target)) return this.wrap(this.primitive);
    return this.wrap(this.backend.expand(this.primitive, target));
  }

  /**
   * Repeats the tensor `sizes[d]` times along dim `d`, as Burn: sizes apply from dim 0, dims past
   * the sizes are not repeated, and sizes past the rank must be 1 (`[[0, 1, 2]].repeat([4, 1, 1])`
   * is `[4, 3]`; PyTorch would add leading dims instead).
   */
  repeat(sizes: readonly number[]): Tensor<D, K> {
    const rank = this.primitive.shape.length;
    checkShape(sizes, 'repeat', 'repeat sizes');
    if (sizes.length === rank) return this.repeatBy(sizes, 'repeat');
    for (let i = rank; i < sizes.length; i++) {
      if (sizes[i] !== 1)
        throw new BurnError(
          'repeat',
          `sizes ${fmt(sizes)} for a tensor of rank ${rank}; sizes past the rank ${rank} must be 1`,
        );
    }
    return this.repeatBy(
      Array.from({ length: rank }, (_, i) => sizes[i] ?? 1),
      'repeat',
    );
  }
  private repeatBy(sizes: readonly number[], op: string): Tensor<D, K> {
    const shape = this.primitive.shape;
    checkShape(sizes, op, 'repeat sizes');
    const out = shape.map((s, i) => s * sizes[i]!);
    checkNumel(out, op);
    // [a, b] → [1, a, 1, b] → expand [ra, a, rb, b] → reshape [ra*a, rb*b]
    const inter = shape.flatMap((s) => [1, s]);
    const expanded = shape.flatMap((s, i) => [sizes[i]!, s]);
    const b = this.backend;
    const p = b.expand(b.reshape(this.primitive, inter), expanded);
    return this.wrap(b.reshape(p, out));
  }

  /** Repeats `times` times along `dim`. */
  repeatDim(dim: number, times: number): Tensor<D, K> {
    const rank = this.primitive.shape.length;
    const d = normDim(dim, rank, 'repeatDim');
    if (!(Number.isInteger(times) && times >= 0))
      throw new BurnError('repeatDim', `times ${times}; expected a non-negative integer`);
    return this.repeatBy(
      Array.from({ length: rank }, (_, i) => (i === d ? times : 1)),
      'repeatDim',
    );
  }

  /**
   * Rolls elements by `shifts[i]` along `dims[i]`, one dim after the other (elements leaving one
   * end re-enter at the other). As in Burn, a positive shift moves elements toward index 0: element
   * `i` of the result is element `(i + shift) mod n` — the opposite direction of PyTorch's and
   * NumPy's `roll` (negate the shifts of code ported from them).
   */
  roll(shifts: readonly number[], dims: readonly number[]): Tensor<D, K> {
    if (shifts.length !== dims.length)
      throw new BurnError('roll', `${shifts.length} shifts for ${dims.length} dims; expected one shift per dim`);
    let out = this.wrap<D, K>(this.primitive);
    dims.forEach((dim, i) => (out = out.rollAlong(shifts[i]!, dim, 'roll')));
    return out;
  }

  /** Rolls elements by `shift` along `dim`, as Burn: element `i` of the result is element `(i + shift) mod n` (see {@link roll}). */
  rollDim(shift: number, dim: number): Tensor<D, K> {
    return this.rollAlong(shift, dim, 'rollDim');
  }
  private rollAlong(shift: number, dim: number, op: string): Tensor<D, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, op);
    if (!Number.isInteger(shift)) throw new BurnError(op, `shift ${shift} for dim ${dim}; expected an integer`);
    const size = shape[d]!;
    if (size === 0) return this.wrap(this.primitive);
    const s = ((shift % size) + size) % size;
    if (s === 0) return this.wrap(this.primitive);
    const b = this.backend;
    const part = (start: number, len: number) =>
      b.slice(
        this.primitive,
        shape.map((n, i) => (i === d ? { start, size: len, step: 1 } : { start: 0, size: n, step: 1 })),
      );
    // Burn's roll_dim: cat(x[s..], x[..s]).
    return this.wrap(b.cat([part(s, size - s), part(0, s)], d));
  }

  /** Sliding windows of `size` every `step` along `dim`: that dim becomes the window count and a new last dim holds each window. */
  unfold(dim: number, size: number, step: number): Tensor<Inc<D>, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'unfold');
    if (!(Number.isInteger(size) && size > 0 && Number.isInteger(step) && step > 0)) {
      throw new BurnError('unfold', `size ${size} and step ${step}; expected positive integers`);
    }
    if (size > shape[d]!)
      throw new BurnError('unfold', `window size ${size} is larger than dim ${dim} of size ${shape[d]}`);
    const windows = Math.floor((shape[d]! - size) / step) + 1;
    const outShape = [...shape.slice(0, d), windows, ...shape.slice(d + 1), size];
    checkNumel(outShape, 'unfold');
    const b = this.backend;
    // An empty tensor has empty windows: the index list below is sized by the windows, which may be huge.
    if (numel(shape) === 0) return this.wrap(b.fill(outShape, 0, this.primitive.dtype));
    const idx = new Int32Array(windows * size);
    for (let w = 0; w < windows; w++) for (let k = 0; k < size; k++) idx[w * size + k] = w * step + k;
    const ind = b.fromData(dataOf(idx));
    const picked = b.select(this.primitive, d, ind);
    const split = b.reshape(picked, [...shape.slice(0, d), windows, size, ...shape.slice(d + 1)]);
    const rank = shape.length + 1;
    const axes = [...Array.from({ length: rank }, (_, i) => i).filter((i) => i !== d + 1), d + 1];
    return this.wrap(b.permute(split, axes));
  }

  /**
   * Converts to `dtype` (Burn's `cast`). Within a kind (`'f16'`, `'f64'`, `'i64'`, …) the tensor
   * keeps its kind; a dtype of another kind changes it, and the result is typed so
   * (`intTensor.cast('f32')` is a `Tensor<D, Float>`): floats become ints by truncating toward zero
   * (saturating), bools become 0 and 1, and `'bool'` is true where non-zero. A dtype typed only as
   * `DType` leaves the kind in the result's type unchanged.
   */
  cast(dtype: FloatDType): Tensor<D, Float>;
  cast(dtype: IntDType): Tensor<D, Int>;
  cast(dtype: 'bool'): Tensor<D, Bool>;
  cast(dtype: DType): Tensor<D, K>;
  cast(dtype: DType): Tensor<D, Kind> {
    assertDType(dtype, 'cast');
    if (this.primitive.dtype === dtype) return this.wrap(this.primitive);
    return this.wrap(this.backend.cast(this.primitive, dtype));
  }
}

/**
 * Burn's `unsqueeze_dims` positions in a result of rank `rank`: the k-th negative dim counts from
 * `rank - k` (so `[-1, -1]` adds two trailing dims), and repeated positions insert several dims
 * (sorted `[0, 0, 3]` becomes `[0, 1, 3]`).
 */
function unsqueezePositions(dims: readonly number[], rank: number): number[] {
  let negOffset = rank;
  const at = dims
    .map((d) => {
      if (!Number.isInteger(d) || d < -rank || d >= rank) {
        throw new BurnError(
          'unsqueezeDims',
          `dim ${d} is out of range for a result of rank ${rank}; expected -${rank} <= dim < ${rank}`,
        );
      }
      if (d >= 0) return d;
      negOffset -= 1;
      return d + negOffset + 1;
    })
    .sort((a, b) => a - b);
  for (let i = 1; i < at.length; i++) if (at[i]! <= at[i - 1]!) at[i] = at[i - 1]! + 1;
  const last = at[at.length - 1];
  if (last !== undefined && last >= rank) {
    throw new BurnError('unsqueezeDims', `dims ${fmt(dims)} insert past the end of a result of rank ${rank}`);
  }
  return at;
}

/**
 * @internal Throws the BurnError for arguments given to a method that takes none — plain
 * JavaScript's `t.mean(1)` (PyTorch's habit), which would otherwise be silently ignored. Called
 * only on that cold path: the methods check their hidden optional parameters against `undefined`
 * (no `arguments` object on the hot path). `args` are the values given (trailing `undefined`s are
 * dropped); `does` says what the method does; `hint` names the method to use instead; `takes`
 * what it accepts.
 */
export function refuseArgs(
  op: string,
  args: readonly unknown[],
  does: string,
  hint: (args: readonly unknown[]) => string,
  takes = 'none',
): never {
  let n = args.length;
  while (n > 0 && args[n - 1] === undefined) n--;
  const given = args.slice(0, n);
  const shown = given.map((a) => (Array.isArray(a) ? fmtValues(a) : describeValue(a))).join(', ');
  throw new BurnError(
    op,
    `got ${n} argument${n === 1 ? '' : 's'} (${shown}), but ${op}() takes ${takes}: it ${does}; ${hint(given)}`,
  );
}

/**
 * @internal The hint of a full reduction given a dim: `name`Dim(d) for one number, `name`Dims([…])
 * for an array or several numbers (`dimsName` undefined: no such method, one dim at a time).
 */
export function reduceHint(dimName: string, dimsName?: string): (args: readonly unknown[]) => string {
  return (args) => {
    const first = args[0];
    const list = Array.isArray(first) ? (first as readonly unknown[]) : args.length > 1 ? args : undefined;
    if (list && dimsName) return `to reduce along dims use ${dimsName}(${fmtValues(list)})`;
    return `to reduce along a dim use ${dimName}(${describeValue(list ? list[0] : first)})`;
  };
}

function swapHint(args: readonly unknown[]): string {
  return `to swap two given dims use swapDims(${args.length >= 2 ? args.map(describeValue).join(', ') : `${describeValue(args[0])}, dim2`}) (or permute)`;
}

/** The `dtype` of read options, checked (a non-object, an unknown key or an unknown dtype is a BurnError). */
function readDTypeOption(options: ToDataOptions, op: string): DType | undefined {
  checkOptions(options, ['dtype'], op);
  return options.dtype === undefined ? undefined : assertDType(options.dtype, op);
}

/** Refuses a `toDevice` target that is not a device (plain JavaScript callers). */
function checkDevice(device: Device, op: string): void {
  if (typeof (device as Partial<Device> | null)?.equals !== 'function')
    throw new BurnError(op, `${describeValue(device)} is not a Device; expected one such as Device.cpu()`);
}

/** @internal i32 data for index tensors built on the host. */
export function dataOf(values: Int32Array, shape: readonly number[] = [values.length]): TensorData {
  return new TensorData(values, shape, 'i32');
}

function scalarOf(data: TensorData, op: string): number | boolean {
  if (data.numElements() !== 1)
    throw new BurnError(
      op,
      `tensor of shape ${fmt(data.shape)} has ${data.numElements()} elements; expected exactly one`,
    );
  const v = data.toArray()[0]!;
  return data.dtype === 'bool' ? v !== 0 : v;
}
