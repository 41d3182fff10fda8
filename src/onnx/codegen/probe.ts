import { Device } from '../../device/device.js';
import { TensorData } from '../../core/data.js';
import type { DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Dim, Graph, Model } from '../ir/types.js';
import { isSupportedElem } from '../parse/dtype.js';
import type { AnyTensor } from '../ops/types.js';
import { runSteps } from '../runtime/executor.js';
import { planOf } from '../runtime/plan.js';
import { Scope } from '../runtime/scope.js';

const OP = 'generateOnnxModule';

/** What two probe runs tell about one tensor value: its rank, dtype and dims in each run. */
export interface Probed {
  readonly dtype: DType;
  readonly dims: readonly [readonly number[], readonly number[]];
}

/** The sizes a symbolic dim takes in the two probe runs, and the dims each run saw for every value. */
export interface ProbeResult {
  /** Probed tensors by value name (inputs, initializers and node outputs). */
  readonly values: ReadonlyMap<string, Probed>;
  /** The symbolic input dims (`'batch'`) with their size in each run. */
  readonly symbols: ReadonlyMap<string, readonly [number, number]>;
}

/** Fixed input shapes by input name (dims for inputs the model leaves unknown). */
export type InputShapes = Readonly<Record<string, readonly number[]>>;

/**
 * Runs the simplified model twice on generated inputs (floats `sin(i)`, integers 0, booleans
 * false), the symbolic dims at a different size in each run (`2 + k` then `3 + 2k` for the k-th
 * symbol), and records every value's dtype and dims. Ranks and dtypes of ONNX values do not
 * depend on sizes, so one run fixes them; a dim equal in both runs is static, a dim that follows
 * a symbol is that symbol. A run that fails (a model that needs meaningful input values) is a
 * BurnError suggesting `inputShapes`.
 */
export function probeModel(model: Model, inputShapes: InputShapes = {}): ProbeResult {
  const graph = model.graph;
  const symbols = new Map<string, [number, number]>();
  for (const input of graph.inputs) {
    const t = input.type;
    if (inputShapes[input.name] || t?.kind !== 'tensor' || !t.shape) continue;
    for (const d of t.shape)
      if (typeof d === 'string' && !symbols.has(d)) symbols.set(d, [2 + symbols.size, 3 + 2 * symbols.size]);
  }
  const runs = [0, 1].map((k) =>
    runOnce(
      model,
      graph,
      (d: Dim, input: string, i: number) => {
        if (typeof d === 'number') return d;
        if (typeof d === 'string') return symbols.get(d)![k]!;
        throw new BurnError(OP, `input '${input}' has an unknown dim ${i}; give its shape with options.inputShapes`);
      },
      inputShapes,
    ),
  );
  const values = new Map<string, Probed>();
  for (const [name, a] of runs[0]!) {
    const b = runs[1]!.get(name);
    if (!b || a.dtype !== b.dtype || a.dims.length !== b.dims.length) continue;
    values.set(name, { dtype: a.dtype, dims: [a.dims, b.dims] });
  }
  return { values, symbols };
}

function runOnce(
  model: Model,
  graph: Graph,
  size: (d: Dim, input: string, i: number) => number,
  fixed: InputShapes,
): Map<string, { dtype: DType; dims: number[] }> {
  const device = Device.cpu();
  const scope = new Scope(device);
  for (const input of graph.inputs) {
    const t = input.type;
    if (t?.kind !== 'tensor' || !isSupportedElem(t.elem)) {
      throw new BurnError(
        OP,
        `input '${input.name}' is ${t ? (t.kind === 'tensor' ? `of element type ${t.elem}` : `a ${t.kind}`) : 'untyped'}; generated code takes tensors of burn-ts dtypes`,
      );
    }
    let dims: number[];
    if (fixed[input.name]) dims = [...fixed[input.name]!];
    else if (!t.shape)
      throw new BurnError(OP, `input '${input.name}' has no declared shape; give it with options.inputShapes`);
    else dims = t.shape.map((d, i) => size(d, input.name, i));
    const n = dims.reduce((a, b) => a * b, 1);
    const dtype = t.elem;
    const values = dtype.startsWith('f')
      ? Float32Array.from({ length: n }, (_, i) => Math.sin(i + 1))
      : new Float32Array(n);
    scope.set(input.name, Tensor.fromData(new TensorData(values, dims, 'f32').convert(dtype), device) as AnyTensor);
  }
  for (const [name, c] of graph.initializers) if (c.data) scope.setHost(name, c.data);
  try {
    runSteps(planOf(graph, model.opsets, false), scope, { opsets: model.opsets, release: false, fuse: false });
  } catch (e) {
    const shapes = graph.inputs.map((i) => `${i.name}: ${fmt((scope.get(i.name) as AnyTensor).dims())}`).join(', ');
    throw new BurnError(
      OP,
      `the model did not run on generated inputs (${shapes}) to find the ranks and dtypes of its values: ${(e as Error).message}; give fitting shapes with options.inputShapes`,
    );
  }
  const out = new Map<string, { dtype: DType; dims: number[] }>();
  const record = (name: string) => {
    const v = scope.get(name);
    if (v instanceof Tensor) out.set(name, { dtype: (v as AnyTensor).dtype(), dims: (v as AnyTensor).dims() });
  };
  for (const i of graph.inputs) record(i.name);
  for (const n of graph.nodes) for (const o of n.outputs) if (o) record(o);
  for (const [name, c] of graph.initializers)
    if (c.data) out.set(name, { dtype: c.data.dtype, dims: [...c.data.shape] });
  return out;
}
