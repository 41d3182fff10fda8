import type { Node } from '../ir/types.js';
import { activationOps } from './activation.js';
import { attentionOps } from './attention.js';
import { binaryOps } from './binary.js';
import { controlOps } from './control.js';
import { detectionOps } from './detection.js';
import { imageOps } from './image.js';
import { fusedOps } from './fused.js';
import { convOps } from './conv.js';
import { indexOps } from './index-ops.js';
import { lossOps } from './loss.js';
import { matmulOps } from './matmul.js';
import { normOps } from './norm.js';
import { poolOps } from './pool.js';
import { quantOps } from './quant.js';
import { randomOps } from './random.js';
import { reduceOps } from './reduce.js';
import { resizeOps } from './resize.js';
import { rnnOps } from './rnn.js';
import { sequenceOps } from './sequence.js';
import { shapeOps } from './shape.js';
import { signalOps } from './signal.js';
import { textOps } from './text.js';
import { trainingOps } from './training.js';
import type { OpDef, OpFamily } from './types.js';
import { unaryOps } from './unary.js';

/** The newest opset version of the default domain whose operators this runtime follows. */
export const MAX_OPSET = 23;

const FAMILIES: readonly [string, OpFamily][] = [
  ['', unaryOps],
  ['', binaryOps],
  ['', activationOps],
  ['', reduceOps],
  ['', shapeOps],
  ['', indexOps],
  ['', matmulOps],
  ['', convOps],
  ['', poolOps],
  ['', normOps],
  ['', rnnOps],
  ['', controlOps],
  ['', sequenceOps],
  ['', resizeOps],
  ['', randomOps],
  ['', lossOps],
  ['', quantOps],
  ['', signalOps],
  ['', detectionOps],
  ['', textOps],
  ['', imageOps],
  ['', attentionOps],
  ['ai.onnx.preview.training', trainingOps],
  // Graph-level ops of simplification (fused layers): never in a model file, never listed as supported.
  ['burn-ts', fusedOps],
];

const REGISTRY = new Map<string, OpDef>();
for (const [domain, family] of FAMILIES) {
  for (const [name, def] of Object.entries(family)) REGISTRY.set(`${domain}:${name}`, def);
}

/** The definition of an operator, or undefined when burn-ts does not implement it. */
export function lookupOp(domain: string, opType: string): OpDef | undefined {
  return REGISTRY.get(`${domain === 'ai.onnx' ? '' : domain}:${opType}`);
}

/** Every implemented operator as `domain:OpType` (`:Conv` for the default domain). */
export function supportedOps(): string[] {
  return [...REGISTRY.keys()].filter((k) => !k.startsWith('burn-ts:')).sort();
}

/** Why `node` cannot run under `opset`, or undefined when it can. */
export function unsupportedReason(
  node: Node,
  opset: number | undefined,
  def: OpDef | undefined,
  check: () => string | undefined,
): string | undefined {
  if (!def) return 'not implemented';
  if (opset === undefined) return `its domain '${node.domain}' is not imported by the model`;
  if (node.domain === '' && opset > MAX_OPSET) return `opset ${opset} is newer than the supported ${MAX_OPSET}`;
  if (def.minOpset !== undefined && opset < def.minOpset)
    return `opset ${opset} is older than the supported ${def.minOpset} for this operator`;
  return check();
}
