import type { TensorData } from '../tensor/data.js';
import type { Distribution } from '../tensor/distribution.js';
import type { DType } from '../tensor/dtype.js';
import type { Backend, SliceSpecs, TensorPrimitive } from './backend.js';
import * as activation from './defaults/activation.js';
import * as creation from './defaults/creation.js';
import * as elementwise from './defaults/elementwise.js';
import * as indexing from './defaults/indexing.js';
import { notYet } from './defaults/module.js';
import type { ArgOp, BinaryOp, CompareOp, PredicateOp, ReduceOp, ScanOp, ScatterOp, UnaryOp } from './ops.js';
import type {
  AttentionOptions, AvgPoolOptions, ConvOptions, ConvTransposeOptions, DeformConvOptions,
  GridSampleOptions, InterpolateOptions, MaxPoolOptions, UnfoldOptions,
} from './options.js';
import type { RandomKey } from './rng.js';

/**
 * A backend with every composite op implemented over the required set ({@link RequiredOps}).
 * Extend it, implement the abstract methods, and override what you can do faster. The defaults
 * live in `./defaults/`, one file per op family.
 */
export abstract class BaseBackend<P extends TensorPrimitive> implements Backend<P> {
  abstract readonly name: string;
  abstract fromData(data: TensorData): P;
  abstract toData(p: P): Promise<TensorData>;
  abstract toDataSync(p: P): TensorData | undefined;
  abstract fill(shape: readonly number[], value: number, dtype: DType): P;
  abstract reshape(p: P, shape: readonly number[]): P;
  abstract permute(p: P, axes: readonly number[]): P;
  abstract expand(p: P, shape: readonly number[]): P;
  abstract slice(p: P, specs: SliceSpecs): P;
  abstract sliceAssign(p: P, specs: SliceSpecs, values: P): P;
  abstract cat(ps: readonly P[], dim: number): P;
  abstract unary(op: UnaryOp, p: P): P;
  abstract predicate(op: PredicateOp, p: P): P;
  abstract binary(op: BinaryOp, a: P, b: P): P;
  abstract compare(op: CompareOp, a: P, b: P): P;
  abstract where(cond: P, a: P, b: P): P;
  abstract cast(p: P, dtype: DType): P;
  abstract reduce(op: ReduceOp, p: P, dims: readonly number[]): P;
  abstract argReduce(op: ArgOp, p: P, dim: number): P;
  abstract scan(op: ScanOp, p: P, dim: number): P;
  abstract gather(p: P, dim: number, indices: P): P;
  abstract scatter(op: ScatterOp, p: P, dim: number, indices: P, values: P): P;
  abstract matmul(a: P, b: P): P;
  abstract sort(p: P, dim: number, descending: boolean): [P, P];

  random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): P {
    return creation.random(this, shape, dist, dtype, key);
  }
  arange(start: number, end: number, step: number, dtype: DType): P {
    return creation.arange(this, start, end, step, dtype);
  }
  binaryScalar(op: BinaryOp, a: P, scalar: number): P {
    return elementwise.binaryScalar(this, op, a, scalar);
  }
  compareScalar(op: CompareOp, a: P, scalar: number): P {
    return elementwise.compareScalar(this, op, a, scalar);
  }
  clamp(p: P, min: number | undefined, max: number | undefined): P {
    return elementwise.clamp(this, p, min, max);
  }
  maskFill(p: P, mask: P, value: number): P {
    return elementwise.maskFill(this, p, mask, value);
  }
  select(p: P, dim: number, indices: P): P {
    return indexing.select(this, p, dim, indices);
  }
  selectAssign(op: ScatterOp, p: P, dim: number, indices: P, values: P): P {
    return indexing.selectAssign(this, op, p, dim, indices, values);
  }
  softmax(p: P, dim: number): P {
    return activation.softmax(this, p, dim);
  }
  logSoftmax(p: P, dim: number): P {
    return activation.logSoftmax(this, p, dim);
  }
  conv(x: P, weight: P, bias: P | undefined, options: ConvOptions): P {
    void x; void weight; void bias; void options;
    return notYet('conv');
  }
  convTranspose(x: P, weight: P, bias: P | undefined, options: ConvTransposeOptions): P {
    void x; void weight; void bias; void options;
    return notYet('convTranspose');
  }
  deformConv2d(x: P, offset: P, weight: P, mask: P | undefined, bias: P | undefined, options: DeformConvOptions): P {
    void x; void offset; void weight; void mask; void bias; void options;
    return notYet('deformConv2d');
  }
  unfold4d(x: P, kernelSize: readonly number[], options: UnfoldOptions): P {
    void x; void kernelSize; void options;
    return notYet('unfold4d');
  }
  maxPool(x: P, options: MaxPoolOptions): P {
    void x; void options;
    return notYet('maxPool');
  }
  maxPoolWithIndices(x: P, options: MaxPoolOptions): [P, P] {
    void x; void options;
    return notYet('maxPoolWithIndices');
  }
  avgPool(x: P, options: AvgPoolOptions): P {
    void x; void options;
    return notYet('avgPool');
  }
  adaptiveAvgPool(x: P, outputSize: readonly number[]): P {
    void x; void outputSize;
    return notYet('adaptiveAvgPool');
  }
  interpolate(x: P, outputSize: readonly number[], options: InterpolateOptions): P {
    void x; void outputSize; void options;
    return notYet('interpolate');
  }
  gridSample2d(x: P, grid: P, options: GridSampleOptions): P {
    void x; void grid; void options;
    return notYet('gridSample2d');
  }
  attention(q: P, k: P, v: P, mask: P | undefined, bias: P | undefined, options: AttentionOptions): P {
    void q; void k; void v; void mask; void bias; void options;
    return notYet('attention');
  }
}
