import { scheduleFused, type FusedProgram } from '../../../backend/fusion/program.js';
import type { FusedOperand } from '../engine.js';
import type { CpuArray } from '../storage.js';
import { fusedHelpers, instrExpr, planScalars, REDUCE_ACC, roundExpr, substitute, type ScalarPlan } from './expr.js';

/**
 * The JavaScript generator of fused programs: one `new Function` kernel per program and layout
 * signature. The kernel walks the rows (an odometer over the collapsed outer dims); per row it
 * evaluates the row-level instructions, then each pass of the schedule (scheduleFused) as a loop
 * over the row's inner index (an odometer over the inner dims but the last, a tight loop over the
 * last) computing that pass's element instructions, accumulating its reductions and storing its
 * element outputs; row outputs are stored at the end of the row. An elementwise program is one
 * pass whose "row" is the innermost dim. Every instruction's result is rounded to its dtype as
 * storing it would round it, so values equal the unfused kernels'.
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

/** The source of the kernel of `program` for a layout signature (layout.ts), and its scalar plan. */
export function fusedKernelSource(
  program: FusedProgram,
  signature: string,
  plan: ScalarPlan = planScalars(program),
): string {
  const { instrs, inputs, outputs } = program;
  const schedule = scheduleFused(program);
  const L: string[] = [];
  const name = (v: number) => `v${v}`;
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
  L.push('let e = 0, q = 0;');

  /** The statement defining value `i` (not a scalar, not a reduce). */
  const define = (i: number, element: boolean): string => {
    const instr = instrs[i]!;
    if (instr.kind === 'load') {
      const k = instr.input;
      if (!element) return `const ${name(i)} = a${k}[b${k}];`;
      const cls = signature[k];
      const at = cls === 'u' ? `p${k} + j` : cls === 'z' ? `p${k}` : `p${k} + j * j${k}`;
      return `const ${name(i)} = a${k}[${at}];`;
    }
    const names: { x?: string; y?: string; c?: string } = {};
    if ('x' in instr) names.x = name(instr.x);
    if ('y' in instr) {
      const slot = plan.binarySlot.get(i);
      names.y = slot !== undefined ? `k${slot}` : name(instr.y);
    }
    if ('c' in instr) names.c = name(instr.c);
    return `const ${name(i)} = ${substitute(instrExpr(program, instr), names)};`;
  };
  const rowStatements = (list: readonly number[]) => {
    for (const i of list) if (instrs[i]!.kind !== 'scalar') L.push(define(i, false));
  };

  L.push('for (let r = 0; r < rows; r++) {');
  schedule.passes.forEach((pass, p) => {
    rowStatements(schedule.rowBefore[p]!);
    const loaded = new Set<number>();
    for (const i of pass.elementInstrs) {
      const instr = instrs[i]!;
      if (instr.kind === 'load') loaded.add(instr.input);
    }
    for (const r of pass.reduces)
      L.push(`let acc${r} = ${REDUCE_ACC[(instrs[r] as { op: keyof typeof REDUCE_ACC }).op].init};`);
    const moving = [...loaded];
    L.push(`${moving.map((k) => `p${k} = b${k};`).join(' ')} q = e;`);
    L.push('for (let l = 0; l < lines; l++) {');
    L.push('for (let j = 0; j < n; j++) {');
    for (const i of pass.elementInstrs) if (instrs[i]!.kind !== 'scalar') L.push(define(i, true));
    for (const r of pass.reduces) {
      const instr = instrs[r]!;
      if (instr.kind !== 'reduce') continue;
      L.push(REDUCE_ACC[instr.op].step.replace(/\bacc\b/g, `acc${r}`).replace(/\bv\b/g, name(instr.x)));
    }
    for (const k of pass.stores) L.push(`o${k}[q + j] = ${name(outputs[k]!.value)};`);
    L.push('}');
    L.push('q += n;');
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
  return `"use strict";\nreturn function fused(shape, innerRank, I, O, K) {\n${L.join('\n')}\n};`;
}

/** Compiles the kernel of `program` for a layout signature. */
export function compileFusedKernel(program: FusedProgram, signature: string, plan?: ScalarPlan): FusedJsKernel {
  return new Function('H', fusedKernelSource(program, signature, plan))(fusedHelpers) as FusedJsKernel;
}
