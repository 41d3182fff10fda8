/**
 * The wasm engine's fused programs: compiles a {@link FusedProgram} into the i32 code of the
 * module's tiled interpreter (wasm/assembly/fused.ts, whose top comment describes the slots and
 * operand references), once per program key. The interpreter runs each instruction over a tile of
 * values with the unfused kernels' vector ops, so a fused program gives the values of its ops run
 * one by one on this engine (replayFused): the same f32 operations in the same order, reductions
 * included.
 *
 * Taken: f32 inputs and outputs and bool inputs (as lane masks); loads, scalars, the unary and
 * binary ops the module has, compares and isnan/isinf as lane masks feeding `where` or a cast,
 * casts between f32 and masks, and sum/prod/max/min reductions. Anything else (other dtypes, a
 * bool output, an op the module lacks) is declined (undefined), and the backend's generated
 * JavaScript runs the program.
 */
import { scheduleFused, type FusedInstr, type FusedProgram } from '../../../backend/fusion/program.js';
import type { BinaryOp, CompareOp, ReduceOp, UnaryOp } from '../../../backend/ops.js';
import type { OpCodes } from '../op-codes.js';
import { UNARY_COST } from '../op-cost.js';
import type { WasmBinaryOp } from './ops.js';

/** The module's fused-interpreter constants (`FUSED_*` exports, by name without the prefix). */
export type FusedConstants = Readonly<Record<string, number>>;

/** The op codes the compiler needs. */
export interface FusedCodeTables {
  readonly unary: OpCodes<UnaryOp>;
  readonly binary: OpCodes<WasmBinaryOp>;
  readonly reduce: OpCodes<ReduceOp>;
  readonly fused: FusedConstants;
}

/** A program compiled for the interpreter: its code and the memory it needs per call. */
export interface FusedCode {
  /** The whole program as one list (elementwise programs, and rows that fit a tile). */
  readonly linear: Int32Array;
  /** Passes over rows longer than a tile (row programs only). */
  readonly passes: Int32Array | undefined;
  /** The scalar index of each constant (the `scalar` instructions), written splatted before a run. */
  readonly consts: readonly number[];
  /** Element slots (registers of one tile each). */
  readonly elementSlots: number;
  /** Row slots (16 bytes each). */
  readonly rowSlots: number;
  /** Reductions (one accumulator state each). */
  readonly reduces: number;
  /** Whether an instruction is transcendental (exp, log, …): the program pays from fewer elements. */
  readonly costly: boolean;
  /** Work per element: 16 per transcendental op, 2 per other computing instruction (../op-cost.ts's classes). */
  readonly cost: number;
}

const COMPARE_CODES: Readonly<Record<CompareOp, string>> = {
  eq: 'CMP_eq',
  ne: 'CMP_ne',
  gt: 'CMP_gt',
  ge: 'CMP_ge',
  lt: 'CMP_lt',
  le: 'CMP_le',
};

/** Why a program is declined (internal: only `undefined` leaves this module). */
class Decline extends Error {}

/** The interpreter code of `program`, or undefined when the interpreter does not take it. */
export function compileFused(program: FusedProgram, tables: FusedCodeTables): FusedCode | undefined {
  try {
    return compile(program, tables);
  } catch (e) {
    if (e instanceof Decline) return undefined;
    throw e;
  }
}

function compile(program: FusedProgram, tables: FusedCodeTables): FusedCode {
  const { instrs, levels } = program;
  const K = (name: string): number => {
    const v = tables.fused[name];
    if (v === undefined) throw new Decline(name);
    return v;
  };
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Decline('op');
    return v;
  };
  // Bool inputs arrive as lane masks (the engine widens them: 0 or all ones).
  if (program.inputs.some((x) => x.dtype !== 'f32' && x.dtype !== 'bool')) throw new Decline('dtype');
  const dtypeOf = (v: number) => instrs[v]!.dtype;
  let costly = false;
  // Check every instruction; bool values are lane masks and may only feed `where`'s condition.
  const boolOk = new Set<number>();
  instrs.forEach((ins, i) => {
    switch (ins.kind) {
      case 'load':
        if (ins.dtype === 'bool') boolOk.add(i);
        else if (ins.dtype !== 'f32') throw new Decline('dtype');
        return;
      case 'scalar':
        if (ins.dtype !== 'f32') throw new Decline('dtype');
        return;
      case 'unary':
        if (ins.dtype !== 'f32' || dtypeOf(ins.x) !== 'f32') throw new Decline('dtype');
        need(tables.unary[ins.op]);
        if (UNARY_COST[ins.op] === 'costly') costly = true;
        return;
      case 'binary':
        if (ins.dtype !== 'f32' || dtypeOf(ins.x) !== 'f32' || dtypeOf(ins.y) !== 'f32') throw new Decline('dtype');
        need(tables.binary[ins.op as BinaryOp]);
        return;
      case 'compare':
        if (dtypeOf(ins.x) !== 'f32' || dtypeOf(ins.y) !== 'f32' || ins.dtype !== 'bool') throw new Decline('dtype');
        boolOk.add(i);
        return;
      case 'predicate':
        if (dtypeOf(ins.x) !== 'f32' || ins.dtype !== 'bool') throw new Decline('dtype');
        boolOk.add(i);
        return;
      case 'where':
        if (!boolOk.has(ins.c) || ins.dtype !== 'f32' || dtypeOf(ins.x) !== 'f32' || dtypeOf(ins.y) !== 'f32')
          throw new Decline('dtype');
        return;
      case 'cast':
        // f32 → f32, a mask → f32 (1 or 0), f32 → a mask.
        if (ins.dtype === 'f32' && (dtypeOf(ins.x) === 'f32' || boolOk.has(ins.x))) return;
        if (ins.dtype === 'bool' && dtypeOf(ins.x) === 'f32') {
          boolOk.add(i);
          return;
        }
        throw new Decline('dtype');
      case 'reduce':
        if (ins.dtype !== 'f32' || dtypeOf(ins.x) !== 'f32') throw new Decline('dtype');
        if (ins.op !== 'sum' && ins.op !== 'prod' && ins.op !== 'max' && ins.op !== 'min') throw new Decline('op');
        need(tables.reduce[ins.op]);
        return;
    }
  });
  // A mask read by anything but `where`'s condition, or stored, has no f32 lanes to give.
  instrs.forEach((ins) => {
    const args =
      ins.kind === 'where'
        ? [ins.x, ins.y]
        : ins.kind === 'load' || ins.kind === 'scalar' || ins.kind === 'cast'
          ? []
          : argsOf(ins);
    for (const a of args) if (dtypeOf(a) === 'bool') throw new Decline('bool');
  });
  for (const o of program.outputs) if (dtypeOf(o.value) !== 'f32') throw new Decline('dtype');

  // Scalars are constants of the whole call; in row programs, row-level values live in row slots.
  const constOf = new Map<number, number>();
  const rowSlot = new Map<number, number>();
  const consts: number[] = [];
  instrs.forEach((ins, i) => {
    if (ins.kind === 'scalar') {
      constOf.set(i, consts.length);
      consts.push(ins.index);
    } else if (program.reduces && levels[i] === 'row') rowSlot.set(i, rowSlot.size);
  });
  const CONST_REF = K('CONST_REF');
  const fixedRef = (v: number): number | undefined =>
    constOf.has(v) ? CONST_REF - constOf.get(v)! : rowSlot.has(v) ? ~rowSlot.get(v)! : undefined;
  const instrWords = (ins: FusedInstr, dst: number, ref: (v: number) => number, out: number): number[] => {
    switch (ins.kind) {
      case 'load':
        return [dst < 0 ? K('loadRow') : K('loadElement'), 0, dst, ins.input, 0, 0, out, 0];
      case 'unary':
        return [K('unary'), tables.unary[ins.op]!, dst, ref(ins.x), 0, 0, out, 0];
      case 'binary': {
        const code = tables.binary[ins.op as BinaryOp]!;
        const y = instrs[ins.y]!;
        // A scalar rhs is applied as binaryScalar applies it (replayFused records it so).
        if (y.kind === 'scalar') return [K('binaryScalar'), code, dst, ref(ins.x), y.index, 0, out, 0];
        return [K('binary'), code, dst, ref(ins.x), ref(ins.y), 0, out, 0];
      }
      case 'compare':
        return [K('compare'), K(COMPARE_CODES[ins.op]), dst, ref(ins.x), ref(ins.y), 0, out, 0];
      case 'predicate':
        return [K('predicate'), ins.op === 'isnan' ? 0 : 1, dst, ref(ins.x), 0, 0, out, 0];
      case 'where':
        return [K('where'), 0, dst, ref(ins.c), ref(ins.x), ref(ins.y), out, 0];
      case 'cast':
        return [K('copy'), ins.dtype === 'bool' ? 2 : dtypeOf(ins.x) === 'bool' ? 1 : 0, dst, ref(ins.x), 0, 0, out, 0];
      case 'reduce':
        return [K('reduce'), tables.reduce[ins.op]!, dst, ref(ins.x), 0, 0, -1, 0];
      default:
        throw new Decline('instr');
    }
  };
  /** Element slots for `list` (ascending ids) by liveness; values in `keep` live to the end. */
  const allocate = (list: readonly number[], keep: ReadonlySet<number>) => {
    // `list` holds every instruction run in order, row-level ones too (a reduction reads an
    // element slot: its reads count, though it defines a row slot).
    const lastUse = new Map<number, number>();
    for (const v of list) for (const a of operandsOf(instrs[v]!)) lastUse.set(a, v);
    for (const v of keep) lastUse.set(v, Infinity);
    const slot = new Map<number, number>();
    const free: number[] = [];
    let next = 0;
    for (const v of list) {
      for (const a of new Set(operandsOf(instrs[v]!))) if (slot.has(a) && lastUse.get(a) === v) free.push(slot.get(a)!);
      if (fixedRef(v) !== undefined) continue;
      slot.set(v, free.pop() ?? next++);
    }
    return { slot, count: next, ref: (v: number) => fixedRef(v) ?? slot.get(v)! };
  };
  /** The output each stored value is computed into: the first listing it (not loads: they may point into inputs). */
  const homesOf = (stores: readonly number[]) => {
    const homes = new Map<number, number>();
    for (const k of stores) {
      const v = program.outputs[k]!.value;
      if (!homes.has(v) && instrs[v]!.kind !== 'load' && fixedRef(v) === undefined) homes.set(v, k);
    }
    return homes;
  };
  // Row outputs by level: a scalar stored by a row program is one value per row too.
  const isRowOutput = (k: number) => program.reduces && levels[program.outputs[k]!.value] === 'row';
  const elementOutputs = program.outputs.flatMap((_, k) => (isRowOutput(k) ? [] : [k]));
  const rowOutputs = program.outputs.flatMap((_, k) => (isRowOutput(k) ? [k] : []));

  // Linear: every needed instruction once, in order (elementwise programs; rows that fit a tile).
  const needed = new Set<number>();
  const stack = program.outputs.map((o) => o.value);
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (needed.has(v)) continue;
    needed.add(v);
    stack.push(...argsOf(instrs[v]!));
  }
  const order = [...needed].sort((x, y) => x - y).filter((v) => !constOf.has(v));
  const lin = allocate(order, new Set(program.outputs.map((o) => o.value)));
  const linHomes = homesOf(elementOutputs);
  const linBody: number[] = [];
  for (const v of order) {
    const dst = rowSlot.has(v) ? ~rowSlot.get(v)! : lin.slot.get(v)!;
    linBody.push(...instrWords(instrs[v]!, dst, lin.ref, linHomes.get(v) ?? -1));
  }
  for (const k of elementOutputs) linBody.push(K('store'), 0, 0, lin.ref(program.outputs[k]!.value), k, 0, -1, 0);
  for (const k of rowOutputs) linBody.push(K('rowStore'), 0, 0, lin.ref(program.outputs[k]!.value), k, 0, -1, 0);
  const linear = Int32Array.from([K('PHASE_linear'), linBody.length / 8, ...linBody]);

  // Passes over long rows (scheduleFused): element values are recomputed in each pass that needs them.
  let passes: Int32Array | undefined;
  let passSlots = 0;
  let reduceCount = 0;
  if (program.reduces) {
    const schedule = scheduleFused(program);
    const words: number[] = [];
    const rowPhase = (ids: readonly number[]) => {
      const list = ids.filter((v) => !constOf.has(v));
      if (list.length === 0) return;
      words.push(K('PHASE_row'), list.length);
      for (const v of list) words.push(...instrWords(instrs[v]!, ~rowSlot.get(v)!, (a) => fixedRef(a)!, -1));
    };
    schedule.passes.forEach((pass, p) => {
      rowPhase(schedule.rowBefore[p]!);
      const list = pass.elementInstrs.filter((v) => fixedRef(v) === undefined);
      // A value read by a reduction or a store lives to the tile's end.
      const keep = new Set([
        ...pass.reduces.map((r) => (instrs[r] as { x: number }).x),
        ...pass.stores.map((k) => program.outputs[k]!.value),
      ]);
      const al = allocate(list, keep);
      passSlots = Math.max(passSlots, al.count);
      const homes = homesOf(pass.stores);
      const body: number[] = [];
      for (const v of list) body.push(...instrWords(instrs[v]!, al.slot.get(v)!, al.ref, homes.get(v) ?? -1));
      words.push(K('PHASE_pass'), list.length, pass.reduces.length, pass.stores.length, ...body);
      for (const r of pass.reduces) {
        const ins = instrs[r] as Extract<FusedInstr, { kind: 'reduce' }>;
        words.push(tables.reduce[ins.op]!, al.ref(ins.x), ~rowSlot.get(r)!, reduceCount++);
      }
      for (const k of pass.stores) words.push(al.ref(program.outputs[k]!.value), k);
    });
    rowPhase(schedule.rowBefore[schedule.passes.length] ?? []);
    if (schedule.rowStores.length > 0) {
      words.push(K('PHASE_rowStore'), schedule.rowStores.length);
      for (const k of schedule.rowStores) words.push(fixedRef(program.outputs[k]!.value)!, k);
    }
    words.push(K('PHASE_end'));
    passes = Int32Array.from(words);
  }
  return {
    linear,
    passes,
    consts,
    elementSlots: Math.max(1, lin.count, passSlots),
    rowSlots: rowSlot.size,
    reduces: reduceCount,
    costly,
    cost: instrs.reduce(
      (c, ins) =>
        c +
        (ins.kind === 'load' || ins.kind === 'scalar'
          ? 0
          : ins.kind === 'unary' && UNARY_COST[ins.op] === 'costly'
            ? 16
            : 2),
      0,
    ),
  };
}

/** The element-slot operands an instruction reads (a scalar rhs of a binary op is an immediate). */
function operandsOf(ins: FusedInstr): number[] {
  return ins.kind === 'binary' ? [ins.x, ins.y] : argsOf(ins);
}

function argsOf(ins: FusedInstr): number[] {
  switch (ins.kind) {
    case 'load':
    case 'scalar':
      return [];
    case 'unary':
    case 'predicate':
    case 'cast':
    case 'reduce':
      return [ins.x];
    case 'binary':
    case 'compare':
      return [ins.x, ins.y];
    case 'where':
      return [ins.c, ins.x, ins.y];
  }
}

/**
 * How an operand reads its array over an iteration space of `dims`: value at flat index i is
 * element `(⌊i / Q⌋ mod P)` from its offset. That is dims of stride 0 (broadcast) on the outside,
 * then dims contiguous with one another, then dims of stride 0 inside (a bias [C] over [N, C]:
 * P = C, Q = 1; a per-row value [N, 1] over [N, C]: P = N, Q = C). Undefined for any other layout.
 */
export function operandPattern(
  dims: readonly number[],
  strides: readonly number[],
): { P: number; Q: number } | undefined {
  // Dims of size 1 have no stride to speak of.
  const ds: number[] = [],
    ss: number[] = [];
  dims.forEach((n, i) => {
    if (n !== 1) {
      ds.push(n);
      ss.push(strides[i]!);
    }
  });
  let d = ds.length - 1;
  let Q = 1,
    P = 1;
  for (; d >= 0 && ss[d] === 0; d--) Q *= ds[d]!;
  for (; d >= 0 && ss[d] === P; d--) P *= ds[d]!;
  for (; d >= 0; d--) if (ss[d] !== 0) return undefined;
  return { P, Q };
}
