import { BurnError } from '../../core/errors.js';
import type { Attribute, Graph, Model, Node } from '../ir/types.js';
import { subgraphsOf } from './topo.js';

/** Calls nest (a function calling a function…); past this depth the model is malformed or recursive. */
const MAX_DEPTH = 32;

/**
 * Expands calls of model-local functions (`FunctionProto`) in place: each call becomes the
 * function's nodes, with the formal inputs and outputs renamed to the call's values, internal
 * values prefixed by the call's node name, and attribute references resolved from the call.
 * Returns the number of calls expanded.
 */
export function inlineFunctions(model: Model): number {
  if (model.functions.size === 0) return 0;
  return inlineGraph(model, model.graph, 0);
}

function inlineGraph(model: Model, graph: Graph, depth: number): number {
  let count = 0;
  const out: Node[] = [];
  for (const node of graph.nodes) {
    for (const g of subgraphsOf(node)) count += inlineGraph(model, g, depth);
    const fn = model.functions.get(`${node.domain}:${node.opType}`);
    if (!fn) {
      out.push(node);
      continue;
    }
    if (depth >= MAX_DEPTH)
      throw new BurnError(
        'loadOnnx',
        `function calls nest deeper than ${MAX_DEPTH} levels at node '${node.name}' (${node.domain}.${node.opType}); expected no recursion`,
      );
    const rename = new Map<string, string>();
    fn.inputs.forEach((f, i) => rename.set(f, node.inputs[i] ?? ''));
    fn.outputs.forEach((f, i) => rename.set(f, node.outputs[i] ?? ''));
    const name = (v: string) => (v === '' ? '' : (rename.get(v) ?? `${node.name}/${v}`));
    const body: Node[] = fn.nodes.map((n, i) => ({
      name: `${node.name}/${n.name || `${n.opType}_${i}`}`,
      opType: n.opType,
      domain: n.domain,
      inputs: n.inputs.map(name),
      outputs: n.outputs.map(name),
      attributes: resolveAttributes(n, node),
    }));
    const sub: Graph = {
      name: graph.name,
      nodes: body,
      inputs: [],
      outputs: [],
      initializers: new Map(),
      types: new Map(),
    };
    count += 1 + inlineGraph(model, sub, depth + 1);
    out.push(...sub.nodes);
  }
  graph.nodes = out;
  return count;
}

function resolveAttributes(n: Node, call: Node): Map<string, Attribute> {
  const attrs = new Map<string, Attribute>();
  for (const [k, a] of n.attributes) {
    if (a.kind === 'ref') {
      const v = call.attributes.get(a.name);
      if (v) attrs.set(k, v);
    } else attrs.set(k, a);
  }
  return attrs;
}
