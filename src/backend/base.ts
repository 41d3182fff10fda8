import type { TensorData } from '../core/data.js';
import type { Distribution } from '../core/distribution.js';
import type { DType } from '../core/dtype.js';
import type { Backend, SliceSpecs, TensorPrimitive } from './backend.js';
import * as activation from './defaults/activation.js';
import { attention } from './defaults/attention.js';
import * as convTranspose from './defaults/conv-transpose.js';
import * as conv from './defaults/conv.js';
import * as creation from './defaults/creation.js';
import { deformConv2d } from './defaults/deform-conv.js';
import * as elementwise from './defaults/elementwise.js';
import { gridSample2d } from './defaults/grid-sample.js';
import * as indexing from './defaults/indexing.js';
import { interpolate } from './defaults/interpolate.js';
import * as pool from './defaults/pool.js';
import type { ArgOp, BinaryOp, CompareOp, PredicateOp, ReduceOp, ScanOp, ScatterOp, UnaryOp } from './ops.js';
import type {
  AttentionOptions,
  AvgPoolOptions,
  ConvOptions,
  ConvTransposeOptions,
  DeformConvOptions,
  GridSampleOptions,
  InterpolateOptions,
  MaxPoolOptions,
  UnfoldOptions,
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
  relu(p: P): P {
    return activation.relu(this, p);
  }
  reluBackward(output: P, grad: P): P {
    return activation.reluBackward(this, output, grad);
  }
  conv(x: P, weight: P, bias: P | undefined, options: ConvOptions): P {
    return conv.conv(this, x, weight, bias, options);
  }
  convTranspose(x: P, weight: P, bias: P | undefined, options: ConvTransposeOptions): P {
    return convTranspose.convTranspose(this, x, weight, bias, options);
  }
  deformConv2d(x: P, offset: P, weight: P, mask: P | undefined, bias: P | undefined, options: DeformConvOptions): P {
    return deformConv2d(this, x, offset, weight, mask, bias, options);
  }
  unfold4d(x: P, kernelSize: readonly number[], options: UnfoldOptions): P {
    return conv.unfold4d(this, x, kernelSize, options);
  }
  maxPool(x: P, options: MaxPoolOptions): P {
    return pool.maxPool(this, x, options);
  }
  maxPoolWithIndices(x: P, options: MaxPoolOptions): [P, P] {
    return pool.maxPoolWithIndices(this, x, options);
  }
  avgPool(x: P, options: AvgPoolOptions): P {
    return pool.avgPool(this, x, options);
  }
  adaptiveAvgPool(x: P, outputSize: readonly number[]): P {
    return pool.adaptiveAvgPool(this, x, outputSize);
  }
  interpolate(x: P, outputSize: readonly number[], options: InterpolateOptions): P {
    return interpolate(this, x, outputSize, options);
  }
  gridSample2d(x: P, grid: P, options: GridSampleOptions): P {
    return gridSample2d(this, x, grid, options);
  }
  attention(q: P, k: P, v: P, mask: P | undefined, bias: P | undefined, options: AttentionOptions): P {
    return attention(this, q, k, v, mask, bias, options);
  }
}
