import { isFloatDType } from '../../core/dtype.js';
import type { Graph, Node } from '../ir/types.js';
import { Attrs } from '../ops/attrs.js';
import { fusedConvClamp } from '../ops/fast-paths.js';
import type { AnyTensor, OpDef } from '../ops/types.js';
import { asF, asN } from '../ops/util.js';
import { nodeReads } from '../graph/topo.js';
import type { Step } from './plan.js';

/**
 * Run-time fusion of an activation into the Conv that produces its input: `Conv → Relu` and
 * `Conv → Clip` (constant bounds) become one step that asks the backend for a convolution with the
 * clamp in its output pass (`Backend.convClamp`: one write of the output instead of a second pass
 * and a second array), and otherwise runs the Conv and then the activation exactly as the two
 * steps would. `Conv → Add (→ Relu/Clip)` (a residual connection) becomes one step too, at the
 * Add's place (where the other operand exists), the Add's other operand passed to the backend as
 * the residual. Only the plan changes: the graph (what `model.graph` shows, what code generation
 * reads) keeps every node. Each fused value must be read by the next step alone and not be a
 * graph output.
 */
export function fuseConvActivations(graph: Graph, steps: readonly Step[]): Step[] {
  const readers = new Map<string, Step[]>();
  for (const s of steps) {
    for (const r of nodeReads(s.node)) {
      const list = readers.get(r);
      if (list) list.push(s);
      else readers.set(r, [s]);
    }
  }
  const outputs = new Set(graph.outputs.map((o) => o.name));
  // The one step that reads `name` (as its first input when `first`), when nothing else does.
  const soleReader = (name: string | undefined, first: boolean): Step | undefined => {
    const list = name === undefined || outputs.has(name) ? undefined : readers.get(name);
    const r = list?.length === 1 ? list[0] : undefined;
    return r && (!first || r.node.inputs[0] === name) ? r : undefined;
  };
  const isConv = (s: Step) => s.node.opType === 'Conv' && s.node.domain === '' && s.node.outputs.length === 1;
  const dropped = new Set<Step>();
  const fusedAt = new Map<Step, Step>();
  for (const step of steps) {
    if (!isConv(step) || dropped.has(step)) continue;
    const y = step.node.outputs[0];
    const act = soleReader(y, true);
    const bounds = act && activationBounds(graph, act);
    if (act && bounds) {
      dropped.add(act);
      fusedAt.set(step, fusedStep(step, act, bounds[0], bounds[1]));
      continue;
    }
    const add = soleReader(y, false);
    if (
      !add ||
      add.node.opType !== 'Add' ||
      add.node.domain !== '' ||
      add.node.inputs.length !== 2 ||
      add.node.outputs.length !== 1 ||
      fusedAt.has(add)
    )
      continue;
    const side = add.node.inputs.indexOf(y!);
    const residual = add.node.inputs[1 - side];
    if (!residual || residual === y) continue;
    // With an activation after the Add, it joins too; without (MobileNet's linear bottlenecks), the clamp is (−∞, ∞).
    const after = soleReader(add.node.outputs[0], true);
    const range = after && activationBounds(graph, after);
    dropped.add(step);
    if (after && range) dropped.add(after);
    fusedAt.set(
      add,
      range
        ? residualStep(step, add, side, after, range[0], range[1])
        : residualStep(step, add, side, undefined, -Infinity, Infinity),
    );
  }
  const out: Step[] = [];
  for (const step of steps) if (!dropped.has(step)) out.push(fusedAt.get(step) ?? step);
  return out;
}

/** The clamp an activation step applies, when it is a ReLU or a Clip whose bounds are constants. */
function activationBounds(graph: Graph, act: Step): [number, number] | undefined {
  const n = act.node;
  if (n.domain !== '' || n.outputs.length !== 1) return undefined;
  if (n.opType === 'Relu') return [0, Infinity];
  if (n.opType !== 'Clip') return undefined;
  let lo: number | undefined;
  let hi: number | undefined;
  if (act.opset < 11) {
    lo = act.attrs.float('min');
    hi = act.attrs.float('max');
  } else {
    const scalar = (name: string | undefined): number | undefined | null => {
      if (!name) return undefined;
      const c = graph.initializers.get(name);
      return c?.data && c.data.numElements() === 1 ? Number(c.data.toArray()[0]) : null;
    };
    const a = scalar(n.inputs[1]),
      b = scalar(n.inputs[2]);
    if (a === null || b === null) return undefined;
    lo = a;
    hi = b;
  }
  const l = lo ?? -Infinity,
    h = hi ?? Infinity;
  // min > max (max everywhere) and NaN bounds keep the two steps.
  return Number.isNaN(l) || Number.isNaN(h) || l > h ? undefined : [l, h];
}

function fusedStep(conv: Step, act: Step, lo: number, hi: number): Step {
  const node: Node = { ...conv.node, outputs: act.node.outputs };
  const def: OpDef = {
    run: (ctx, inputs) => {
      const [x, w, b] = inputs as readonly (AnyTensor | undefined)[];
      const fast = x && w ? fusedConvClamp(ctx, x, w, b, lo, hi) : undefined;
      if (fast !== undefined) return [fast];
      return [activate(act, conv.def.run(ctx, inputs)[0] as AnyTensor, lo, hi)];
    },
  };
  return { node, def, attrs: new Attrs(node), opset: conv.opset, control: false };
}

/**
 * `act(conv(x, w, b) + r)` as one step: inputs x, w, b (or ''), r (the Add's other operand; the
 * Conv's output is the Add's input `side`); outputs the activation's (the Add's without one).
 */
function residualStep(conv: Step, add: Step, side: number, act: Step | undefined, lo: number, hi: number): Step {
  const [xName = '', wName = '', bName = ''] = conv.node.inputs;
  const node: Node = {
    ...conv.node,
    inputs: [xName, wName, bName, add.node.inputs[1 - side]!],
    outputs: (act ?? add).node.outputs,
  };
  const def: OpDef = {
    run: (ctx, inputs) => {
      const [x, w, b, r] = inputs as readonly (AnyTensor | undefined)[];
      const fast = x && w && r ? fusedConvClamp(ctx, x, w, b, lo, hi, r) : undefined;
      if (fast !== undefined) return [fast];
      // The three steps as they would run (the Add broadcasts, in its operand order).
      const y = conv.def.run(ctx, [x, w, b])[0] as AnyTensor;
      const sum = add.def.run(ctx, side === 0 ? [y, r] : [r, y])[0] as AnyTensor;
      return [act ? activate(act, sum, lo, hi) : sum];
    },
  };
  return { node, def, attrs: new Attrs(node), opset: conv.opset, control: false };
}

/** The activation step's values of `y` (Clip's clampMin then clampMax is one clamp for lo ≤ hi). */
function activate(act: Step, y: AnyTensor, lo: number, hi: number): AnyTensor {
  if (act.node.opType === 'Relu')
    return isFloatDType(y.dtype()) ? (asF(y).relu() as AnyTensor) : (asN(y).clampMin(0) as AnyTensor);
  return asN(y).clamp(lo, hi) as AnyTensor;
}
