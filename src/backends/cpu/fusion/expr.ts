import type { FusedInstr, FusedProgram } from '../../../backend/fusion/program.js';
import type { ReduceOp } from '../../../backend/ops.js';
import { bf16BitsToF32, f16BitsToF32, f32ToBf16Bits, f32ToF16Bits, type DType } from '../../../core/dtype.js';
import { castNumber } from '../../../core/element.js';
import { binaryExpr, castExpr, compareExpr, predicateExpr, unaryExpr } from '../js/expressions.js';
import { helpers } from '../js/math.js';
import { cpuArrayCtor, type CpuArray } from '../storage.js';

/**
 * What both CPU fused-program paths (the generated function and the closure interpreter) share:
 * each instruction's JavaScript expression, taken from the unfused kernels' own tables
 * (../js/expressions.ts) so a fused value equals the unfused one; the rounding of a result to its
 * dtype; the run-time scalar slots.
 */

/** f16 rounding through the bit encoding: the backend's own (the reference of {@link roundF16}). */
export function roundF16Bits(v: number): number {
  return f16BitsToF32(f32ToF16Bits(v));
}

// 2^(i − 40): the f16 quantum of each exponent.
const POW2 = Float64Array.from({ length: 64 }, (_, i) => 2 ** (i - 40));
// Adding then subtracting 1.5 · 2^52 rounds a double below 2^51 to an integer, ties to even.
const RNE = 6755399441055744;

/**
 * f16 rounding of a number, as the CPU backend rounds half-precision outputs (through f32, ties to
 * even, overflow to ±∞, subnormals, -0 kept): the same values as {@link roundF16Bits}
 * (checked for every f32 whose f16 rounding is not trivially 0 or ∞) in arithmetic, without the
 * typed-array bit casts, so generated kernels run it several times faster.
 */
export function roundF16(v: number): number {
  const x = Math.fround(v);
  const a = Math.abs(x);
  let r: number;
  if (a < 6.103515625e-5)
    r = (a * 16777216 + RNE - RNE) / 16777216; // subnormal: quantum 2^-24
  else if (a < 65520) {
    // The exponent from the integer part's leading zeros (scaled up below 2^7).
    const e = a < 128 ? 7 - Math.clz32(a * 16777216) : 31 - Math.clz32(a);
    const q = POW2[e + 30]!;
    r = (a / q + RNE - RNE) * q;
  } else return a >= 65520 ? (x > 0 ? Infinity : -Infinity) : NaN;
  return x < 0 || (x === 0 && 1 / x < 0) ? -r : r;
}

/** bf16 rounding of a number, as the CPU backend rounds half-precision outputs (through f32). */
export function roundBf16(v: number): number {
  return bf16BitsToF32(f32ToBf16Bits(v));
}

/** The helpers generated fused kernels call: the unfused kernels' `H` plus half-precision rounding (and its table). */
export const fusedHelpers = { ...helpers, f16: roundF16, bf16: roundBf16, P2: POW2 };

/**
 * The expression rounding `x` to `dtype` as storing it in that dtype's CPU array does (f32:
 * `Math.fround`; ints: the typed array's wrapping; f16/bf16: the backend's half rounding), or
 * undefined where storing changes nothing (f64, i64 in a Float64Array, bool values already 0/1).
 */
export function roundExpr(dtype: DType): string | undefined {
  switch (dtype) {
    case 'f32':
      return 'Math.fround(x)';
    case 'f16':
      return 'H.f16(x)';
    case 'bf16':
      return 'H.bf16(x)';
    case 'i32':
      return '(x | 0)';
    case 'u32':
      return '(x >>> 0)';
    case 'i16':
      return '((x << 16) >> 16)';
    case 'i8':
      return '((x << 24) >> 24)';
    case 'u16':
      return '(x & 65535)';
    case 'u8':
      return '(x & 255)';
    case 'f64':
    case 'i64':
    case 'bool':
      return undefined;
  }
}

/**
 * The expression of an elementwise instruction over the operand names `x`, `y` (and `c` for
 * where), before rounding; `rounds` says whether its result needs rounding to the instruction's
 * dtype (compare, predicate and where results never do).
 */
export function opExpr(program: FusedProgram, instr: FusedInstr): { expr: string; rounds: boolean } {
  switch (instr.kind) {
    case 'unary':
      return { expr: unaryExpr(instr.op, instr.dtype), rounds: true };
    case 'predicate':
      return { expr: predicateExpr(instr.op), rounds: false };
    case 'binary':
      return { expr: binaryExpr(instr.op, instr.dtype), rounds: true };
    case 'compare':
      return { expr: compareExpr(instr.op), rounds: false };
    case 'where':
      return { expr: '(c ? x : y)', rounds: false };
    case 'cast': {
      const from = program.instrs[instr.x]!.dtype;
      return { expr: from === instr.dtype ? 'x' : castExpr(from, instr.dtype), rounds: from !== instr.dtype };
    }
    case 'load':
    case 'scalar':
    case 'reduce':
      throw new Error(`opExpr: ${instr.kind} is not an elementwise instruction`);
  }
}

/** Replaces the operand names `x`, `y`, `c` of an expression by `names`. */
export function substitute(
  expr: string,
  names: { readonly x?: string; readonly y?: string; readonly c?: string },
): string {
  return expr.replace(/\b[xyc]\b/g, (v) => names[v as 'x' | 'y' | 'c'] ?? v);
}

/** The full expression of an elementwise instruction (rounded) over the operand names `x`, `y`, `c`. */
export function instrExpr(program: FusedProgram, instr: FusedInstr): string {
  const { expr, rounds } = opExpr(program, instr);
  const round = rounds ? roundExpr(instr.dtype) : undefined;
  return round === undefined ? expr : substitute(round, { x: `(${expr})` });
}

/** The accumulation of a reduce, as the unfused kernel (../js/reduce.ts) accumulates: init, then one step per value `v`. */
export const REDUCE_ACC: Record<ReduceOp, { readonly init: number; readonly step: string }> = {
  sum: { init: 0, step: 'acc += v;' },
  prod: { init: 1, step: 'acc *= v;' },
  // The unfused kernel starts from the first value; ∓∞ gives the same result (NaN wins either way).
  max: { init: -Infinity, step: 'if (v > acc || v !== v) acc = v;' },
  min: { init: Infinity, step: 'if (v < acc || v !== v) acc = v;' },
  any: { init: 0, step: 'if (v !== 0) acc = 1;' },
  all: { init: 1, step: 'if (v === 0) acc = 0;' },
};

/**
 * One run-time scalar value a kernel reads: scalar `index` converted to `dtype` either as
 * `fill([], v, dtype)` stores it (`fill`), or as `binaryScalar` converts its rhs (`binary`: the
 * replay runs a binary op with a scalar rhs through `binaryScalar`, which on the CPU does not round
 * an f32 scalar to f32 first).
 */
export interface ScalarSlot {
  readonly index: number;
  readonly dtype: DType;
  readonly mode: 'fill' | 'binary';
}

/** The scalar slots of a program and, per instruction operand, which slot it reads. */
export interface ScalarPlan {
  readonly slots: readonly ScalarSlot[];
  /** The slot of each `scalar` instruction's own value (fill conversion). */
  readonly valueSlot: ReadonlyMap<number, number>;
  /** The slot of the scalar rhs of each binary instruction that has one (binaryScalar conversion). */
  readonly binarySlot: ReadonlyMap<number, number>;
}

/** Lists the scalar slots of `program`. */
export function planScalars(program: FusedProgram): ScalarPlan {
  const slots: ScalarSlot[] = [];
  const byKey = new Map<string, number>();
  const slotOf = (s: ScalarSlot): number => {
    const key = `${s.index}:${s.dtype}:${s.mode}`;
    let k = byKey.get(key);
    if (k === undefined) {
      byKey.set(key, (k = slots.length));
      slots.push(s);
    }
    return k;
  };
  const valueSlot = new Map<number, number>();
  const binarySlot = new Map<number, number>();
  program.instrs.forEach((instr, i) => {
    if (instr.kind === 'scalar') valueSlot.set(i, slotOf({ index: instr.index, dtype: instr.dtype, mode: 'fill' }));
    if (instr.kind === 'binary') {
      const y = program.instrs[instr.y]!;
      if (y.kind === 'scalar') binarySlot.set(i, slotOf({ index: y.index, dtype: instr.dtype, mode: 'binary' }));
    }
  });
  return { slots, valueSlot, binarySlot };
}

const one = new Map<DType, CpuArray>();

/** The value of `slot` for the call's raw `scalars`. */
export function slotValue(slot: ScalarSlot, scalars: readonly number[]): number {
  const { dtype } = slot;
  const raw = scalars[slot.index]!;
  const v = castNumber(raw, dtype);
  const rounded = dtype === 'f16' ? roundF16(v) : dtype === 'bf16' ? roundBf16(v) : v;
  if (slot.mode === 'binary') return rounded;
  // As `fill` stores it: through an array of the dtype.
  let a = one.get(dtype);
  if (a === undefined) one.set(dtype, (a = new (cpuArrayCtor(dtype))(1)));
  a[0] = rounded;
  return a[0]!;
}
