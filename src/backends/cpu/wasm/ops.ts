/**
 * The wasm engine's op tables: the module's op codes and task kinds, which it exports by name
 * (`UNARY_exp`, `KIND_gemm`, … in wasm/assembly/), matched by name (see ../op-codes.ts); the ops'
 * cost classes are in ../op-cost.ts.
 */
import { BINARY_OPS, REDUCE_OPS, UNARY_OPS, type BinaryOp, type ReduceOp, type UnaryOp } from '../../../backend/ops.js';
import type { UniformDistribution } from '../engine.js';
import { opCodesByName, type OpCodes } from '../op-codes.js';
import type { WasmRuntime } from './runtime.js';

/** The module's binary op `a <= 0 ? 0 : b` (the ReLU gradient from its output; not a tensor op of its own). */
export type WasmBinaryOp = BinaryOp | 'reluGrad';

/** The module's tasks (`run(kind, …)` in wasm/assembly/index.ts). */
export const TASK_KINDS = [
  'gemm',
  'gemmPackB',
  'gemmRows',
  'unary',
  'binary',
  'scalar',
  'reduce',
  'softmax',
  'im2col',
  'maxPool',
  'col2im',
  'strided',
  'random',
  'adam',
  'dot',
  'fused',
] as const;
/** One of the module's tasks. */
export type TaskKind = (typeof TASK_KINDS)[number];

const RANDOM_KINDS = ['default', 'uniform', 'bernoulli'] as const;

/** The module's codes, keyed by every TypeScript name (undefined: the module lacks the op). */
export interface WasmOpCodes {
  readonly unary: OpCodes<UnaryOp>;
  readonly binary: OpCodes<WasmBinaryOp>;
  readonly reduce: OpCodes<ReduceOp>;
  readonly random: OpCodes<UniformDistribution['kind']>;
  readonly kind: OpCodes<TaskKind>;
}

/** The codes the module exports; throws on a name the TypeScript side does not know. */
export function wasmOpCodes(rt: WasmRuntime): WasmOpCodes {
  return {
    unary: opCodesByName('wasm module UNARY_*', UNARY_OPS, rt.constantsNamed('UNARY')),
    binary: opCodesByName('wasm module BINARY_*', [...BINARY_OPS, 'reluGrad'], rt.constantsNamed('BINARY')),
    reduce: opCodesByName('wasm module REDUCE_*', REDUCE_OPS, rt.constantsNamed('REDUCE')),
    random: opCodesByName('wasm module RANDOM_*', RANDOM_KINDS, rt.constantsNamed('RANDOM')),
    kind: opCodesByName('wasm module KIND_*', TASK_KINDS, rt.constantsNamed('KIND')),
  };
}

/** The task kinds, every one required: the engine cannot run without them. */
export function requiredKinds(codes: OpCodes<TaskKind>): Readonly<Record<TaskKind, number>> {
  const out = {} as Record<TaskKind, number>;
  for (const k of TASK_KINDS) {
    const code = codes[k];
    if (code === undefined) throw new Error(`wasm engine: the module exports no task KIND_${k}`);
    out[k] = code;
  }
  return out;
}
