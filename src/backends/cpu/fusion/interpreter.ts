import { scheduleFused, type FusedProgram } from '../../../backend/fusion/program.js';
import type { ReduceOp } from '../../../backend/ops.js';
import type { DType } from '../../../core/dtype.js';
import { cpuArrayCtor, type CpuArray } from '../storage.js';
import { compileBlockExpr, type Reg, type Step } from './block-expr.js';
import { fusedHelpers, instrExpr, planScalars, roundBf16, roundF16, type ScalarPlan } from './expr.js';
import { planPasses, type FusedJsKernel } from './js-codegen.js';

/**
 * The fused-program path without `eval` (pages whose Content-Security-Policy forbids
 * `new Function`): the program is compiled once into closures over registers of `block` values
 * (block-expr.ts) and run block by block: per row, per pass of the schedule, the row's inner
 * elements in blocks — gather the loads, run each instruction's steps over the block, accumulate
 * the reductions, store the outputs. Row-level values are computed once per row and broadcast
 * into their registers. With `rowCache`, expensive element values a later pass needs are kept
 * in row-long arrays instead of being recomputed (as the generated kernel does). The same
 * expressions and roundings as the generated kernel, in the same order, so the same values.
 */

/** Elements per block of the interpreter (measured: 512 as fast as 2048, smaller blocks slower; registers stay in L1/L2). */
export const INTERPRETER_BLOCK = 512;

/** Rounds one value to `dtype` as storing it in that dtype's CPU array does. */
function storeRounding(dtype: DType): (v: number) => number {
  if (dtype === 'f16') return roundF16;
  if (dtype === 'bf16') return roundBf16;
  if (dtype === 'f64' || dtype === 'i64' || dtype === 'bool') return (v) => v;
  const a = new (cpuArrayCtor(dtype))(1);
  return (v) => {
    a[0] = v;
    return a[0]!;
  };
}

type Accumulate = (r: Reg, n: number, acc: number) => number;

// One loop per reduce op, as the unfused kernel steps (../js/reduce.ts).
const ACCUMULATE: Record<ReduceOp, { readonly init: number; readonly step: Accumulate }> = {
  sum: {
    init: 0,
    step: (r, n, acc) => {
      for (let i = 0; i < n; i++) acc += r[i]!;
      return acc;
    },
  },
  prod: {
    init: 1,
    step: (r, n, acc) => {
      for (let i = 0; i < n; i++) acc *= r[i]!;
      return acc;
    },
  },
  max: {
    init: -Infinity,
    step: (r, n, acc) => {
      for (let i = 0; i < n; i++) {
        const v = r[i]!;
        if (v > acc || v !== v) acc = v;
      }
      return acc;
    },
  },
  min: {
    init: Infinity,
    step: (r, n, acc) => {
      for (let i = 0; i < n; i++) {
        const v = r[i]!;
        if (v < acc || v !== v) acc = v;
      }
      return acc;
    },
  },
  any: {
    init: 0,
    step: (r, n, acc) => {
      for (let i = 0; i < n; i++) if (r[i] !== 0) acc = 1;
      return acc;
    },
  },
  all: {
    init: 1,
    step: (r, n, acc) => {
      for (let i = 0; i < n; i++) if (r[i] === 0) acc = 0;
      return acc;
    },
  },
};

/**
 * Copies `n` values of a strided operand into `r`: the elements `start ..` (row-major) of the
 * iteration space `shape` read at `base + Σ index_d · strides_d`.
 */
function gather(
  r: Reg,
  n: number,
  data: CpuArray,
  base: number,
  shape: readonly number[],
  strides: readonly number[],
  start: number,
  idx: Int32Array,
): void {
  const rank = shape.length;
  if (rank <= 1) {
    const s = rank === 0 ? 0 : strides[0]!;
    const p = base + start * s;
    if (s === 1) for (let i = 0; i < n; i++) r[i] = data[p + i]!;
    else if (s === 0) r.fill(data[p]!, 0, n);
    else for (let i = 0; i < n; i++) r[i] = data[p + i * s]!;
    return;
  }
  let p = base,
    rest = start;
  for (let d = rank - 1; d >= 0; d--) {
    const size = shape[d]!;
    const at = rest % size;
    rest = (rest - at) / size;
    idx[d] = at;
    p += at * strides[d]!;
  }
  const last = rank - 1,
    len = shape[last]!,
    s = strides[last]!;
  let i = 0;
  while (i < n) {
    const run = Math.min(len - idx[last]!, n - i);
    for (let t = 0; t < run; t++) r[i + t] = data[p + t * s]!;
    i += run;
    p += run * s;
    idx[last]! += run;
    if (idx[last] === len) {
      idx[last] = 0;
      p -= len * s;
      for (let d = last - 1; d >= 0; d--) {
        p += strides[d]!;
        if (++idx[d]! < shape[d]!) break;
        idx[d] = 0;
        p -= strides[d]! * shape[d]!;
      }
    }
  }
}

interface Pass {
  /** Row-level instructions before the pass: loads (input index) or steps. */
  readonly before: readonly RowInstr[];
  readonly loads: readonly { readonly reg: Reg; readonly input: number }[];
  /** Element values read back from (written to) the row cache: an array per value, one entry per row element. */
  readonly cacheReads: readonly { readonly reg: Reg; readonly slot: number }[];
  readonly cacheWrites: readonly { readonly reg: Reg; readonly slot: number }[];
  readonly steps: readonly Step[];
  readonly reduces: readonly {
    readonly value: number;
    readonly x: Reg;
    readonly op: ReduceOp;
    readonly round: (v: number) => number;
  }[];
  readonly stores: readonly { readonly output: number; readonly reg: Reg }[];
}

type RowInstr = { readonly reg: Reg; readonly input: number } | { readonly reg: Reg; readonly steps: readonly Step[] };

/** Compiles `program` into an interpreter with the generated kernel's signature. */
export function compileFusedInterpreter(
  program: FusedProgram,
  plan: ScalarPlan = planScalars(program),
  block = INTERPRETER_BLOCK,
  rowCache = false,
): FusedJsKernel {
  const { instrs, outputs } = program;
  const schedule = scheduleFused(program);
  const slotRegs = plan.slots.map(() => new Float64Array(block));
  const regs: Reg[] = [];
  const stepsOf: Step[][] = [];
  const env = (operands: Record<string, Reg>) => ({ operands, globals: { Math, H: fusedHelpers }, block });
  instrs.forEach((instr, i) => {
    const steps: Step[] = [];
    stepsOf.push(steps);
    if (instr.kind === 'scalar') {
      regs.push(slotRegs[plan.valueSlot.get(i)!]!);
      return;
    }
    if (instr.kind === 'load' || instr.kind === 'reduce') {
      regs.push(new Float64Array(block));
      return;
    }
    const operands: Record<string, Reg> = {};
    if ('x' in instr) operands['x'] = regs[instr.x]!;
    if ('y' in instr) {
      const slot = plan.binarySlot.get(i);
      operands['y'] = slot !== undefined ? slotRegs[slot]! : regs[instr.y]!;
    }
    if ('c' in instr) operands['c'] = regs[instr.c]!;
    const { reg, fresh } = compileBlockExpr(instrExpr(program, instr), env(operands), steps);
    if (fresh) regs.push(reg);
    else {
      // A bare operand or constant: copied, since row values are broadcast in place.
      const own = new Float64Array(block);
      steps.push((n) => own.set(n === block ? reg : reg.subarray(0, n)));
      regs.push(own);
    }
  });
  const rowInstr = (i: number): RowInstr | undefined => {
    const instr = instrs[i]!;
    if (instr.kind === 'scalar') return undefined;
    if (instr.kind === 'load') return { reg: regs[i]!, input: instr.input };
    return { reg: regs[i]!, steps: stepsOf[i]! };
  };
  const plans = planPasses(program, schedule, rowCache);
  const cachedValues = [...new Set(plans.flatMap((pl) => pl.cacheWrites))];
  const cacheSlot = new Map(cachedValues.map((v, k) => [v, k]));
  const passes: Pass[] = schedule.passes.map((pass, p) => ({
    before: schedule.rowBefore[p]!.flatMap((i) => rowInstr(i) ?? []),
    loads: plans[p]!.compute.flatMap((i) => {
      const instr = instrs[i]!;
      return instr.kind === 'load' ? [{ reg: regs[i]!, input: instr.input }] : [];
    }),
    cacheReads: [...plans[p]!.cacheReads].map((v) => ({ reg: regs[v]!, slot: cacheSlot.get(v)! })),
    cacheWrites: plans[p]!.cacheWrites.map((v) => ({ reg: regs[v]!, slot: cacheSlot.get(v)! })),
    steps: plans[p]!.compute.flatMap((i) => stepsOf[i]!),
    reduces: pass.reduces.map((i) => {
      const instr = instrs[i]!;
      if (instr.kind !== 'reduce') throw new Error('a pass reduces a non-reduce');
      return { value: i, x: regs[instr.x]!, op: instr.op, round: storeRounding(instr.dtype) };
    }),
    stores: pass.stores.map((k) => ({ output: k, reg: regs[outputs[k]!.value]! })),
  }));
  const after = schedule.rowBefore[schedule.passes.length]!.flatMap((i) => rowInstr(i) ?? []);
  const rowStores = schedule.rowStores.map((k) => ({ output: k, reg: regs[outputs[k]!.value]! }));
  const nIn = program.inputs.length;
  const accs = new Float64Array(instrs.length);
  // The row cache's arrays, kept between calls (grown to the longest row).
  let caches: Float64Array[] = [];

  return (shape, innerRank, I, O, K) => {
    const rank = shape.length,
      oRank = rank - innerRank;
    const innerShape = shape.slice(oRank);
    let rows = 1;
    for (let d = 0; d < oRank; d++) rows *= shape[d]!;
    let innerN = 1;
    for (const s of innerShape) innerN *= s;
    const m = Math.min(innerN, block);
    if (cachedValues.length > 0 && (caches[0]?.length ?? -1) < innerN)
      caches = cachedValues.map(() => new Float64Array(innerN));
    slotRegs.forEach((r, k) => r.fill(K[k]!));
    const base = I.map((x) => x.offset);
    const innerStrides = I.map((x) => x.strides.slice(oRank));
    const datas = I.map((x) => x.data);
    const oIdx = new Int32Array(oRank),
      gIdx = new Int32Array(innerRank);
    const rowLevel = (list: readonly RowInstr[]) => {
      for (const ri of list) {
        if ('input' in ri) ri.reg[0] = datas[ri.input]![base[ri.input]!]!;
        else for (const s of ri.steps) s(1);
        if (m > 1) ri.reg.fill(ri.reg[0]!, 1, m);
      }
    };
    let e = 0;
    for (let r = 0; r < rows; r++) {
      for (const pass of passes) {
        rowLevel(pass.before);
        for (const red of pass.reduces) accs[red.value] = ACCUMULATE[red.op].init;
        for (let start = 0; start < innerN; start += block) {
          const n = Math.min(block, innerN - start);
          for (const ld of pass.loads)
            gather(ld.reg, n, datas[ld.input]!, base[ld.input]!, innerShape, innerStrides[ld.input]!, start, gIdx);
          for (const cr of pass.cacheReads) cr.reg.set(caches[cr.slot]!.subarray(start, start + n));
          for (const s of pass.steps) s(n);
          for (const cw of pass.cacheWrites) caches[cw.slot]!.set(n === block ? cw.reg : cw.reg.subarray(0, n), start);
          for (const red of pass.reduces) accs[red.value] = ACCUMULATE[red.op].step(red.x, n, accs[red.value]!);
          for (const st of pass.stores) {
            const out = O[st.output]!,
              reg = st.reg,
              q = e + start;
            for (let i = 0; i < n; i++) out[q + i] = reg[i]!;
          }
        }
        for (const red of pass.reduces) {
          const reg = regs[red.value]!;
          // The unfused max/min of an empty row reads a value that does not exist: NaN.
          const acc = innerN === 0 && (red.op === 'max' || red.op === 'min') ? NaN : accs[red.value]!;
          reg[0] = red.round(acc);
          if (m > 1) reg.fill(reg[0]!, 1, m);
        }
      }
      rowLevel(after);
      for (const st of rowStores) O[st.output]![r] = st.reg[0]!;
      e += innerN;
      for (let d = oRank - 1; d >= 0; d--) {
        for (let k = 0; k < nIn; k++) base[k]! += I[k]!.strides[d]!;
        if (++oIdx[d]! < shape[d]!) break;
        oIdx[d] = 0;
        for (let k = 0; k < nIn; k++) base[k]! -= I[k]!.strides[d]! * shape[d]!;
      }
    }
  };
}
