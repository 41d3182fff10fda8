import { isFloatDType, type DType } from '../../core/dtype.js';
import type { Graph, Model } from '../ir/types.js';
import { lookupOp } from '../ops/registry.js';
import { removeDeadNodes } from './dce.js';
import { foldGraph } from './fold.js';
import { removeIdentities } from './alias.js';
import { foldBatchNorms } from './fuse.js';
import { fuseGelu } from './gelu.js';
import { fuseLinear } from './linear.js';
import type { InferState } from './infer.js';
import { freeValues, subgraphsOf } from './topo.js';

/** What simplification did, for reports and tests. */
export interface SimplifyReport {
  /** Nodes replaced by constants (constant folding and shape-subgraph folding). */
  readonly folded: number;
  /** Nodes removed because nothing reads their outputs. */
  readonly removed: number;
  /** BatchNormalizations folded into the Conv or Gemm before them. */
  readonly fused: number;
  /** MatMul (+ Add) and Gemm nodes with constant weights rewritten as one linear call. */
  readonly linear: number;
  /** Identity nodes removed (their readers read the input). */
  readonly aliases: number;
  /** Spelled-out exact GELUs (Div, Erf, Add, Mul, Mul) rewritten as one Gelu. */
  readonly gelu: number;
}

/**
 * The float initializers of the main graph that some node reads as a tensor (not only as a
 * shape, axis or size on the host): these become the model's trainable parameters.
 */
export function parameterCandidates(graph: Graph): Set<string> {
  const out = new Set<string>();
  const isFloat = (name: string) => {
    const c = graph.initializers.get(name);
    return c !== undefined && c.data !== undefined && isFloatDType(c.elem as DType);
  };
  for (const node of graph.nodes) {
    const host = new Set(lookupOp(node.domain, node.opType)?.hostInputs ?? []);
    node.inputs.forEach((name, i) => {
      if (name && !host.has(i) && isFloat(name)) out.add(name);
    });
    for (const g of subgraphsOf(node)) for (const name of freeValues(g)) if (isFloat(name)) out.add(name);
  }
  return out;
}

function simplifyGraph(
  graph: Graph,
  opsets: ReadonlyMap<string, number>,
  params: ReadonlySet<string>,
): { folded: number; removed: number } {
  let folded = 0;
  let removed = 0;
  for (const node of graph.nodes) {
    for (const g of subgraphsOf(node)) {
      const r = simplifyGraph(g, opsets, new Set());
      folded += r.folded;
      removed += r.removed;
    }
  }
  const state: InferState = { graph, opsets, sym: new Map(), params };
  folded += foldGraph(state);
  removed += removeDeadNodes(graph);
  return { folded, removed };
}

/**
 * Simplifies a sorted, checked model in place: Identity nodes removed, BatchNormalization folded
 * into the Conv/Gemm before it (unless `fuse` is false), shape and dtype inference, constant
 * folding, shape-subgraph folding and dead-node removal, in the main graph and every subgraph,
 * then (unless `fuse` is false) MatMul + Add and Gemm with constant weights rewritten as one
 * linear call and spelled-out GELUs as one Gelu. `params` are never folded into constants (their values change while training).
 */
export function simplify(model: Model, params: ReadonlySet<string>, fuse = true): SimplifyReport {
  const aliases = removeIdentities(model.graph);
  const fused = fuse ? foldBatchNorms(model.graph) : 0;
  const r = simplifyGraph(model.graph, model.opsets, params);
  const linear = fuse ? fuseLinear(model.graph) : 0;
  const gelu = fuse ? fuseGelu(model.graph) : 0;
  return { ...r, fused, linear, aliases, gelu };
}
