import type { AutodiffOps, Gradients } from '../../backend/autodiff.js';
import type { Backend, SliceSpecs, TensorPrimitive } from '../../backend/backend.js';
import { BaseBackend } from '../../backend/base.js';
import { relu, reluBackward } from '../../backend/defaults/activation.js';
import { selectsEmptySlices } from '../../backend/defaults/indexing.js';
import type { ArgOp, BinaryOp, CompareOp, PredicateOp, ReduceOp, ScanOp, ScatterOp, UnaryOp } from '../../backend/ops.js';
import type { ConvOptions, ConvTransposeOptions, MaxPoolOptions } from '../../backend/options.js';
import type { TensorData } from '../../core/data.js';
import type { Distribution } from '../../core/distribution.js';
import type { RandomKey } from '../../backend/rng.js';
import { isFloatDType, type DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import { runScope } from '../../backend/memory.js';
import { Node, runBackward, type Bound, type Rule, type Stored } from './graph.js';
import { BINARY_RULES, reduceBinary, UNARY_RULES } from './rules/elementwise.js';
import { gatherGrad, scatterGrad, sortGrad } from './rules/indexing.js';
import { catGrad, expandGrad, permuteGrad, reshapeGrad, sliceAssignGrad, sliceGrad, whereGrad } from './rules/layout.js';
import { matmulGrad } from './rules/linalg.js';
import { convGrad, convTransposeGrad, maxPoolGrad } from './rules/module.js';
import { reduceGrad, scanGrad } from './rules/reduce.js';
import { AdTensor } from './tensor.js';

type P = TensorPrimitive;

/** Options of the autodiff decorator. */
export interface AutodiffOptions {
  /**
   * Gradient checkpointing (Burn's `Balanced` strategy): memory-bound ops keep no values for the
   * backward pass and are recomputed from their inputs instead; compute-bound ops keep theirs.
   */
  readonly checkpointing?: boolean;
}

/** A value a rule reads: an input (by position) or the op's output. */
type Keep = number | 'out';

/**
 * The autodiff decorator (Burn's `Autodiff<B>`): a backend over any inner backend that records
 * every op on tracked tensors and runs the backward pass. It implements the required op set with a
 * backward rule each; every composite op reaches the required set through the shared defaults, so
 * it is differentiated too.
 */
export class AutodiffBackend extends BaseBackend<AdTensor> implements AutodiffOps<AdTensor> {
  readonly name: string;
  readonly autodiff: AutodiffOps<AdTensor> = this;
  private readonly checkpointing: boolean;

  constructor(readonly innerBackend: Backend, options: AutodiffOptions = {}) {
    super();
    this.checkpointing = options.checkpointing ?? false;
    this.name = `autodiff<${innerBackend.name}>${this.checkpointing ? '(checkpointing)' : ''}`;
  }

  // --- the graph ---

  /**
   * Runs `forward` on the inner values and, when an input is tracked and a rule exists, records a
   * node that keeps what the rule reads (`keep`).
   */
  private record(inputs: readonly AdTensor[], forward: (vals: P[]) => P, bound: Bound, keep: readonly Keep[], rule: Rule | undefined, extra: readonly P[] = []): AdTensor {
    const out = forward(inputs.map((t) => t.inner));
    if (!rule || !isFloatDType(out.dtype) || !inputs.some((t) => t.node)) return new AdTensor(out, undefined);
    const recomputable = this.checkpointing && bound === 'memory';
    const node = new Node(inputs.map((t) => t.node), rule, [], undefined, [], bound, false);
    if (recomputable) {
      node.forward = forward;
      node.inputs = inputs.map((t) => this.store(t));
    }
    node.stored = [...keep.map((k) => (k === 'out' ? (recomputable ? node : this.keep(out)) : this.store(inputs[k]!))), ...extra.map((p) => this.keep(p))];
    return new AdTensor(out, node);
  }

  /**
   * Keeps a value: a recomputable producer node under checkpointing, the primitive otherwise — as
   * a handle of its own where the inner backend counts references (WebGPU), which the node releases
   * when the graph is freed.
   */
  private store(t: AdTensor): Stored {
    return t.node?.forward ? t.node : this.keep(t.inner);
  }

  private keep(p: P): P {
    return this.innerBackend.retain?.(p) ?? p;
  }

  // --- memory (forwarded to the inner backend) ---

  dispose(p: AdTensor): void {
    this.innerBackend.dispose?.(p.inner);
  }
  retain(p: AdTensor): AdTensor {
    return new AdTensor(this.keep(p.inner), p.node);
  }
  sync(): Promise<void> {
    return this.innerBackend.sync?.() ?? Promise.resolve();
  }
  info(): object {
    return this.innerBackend.info?.() ?? {};
  }
  /** The inner backend's device-side index check (indices are never tracked). */
  checkIndices(p: AdTensor, lo: number, hi: number, error: (index: number) => Error): AdTensor {
    const inner = this.innerBackend;
    return inner.checkIndices ? this.plain(inner.checkIndices(p.inner, lo, hi, error)) : p;
  }

  /** A result that is never tracked (ints, bools, data). */
  private plain(p: P): AdTensor {
    return new AdTensor(p, undefined);
  }

  requireGrad(p: AdTensor, require: boolean): AdTensor {
    if (!require) return this.plain(p.inner);
    if (!isFloatDType(p.dtype)) throw new BurnError('requireGrad', `only Float tensors can require grad, got ${p.dtype}`);
    return p.node?.leaf ? p : new AdTensor(p.inner, Node.leaf());
  }
  isRequireGrad(p: AdTensor): boolean {
    return p.node !== undefined;
  }
  detach(p: AdTensor): AdTensor {
    return this.plain(p.inner);
  }
  backward(p: AdTensor): Gradients {
    if (!p.node) throw new BurnError('backward', 'the tensor is not tracked: no input requires grad (call requireGrad() on a leaf first)');
    // Every intermediate of the backward pass is released when it ends; the gradients stay.
    const node = p.node;
    return runScope(() => runBackward(node, p.shape, p.dtype, this.innerBackend));
  }
  nodeId(p: AdTensor): number | undefined {
    return p.node?.id;
  }
  inner(p: AdTensor): P {
    return p.inner;
  }
  fromInner(p: P): AdTensor {
    return this.plain(p);
  }

  // --- data ---

  fromData(data: TensorData): AdTensor { return this.plain(this.innerBackend.fromData(data)); }
  toData(p: AdTensor): Promise<TensorData> { return this.innerBackend.toData(p.inner); }
  toDataSync(p: AdTensor): TensorData | undefined { return this.innerBackend.toDataSync(p.inner); }
  /** The inner backend's reads in one round trip where it has them. */
  toDataMany(ps: readonly AdTensor[]): Promise<TensorData[]> {
    const inner = this.innerBackend;
    return inner.toDataMany ? inner.toDataMany(ps.map((p) => p.inner)) : Promise.all(ps.map((p) => inner.toData(p.inner)));
  }
  viewDataSync(p: AdTensor): TensorData | undefined { return this.innerBackend.viewDataSync?.(p.inner); }
  fill(shape: readonly number[], value: number, dtype: DType): AdTensor { return this.plain(this.innerBackend.fill(shape, value, dtype)); }
  /** The inner backend's draw (its own kernel where it has one; the same values everywhere). */
  override random(shape: readonly number[], dist: Distribution, dtype: DType, key: RandomKey): AdTensor {
    return this.plain(this.innerBackend.random(shape, dist, dtype, key));
  }
  override arange(start: number, end: number, step: number, dtype: DType): AdTensor {
    return this.plain(this.innerBackend.arange(start, end, step, dtype));
  }

  // --- layout ---

  reshape(p: AdTensor, shape: readonly number[]): AdTensor {
    const from = p.shape;
    return this.record([p], ([x]) => this.innerBackend.reshape(x!, shape), 'memory', [], (g) => [reshapeGrad(this.innerBackend, g, from)]);
  }
  permute(p: AdTensor, axes: readonly number[]): AdTensor {
    return this.record([p], ([x]) => this.innerBackend.permute(x!, axes), 'memory', [], (g) => [permuteGrad(this.innerBackend, g, axes)]);
  }
  expand(p: AdTensor, shape: readonly number[]): AdTensor {
    const from = p.shape;
    return this.record([p], ([x]) => this.innerBackend.expand(x!, shape), 'memory', [], (g) => [expandGrad(this.innerBackend, g, from)]);
  }
  slice(p: AdTensor, specs: SliceSpecs): AdTensor {
    const meta = { shape: p.shape, dtype: p.dtype };
    return this.record([p], ([x]) => this.innerBackend.slice(x!, specs), 'memory', [], (g) => [sliceGrad(this.innerBackend, g, meta, specs)]);
  }
  sliceAssign(p: AdTensor, specs: SliceSpecs, values: AdTensor): AdTensor {
    const meta = { shape: values.shape, dtype: values.dtype };
    return this.record([p, values], ([x, v]) => this.innerBackend.sliceAssign(x!, specs, v!), 'memory', [], (g) => sliceAssignGrad(this.innerBackend, g, specs, meta));
  }
  cat(ps: readonly AdTensor[], dim: number): AdTensor {
    const sizes = ps.map((p) => p.shape[dim]!);
    return this.record(ps, (xs) => this.innerBackend.cat(xs, dim), 'memory', [], (g) => catGrad(this.innerBackend, g, sizes, dim));
  }

  // --- elementwise ---

  unary(op: UnaryOp, p: AdTensor): AdTensor {
    const r = UNARY_RULES[op];
    const grad = r.grad;
    const keep: Keep[] = r.keep === 'x' ? [0] : r.keep === 'out' ? ['out'] : [];
    return this.record([p], ([x]) => this.innerBackend.unary(op, x!), 'memory', keep, grad && ((g, v) => [grad(this.innerBackend, g, r.keep === 'none' ? g : v(0))]));
  }
  predicate(op: PredicateOp, p: AdTensor): AdTensor {
    return this.plain(this.innerBackend.predicate(op, p.inner));
  }
  binary(op: BinaryOp, a: AdTensor, b: AdTensor): AdTensor {
    return this.binaryWith(op, a, b, ([x, y]) => this.innerBackend.binary(op, x!, y!));
  }
  override binaryScalar(op: BinaryOp, a: AdTensor, scalar: number): AdTensor {
    if (!a.node) return this.plain(this.innerBackend.binaryScalar(op, a.inner, scalar));
    return this.binaryWith(op, a, this.fill([], scalar, a.dtype), ([x]) => this.innerBackend.binaryScalar(op, x!, scalar));
  }
  private binaryWith(op: BinaryOp, a: AdTensor, b: AdTensor, forward: (vals: P[]) => P): AdTensor {
    const r = BINARY_RULES[op];
    const grad = r.grad;
    const keep: Keep[] = r.keep.map((k) => (k === 'a' ? 0 : k === 'b' ? 1 : 'out'));
    const aShape = a.shape, bShape = b.shape;
    const rule: Rule | undefined = grad && ((g, v, needs) => {
      const vals = { a: g, b: g, out: g };
      r.keep.forEach((k, i) => (vals[k] = v(i)));
      const [ga, gb] = grad(this.innerBackend, g, vals, needs);
      return reduceBinary(this.innerBackend, [needs[0] ? ga : undefined, needs[1] ? gb : undefined], aShape, bShape);
    });
    return this.record([a, b], forward, 'memory', keep, rule);
  }
  compare(op: CompareOp, a: AdTensor, b: AdTensor): AdTensor {
    return this.plain(this.innerBackend.compare(op, a.inner, b.inner));
  }
  override compareScalar(op: CompareOp, a: AdTensor, scalar: number): AdTensor {
    return this.plain(this.innerBackend.compareScalar(op, a.inner, scalar));
  }
  where(cond: AdTensor, a: AdTensor, b: AdTensor): AdTensor {
    const aShape = a.shape, bShape = b.shape;
    return this.record([cond, a, b], ([c, x, y]) => this.innerBackend.where(c!, x!, y!), 'memory', [0], (g, v, needs) => [
      undefined, ...whereGrad(this.innerBackend, g, v(0), aShape, bShape, needs[1]!, needs[2]!),
    ]);
  }
  cast(p: AdTensor, dtype: DType): AdTensor {
    const from = p.dtype;
    const rule: Rule | undefined = isFloatDType(from) && isFloatDType(dtype) ? (g) => [this.innerBackend.cast(g, from)] : undefined;
    return this.record([p], ([x]) => this.innerBackend.cast(x!, dtype), 'memory', [], rule);
  }

  // --- reductions ---

  reduce(op: ReduceOp, p: AdTensor, dims: readonly number[]): AdTensor {
    const keep: Keep[] = op === 'sum' ? [] : [0, 'out'];
    return this.record([p], ([x]) => this.innerBackend.reduce(op, x!, dims), 'memory', keep, (g, v) => {
      const x = op === 'sum' ? { shape: p.shape, dtype: p.dtype } : v(0);
      return [reduceGrad(this.innerBackend, op, g, x as P, op === 'sum' ? g : v(1), dims)];
    });
  }
  argReduce(op: ArgOp, p: AdTensor, dim: number): AdTensor {
    return this.plain(this.innerBackend.argReduce(op, p.inner, dim));
  }
  scan(op: ScanOp, p: AdTensor, dim: number): AdTensor {
    const keep: Keep[] = op === 'sum' ? [] : [0, 'out'];
    const meta = { shape: p.shape, dtype: p.dtype } as P;
    return this.record([p], ([x]) => this.innerBackend.scan(op, x!, dim), 'memory', keep, (g, v) => [
      scanGrad(this.innerBackend, op, g, op === 'sum' ? meta : v(0), op === 'sum' ? meta : v(1), dim),
    ]);
  }

  // --- indexing ---

  gather(p: AdTensor, dim: number, indices: AdTensor): AdTensor {
    const meta = { shape: p.shape, dtype: p.dtype };
    return this.record([p, indices], ([x, i]) => this.innerBackend.gather(x!, dim, i!), 'memory', [1], (g, v) => [gatherGrad(this.innerBackend, g, meta, dim, v(0)), undefined]);
  }
  /**
   * Indices selecting empty slices (another dim is 0) reach no gather element: they go through the
   * inner select, which checks them (on the device where it cannot read them here). The result is
   * empty, so the input's gradient from it is zeros.
   */
  override select(p: AdTensor, dim: number, indices: AdTensor): AdTensor {
    if (!selectsEmptySlices(p.shape, dim, indices)) return super.select(p, dim, indices);
    const meta = { shape: p.shape, dtype: p.dtype };
    return this.record([p, indices], ([x, i]) => this.innerBackend.select(x!, dim, i!), 'memory', [], () => [this.innerBackend.fill(meta.shape, 0, meta.dtype), undefined]);
  }
  /** As {@link select}: the inner selectAssign checks indices selecting empty slices; both gradients are empty. */
  override selectAssign(op: ScatterOp, p: AdTensor, dim: number, indices: AdTensor, values: AdTensor): AdTensor {
    if (!selectsEmptySlices(p.shape, dim, indices)) return super.selectAssign(op, p, dim, indices, values);
    const pm = { shape: p.shape, dtype: p.dtype }, vm = { shape: values.shape, dtype: values.dtype };
    return this.record([p, indices, values], ([x, i, v]) => this.innerBackend.selectAssign(op, x!, dim, i!, v!), 'memory', [],
      () => [this.innerBackend.fill(pm.shape, 0, pm.dtype), undefined, this.innerBackend.fill(vm.shape, 0, vm.dtype)]);
  }
  scatter(op: ScatterOp, p: AdTensor, dim: number, indices: AdTensor, values: AdTensor): AdTensor {
    return this.record([p, indices, values], ([x, i, vals]) => this.innerBackend.scatter(op, x!, dim, i!, vals!), 'memory', [0, 1, 2, 'out'], (g, v) => {
      const [gx, gv] = scatterGrad(this.innerBackend, op, g, v(0), dim, v(1), v(2), v(3));
      return [gx, undefined, gv];
    });
  }

  // --- matmul, sort ---

  matmul(a: AdTensor, b: AdTensor): AdTensor {
    return this.record([a, b], ([x, y]) => this.innerBackend.matmul(x!, y!), 'compute', [0, 1], (g, v, needs) => matmulGrad(this.innerBackend, g, v(0), v(1), needs));
  }
  sort(p: AdTensor, dim: number, descending: boolean): [AdTensor, AdTensor] {
    const [values, indices] = this.innerBackend.sort(p.inner, dim, descending);
    const tracked = this.record([p], () => values, 'compute', [], (g, v) => [sortGrad(this.innerBackend, g, dim, v(0))], [indices]);
    return [tracked, this.plain(indices)];
  }

  // --- composites with a dedicated rule (cheaper than differentiating the default) ---

  override softmax(p: AdTensor, dim: number): AdTensor {
    // dx = y * (g - sum(g * y))
    return this.record([p], ([x]) => this.innerBackend.softmax(x!, dim), 'memory', ['out'], (g, v) => {
      const b = this.innerBackend, y = v(0);
      const gy = b.binary('mul', g, y);
      return [b.binary('sub', gy, b.binary('mul', y, b.reduce('sum', gy, [dim])))];
    });
  }
  override logSoftmax(p: AdTensor, dim: number): AdTensor {
    // dx = g - softmax(x) * sum(g)
    return this.record([p], ([x]) => this.innerBackend.logSoftmax(x!, dim), 'memory', ['out'], (g, v) => {
      const b = this.innerBackend;
      return [b.binary('sub', g, b.binary('mul', b.unary('exp', v(0)), b.reduce('sum', g, [dim])))];
    });
  }

  /** ReLU as one node: the gradient is read from the output (0 where it is 0, as PyTorch). */
  relu(p: AdTensor): AdTensor {
    return this.record([p], ([x]) => relu(this.innerBackend, x!), 'memory', ['out'], (g, v) => [reluBackward(this.innerBackend, v(0), g)]);
  }

  override conv(x: AdTensor, weight: AdTensor, bias: AdTensor | undefined, options: ConvOptions): AdTensor {
    const inputs = bias ? [x, weight, bias] : [x, weight];
    return this.record(inputs, ([a, w, c]) => this.innerBackend.conv(a!, w!, c, options), 'compute', [0, 1], (g, v, needs) =>
      convGrad(this.innerBackend, g, v(0), v(1), needs, options));
  }
  override convTranspose(x: AdTensor, weight: AdTensor, bias: AdTensor | undefined, options: ConvTransposeOptions): AdTensor {
    const inputs = bias ? [x, weight, bias] : [x, weight];
    return this.record(inputs, ([a, w, c]) => this.innerBackend.convTranspose(a!, w!, c, options), 'compute', [0, 1], (g, v, needs) =>
      convTransposeGrad(this.innerBackend, g, v(0), v(1), needs, options));
  }
  override maxPool(x: AdTensor, options: MaxPoolOptions): AdTensor {
    return this.maxPoolWithIndices(x, options)[0];
  }
  override maxPoolWithIndices(x: AdTensor, options: MaxPoolOptions): [AdTensor, AdTensor] {
    const [out, indices] = this.innerBackend.maxPoolWithIndices(x.inner, options);
    const shape = x.shape;
    const tracked = this.record([x], () => out, 'compute', [], (g, v) => [maxPoolGrad(this.innerBackend, g, shape, v(0))], [indices]);
    return [tracked, this.plain(indices)];
  }
}
