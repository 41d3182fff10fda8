import type { Graph, Node } from '../ir/types.js';
import { freeValues, subgraphsOf } from './topo.js';

/**
 * Removes `Identity` nodes of the main graph by pointing their readers at the input (PyTorch's
 * exporter writes them for parameters shared between layers, and they hide a weight from the
 * layer patterns of {@link fuseLinear} and from code generation). An Identity whose output is a
 * graph output or is read inside a subgraph stays. Returns the number removed.
 */
export function removeIdentities(graph: Graph): number {
  const keep = new Set(graph.outputs.map((o) => o.name));
  for (const n of graph.nodes) for (const g of subgraphsOf(n)) for (const v of freeValues(g)) keep.add(v);
  const alias = new Map<string, string>();
  const resolve = (name: string): string => alias.get(name) ?? name;
  const kept: Node[] = [];
  for (const n of graph.nodes) {
    if (n.domain === '' && n.opType === 'Identity' && n.inputs[0] && n.outputs[0] && !keep.has(n.outputs[0])) {
      alias.set(n.outputs[0], resolve(n.inputs[0]));
      continue;
    }
    kept.push(
      alias.size > 0 && n.inputs.some((i) => alias.has(i))
        ? { ...n, inputs: n.inputs.map((i) => (i ? resolve(i) : i)) }
        : n,
    );
  }
  graph.nodes = kept;
  return alias.size;
}
