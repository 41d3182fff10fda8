import type { SliceSpecs } from '../../backend/backend.js';
import type { CustomCall } from '../../backend/custom.js';
import { BaseBackend } from '../../backend/base.js';
import { NO_SCAN, runScope, trackAllocation } from '../../backend/memory.js';
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
  AttentionOptions,
  AvgPoolOptions,
  ConvOptions,
  ConvTransposeOptions,
  DeformConvOptions,
  GridSampleOptions,
  InterpolateOptions,
  MaxPoolOptions,
  UnfoldOptions,
} from '../../backend/options.js';
import type { RandomKey } from '../../backend/rng.js';
import { TensorData } from '../../core/data.js';
import type { Distribution } from '../../core/distribution.js';
import {
  bf16BitsToF32,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
  isFloatDType,
  isUnsignedDType,
  type DType,
} from '../../core/dtype.js';
import { castNumber, storageFromNumbers } from '../../core/element.js';
import { BurnError, fmt } from '../../core/errors.js';
import { broadcastShapes, contiguousStrides, numel, sameShape } from '../../core/shape.js';
import type { GpuContext, WebGpuInfo } from './context.js';
import { runCustom } from './kernels/custom.js';
import { fusedSupported, prepareFused } from './kernels/fused.js';
import { fusedOutputDtype, fusedOutputShape, type FusedCall } from '../../backend/fusion/program.js';
import { runCheckIndices, runGather, runScatter } from './kernels/indexing.js';
import { selectsEmptySlices } from '../../backend/defaults/indexing.js';
import { runMap, type MapInput, type MapScalar } from './kernels/map.js';
import { runMatmul } from './kernels/matmul.js';
import { runRandom } from './kernels/random.js';
import { runArgReduce, runReduce, runScan } from './kernels/reduce.js';
import { runSort } from './kernels/sort.js';
import { alignStrides, permuteView, sliceView } from '../../core/strided.js';
import type { Operand } from './layout.js';
import type { PoolStats } from './pool.js';
import { GpuRuntime, type RuntimeStats } from './runtime.js';
import { GpuStorage, WebGpuTensor, type StorageOwner } from './tensor.js';
import { binaryExpr, compareExpr, predicateExpr, unaryExpr, type Expr } from './wgsl/ops.js';
import { ctype, type CType } from './wgsl/types.js';
import * as modules from './module-ops.js';

/**
 * The WebGPU backend: every op of the required set in generated WGSL, over strided views of
 * pooled GPU buffers (transpose, slice, expand and flip are views, as on the CPU). Work is
 * encoded into command buffers and submitted lazily; reads are asynchronous (`toDataSync`
 * returns undefined). Composite ops that fall back to the shared defaults run in a memory scope,
 * so their intermediates go back to the pool as soon as the op returns. Sizes over the device's
 * buffer limits throw at the op; device errors and out-of-range indices, known only later, make
 * reads of what they spoiled throw (see runtime.ts and faults.ts).
 */
export class WebGpuBackend extends BaseBackend<WebGpuTensor> implements StorageOwner {
  readonly name = 'webgpu';
  readonly [NO_SCAN] = true;
  /** @internal The command stream (pipelines, batching, uploads, reads). */
  readonly rt: GpuRuntime;

  constructor(private readonly ctx: GpuContext) {
    super();
    this.rt = new GpuRuntime(ctx.device, ctx.collect, ctx.pressureBytes);
  }

  // --- memory ---

  /** @internal Returns a storage's buffer to the pool (its last tensor was released). */
  free(storage: GpuStorage): void {
    this.rt.release(storage.buffer);
  }

  /** A new tensor handle over `storage`, reported to the open memory scope. */
  private view(
    storage: GpuStorage,
    shape: readonly number[],
    strides: readonly number[],
    offset: number,
    dtype: DType,
  ): WebGpuTensor {
    const t = new WebGpuTensor(storage, [...shape], [...strides], offset, dtype);
    trackAllocation(t);
    return t;
  }

  /**
   * A fresh contiguous tensor (contents undefined until a kernel writes it). Its size is checked
   * against the device's buffer limits here, before anything is encoded: a buffer over them would
   * make the device reject the whole batch it joins.
   */
  private alloc(shape: readonly number[], dtype: DType, op = 'webgpu'): WebGpuTensor {
    ctype(dtype, op);
    const bytes = Math.max(1, numel(shape)) * 4;
    if (!(bytes <= this.rt.maxBufferBytes)) throw this.tooLarge(op, shape, dtype, bytes);
    const storage = new GpuStorage(this.rt.acquire(bytes), this);
    return this.view(storage, shape, contiguousStrides(shape), 0, dtype);
  }

  /** The BurnError of a tensor over the device's buffer limits. */
  private tooLarge(op: string, shape: readonly number[], dtype: DType, bytes: number): BurnError {
    const l = this.ctx.info.limits;
    return new BurnError(
      op,
      `a ${dtype} tensor of shape ${fmt(shape)} needs ${bytes} bytes on WebGPU (4 per element), over this device's limit of ${this.rt.maxBufferBytes} bytes ` +
        `(maxBufferSize ${l['maxBufferSize']}, maxStorageBufferBindingSize ${l['maxStorageBufferBindingSize']}); split the work into smaller tensors or use a CPU device`,
    );
  }

  dispose(p: WebGpuTensor): void {
    p.release();
  }

  retain(p: WebGpuTensor): WebGpuTensor {
    return this.view(p.storage, p.shape, p.strides, p.offset, p.dtype);
  }

  /** Resolves (with the error later calls throw) when the GPU device is lost. */
  get lost(): Promise<BurnError> {
    return this.rt.lost;
  }

  /** Waits for all queued GPU work. */
  sync(): Promise<void> {
    return this.rt.sync();
  }

  /** Adapter, features, limits, and the buffer pool's and command stream's counters. */
  info(): WebGpuInfo & { memory: PoolStats; stream: RuntimeStats } {
    return { ...this.ctx.info, memory: this.rt.pool.stats(), stream: this.rt.stats() };
  }

  /** The pool's byte counters. */
  memory(): PoolStats {
    return this.rt.pool.stats();
  }

  // --- kernel plumbing ---

  /** `p` as a kernel operand, its strides aligned to an output of `shape` (broadcasting). */
  private operand(p: WebGpuTensor, shape: readonly number[] = p.shape): Operand {
    return { buffer: p.buffer, offset: p.offset, strides: alignStrides(p.shape, p.strides, shape), dtype: p.dtype };
  }

  /** The contiguous operand of a fresh output. */
  private out(t: WebGpuTensor): Operand {
    return { buffer: t.buffer, offset: t.offset, strides: t.strides, dtype: t.dtype };
  }

  /** `dst[m] = expr(...)` for a fresh output of `shape`. */
  private map(
    dtype: DType,
    shape: readonly number[],
    inputs: readonly [WebGpuTensor, string, DType][],
    scalars: readonly MapScalar[],
    expr: Expr,
    op: string,
  ): WebGpuTensor {
    const out = this.alloc(shape, dtype, op);
    const ins: MapInput[] = inputs.map(([t, name, as]) => ({ operand: this.operand(t, shape), name, as }));
    runMap(this.rt, this.out(out), shape, ins, scalars, expr);
    return out;
  }

  /** Copies `src` (broadcast to `dst`'s shape, cast to its dtype) into the strided view `dst`. */
  private copyInto(dst: WebGpuTensor, src: WebGpuTensor): void {
    runMap(
      this.rt,
      { buffer: dst.buffer, offset: dst.offset, strides: dst.strides, dtype: dst.dtype },
      dst.shape,
      [{ operand: this.operand(src, dst.shape), name: 'x', as: dst.dtype }],
      [],
      { expr: 'x', helpers: [] },
    );
  }

  /** A contiguous copy of `p`. */
  private copy(p: WebGpuTensor, op?: string): WebGpuTensor {
    const out = this.alloc(p.shape, p.dtype, op);
    this.copyInto(out, p);
    return out;
  }

  /** `p` itself when contiguous, else a contiguous copy (the caller releases it when it differs). */
  private contiguous(p: WebGpuTensor, op?: string): WebGpuTensor {
    return p.isContiguous() ? p : this.copy(p, op);
  }

  /** Runs a composite default in a memory scope: intermediates are released when it returns. */
  private scoped<T>(fn: () => T): T {
    return runScope(fn);
  }

  // --- data ---

  fromData(data: TensorData): WebGpuTensor {
    const { dtype, shape } = data;
    const out = this.alloc(shape, dtype, 'fromData');
    const n = numel(shape);
    if (n > 0) {
      // Only the view's own bytes: `values` may be a subarray of a larger buffer (a file's, a pool's).
      const words = toWords(data);
      this.rt.upload(out.buffer, 0, new Uint8Array(words.buffer, words.byteOffset, words.byteLength));
    }
    return out;
  }

  async toData(p: WebGpuTensor): Promise<TensorData> {
    const n = p.numel;
    const c = this.contiguous(p, 'toData');
    const pending = this.rt.read(c.buffer, c.offset * 4, n * 4);
    if (c !== p) c.release();
    return fromWords(await pending, p.shape, p.dtype);
  }

  /** Several reads in one submit and one readback (a `Transaction`). */
  async toDataMany(ps: readonly WebGpuTensor[]): Promise<TensorData[]> {
    const cs = ps.map((p) => this.contiguous(p, 'toData'));
    const pending = this.rt.readMany(
      cs.map((c, i) => ({ src: c.buffer, offset: c.offset * 4, bytes: ps[i]!.numel * 4 })),
    );
    cs.forEach((c, i) => {
      if (c !== ps[i]) c.release();
    });
    const words = await pending;
    return ps.map((p, i) => fromWords(words[i]!, p.shape, p.dtype));
  }

  toDataSync(): TensorData | undefined {
    return undefined;
  }

  fill(shape: readonly number[], value: number, dtype: DType): WebGpuTensor {
    const t = ctype(dtype, 'fill');
    return this.map(
      dtype,
      shape,
      [],
      [{ name: 's', value: scalarFor(value, dtype), type: t }],
      { expr: 's', helpers: [] },
      'fill',
    );
  }

  // --- layout ---

  reshape(p: WebGpuTensor, shape: readonly number[]): WebGpuTensor {
    if (p.isContiguous()) return this.view(p.storage, shape, contiguousStrides(shape), p.offset, p.dtype);
    const c = this.copy(p, 'reshape');
    const v = this.view(c.storage, shape, contiguousStrides(shape), 0, p.dtype);
    c.release();
    return v;
  }

  permute(p: WebGpuTensor, axes: readonly number[]): WebGpuTensor {
    const v = permuteView(p.shape, p.strides, p.offset, axes);
    return this.view(p.storage, v.shape, v.strides, v.offset, p.dtype);
  }

  expand(p: WebGpuTensor, shape: readonly number[]): WebGpuTensor {
    return this.view(p.storage, shape, alignStrides(p.shape, p.strides, shape), p.offset, p.dtype);
  }

  slice(p: WebGpuTensor, specs: SliceSpecs): WebGpuTensor {
    const v = sliceView(p.shape, p.strides, p.offset, specs);
    return this.view(p.storage, v.shape, v.strides, v.offset, p.dtype);
  }

  sliceAssign(p: WebGpuTensor, specs: SliceSpecs, values: WebGpuTensor): WebGpuTensor {
    const out = this.copy(p, 'sliceAssign');
    const region = this.slice(out, specs);
    this.copyInto(region, values);
    region.release();
    return out;
  }

  cat(ps: readonly WebGpuTensor[], dim: number): WebGpuTensor {
    const first = ps[0]!;
    const shape = [...first.shape];
    shape[dim] = ps.reduce((acc, p) => acc + p.shape[dim]!, 0);
    const out = this.alloc(shape, first.dtype, 'cat');
    let start = 0;
    for (const p of ps) {
      const size = p.shape[dim]!;
      if (size > 0) {
        const region = this.slice(
          out,
          shape.map((s, d) => (d === dim ? { start, size, step: 1 } : { start: 0, size: s, step: 1 })),
        );
        this.copyInto(region, p);
        region.release();
      }
      start += size;
    }
    return out;
  }

  // --- elementwise ---

  unary(op: UnaryOp, p: WebGpuTensor): WebGpuTensor {
    return this.map(p.dtype, p.shape, [[p, 'x', p.dtype]], [], unaryExpr(op, p.dtype), op);
  }

  predicate(op: PredicateOp, p: WebGpuTensor): WebGpuTensor {
    return this.map('bool', p.shape, [[p, 'x', p.dtype]], [], predicateExpr(op, p.dtype), op);
  }

  binary(op: BinaryOp, a: WebGpuTensor, b: WebGpuTensor): WebGpuTensor {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    return this.map(
      a.dtype,
      shape,
      [
        [a, 'x', a.dtype],
        [b, 'y', a.dtype],
      ],
      [],
      binaryExpr(op, a.dtype),
      op,
    );
  }

  compare(op: CompareOp, a: WebGpuTensor, b: WebGpuTensor): WebGpuTensor {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    const common = commonDType(a.dtype, b.dtype);
    return this.map(
      'bool',
      shape,
      [
        [a, 'x', common],
        [b, 'y', common],
      ],
      [],
      compareExpr(op, ctype(common, op)),
      op,
    );
  }

  where(cond: WebGpuTensor, a: WebGpuTensor, b: WebGpuTensor): WebGpuTensor {
    const shape = broadcastShapes(broadcastShapes(cond.shape, a.shape, 'where'), b.shape, 'where');
    return this.map(
      a.dtype,
      shape,
      [
        [a, 'x', a.dtype],
        [b, 'y', a.dtype],
        [cond, 'c', 'bool'],
      ],
      [],
      { expr: 'select(y, x, c != 0u)', helpers: [] },
      'where',
    );
  }

  cast(p: WebGpuTensor, dtype: DType): WebGpuTensor {
    if (dtype === p.dtype) return this.retain(p);
    return this.map(dtype, p.shape, [[p, 'x', dtype]], [], { expr: 'x', helpers: [] }, 'cast');
  }

  // --- reductions and scans ---

  reduce(op: ReduceOp, p: WebGpuTensor, dims: readonly number[]): WebGpuTensor {
    const dtype = op === 'any' || op === 'all' ? 'bool' : p.dtype;
    const out = this.alloc(
      p.shape.map((s, d) => (dims.includes(d) ? 1 : s)),
      dtype,
      op,
    );
    runReduce(this.rt, op, this.operand(p), p.shape, dims, out.buffer, dtype);
    return out;
  }

  argReduce(op: ArgOp, p: WebGpuTensor, dim: number): WebGpuTensor {
    const out = this.alloc(
      p.shape.map((s, d) => (d === dim ? 1 : s)),
      'i32',
      op,
    );
    runArgReduce(this.rt, op, this.operand(p), p.shape, dim, out.buffer);
    return out;
  }

  scan(op: ScanOp, p: WebGpuTensor, dim: number): WebGpuTensor {
    const out = this.alloc(p.shape, p.dtype, op);
    runScan(this.rt, op, this.operand(p), p.shape, dim, out.buffer);
    return out;
  }

  // --- indexing ---

  gather(p: WebGpuTensor, dim: number, indices: WebGpuTensor, userOp = 'gather'): WebGpuTensor {
    const out = this.alloc(indices.shape, p.dtype, userOp);
    runGather(this.rt, this.operand(p), p.shape, dim, this.operand(indices), indices.shape, out.buffer, userOp);
    return out;
  }

  scatter(
    op: ScatterOp,
    p: WebGpuTensor,
    dim: number,
    indices: WebGpuTensor,
    values: WebGpuTensor,
    userOp = 'scatter',
  ): WebGpuTensor {
    const out = this.copy(p, userOp);
    runScatter(
      this.rt,
      op,
      out.buffer,
      p.dtype,
      p.shape,
      dim,
      this.operand(indices),
      indices.shape,
      this.operand(values, indices.shape),
      userOp,
    );
    return out;
  }

  /** A copy of the integer tensor `indices` that the device checks lies in `[lo, hi)`; reads of what is computed from it throw `error(value)` otherwise. */
  checkIndices(indices: WebGpuTensor, lo: number, hi: number, error: (index: number) => Error): WebGpuTensor {
    const src = this.contiguous(indices, 'checkIndices');
    const out = this.alloc(indices.shape, indices.dtype, 'checkIndices');
    runCheckIndices(this.rt, src.buffer, src.offset, indices.dtype, indices.numel, out.buffer, lo, hi, error);
    if (src !== indices) src.release();
    return out;
  }

  /** 1-d `indices` as a view spread along `dim` over a tensor of shape `like` (for select as a gather). */
  private spread(indices: WebGpuTensor, dim: number, like: readonly number[]): WebGpuTensor {
    const n = indices.shape[0]!;
    const line = this.reshape(
      indices,
      like.map((_, d) => (d === dim ? n : 1)),
    );
    const out = this.expand(
      line,
      like.map((s, d) => (d === dim ? n : s)),
    );
    line.release();
    return out;
  }

  // --- matmul, sort ---

  matmul(a: WebGpuTensor, b: WebGpuTensor): WebGpuTensor {
    const rank = a.shape.length;
    const batch = rank === 2 ? [] : broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2), 'matmul');
    const out = this.alloc([...batch, a.shape[rank - 2]!, b.shape[rank - 1]!], a.dtype, 'matmul');
    if (a.shape[rank - 1] === 0) {
      runMap(this.rt, this.out(out), out.shape, [], [{ name: 's', value: 0, type: ctype(a.dtype) }], {
        expr: 's',
        helpers: [],
      });
      return out;
    }
    // Software adapters run the register-blocked kernel: workgroup barriers cost them more than they save.
    runMatmul(
      this.rt,
      this.operand(a),
      a.shape,
      this.operand(b),
      b.shape,
      batch,
      out.buffer,
      a.dtype,
      !this.ctx.info.isFallbackAdapter,
    );
    return out;
  }

  sort(p: WebGpuTensor, dim: number, descending: boolean): [WebGpuTensor, WebGpuTensor] {
    const rank = p.shape.length;
    const axes = [...Array.from({ length: rank }, (_, i) => i).filter((i) => i !== dim), dim];
    const moved = this.permute(p, axes);
    const src = this.contiguous(moved, 'sort');
    const n = p.shape[dim]!;
    const lines = n === 0 ? 0 : p.numel / n;
    let pow = 1;
    while (pow < n) pow *= 2;
    const values = this.alloc(moved.shape, p.dtype, 'sort');
    const indices = this.alloc(moved.shape, 'i32', 'sort');
    const keys = this.alloc([lines * pow], p.dtype, 'sort');
    const idx = this.alloc([lines * pow], 'u32', 'sort');
    runSort(
      this.rt,
      src.buffer,
      src.offset,
      p.dtype,
      lines,
      n,
      descending,
      values.buffer,
      indices.buffer,
      keys.buffer,
      idx.buffer,
    );
    keys.release();
    idx.release();
    if (src !== moved) src.release();
    moved.release();
    const inverse = new Array<number>(rank);
    axes.forEach((a, i) => (inverse[a] = i));
    const v = this.permute(values, inverse),
      i = this.permute(indices, inverse);
    values.release();
    indices.release();
    return [v, i];
  }

  // --- overrides: creation and scalar ops as single kernels ---

  override random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): WebGpuTensor {
    const out = this.alloc(shape, dtype, 'random');
    runRandom(this.rt, out.buffer, numel(shape), dist, dtype, key);
    return out;
  }

  override arange(start: number, end: number, step: number, dtype: DType): WebGpuTensor {
    const n = Math.max(0, Math.ceil((end - start) / step));
    const t = ctype(dtype, 'arange');
    const idx = t === 'f32' ? 'f32(i)' : t === 'i32' ? 'i32(i)' : 'i';
    const startS: MapScalar = { name: 'a', value: castNumber(start, dtype), type: t };
    const stepS: MapScalar = { name: 'b', value: castNumber(step, dtype), type: t };
    return this.map(
      dtype,
      [n],
      [],
      [startS, stepS],
      { expr: t === 'f32' ? `a + ${idx} * b` : `a + ${idx} * b`, helpers: [] },
      'arange',
    );
  }

  override binaryScalar(op: BinaryOp, a: WebGpuTensor, scalar: number): WebGpuTensor {
    return this.map(
      a.dtype,
      a.shape,
      [[a, 'x', a.dtype]],
      [{ name: 'y', value: scalarFor(scalar, a.dtype), type: ctype(a.dtype, op) }],
      binaryExpr(op, a.dtype),
      op,
    );
  }

  override compareScalar(op: CompareOp, a: WebGpuTensor, scalar: number): WebGpuTensor {
    return this.map(
      'bool',
      a.shape,
      [[a, 'x', a.dtype]],
      [{ name: 'y', value: scalarFor(scalar, a.dtype), type: ctype(a.dtype, op) }],
      compareExpr(op, ctype(a.dtype, op)),
      op,
    );
  }

  override clamp(p: WebGpuTensor, min: number | undefined, max: number | undefined): WebGpuTensor {
    const t = ctype(p.dtype, 'clamp');
    const [mx, mn] = t === 'f32' ? ['f_max', 'f_min'] : ['max', 'min'];
    let expr = 'x';
    const scalars: MapScalar[] = [];
    if (min !== undefined) {
      expr = `${mx}(${expr}, lo)`;
      scalars.push({ name: 'lo', value: scalarFor(min, p.dtype), type: t });
    }
    if (max !== undefined) {
      expr = `${mn}(${expr}, hi)`;
      scalars.push({ name: 'hi', value: scalarFor(max, p.dtype), type: t });
    }
    return this.map(
      p.dtype,
      p.shape,
      [[p, 'x', p.dtype]],
      scalars,
      { expr, helpers: t === 'f32' ? ['f_max', 'f_min'] : [] },
      'clamp',
    );
  }

  override maskFill(p: WebGpuTensor, mask: WebGpuTensor, value: number): WebGpuTensor {
    const shape = broadcastShapes(mask.shape, p.shape, 'maskFill');
    const s: MapScalar = { name: 's', value: scalarFor(value, p.dtype), type: ctype(p.dtype, 'maskFill') };
    return this.map(
      p.dtype,
      shape,
      [
        [p, 'x', p.dtype],
        [mask, 'c', 'bool'],
      ],
      [s],
      { expr: 'select(x, s, c != 0u)', helpers: [] },
      'maskFill',
    );
  }

  // --- composites: dedicated kernels where they exist, the shared defaults in a scope otherwise ---

  // Select and selectAssign are a gather and a scatter over spread indices, whose index errors name the user's op.
  override select(p: WebGpuTensor, dim: number, indices: WebGpuTensor): WebGpuTensor {
    const out = this.scoped(() => this.gather(p, dim, this.spread(indices, dim, p.shape), 'select'));
    this.checkEmptySlices(out, p.shape, dim, indices, 'select');
    return out;
  }
  override selectAssign(
    op: ScatterOp,
    p: WebGpuTensor,
    dim: number,
    indices: WebGpuTensor,
    values: WebGpuTensor,
  ): WebGpuTensor {
    const out = this.scoped(() => this.scatter(op, p, dim, this.spread(indices, dim, p.shape), values, 'selectAssign'));
    this.checkEmptySlices(out, p.shape, dim, indices, 'selectAssign');
    return out;
  }

  /**
   * Indices selecting empty slices (another dim is 0) pass through no kernel: check them on the
   * device into `out`'s buffer, so that a read of the (empty) result throws their error.
   */
  private checkEmptySlices(
    out: WebGpuTensor,
    shape: readonly number[],
    dim: number,
    indices: WebGpuTensor,
    op: string,
  ): void {
    if (!selectsEmptySlices(shape, dim, indices)) return;
    const size = shape[dim]!;
    const src = this.contiguous(indices, op);
    runCheckIndices(
      this.rt,
      src.buffer,
      src.offset,
      indices.dtype,
      indices.numel,
      out.buffer,
      0,
      size,
      (index) =>
        new BurnError(
          op,
          `index ${index} is out of bounds for dim ${dim} of size ${size}; expected 0 <= index < ${size}; WebGPU checks indices on the device, so this surfaces when a result is read`,
        ),
      true,
    );
    if (src !== indices) src.release();
  }
  override softmax(p: WebGpuTensor, dim: number): WebGpuTensor {
    const out = modules.softmax(this.rt, this, p, dim, false);
    return out !== undefined ? out : this.scoped(() => super.softmax(p, dim));
  }
  override logSoftmax(p: WebGpuTensor, dim: number): WebGpuTensor {
    const out = modules.softmax(this.rt, this, p, dim, true);
    return out !== undefined ? out : this.scoped(() => super.logSoftmax(p, dim));
  }
  override conv(
    x: WebGpuTensor,
    weight: WebGpuTensor,
    bias: WebGpuTensor | undefined,
    options: ConvOptions,
  ): WebGpuTensor {
    return this.scoped(() => {
      const out = modules.conv(this, x, weight, bias, options);
      return out !== undefined ? out : super.conv(x, weight, bias, options);
    });
  }
  override convTranspose(
    x: WebGpuTensor,
    weight: WebGpuTensor,
    bias: WebGpuTensor | undefined,
    options: ConvTransposeOptions,
  ): WebGpuTensor {
    return this.scoped(() => super.convTranspose(x, weight, bias, options));
  }
  override deformConv2d(
    x: WebGpuTensor,
    offset: WebGpuTensor,
    weight: WebGpuTensor,
    mask: WebGpuTensor | undefined,
    bias: WebGpuTensor | undefined,
    options: DeformConvOptions,
  ): WebGpuTensor {
    return this.scoped(() => super.deformConv2d(x, offset, weight, mask, bias, options));
  }
  override unfold4d(x: WebGpuTensor, kernelSize: readonly number[], options: UnfoldOptions): WebGpuTensor {
    return this.scoped(() => {
      const out = modules.unfold(this, x, kernelSize, options);
      return out !== undefined ? out : super.unfold4d(x, kernelSize, options);
    });
  }
  override maxPool(x: WebGpuTensor, options: MaxPoolOptions): WebGpuTensor {
    return this.scoped(() => {
      const out = modules.maxPool(this, x, options, false);
      return out !== undefined ? out[0] : super.maxPool(x, options);
    });
  }
  override maxPoolWithIndices(x: WebGpuTensor, options: MaxPoolOptions): [WebGpuTensor, WebGpuTensor] {
    return this.scoped(() => {
      const out = modules.maxPool(this, x, options, true);
      return out !== undefined ? out : super.maxPoolWithIndices(x, options);
    });
  }
  override avgPool(x: WebGpuTensor, options: AvgPoolOptions): WebGpuTensor {
    return this.scoped(() => {
      const out = modules.avgPool(this, x, options);
      return out !== undefined ? out : super.avgPool(x, options);
    });
  }
  override adaptiveAvgPool(x: WebGpuTensor, outputSize: readonly number[]): WebGpuTensor {
    return this.scoped(() => super.adaptiveAvgPool(x, outputSize));
  }
  override interpolate(x: WebGpuTensor, outputSize: readonly number[], options: InterpolateOptions): WebGpuTensor {
    return this.scoped(() => super.interpolate(x, outputSize, options));
  }
  override gridSample2d(x: WebGpuTensor, grid: WebGpuTensor, options: GridSampleOptions): WebGpuTensor {
    return this.scoped(() => super.gridSample2d(x, grid, options));
  }
  override attention(
    q: WebGpuTensor,
    k: WebGpuTensor,
    v: WebGpuTensor,
    mask: WebGpuTensor | undefined,
    bias: WebGpuTensor | undefined,
    options: AttentionOptions,
  ): WebGpuTensor {
    return this.scoped(() => super.attention(q, k, v, mask, bias, options));
  }

  /**
   * A user-defined op's WGSL forward, or undefined when the op has none. Inputs are made contiguous
   * from element 0; an f16/bf16 output is computed in f32 words and rounded by a cast.
   */
  customOp(call: CustomCall, inputs: readonly WebGpuTensor[]): WebGpuTensor | undefined {
    const forward = call.kernel.webgpu;
    if (!forward) return undefined;
    const name = call.kernel.name;
    const dense = inputs.map((p) => (p.isContiguous() && p.offset === 0 ? p : this.copy(p, name)));
    const half = call.dtype === 'f16' || call.dtype === 'bf16';
    const out = this.alloc(call.shape, half ? 'f32' : call.dtype, name);
    try {
      const info = {
        inputs: inputs.map((p) => ({ shape: p.shape, dtype: p.dtype })),
        output: { shape: call.shape, dtype: call.dtype },
      };
      runCustom(this.rt, name, call.kernel.inputNames, forward, dense, out.buffer, info, out.dtype);
    } catch (e) {
      out.release();
      throw e;
    } finally {
      dense.forEach((d, i) => {
        if (d !== inputs[i]) d.release();
      });
    }
    if (!half) return out;
    const rounded = this.cast(out, call.dtype);
    out.release();
    return rounded;
  }

  /**
   * The most tensors one fused kernel binds: the device's storage-buffer limit per shader stage
   * (raised to the adapter's maximum when the device was requested).
   */
  get maxFusedBindings(): number {
    return this.ctx.info.limits['maxStorageBuffersPerShaderStage'] ?? 8;
  }

  /**
   * A fused program (src/backend/fusion/program.ts) as one generated WGSL kernel (kernels/fused.ts)
   * writing fresh pool buffers; undefined where the generator has none (a dtype WGSL lacks, an op
   * undefined for its dtype, more tensors than {@link maxFusedBindings}): the decorator replays.
   */
  fused(call: FusedCall<WebGpuTensor>): WebGpuTensor[] | undefined {
    const { program } = call;
    if (!fusedSupported(program) || call.inputs.length + program.outputs.length > this.maxFusedBindings)
      return undefined;
    const kernel = prepareFused(
      this.rt,
      call,
      call.inputs.map((p) => ({
        buffer: p.buffer,
        shape: p.shape,
        strides: p.strides,
        offset: p.offset,
        dtype: p.dtype,
      })),
    );
    if (kernel === undefined) return undefined;
    const outs: WebGpuTensor[] = [];
    try {
      program.outputs.forEach((_, k) =>
        outs.push(this.alloc(fusedOutputShape(call, k), fusedOutputDtype(program, k), 'fused')),
      );
      kernel.run(outs.map((o) => o.buffer));
    } catch (e) {
      for (const o of outs) o.release();
      throw e;
    }
    return outs;
  }

  /** @internal Kernel-level access for the module ops (./module-ops.ts). */
  kernels(): {
    alloc: (shape: readonly number[], dtype: DType, op?: string) => WebGpuTensor;
    operand: (p: WebGpuTensor, shape?: readonly number[]) => Operand;
    contiguous: (p: WebGpuTensor) => WebGpuTensor;
  } {
    return {
      alloc: (s, d, op) => this.alloc(s, d, op),
      operand: (p, s) => this.operand(p, s),
      contiguous: (p) => this.contiguous(p),
    };
  }
}

/** The compute dtype two operands of a comparison are read in. */
function commonDType(a: DType, b: DType): DType {
  if (a === b) return a;
  if (isFloatDType(a) || isFloatDType(b)) return 'f32';
  const ua = isUnsignedDType(a) || a === 'bool',
    ub = isUnsignedDType(b) || b === 'bool';
  return ua && ub ? 'u32' : 'i32';
}

/** A host scalar as the CPU backend converts it for an op on `dtype` (cast, then half-precision rounding). */
function scalarFor(value: number, dtype: DType): number {
  const v = castNumber(value, dtype);
  if (dtype === 'f16') return f16BitsToF32(f32ToF16Bits(v));
  if (dtype === 'bf16') return bf16BitsToF32(f32ToBf16Bits(v));
  return v;
}

/** TensorData values as the 32-bit words the GPU stores. */
function toWords(data: TensorData): Float32Array | Int32Array | Uint32Array {
  const v = data.values;
  const t: CType = ctype(data.dtype, 'fromData');
  if (data.dtype === 'f16' || data.dtype === 'bf16') {
    const decode = data.dtype === 'f16' ? f16BitsToF32 : bf16BitsToF32;
    const out = new Float32Array(v.length);
    for (let i = 0; i < out.length; i++) out[i] = decode(v[i] as number);
    return out;
  }
  if (t === 'f32') return v instanceof Float32Array ? v : Float32Array.from(v as ArrayLike<number>);
  if (t === 'i32') return v instanceof Int32Array ? v : Int32Array.from(v as ArrayLike<number>);
  return v instanceof Uint32Array ? v : Uint32Array.from(v as ArrayLike<number>);
}

/** 32-bit words read back as TensorData of `dtype`. */
function fromWords(buf: ArrayBuffer, shape: readonly number[], dtype: DType): TensorData {
  switch (ctype(dtype)) {
    case 'f32': {
      const f = new Float32Array(buf);
      return new TensorData(dtype === 'f32' ? f : storageFromNumbers(f, dtype), shape, dtype);
    }
    case 'i32': {
      const i = new Int32Array(buf);
      return new TensorData(
        dtype === 'i32' ? i : dtype === 'i16' ? Int16Array.from(i) : Int8Array.from(i),
        shape,
        dtype,
      );
    }
    case 'u32': {
      const u = new Uint32Array(buf);
      return new TensorData(
        dtype === 'u32' ? u : dtype === 'u16' ? Uint16Array.from(u) : Uint8Array.from(u),
        shape,
        dtype,
      );
    }
  }
}
