import { BurnError } from '../../core/errors.js';
import type { Graph, Node } from '../ir/types.js';

const OP = 'loadOnnx';

/** The subgraphs held by a node's attributes (`If` branches, `Loop`/`Scan` bodies). */
export function subgraphsOf(node: Node): Graph[] {
  const out: Graph[] = [];
  for (const a of node.attributes.values()) {
    if (a.kind === 'graph') out.push(a.value);
    else if (a.kind === 'graphs') out.push(...a.value);
  }
  return out;
}

/** Names a subgraph reads from its enclosing graphs (outer-scope references), cached per graph. */
const freeCache = new WeakMap<Graph, ReadonlySet<string>>();

/** The values a graph reads without defining them: what it needs from the enclosing scope. */
export function freeValues(graph: Graph): ReadonlySet<string> {
  const cached = freeCache.get(graph);
  if (cached) return cached;
  const defined = new Set<string>([...graph.inputs.map((v) => v.name), ...graph.initializers.keys()]);
  for (const n of graph.nodes) for (const o of n.outputs) if (o) defined.add(o);
  const free = new Set<string>();
  for (const n of graph.nodes) {
    for (const i of nodeReads(n)) if (!defined.has(i)) free.add(i);
  }
  for (const o of graph.outputs) if (!defined.has(o.name)) free.add(o.name);
  freeCache.set(graph, free);
  return free;
}

/** Forgets cached free values (after a pass rewrote a graph's nodes). */
export function invalidateFreeValues(graph: Graph): void {
  freeCache.delete(graph);
}

/** Every value a node reads: its inputs and what its subgraphs take from outside. */
export function nodeReads(node: Node): string[] {
  const reads = node.inputs.filter((i) => i !== '');
  for (const g of subgraphsOf(node)) reads.push(...freeValues(g));
  return reads;
}

/**
 * Orders the nodes of `graph` so every node comes after the producers of what it reads (Kahn's
 * algorithm, keeping the file's order where it is already valid). `outer` holds the names visible
 * from enclosing graphs. A value produced twice, a read of a value nobody produces, or a cycle is a
 * BurnError naming the nodes involved. Subgraphs are sorted too, recursively.
 */
export function sortGraph(graph: Graph, outer: ReadonlySet<string> = new Set()): void {
  const available = new Set<string>([...outer, ...graph.inputs.map((v) => v.name), ...graph.initializers.keys()]);
  const producer = new Map<string, number>();
  graph.nodes.forEach((n, i) => {
    for (const o of n.outputs) {
      if (!o) continue;
      if (producer.has(o))
        throw new BurnError(
          OP,
          `value '${o}' is produced by both node '${graph.nodes[producer.get(o)!]!.name}' and node '${n.name}'; expected one producer per value (SSA)`,
        );
      if (graph.initializers.has(o) || graph.inputs.some((v) => v.name === o))
        throw new BurnError(OP, `node '${n.name}' overwrites graph input or initializer '${o}'`);
      producer.set(o, i);
    }
  });
  const waiting = new Array<number>(graph.nodes.length).fill(0);
  const consumers = new Map<number, number[]>();
  graph.nodes.forEach((n, i) => {
    const seen = new Set<number>();
    for (const r of nodeReads(n)) {
      const p = producer.get(r);
      if (p === undefined) {
        if (!available.has(r))
          throw new BurnError(
            OP,
            `node '${n.name}' (${n.opType}) reads '${r}', which no node, input or initializer of graph '${graph.name}' provides`,
          );
        continue;
      }
      if (seen.has(p)) continue;
      seen.add(p);
      waiting[i]!++;
      let list = consumers.get(p);
      if (!list) consumers.set(p, (list = []));
      list.push(i);
    }
  });
  const order: number[] = [];
  // A sorted file keeps its order: the smallest ready index goes first (a binary min-heap).
  const heap = new MinHeap();
  waiting.forEach((w, i) => {
    if (w === 0) heap.push(i);
  });
  while (heap.size > 0) {
    const i = heap.pop();
    order.push(i);
    for (const c of consumers.get(i) ?? []) if (--waiting[c]! === 0) heap.push(c);
  }
  if (order.length !== graph.nodes.length) {
    const stuck = graph.nodes.filter((_, i) => waiting[i]! > 0);
    throw new BurnError(
      OP,
      `graph '${graph.name}' has a cycle through nodes ${stuck
        .slice(0, 8)
        .map((n) => `'${n.name}'`)
        .join(', ')}${stuck.length > 8 ? ` and ${stuck.length - 8} more` : ''}; expected an acyclic graph`,
    );
  }
  graph.nodes = order.map((i) => graph.nodes[i]!);
  for (const o of graph.outputs) {
    if (!producer.has(o.name) && !available.has(o.name))
      throw new BurnError(
        OP,
        `graph output '${o.name}' of graph '${graph.name}' is produced by no node, input or initializer`,
      );
  }
  const inner = new Set<string>([...available, ...producer.keys()]);
  for (const n of graph.nodes) for (const g of subgraphsOf(n)) sortGraph(g, inner);
}

class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }

  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1]! < a[l]! ? l + 1 : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
