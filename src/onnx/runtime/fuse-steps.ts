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
 * steps would. Only the plan changes: the graph (what `model.graph` shows, what code generation
 * reads) keeps both nodes. The Conv's output must be read by the activation alone and not be a
 * graph output.
 */
export function fuseConvActivations(graph: Graph, steps: readonly Step[]): Step[] {
  const readers = new Map<string, number>();
  for (const s of steps) for (const r of nodeReads(s.node)) readers.set(r, (readers.get(r) ?? 0) + 1);
  for (const o of graph.outputs) readers.set(o.name, (readers.get(o.name) ?? 0) + 1);
  const byInput = new Map<string, Step>();
  for (const s of steps) if (s.node.inputs[0]) byInput.set(s.node.inputs[0], s);
  const dropped = new Set<Step>();
  const out: Step[] = [];
  for (const step of steps) {
    if (dropped.has(step)) continue;
    const y = step.node.outputs[0];
    const act = y && step.node.opType === 'Conv' && step.node.domain === '' && step.node.outputs.length === 1 && readers.get(y) === 1 ? byInput.get(y) : undefined;
    const bounds = act && activationBounds(graph, act);
    if (!act || !bounds) {
      out.push(step);
      continue;
    }
    dropped.add(act);
    out.push(fusedStep(step, act, bounds[0], bounds[1]));
  }
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
    const a = scalar(n.inputs[1]), b = scalar(n.inputs[2]);
    if (a === null || b === null) return undefined;
    lo = a;
    hi = b;
  }
  const l = lo ?? -Infinity, h = hi ?? Infinity;
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
      const y = conv.def.run(ctx, inputs)[0] as AnyTensor;
      // The activation as its own step computes it (Clip's clampMin then clampMax is one clamp for lo ≤ hi).
      if (act.node.opType === 'Relu') return [isFloatDType(y.dtype()) ? (asF(y).relu() as AnyTensor) : (asN(y).clampMin(0) as AnyTensor)];
      return [asN(y).clamp(lo, hi) as AnyTensor];
    },
  };
  return { node, def, attrs: new Attrs(node), opset: conv.opset, control: false };
}
