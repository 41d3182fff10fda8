import type { Backend, SliceSpecs, TensorPrimitive } from '../../backend/backend.js';
import { BaseBackend } from '../../backend/base.js';
import type { CustomCall } from '../../backend/custom.js';
import { untracked } from '../../backend/memory.js';
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
import type { TensorData } from '../../core/data.js';
import type { Distribution } from '../../core/distribution.js';
import type { DType } from '../../core/dtype.js';
import { broadcastShapes, numel, sameShape } from '../../core/shape.js';
import { checkBinary, checkUnary } from './check.js';
import { FusedTensor, type HandleOwner } from './handle.js';
import { Node, pendingSize, unref } from './node.js';
import { materialize, own, type FusionCore, type FusionStats } from './plan.js';
import { applyView } from './view.js';

type F<P extends TensorPrimitive> = FusedTensor<P>;

/**
 * Pending nodes a recorded op may have before its block is computed at once (Burn flushes its
 * stream at a size limit): bounds the work of planning and of recomputing shared parts.
 */
export const MAX_PENDING_NODES = 64;

/**
 * The fusion decorator (Burn's `Fusion<B>`): a backend over any inner backend whose elementwise
 * ops, scalar ops, casts, wheres and reductions are recorded lazily as an expression DAG and run,
 * when their values are demanded (a read, a non-fusable op taking them, the end of a scope), as
 * ONE fused program (`Backend.fused` of the inner backend, else an op-by-op replay). Layout ops on
 * pending tensors re-index the DAG; every other op computes its inputs and runs on the inner
 * backend. A pending tensor disposed (or unreachable at the end of its scope) is never computed.
 */
export class FusionBackend<P extends TensorPrimitive = TensorPrimitive>
  extends BaseBackend<F<P>>
  implements HandleOwner<P>
{
  readonly name: string;
  private readonly core: FusionCore<P>;
  private readonly checked = new Set<DType>();

  /** Device-side index check, present when the inner backend has one. */
  readonly checkIndices?: (p: F<P>, lo: number, hi: number, error: (index: number) => Error) => F<P>;
  /** User-defined ops' forward on the inner backend, present when it has them. */
  readonly customOp?: (call: CustomCall, inputs: readonly F<P>[]) => F<P> | undefined;
  /** The inner backend's fused conv + clamp, on computed inputs. */
  readonly convClamp?: (
    x: F<P>,
    weight: F<P>,
    bias: F<P> | undefined,
    options: ConvOptions,
    min: number,
    max: number,
    residual?: F<P>,
  ) => F<P> | undefined;
  /** The inner backend's one-pass Adam step, on computed inputs. */
  readonly adamStep?: (
    param: F<P>,
    grad: F<P>,
    moment1: F<P> | undefined,
    moment2: F<P> | undefined,
    options: AdamStepOptions,
  ) => [F<P>, F<P>, F<P>] | undefined;
  /** The inner backend's conv weight gradient, on computed inputs. */
  readonly convWeightGrad?: (
    x: F<P>,
    grad: F<P>,
    weightShape: readonly number[],
    options: ConvOptions,
  ) => F<P> | undefined;
  /** The inner backend's max-pool input gradient, on computed inputs. */
  readonly maxPoolGrad?: (grad: F<P>, indices: F<P>, inputShape: readonly number[]) => F<P> | undefined;

  constructor(
    /** The backend that computes. */
    readonly innerBackend: Backend<P>,
  ) {
    super();
    const inner = innerBackend;
    this.name = `fusion<${inner.name}>`;
    const stats: FusionStats = { programs: 0, fused: 0, replays: 0, materialized: 0, direct: 0 };
    this.core = { inner, stats, free: (p) => inner.dispose?.(p) };
    // Optional members exist exactly where the inner backend has them (callers test for them).
    if (inner.checkIndices)
      this.checkIndices = (p, lo, hi, error) => this.forward([p], ([x]) => inner.checkIndices!(x!, lo, hi, error));
    if (inner.customOp)
      this.customOp = (call, inputs) => {
        const out = this.run(() => {
          const ps = inputs.map((t) => this.demand(t));
          const r = inner.customOp!(call, ps);
          return r === undefined ? undefined : this.leafOf(ps, r);
        });
        return out && this.handle(out);
      };
    if (inner.convClamp)
      this.convClamp = (x, weight, bias, options, min, max, residual) =>
        this.maybe([x, weight, bias, residual], ([a, w, b, r]) => inner.convClamp!(a!, w!, b, options, min, max, r));
    if (inner.adamStep)
      this.adamStep = (param, grad, m1, m2, options) => {
        const out = this.run(() => {
          const ps = [param, grad, m1, m2].map((t) => t && this.demand(t));
          const r = inner.adamStep!(ps[0]!, ps[1]!, ps[2], ps[3], options);
          return r && r.map((q) => this.leafOf(ps, q));
        });
        return out && [this.handle(out[0]!), this.handle(out[1]!), this.handle(out[2]!)];
      };
    if (inner.convWeightGrad)
      this.convWeightGrad = (x, grad, weightShape, options) =>
        this.maybe([x, grad], ([a, g]) => inner.convWeightGrad!(a!, g!, weightShape, options));
    if (inner.maxPoolGrad)
      this.maxPoolGrad = (grad, indices, inputShape) =>
        this.maybe([grad, indices], ([g, i]) => inner.maxPoolGrad!(g!, i!, inputShape));
  }

  /** Counters: programs run, how many the inner backend fused or replayed, nodes computed. */
  stats(): FusionStats {
    return { ...this.core.stats };
  }

  // --- handles and nodes ---

  /** @internal Drops a handle's reference (HandleOwner). */
  drop(node: Node<P>): void {
    this.run(() => unref(node, this.core.free));
  }

  /** @internal Computes a surviving handle's node at scope end (HandleOwner). */
  settle(node: Node<P>): void {
    this.run(() => materialize(this.core, node));
  }

  /** Inner work runs untracked: the nodes own the inner primitives, scopes own only the handles. */
  private run<T>(fn: () => T): T {
    return untracked(fn);
  }

  private handle(node: Node<P>): F<P> {
    return new FusedTensor(node, this);
  }

  /** The computed values of `t` (inside {@link run}). */
  private demand(t: F<P>): P {
    const n = t.live();
    materialize(this.core, n);
    return n.p!;
  }

  /** A leaf over an inner result, a handle of its own where the inner op returned one of its inputs. */
  private leafOf(inputs: readonly (P | undefined)[], out: P): Node<P> {
    const input = inputs.find((p) => p === out);
    // A fresh output of a compute op is dense (a hint; see Node.dense).
    return input === undefined ? Node.leaf(out, true) : Node.leaf(own(this.core, input, out));
  }

  /** Runs an inner op on the computed inputs; its result becomes a leaf. */
  private forward(inputs: readonly F<P>[], fn: (ps: P[]) => P): F<P> {
    return this.handle(
      this.run(() => {
        const ps = inputs.map((t) => this.demand(t));
        return this.leafOf(ps, fn(ps));
      }),
    );
  }

  /** {@link forward} for an inner op with two outputs. */
  private forward2(inputs: readonly F<P>[], fn: (ps: P[]) => [P, P]): [F<P>, F<P>] {
    const [a, b] = this.run(() => {
      const ps = inputs.map((t) => this.demand(t));
      const [x, y] = fn(ps);
      return [this.leafOf(ps, x), this.leafOf(ps, y)];
    });
    return [this.handle(a), this.handle(b)];
  }

  /** {@link forward} for an optional inner kernel (undefined: declined). */
  private maybe(inputs: readonly (F<P> | undefined)[], fn: (ps: (P | undefined)[]) => P | undefined): F<P> | undefined {
    const out = this.run(() => {
      const ps = inputs.map((t) => t && this.demand(t));
      const r = fn(ps);
      return r === undefined ? undefined : this.leafOf(ps, r);
    });
    return out && this.handle(out);
  }

  /** Records a lazily computed node; one whose block grew past {@link MAX_PENDING_NODES} is computed now. */
  private record(fn: () => Node<P>): F<P> {
    return this.handle(
      this.run(() => {
        const n = fn();
        if (pendingSize(n, MAX_PENDING_NODES) > MAX_PENDING_NODES) materialize(this.core, n);
        return n;
      }),
    );
  }

  /** Frees a node nothing references (a temporary of a view chain). */
  private dropTemp(n: Node<P>): void {
    if (n.refs === 0) {
      n.refs++;
      unref(n, this.core.free);
    }
  }

  /** `n` broadcast to `shape` (leading dims added, size-1 dims expanded) by re-indexing. */
  private expandTo(n: Node<P>, shape: readonly number[]): Node<P> {
    if (sameShape(n.shape, shape)) return n;
    let x = n;
    if (x.shape.length < shape.length) {
      const ones = new Array<number>(shape.length - x.shape.length).fill(1);
      x = applyView(this.core, x, { kind: 'reshape', shape: [...ones, ...x.shape] });
    }
    if (!sameShape(x.shape, shape)) {
      const y = applyView(this.core, x, { kind: 'expand', shape });
      if (x !== n) this.dropTemp(x);
      x = y;
    }
    return x;
  }

  private unaryN(op: UnaryOp, x: Node<P>): Node<P> {
    checkUnary(op, x.dtype);
    return Node.op({ kind: 'unary', op }, x.shape, x.dtype, [x]);
  }

  private binaryN(op: BinaryOp, a: Node<P>, b: Node<P>): Node<P> {
    checkBinary(op, a.dtype);
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    return Node.op({ kind: 'binary', op }, shape, a.dtype, [this.expandTo(a, shape), this.expandTo(b, shape)]);
  }

  private compareN(op: CompareOp, a: Node<P>, b: Node<P>): Node<P> {
    const shape = sameShape(a.shape, b.shape) ? a.shape : broadcastShapes(a.shape, b.shape, op);
    return Node.op({ kind: 'compare', op }, shape, 'bool', [this.expandTo(a, shape), this.expandTo(b, shape)]);
  }

  private whereN(c: Node<P>, a: Node<P>, b: Node<P>): Node<P> {
    const shape = broadcastShapes(broadcastShapes(c.shape, a.shape, 'where'), b.shape, 'where');
    return Node.op({ kind: 'where' }, shape, a.dtype, [
      this.expandTo(c, shape),
      this.expandTo(a, shape),
      this.expandTo(b, shape),
    ]);
  }

  private scalarN(value: number, dtype: DType): Node<P> {
    return Node.scalar([], value, dtype);
  }

  private reduceN(op: ReduceOp, x: Node<P>, dims: readonly number[]): Node<P> {
    const dtype = op === 'any' || op === 'all' ? 'bool' : x.dtype;
    // Over size-1 dims a reduction is the identity (any/all: a test for non-zero), and a program's
    // row and element shapes would coincide: recorded as what it is.
    if (dims.every((d) => x.shape[d] === 1))
      return dtype === x.dtype ? x : Node.op({ kind: 'cast' }, x.shape, dtype, [x]);
    return Node.reduce(op, x, dims, dtype);
  }

  // --- memory ---

  /** Releases `p`'s reference: its values are freed with the last one (a pending tensor is then never computed). */
  dispose(p: F<P>): void {
    p.release();
  }

  /** A second handle on `p`'s expression. */
  retain(p: F<P>): F<P> {
    return this.handle(p.live());
  }

  sync(): Promise<void> {
    return this.innerBackend.sync?.() ?? Promise.resolve();
  }

  info(): object {
    return { ...(this.innerBackend.info?.() ?? {}), fusion: this.stats() };
  }

  // --- data ---

  fromData(data: TensorData): F<P> {
    return this.handle(this.run(() => Node.leaf(this.innerBackend.fromData(data), true)));
  }

  toData(p: F<P>): Promise<TensorData> {
    return this.innerBackend.toData(this.run(() => this.demand(p)));
  }

  toDataSync(p: F<P>): TensorData | undefined {
    return this.innerBackend.toDataSync(this.run(() => this.demand(p)));
  }

  /** Reads in one round trip where the inner backend can; every pending tensor is computed first. */
  toDataMany(ps: readonly F<P>[]): Promise<TensorData[]> {
    const inner = this.innerBackend;
    const xs = this.run(() => ps.map((p) => this.demand(p)));
    return inner.toDataMany ? inner.toDataMany(xs) : Promise.all(xs.map((x) => inner.toData(x)));
  }

  viewDataSync(p: F<P>): TensorData | undefined {
    return this.innerBackend.viewDataSync?.(this.run(() => this.demand(p)));
  }

  /** A scalar node: nothing is allocated until the values are demanded on their own. */
  fill(shape: readonly number[], value: number, dtype: DType): F<P> {
    this.checkDtype(dtype);
    return this.handle(Node.scalar(shape, value, dtype));
  }

  /** The inner backend's refusal of a dtype (f64 on WebGPU) at the call that creates it: one fill per dtype it accepts. */
  private checkDtype(dtype: DType): void {
    if (this.checked.has(dtype)) return;
    const inner = this.innerBackend;
    this.run(() => {
      const q = inner.fill([], 0, dtype);
      inner.dispose?.(q);
    });
    this.checked.add(dtype);
  }

  // --- layout: re-indexing ---

  reshape(p: F<P>, shape: readonly number[]): F<P> {
    return this.record(() => applyView(this.core, p.live(), { kind: 'reshape', shape }));
  }
  permute(p: F<P>, axes: readonly number[]): F<P> {
    return this.record(() => applyView(this.core, p.live(), { kind: 'permute', axes }));
  }
  expand(p: F<P>, shape: readonly number[]): F<P> {
    return this.record(() => this.expandTo(p.live(), shape));
  }
  slice(p: F<P>, specs: SliceSpecs): F<P> {
    return this.record(() => applyView(this.core, p.live(), { kind: 'slice', specs }));
  }

  // --- recorded elementwise ops ---

  unary(op: UnaryOp, p: F<P>): F<P> {
    const x = p.live();
    checkUnary(op, x.dtype);
    return this.record(() => this.unaryN(op, x));
  }
  predicate(op: PredicateOp, p: F<P>): F<P> {
    const x = p.live();
    return this.record(() => Node.op({ kind: 'predicate', op }, x.shape, 'bool', [x]));
  }
  binary(op: BinaryOp, a: F<P>, b: F<P>): F<P> {
    const x = a.live(),
      y = b.live();
    // Mixed dtypes keep the inner backend's own rules: computed eagerly.
    if (x.dtype !== y.dtype) return this.forward([a, b], ([u, v]) => this.innerBackend.binary(op, u!, v!));
    checkBinary(op, x.dtype);
    return this.record(() => this.binaryN(op, x, y));
  }
  compare(op: CompareOp, a: F<P>, b: F<P>): F<P> {
    const x = a.live(),
      y = b.live();
    if (x.dtype !== y.dtype) return this.forward([a, b], ([u, v]) => this.innerBackend.compare(op, u!, v!));
    return this.record(() => this.compareN(op, x, y));
  }
  where(cond: F<P>, a: F<P>, b: F<P>): F<P> {
    const c = cond.live(),
      x = a.live(),
      y = b.live();
    if (c.dtype !== 'bool' || x.dtype !== y.dtype)
      return this.forward([cond, a, b], ([k, u, v]) => this.innerBackend.where(k!, u!, v!));
    return this.record(() => this.whereN(c, x, y));
  }
  cast(p: F<P>, dtype: DType): F<P> {
    const x = p.live();
    if (dtype === x.dtype) return this.retain(p);
    this.checkDtype(dtype);
    return this.record(() => Node.op({ kind: 'cast' }, x.shape, dtype, [x]));
  }
  override binaryScalar(op: BinaryOp, a: F<P>, scalar: number): F<P> {
    const x = a.live();
    checkBinary(op, x.dtype);
    return this.record(() => this.binaryN(op, x, this.scalarN(scalar, x.dtype)));
  }
  override compareScalar(op: CompareOp, a: F<P>, scalar: number): F<P> {
    const x = a.live();
    return this.record(() => this.compareN(op, x, this.scalarN(scalar, x.dtype)));
  }
  override clamp(p: F<P>, min: number | undefined, max: number | undefined): F<P> {
    const x = p.live();
    if (min === undefined && max === undefined) return this.retain(p);
    checkBinary('max', x.dtype);
    return this.record(() => {
      let out = x;
      if (min !== undefined) out = this.binaryN('max', out, this.scalarN(min, x.dtype));
      if (max !== undefined) out = this.binaryN('min', out, this.scalarN(max, x.dtype));
      return out;
    });
  }
  override maskFill(p: F<P>, mask: F<P>, value: number): F<P> {
    const x = p.live(),
      m = mask.live();
    if (m.dtype !== 'bool') return super.maskFill(p, mask, value);
    return this.record(() => this.whereN(m, this.scalarN(value, x.dtype), x));
  }
  override relu(p: F<P>): F<P> {
    const x = p.live();
    return this.record(() =>
      this.whereN(this.compareN('le', x, this.scalarN(0, x.dtype)), this.scalarN(0, x.dtype), x),
    );
  }
  override reluBackward(output: F<P>, grad: F<P>): F<P> {
    const o = output.live(),
      g = grad.live();
    return this.record(() =>
      this.whereN(this.compareN('le', o, this.scalarN(0, o.dtype)), this.scalarN(0, g.dtype), g),
    );
  }

  // --- recorded reductions ---

  reduce(op: ReduceOp, p: F<P>, dims: readonly number[]): F<P> {
    const x = p.live();
    // Reductions the IR does not cover (over nothing, of nothing, sums of bools) run eagerly.
    if (dims.length === 0 || numel(x.shape) === 0 || (x.dtype === 'bool' && op !== 'any' && op !== 'all'))
      return this.forward([p], ([u]) => this.innerBackend.reduce(op, u!, dims));
    return this.record(() => this.reduceN(op, x, dims));
  }
  /** Softmax as one program: max, then exp and sum, then the division, over each row. */
  override softmax(p: F<P>, dim: number): F<P> {
    const x = p.live();
    checkUnary('exp', x.dtype);
    return this.record(() => {
      const e = this.unaryN('exp', this.binaryN('sub', x, this.reduceN('max', x, [dim])));
      return this.binaryN('div', e, this.reduceN('sum', e, [dim]));
    });
  }
  /** Log-softmax as one program (the default's formula). */
  override logSoftmax(p: F<P>, dim: number): F<P> {
    const x = p.live();
    checkUnary('exp', x.dtype);
    return this.record(() => {
      const shifted = this.binaryN('sub', x, this.reduceN('max', x, [dim]));
      return this.binaryN('sub', shifted, this.unaryN('log', this.reduceN('sum', this.unaryN('exp', shifted), [dim])));
    });
  }

  // --- everything else: computed inputs, the inner backend's op ---

  override random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): F<P> {
    return this.forward([], () => this.innerBackend.random(shape, dist, dtype, key));
  }
  override arange(start: number, end: number, step: number, dtype: DType): F<P> {
    return this.forward([], () => this.innerBackend.arange(start, end, step, dtype));
  }
  sliceAssign(p: F<P>, specs: SliceSpecs, values: F<P>): F<P> {
    return this.forward([p, values], ([x, v]) => this.innerBackend.sliceAssign(x!, specs, v!));
  }
  cat(ps: readonly F<P>[], dim: number): F<P> {
    return this.forward(ps, (xs) => this.innerBackend.cat(xs, dim));
  }
  argReduce(op: ArgOp, p: F<P>, dim: number): F<P> {
    return this.forward([p], ([x]) => this.innerBackend.argReduce(op, x!, dim));
  }
  scan(op: ScanOp, p: F<P>, dim: number): F<P> {
    return this.forward([p], ([x]) => this.innerBackend.scan(op, x!, dim));
  }
  gather(p: F<P>, dim: number, indices: F<P>): F<P> {
    return this.forward([p, indices], ([x, i]) => this.innerBackend.gather(x!, dim, i!));
  }
  scatter(op: ScatterOp, p: F<P>, dim: number, indices: F<P>, values: F<P>): F<P> {
    return this.forward([p, indices, values], ([x, i, v]) => this.innerBackend.scatter(op, x!, dim, i!, v!));
  }
  override select(p: F<P>, dim: number, indices: F<P>): F<P> {
    return this.forward([p, indices], ([x, i]) => this.innerBackend.select(x!, dim, i!));
  }
  override selectAssign(op: ScatterOp, p: F<P>, dim: number, indices: F<P>, values: F<P>): F<P> {
    return this.forward([p, indices, values], ([x, i, v]) => this.innerBackend.selectAssign(op, x!, dim, i!, v!));
  }
  matmul(a: F<P>, b: F<P>): F<P> {
    return this.forward([a, b], ([x, y]) => this.innerBackend.matmul(x!, y!));
  }
  sort(p: F<P>, dim: number, descending: boolean): [F<P>, F<P>] {
    return this.forward2([p], ([x]) => this.innerBackend.sort(x!, dim, descending));
  }
  override conv(x: F<P>, weight: F<P>, bias: F<P> | undefined, options: ConvOptions): F<P> {
    return this.forward(present([x, weight, bias]), ([a, w, b]) => this.innerBackend.conv(a!, w!, bias && b, options));
  }
  override convTranspose(x: F<P>, weight: F<P>, bias: F<P> | undefined, options: ConvTransposeOptions): F<P> {
    return this.forward(present([x, weight, bias]), ([a, w, b]) =>
      this.innerBackend.convTranspose(a!, w!, bias && b, options),
    );
  }
  override deformConv2d(
    x: F<P>,
    offset: F<P>,
    weight: F<P>,
    mask: F<P> | undefined,
    bias: F<P> | undefined,
    options: DeformConvOptions,
  ): F<P> {
    return this.forward(present([x, offset, weight]), ([a, o, w]) => {
      const run = (m: P | undefined, b: P | undefined) => this.innerBackend.deformConv2d(a!, o!, w!, m, b, options);
      // Optional inputs are computed apart (the list above holds the required ones).
      return run(mask && this.demand(mask), bias && this.demand(bias));
    });
  }
  override unfold4d(x: F<P>, kernelSize: readonly number[], options: UnfoldOptions): F<P> {
    return this.forward([x], ([a]) => this.innerBackend.unfold4d(a!, kernelSize, options));
  }
  override maxPool(x: F<P>, options: MaxPoolOptions): F<P> {
    return this.forward([x], ([a]) => this.innerBackend.maxPool(a!, options));
  }
  override maxPoolWithIndices(x: F<P>, options: MaxPoolOptions): [F<P>, F<P>] {
    return this.forward2([x], ([a]) => this.innerBackend.maxPoolWithIndices(a!, options));
  }
  override avgPool(x: F<P>, options: AvgPoolOptions): F<P> {
    return this.forward([x], ([a]) => this.innerBackend.avgPool(a!, options));
  }
  override adaptiveAvgPool(x: F<P>, outputSize: readonly number[]): F<P> {
    return this.forward([x], ([a]) => this.innerBackend.adaptiveAvgPool(a!, outputSize));
  }
  override interpolate(x: F<P>, outputSize: readonly number[], options: InterpolateOptions): F<P> {
    return this.forward([x], ([a]) => this.innerBackend.interpolate(a!, outputSize, options));
  }
  override gridSample2d(x: F<P>, grid: F<P>, options: GridSampleOptions): F<P> {
    return this.forward([x, grid], ([a, g]) => this.innerBackend.gridSample2d(a!, g!, options));
  }
  override attention(
    q: F<P>,
    k: F<P>,
    v: F<P>,
    mask: F<P> | undefined,
    bias: F<P> | undefined,
    options: AttentionOptions,
  ): F<P> {
    return this.forward([q, k, v], ([a, b, c]) =>
      this.innerBackend.attention(a!, b!, c!, mask && this.demand(mask), bias && this.demand(bias), options),
    );
  }
}

/** The defined tensors of a list whose last entries may be absent (their positions kept by the callers). */
function present<T>(xs: readonly (T | undefined)[]): T[] {
  return xs.filter((x): x is T => x !== undefined);
}
