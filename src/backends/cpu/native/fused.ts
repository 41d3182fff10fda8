/**
 * The native engine's fused programs: the IR (src/backend/fusion/program.ts) encoded once per
 * program into the bytecode of the addon's tiled interpreter (native/src/fused_program.cc), with
 * its pass schedule, and the run-time parameters of one call. The interpreter runs the program over
 * L1-sized tiles, calling the same vectorized loops as the unfused ops for every instruction.
 */
import { instrArgs, scheduleFused, type FusedProgram } from '../../../backend/fusion/program.js';
import type { DType } from '../../../core/dtype.js';
import type { NativeOpCodes } from './ops.js';

/** The bytecode version the addon accepts (kFusedVersion in native/src/fused_program.h). */
export const FUSED_VERSION = 1;

/** Instruction kinds of the bytecode (Kind in native/src/fused_program.cc). */
const KIND = {
  load: 0,
  scalar: 1,
  unary: 2,
  predicate: 3,
  binary: 4,
  compare: 5,
  where: 6,
  cast: 7,
  reduce: 8,
} as const;

/** Predicate codes of the bytecode. */
const PREDICATE = { isnan: 0, isinf: 1 } as const;

/**
 * A program encoded for the addon: header [version, float type (0 f32, 1 f64), inputs, scalars,
 * instructions, outputs, passes, tile], the inputs [dtype, level], the instructions [kind, op, a,
 * b, c, dtype, uniform], the output values, then the schedule: for each pass the row steps before
 * it (count, ids), its element steps, reduces and stores; the row steps after the last pass; the row
 * stores. `dtype` is 0 for the program's float type and 1 for bool; `uniform` marks values computed
 * once per row (or once per call in an elementwise program: scalars and math over them). The addon
 * writes the tuned tile size into the header's last slot, so the code must be kept (cached).
 */
export interface EncodedFused {
  readonly code: Int32Array;
  readonly dtype: 'f32' | 'f64';
}

/** Encodes `program`, or undefined when the interpreter does not take it (dtypes, ops). */
export function encodeFusedProgram(program: FusedProgram, codes: NativeOpCodes): EncodedFused | undefined {
  const { instrs, inputs, levels } = program;
  const float = [...inputs.map((x) => x.dtype), ...instrs.map((x) => x.dtype)].find((d) => d !== 'bool');
  if (float !== 'f32' && float !== 'f64') return undefined;
  const dt = (d: DType): number | undefined => (d === 'bool' ? 1 : d === float ? 0 : undefined);
  const words: number[] = [FUSED_VERSION, float === 'f32' ? 0 : 1, inputs.length, program.scalars, instrs.length];
  words.push(program.outputs.length, 0, 0);
  for (const x of inputs) {
    const d = dt(x.dtype);
    if (d === undefined) return undefined;
    words.push(d, x.level === 'row' ? 1 : 0);
  }
  // Uniform values: a row program's row-level values; in an elementwise program, scalars and math over them only.
  const uniform: boolean[] = [];
  for (let i = 0; i < instrs.length; i++) {
    const instr = instrs[i]!;
    const args = instrArgs(instr);
    uniform.push(
      program.reduces
        ? levels[i] === 'row'
        : instr.kind === 'scalar' || (instr.kind !== 'load' && args.length > 0 && args.every((a) => uniform[a])),
    );
    const d = dt(instr.dtype);
    if (d === undefined) return undefined;
    let op = 0;
    let a = -1;
    let b = -1;
    let c = -1;
    switch (instr.kind) {
      case 'load':
        a = instr.input;
        break;
      case 'scalar':
        a = instr.index;
        if (d !== 0) return undefined;
        break;
      case 'unary': {
        const code = codes.unary[instr.op];
        if (code === undefined) return undefined;
        op = code;
        a = instr.x;
        break;
      }
      case 'predicate':
        if (d !== 1) return undefined;
        op = PREDICATE[instr.op];
        a = instr.x;
        break;
      case 'binary': {
        const code = codes.binary[instr.op];
        if (code === undefined || d !== 0) return undefined;
        op = code;
        a = instr.x;
        b = instr.y;
        break;
      }
      case 'compare': {
        const code = codes.compare[instr.op];
        if (code === undefined || d !== 1) return undefined;
        op = code;
        a = instr.x;
        b = instr.y;
        break;
      }
      case 'where':
        a = instr.c;
        b = instr.x;
        c = instr.y;
        break;
      case 'cast':
        a = instr.x;
        break;
      case 'reduce': {
        const code = codes.reduce[instr.op];
        if (code === undefined || d !== 0) return undefined;
        op = code;
        a = instr.x;
        break;
      }
    }
    // Every argument of a float op must be of the float type (the interpreter has no other registers).
    for (const x of args) if (dt(instrs[x]!.dtype) === undefined) return undefined;
    if ((instr.kind === 'unary' || instr.kind === 'binary' || instr.kind === 'reduce') && d !== 0) return undefined;
    if (
      (instr.kind === 'unary' || instr.kind === 'binary' || instr.kind === 'compare' || instr.kind === 'predicate') &&
      args.some((x) => instrs[x]!.dtype !== float)
    )
      return undefined;
    if (instr.kind === 'where' && (instrs[instr.c]!.dtype !== 'bool' || instrs[instr.x]!.dtype !== instr.dtype))
      return undefined;
    words.push(KIND[instr.kind], op, a, b, c, d, uniform[i] ? 1 : 0);
  }
  for (const o of program.outputs) words.push(o.value);
  const list = (ids: readonly number[]) => words.push(ids.length, ...ids);
  if (program.reduces) {
    const s = scheduleFused(program);
    s.passes.forEach((pass, p) => {
      list(s.rowBefore[p]!);
      list(pass.elementInstrs);
      list(pass.reduces);
      list(pass.stores);
    });
    list(s.rowBefore[s.passes.length]!);
    list(s.rowStores);
    words[6] = s.passes.length;
  } else {
    const ids = instrs.map((_, i) => i);
    list(ids.filter((i) => uniform[i]));
    list(ids.filter((i) => !uniform[i]));
    list([]);
    list(program.outputs.map((_, k) => k));
    list([]);
    list([]);
    words[6] = 1;
  }
  return { code: Int32Array.from(words), dtype: float };
}
