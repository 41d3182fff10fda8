import type { DType } from '../tensor/dtype.js';
import { BurnError } from '../tensor/errors.js';
import type { TensorData } from '../tensor/data.js';

/**
 * A tensor seen by a store (Burn's `TensorSnapshot`): its dtype and shape up front, its path
 * (`['conv1', 'weight']`), the container types along the path (`['Struct:Net', 'Struct:Conv2d']`)
 * and its parameter id, with the data produced only when {@link toData} is called (read from a
 * file range, or from a module's tensor).
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
  private readonly dataFn: () => TensorData;

  constructor(
    dtype: DType,
    shape: readonly number[],
    pathStack: readonly string[],
    dataFn: () => TensorData,
    options: { containerStack?: readonly string[]; paramId?: string } = {},
  ) {
    this.dtype = dtype;
    this.shape = shape;
    this.pathStack = pathStack;
    this.containerStack = options.containerStack ?? [];
    this.paramId = options.paramId;
    this.dataFn = dataFn;
  }

  /** A snapshot of data already in memory. */
  static fromData(data: TensorData, path: string | readonly string[], options: { containerStack?: readonly string[]; paramId?: string } = {}): TensorSnapshot {
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

  /** Produces the data (reads the file range, or the tensor). */
  toData(): TensorData {
    const data = this.dataFn();
    if (data.dtype !== this.dtype) {
      throw new BurnError('TensorSnapshot', `'${this.fullPath()}' announced dtype ${this.dtype} but produced ${data.dtype}`);
    }
    return data;
  }

  /** The same tensor under another path. */
  withPath(pathStack: readonly string[]): TensorSnapshot {
    return new TensorSnapshot(this.dtype, this.shape, pathStack, this.dataFn, { containerStack: this.containerStack, ...this.idOption() });
  }

  /** The same tensor with another context (path, containers), as adapters see it. */
  withContext(pathStack: readonly string[], containerStack: readonly string[]): TensorSnapshot {
    return new TensorSnapshot(this.dtype, this.shape, pathStack, this.dataFn, { containerStack, ...this.idOption() });
  }

  /** A derived snapshot whose data is `transform(original data)` (lazy). */
  map(dtype: DType, shape: readonly number[], transform: (data: TensorData) => TensorData): TensorSnapshot {
    const fn = this.dataFn;
    return new TensorSnapshot(dtype, shape, this.pathStack, () => transform(fn()), { containerStack: this.containerStack, ...this.idOption() });
  }

  private idOption(): { paramId?: string } {
    return this.paramId === undefined ? {} : { paramId: this.paramId };
  }
}
