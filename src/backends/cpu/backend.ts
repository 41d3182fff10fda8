import type { SliceSpecs } from '../../backend/backend.js';
import type { CustomCall } from '../../backend/custom.js';
import type { FusedCall } from '../../backend/fusion/program.js';
import { BaseBackend } from '../../backend/base.js';
import type {
  ArgOp,
  BinaryOp,
  CompareOp,
  PredicateOp,
  ReduceOp,
  ScanOp,
  ScatterOp,
  UnaryOp,
} from '../../backend/ops.js';
import type {
  AdamStepOptions,
  ConvOptions,
  ConvTransposeOptions,
  MaxPoolOptions,
  UnfoldOptions,
} from '../../backend/options.js';
import { TensorData } from '../../core/data.js';
import { f16BitsToF32, bf16BitsToF32, f32ToF16Bits, f32ToBf16Bits, type DType } from '../../core/dtype.js';
import { castNumber, storageFromNumbers } from '../../core/element.js';
import { takeOver } from '../../core/ownership.js';
import { broadcastShapes, contiguousStrides, numel, sameShape } from '../../core/shape.js';
import { alignStrides, collapse, permuteView, sliceView } from '../../core/strided.js';
import { binaryExpr, castExpr, compareExpr, predicateExpr, unaryExpr } from './js/expressions.js';
import { gatherInto, scatterInto, sortInto } from './js/indexing.js';
import { gemm } from './js/matmul.js';
import { adamStepInto, type AdamArrays } from './js/optim.js';
import { argReduceInto, reduceInto, scanInto } from './js/reduce.js';
import { buildMapKernels, KernelCache, type MapKernels, type Operand, type OperandName } from './js/strided.js';
import { forEachOffset2 } from './js/walk.js';
import { isEngineFloat, isFloatArray, jsEngine, type CpuEngineKernels, type FloatArray } from './engine.js';
import * as modules from './module-ops.js';
import { runFused } from './fusion/run.js';
import { BufferPool } from './pool.js';
import { randomInto, type RandomKey } from '../../backend/rng.js';
import type { Distribution } from '../../core/distribution.js';
import { allocCpu, allocError, cpuArrayCtor, CpuTensor, type CpuArray } from './storage.js';

/** `x (op) y` is `y (SWAPPED[op]) x`. */
const SWAPPED: Readonly<Record<CompareOp, CompareOp>> = { eq: 'eq', ne: 'ne', lt: 'gt', le: 'ge', gt: 'lt', ge: 'le' };

/**
 * The CPU backend: shapes, strides, views and broadcasting in TypeScript over typed arrays, with
 * kernels from the `js` engine. Transpose, slice, expand, flip and contiguous reshapes are views
 * (no copy); every op returns a fresh array or a view and never mutates its inputs.
 */
export class CpuBackend extends BaseBackend<CpuTensor> {
  readonly name: string;
  /** Generated elementwise kernels, by op family, op and dtype signature. */
  private readonly kernels = {
    unary: new KernelCache<MapKernels>(),
    predicate: new KernelCache<MapKernels>(),
    binary: new KernelCache<MapKernels>(),
    binaryScalar: new KernelCache<MapKernels>(),
    compare: new KernelCache<MapKernels>(),
    compareScalar: new KernelCache<MapKernels>(),
    where: new KernelCache<MapKernels>(),
    cast: new KernelCache<MapKernels>(),
    copy: new KernelCache<MapKernels>(),
  };

  /** Arrays of released tensors, reused for outputs of the same type and length. */
  readonly pool: BufferPool;

  /**
   * `engine`: the accelerated kernels offered each op first (`js`: none, everything runs here);
   * `pool`: where released arrays wait for reuse (default: a pool of up to 1 GiB in Node, 256 MiB in a page).
   */
  /** What the module ops (./module-ops.ts) use of this backend. */
  private readonly host: modules.CpuKernelHost;

  constructor(
    readonly engine: CpuEngineKernels = jsEngine,
    pool: BufferPool = new BufferPool(),
  ) {
    super();
    this.name = `cpu(${engine.name})`;
    this.pool = pool;
    this.host = {
      engine,
      alloc: (dtype, n) => this.alloc(dtype, n),
      materialize: (p, copy) => this.materialize(p, copy),
      finish: (out, shape, dtype) => this.finish(out, shape, dtype),
      own: (out, shape, dtype) => this.own(out, shape, dtype),
      give: (out) => this.pool.give(out),
      permute: (p, axes) => this.permute(p, axes),
      dispose: (p) => this.dispose(p),
    };
  }

  // --- memory ---

  /**
   * Releases `p`: it must not be used afterwards. When it was the last handle over an array this
   * backend allocated, the array is reused for a later output (no garbage collection, no fresh pages).
   */
  dispose(p: CpuTensor): void {
    p.release();
  }

  /** A second handle on `p`'s values, keeping them alive until it is released too. */
  retain(p: CpuTensor): CpuTensor {
    return p.view(p.shape, p.strides, p.offset);
  }

  /** Engine and pool counters for `device.info()`. */
  info(): object {
    return { engine: this.engine.name, pool: { heldBytes: this.pool.heldBytes, reused: this.pool.reused } };
  }

  // --- data ---

  fromData(data: TensorData): CpuTensor {
    // A handed-over array of the compute type becomes the storage as is (no copy).
    if (
      data.values.constructor === cpuArrayCtor(data.dtype) &&
      data.dtype !== 'f16' &&
      data.dtype !== 'bf16' &&
      data.dtype !== 'i64' &&
      takeOver(data)
    ) {
      return CpuTensor.contiguous(data.values as CpuArray, data.shape, data.dtype);
    }
    const n = data.values.length;
    const out = allocCpu(data.dtype, n);
    const v = data.values;
    if (data.dtype === 'f16' || data.dtype === 'bf16') {
      const decode = data.dtype === 'f16' ? f16BitsToF32 : bf16BitsToF32;
      for (let i = 0; i < n; i++) out[i] = decode(v[i] as number);
    } else if (v instanceof BigInt64Array) {
      for (let i = 0; i < n; i++) out[i] = Number(v[i]!);
    } else {
      out.set(v as ArrayLike<number>);
    }
    return this.own(out, data.shape, data.dtype);
  }

  toData(p: CpuTensor): Promise<TensorData> {
    return Promise.resolve(this.toDataSync(p));
  }

  toDataSync(p: CpuTensor): TensorData {
    const dense = this.materialize(p, true);
    const storage =
      p.dtype === 'f16' || p.dtype === 'bf16' || p.dtype === 'i64' ? storageFromNumbers(dense, p.dtype) : dense;
    return new TensorData(storage, p.shape, p.dtype);
  }

  viewDataSync(p: CpuTensor): TensorData | undefined {
    // f16/bf16/i64 are held in a wider compute type: their stored form needs a conversion anyway.
    if (p.dtype === 'f16' || p.dtype === 'bf16' || p.dtype === 'i64' || !p.isContiguous()) return undefined;
    const n = p.numel;
    // The array leaves the backend: it must never be reused for another tensor.
    if (p.lease) p.lease.escaped = true;
    return new TensorData(
      p.offset === 0 && p.data.length === n ? p.data : p.data.subarray(p.offset, p.offset + n),
      p.shape,
      p.dtype,
    );
  }

  fill(shape: readonly number[], value: number, dtype: DType): CpuTensor {
    const out = this.alloc(dtype, numel(shape));
    out.fill(roundScalar(castNumber(value, dtype), dtype));
    return this.own(out, [...shape], dtype);
  }

  // --- layout ---

  reshape(p: CpuTensor, shape: readonly number[]): CpuTensor {
    if (p.isContiguous()) return p.view([...shape], contiguousStrides(shape), p.offset);
    return this.own(this.materialize(p, false), [...shape], p.dtype);
  }

  permute(p: CpuTensor, axes: readonly number[]): CpuTensor {
    const v = permuteView(p.shape, p.strides, p.offset, axes);
    return p.view(v.shape, v.strides, v.offset);
  }

  expand(p: CpuTensor, shape: readonly number[]): CpuTensor {
    return p.view([...shape], alignStrides(p.shape, p.strides, shape), p.offset);
  }

  slice(p: CpuTensor, specs: SliceSpecs): CpuTensor {
    const v = sliceView(p.shape, p.strides, p.offset, specs);
    return p.view(v.shape, v.strides, v.offset);
  }

  sliceAssign(p: CpuTensor, specs: SliceSpecs, values: CpuTensor): CpuTensor {
    // The copy is written through a scratch (lease-less) view, then owned by the result.
    const out = this.materialize(p, true);
    this.copyInto(this.slice(CpuTensor.contiguous(out, p.shape, p.dtype), specs), values);
    return this.own(out, [...p.shape], p.dtype);
  }

  cat(ps: readonly CpuTensor[], dim: number): CpuTensor {
    const first = ps[0]!;
    const shape = [...first.shape];
    shape[dim] = ps.reduce((acc, p) => acc + p.shape[dim]!, 0);
    const array = this.alloc(first.dtype, numel(shape));
    const out = CpuTensor.contiguous(array, shape, first.dtype);
    let start = 0;
    for (const p of ps) {
      const size = p.shape[dim]!;
      const specs = shape.map((s, d) => (d === dim ? { start, size, step: 1 } : { start: 0, size: s, step: 1 }));
      this.copyInto(this.slice(out, specs), p);
      start += size;
    }
    return this.own(array, shape, first.dtype);
  }

  // --- elementwise ---

  unary(op: UnaryOp, p: CpuTensor): CpuTensor {
    const e = this.engine;
    let out: FloatArray | undefined;
    if (e.unary && isEngineFloat(p) && p.isContiguous()) {
      out = this.alloc(p.dtype, p.numel) as FloatArray;
      if (e.unary(op, out, p.data, p.offset, p.numel) !== undefined) return this.finish(out, p.shape, p.dtype);
    }
    // A declined engine call leaves its fresh output for the js kernel.
    return this.map(
      this.kernels.unary.get(op, p.dtype, () => buildMapKernels(unaryExpr(op, p.dtype), X)),
      p.dtype,
      p.shape,
      [p],
      undefined,
      out,
    );
  }

  /** Clamp in one pass on the engine's kernel where it has one (the default is max then min: two passes and a temporary). */
  override clamp(p: CpuTensor, min: number | undefined, max: number | undefined): CpuTensor {
    const e = this.engine;
    if (e.clamp && isEngineFloat(p) && p.isContiguous() && (min !== undefined || max !== undefined)) {
      const out = this.alloc(p.dtype, p.numel) as FloatArray;
      if (e.clamp(out, p.data, p.offset, p.numel, min ?? -Infinity, max ?? Infinity) !== undefined)
        return this.finish(out, p.shape, p.dtype);
      this.pool.give(out);
    }
    return super.clamp(p, min, max);
  }

  /** Layer normalization over the last dim in one pass per row on the engine's kernel, or undefined where it has none for these tensors. */
  layerNorm(x: CpuTensor, gamma: CpuTensor, beta: CpuTensor | undefined, eps: number): CpuTensor | undefined {
    const e = this.engine;
    const len = x.shape[x.shape.length - 1];
    if (!e.layerNorm || len === undefined || len < 1 || !isEngineFloat(x) || !x.isContiguous()) return undefined;
    if (gamma.dtype !== x.dtype || gamma.numel !== len || (beta && (beta.dtype !== x.dtype || beta.numel !== len)))
      return undefined;
    const dense = (t: CpuTensor) => this.materialize(t, false) as FloatArray;
    const out = this.alloc(x.dtype, x.numel) as FloatArray;
    if (
      e.layerNorm(out, x.data as FloatArray, x.offset, dense(gamma), beta && dense(beta), x.numel / len, len, eps) !==
      undefined
    )
      return this.finish(out, x.shape, x.dtype);
    this.pool.give(out);
    return undefined;
  }

  /** The exact GELU in one pass on the engine's kernel, or undefined where it has none for this tensor. */
  gelu(p: CpuTensor): CpuTensor | undefined {
    const e = this.engine;
    if (!e.gelu || !isEngineFloat(p) || !p.isContiguous()) return undefined;
    const out = this.alloc(p.dtype, p.numel) as FloatArray;
    if (e.gelu(out, p.data, p.offset, p.numel) !== undefined) return this.finish(out, p.shape, p.dtype);
    this.pool.give(out);
    return undefined;
  }

  predicate(op: PredicateOp, p: CpuTensor): CpuTensor {
    return this.map(
      this.kernels.predicate.get(op, p.dtype, () => buildMapKernels(predicateExpr(op), X)),
      'bool',
      p.shape,
      [p],
    );
  }

  binary(op: BinaryOp, a: CpuTensor, b: CpuTensor): CpuTensor {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    const e = this.engine;
    let out: FloatArray | undefined;
    if (e.binary && isEngineFloat(a) && a.dtype === b.dtype) {
      out = this.alloc(a.dtype, numel(shape)) as FloatArray;
      if (isFlat(a, shape) && isFlat(b, shape)) {
        if (e.binary(op, out, a.data, a.offset, b.data as FloatArray, b.offset, a.numel) !== undefined)
          return this.finish(out, shape, a.dtype);
      } else if (e.binaryStrided) {
        // Broadcast or strided operands: the engine walks the collapsed strides itself.
        const col = collapse(shape, [alignStrides(a.shape, a.strides, shape), alignStrides(b.shape, b.strides, shape)]);
        if (
          col.shape.length > 0 &&
          e.binaryStrided(
            op,
            out,
            col.shape,
            a.data,
            a.offset,
            col.strides[0]!,
            b.data as FloatArray,
            b.offset,
            col.strides[1]!,
          ) !== undefined
        ) {
          return this.finish(out, shape, a.dtype);
        }
      }
    }
    return this.map(
      this.kernels.binary.get(op, signature(a, b), () => buildMapKernels(binaryExpr(op, a.dtype), XY)),
      a.dtype,
      shape,
      [a, b],
      undefined,
      out,
    );
  }

  override binaryScalar(op: BinaryOp, a: CpuTensor, scalar: number): CpuTensor {
    const e = this.engine;
    let out: FloatArray | undefined;
    if (e.binaryScalar && isEngineFloat(a) && a.isContiguous()) {
      out = this.alloc(a.dtype, a.numel) as FloatArray;
      if (e.binaryScalar(op, out, a.data, a.offset, roundScalar(scalar, a.dtype), a.numel) !== undefined)
        return this.finish(out, a.shape, a.dtype);
    }
    const kernels = this.kernels.binaryScalar.get(op, a.dtype, () => buildMapKernels(binaryExpr(op, a.dtype), XS));
    return this.map(kernels, a.dtype, a.shape, [a], roundScalar(castNumber(scalar, a.dtype), a.dtype), out);
  }

  /** ReLU in one pass: `max(x, 0)` (JavaScript's max keeps NaN). */
  override relu(p: CpuTensor): CpuTensor {
    return this.binaryScalar('max', p, 0);
  }

  /** The ReLU input gradient in one pass, without a mask array: `grad` where `output > 0` (or NaN), else 0. */
  override reluBackward(output: CpuTensor, grad: CpuTensor): CpuTensor {
    const e = this.engine;
    let out: FloatArray | undefined;
    if (
      e.reluBackward &&
      isEngineFloat(grad) &&
      output.dtype === grad.dtype &&
      sameShape(output.shape, grad.shape) &&
      output.isContiguous() &&
      grad.isContiguous()
    ) {
      out = this.alloc(grad.dtype, grad.numel) as FloatArray;
      if (
        e.reluBackward(out, output.data as FloatArray, output.offset, grad.data, grad.offset, grad.numel) !== undefined
      )
        return this.finish(out, grad.shape, grad.dtype);
    }
    const shape = sameShape(output.shape, grad.shape)
      ? grad.shape
      : broadcastShapes(output.shape, grad.shape, 'reluBackward');
    const kernels = this.kernels.binary.get('reluBackward', signature(output, grad), () =>
      buildMapKernels('(x <= 0 ? 0 : y)', XY),
    );
    return this.map(kernels, grad.dtype, shape, [output, grad], undefined, out);
  }

  compare(op: CompareOp, a: CpuTensor, b: CpuTensor): CpuTensor {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    // A one-element float side broadcast against the other is the engine's scalar compare (far
    // faster than the strided broadcast loop); its value is already of the dtype, so exact.
    if (a.dtype === b.dtype && isEngineFloat(a) && isEngineFloat(b) && a.numel !== b.numel) {
      if (b.numel === 1 && sameShape(shape, a.shape)) return this.compareScalar(op, a, b.data[b.offset] as number);
      if (a.numel === 1 && sameShape(shape, b.shape))
        return this.compareScalar(SWAPPED[op], b, a.data[a.offset] as number);
    }
    return this.map(
      this.kernels.compare.get(op, signature(a, b), () => buildMapKernels(compareExpr(op), XY)),
      'bool',
      shape,
      [a, b],
    );
  }

  override compareScalar(op: CompareOp, a: CpuTensor, scalar: number): CpuTensor {
    // As Burn (and the default over `fill`): the scalar is first converted to the tensor's dtype.
    const s = roundScalar(castNumber(scalar, a.dtype), a.dtype);
    let out: Uint8Array | undefined;
    const e = this.engine;
    if (e.compareScalar && isEngineFloat(a) && a.isContiguous()) {
      out = this.alloc('bool', a.numel) as Uint8Array;
      if (e.compareScalar(op, out, a.data, a.offset, s, a.numel) !== undefined)
        return this.own(out, [...a.shape], 'bool');
    }
    const kernels = this.kernels.compareScalar.get(op, a.dtype, () => buildMapKernels(compareExpr(op), XS));
    return this.map(kernels, 'bool', a.shape, [a], s, out);
  }

  where(cond: CpuTensor, a: CpuTensor, b: CpuTensor): CpuTensor {
    const shape = broadcastShapes(broadcastShapes(cond.shape, a.shape, 'where'), b.shape, 'where');
    const e = this.engine;
    let out: FloatArray | undefined;
    if (e.where && isEngineFloat(a) && a.dtype === b.dtype && cond.data instanceof Uint8Array) {
      const col = collapse(shape, [
        alignStrides(cond.shape, cond.strides, shape),
        alignStrides(a.shape, a.strides, shape),
        alignStrides(b.shape, b.strides, shape),
      ]);
      out = this.alloc(a.dtype, numel(shape)) as FloatArray;
      if (
        col.shape.length > 0 &&
        e.where(
          out,
          col.shape,
          cond.data,
          cond.offset,
          col.strides[0]!,
          a.data,
          a.offset,
          col.strides[1]!,
          b.data as FloatArray,
          b.offset,
          col.strides[2]!,
        ) !== undefined
      ) {
        return this.finish(out, shape, a.dtype);
      }
    }
    // A declined engine call leaves its fresh output for the js kernel.
    return this.map(
      this.kernels.where.get('where', signature(a, b), () => buildMapKernels('(c ? x : y)', XYC)),
      a.dtype,
      shape,
      [a, b, cond],
      undefined,
      out,
    );
  }

  cast(p: CpuTensor, dtype: DType): CpuTensor {
    if (dtype === p.dtype) return p;
    return this.map(
      this.kernels.cast.get(p.dtype, dtype, () => buildMapKernels(castExpr(p.dtype, dtype), X)),
      dtype,
      p.shape,
      [p],
    );
  }

  // --- random ---

  /**
   * The shared Philox draw (backend/rng.ts) written straight into the output array for f32/f64:
   * by the engine's kernel for uniform-type distributions (the same values), else in JavaScript.
   */
  override random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): CpuTensor {
    if (dtype !== 'f32' && dtype !== 'f64') return super.random(shape, dist, dtype, key);
    const out = this.alloc(dtype, numel(shape)) as FloatArray;
    if (dist.kind === 'normal' || this.engine.random?.(out, dist, key) === undefined) randomInto(out, dist, dtype, key);
    return this.own(out, [...shape], dtype);
  }

  // --- optimizer ---

  /** One Adam step in one pass over contiguous f32/f64 tensors of one dtype and shape (else undefined). */
  adamStep(
    param: CpuTensor,
    grad: CpuTensor,
    moment1: CpuTensor | undefined,
    moment2: CpuTensor | undefined,
    options: AdamStepOptions,
  ): [CpuTensor, CpuTensor, CpuTensor] | undefined {
    const ins = [param, grad, ...(moment1 ? [moment1] : []), ...(moment2 ? [moment2] : [])];
    // Half precision keeps f32 arrays but rounds after every op: not this kernel's rounding.
    if (
      !moment1 !== !moment2 ||
      (param.dtype !== 'f32' && param.dtype !== 'f64') ||
      !isEngineFloat(param) ||
      ins.some((t) => t.dtype !== param.dtype || !sameShape(t.shape, param.shape) || !t.isContiguous())
    )
      return undefined;
    const n = param.numel;
    const [outP, outM, outV] = [0, 1, 2].map(() => this.alloc(param.dtype, n) as FloatArray) as [
      FloatArray,
      FloatArray,
      FloatArray,
    ];
    const arrays: AdamArrays = {
      n,
      p: param.data,
      pOffset: param.offset,
      g: grad.data as FloatArray,
      gOffset: grad.offset,
      m: moment1?.data as FloatArray | undefined,
      mOffset: moment1?.offset ?? 0,
      v: moment2?.data as FloatArray | undefined,
      vOffset: moment2?.offset ?? 0,
      outP,
      outM,
      outV,
    };
    if (this.engine.adamStep?.(arrays, options) === undefined) adamStepInto(arrays, options);
    return [
      this.finish(outP, param.shape, param.dtype),
      this.finish(outM, param.shape, param.dtype),
      this.finish(outV, param.shape, param.dtype),
    ];
  }

  // --- reductions ---

  reduce(op: ReduceOp, p: CpuTensor, dims: readonly number[]): CpuTensor {
    const dtype = op === 'any' || op === 'all' ? 'bool' : p.dtype;
    const shape = p.shape.map((s, d) => (dims.includes(d) ? 1 : s));
    const last = p.shape.length - 1;
    // Without a strided kernel, reduced trailing dims (a bias gradient's H·W) go through the row
    // kernel as one run; the other reduced dims then run on its much smaller result.
    const kept = trailingReduced(p.shape.length, dims),
      suffix = p.shape.length - kept;
    // f32 only: half precision would round the partial results.
    const len = numel(p.shape.slice(kept));
    if (
      !this.engine.reduceStrided &&
      this.engine.reduceRows &&
      (suffix > 1 || (suffix === 1 && dims.length > 1)) &&
      op !== 'any' &&
      op !== 'all' &&
      p.dtype === 'f32' &&
      len > 0 &&
      p.numel > 0 &&
      p.isContiguous()
    ) {
      const rows = this.alloc(p.dtype, p.numel / len) as FloatArray;
      if (this.engine.reduceRows(op, rows, p.data as FloatArray, p.offset, p.numel / len, len) !== undefined) {
        const partial = this.finish(rows, [...p.shape.slice(0, kept), ...new Array<number>(suffix).fill(1)], p.dtype);
        const rest = dims.filter((d) => d < kept);
        if (rest.length === 0) return partial;
        const result = this.reduce(op, partial, rest);
        this.dispose(partial);
        return result;
      }
      this.pool.give(rows);
    }
    const out = this.alloc(dtype, numel(shape));
    if (
      this.engine.reduceRows &&
      dims.length === 1 &&
      dims[0] === last &&
      isEngineFloat(p) &&
      isFloatArray(out) &&
      p.isContiguous()
    ) {
      const len = p.shape[last]!;
      if (len > 0 && this.engine.reduceRows(op, out, p.data, p.offset, p.numel / len, len) !== undefined)
        return this.finish(out, shape, dtype);
    }
    if (
      this.engine.reduceStrided &&
      op !== 'any' &&
      op !== 'all' &&
      dims.length > 0 &&
      isEngineFloat(p) &&
      isFloatArray(out) &&
      p.numel > 0
    ) {
      const outStrides = contiguousStrides(shape).map((s, d) => (dims.includes(d) ? 0 : s));
      const col = collapse(p.shape, [p.strides, outStrides]);
      if (
        col.shape.length > 0 &&
        this.engine.reduceStrided(op, out, col.shape, p.data, p.offset, col.strides[0]!, col.strides[1]!) !== undefined
      )
        return this.finish(out, shape, dtype);
    }
    reduceInto(op, out, p, p.shape, dims, `${p.dtype}>${dtype}`);
    return this.finish(out, shape, dtype);
  }

  argReduce(op: ArgOp, p: CpuTensor, dim: number): CpuTensor {
    const shape = p.shape.map((s, d) => (d === dim ? 1 : s));
    const out = allocCpu('i32', numel(shape));
    argReduceInto(op, out, p, p.shape, dim);
    return this.own(out, shape, 'i32');
  }

  scan(op: ScanOp, p: CpuTensor, dim: number): CpuTensor {
    const out = allocCpu(p.dtype, p.numel);
    scanInto(op, out, p, p.shape, dim);
    return this.finish(out, [...p.shape], p.dtype);
  }

  // --- indexing ---

  gather(p: CpuTensor, dim: number, indices: CpuTensor): CpuTensor {
    const out = allocCpu(p.dtype, indices.numel);
    gatherInto(out, p, p.shape, dim, indices, indices.shape);
    return this.own(out, [...indices.shape], p.dtype);
  }

  scatter(op: ScatterOp, p: CpuTensor, dim: number, indices: CpuTensor, values: CpuTensor): CpuTensor {
    const out = this.materialize(p, true);
    scatterInto(op, out, p.shape, dim, indices, indices.shape, values);
    return this.finish(out, [...p.shape], p.dtype);
  }

  // --- matmul, sort ---

  matmul(a: CpuTensor, b: CpuTensor): CpuTensor {
    const rank = a.shape.length;
    const m = a.shape[rank - 2]!,
      k = a.shape[rank - 1]!,
      n = b.shape[rank - 1]!;
    const aRs = a.strides[rank - 2]!,
      aCs = a.strides[rank - 1]!,
      bRs = b.strides[rank - 2]!,
      bCs = b.strides[rank - 1]!;
    const batch = rank === 2 ? [] : broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2), 'matmul');
    const shape = [...batch, m, n];
    const out = this.alloc(a.dtype, numel(shape));
    // Batch offsets of each operand (stride 0 where it is broadcast).
    const aOffsets: number[] = [],
      bOffsets: number[] = [];
    const aStr = alignStrides(a.shape.slice(0, -2), a.strides.slice(0, -2), batch);
    const bStr = alignStrides(b.shape.slice(0, -2), b.strides.slice(0, -2), batch);
    forEachOffset2(batch, aStr, a.offset, bStr, b.offset, (ao, bo) => {
      aOffsets.push(ao);
      bOffsets.push(bo);
    });
    const e = this.engine;
    if (
      e.gemm &&
      isEngineFloat(a) &&
      isFloatArray(out) &&
      a.data.constructor === b.data.constructor &&
      out.constructor === a.data.constructor
    ) {
      const args = {
        m,
        n,
        k,
        a: a.data,
        aOffsets,
        aRowStride: aRs,
        aColStride: aCs,
        b: b.data as FloatArray,
        bOffsets,
        bRowStride: bRs,
        bColStride: bCs,
        c: out,
      };
      if (e.gemm(args) !== undefined) return this.finish(out, shape, a.dtype);
    }
    for (let i = 0; i < aOffsets.length; i++)
      gemm(m, n, k, a.data, aOffsets[i]!, aRs, aCs, b.data, bOffsets[i]!, bRs, bCs, out, i * m * n);
    return this.finish(out, shape, a.dtype);
  }

  // --- module ops (./module-ops.ts) ---

  override conv(x: CpuTensor, weight: CpuTensor, bias: CpuTensor | undefined, options: ConvOptions): CpuTensor {
    const out = modules.conv(this.host, x, weight, bias, options);
    return out !== undefined ? out : super.conv(x, weight, bias, options);
  }

  /** A 2-d convolution with its activation's clamp in the engine's output pass, or undefined where the engine has no kernel for these tensors. */
  convClamp(
    x: CpuTensor,
    weight: CpuTensor,
    bias: CpuTensor | undefined,
    options: ConvOptions,
    min: number,
    max: number,
    residual?: CpuTensor,
  ): CpuTensor | undefined {
    return modules.convClamp(this.host, x, weight, bias, options, min, max, residual);
  }

  /** The conv2d weight gradient through the engine's kernel (no im2col matrix), or undefined without one. */
  convWeightGrad(
    x: CpuTensor,
    grad: CpuTensor,
    weightShape: readonly number[],
    options: ConvOptions,
  ): CpuTensor | undefined {
    return modules.convWeightGrad(this.host, x, grad, weightShape, options);
  }

  override convTranspose(
    x: CpuTensor,
    weight: CpuTensor,
    bias: CpuTensor | undefined,
    options: ConvTransposeOptions,
  ): CpuTensor {
    const out = modules.convTranspose(this.host, x, weight, bias, options);
    return out !== undefined ? out : super.convTranspose(x, weight, bias, options);
  }

  override unfold4d(x: CpuTensor, kernelSize: readonly number[], options: UnfoldOptions): CpuTensor {
    const out = modules.unfold4d(this.host, x, kernelSize, options);
    return out !== undefined ? out : super.unfold4d(x, kernelSize, options);
  }

  /** The max-pooling input gradient: zeros with each output's gradient added at its argmax (one pass, no scatter). */
  maxPoolGrad(grad: CpuTensor, indices: CpuTensor, inputShape: readonly number[]): CpuTensor | undefined {
    return modules.maxPoolGrad(this.host, grad, indices, inputShape);
  }

  override maxPool(x: CpuTensor, options: MaxPoolOptions): CpuTensor {
    const out = modules.maxPool2d(this.host, x, options, false);
    return out !== undefined ? out[0] : super.maxPool(x, options);
  }

  override maxPoolWithIndices(x: CpuTensor, options: MaxPoolOptions): [CpuTensor, CpuTensor] {
    const out = modules.maxPool2d(this.host, x, options, true);
    return out !== undefined ? out : super.maxPoolWithIndices(x, options);
  }

  override softmax(p: CpuTensor, dim: number): CpuTensor {
    return modules.softmax(this.host, p, dim, false);
  }

  override logSoftmax(p: CpuTensor, dim: number): CpuTensor {
    return modules.softmax(this.host, p, dim, true);
  }

  sort(p: CpuTensor, dim: number, descending: boolean): [CpuTensor, CpuTensor] {
    // sortInto's line scratch is sized by the dim: an empty tensor may have a huge one.
    if (p.numel === 0)
      return [this.own(allocCpu(p.dtype, 0), [...p.shape], p.dtype), this.own(new Int32Array(0), [...p.shape], 'i32')];
    const values = allocCpu(p.dtype, p.numel);
    const indices = new Int32Array(p.numel);
    sortInto(values, indices, p, p.shape, dim, descending);
    return [this.own(values, [...p.shape], p.dtype), this.own(indices, [...p.shape], 'i32')];
  }

  /**
   * A fused program (the fusion decorator's block) as one kernel: the engine's where it takes the
   * program, else generated JavaScript (or, where `eval` is forbidden, a closure interpreter),
   * which takes every program. Outputs are fresh pooled arrays. Undefined where the autotune
   * (fusion/run.ts) measured the op-by-op replay faster for this program and size.
   */
  fused(call: FusedCall<CpuTensor>): CpuTensor[] | undefined {
    return runFused(this.host, this, call);
  }

  // --- helpers ---

  /**
   * A user-defined op's CPU forward (any engine runs the same function): the inputs as dense
   * row-major arrays (views where they already are), the output freshly allocated; undefined when
   * the op has no CPU forward.
   */
  customOp(call: CustomCall, inputs: readonly CpuTensor[]): CpuTensor | undefined {
    const forward = call.kernel.cpu;
    if (!forward) return undefined;
    const dense = inputs.map((t) => this.materialize(t, false));
    const out = this.alloc(call.dtype, numel(call.shape));
    try {
      forward(
        inputs.map((t, i) => ({ data: dense[i]!, shape: t.shape, dtype: t.dtype })),
        { data: out, shape: call.shape, dtype: call.dtype },
      );
    } catch (e) {
      this.pool.give(out);
      throw e;
    } finally {
      // Copies made for strided inputs go back to the pool; views of contiguous ones are not ours.
      inputs.forEach((t, i) => {
        if (!t.isContiguous()) this.pool.give(dense[i]!);
      });
    }
    return this.finish(out, call.shape, call.dtype);
  }

  /**
   * Runs an elementwise kernel into a fresh contiguous output of `shape`: the flat form when every
   * input is contiguous with the output's shape (the common case, and the per-op fast path), the
   * strided form over broadcast-aligned, collapsed strides otherwise.
   */
  private map(
    kernels: MapKernels,
    dtype: DType,
    shape: readonly number[],
    inputs: readonly CpuTensor[],
    scalar?: number,
    into?: CpuArray,
  ): CpuTensor {
    const n = numel(shape);
    const out = into ?? this.alloc(dtype, n);
    const x = inputs[0]!,
      y = inputs[1],
      c = inputs[2];
    if (isFlat(x, shape) && (y === undefined || isFlat(y, shape)) && (c === undefined || isFlat(c, shape))) {
      if (c !== undefined) kernels.flat(n, out, x.data, x.offset, y!.data, y!.offset, c.data, c.offset);
      else if (y !== undefined) kernels.flat(n, out, x.data, x.offset, y.data, y.offset);
      else if (scalar !== undefined) kernels.flat(n, out, x.data, x.offset, scalar);
      else kernels.flat(n, out, x.data, x.offset);
      return this.finish(out, shape, dtype);
    }
    // Align every input to the output shape (broadcast strides), then collapse dims.
    const strides = [contiguousStrides(shape), ...inputs.map((t) => alignStrides(t.shape, t.strides, shape))];
    const col = collapse(shape, strides);
    const operands: (Operand | number)[] = inputs.map((t, i) => ({
      data: t.data,
      offset: t.offset,
      strides: col.strides[i + 1]!,
    }));
    if (scalar !== undefined) operands.push(scalar);
    kernels.strided(col.shape, { data: out, offset: 0, strides: col.strides[0]! }, ...operands);
    return this.finish(out, shape, dtype);
  }

  /**
   * An array for an output that the op writes completely: a released one of the same type and
   * length when the pool has it, else the engine's (possibly uninitialized) or a zeroed one.
   */
  private alloc(dtype: DType, n: number): CpuArray {
    const pooled = this.pool.take(cpuArrayCtor(dtype), n);
    if (pooled) return pooled;
    let fresh: CpuArray | undefined;
    try {
      fresh = this.engine.alloc?.(dtype, n);
    } catch (e) {
      throw allocError(e, dtype, n);
    }
    return fresh ?? allocCpu(dtype, n);
  }

  /** Wraps a fresh contiguous output (owned by the result), rounding half-precision values. */
  private finish(out: CpuArray, shape: readonly number[], dtype: DType): CpuTensor {
    if (dtype === 'f16' || dtype === 'bf16') roundHalf(out as Float32Array, dtype);
    return this.own(out, shape, dtype);
  }

  /** Wraps a fresh contiguous array that no one else holds as an output that owns it (released arrays return to the pool). */
  private own(out: CpuArray, shape: readonly number[], dtype: DType): CpuTensor {
    return CpuTensor.owned(out, shape, dtype, this.pool);
  }

  /** The elements of `p` as a dense array in row-major order; `copy` forces a fresh array. */
  private materialize(p: CpuTensor, copy: boolean): CpuArray {
    if (p.isContiguous()) {
      const view = p.data.subarray(p.offset, p.offset + p.numel);
      return copy ? view.slice() : view;
    }
    const out = this.alloc(p.dtype, p.numel);
    this.copyInto(CpuTensor.contiguous(out, p.shape, p.dtype), p);
    return out;
  }

  /** Copies `src` into the (strided) view `dst` of the same shape. */
  private copyInto(dst: CpuTensor, src: CpuTensor): void {
    const c = collapse(dst.shape, [dst.strides, alignStrides(src.shape, src.strides, dst.shape)]);
    const e = this.engine;
    if (
      e.copyStrided &&
      dst.dtype === src.dtype &&
      isEngineFloat(dst) &&
      isFloatArray(src.data) &&
      c.shape.length > 0 &&
      e.copyStrided(c.shape, dst.data, dst.offset, c.strides[0]!, src.data, src.offset, c.strides[1]!) !== undefined
    )
      return;
    this.kernels.copy
      .get(dst.dtype, src.dtype, () => buildMapKernels('x', X))
      .strided(
        c.shape,
        { data: dst.data, offset: dst.offset, strides: c.strides[0]! },
        { data: src.data, offset: src.offset, strides: c.strides[1]! },
      );
  }
}

const X: readonly OperandName[] = ['x'];
const XS: readonly OperandName[] = ['x', 's'];
const XY: readonly OperandName[] = ['x', 'y'];
const XYC: readonly OperandName[] = ['x', 'y', 'c'];

/** The kernel signature of two operands: their dtype, or both when they differ. */
function signature(a: CpuTensor, b: CpuTensor): string {
  return a.dtype === b.dtype ? a.dtype : `${a.dtype},${b.dtype}`;
}

/** The first dim of the run of reduced dims that ends the shape (`rank` when the last dim is kept). */
function trailingReduced(rank: number, dims: readonly number[]): number {
  let t = rank;
  while (t > 0 && dims.includes(t - 1)) t--;
  return t;
}

/** True when `t` is contiguous with exactly `shape`, so a flat loop can read it. */
function isFlat(t: CpuTensor, shape: readonly number[]): boolean {
  return sameShape(t.shape, shape) && t.isContiguous();
}

/** Rounds values in place to half precision. */
function roundHalf(a: Float32Array, dtype: 'f16' | 'bf16'): void {
  for (let i = 0; i < a.length; i++) a[i] = roundScalar(a[i]!, dtype);
}

function roundScalar(v: number, dtype: DType): number {
  if (dtype === 'f16') return f16BitsToF32(f32ToF16Bits(v));
  if (dtype === 'bf16') return bf16BitsToF32(f32ToBf16Bits(v));
  return v;
}
