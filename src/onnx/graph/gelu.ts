import type { Graph, Node } from '../ir/types.js';
import { subgraphsOf } from './topo.js';

/**
 * Rewrites the exact GELU that exporters spell out — `Div(x, √2) → Erf → Add(1) → Mul(x) →
 * Mul(0.5)` (PyTorch), or with `Mul(x, 1/√2)` — into one ONNX `Gelu` node (Burn's `gelu`): one
 * call at run time, and `x.gelu()` in generated code. Each intermediate must feed only the next
 * step. Returns the number of rewrites.
 */
export function fuseGelu(graph: Graph): number {
  const readers = new Map<string, Node[]>();
  for (const n of graph.nodes) {
    for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
    for (const g of subgraphsOf(n))
      for (const sn of g.nodes) for (const i of sn.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), sn]);
  }
  const outputs = new Set(graph.outputs.map((o) => o.name));
  const scalar = (name: string | undefined): number | undefined => {
    const c = name ? graph.initializers.get(name) : undefined;
    return c?.data && c.data.numElements() === 1 ? Number(c.data.toArray()[0]) : undefined;
  };
  const near = (v: number | undefined, want: number) => v !== undefined && Math.abs(v - want) <= 1e-5 * Math.abs(want);
  /** The one node reading `value` (with op `op`), when nothing else reads it. */
  const only = (value: string, op: string): Node | undefined => {
    const r = readers.get(value);
    return r?.length === 1 && r[0]!.opType === op && r[0]!.domain === '' && !outputs.has(value) ? r[0] : undefined;
  };
  const other = (n: Node, value: string) => (n.inputs[0] === value ? n.inputs[1] : n.inputs[0]);
  const removed = new Set<Node>();
  const replaced = new Map<Node, Node>();
  let count = 0;
  for (const first of graph.nodes) {
    if (first.domain !== '' || removed.has(first)) continue;
    const isDiv = first.opType === 'Div' && near(scalar(first.inputs[1]), Math.SQRT2);
    const isMul =
      first.opType === 'Mul' &&
      (near(scalar(first.inputs[1]), Math.SQRT1_2) || near(scalar(first.inputs[0]), Math.SQRT1_2));
    if (!isDiv && !isMul) continue;
    const x = isDiv || scalar(first.inputs[1]) !== undefined ? first.inputs[0]! : first.inputs[1]!;
    const erf = only(first.outputs[0]!, 'Erf');
    const add = erf && only(erf.outputs[0]!, 'Add');
    if (!add || !near(scalar(other(add, erf!.outputs[0]!)), 1)) continue;
    const mulX = only(add.outputs[0]!, 'Mul');
    if (!mulX || other(mulX, add.outputs[0]!) !== x) continue;
    const half = only(mulX.outputs[0]!, 'Mul');
    if (!half || !near(scalar(other(half, mulX.outputs[0]!)), 0.5)) continue;
    for (const n of [first, erf!, add, mulX]) removed.add(n);
    replaced.set(half, {
      name: half.name,
      opType: 'Gelu',
      domain: '',
      inputs: [x],
      outputs: half.outputs,
      attributes: new Map(),
    });
    count++;
  }
  if (count > 0) graph.nodes = graph.nodes.filter((n) => !removed.has(n)).map((n) => replaced.get(n) ?? n);
  return count;
}
