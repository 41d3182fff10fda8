import type { Attribute, Graph, Node } from '../ir/types.js';
import { subgraphsOf } from './topo.js';

/** The domain of burn-ts's own graph-level operators (made by simplification, never read from a file). */
export const BURN_DOMAIN = 'burn-ts';

/**
 * Rewrites affine layers into one `burn-ts.Linear(x, W, b?)` node (Burn's `linear`: `x · W + b`
 * over the last dim; attribute `transB` 1 when `W` is stored `[out, in]`):
 * - `MatMul(x, W)` followed by `Add(·, b)`, where `W` is a 2-d initializer, `b` a 1-d
 *   initializer of `W`'s output size, and the product feeds only the Add;
 * - `MatMul(x, W)` alone with a 2-d initializer `W`;
 * - `Gemm(x, W, b?)` with initializers `W` (2-d) and `b` (1-d), alpha = beta = 1, no transA.
 *
 * One call instead of a matmul and a broadcast add (the runtime multiplies the flattened rows in
 * one 2-d product), and the shape a `Linear` layer has in generated code. The weight and bias
 * keep their names, so the parameters are unchanged. Returns the number of rewrites.
 */
export function fuseLinear(graph: Graph): number {
  const readers = new Map<string, number>();
  const read = (name: string) => readers.set(name, (readers.get(name) ?? 0) + 1);
  for (const n of graph.nodes) {
    for (const i of n.inputs) if (i) read(i);
    // Values read inside subgraphs count too (a fused product must have no other reader).
    for (const g of subgraphsOf(n)) for (const sn of g.nodes) for (const i of sn.inputs) if (i) read(i);
  }
  for (const o of graph.outputs) read(o.name);
  const init = (name: string | undefined) => (name ? graph.initializers.get(name) : undefined);
  const isFloat = (name: string | undefined) => {
    const c = init(name);
    return c !== undefined && (c.elem === 'f32' || c.elem === 'f64' || c.elem === 'f16' || c.elem === 'bf16');
  };
  const num = (n: Node, key: string, fallback: number) => {
    const a = n.attributes.get(key);
    return a?.kind === 'float' || a?.kind === 'int' ? a.value : fallback;
  };
  const linear = (from: Node, inputs: string[], outputs: readonly string[], transB: number): Node => ({
    name: from.name,
    opType: 'Linear',
    domain: BURN_DOMAIN,
    inputs,
    outputs,
    attributes: new Map<string, Attribute>([['transB', { kind: 'int', value: transB }]]),
  });
  const removed = new Set<Node>();
  const replaced = new Map<Node, Node>();
  let count = 0;
  for (const n of graph.nodes) {
    if (n.domain !== '' || removed.has(n) || replaced.has(n)) continue;
    if (n.opType === 'Gemm') {
      const w = init(n.inputs[1]);
      const b = n.inputs[2] ? init(n.inputs[2]) : undefined;
      if (!w || w.shape.length !== 2 || !isFloat(n.inputs[1]) || (n.inputs[2] && (!b || b.shape.length !== 1)))
        continue;
      if (num(n, 'alpha', 1) !== 1 || num(n, 'beta', 1) !== 1 || num(n, 'transA', 0) !== 0) continue;
      const transB = num(n, 'transB', 0);
      if (b && b.shape[0] !== w.shape[transB ? 0 : 1]) continue;
      replaced.set(n, linear(n, n.inputs.slice(0, b ? 3 : 2), n.outputs, transB));
      count++;
      continue;
    }
    if (n.opType !== 'MatMul') continue;
    const w = init(n.inputs[1]);
    if (!w || w.shape.length !== 2 || !isFloat(n.inputs[1])) continue;
    const out = n.outputs[0]!;
    const add =
      readers.get(out) === 1
        ? graph.nodes.find((m) => m.domain === '' && m.opType === 'Add' && m.inputs.includes(out))
        : undefined;
    const biasName = add ? add.inputs.find((i) => i !== out) : undefined;
    const bias = init(biasName);
    if (
      add &&
      bias &&
      bias.shape.length === 1 &&
      bias.shape[0] === w.shape[1] &&
      add.inputs[0] !== add.inputs[1] &&
      !removed.has(add)
    ) {
      removed.add(n);
      replaced.set(add, linear(n, [n.inputs[0]!, n.inputs[1]!, biasName!], add.outputs, 0));
    } else replaced.set(n, linear(n, [n.inputs[0]!, n.inputs[1]!], n.outputs, 0));
    count++;
  }
  if (count > 0) graph.nodes = graph.nodes.filter((n) => !removed.has(n)).map((n) => replaced.get(n) ?? n);
  return count;
}
