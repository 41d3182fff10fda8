import { Device } from '../../device/device.js';
import { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Graph, Node } from '../ir/types.js';
import { Attrs } from '../ops/attrs.js';
import { lookupOp } from '../ops/registry.js';
import type { OpContext, OpDef, Value } from '../ops/types.js';
import { constOf } from '../parse/tensor.js';
import { constantOf, inferNode, type InferState } from './infer.js';
import { subgraphsOf } from './topo.js';

/** Folded constants larger than this stay computed at run time (a ConstantOfShape of a huge shape would only cost memory). */
const MAX_FOLDED_ELEMENTS = 1 << 20;

/** The context an op sees while folding: host CPU, constant inputs, no subgraphs. */
class FoldContext implements OpContext {
  readonly attrs: Attrs;

  constructor(
    readonly node: Node,
    readonly opset: number,
    readonly device: Device,
    private readonly inputs: readonly (TensorData | undefined)[],
  ) {
    this.attrs = new Attrs(node);
  }

  host(i: number): TensorData | undefined {
    return this.inputs[i];
  }

  ints(i: number): number[] | undefined {
    const d = this.inputs[i];
    return d ? Array.from(d.toArray()) : undefined;
  }

  floats(i: number): number[] | undefined {
    return this.ints(i);
  }

  runSubgraph(): Value[] {
    throw new BurnError('onnx', 'subgraphs are not folded');
  }

  runGraph(): Value[] {
    throw new BurnError('onnx', 'subgraphs are not folded');
  }
}

function foldable(def: OpDef | undefined, node: Node): def is OpDef {
  return def !== undefined && !def.random && subgraphsOf(node).length === 0;
}

/** Runs `node` on its constant inputs; returns the output data, or undefined when it cannot be folded. */
function evaluate(state: InferState, node: Node, def: OpDef): (TensorData | undefined)[] | undefined {
  const data = node.inputs.map((n) => (n ? constantOf(state, n) : undefined));
  if (node.inputs.some((n, i) => n && !data[i])) return undefined;
  const device = Device.cpu();
  const ctx = new FoldContext(node, state.opsets.get(node.domain) ?? 0, device, data);
  let outs: readonly (Value | undefined)[];
  try {
    outs = def.run(
      ctx,
      data.map((d) => (d ? Tensor.fromData(d, device) : undefined)),
    );
  } catch {
    return undefined; // left for the run, which reports the error with the model's inputs
  }
  const result: (TensorData | undefined)[] = [];
  for (const o of outs) {
    if (!(o instanceof Tensor)) return undefined;
    if (o.numel() > MAX_FOLDED_ELEMENTS) return undefined;
    result.push(o.toDataSync());
  }
  return result;
}

/**
 * Constant folding and shape-subgraph folding over a sorted graph, in one forward pass: a node
 * whose inputs are all constants runs now on the host CPU and becomes initializers; a shape
 * computation whose symbolic value is fully known (`Shape` of a static tensor, `Gather` of its
 * static dims…) becomes a constant too. Types are inferred on the way. Parameters never fold, so
 * a fine-tuned model computes with its current weights. Returns the number of folded nodes.
 */
export function foldGraph(state: InferState): number {
  const graph: Graph = state.graph;
  const kept: Node[] = [];
  let folded = 0;
  for (const node of graph.nodes) {
    const def = lookupOp(node.domain, node.opType);
    if (foldable(def, node) && def) {
      const outs = evaluate(state, node, def);
      if (outs && outs.length >= node.outputs.filter((o) => o).length) {
        node.outputs.forEach((o, i) => {
          if (o && outs[i]) {
            graph.initializers.set(o, constOf(o, outs[i]!));
            graph.types.set(o, { kind: 'tensor', elem: outs[i]!.dtype, shape: outs[i]!.shape });
          }
        });
        folded++;
        continue;
      }
    }
    const sym = inferNode(state, node);
    if (sym && node.outputs.length === 1 && sym.dims.every((d) => typeof d === 'number')) {
      const t = graph.types.get(node.outputs[0]!);
      const dtype = t?.kind === 'tensor' && (t.elem === 'i32' || t.elem === 'i64') ? t.elem : 'i64';
      const values = sym.dims as number[];
      graph.initializers.set(
        node.outputs[0]!,
        constOf(node.outputs[0]!, new TensorData(values, sym.scalar ? [] : [values.length], dtype)),
      );
      folded++;
      continue;
    }
    kept.push(node);
  }
  graph.nodes = kept;
  return folded;
}
