import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param } from '../../module/param.js';
import type { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Kind } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Dim, ElemType, Model, ValueInfo } from '../ir/types.js';
import { isSupportedElem } from '../parse/dtype.js';
import { NoneValue, SequenceValue, type AnyTensor, type Value } from '../ops/types.js';
import { deviceDType } from '../ops/device-dtype.js';
import { runSteps, runStepsAsync } from './executor.js';
import type { GraphPlan } from './plan.js';
import { Scope } from './scope.js';

const OP = 'OnnxModel.run';

/** A graph input or output as the model declares it: symbolic dims are names (`'batch'`), unknown dims `undefined`. */
export interface OnnxValueInfo {
  readonly name: string;
  /** The element type (`'f32'`, `'i64'`, …), or an ONNX type burn-ts cannot hold (`'string'`), or `'sequence'`/`'optional'`. */
  readonly dtype: ElemType | 'sequence' | 'optional' | 'unknown';
  /** Sizes, symbolic names (`'batch'`), or undefined for unknown dims; empty for scalars and when the rank is unknown. */
  readonly shape: readonly (number | string | undefined)[];
  /** False when the model declares no rank for the value (then `shape` is empty). */
  readonly rankKnown: boolean;
}

/** A value given to or returned by {@link OnnxModel.runValues}: a tensor, a sequence (array) of tensors, or undefined for an empty optional. */
export type OnnxValue = Tensor<number, Kind> | Tensor<number, Kind>[] | undefined;

/** Everything a loaded model shares between its copies (a module copy made by `map`/`toDevice` shares it). */
export class OnnxPlan {
  constructor(
    readonly model: Model,
    readonly plan: GraphPlan,
    /** Parameter initializers and their paths in the module. */
    readonly paramPaths: ReadonlyMap<string, readonly string[]>,
    /** Host values of the non-parameter initializers (and folded constants). */
    readonly constants: ReadonlyMap<string, TensorData>,
    readonly inputs: readonly OnnxValueInfo[],
    readonly outputs: readonly OnnxValueInfo[],
    readonly device: Device,
  ) {}
}

/** Describes a declared value for `inputs` / `outputs`. */
export function describe(v: ValueInfo): OnnxValueInfo {
  const t = v.type;
  if (!t) return { name: v.name, dtype: 'unknown', shape: [], rankKnown: false };
  if (t.kind === 'tensor')
    return { name: v.name, dtype: t.elem, shape: t.shape ? [...t.shape] : [], rankKnown: t.shape !== undefined };
  if (t.kind === 'sequence' || t.kind === 'optional')
    return { name: v.name, dtype: t.kind, shape: [], rankKnown: false };
  return { name: v.name, dtype: 'unknown', shape: [], rankKnown: false };
}

function toValue(v: OnnxValue | Value): Value | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return new SequenceValue(v, v[0]?.dtype());
  return v as Value;
}

function fromValue(v: Value | undefined): OnnxValue {
  if (v === undefined || v instanceof NoneValue) return undefined;
  if (v instanceof SequenceValue) return [...v.items];
  return v as Tensor<number, Kind>;
}

/**
 * An ONNX model loaded by `loadOnnx`: a {@link Module} whose float initializers are parameters
 * (named as in the model, `conv1.weight` nested as `conv1` → `weight`), so it moves between
 * devices, trains on an autodiff device and saves as burnpack like any module. `run` is
 * synchronous, like every tensor op.
 */
export class OnnxModel extends Module {
  /** @internal The shared graph plan (a constant of the module, not a parameter). */
  readonly onnx: OnnxPlan;

  /** @internal Use `loadOnnx`. */
  constructor(plan: OnnxPlan, params: Record<string, unknown>) {
    super();
    this.onnx = plan;
    Object.assign(this, params);
  }

  /** The graph inputs the model needs (initializers excluded), in order. */
  get inputs(): readonly OnnxValueInfo[] {
    return this.onnx.inputs;
  }

  /** The graph outputs, in order. */
  get outputs(): readonly OnnxValueInfo[] {
    return this.onnx.outputs;
  }

  /** The opset versions the model imports, by domain (`''` is ONNX's default domain). */
  get opsets(): ReadonlyMap<string, number> {
    return this.onnx.model.opsets;
  }

  /** The parameter tensor of initializer `name` in this copy of the module. */
  private paramOf(path: readonly string[]): AnyTensor {
    let node: unknown = this;
    for (const p of path) node = (node as Record<string, unknown>)[p];
    return (node as Param).val();
  }

  /** The device the parameters live on (the load device when the model has none). */
  private runDevice(feeds: readonly Value[]): Device {
    for (const path of this.onnx.paramPaths.values()) return this.paramOf(path).device();
    for (const f of feeds) if (f instanceof Tensor) return (f as AnyTensor).device();
    return this.onnx.device;
  }

  /**
   * Runs the model on named input tensors and returns every graph output by name. Inputs must
   * match the declared dtypes and static dims, and a symbolic dim must have one size across all
   * inputs; anything else is a BurnError naming the input. Intermediate device tensors are
   * released after their last use (at the end of the run on autodiff devices, whose backward pass
   * needs them).
   */
  run(inputs: Readonly<Record<string, Tensor<number, Kind>>>): Record<string, Tensor> {
    return asTensors(this.runValues(inputs));
  }

  /** {@link run} for models whose inputs or outputs are sequences (arrays of tensors) or optionals (undefined when empty). */
  runValues(inputs: Readonly<Record<string, OnnxValue>>): Record<string, OnnxValue> {
    const { device, bind } = this.prepare(inputs);
    return Tensor.scope(() => {
      const scope = bind();
      runSteps(this.onnx.plan, scope, { opsets: this.onnx.model.opsets, release: !device.isAutodiff() });
      return this.collect(scope);
    });
  }

  /**
   * {@link run} on every device, including those that cannot read values synchronously (WebGPU):
   * the values an op needs on the host (a shape computed from inputs, a condition, the input of
   * NonZero…) are awaited instead of read synchronously.
   */
  async runAsync(inputs: Readonly<Record<string, Tensor<number, Kind>>>): Promise<Record<string, Tensor>> {
    return asTensors(await this.runValuesAsync(inputs));
  }

  /** {@link runValues} with the asynchronous reads of {@link runAsync}. */
  async runValuesAsync(inputs: Readonly<Record<string, OnnxValue>>): Promise<Record<string, OnnxValue>> {
    const { device, bind } = this.prepare(inputs);
    const scope = bind();
    await runStepsAsync(this.onnx.plan, scope, { opsets: this.onnx.model.opsets, release: !device.isAutodiff() });
    return this.collect(scope);
  }

  /** Checks the feeds and returns the run device and a function that binds inputs, parameters and constants in a fresh scope. */
  private prepare(inputs: Readonly<Record<string, OnnxValue>>): { device: Device; bind: () => Scope } {
    const plan = this.onnx;
    const graph = plan.model.graph;
    const expected = new Set(graph.inputs.map((i) => i.name));
    for (const name of Object.keys(inputs)) {
      if (!expected.has(name))
        throw new BurnError(
          OP,
          `unknown input '${name}'; the model's inputs are ${[...expected].map((n) => `'${n}'`).join(', ') || 'none'}`,
        );
    }
    const feeds = graph.inputs.map((info) => {
      const v = toValue(inputs[info.name]);
      const optional = info.type?.kind === 'optional';
      if (v === undefined && !optional)
        throw new BurnError(
          OP,
          `missing input '${info.name}'; the model needs ${[...expected].map((n) => `'${n}'`).join(', ')}`,
        );
      return v;
    });
    checkFeeds(graph.inputs, feeds);
    const device = this.runDevice(feeds.filter((f): f is Value => f !== undefined));
    const bind = () => {
      const scope = new Scope(device);
      graph.inputs.forEach((info, i) => scope.set(info.name, feeds[i] ?? new NoneValue(info.type)));
      for (const [name, path] of plan.paramPaths) scope.set(name, this.paramOf(path));
      // Constants go to the device when an op first reads them; shape math reads the host copy.
      for (const [name, data] of plan.constants) scope.setHost(name, data);
      return scope;
    };
    return { device, bind };
  }

  private collect(scope: Scope): Record<string, OnnxValue> {
    const out: Record<string, OnnxValue> = {};
    for (const o of this.onnx.model.graph.outputs) out[o.name] = fromValue(scope.get(o.name));
    return out;
  }

  /** One line per input and output with dtype and shape. */
  override displayAttributes(): Record<string, unknown> | undefined {
    const show = (v: OnnxValueInfo) =>
      `${v.name}: ${v.dtype}${v.rankKnown ? fmt(v.shape.map((d) => (d === undefined ? '?' : d)) as number[]) : ''}`;
    return { inputs: this.inputs.map(show).join(', '), outputs: this.outputs.map(show).join(', ') };
  }
}

/** The outputs as tensors; a sequence or empty optional output is a BurnError pointing to runValues. */
function asTensors(out: Record<string, OnnxValue>): Record<string, Tensor> {
  const result: Record<string, Tensor> = {};
  for (const [name, v] of Object.entries(out)) {
    if (v === undefined || Array.isArray(v))
      throw new BurnError(
        OP,
        `output '${name}' is ${v === undefined ? 'an empty optional' : 'a sequence'}; use runValues for models with sequence or optional outputs`,
      );
    result[name] = v as Tensor;
  }
  return result;
}

/** Checks fed tensors against the declared dtypes and dims (symbolic dims must agree across inputs). */
function checkFeeds(infos: readonly ValueInfo[], feeds: readonly (Value | undefined)[]): void {
  const symbols = new Map<string, [number, string]>();
  infos.forEach((info, i) => {
    const v = feeds[i];
    const t = info.type;
    if (!t || v === undefined) return;
    if (t.kind === 'sequence') {
      if (!(v instanceof SequenceValue))
        throw new BurnError(OP, `input '${info.name}' is a sequence; expected an array of tensors`);
      return;
    }
    if (t.kind !== 'tensor') return;
    if (!(v instanceof Tensor)) throw new BurnError(OP, `input '${info.name}' must be a tensor`);
    const x = v as AnyTensor;
    // Devices without 64-bit types take i32 (f32) where the model declares i64 (f64).
    if (
      t.elem !== 'undefined' &&
      t.elem !== (x.dtype() as DType) &&
      !(isSupportedElem(t.elem) && deviceDType(t.elem, x.device()) === x.dtype())
    ) {
      throw new BurnError(OP, `input '${info.name}' has dtype ${x.dtype()}; the model expects ${t.elem}`);
    }
    if (!t.shape) return;
    const dims = x.dims();
    const show = t.shape.map((d: Dim) => (d === undefined ? '?' : d));
    if (dims.length !== t.shape.length)
      throw new BurnError(
        OP,
        `input '${info.name}' has shape ${fmt(dims)}; the model expects rank ${t.shape.length} ([${show.join(', ')}])`,
      );
    t.shape.forEach((d, k) => {
      if (typeof d === 'number' && d !== dims[k])
        throw new BurnError(
          OP,
          `input '${info.name}' has shape ${fmt(dims)}; the model expects [${show.join(', ')}] (dim ${k} must be ${d})`,
        );
      if (typeof d === 'string') {
        const seen = symbols.get(d);
        if (seen && seen[0] !== dims[k])
          throw new BurnError(
            OP,
            `input '${info.name}' has ${d} = ${dims[k]} (dim ${k}), but input '${seen[1]}' has ${d} = ${seen[0]}; a symbolic dim has one size per run`,
          );
        if (!seen) symbols.set(d, [dims[k]!, info.name]);
      }
    });
  });
}
