import type { Graph } from '../ir/types.js';
import { invalidateFreeValues, nodeReads, subgraphsOf } from './topo.js';

/**
 * Dead-node removal: drops nodes none of whose outputs reach a graph output (directly, or through
 * later nodes or the subgraphs that read them), then the initializers nothing reads. Subgraphs are
 * cleaned the same way first. `keep` names values that must survive (the parameters a caller wants
 * to keep visible). Returns the number of nodes removed.
 */
export function removeDeadNodes(graph: Graph, keep: ReadonlySet<string> = new Set()): number {
  let removed = 0;
  for (const n of graph.nodes) for (const g of subgraphsOf(n)) removed += removeDeadNodes(g);
  const live = new Set<string>(graph.outputs.map((o) => o.name));
  const kept = [];
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const node = graph.nodes[i]!;
    if (!node.outputs.some((o) => o && live.has(o))) {
      removed++;
      continue;
    }
    kept.push(node);
    for (const r of nodeReads(node)) live.add(r);
  }
  kept.reverse();
  graph.nodes = kept;
  for (const name of [...graph.initializers.keys()]) {
    if (!live.has(name) && !keep.has(name)) graph.initializers.delete(name);
  }
  invalidateFreeValues(graph);
  return removed;
}
