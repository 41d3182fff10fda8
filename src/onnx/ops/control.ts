import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Graph } from '../ir/types.js';
import { hostData } from './host-mirror.js';
import type { TensorData } from '../../core/data.js';
import type { AnyTensor, AsyncOpContext, OpContext, OpDef, OpFamily, Value } from './types.js';
import { axisOf, i64Tensor, tensorAt } from './util.js';

const OP = 'onnx';

function boolOf(ctx: OpContext, i: number): boolean {
  const d = ctx.host(i);
  if (!d || d.numElements() !== 1)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) needs a one-element condition for input ${i}`,
    );
  return d.toArray()[0] !== 0;
}

/**
 * Control flow is written once, as generators that yield what they need from the runtime: a
 * subgraph run (`{ graph, inputs }`) or the host values of a tensor (`{ read }`). The synchronous
 * driver answers with `runGraph` and synchronous reads; the asynchronous one (`runAsync`, for
 * WebGPU) awaits both.
 */
type Effect = { readonly graph: Graph; readonly inputs: readonly (Value | undefined)[] } | { readonly read: AnyTensor };
type Flow = Generator<Effect, Value[], unknown>;

/** Runs a control-flow generator synchronously. */
export function drive(ctx: OpContext, flow: Flow): Value[] {
  let step = flow.next();
  while (!step.done) {
    const e = step.value;
    step = flow.next('graph' in e ? ctx.runGraph(e.graph, e.inputs) : hostData(e.read));
  }
  return step.value;
}

/** Runs a control-flow generator with asynchronous subgraphs and reads. */
export async function driveAsync(ctx: AsyncOpContext, flow: Flow): Promise<Value[]> {
  let step = flow.next();
  while (!step.done) {
    const e = step.value;
    step = flow.next('graph' in e ? await ctx.runGraphAsync(e.graph, e.inputs) : await ctx.read(e.read));
  }
  return step.value;
}

/** An op from a control-flow generator, runnable both ways. */
function controlOp(
  gen: (ctx: OpContext, inputs: readonly (Value | undefined)[]) => Flow,
  extra: Partial<OpDef> = {},
): OpDef {
  return {
    run: (ctx, inputs) => drive(ctx, gen(ctx, inputs)),
    runAsync: (ctx, inputs) => driveAsync(ctx, gen(ctx, inputs)),
    ...extra,
  };
}

/** Stacks the per-iteration scan outputs along `axis` (reversed when `reverse`). */
function stackScan(items: AnyTensor[], axis: number, reverse: boolean): AnyTensor {
  const parts = reverse ? [...items].reverse() : items;
  return Tensor.stack(parts, axis) as AnyTensor;
}

function* loop(ctx: OpContext, inputs: readonly (Value | undefined)[]): Flow {
  const body = ctx.attrs.requireGraph('body');
  const maxTrip = ctx.node.inputs[0] ? ctx.ints(0)![0]! : Infinity;
  let cond = ctx.node.inputs[1] ? boolOf(ctx, 1) : true;
  let carried = inputs.slice(2) as (Value | undefined)[];
  const nCarried = carried.length;
  const nScan = body.outputs.length - 1 - nCarried;
  const scans: AnyTensor[][] = Array.from({ length: nScan }, () => []);
  const dev = ctx.device;
  for (let i = 0; i < maxTrip && cond; i++) {
    const iter = i64Tensor([i], dev, []);
    const condT = Tensor.fromBools([cond], dev).reshape([]) as unknown as AnyTensor;
    const outs = (yield { graph: body, inputs: [iter, condT, ...carried] }) as Value[];
    const c = outs[0];
    if (c instanceof Tensor) cond = ((yield { read: c as AnyTensor }) as TensorData).toArray()[0] !== 0;
    carried = outs.slice(1, 1 + nCarried);
    outs.slice(1 + nCarried).forEach((v, k) => {
      if (!(v instanceof Tensor))
        throw new BurnError(OP, `node '${ctx.node.name}' (Loop) body produced a non-tensor scan output ${k}`);
      scans[k]!.push(v as AnyTensor);
    });
  }
  const scanOut = scans.map((items, k): Value => {
    if (items.length > 0) return stackScan(items, 0, false);
    const t = body.outputs[1 + nCarried + k]?.type;
    const elem = t?.kind === 'tensor' && t.elem !== 'undefined' ? t.elem : 'f32';
    const shape =
      t?.kind === 'tensor' && t.shape && t.shape.every((d) => typeof d === 'number') ? (t.shape as number[]) : [];
    return Tensor.zeros([0, ...shape], { device: dev, dtype: elem as 'f32' }) as AnyTensor;
  });
  return [...(carried as Value[]), ...scanOut];
}

interface ScanSpec {
  inAxes: readonly number[];
  inDirs: readonly number[];
  outAxes: readonly number[];
  outDirs: readonly number[];
}

/** Runs a Scan body over slices of `xs`, carrying `states`; returns the final states, then the stacked scan outputs. */
function* scanCore(
  ctx: OpContext,
  body: Graph,
  states: readonly Value[],
  xs: readonly AnyTensor[],
  spec: ScanSpec,
): Flow {
  const n = states.length;
  const k = body.outputs.length - n;
  const axes = xs.map((x, i) => axisOf(ctx, spec.inAxes[i] ?? 0, x.rank()));
  const steps = xs.length ? xs[0]!.dims()[axes[0]!]! : 0;
  let carried = states;
  const outs: AnyTensor[][] = Array.from({ length: k }, () => []);
  for (let t = 0; t < steps; t++) {
    const slices = xs.map((x, i) => {
      const at = spec.inDirs[i] === 1 ? steps - 1 - t : t;
      return x.sliceDim(axes[i]!, [at, at + 1]).squeezeDim(axes[i]!) as AnyTensor;
    });
    const res = (yield { graph: body, inputs: [...carried, ...slices] }) as Value[];
    carried = res.slice(0, n);
    res.slice(n).forEach((v, j) => outs[j]!.push(v as AnyTensor));
  }
  const scanOuts = outs.map((items, j) => {
    const rank = (items[0]?.rank() ?? 0) + 1;
    return stackScan(items, axisOf(ctx, spec.outAxes[j] ?? 0, rank), spec.outDirs[j] === 1);
  });
  return [...carried, ...scanOuts];
}

function* scan(ctx: OpContext, inputs: readonly (Value | undefined)[]): Flow {
  const body: Graph = ctx.attrs.requireGraph('body');
  const m = ctx.attrs.int('num_scan_inputs', 0);
  const n = inputs.length - m;
  const xs = inputs.slice(n).map((_, i) => tensorAt(ctx, inputs, n + i));
  const k = body.outputs.length - n;
  return yield* scanCore(ctx, body, inputs.slice(0, n) as Value[], xs, {
    inAxes: ctx.attrs.ints('scan_input_axes') ?? xs.map(() => 0),
    inDirs: ctx.attrs.ints('scan_input_directions') ?? xs.map(() => 0),
    outAxes: ctx.attrs.ints('scan_output_axes') ?? new Array<number>(k).fill(0),
    outDirs: ctx.attrs.ints('scan_output_directions') ?? new Array<number>(k).fill(0),
  });
}

/** Scan of opset 8: a leading batch dim on every input and output, scanned per batch entry (sequence_lens must cover the whole axis). */
function* scan8(ctx: OpContext, inputs: readonly (Value | undefined)[]): Flow {
  const body: Graph = ctx.attrs.requireGraph('body');
  const m = ctx.attrs.int('num_scan_inputs', 0);
  const rest = inputs.slice(1);
  const n = rest.length - m;
  const all = rest.map((_, i) => tensorAt(ctx, rest, i));
  const batch = all[0]?.dims()[0] ?? 0;
  const lens = ctx.node.inputs[0] ? ctx.ints(0)! : undefined;
  const dirs = ctx.attrs.ints('directions') ?? new Array<number>(m).fill(0);
  const results: Value[][] = [];
  for (let b = 0; b < batch; b++) {
    const pick = (t: AnyTensor) => t.sliceDim(0, [b, b + 1]).squeezeDim(0) as AnyTensor;
    const xs = all.slice(n).map(pick);
    if (lens && xs[0] && lens[b] !== xs[0].dims()[0])
      throw new BurnError(
        OP,
        `node '${ctx.node.name}' (Scan) has sequence_lens[${b}] = ${lens[b]}; only full-length sequences are supported`,
      );
    results.push(
      yield* scanCore(ctx, body, all.slice(0, n).map(pick), xs, { inAxes: [], inDirs: dirs, outAxes: [], outDirs: [] }),
    );
  }
  const count = body.outputs.length;
  return Array.from(
    { length: count },
    (_, j) =>
      Tensor.stack(
        results.map((r) => r[j] as AnyTensor),
        0,
      ) as AnyTensor,
  );
}

/** Control flow: If, Loop and Scan, whose bodies are subgraphs run in a scope that sees the enclosing values. */
export const controlOps: OpFamily = {
  If: controlOp(
    function* ifBranch(ctx) {
      return (yield {
        graph: ctx.attrs.requireGraph(boolOf(ctx, 0) ? 'then_branch' : 'else_branch'),
        inputs: [],
      }) as Value[];
    },
    { hostInputs: [0] },
  ),
  Loop: controlOp(loop, { hostInputs: [0, 1] }),
  Scan: controlOp((ctx, inputs) => (ctx.opset < 9 ? scan8(ctx, inputs) : scan(ctx, inputs)), { minOpset: 8 }),
};
