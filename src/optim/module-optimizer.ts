import type { Module, ParamFilter } from '../module/module.js';
import type { Param, ParamId } from '../module/param.js';
import { TensorData } from '../core/data.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float, Kind } from '../tensor/kind.js';
import { checkOptions } from '../core/options.js';
import { sameShape } from '../core/shape.js';
import { Tensor } from '../tensor/tensor.js';
import {
  DEFAULT_GROUP,
  type LearningRate,
  type ModuleLearningRate,
  type Optimizer,
  type OptimizerRecord,
  type SimpleOptimizer,
} from './base.js';
import { GradientClipping, type GradientClippingConfig } from './clipping.js';
import type { GradientsParams } from './grads.js';
import {
  asTensorData,
  flattenState,
  materializeState,
  readTensors,
  stateToDevice,
  unflattenState,
  type OptimizerState,
  type StateData,
} from './state.js';

type AnyFloat = Tensor<number, Float>;

/** Options of an optimizer group. */
export interface GroupOptions {
  /** Gradient clipping of the group's parameters (none by default). */
  readonly gradClipping?: GradientClipping | GradientClippingConfig;
}

const GROUP_OPTIONS = ['gradClipping'] as const;

interface OptimizerGroup {
  readonly name: string;
  /** Undefined for the default group, which matches every parameter. */
  readonly filter: ParamFilter | undefined;
  readonly optim: SimpleOptimizer;
  gradClipping: GradientClipping | undefined;
}

/** The live state of one parameter, with the group that optimizes it. */
interface Context {
  readonly group: OptimizerGroup;
  readonly path: string;
  readonly state: OptimizerState;
}

/** A state loaded from a record, turned into tensors on the parameter's device at its next step. */
interface Pending {
  readonly path: string;
  readonly data: { readonly [field: string]: StateData };
}

/** True when `path` is selected by `filter` (the rule of `Module.freeze`). */
export function matchesFilter(filter: ParamFilter | undefined, path: string): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'string') return path === filter || path.startsWith(`${filter}.`);
  if (filter instanceof RegExp) {
    filter.lastIndex = 0;
    return filter.test(path);
  }
  return filter(path);
}

function toClipping(c: GradientClipping | GradientClippingConfig | undefined): GradientClipping | undefined {
  if (c === undefined || c instanceof GradientClipping) return c;
  return new GradientClipping(c.kind, c.value);
}

function checkLr(lr: unknown, what: string): LearningRate {
  if (typeof lr !== 'number' || !Number.isFinite(lr) || lr < 0) {
    throw new BurnError(
      'ModuleOptimizer.step',
      `the learning rate${what} must be a finite number >= 0, got ${String(lr)}`,
    );
  }
  return lr;
}

/**
 * Optimizes a whole module by applying a {@link SimpleOptimizer} to each parameter (Burn's
 * `ModuleOptimizer`, the optimizer every `XConfig.init()` returns). Per-parameter state is kept by
 * {@link ParamId}. Parameters can be routed to other optimizers by path with
 * {@link withGroup} (the last matching group wins; the `default` group takes the rest), each
 * group with its own gradient clipping and learning rate.
 *
 * On an autodiff device the update is computed on the inner device and the updated parameters are
 * fresh leaves that require grad again; frozen parameters and parameters without a gradient are
 * returned unchanged.
 */
export class ModuleOptimizer<M extends Module = Module> implements Optimizer<M> {
  private readonly groupList: OptimizerGroup[];
  private contexts = new Map<ParamId, Context>();
  private pending = new Map<ParamId, Pending>();
  /** Module path → id of the pending states. */
  private pendingPaths = new Map<string, ParamId>();

  /** Wraps `optimizer` as the `default` group (all parameters). */
  constructor(optimizer: SimpleOptimizer, options: GroupOptions = {}) {
    checkOptions(options, GROUP_OPTIONS, 'ModuleOptimizer');
    this.groupList = [
      {
        name: DEFAULT_GROUP,
        filter: undefined,
        optim: optimizer as SimpleOptimizer,
        gradClipping: toClipping(options.gradClipping),
      },
    ];
  }

  /**
   * Routes the parameters whose path matches `filter` (a prefix such as `'encoder'`, a RegExp or
   * a predicate, as `Module.freeze` takes) to `optimizer`, as the group `name` (Burn's
   * `with_group`). A later group wins over an earlier one; the states of the parameters it takes
   * over are reset. Returns this optimizer.
   */
  withGroup(name: string, filter: ParamFilter, optimizer: SimpleOptimizer, options: GroupOptions = {}): this {
    checkOptions(options, GROUP_OPTIONS, 'ModuleOptimizer.withGroup');
    if (typeof name !== 'string' || name === '')
      throw new BurnError('ModuleOptimizer.withGroup', `a group needs a non-empty name, got ${JSON.stringify(name)}`);
    if (this.groupList.some((g) => g.name === name)) {
      throw new BurnError(
        'ModuleOptimizer.withGroup',
        `a group named '${name}' exists already (groups: ${this.groupNames()
          .map((n) => `'${n}'`)
          .join(', ')})`,
      );
    }
    const group: OptimizerGroup = {
      name,
      filter,
      optim: optimizer as SimpleOptimizer,
      gradClipping: toClipping(options.gradClipping),
    };
    this.groupList.push(group);
    for (const [id, ctx] of this.contexts) if (matchesFilter(filter, ctx.path)) this.contexts.delete(id);
    for (const [id, p] of this.pending) {
      if (matchesFilter(filter, p.path)) {
        this.pending.delete(id);
        this.pendingPaths.delete(p.path);
      }
    }
    return this;
  }

  /** Sets the gradient clipping of the `default` group (Burn's `with_grad_clipping`). */
  withGradClipping(clipping: GradientClipping | GradientClippingConfig): this {
    this.groupList[0]!.gradClipping = toClipping(clipping);
    return this;
  }

  /** The gradient clipping of the `default` group. */
  gradClipping(): GradientClipping | undefined {
    return this.groupList[0]!.gradClipping;
  }

  /** True when any group clips gradients. */
  hasGradientClipping(): boolean {
    return this.groupList.some((g) => g.gradClipping !== undefined);
  }

  /** The group names, `default` first. */
  groupNames(): string[] {
    return this.groupList.map((g) => g.name);
  }

  /** The name of the group that optimizes the parameter at `path` (ignoring states already kept). */
  groupOf(path: string): string {
    return this.groupFor(path).name;
  }

  private groupFor(path: string): OptimizerGroup {
    for (let i = this.groupList.length - 1; i > 0; i--) {
      const g = this.groupList[i]!;
      if (matchesFilter(g.filter, path)) return g;
    }
    return this.groupList[0]!;
  }

  /** Validates `lr` and returns the rate of each group. */
  private rates(lr: ModuleLearningRate): Map<string, LearningRate> {
    const out = new Map<string, LearningRate>();
    if (typeof lr === 'number') {
      checkLr(lr, '');
      for (const g of this.groupList) out.set(g.name, lr);
      return out;
    }
    if (typeof lr !== 'object' || lr === null) checkLr(lr, '');
    const names = this.groupNames();
    for (const [name, value] of Object.entries(lr)) {
      if (!names.includes(name)) {
        throw new BurnError(
          'ModuleOptimizer.step',
          `learning rate for unknown parameter group '${name}'; the groups are ${names.map((n) => `'${n}'`).join(', ')}`,
        );
      }
      out.set(name, checkLr(value, ` of group '${name}'`));
    }
    const base = out.get(DEFAULT_GROUP);
    if (base === undefined) {
      throw new BurnError(
        'ModuleOptimizer.step',
        `the learning rates ${JSON.stringify(lr)} have no '${DEFAULT_GROUP}' entry (it covers the groups not listed)`,
      );
    }
    for (const name of names) if (!out.has(name)) out.set(name, base);
    return out;
  }

  /** Updates every trainable parameter of `module` that has a gradient in `grads`; returns the new module. */
  step<T extends M>(lr: ModuleLearningRate, module: T, grads: GradientsParams): T {
    const rates = this.rates(lr);
    return module.map((param, path) => this.stepParam(param, path, grads, rates));
  }

  private stepParam(param: Param, path: string, grads: GradientsParams, rates: Map<string, LearningRate>): Param {
    if (!param.requireGrad) return param;
    let grad = grads.get(param.id);
    if (grad === undefined) return param;
    const value = param.val() as AnyFloat;
    const device = value.device();
    const inner = value.inner();
    if (!sameShape(grad.dims(), inner.dims())) {
      throw new BurnError(
        'ModuleOptimizer.step',
        `the gradient of '${path}' has shape ${fmt(grad.dims())}; the parameter has shape ${fmt(inner.dims())}`,
      );
    }
    if (!grad.device().equals(inner.device())) grad = grad.toDevice(inner.device());

    let ctx = this.contexts.get(param.id);
    let state: OptimizerState | undefined;
    let group: OptimizerGroup;
    if (ctx !== undefined) {
      group = ctx.group;
      state = stateToDevice(ctx.state, inner.device());
    } else {
      group = this.groupFor(path);
      // A loaded state is found by id, or else by path: a model rebuilt from its record in
      // another process has new parameter ids (module records do not keep them).
      const key = this.pending.has(param.id) ? param.id : this.pendingPaths.get(path);
      const loaded = key === undefined ? undefined : this.pending.get(key);
      if (key !== undefined && loaded !== undefined) {
        state = materializeState(loaded.data, inner.device());
        this.pending.delete(key);
        this.pendingPaths.delete(loaded.path);
      }
    }
    const clipped = group.gradClipping ? group.gradClipping.clipGradient(grad) : grad;
    let result;
    try {
      // A scope releases the update's intermediates at once on devices with their own memory (WebGPU).
      result = Tensor.scope(() => group.optim.step(rates.get(group.name)!, inner, clipped, state));
    } catch (e) {
      if (e instanceof BurnError)
        throw new BurnError(e.op, `${e.message.slice(e.op.length + 2)} (parameter '${path}', group '${group.name}')`);
      throw e;
    }
    if (result.state !== undefined) {
      // The state outlives the caller's scopes, as the parameters do (Param keeps its tensor).
      ctx = { group, path, state: Tensor.keep(result.state) };
      this.contexts.set(param.id, ctx);
    } else {
      this.contexts.delete(param.id);
    }
    const updated = device.isAutodiff() ? Tensor.fromInner(result.tensor, device) : result.tensor;
    return param.withTensor(updated as Tensor<number, Kind>);
  }

  /** The state of every parameter (tensors read back). */
  async toRecord(): Promise<OptimizerRecord> {
    const tensors: [string, AnyFloat][] = [];
    const scalars: Record<string, number> = {};
    const paths: Record<string, string> = {};
    const data: Record<string, TensorData> = {};
    for (const [id, ctx] of this.contexts) {
      const s: [string, number][] = [];
      flattenState(ctx.state, id, tensors, s);
      for (const [k, v] of s) scalars[k] = v;
      paths[id] = ctx.path;
    }
    for (const [id, p] of this.pending) {
      const walk = (v: StateData, name: string): void => {
        if (v === undefined) return;
        if (v instanceof TensorData) data[name] = v;
        else if (typeof v === 'number') scalars[name] = v;
        else if (Array.isArray(v)) (v as readonly StateData[]).forEach((x, i) => walk(x, `${name}.${i}`));
        else for (const [k, x] of Object.entries(v as { readonly [field: string]: StateData })) walk(x, `${name}.${k}`);
      };
      walk(p.data, id);
      paths[id] = p.path;
    }
    return { tensors: { ...data, ...(await readTensors(tensors)) }, scalars, paths };
  }

  /**
   * Replaces the state with `record` (Burn's `load_record`). State tensors are created on each
   * parameter's device at its next step; each parameter's group is found again from its path.
   * A state is matched to its parameter by id, or else by module path (so a model rebuilt from its
   * record, with new ids, resumes with its saved optimizer state).
   */
  loadRecord(record: OptimizerRecord): this {
    if (
      typeof record !== 'object' ||
      record === null ||
      typeof record.tensors !== 'object' ||
      typeof record.scalars !== 'object' ||
      typeof record.paths !== 'object'
    ) {
      throw new BurnError('ModuleOptimizer.loadRecord', 'the record must have tensors, scalars and paths');
    }
    const ids = Object.keys(record.paths);
    const entries = new Map<string, [string, TensorData | number][]>(ids.map((id) => [id, []]));
    const owner = (name: string): [string, string] => {
      const dot = name.indexOf('.');
      const id = dot < 0 ? name : name.slice(0, dot);
      if (!entries.has(id))
        throw new BurnError(
          'ModuleOptimizer.loadRecord',
          `record entry '${name}' belongs to no parameter of the record (ids: ${ids.join(', ') || 'none'})`,
        );
      return [id, name.slice(dot + 1)];
    };
    for (const [name, value] of Object.entries(record.tensors)) {
      const data = asTensorData(value);
      if (data === undefined)
        throw new BurnError('ModuleOptimizer.loadRecord', `record tensor '${name}' is not TensorData`);
      const [id, field] = owner(name);
      entries.get(id)!.push([field, data]);
    }
    for (const [name, value] of Object.entries(record.scalars)) {
      if (typeof value !== 'number')
        throw new BurnError('ModuleOptimizer.loadRecord', `record scalar '${name}' is not a number (${String(value)})`);
      const [id, field] = owner(name);
      entries.get(id)!.push([field, value]);
    }
    this.contexts = new Map();
    this.pending = new Map();
    this.pendingPaths = new Map();
    for (const [id, list] of entries) {
      const path = record.paths[id];
      if (typeof path !== 'string')
        throw new BurnError(
          'ModuleOptimizer.loadRecord',
          `the path of parameter ${id} is not a string (${String(path)})`,
        );
      this.pending.set(id, { path, data: unflattenState(list) });
      this.pendingPaths.set(path, id);
    }
    return this;
  }
}

/** Builds the `ModuleOptimizer` of an optimizer config (`XConfig.init()`). */
export function moduleOptimizer<M extends Module>(
  optimizer: SimpleOptimizer,
  gradClipping: GradientClippingConfig | undefined,
): ModuleOptimizer<M> {
  return new ModuleOptimizer<M>(optimizer, gradClipping === undefined ? {} : { gradClipping });
}
