// The burn-ts WebAssembly CPU engine: kernels over f32 data in this module's memory. Every task is
// split into jobs (`run(kind, args, job, tid)`), which the JavaScript side runs on the calling
// thread or spreads over worker threads sharing this memory. No allocation happens here: the
// JavaScript side lays out inputs, outputs, argument blocks and per-thread scratch.
import { gemmJob, gemmPackBJob, gemmRowsJob } from './gemm';
import { binaryJob, scalarJob, stridedJob, unaryJob } from './elementwise';
import { reduceJob, softmaxJob } from './rows';
import { col2imJob, dotJob, im2colJob, maxPoolJob } from './conv';
import { randomJob } from './random';
import { adamJob } from './optim';
import { fusedJob } from './fused';

export { MR, NR, KC, gemmScratchBytes } from './gemm';
export * from './elementwise';
export { REDUCE_sum, REDUCE_prod, REDUCE_max, REDUCE_min } from './rows';
export { RANDOM_default, RANDOM_uniform, RANDOM_bernoulli } from './random';
export * from './fused';

export const KIND_gemm: i32 = 0;
export const KIND_unary: i32 = 1;
export const KIND_binary: i32 = 2;
export const KIND_scalar: i32 = 3;
export const KIND_reduce: i32 = 4;
export const KIND_softmax: i32 = 5;
export const KIND_im2col: i32 = 6;
export const KIND_maxPool: i32 = 7;
export const KIND_col2im: i32 = 8;
export const KIND_strided: i32 = 9;
export const KIND_gemmPackB: i32 = 10;
export const KIND_gemmRows: i32 = 11;
export const KIND_random: i32 = 12;
export const KIND_adam: i32 = 13;
export const KIND_dot: i32 = 14;
export const KIND_fused: i32 = 15;

/** Runs job `job` of a task of `kind` whose argument block is at `args`, on thread `tid`. */
export function run(kind: i32, args: usize, job: i32, tid: i32): void {
  switch (kind) {
    case KIND_gemm: gemmJob(args, job, tid); break;
    case KIND_unary: unaryJob(args, job); break;
    case KIND_binary: binaryJob(args, job); break;
    case KIND_scalar: scalarJob(args, job); break;
    case KIND_reduce: reduceJob(args, job); break;
    case KIND_softmax: softmaxJob(args, job); break;
    case KIND_im2col: im2colJob(args, job); break;
    case KIND_maxPool: maxPoolJob(args, job); break;
    case KIND_col2im: col2imJob(args, job); break;
    case KIND_gemmPackB: gemmPackBJob(args, job); break;
    case KIND_gemmRows: gemmRowsJob(args, job, tid); break;
    case KIND_random: randomJob(args, job); break;
    case KIND_adam: adamJob(args); break;
    case KIND_dot: dotJob(args, job); break;
    case KIND_fused: fusedJob(args, job, tid); break;
    default: stridedJob(args, job); break;
  }
}

/** Runs jobs [first, last) of a task in order (the single-threaded path: one call from JavaScript). */
export function runRange(kind: i32, args: usize, first: i32, last: i32): void {
  for (let j = first; j < last; j++) run(kind, args, j, 0);
}

/** First byte after the module's static data: the JavaScript side lays out memory from here. */
export function heapBase(): usize {
  return __heap_base;
}
