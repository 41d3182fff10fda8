import type { AutodiffOps, Gradients } from '../../backend/autodiff.js';
import type { Backend, SliceSpecs, TensorPrimitive } from '../../backend/backend.js';
import { BaseBackend } from '../../backend/base.js';
import { selectsEmptySlices } from '../../backend/defaults/indexing.js';
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
import type { ConvOptions, ConvTransposeOptions, MaxPoolOptions } from '../../backend/options.js';
import type { TensorData } from '../../core/data.js';
import type { Distribution } from '../../core/distribution.js';
import type { RandomKey } from '../../backend/rng.js';
import { isFloatDType, type DType } from '../../core/dtype.js';
import { BurnError, check } from '../../core/errors.js';
import { runScope } from '../../backend/memory.js';
import { Node, runBackward, type Backward, type Stored } from './graph.js';
import type { RecordOptions, SaveSource } from './record.js';
import { BINARY_RULES, reduceBinary, UNARY_RULES, type BinarySaved } from './rules/elementwise.js';
import { gatherGrad, scatterGrad, sortGrad } from './rules/indexing.js';
import {
  catGrad,
  expandGrad,
  permuteGrad,
  reshapeGrad,
  sliceAssignGrad,
  sliceGrad,
  whereGrad,
} from './rules/layout.js';
import { matmulGrad } from './rules/linalg.js';
import { convGrad, convTransposeGrad, maxPoolGrad } from './rules/module.js';
import { reduceGrad, scanGrad } from './rules/reduce.js';
import { AdTensor } from './tensor.js';
import { recordCustomOp } from './custom.js';
import type { CustomCall } from '../../backend/custom.js';

type P = TensorPrimitive;

/** Options of the autodiff decorator. */
export interface AutodiffOptions {
  /**
   * Gradient checkpointing (Burn's `Balanced` strategy): memory-bound ops keep no values for the
   * backward pass and are recomputed from their inputs instead; compute-bound ops keep theirs.
   */
  readonly checkpointing?: boolean;
}

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

  constructor(
    readonly innerBackend: Backend,
    options: AutodiffOptions = {},
  ) {
    super();
    this.checkpointing = options.checkpointing ?? false;
    this.name = `autodiff<${innerBackend.name}>${this.checkpointing ? '(checkpointing)' : ''}`;
  }

  // --- the graph ---

  /**
   * Runs an op: `forward` on the inner values and, when an input is tracked, the output is a float
   * and a backward rule exists, a graph node that keeps the values named in `save` for `backward`.
   * Every op of this backend goes through it; a custom op calls it the same way, e.g.
   * `record({ inputs: [x, w], forward: ([a, b]) => fused(a!, b!), cost: 'compute-bound',
   * save: { x: 0, w: 1 }, backward: (g, { x, w }, needs) => [gx, gw] })`.
   */
  record<K extends string = never>(options: RecordOptions<K>): AdTensor {
    const { inputs, forward, cost, backward } = options;
    // Checked before the forward runs, tracked or not, so a bad save fails the same way every time.
    const save = Object.entries(options.save ?? {}) as [string, SaveSource][];
    for (const [name, source] of save) {
      check(
        typeof source !== 'number' || (Number.isInteger(source) && inputs[source] !== undefined),
        'record',
        () =>
          `save.${name} names input ${String(source)}, but the op has ${inputs.length} input(s) (expected an index in [0, ${inputs.length}), 'out' or a primitive)`,
      );
    }
    const out = forward(inputs.map((t) => t.inner));
    if (!backward || !isFloatDType(out.dtype) || !inputs.some((t) => t.node)) return new AdTensor(out, undefined);
    const recomputable = this.checkpointing && cost === 'memory-bound';
    const saved: Record<string, Stored> = {};
    const node = new Node({
      parents: inputs.map((t) => t.node),
      // The rule reads exactly the names `save` declares.
      backward: backward as Backward,
      saved,
      cost,
      ...(recomputable ? { forward, inputs: inputs.map((t) => this.store(t)) } : {}),
    });
    for (const [name, source] of save)
      saved[name] = this.saveValue(source, inputs, out, recomputable ? node : undefined);
    return new AdTensor(out, node);
  }

  /**
   * Keeps one saved value: an input (as its producer node where that recomputes), the output (as
   * the recording node `self` where it recomputes), or a value computed beside the output.
   */
  private saveValue(source: SaveSource, inputs: readonly AdTensor[], out: P, self: Node | undefined): Stored {
    if (source === 'out') return self ?? this.keep(out);
    return typeof source === 'number' ? this.store(inputs[source]!) : this.keep(source);
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
    if (!isFloatDType(p.dtype))
      throw new BurnError('requireGrad', `only Float tensors can require grad, got ${p.dtype}`);
    return p.node?.leaf ? p : new AdTensor(p.inner, Node.leaf());
  }
  isRequireGrad(p: AdTensor): boolean {
    return p.node !== undefined;
  }
  detach(p: AdTensor): AdTensor {
    return this.plain(p.inner);
  }
  backward(p: AdTensor): Gradients {
    if (!p.node)
      throw new BurnError(
        'backward',
        'the tensor is not tracked: no input requires grad (call requireGrad() on a leaf first)',
      );
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

  fromData(data: TensorData): AdTensor {
    return this.plain(this.innerBackend.fromData(data));
  }
  toData(p: AdTensor): Promise<TensorData> {
    return this.innerBackend.toData(p.inner);
  }
  toDataSync(p: AdTensor): TensorData | undefined {
    return this.innerBackend.toDataSync(p.inner);
  }
  /** The inner backend's reads in one round trip where it has them. */
  toDataMany(ps: readonly AdTensor[]): Promise<TensorData[]> {
    const inner = this.innerBackend;
    return inner.toDataMany
      ? inner.toDataMany(ps.map((p) => p.inner))
      : Promise.all(ps.map((p) => inner.toData(p.inner)));
  }
  viewDataSync(p: AdTensor): TensorData | undefined {
    return this.innerBackend.viewDataSync?.(p.inner);
  }
  fill(shape: readonly number[], value: number, dtype: DType): AdTensor {
    return this.plain(this.innerBackend.fill(shape, value, dtype));
  }
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
    return this.record({
      inputs: [p],
      forward: ([x]) => this.innerBackend.reshape(x!, shape),
      cost: 'memory-bound',
      backward: (g) => [reshapeGrad(this.innerBackend, g, from)],
    });
  }
  permute(p: AdTensor, axes: readonly number[]): AdTensor {
    return this.record({
      inputs: [p],
      forward: ([x]) => this.innerBackend.permute(x!, axes),
      cost: 'memory-bound',
      backward: (g) => [permuteGrad(this.innerBackend, g, axes)],
    });
  }
  expand(p: AdTensor, shape: readonly number[]): AdTensor {
    const from = p.shape;
    return this.record({
      inputs: [p],
      forward: ([x]) => this.innerBackend.expand(x!, shape),
      cost: 'memory-bound',
      backward: (g) => [expandGrad(this.innerBackend, g, from)],
    });
  }
  slice(p: AdTensor, specs: SliceSpecs): AdTensor {
    const meta = { shape: p.shape, dtype: p.dtype };
    return this.record({
      inputs: [p],
      forward: ([x]) => this.innerBackend.slice(x!, specs),
      cost: 'memory-bound',
      backward: (g) => [sliceGrad(this.innerBackend, g, meta, specs)],
    });
  }
  sliceAssign(p: AdTensor, specs: SliceSpecs, values: AdTensor): AdTensor {
    const meta = { shape: values.shape, dtype: values.dtype };
    return this.record({
      inputs: [p, values],
      forward: ([x, v]) => this.innerBackend.sliceAssign(x!, specs, v!),
      cost: 'memory-bound',
      backward: (g) => sliceAssignGrad(this.innerBackend, g, specs, meta),
    });
  }
  cat(ps: readonly AdTensor[], dim: number): AdTensor {
    const sizes = ps.map((p) => p.shape[dim]!);
    return this.record({
      inputs: ps,
      forward: (xs) => this.innerBackend.cat(xs, dim),
      cost: 'memory-bound',
      backward: (g) => catGrad(this.innerBackend, g, sizes, dim),
    });
  }

  // --- elementwise ---

  unary(op: UnaryOp, p: AdTensor): AdTensor {
    const r = UNARY_RULES[op],
      b = this.innerBackend;
    const inputs = [p],
      cost = 'memory-bound',
      forward = ([x]: P[]) => b.unary(op, x!);
    // Each rule saves the input `x`, the output `out`, or nothing.
    switch (r.save) {
      case 'x':
        return this.record({ inputs, forward, cost, save: { x: 0 }, backward: (g, saved) => [r.grad(b, g, saved)] });
      case 'out':
        return this.record({
          inputs,
          forward,
          cost,
          save: { out: 'out' },
          backward: (g, saved) => [r.grad(b, g, saved)],
        });
      case 'none': {
        const grad = r.grad;
        return this.record({ inputs, forward, cost, backward: grad && ((g) => [grad(b, g)]) });
      }
    }
  }
  predicate(op: PredicateOp, p: AdTensor): AdTensor {
    return this.plain(this.innerBackend.predicate(op, p.inner));
  }
  binary(op: BinaryOp, a: AdTensor, b: AdTensor): AdTensor {
    return this.binaryWith(op, a, b, ([x, y]) => this.innerBackend.binary(op, x!, y!));
  }
  override binaryScalar(op: BinaryOp, a: AdTensor, scalar: number): AdTensor {
    if (!a.node) return this.plain(this.innerBackend.binaryScalar(op, a.inner, scalar));
    return this.binaryWith(op, a, this.fill([], scalar, a.dtype), ([x]) =>
      this.innerBackend.binaryScalar(op, x!, scalar),
    );
  }
  private binaryWith(op: BinaryOp, a: AdTensor, b: AdTensor, forward: (vals: P[]) => P): AdTensor {
    const r = BINARY_RULES[op];
    const grad = r.grad;
    const aShape = a.shape,
      bShape = b.shape;
    // The operands are inputs 0 and 1; a rule reads the names it saves.
    const save: Partial<Record<BinarySaved, SaveSource>> = {};
    for (const k of r.save) save[k] = k === 'a' ? 0 : k === 'b' ? 1 : 'out';
    const backward: Backward<BinarySaved> | undefined =
      grad &&
      ((g, saved, needs) => {
        const [ga, gb] = grad(this.innerBackend, g, saved, needs);
        return reduceBinary(this.innerBackend, [needs[0] ? ga : undefined, needs[1] ? gb : undefined], aShape, bShape);
      });
    return this.record<BinarySaved>({
      inputs: [a, b],
      forward,
      cost: 'memory-bound',
      save: save as Record<BinarySaved, SaveSource>,
      backward,
    });
  }
  compare(op: CompareOp, a: AdTensor, b: AdTensor): AdTensor {
    return this.plain(this.innerBackend.compare(op, a.inner, b.inner));
  }
  override compareScalar(op: CompareOp, a: AdTensor, scalar: number): AdTensor {
    return this.plain(this.innerBackend.compareScalar(op, a.inner, scalar));
  }
  where(cond: AdTensor, a: AdTensor, b: AdTensor): AdTensor {
    const aShape = a.shape,
      bShape = b.shape;
    return this.record({
      inputs: [cond, a, b],
      forward: ([c, x, y]) => this.innerBackend.where(c!, x!, y!),
      cost: 'memory-bound',
      save: { cond: 0 },
      backward: (g, { cond }, needs) => [
        undefined,
        ...whereGrad(this.innerBackend, g, cond, aShape, bShape, needs[1]!, needs[2]!),
      ],
    });
  }
  cast(p: AdTensor, dtype: DType): AdTensor {
    const from = p.dtype;
    // Only a float-to-float cast passes a gradient.
    const backward: Backward | undefined =
      isFloatDType(from) && isFloatDType(dtype) ? (g) => [this.innerBackend.cast(g, from)] : undefined;
    return this.record({
      inputs: [p],
      forward: ([x]) => this.innerBackend.cast(x!, dtype),
      cost: 'memory-bound',
      backward,
    });
  }

  // --- reductions ---

  reduce(op: ReduceOp, p: AdTensor, dims: readonly number[]): AdTensor {
    const b = this.innerBackend,
      inputs = [p],
      cost = 'memory-bound',
      forward = ([x]: P[]) => b.reduce(op, x!, dims);
    // A sum's gradient reads only the input's shape; the others read the input and the output.
    if (op === 'sum') {
      const meta = { shape: p.shape, dtype: p.dtype } as P;
      return this.record({ inputs, forward, cost, backward: (g) => [reduceGrad(b, op, g, { x: meta, out: g }, dims)] });
    }
    return this.record({
      inputs,
      forward,
      cost,
      save: { x: 0, out: 'out' },
      backward: (g, saved) => [reduceGrad(b, op, g, saved, dims)],
    });
  }
  argReduce(op: ArgOp, p: AdTensor, dim: number): AdTensor {
    return this.plain(this.innerBackend.argReduce(op, p.inner, dim));
  }
  scan(op: ScanOp, p: AdTensor, dim: number): AdTensor {
    const b = this.innerBackend,
      inputs = [p],
      cost = 'memory-bound',
      forward = ([x]: P[]) => b.scan(op, x!, dim);
    // As reduce: a cumulative sum's gradient reads only the input's shape.
    if (op === 'sum') {
      const meta = { shape: p.shape, dtype: p.dtype } as P;
      return this.record({ inputs, forward, cost, backward: (g) => [scanGrad(b, op, g, { x: meta, out: meta }, dim)] });
    }
    return this.record({
      inputs,
      forward,
      cost,
      save: { x: 0, out: 'out' },
      backward: (g, saved) => [scanGrad(b, op, g, saved, dim)],
    });
  }

  // --- indexing ---

  gather(p: AdTensor, dim: number, indices: AdTensor): AdTensor {
    const meta = { shape: p.shape, dtype: p.dtype };
    return this.record({
      inputs: [p, indices],
      forward: ([x, i]) => this.innerBackend.gather(x!, dim, i!),
      cost: 'memory-bound',
      save: { indices: 1 },
      backward: (g, saved) => [gatherGrad(this.innerBackend, g, meta, dim, saved.indices), undefined],
    });
  }
  /**
   * Indices selecting empty slices (another dim is 0) reach no gather element: they go through the
   * inner select, which checks them (on the device where it cannot read them here). The result is
   * empty, so the input's gradient from it is zeros.
   */
  override select(p: AdTensor, dim: number, indices: AdTensor): AdTensor {
    if (!selectsEmptySlices(p.shape, dim, indices)) return super.select(p, dim, indices);
    const meta = { shape: p.shape, dtype: p.dtype };
    return this.record({
      inputs: [p, indices],
      forward: ([x, i]) => this.innerBackend.select(x!, dim, i!),
      cost: 'memory-bound',
      backward: () => [this.innerBackend.fill(meta.shape, 0, meta.dtype), undefined],
    });
  }
  /** As {@link select}: the inner selectAssign checks indices selecting empty slices; both gradients are empty. */
  override selectAssign(op: ScatterOp, p: AdTensor, dim: number, indices: AdTensor, values: AdTensor): AdTensor {
    if (!selectsEmptySlices(p.shape, dim, indices)) return super.selectAssign(op, p, dim, indices, values);
    const pm = { shape: p.shape, dtype: p.dtype },
      vm = { shape: values.shape, dtype: values.dtype };
    return this.record({
      inputs: [p, indices, values],
      forward: ([x, i, v]) => this.innerBackend.selectAssign(op, x!, dim, i!, v!),
      cost: 'memory-bound',
      backward: () => [
        this.innerBackend.fill(pm.shape, 0, pm.dtype),
        undefined,
        this.innerBackend.fill(vm.shape, 0, vm.dtype),
      ],
    });
  }
  scatter(op: ScatterOp, p: AdTensor, dim: number, indices: AdTensor, values: AdTensor): AdTensor {
    return this.record({
      inputs: [p, indices, values],
      forward: ([x, i, vals]) => this.innerBackend.scatter(op, x!, dim, i!, vals!),
      cost: 'memory-bound',
      save: { x: 0, indices: 1, values: 2, out: 'out' },
      backward: (g, s) => {
        const [gx, gv] = scatterGrad(this.innerBackend, op, g, s, dim);
        return [gx, undefined, gv];
      },
    });
  }

  // --- matmul, sort ---

  matmul(a: AdTensor, b: AdTensor): AdTensor {
    return this.record({
      inputs: [a, b],
      forward: ([x, y]) => this.innerBackend.matmul(x!, y!),
      cost: 'compute-bound',
      save: { lhs: 0, rhs: 1 },
      backward: (g, saved, needs) => matmulGrad(this.innerBackend, g, saved, needs),
    });
  }
  sort(p: AdTensor, dim: number, descending: boolean): [AdTensor, AdTensor] {
    const [values, indices] = this.innerBackend.sort(p.inner, dim, descending);
    // Compute-bound, so `forward` never runs again: it hands out the values sorted with the indices.
    const tracked = this.record({
      inputs: [p],
      forward: () => values,
      cost: 'compute-bound',
      save: { indices },
      backward: (g, saved) => [sortGrad(this.innerBackend, g, dim, saved.indices)],
    });
    return [tracked, this.plain(indices)];
  }

  // --- composites with a dedicated rule (cheaper than differentiating the default) ---

  override softmax(p: AdTensor, dim: number): AdTensor {
    // dx = y * (g - sum(g * y))
    const b = this.innerBackend;
    return this.record({
      inputs: [p],
      forward: ([x]) => b.softmax(x!, dim),
      cost: 'memory-bound',
      save: { y: 'out' },
      backward: (g, { y }) => {
        const gy = b.binary('mul', g, y);
        return [b.binary('sub', gy, b.binary('mul', y, b.reduce('sum', gy, [dim])))];
      },
    });
  }
  override logSoftmax(p: AdTensor, dim: number): AdTensor {
    // dx = g - softmax(x) * sum(g)
    const b = this.innerBackend;
    return this.record({
      inputs: [p],
      forward: ([x]) => b.logSoftmax(x!, dim),
      cost: 'memory-bound',
      save: { out: 'out' },
      backward: (g, { out }) => [b.binary('sub', g, b.binary('mul', b.unary('exp', out), b.reduce('sum', g, [dim])))],
    });
  }

  /** ReLU as one node: the gradient is read from the output (0 where it is 0, as PyTorch). */
  override relu(p: AdTensor): AdTensor {
    return this.record({
      inputs: [p],
      forward: ([x]) => this.innerBackend.relu(x!),
      cost: 'memory-bound',
      save: { out: 'out' },
      backward: (g, { out }) => [this.innerBackend.reluBackward(out, g)],
    });
  }

  override conv(x: AdTensor, weight: AdTensor, bias: AdTensor | undefined, options: ConvOptions): AdTensor {
    const inputs = bias ? [x, weight, bias] : [x, weight];
    return this.record({
      inputs,
      forward: ([a, w, c]) => this.innerBackend.conv(a!, w!, c, options),
      cost: 'compute-bound',
      save: { x: 0, weight: 1 },
      // The rule gives a bias gradient too; it is kept only where there is a bias input.
      backward: (g, saved, needs) => convGrad(this.innerBackend, g, saved, needs, options).slice(0, inputs.length),
    });
  }
  override convTranspose(
    x: AdTensor,
    weight: AdTensor,
    bias: AdTensor | undefined,
    options: ConvTransposeOptions,
  ): AdTensor {
    const inputs = bias ? [x, weight, bias] : [x, weight];
    return this.record({
      inputs,
      forward: ([a, w, c]) => this.innerBackend.convTranspose(a!, w!, c, options),
      cost: 'compute-bound',
      save: { x: 0, weight: 1 },
      backward: (g, saved, needs) =>
        convTransposeGrad(this.innerBackend, g, saved, needs, options).slice(0, inputs.length),
    });
  }
  override maxPool(x: AdTensor, options: MaxPoolOptions): AdTensor {
    return this.maxPoolWithIndices(x, options)[0];
  }
  override maxPoolWithIndices(x: AdTensor, options: MaxPoolOptions): [AdTensor, AdTensor] {
    const [out, indices] = this.innerBackend.maxPoolWithIndices(x.inner, options);
    const shape = x.shape;
    const tracked = this.record({
      inputs: [x],
      forward: () => out,
      cost: 'compute-bound',
      save: { indices },
      backward: (g, saved) => [maxPoolGrad(this.innerBackend, g, shape, saved.indices)],
    });
    return [tracked, this.plain(indices)];
  }

  // --- user-defined ops ---

  /** The inner backend's forward of a custom op, recorded with the op's backward rule (./custom.ts); undefined where the inner declines. */
  customOp(call: CustomCall, inputs: readonly AdTensor[]): AdTensor | undefined {
    return recordCustomOp(this, call, inputs);
  }
}
