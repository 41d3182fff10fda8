import { BurnError } from '../../core/errors.js';
import type { Graph, Node } from '../ir/types.js';
import { Attrs } from '../ops/attrs.js';
import { lookupOp, unsupportedReason } from '../ops/registry.js';
import type { OpDef } from '../ops/types.js';
import { nodeReads, subgraphsOf } from '../graph/topo.js';
import { fuseConvActivations } from './fuse-steps.js';

/** One node ready to run: its definition, attributes and opset resolved once at load time. */
export interface Step {
  readonly node: Node;
  readonly def: OpDef;
  readonly attrs: Attrs;
  readonly opset: number;
  /** True for nodes with subgraphs (`If`, `Loop`, `Scan`): never computed on the host as a shape computation. */
  readonly control: boolean;
}

/** A graph with its steps in execution order. */
export interface GraphPlan {
  readonly graph: Graph;
  readonly steps: readonly Step[];
  /** For each step, the values produced in this graph that nothing reads afterwards (never graph outputs). */
  readonly releaseAfter: readonly (readonly string[])[];
}

/** The last reader of every value produced by the steps (the producer itself for values nobody reads). */
function releases(graph: Graph, steps: readonly Step[]): string[][] {
  const last = new Map<string, number>();
  steps.forEach((s, i) => {
    for (const o of s.node.outputs) if (o) last.set(o, i);
  });
  steps.forEach((s, i) => {
    for (const r of nodeReads(s.node)) if (last.has(r)) last.set(r, i);
  });
  for (const o of graph.outputs) last.delete(o.name);
  const out: string[][] = steps.map(() => []);
  for (const [name, i] of last) out[i]!.push(name);
  return out;
}

const plans = new WeakMap<Graph, GraphPlan>();
const unfusedPlans = new WeakMap<Graph, GraphPlan>();

/**
 * The plan of a (sorted, checked) graph; subgraph plans are made when first run and cached.
 * `fuse` (default true) runs activations inside the convolution before them (fuse-steps.ts); a
 * run that must see every value of the graph (code generation's probe) turns it off.
 */
export function planOf(graph: Graph, opsets: ReadonlyMap<string, number>, fuse = true): GraphPlan {
  const cache = fuse ? plans : unfusedPlans;
  let plan = cache.get(graph);
  if (plan) return plan;
  const nodeSteps = graph.nodes.map((node): Step => {
    const def = lookupOp(node.domain, node.opType);
    if (!def)
      throw new BurnError(
        'onnx',
        `node '${node.name}' uses ${node.domain ? `${node.domain}.` : ''}${node.opType}, which is not implemented`,
      );
    return {
      node,
      def,
      attrs: new Attrs(node),
      opset: opsets.get(node.domain) ?? 0,
      control: subgraphsOf(node).length > 0,
    };
  });
  const steps = fuse ? fuseConvActivations(graph, nodeSteps) : nodeSteps;
  plan = { graph, steps, releaseAfter: releases(graph, steps) };
  cache.set(graph, plan);
  return plan;
}

/**
 * Lists every node of `graph` and its subgraphs that cannot run, as `OpType (node 'name', opset
 * N): reason` lines — checked before anything runs, so an unsupported model fails at load time
 * with the whole list rather than halfway through a run.
 */
export function unsupportedNodes(graph: Graph, opsets: ReadonlyMap<string, number>, out: string[] = []): string[] {
  for (const node of graph.nodes) {
    const def = lookupOp(node.domain, node.opType);
    const opset = opsets.get(node.domain);
    let reason: string | undefined;
    try {
      reason = unsupportedReason(node, opset, def, () => def?.check?.(node, new Attrs(node), opset ?? 0));
    } catch (e) {
      reason = e instanceof BurnError ? e.message : String(e);
    }
    if (reason)
      out.push(
        `${node.domain ? `${node.domain}.` : ''}${node.opType} (node '${node.name}', opset ${opset ?? 'none'}): ${reason}`,
      );
    for (const g of subgraphsOf(node)) unsupportedNodes(g, opsets, out);
  }
  return out;
}
