import type { SliceSpecs } from '../../backend/backend.js';
import { BaseBackend } from '../../backend/base.js';
import type { ArgOp, BinaryOp, CompareOp, PredicateOp, ReduceOp, ScanOp, ScatterOp, UnaryOp } from '../../backend/ops.js';
import { TensorData } from '../../tensor/data.js';
import { f16BitsToF32, bf16BitsToF32, f32ToF16Bits, f32ToBf16Bits, type DType } from '../../tensor/dtype.js';
import { castNumber, storageFromNumbers } from '../../tensor/element.js';
import { broadcastShapes, contiguousStrides, numel, sameShape } from '../../tensor/shape.js';
import { binaryExpr, castExpr, compareExpr, predicateExpr, unaryExpr } from './js/expressions.js';
import { gatherInto, scatterInto, sortInto } from './js/indexing.js';
import { gemm } from './js/matmul.js';
import { argReduceInto, reduceInto, scanInto } from './js/reduce.js';
import { collapse, mapKernel, type Operand } from './js/strided.js';
import { allocCpu, CpuTensor, type CpuArray } from './storage.js';

/**
 * The CPU backend: shapes, strides, views and broadcasting in TypeScript over typed arrays, with
 * kernels from the `js` engine. Transpose, slice, expand, flip and contiguous reshapes are views
 * (no copy); every op returns a fresh array or a view and never mutates its inputs.
 */
export class CpuBackend extends BaseBackend<CpuTensor> {
  readonly name = 'cpu(js)';

  // --- data ---

  fromData(data: TensorData): CpuTensor {
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
    return CpuTensor.contiguous(out, data.shape, data.dtype);
  }

  toData(p: CpuTensor): Promise<TensorData> {
    return Promise.resolve(this.toDataSync(p));
  }

  toDataSync(p: CpuTensor): TensorData {
    const dense = this.materialize(p, true);
    const storage = p.dtype === 'f16' || p.dtype === 'bf16' || p.dtype === 'i64' ? storageFromNumbers(dense, p.dtype) : dense;
    return new TensorData(storage, p.shape, p.dtype);
  }

  fill(shape: readonly number[], value: number, dtype: DType): CpuTensor {
    const out = allocCpu(dtype, numel(shape));
    out.fill(roundScalar(castNumber(value, dtype), dtype));
    return CpuTensor.contiguous(out, [...shape], dtype);
  }

  // --- layout ---

  reshape(p: CpuTensor, shape: readonly number[]): CpuTensor {
    const src = p.isContiguous() ? p : CpuTensor.contiguous(this.materialize(p, false), p.shape, p.dtype);
    return new CpuTensor(src.data, [...shape], contiguousStrides(shape), src.offset, p.dtype);
  }

  permute(p: CpuTensor, axes: readonly number[]): CpuTensor {
    return new CpuTensor(p.data, axes.map((a) => p.shape[a]!), axes.map((a) => p.strides[a]!), p.offset, p.dtype);
  }

  expand(p: CpuTensor, shape: readonly number[]): CpuTensor {
    const off = shape.length - p.shape.length;
    const strides = shape.map((s, i) => (i < off || (p.shape[i - off] === 1 && s !== 1) ? 0 : p.strides[i - off]!));
    return new CpuTensor(p.data, [...shape], strides, p.offset, p.dtype);
  }

  slice(p: CpuTensor, specs: SliceSpecs): CpuTensor {
    let offset = p.offset;
    const shape = [...p.shape];
    const strides = [...p.strides];
    specs.forEach((s, d) => {
      if (s.size > 0) offset += s.start * p.strides[d]!;
      shape[d] = s.size;
      strides[d] = p.strides[d]! * s.step;
    });
    return new CpuTensor(p.data, shape, strides, offset, p.dtype);
  }

  sliceAssign(p: CpuTensor, specs: SliceSpecs, values: CpuTensor): CpuTensor {
    const out = CpuTensor.contiguous(this.materialize(p, true), p.shape, p.dtype);
    this.copyInto(this.slice(out, specs), values);
    return out;
  }

  cat(ps: readonly CpuTensor[], dim: number): CpuTensor {
    const first = ps[0]!;
    const shape = [...first.shape];
    shape[dim] = ps.reduce((acc, p) => acc + p.shape[dim]!, 0);
    const out = CpuTensor.contiguous(allocCpu(first.dtype, numel(shape)), shape, first.dtype);
    let start = 0;
    for (const p of ps) {
      const size = p.shape[dim]!;
      const specs = shape.map((s, d) => (d === dim ? { start, size, step: 1 } : { start: 0, size: s, step: 1 }));
      this.copyInto(this.slice(out, specs), p);
      start += size;
    }
    return out;
  }

  // --- elementwise ---

  unary(op: UnaryOp, p: CpuTensor): CpuTensor {
    return this.map(`u:${op}`, unaryExpr(op, p.dtype), p.dtype, p.shape, [p]);
  }

  predicate(op: PredicateOp, p: CpuTensor): CpuTensor {
    return this.map(`p:${op}`, predicateExpr(op), 'bool', p.shape, [p]);
  }

  binary(op: BinaryOp, a: CpuTensor, b: CpuTensor): CpuTensor {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    return this.map(`b:${op}`, binaryExpr(op, a.dtype), a.dtype, shape, [a, b]);
  }

  override binaryScalar(op: BinaryOp, a: CpuTensor, scalar: number): CpuTensor {
    return this.map(`bs:${op}`, binaryExpr(op, a.dtype), a.dtype, a.shape, [a], roundScalar(castNumber(scalar, a.dtype), a.dtype));
  }

  compare(op: CompareOp, a: CpuTensor, b: CpuTensor): CpuTensor {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    return this.map(`c:${op}`, compareExpr(op), 'bool', shape, [a, b]);
  }

  override compareScalar(op: CompareOp, a: CpuTensor, scalar: number): CpuTensor {
    // As Burn (and the default over `fill`): the scalar is first converted to the tensor's dtype.
    return this.map(`cs:${op}`, compareExpr(op), 'bool', a.shape, [a], roundScalar(castNumber(scalar, a.dtype), a.dtype));
  }

  where(cond: CpuTensor, a: CpuTensor, b: CpuTensor): CpuTensor {
    const shape = broadcastShapes(broadcastShapes(cond.shape, a.shape, 'where'), b.shape, 'where');
    return this.map('where', '(c ? x : y)', a.dtype, shape, [a, b, cond]);
  }

  cast(p: CpuTensor, dtype: DType): CpuTensor {
    if (dtype === p.dtype) return p;
    return this.map(`cast:${dtype}`, castExpr(p.dtype, dtype), dtype, p.shape, [p]);
  }

  // --- reductions ---

  reduce(op: ReduceOp, p: CpuTensor, dims: readonly number[]): CpuTensor {
    const dtype = op === 'any' || op === 'all' ? 'bool' : p.dtype;
    const shape = p.shape.map((s, d) => (dims.includes(d) ? 1 : s));
    const out = allocCpu(dtype, numel(shape));
    reduceInto(op, out, p, p.shape, dims, `${p.dtype}>${dtype}`);
    return this.finish(out, shape, dtype);
  }

  argReduce(op: ArgOp, p: CpuTensor, dim: number): CpuTensor {
    const shape = p.shape.map((s, d) => (d === dim ? 1 : s));
    const out = allocCpu('i32', numel(shape));
    argReduceInto(op, out, p, p.shape, dim);
    return CpuTensor.contiguous(out, shape, 'i32');
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
    return CpuTensor.contiguous(out, [...indices.shape], p.dtype);
  }

  scatter(op: ScatterOp, p: CpuTensor, dim: number, indices: CpuTensor, values: CpuTensor): CpuTensor {
    const out = this.materialize(p, true);
    scatterInto(op, out, p.shape, dim, indices, indices.shape, values);
    return this.finish(out, [...p.shape], p.dtype);
  }

  // --- matmul, sort ---

  matmul(a: CpuTensor, b: CpuTensor): CpuTensor {
    const rank = a.shape.length;
    const [m, k] = [a.shape[rank - 2]!, a.shape[rank - 1]!];
    const n = b.shape[rank - 1]!;
    const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2), 'matmul');
    const shape = [...batch, m, n];
    const out = allocCpu(a.dtype, numel(shape));
    const ae = this.expand(a, [...batch, m, k]);
    const be = this.expand(b, [...batch, k, n]);
    const batchN = numel(batch);
    const bStr = contiguousStrides(batch);
    for (let i = 0; i < batchN; i++) {
      let ao = ae.offset, bo = be.offset;
      for (let d = 0; d < batch.length; d++) {
        const idx = Math.floor(i / bStr[d]!) % batch[d]!;
        ao += idx * ae.strides[d]!;
        bo += idx * be.strides[d]!;
      }
      gemm(m, n, k, ae.data, ao, ae.strides[rank - 2]!, ae.strides[rank - 1]!, be.data, bo, be.strides[rank - 2]!, be.strides[rank - 1]!, out, i * m * n);
    }
    return this.finish(out, shape, a.dtype);
  }

  sort(p: CpuTensor, dim: number, descending: boolean): [CpuTensor, CpuTensor] {
    const values = allocCpu(p.dtype, p.numel);
    const indices = new Int32Array(p.numel);
    sortInto(values, indices, p, p.shape, dim, descending);
    return [CpuTensor.contiguous(values, [...p.shape], p.dtype), CpuTensor.contiguous(indices, [...p.shape], 'i32')];
  }

  // --- helpers ---

  /** Runs a generated elementwise kernel into a fresh contiguous output of `shape`. */
  private map(op: string, expr: string, dtype: DType, shape: readonly number[], inputs: readonly CpuTensor[], scalar?: number): CpuTensor {
    const out = allocCpu(dtype, numel(shape));
    const rank = shape.length;
    // Align every input to the output shape (broadcast strides), then collapse dims.
    const strides = [contiguousStrides(shape), ...inputs.map((t) => alignedStrides(t, shape, rank))];
    const c = collapse(shape, strides);
    const names = (['x', 'y', 'c'] as const).slice(0, inputs.length);
    const key = `${op}|${expr}|${dtype}|${inputs.map((t) => t.data.constructor.name).join(',')}${scalar === undefined ? '' : '|s'}`;
    const kernel = mapKernel(key, expr, scalar === undefined ? names : [...names, 's']);
    const operands: (Operand | number)[] = inputs.map((t, i) => ({ data: t.data, offset: t.offset, strides: c.strides[i + 1]! }));
    if (scalar !== undefined) operands.push(scalar);
    kernel(c.shape, { data: out, offset: 0, strides: c.strides[0]! }, ...operands);
    return this.finish(out, shape, dtype);
  }

  /** Wraps a fresh contiguous output, rounding half-precision values. */
  private finish(out: CpuArray, shape: readonly number[], dtype: DType): CpuTensor {
    if (dtype === 'f16' || dtype === 'bf16') roundHalf(out as Float32Array, dtype);
    return CpuTensor.contiguous(out, shape, dtype);
  }

  /** The elements of `p` as a dense array in row-major order; `copy` forces a fresh array. */
  private materialize(p: CpuTensor, copy: boolean): CpuArray {
    if (p.isContiguous()) {
      const view = p.data.subarray(p.offset, p.offset + p.numel);
      return copy ? view.slice() : view;
    }
    const out = allocCpu(p.dtype, p.numel);
    this.copyInto(CpuTensor.contiguous(out, p.shape, p.dtype), p);
    return out;
  }

  /** Copies `src` into the (strided) view `dst` of the same shape. */
  private copyInto(dst: CpuTensor, src: CpuTensor): void {
    const c = collapse(dst.shape, [dst.strides, alignedStrides(src, dst.shape, dst.shape.length)]);
    const key = `copy|${dst.data.constructor.name}|${src.data.constructor.name}`;
    mapKernel(key, 'x', ['x'])(c.shape, { data: dst.data, offset: dst.offset, strides: c.strides[0]! }, { data: src.data, offset: src.offset, strides: c.strides[1]! });
  }
}

/** Strides of `t` aligned to an output of `shape` (0 on broadcast dims). */
function alignedStrides(t: CpuTensor, shape: readonly number[], rank: number): number[] {
  const off = rank - t.shape.length;
  const out = new Array<number>(rank);
  for (let i = 0; i < rank; i++) out[i] = i < off || (t.shape[i - off] === 1 && shape[i] !== 1) ? 0 : t.strides[i - off]!;
  return out;
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
