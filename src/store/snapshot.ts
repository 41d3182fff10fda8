import type { Device } from '../device/device.js';
import { TensorData } from '../core/data.js';
import { dtypeSize, type DType } from '../core/dtype.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Kind } from '../tensor/kind.js';
import { numel, sameShape } from '../core/shape.js';
import { Tensor } from '../tensor/tensor.js';

/** Options of a {@link TensorSnapshot}. */
export interface TensorSnapshotOptions {
  readonly containerStack?: readonly string[];
  readonly paramId?: string;
  /**
   * The shape of the data the snapshot's function produces when it is smaller than `shape` and
   * broadcasts to it (dims of size 1 where `shape` is larger): an expanded tensor such as a
   * PyTorch stride-0 view, kept compact. Default: `shape`.
   */
  readonly compactShape?: readonly number[];
}

/**
 * A tensor seen by a store (Burn's `TensorSnapshot`): its dtype and shape up front, its path
 * (`['conv1', 'weight']`), the container types along the path (`['Struct:Net', 'Struct:Conv2d']`)
 * and its parameter id, with the data produced only when {@link toData} is called (read from a
 * file range, or from a module's tensor). An expanded source tensor (a PyTorch stride-0 view) stays
 * compact: {@link toCompactData} gives the small data and loading into a module expands it as a
 * view, so its memory is bounded by its storage; {@link toData} gives the dense values.
 */
export class TensorSnapshot {
  /** The element type. */
  readonly dtype: DType;
  /** The shape. */
  readonly shape: readonly number[];
  /** Path segments from the module root. */
  readonly pathStack: readonly string[];
  /** `Struct:<Type>` for modules, `Vec` for arrays, `Map` for plain objects, one per enclosing container. */
  readonly containerStack: readonly string[];
  /** The parameter id, when the source has one (burnpack, burn-ts records); PyTorch and SafeTensors have none. */
  readonly paramId: string | undefined;
  /** The shape of the data as stored: `shape` with 1 in each expanded (broadcast) dim; `shape` itself when nothing is expanded. */
  readonly compactShape: readonly number[];
  /** Produces the data of {@link compactShape}. */
  private readonly dataFn: () => TensorData;

  /** `dataFn` produces the data, of `options.compactShape` when given (an expanded tensor), else of `shape`. */
  constructor(
    dtype: DType,
    shape: readonly number[],
    pathStack: readonly string[],
    dataFn: () => TensorData,
    options: TensorSnapshotOptions = {},
  ) {
    this.dtype = dtype;
    this.shape = shape;
    this.pathStack = pathStack;
    this.containerStack = options.containerStack ?? [];
    this.paramId = options.paramId;
    this.dataFn = dataFn;
    const compact = options.compactShape ?? shape;
    if (compact.length !== shape.length || compact.some((c, i) => c !== shape[i] && c !== 1)) {
      throw new BurnError(
        'TensorSnapshot',
        `'${pathStack.join('.')}': compact shape ${fmt(compact)} does not broadcast to shape ${fmt(shape)}; expected the same rank with 1 or the full size in each dim`,
      );
    }
    this.compactShape = compact;
  }

  /** A snapshot of data already in memory. */
  static fromData(
    data: TensorData,
    path: string | readonly string[],
    options: { containerStack?: readonly string[]; paramId?: string } = {},
  ): TensorSnapshot {
    const stack = typeof path === 'string' ? path.split('.') : path;
    return new TensorSnapshot(data.dtype, data.shape, stack, () => data, options);
  }

  /** The dot-joined path (`conv1.weight`). */
  fullPath(): string {
    return this.pathStack.join('.');
  }

  /** The dot-joined container stack. */
  containerPath(): string {
    return this.containerStack.join('.');
  }

  /** The innermost module type (`Struct:Linear`), skipping `Vec`/`Map` wrappers; undefined when none. */
  moduleType(): string | undefined {
    for (let i = this.containerStack.length - 1; i >= 0; i--) {
      const c = this.containerStack[i]!;
      if (c.startsWith('Struct:') || c.startsWith('Enum:')) return c;
    }
    return undefined;
  }

  /** Size of the data in bytes. */
  dataLength(bytesPerElement: number): number {
    return this.shape.reduce((a, b) => a * b, 1) * bytesPerElement;
  }

  /** True when the data is stored smaller than {@link shape} and broadcasts to it (an expanded tensor). */
  isExpanded(): boolean {
    return !sameShape(this.compactShape, this.shape);
  }

  /** The data as stored, of {@link compactShape}: for an expanded tensor, the small data that broadcasts to {@link shape}. */
  toCompactData(): TensorData {
    const data = this.dataFn();
    if (data.dtype !== this.dtype) {
      throw new BurnError(
        'TensorSnapshot',
        `'${this.fullPath()}' announced dtype ${this.dtype} but produced ${data.dtype}`,
      );
    }
    if (!sameShape(data.shape, this.compactShape)) {
      throw new BurnError(
        'TensorSnapshot',
        `'${this.fullPath()}' announced shape ${fmt(this.compactShape)} but produced ${fmt(data.shape)}`,
      );
    }
    return data;
  }

  /** Produces the dense data of {@link shape} (reads the file range, or the tensor); an expanded tensor is materialized. */
  toData(): TensorData {
    const data = this.toCompactData();
    return this.isExpanded() ? broadcastData(data, this.shape, this.fullPath()) : data;
  }

  /** The tensor on `device` (default: the default device); an expanded tensor is an expanded view of its compact data, never dense. */
  toTensor(device?: Device): Tensor<number, Kind> {
    const t = Tensor.fromData(this.toCompactData(), device) as Tensor<number, Kind>;
    return this.isExpanded() ? t.expand(this.shape) : t;
  }

  /** The same tensor under another path. */
  withPath(pathStack: readonly string[]): TensorSnapshot {
    return new TensorSnapshot(this.dtype, this.shape, pathStack, this.dataFn, {
      containerStack: this.containerStack,
      ...this.options(),
    });
  }

  /** The same tensor with another context (path, containers), as adapters see it. */
  withContext(pathStack: readonly string[], containerStack: readonly string[]): TensorSnapshot {
    return new TensorSnapshot(this.dtype, this.shape, pathStack, this.dataFn, { containerStack, ...this.options() });
  }

  /** A derived snapshot whose data is `transform(dense data)` (lazy; an expanded tensor is materialized first). */
  map(dtype: DType, shape: readonly number[], transform: (data: TensorData) => TensorData): TensorSnapshot {
    const fn = () => this.toData();
    return new TensorSnapshot(dtype, shape, this.pathStack, () => transform(fn()), {
      containerStack: this.containerStack,
      ...this.idOption(),
    });
  }

  /**
   * A derived snapshot of `shape` whose stored data is `transform(compact data)`, of
   * `compactShape` (lazy): for transforms that commute with broadcasting (casts, transposes), so
   * an expanded tensor stays compact. For a tensor that is not expanded, the same as {@link map}.
   */
  mapCompact(
    dtype: DType,
    shape: readonly number[],
    compactShape: readonly number[],
    transform: (data: TensorData) => TensorData,
  ): TensorSnapshot {
    const fn = this.dataFn;
    return new TensorSnapshot(dtype, shape, this.pathStack, () => transform(fn()), {
      containerStack: this.containerStack,
      ...this.idOption(),
      compactShape,
    });
  }

  private idOption(): { paramId?: string } {
    return this.paramId === undefined ? {} : { paramId: this.paramId };
  }

  private options(): { paramId?: string; compactShape?: readonly number[] } {
    return this.isExpanded() ? { ...this.idOption(), compactShape: this.compactShape } : this.idOption();
  }
}

/** `data` (of a shape with 1 in some dims) broadcast to `shape`, dense; a BurnError naming `path` when it cannot be allocated. */
function broadcastData(data: TensorData, shape: readonly number[], path: string): TensorData {
  const size = data.dtype === 'bool' ? 1 : dtypeSize(data.dtype);
  const n = numel(shape);
  let out: Uint8Array;
  try {
    out = new Uint8Array(n * size);
  } catch (e) {
    throw new BurnError(
      'TensorSnapshot',
      `'${path}': the expanded tensor of shape ${fmt(shape)} needs ${n * size} bytes dense, which cannot be allocated (${(e as Error).message}); load it into a module (it stays a view) or read toCompactData()`,
    );
  }
  const src = data.bytes;
  if (n === 0) return TensorData.fromBytes(out, shape, data.dtype);
  // Copy the innermost run that is not broadcast as one block, repeating blocks along broadcast dims.
  const rank = shape.length;
  const srcStrides = new Array<number>(rank);
  let acc = 1;
  for (let d = rank - 1; d >= 0; d--) {
    srcStrides[d] = data.shape[d] === 1 && shape[d] !== 1 ? 0 : acc;
    acc *= data.shape[d]!;
  }
  let inner = rank;
  let block = 1;
  while (inner > 0 && srcStrides[inner - 1] !== 0 && srcStrides[inner - 1] === block) {
    inner--;
    block *= shape[inner]!;
  }
  const blockBytes = block * size;
  const idx = new Array<number>(inner).fill(0);
  let s = 0;
  for (let o = 0; o < n * size; o += blockBytes) {
    out.set(src.subarray(s * size, s * size + blockBytes), o);
    for (let d = inner - 1; d >= 0; d--) {
      idx[d]!++;
      s += srcStrides[d]!;
      if (idx[d]! < shape[d]!) break;
      s -= srcStrides[d]! * shape[d]!;
      idx[d] = 0;
    }
  }
  return TensorData.fromBytes(out, shape, data.dtype);
}
