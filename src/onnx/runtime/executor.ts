import { runScope } from '../../backend/memory.js';
import { Device } from '../../device/device.js';
import type { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Graph } from '../ir/types.js';
import { mirror, mirrored } from '../ops/host-mirror.js';
import { SequenceValue, type AnyTensor, type AsyncOpContext, type Value } from '../ops/types.js';
import { fromHost } from '../ops/util.js';
import { planOf, type GraphPlan, type Step } from './plan.js';
import { Scope } from './scope.js';

/** Shape computations up to this many elements run on the host CPU, whatever the model's device. */
const HOST_LIMIT = 1 << 16;

/** What a run needs besides the graph. */
export interface RunEnv {
  /** The opsets (for subgraph plans). */
  readonly opsets: ReadonlyMap<string, number>;
  /** Dispose intermediate device tensors after their last use (off on autodiff devices, whose backward pass needs them). */
  readonly release: boolean;
  /** Run activations inside the convolution before them (default true; false keeps every value of the graph). */
  readonly fuse?: boolean;
}

/** Ops that read only their input's shape and dtype, never its values: computed on the host from device tensors. */
const SHAPE_ONLY = new Set(['Shape', 'Size']);

class StepContext implements AsyncOpContext {
  constructor(
    private readonly step: Step,
    private readonly scope: Scope,
    readonly device: Device,
    private readonly env: RunEnv,
    private readonly hostInputs: readonly (TensorData | undefined)[] | undefined,
  ) {}

  get node() {
    return this.step.node;
  }
  get attrs() {
    return this.step.attrs;
  }
  get opset() {
    return this.step.opset;
  }

  host(i: number): TensorData | undefined {
    const name = this.step.node.inputs[i];
    if (!name) return undefined;
    return this.hostInputs?.[i] ?? this.scope.host(name, this.step.node.name);
  }

  ints(i: number): number[] | undefined {
    const d = this.host(i);
    return d ? Array.from(d.toArray()) : undefined;
  }

  floats(i: number): number[] | undefined {
    return this.ints(i);
  }

  runSubgraph(name: string, inputs: readonly (Value | undefined)[]): Value[] {
    return this.runGraph(this.step.attrs.requireGraph(name), inputs);
  }

  runGraph(graph: Graph, inputs: readonly (Value | undefined)[]): Value[] {
    const inner = this.innerScope(graph, inputs);
    runSteps(planOf(graph, this.env.opsets, this.env.fuse !== false), inner, this.env);
    return this.results(graph, inner);
  }

  async runGraphAsync(graph: Graph, inputs: readonly (Value | undefined)[]): Promise<Value[]> {
    const inner = this.innerScope(graph, inputs);
    await runStepsAsync(planOf(graph, this.env.opsets, this.env.fuse !== false), inner, this.env);
    return this.results(graph, inner);
  }

  async read(t: AnyTensor): Promise<TensorData> {
    const known = mirrored(t);
    if (known) return known;
    const d = await t.toData();
    mirror(t, d);
    return d;
  }

  private innerScope(graph: Graph, inputs: readonly (Value | undefined)[]): Scope {
    const inner = new Scope(this.scope.device, this.scope);
    graph.inputs.forEach((v, i) => inner.set(v.name, inputs[i]));
    for (const [name, c] of graph.initializers) if (c.data) inner.setHost(name, c.data);
    return inner;
  }

  private results(graph: Graph, inner: Scope): Value[] {
    return graph.outputs.map((o) => {
      const v = inner.get(o.name);
      if (v === undefined)
        throw new BurnError(
          'onnx',
          `subgraph '${graph.name}' of node '${this.step.node.name}' produced no value for output '${o.name}'`,
        );
      return v;
    });
  }
}

let hostDevice: Device | undefined;

/** The host CPU device used for shape computations. */
function host(): Device {
  hostDevice ??= Device.cpu();
  return hostDevice;
}

/** Runs the steps of `plan` in order, reading and writing `scope`. */
export function runSteps(plan: GraphPlan, scope: Scope, env: RunEnv): void {
  plan.steps.forEach((step, i) => {
    runStep(step, scope, env);
    if (env.release) for (const name of plan.releaseAfter[i]!) scope.release(name);
  });
}

/**
 * {@link runSteps} for devices that read asynchronously (WebGPU): before each step, the inputs it
 * reads on the host (shapes, axes, conditions, or all of them for data-dependent ops) are read
 * with `await toData()`, and control flow (`If`, `Loop`, `Scan`, `SequenceMap`) runs its
 * subgraphs the same way.
 */
export async function runStepsAsync(plan: GraphPlan, scope: Scope, env: RunEnv): Promise<void> {
  for (let i = 0; i < plan.steps.length; i++) {
    const step = plan.steps[i]!;
    const wanted = step.def.readsValues ? step.node.inputs.map((_, k) => k) : (step.def.hostInputs ?? []);
    for (const k of wanted) {
      const name = step.node.inputs[k];
      if (!name || scope.knownHost(name)) continue;
      const v = scope.get(name);
      if (v instanceof Tensor) scope.cacheHost(name, await (v as AnyTensor).toData());
    }
    const call = prepare(step, scope, env);
    if (step.def.runAsync && !call.onHost) {
      let outputs: readonly (Value | undefined)[];
      try {
        outputs = await step.def.runAsync(call.ctx, call.inputs);
      } catch (e) {
        throw nodeError(step, e);
      }
      store(step, scope, env, call, outputs);
    } else finish(step, scope, env, call);
    if (env.release) for (const name of plan.releaseAfter[i]!) scope.release(name);
  }
}

function nodeError(step: Step, e: unknown): unknown {
  const msg = e instanceof Error ? e.message : String(e);
  if (msg.includes(`node '${step.node.name}'`)) return e;
  // A device that reads only asynchronously (WebGPU) met an op that needs values on the host.
  const hint = msg.includes('cannot read synchronously')
    ? '; this node needs values on the host: use model.runAsync on this device'
    : '';
  return new BurnError('onnx', `node '${step.node.name}' (${step.node.opType}): ${msg}${hint}`);
}

/**
 * The backend handles a step received (directly or inside sequences): an output holding one of
 * them was passed through (Identity, a reshape to the same shape…), not created.
 */
function received(inputs: readonly (Value | undefined)[]): Set<unknown> {
  const out = new Set<unknown>();
  for (const v of inputs) {
    if (v instanceof SequenceValue) for (const t of v.items) out.add(t.primitive);
    else if (v instanceof Tensor) out.add((v as AnyTensor).primitive);
  }
  return out;
}

function numelOf(d: TensorData): number {
  return d.values.length;
}

/** A step ready to call: its inputs, its context, and whether it computes on the host CPU. */
interface Call {
  readonly ctx: StepContext;
  readonly inputs: readonly (Value | undefined)[];
  readonly onHost: boolean;
  readonly device: Device;
}

function prepare(step: Step, scope: Scope, env: RunEnv): Call {
  const { node, def } = step;
  // A node whose inputs are all small host values (shape arithmetic) runs on the host CPU.
  let hostIns: (TensorData | undefined)[] | undefined;
  if (!step.control && !def.random) {
    hostIns = [];
    let total = 0;
    for (const name of node.inputs) {
      if (!name) {
        hostIns.push(undefined);
        continue;
      }
      const h = scope.knownHost(name);
      if (!h) {
        hostIns = undefined;
        break;
      }
      total += numelOf(h);
      hostIns.push(h);
    }
    if (hostIns && total > HOST_LIMIT) hostIns = undefined;
  }
  const shapeOnly = SHAPE_ONLY.has(node.opType) && node.domain === '';
  const onHost = hostIns !== undefined || shapeOnly;
  const device = onHost ? host() : scope.device;
  const inputs: (Value | undefined)[] = node.inputs.map((name, i) => {
    if (!name) return undefined;
    if (hostIns && !shapeOnly) return Tensor.fromData(hostIns[i]!, device);
    const v = scope.get(name);
    if (v === undefined)
      throw new BurnError('onnx', `node '${node.name}' (${node.opType}) reads '${name}', which has no value`);
    return v;
  });
  return { ctx: new StepContext(step, scope, device, env, hostIns), inputs, onHost, device };
}

function runStep(step: Step, scope: Scope, env: RunEnv): void {
  finish(step, scope, env, prepare(step, scope, env));
}

function finish(step: Step, scope: Scope, env: RunEnv, call: Call): void {
  let outputs: readonly (Value | undefined)[];
  try {
    // The temporaries of a composite op (Clip's max before its min, a normalization's centered
    // input…) go back to the allocator as soon as the op returns, not at the end of the run: the
    // next op reuses their memory instead of faulting in fresh pages. Not on autodiff devices,
    // whose backward pass reads them.
    outputs = env.release ? runScope(() => step.def.run(call.ctx, call.inputs)) : step.def.run(call.ctx, call.inputs);
  } catch (e) {
    throw nodeError(step, e);
  }
  store(step, scope, env, call, outputs);
}

function store(step: Step, scope: Scope, env: RunEnv, call: Call, outputs: readonly (Value | undefined)[]): void {
  const { onHost, device, inputs } = call;
  const seen = env.release ? received(inputs) : undefined;
  step.node.outputs.forEach((name, i) => {
    if (!name) return;
    const v = outputs[i];
    if (v === undefined) return;
    if (seen && !onHost) {
      scope.set(name, v);
      if (v instanceof SequenceValue) for (const t of v.items) scope.pin(t);
      // Only what this (non-control-flow) step created may be disposed later; passed-through values are shared.
      if (step.control || (v instanceof Tensor && seen.has((v as AnyTensor).primitive))) scope.share(name);
      else scope.own(name);
      return;
    }
    if (onHost && v instanceof Tensor) {
      const t = v as AnyTensor;
      if (t.numel() <= HOST_LIMIT) {
        const data = t.toDataSync();
        if (device.equals(scope.device)) scope.setBoth(name, t, data);
        else scope.setHost(name, data);
      } else {
        scope.set(name, device.equals(scope.device) ? t : fromHost(t.toDataSync(), scope.device));
      }
      return;
    }
    if (onHost && v instanceof SequenceValue && !device.equals(scope.device)) {
      scope.set(
        name,
        new SequenceValue(
          v.items.map((t) => fromHost(t.toDataSync(), scope.device)),
          v.elem,
        ),
      );
      return;
    }
    scope.set(name, v);
  });
}
