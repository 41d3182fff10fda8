import { instrArgs, scheduleFused, type FusedProgram, type FusedSchedule } from '../../../backend/fusion/program.js';
import type { FusedOperand } from '../engine.js';
import type { CpuArray } from '../storage.js';
import {
  fusedHelpers,
  instrExpr,
  opExpr,
  planScalars,
  REDUCE_ACC,
  roundExpr,
  substitute,
  type ScalarPlan,
} from './expr.js';

/**
 * The JavaScript generator of fused programs: one `new Function` kernel per program and layout
 * signature. The kernel walks the rows (an odometer over the collapsed outer dims); per row it
 * evaluates the row-level instructions, then each pass of the schedule (scheduleFused) as a loop
 * over the row's inner index (an odometer over the inner dims but the last, a tight loop over the
 * last) computing that pass's element instructions, accumulating its reductions and storing its
 * element outputs; row outputs are stored at the end of the row. An elementwise program is one
 * pass whose "row" is the innermost dim. Every instruction's result is rounded to its dtype as
 * storing it would round it, so values equal the unfused kernels'; reductions accumulate in the
 * unfused kernel's order (row-major over the inner dims, in doubles), so they are equal too.
 *
 * Two departures from "everything in one loop", each measured to pay (in one loop the 8-op chain
 * with exp, tanh and sigmoid ran 1.5x slower than unfused, softmax 1.4x slower):
 * - a pass computing several values through calls V8 does not inline is split into segments,
 *   each a tight loop over a block of the row (the calls' latencies overlap across elements);
 * - an expensive value a later pass needs again is kept in a row-long array (the row cache).
 */

/**
 * A generated kernel: `shape` is the collapsed iteration space whose last `innerRank` dims are the
 * row; `I` the inputs over it, `O` the contiguous outputs, `K` the scalar slot values.
 */
export type FusedJsKernel = (
  shape: readonly number[],
  innerRank: number,
  I: readonly FusedOperand[],
  O: readonly CpuArray[],
  K: readonly number[],
) => void;

/** Elements per block where a pass is split into segments (see {@link fusedKernelSource}). */
const SEGMENT_BLOCK = 256;

/** Rows up to this many elements keep expensive element values for later passes (row cache). */
export const ROW_CACHE_LIMIT = 65536;

// Calls that V8 does not inline in a large kernel (libm-style functions, BigInt helpers, bf16 rounding):
// each costs tens of cycles.
const EXPENSIVE =
  /Math\.(exp|expm1|log|log1p|log2|log10|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|pow|cbrt)\(|H\.(erf|powInt32|i64|bf16)/;

/**
 * The f16 rounding of `V` in place, written out: expr.ts's roundF16 (the same values as the
 * backend's bit-encoding rounding), with `P2` its table of powers of two.
 */
const F16_INLINE =
  'const x_ = Math.fround(V), a_ = Math.abs(x_); let r_; ' +
  'if (a_ < 6.103515625e-5) r_ = (a_ * 16777216 + 6755399441055744 - 6755399441055744) / 16777216; ' +
  'else if (a_ < 65520) { const q_ = P2[(a_ < 128 ? 7 - Math.clz32(a_ * 16777216) : 31 - Math.clz32(a_)) + 30]; ' +
  'r_ = (a_ / q_ + 6755399441055744 - 6755399441055744) * q_; } ' +
  'else r_ = a_ >= 65520 ? Infinity : NaN; ' +
  'V = x_ < 0 || (x_ === 0 && 1 / x_ < 0) ? -r_ : r_;';

/** How one pass of a row runs: what it computes, what it reads back from the row cache, what it keeps there. */
export interface PassPlan {
  /** Element instructions computed in the pass (ascending; no scalars, no cache reads). */
  readonly compute: readonly number[];
  /** Element values read from the row cache (computed by an earlier pass). */
  readonly cacheReads: ReadonlySet<number>;
  /** Element values this pass writes to the row cache for later passes. */
  readonly cacheWrites: readonly number[];
}

/**
 * Per pass, the element work: the schedule recomputes element values in every pass that needs
 * them; with the row cache, an expensive value (a call V8 does not inline) computed in one pass is
 * kept in a row-long array and read back by later passes (softmax's exp is computed once).
 */
export function planPasses(program: FusedProgram, schedule: FusedSchedule, rowCache: boolean): PassPlan[] {
  const { instrs, levels, outputs } = program;
  const expensive = (i: number) => {
    const instr = instrs[i]!;
    return (
      instr.kind !== 'load' &&
      instr.kind !== 'scalar' &&
      instr.kind !== 'reduce' &&
      EXPENSIVE.test(instrExpr(program, instr))
    );
  };
  const roots = (p: number) => [
    ...schedule.passes[p]!.reduces.map((r) => (instrs[r] as { x: number }).x),
    ...schedule.passes[p]!.stores.map((k) => outputs[k]!.value),
  ];
  let cached = new Set<number>();
  if (rowCache)
    schedule.passes.forEach((pass, p) => {
      for (const v of pass.elementInstrs)
        if (expensive(v) && schedule.passes.slice(p + 1).some((later) => later.elementInstrs.includes(v)))
          cached.add(v);
    });
  for (;;) {
    const firstPass = new Map<number, number>();
    const plans = schedule.passes.map((_, p) => {
      const compute = new Set<number>(),
        reads = new Set<number>();
      const stack = roots(p);
      while (stack.length > 0) {
        const v = stack.pop()!;
        if (levels[v] !== 'element' || compute.has(v) || reads.has(v) || instrs[v]!.kind === 'scalar') continue;
        const first = firstPass.get(v);
        if (cached.has(v) && first !== undefined && first < p) {
          reads.add(v);
          continue;
        }
        compute.add(v);
        stack.push(...instrArgs(instrs[v]!));
      }
      for (const v of compute) if (!firstPass.has(v)) firstPass.set(v, p);
      return { compute: [...compute].sort((a, b) => a - b), cacheReads: reads };
    });
    // Keep only the cached values some later pass reads.
    const read = new Set(plans.flatMap((pl) => [...pl.cacheReads]));
    const next = new Set([...cached].filter((v) => read.has(v)));
    if (next.size === cached.size)
      return plans.map((pl, p) => ({
        ...pl,
        cacheWrites: pl.compute.filter((v) => cached.has(v) && firstPass.get(v) === p),
      }));
    cached = next;
  }
}

/**
 * The source of the kernel of `program` for a layout signature (layout.ts; a trailing `C` turns
 * the row cache on). A pass computing more than one expensive value is split into segments, one
 * loop each over blocks of the row: a chain of calls V8 does not inline runs much faster as one
 * tight loop per call (their latencies overlap across elements) than all in one loop; values that
 * cross segments go through block registers, loads are read again.
 */
export function fusedKernelSource(
  program: FusedProgram,
  signature: string,
  plan: ScalarPlan = planScalars(program),
): string {
  const { instrs, inputs, outputs } = program;
  const schedule = scheduleFused(program);
  const rowCache = signature.endsWith('C');
  const plans = planPasses(program, schedule, rowCache);
  const L: string[] = [];
  const name = (v: number) => `v${v}`;
  /** Whether value `i` is an f16 result whose rounding is written inline (see {@link F16_INLINE}). */
  const halfInline = (i: number): boolean => {
    const instr = instrs[i]!;
    return (
      instr.dtype === 'f16' &&
      instr.kind !== 'load' &&
      instr.kind !== 'scalar' &&
      instr.kind !== 'reduce' &&
      opExpr(program, instr).rounds
    );
  };
  L.push('const P2 = H.P2;');
  const nIn = inputs.length;
  L.push('const rank = shape.length, oRank = rank - innerRank;');
  L.push('let rows = 1; for (let d = 0; d < oRank; d++) rows *= shape[d];');
  L.push('let innerN = 1; for (let d = oRank; d < rank; d++) innerN *= shape[d];');
  L.push('const n = innerRank > 0 ? shape[rank - 1] : 1, lines = n > 0 ? innerN / n : 0;');
  L.push('const oIdx = new Int32Array(oRank + 1), iIdx = new Int32Array(innerRank + 1);');
  for (let k = 0; k < nIn; k++) {
    L.push(`const a${k} = I[${k}].data, s${k} = I[${k}].strides; let b${k} = I[${k}].offset, p${k} = 0;`);
    if (signature[k] === 'g') L.push(`const j${k} = s${k}[rank - 1];`);
  }
  outputs.forEach((_, k) => L.push(`const o${k} = O[${k}];`));
  plan.slots.forEach((_, k) => L.push(`const k${k} = K[${k}];`));
  // Scalars are constants of the call: hoisted out of every loop.
  for (const [i, slot] of plan.valueSlot) L.push(`const ${name(i)} = k${slot};`);
  for (const pl of plans) for (const v of pl.cacheWrites) L.push(`const c${v} = new Float64Array(innerN);`);
  L.push('let e = 0, q = 0, c = 0;');
  // Block registers of values crossing segments, declared here (filled in below).
  const regsAt = L.length;
  const regs: string[] = [];

  /** The expression of value `i` (not a scalar, not a reduce) at inner index `j`. */
  const valueExpr = (i: number, element: boolean, cacheRead: boolean): string => {
    if (cacheRead) return `c${i}[c + j]`;
    const instr = instrs[i]!;
    if (instr.kind === 'load') {
      const k = instr.input;
      if (!element) return `a${k}[b${k}]`;
      const cls = signature[k];
      return `a${k}[${cls === 'u' ? `p${k} + j` : cls === 'z' ? `p${k}` : `p${k} + j * j${k}`}]`;
    }
    const names: { x?: string; y?: string; c?: string } = {};
    if ('x' in instr) names.x = name(instr.x);
    if ('y' in instr) {
      const slot = plan.binarySlot.get(i);
      names.y = slot !== undefined ? `k${slot}` : name(instr.y);
    }
    if ('c' in instr) names.c = name(instr.c);
    if (halfInline(i)) return substitute(opExpr(program, instr).expr, names);
    return substitute(instrExpr(program, instr), names);
  };
  /** The statement defining value `i`: f16 rounding is written out inline (a call of it is not inlined in large kernels). */
  const define = (i: number, element: boolean, cacheRead: boolean): string => {
    const v = name(i);
    const e = valueExpr(i, element, cacheRead);
    if (cacheRead || !halfInline(i)) return `const ${v} = ${e};`;
    return `let ${v} = ${e}; { ${F16_INLINE.replace(/\bV\b/g, v)} }`;
  };
  const rowStatements = (list: readonly number[]) => {
    for (const i of list) if (instrs[i]!.kind !== 'scalar') L.push(define(i, false, false));
  };
  const elementArgs = (i: number) =>
    instrArgs(instrs[i]!).filter((a) => program.levels[a] === 'element' && instrs[a]!.kind !== 'scalar');

  L.push('for (let r = 0; r < rows; r++) {');
  schedule.passes.forEach((pass, p) => {
    rowStatements(schedule.rowBefore[p]!);
    const pl = plans[p]!;
    // Loads and cache reads are read again in each segment that needs them; the rest is split so
    // that each segment computes at most one expensive value.
    const remat = (v: number) => pl.cacheReads.has(v) || instrs[v]!.kind === 'load';
    const segments: number[][] = [[]];
    let costly = 0;
    for (const v of pl.compute) {
      if (remat(v)) continue;
      const isCostly = EXPENSIVE.test(valueExpr(v, true, false));
      if (isCostly && costly > 0) {
        segments.push([]);
        costly = 0;
      }
      if (isCostly) costly++;
      segments[segments.length - 1]!.push(v);
    }
    const segOf = new Map<number, number>();
    segments.forEach((seg, k) => {
      for (const v of seg) segOf.set(v, k);
    });
    const last = segments.length - 1;
    const reduceXs = pass.reduces.map((r) => (instrs[r] as { x: number }).x);
    const storeVs = pass.stores.map((k) => outputs[k]!.value);
    // Values used in a later segment than the one computing them live in block registers.
    const crossing = new Set<number>();
    const needsOf = segments.map((seg, k) => {
      const needs = new Set<number>();
      for (const v of seg) for (const a of elementArgs(v)) needs.add(a);
      if (k === last)
        for (const v of [...reduceXs, ...storeVs])
          if (program.levels[v] === 'element' && instrs[v]!.kind !== 'scalar') needs.add(v);
      for (const v of needs) if (!remat(v) && segOf.get(v) !== k) crossing.add(v);
      return needs;
    });
    const blocked = segments.length > 1;
    for (const v of crossing) regs.push(`const t${v}_${p} = new Float64Array(${SEGMENT_BLOCK});`);
    for (const r of pass.reduces)
      L.push(`let acc${r} = ${REDUCE_ACC[(instrs[r] as { op: keyof typeof REDUCE_ACC }).op].init};`);
    const moving = [
      ...new Set(
        pl.compute.filter((v) => instrs[v]!.kind === 'load').map((v) => (instrs[v] as { input: number }).input),
      ),
    ];
    L.push(`${moving.map((k) => `p${k} = b${k};`).join(' ')} q = e; c = 0;`);
    L.push('for (let l = 0; l < lines; l++) {');
    if (blocked) L.push(`for (let s = 0; s < n; s += ${SEGMENT_BLOCK}) { const m = Math.min(${SEGMENT_BLOCK}, n - s);`);
    segments.forEach((seg, k) => {
      L.push(blocked ? 'for (let i = 0; i < m; i++) { const j = s + i;' : 'for (let j = 0; j < n; j++) {');
      const needs = needsOf[k]!;
      for (const v of [...needs].sort((a, b) => a - b)) {
        if (remat(v)) L.push(`const ${name(v)} = ${valueExpr(v, true, pl.cacheReads.has(v))};`);
        else if (segOf.get(v) !== k) L.push(`const ${name(v)} = t${v}_${p}[i];`);
      }
      for (const v of seg) L.push(define(v, true, false));
      for (const v of seg) if (crossing.has(v)) L.push(`t${v}_${p}[i] = ${name(v)};`);
      for (const v of pl.cacheWrites) if (segOf.get(v) === k) L.push(`c${v}[c + j] = ${name(v)};`);
      if (k === last) {
        for (const r of pass.reduces) {
          const instr = instrs[r]!;
          if (instr.kind === 'reduce')
            L.push(REDUCE_ACC[instr.op].step.replace(/\bacc\b/g, `acc${r}`).replace(/\bv\b/g, name(instr.x)));
        }
        for (const k2 of pass.stores) L.push(`o${k2}[q + j] = ${name(outputs[k2]!.value)};`);
      }
      L.push('}');
    });
    if (blocked) L.push('}');
    L.push('q += n; c += n;');
    // The inner odometer over the row's dims but the last.
    if (moving.length > 0) {
      L.push('for (let d = rank - 2; d >= oRank; d--) {');
      L.push(moving.map((k) => `p${k} += s${k}[d];`).join(' '));
      L.push('if (++iIdx[d - oRank] < shape[d]) break;');
      L.push(`iIdx[d - oRank] = 0; ${moving.map((k) => `p${k} -= s${k}[d] * shape[d];`).join(' ')}`);
      L.push('}');
    }
    L.push('}');
    for (const r of pass.reduces) {
      const instr = instrs[r]!;
      if (instr.kind !== 'reduce') continue;
      // The unfused max/min of an empty row reads a value that does not exist: NaN.
      const acc = instr.op === 'max' || instr.op === 'min' ? `(innerN === 0 ? NaN : acc${r})` : `acc${r}`;
      const round = roundExpr(instr.dtype);
      L.push(`const ${name(r)} = ${round === undefined ? acc : substitute(round, { x: acc })};`);
    }
  });
  rowStatements(schedule.rowBefore[schedule.passes.length]!);
  for (const k of schedule.rowStores) L.push(`o${k}[r] = ${name(outputs[k]!.value)};`);
  L.push('e += innerN;');
  if (nIn > 0) {
    L.push('for (let d = oRank - 1; d >= 0; d--) {');
    L.push(inputs.map((_, k) => `b${k} += s${k}[d];`).join(' '));
    L.push('if (++oIdx[d] < shape[d]) break;');
    L.push(`oIdx[d] = 0; ${inputs.map((_, k) => `b${k} -= s${k}[d] * shape[d];`).join(' ')}`);
    L.push('}');
  }
  L.push('}');
  L.splice(regsAt, 0, ...regs);
  return `"use strict";\nreturn function fused(shape, innerRank, I, O, K) {\n${L.join('\n')}\n};`;
}

/** Compiles the kernel of `program` for a layout signature. */
export function compileFusedKernel(program: FusedProgram, signature: string, plan?: ScalarPlan): FusedJsKernel {
  return new Function('H', fusedKernelSource(program, signature, plan))(fusedHelpers) as FusedJsKernel;
}
