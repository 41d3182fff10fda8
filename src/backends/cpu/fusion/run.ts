import { fusedOutputDtype, type FusedCall, type FusedProgram } from '../../../backend/fusion/program.js';
import type { DType } from '../../../core/dtype.js';
import { numel } from '../../../core/shape.js';
import type { FusedEngineArgs } from '../engine.js';
import type { CpuKernelHost } from '../module-ops.js';
import type { CpuArray, CpuTensor } from '../storage.js';
import { planScalars, slotValue, type ScalarPlan } from './expr.js';
import { compileFusedInterpreter } from './interpreter.js';
import { compileFusedKernel, ROW_CACHE_LIMIT, type FusedJsKernel } from './js-codegen.js';
import { fusedLayout, layoutSignature } from './layout.js';

/**
 * `CpuBackend.fused`: runs a fused program (src/backend/fusion/program.ts) as one kernel. The
 * outputs come from the backend's pool; the inputs are laid out over the collapsed iteration space
 * (layout.ts); the engine's `fused` kernel is offered the work where it can reproduce the rounding
 * (f32/f64 programs), and otherwise — or when it declines — the generated JavaScript runs
 * (js-codegen.ts), or the closure interpreter (interpreter.ts) where `new Function` is forbidden.
 */

/** Which compiler the CPU's fused programs use: `auto` (the generated function unless `eval` is forbidden) or one forced (tests). */
export type CpuFusedCodegen = 'auto' | 'function' | 'interpreter';

let mode: CpuFusedCodegen = 'auto';
let evalAllowed: boolean | undefined;

/** Forces the generated-function or the interpreter path for every CPU backend (tests, benchmarks); `auto` restores the default. */
export function setCpuFusedCodegen(m: CpuFusedCodegen): void {
  mode = m;
}

/** Whether `new Function` works here (false under a CSP without `unsafe-eval`); tried once. */
function canEval(): boolean {
  if (evalAllowed === undefined) {
    try {
      evalAllowed = new Function('return 1')() === 1;
    } catch {
      evalAllowed = false;
    }
  }
  return evalAllowed;
}

/** Counters of the fused-kernel caches (tests assert that a program compiles once). */
export const cpuFusedStats = { compiled: 0, interpreted: 0, runs: 0, engineRuns: 0 };

interface Compiled {
  readonly plan: ScalarPlan;
  /** Generated kernels by layout signature. */
  readonly kernels: Map<string, FusedJsKernel>;
  interpreter?: FusedJsKernel;
}

/** Compiled programs by structural key: the same program never compiles twice. */
const cache = new Map<string, Compiled>();

function compiledOf(program: FusedProgram): Compiled {
  let c = cache.get(program.key);
  if (c === undefined) cache.set(program.key, (c = { plan: planScalars(program), kernels: new Map() }));
  return c;
}

const OFFERED = new Set<DType>(['f32', 'f64']);

/**
 * Whether the engines may take `program`: f32/f64 inputs and outputs (engines compute in the
 * array's own precision: half precision and integer wrapping are not theirs), f32/f64/bool
 * intermediates.
 */
function offerable(program: FusedProgram): boolean {
  return (
    program.inputs.every((x) => OFFERED.has(x.dtype)) &&
    program.instrs.every((x) => OFFERED.has(x.dtype) || x.dtype === 'bool') &&
    program.outputs.every((o) => OFFERED.has(program.instrs[o.value]!.dtype))
  );
}

const offerCache = new Map<string, boolean>();

/** Runs `call` on the CPU backend behind `host`; returns one new tensor per program output. */
export function runFused(host: CpuKernelHost, call: FusedCall<CpuTensor>): CpuTensor[] {
  const { program } = call;
  const layout = fusedLayout(call);
  const { rows, innerN } = layout;
  const outShapes = program.outputs.map((o) =>
    program.levels[o.value] === 'row' ? [...call.outer] : [...call.outer, ...call.inner],
  );
  const dtypes = program.outputs.map((_, k) => fusedOutputDtype(program, k));
  const outs: CpuArray[] = outShapes.map((s, k) => host.alloc(dtypes[k]!, numel(s)));
  if (rows > 0) {
    cpuFusedStats.runs++;
    const compiled = compiledOf(program);
    const e = host.engine;
    let done = false;
    if (e.fused && innerN > 0) {
      let offer = offerCache.get(program.key);
      if (offer === undefined) offerCache.set(program.key, (offer = offerable(program)));
      if (offer) {
        const args: FusedEngineArgs = {
          program,
          shape: layout.shape,
          innerRank: layout.innerRank,
          inputs: layout.inputs,
          outputs: outs,
          scalars: call.scalars,
        };
        done = e.fused(args) !== undefined;
        if (done) cpuFusedStats.engineRuns++;
      }
    }
    if (!done) {
      const K = compiled.plan.slots.map((s) => slotValue(s, call.scalars));
      const useInterpreter = mode === 'interpreter' || (mode === 'auto' && !canEval());
      let kernel: FusedJsKernel;
      let innerRank = layout.innerRank;
      if (useInterpreter) {
        // Elementwise programs run as one row over the whole space (full blocks whatever the layout).
        if (!program.reduces) innerRank = layout.shape.length;
        kernel = compiled.interpreter ??=
          (cpuFusedStats.interpreted++, compileFusedInterpreter(program, compiled.plan));
      } else {
        // Elementwise programs loop over the innermost dim, the outer ones as rows.
        if (!program.reduces) innerRank = Math.min(1, layout.shape.length);
        let sig = layoutSignature(
          program.inputs.map((x) => x.level),
          layout,
          innerRank,
        );
        // Rows short enough keep expensive element values for later passes.
        if (program.reduces && innerN <= ROW_CACHE_LIMIT) sig += 'C';
        let k = compiled.kernels.get(sig);
        if (k === undefined) {
          cpuFusedStats.compiled++;
          compiled.kernels.set(sig, (k = compileFusedKernel(program, sig, compiled.plan)));
        }
        kernel = k;
      }
      kernel(layout.shape, innerRank, layout.inputs, outs, K);
    }
  }
  return outs.map((o, k) => host.own(o, outShapes[k]!, dtypes[k]!));
}
