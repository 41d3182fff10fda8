import type { Backend } from '../../../backend/backend.js';
import { fusedOutputDtype, type FusedCall, type FusedProgram } from '../../../backend/fusion/program.js';
import { replayFused } from '../../../backend/fusion/replay.js';
import type { DType } from '../../../core/dtype.js';
import { numel } from '../../../core/shape.js';
import type { FusedEngineArgs } from '../engine.js';
import type { CpuKernelHost } from '../module-ops.js';
import type { CpuArray, CpuTensor } from '../storage.js';
import { planScalars, slotValue, type ScalarPlan } from './expr.js';
import { compileFusedInterpreter } from './interpreter.js';
import { compileFusedKernel, ROW_CACHE_LIMIT, type FusedJsKernel } from './js-codegen.js';
import { type FusedLayout, fusedLayout, layoutSignature } from './layout.js';

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
  /** Whether the engines may be offered the program. */
  readonly offer: boolean;
  /** The interpreter without and with the row cache. */
  interpreter?: FusedJsKernel;
  interpreterCached?: FusedJsKernel;
}

/** Compiled programs by structural key: the same program never compiles twice. */
const cache = new Map<string, Compiled>();

/** Most programs kept compiled; past it the least recently compiled is dropped (programs built on the fly must not grow the cache forever). */
const CACHE_LIMIT = 4096;

function compiledOf(program: FusedProgram): Compiled {
  let c = cache.get(program.key);
  if (c === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(program.key, (c = { plan: planScalars(program), kernels: new Map(), offer: offerable(program) }));
  }
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

/**
 * Autotune of the fused-vs-unfused choice, as Burn's autotune: the first call of a program at a
 * size class (a power of two of elements, from `minElements`) on a backend runs both candidates —
 * the fused kernel (the engine's, else the generated JavaScript) and the op-by-op replay with the
 * backend's own kernels for softmax, log-softmax and relu (what the unfused device runs) —
 * `warmups` times, then `rounds` times each, alternating, and keeps the faster (best times) for that
 * (program, size class). The replay must be faster by `margin` to win, since fusion also spares
 * the intermediates' memory. When it wins, `fused` declines (returns undefined) and the fusion
 * decorator replays the same way. The candidates compute the same values up to the rounding of
 * their transcendentals, so the choice never changes a result by more than that.
 */
export interface CpuFusedAutotune {
  /** Off: always the fused kernel. */
  readonly enabled: boolean;
  /** Least elements (rows × row length) a call needs to be tuned; smaller ones always run fused. */
  readonly minElements: number;
  /** Untimed runs of each candidate first (the replay's JavaScript is compiled by then). */
  readonly warmups: number;
  /** Timed runs of each candidate. */
  readonly rounds: number;
  /** The replay wins when its best time is below `margin` × the fused kernel's best. */
  readonly margin: number;
  /** The clock (ms). */
  readonly now: () => number;
}

let autotune: CpuFusedAutotune = {
  enabled: true,
  minElements: 1 << 16,
  warmups: 2,
  rounds: 5,
  margin: 0.95,
  now: () => performance.now(),
};

/** Changes the autotune's settings (tests, benchmarks); returns the previous ones. */
export function setCpuFusedAutotune(settings: Partial<CpuFusedAutotune>): CpuFusedAutotune {
  const previous = autotune;
  autotune = { ...autotune, ...settings };
  return previous;
}

/** The choice per backend, program key and size class (nested: no key string built per call). */
const tunings = new WeakMap<object, Map<string, Map<number, 'fused' | 'replay'>>>();

/** The choices made on `backend` (`program key @ size class` → choice), for tests and reports. */
export function cpuFusedChoices(backend: object): Map<string, 'fused' | 'replay'> {
  const out = new Map<string, 'fused' | 'replay'>();
  for (const [key, bySize] of tunings.get(backend) ?? []) for (const [size, c] of bySize) out.set(`${key}@${size}`, c);
  return out;
}

function choicesOf(backend: object, key: string): Map<number, 'fused' | 'replay'> {
  let byKey = tunings.get(backend);
  if (byKey === undefined) tunings.set(backend, (byKey = new Map()));
  let bySize = byKey.get(key);
  if (bySize === undefined) byKey.set(key, (bySize = new Map()));
  return bySize;
}

/** Times each candidate (the best of `rounds` runs after `warmups`, from the call's start: allocation included) and records the faster. */
function tune(
  backend: Backend<CpuTensor>,
  choices: Map<number, 'fused' | 'replay'>,
  size: number,
  fused: () => CpuTensor[],
  replay: () => CpuTensor[],
): 'fused' | 'replay' {
  const timed = (run: () => CpuTensor[]): number => {
    const t0 = autotune.now();
    const outs = run();
    const t = autotune.now() - t0;
    for (const o of outs) backend.dispose?.(o);
    return t;
  };
  for (let w = 0; w < autotune.warmups; w++) {
    timed(fused);
    timed(replay);
  }
  let bestFused = Number.POSITIVE_INFINITY,
    bestReplay = Number.POSITIVE_INFINITY;
  for (let r = 0; r < autotune.rounds; r++) {
    bestFused = Math.min(bestFused, timed(fused));
    bestReplay = Math.min(bestReplay, timed(replay));
  }
  const choice = bestReplay < autotune.margin * bestFused ? 'replay' : 'fused';
  choices.set(size, choice);
  return choice;
}

/**
 * Runs `call` on `backend` (whose kernel host is `host`); returns one new tensor per program
 * output, or undefined where the autotune found the op-by-op replay faster.
 */
export function runFused(
  host: CpuKernelHost,
  backend: Backend<CpuTensor>,
  call: FusedCall<CpuTensor>,
): CpuTensor[] | undefined {
  const layout = fusedLayout(call);
  const n = layout.rows * layout.innerN;
  if (autotune.enabled && n >= autotune.minElements) {
    const choices = choicesOf(backend, call.program.key);
    const size = Math.floor(Math.log2(n));
    const choice =
      choices.get(size) ??
      tune(
        backend,
        choices,
        size,
        () => runKernel(host, call, layout),
        () => replayFused(backend, call, { idioms: true }),
      );
    if (choice === 'replay') return undefined;
  }
  return runKernel(host, call, layout);
}

/** The fused kernel: the engine's where it takes the program, else the generated JavaScript. */
function runKernel(host: CpuKernelHost, call: FusedCall<CpuTensor>, layout: FusedLayout): CpuTensor[] {
  const { program } = call;
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
    if (e.fused && innerN > 0 && compiled.offer) {
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
    if (!done) {
      const K = compiled.plan.slots.map((s) => slotValue(s, call.scalars));
      const useInterpreter = mode === 'interpreter' || (mode === 'auto' && !canEval());
      let kernel: FusedJsKernel;
      let innerRank = layout.innerRank;
      if (useInterpreter) {
        // Elementwise programs run as one row over the whole space (full blocks whatever the layout).
        if (!program.reduces) innerRank = layout.shape.length;
        if (program.reduces && innerN <= ROW_CACHE_LIMIT)
          kernel = compiled.interpreterCached ??=
            (cpuFusedStats.interpreted++, compileFusedInterpreter(program, compiled.plan, undefined, true));
        else
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
