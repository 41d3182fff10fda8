import { TensorData } from '../../core/data.js';
import { isFloatDType } from '../../core/dtype.js';
import type { ConstTensor, Graph, Node } from '../ir/types.js';
import { constOf } from '../parse/tensor.js';

/**
 * Folds inference-mode BatchNormalization into the Conv or Gemm before it: with
 * `k = scale / sqrt(var + eps)`, the producer's weight becomes `W · k` (per output channel) and its
 * bias `(B - mean) · k + bias`. Applies only when every tensor involved is an initializer, the
 * weight and bias feed nothing else, and the producer's output feeds only the BatchNormalization.
 * The folded weight keeps the producer's weight name; a producer without a bias gets one named
 * after the BatchNormalization's bias. Returns the number of folds.
 */
export function foldBatchNorms(graph: Graph): number {
  const readers = new Map<string, number>();
  for (const n of graph.nodes) for (const i of n.inputs) if (i) readers.set(i, (readers.get(i) ?? 0) + 1);
  for (const o of graph.outputs) readers.set(o.name, (readers.get(o.name) ?? 0) + 1);
  const producer = new Map<string, Node>();
  for (const n of graph.nodes) for (const o of n.outputs) if (o) producer.set(o, n);
  const init = (name: string | undefined): ConstTensor | undefined => (name ? graph.initializers.get(name) : undefined);
  const removed = new Set<Node>();
  const replaced = new Map<Node, Node>();
  let count = 0;
  for (const bn of graph.nodes) {
    if (bn.opType !== 'BatchNormalization' || bn.domain !== '' || bn.outputs.filter((o) => o).length !== 1) continue;
    const training = bn.attributes.get('training_mode');
    if (training?.kind === 'int' && training.value !== 0) continue;
    const prod = producer.get(bn.inputs[0]!);
    if (
      !prod ||
      prod.domain !== '' ||
      (prod.opType !== 'Conv' && prod.opType !== 'Gemm') ||
      removed.has(prod) ||
      replaced.has(prod)
    )
      continue;
    if (readers.get(bn.inputs[0]!) !== 1 || prod.outputs.length !== 1) continue;
    if (prod.opType === 'Gemm' && !gemmFoldable(prod)) continue;
    const [scale, bias, mean, variance] = [1, 2, 3, 4].map((i) => init(bn.inputs[i]));
    const w = init(prod.inputs[1]);
    const b = init(prod.inputs[2]);
    if (!scale?.data || !bias?.data || !mean?.data || !variance?.data || !w?.data || (prod.inputs[2] && !b?.data))
      continue;
    if (!isFloatDType(w.data.dtype) || readers.get(prod.inputs[1]!) !== 1 || (b && readers.get(prod.inputs[2]!) !== 1))
      continue;
    // Without a bias of its own the producer takes the BatchNormalization's bias initializer, which must feed nothing else.
    if (!b && readers.get(bn.inputs[2]!) !== 1) continue;
    if (b && b.data!.numElements() !== scale.data.numElements()) continue;
    const eps = bn.attributes.get('epsilon');
    const epsilon = eps?.kind === 'float' ? eps.value : 1e-5;
    const c = scale.data.numElements();
    const transB =
      prod.opType === 'Gemm' &&
      prod.attributes.get('transB')?.kind === 'int' &&
      (prod.attributes.get('transB') as { value: number }).value === 1;
    const outChannels = prod.opType === 'Conv' ? w.shape[0] : transB ? w.shape[0] : w.shape[1];
    if (outChannels !== c) continue;
    const [s, bb, m, v] = [scale, bias, mean, variance].map((t) => t.data!.toArray());
    const k = Array.from({ length: c }, (_, i) => s![i]! / Math.sqrt(v![i]! + epsilon));
    const wv = w.data.toArray();
    const nw = new Float64Array(wv.length);
    if (prod.opType === 'Conv' || transB) {
      const per = wv.length / c;
      for (let i = 0; i < wv.length; i++) nw[i] = wv[i]! * k[Math.floor(i / per)]!;
    } else {
      for (let i = 0; i < wv.length; i++) nw[i] = wv[i]! * k[i % c]!;
    }
    const bv = b?.data?.toArray();
    const nb = Float64Array.from({ length: c }, (_, i) => ((bv ? bv[i]! : 0) - m![i]!) * k[i]! + bb![i]!);
    graph.initializers.set(w.name, constOf(w.name, new TensorData(nw, w.shape, 'f64').convert(w.data.dtype)));
    const biasName = b ? b.name : bn.inputs[2]!;
    graph.initializers.set(biasName, constOf(biasName, new TensorData(nb, [c], 'f64').convert(w.data.dtype)));
    const fused: Node = { ...prod, inputs: [prod.inputs[0]!, prod.inputs[1]!, biasName], outputs: [bn.outputs[0]!] };
    replaced.set(prod, fused);
    removed.add(bn);
    count++;
  }
  if (count > 0) graph.nodes = graph.nodes.filter((n) => !removed.has(n)).map((n) => replaced.get(n) ?? n);
  return count;
}

/** A Gemm whose output channels are the columns of `B` and whose bias is a plain per-column vector (alpha 1, beta 1). */
function gemmFoldable(g: Node): boolean {
  const num = (name: string, fallback: number) => {
    const a = g.attributes.get(name);
    return a?.kind === 'float' || a?.kind === 'int' ? a.value : fallback;
  };
  return num('alpha', 1) === 1 && num('beta', 1) === 1;
}
