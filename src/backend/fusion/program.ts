import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import type { TensorPrimitive } from '../backend.js';
import type { BinaryOp, CompareOp, PredicateOp, ReduceOp, UnaryOp } from '../ops.js';

/**
 * The fused-kernel IR: one small typed program that the fusion decorator (src/backends/fusion/)
 * builds from a block of recorded ops and that each backend's code generator compiles (WGSL, a
 * generated JavaScript loop, the engines' tiled interpreters). It is the contract between the two,
 * so it lives here, in the backend layer.
 *
 * A program runs over an iteration space of `outer` dims followed by `inner` dims. Without a
 * reduction `inner` is empty and every value is computed once per element. With reductions, the
 * inner dims are the reduced ones: a *row* is one index of the outer dims, and
 * - element-level values are computed per (row, inner index),
 * - row-level values once per row (loads of row inputs, scalars, reductions and math over them),
 * - a `reduce` instruction turns an element-level value into a row-level one (over all inner dims),
 * - an element-level instruction may read row-level values (they broadcast along the row).
 * So softmax, LayerNorm or a mean of squared errors are one program: reductions over the row with
 * elementwise prologues, then the elementwise epilogue over the same row.
 *
 * Values are SSA: instruction `i` defines value `i`; arguments name earlier values. Every
 * instruction's result is rounded to its `dtype` exactly as storing it in a tensor of that dtype
 * would round it (f32 rounding, f16/bf16 rounding, integer wrapping), so a fused program gives the
 * values of the same ops run one by one.
 */

/** Whether a value exists once per element of the iteration space or once per row. */
export type FusedLevel = 'element' | 'row';

/** A program input: a tensor read at the current index (element level) or the current row. */
export interface FusedInput {
  readonly dtype: DType;
  readonly level: FusedLevel;
}

/** The instructions of a fused program. Each defines one value of `dtype`. */
export type FusedInstr =
  /** Input `input` at the current element (or row). */
  | { readonly kind: 'load'; readonly input: number; readonly dtype: DType }
  /**
   * Runtime scalar `index`, converted to `dtype` as `fill([], value, dtype)` converts it — except as
   * the rhs of a `binary`, where it is the scalar of `Backend.binaryScalar` (whose conversion is the
   * backend's: the CPU's js kernels compute with the unrounded number).
   */
  | { readonly kind: 'scalar'; readonly index: number; readonly dtype: DType }
  | { readonly kind: 'unary'; readonly op: UnaryOp; readonly x: number; readonly dtype: DType }
  /** Result dtype `bool`. */
  | { readonly kind: 'predicate'; readonly op: PredicateOp; readonly x: number; readonly dtype: DType }
  /** `x (op) y`, both of `dtype` (the lhs's dtype, as `Backend.binary`). */
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly x: number; readonly y: number; readonly dtype: DType }
  /** Result dtype `bool`; `x` and `y` share a dtype. */
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly x: number; readonly y: number; readonly dtype: DType }
  /** `c ? x : y`, `c` bool. */
  | { readonly kind: 'where'; readonly c: number; readonly x: number; readonly y: number; readonly dtype: DType }
  /** Converts `x` to `dtype` with `Backend.cast`'s rules. */
  | { readonly kind: 'cast'; readonly x: number; readonly dtype: DType }
  /** Reduces element-level `x` over the row's inner dims (`Backend.reduce`'s semantics); a row-level value. */
  | { readonly kind: 'reduce'; readonly op: ReduceOp; readonly x: number; readonly dtype: DType };

/** A program output: value `value`, stored per element (shape outer ++ inner) or per row (shape outer). */
export interface FusedOutput {
  readonly value: number;
}

/** A fused program: inputs, scalars, SSA instructions, outputs; `key` is its structural hash. */
export interface FusedProgram {
  readonly inputs: readonly FusedInput[];
  /** Number of runtime scalars. */
  readonly scalars: number;
  readonly instrs: readonly FusedInstr[];
  readonly outputs: readonly FusedOutput[];
  /** True when the program has `reduce` instructions (and so a non-empty inner space). */
  readonly reduces: boolean;
  /** The level of each value (instruction), computed once. */
  readonly levels: readonly FusedLevel[];
  /**
   * The structural hash: equal keys mean the same code for the same layouts. Shapes, strides and
   * scalar values are not in it — they are run-time arguments — so one compiled kernel serves every
   * size; the kernel caches of the generators are keyed by it (plus their own layout signature).
   */
  readonly key: string;
}

/**
 * One execution of a program on a backend: the iteration space, one primitive per input (of shape
 * `[...outer, ...inner]` for element inputs, `outer` for row inputs; any layout the backend's views
 * allow), and the scalar values.
 */
export interface FusedCall<P extends TensorPrimitive = TensorPrimitive> {
  readonly program: FusedProgram;
  readonly outer: readonly number[];
  /** The reduced dims; empty when `program.reduces` is false. */
  readonly inner: readonly number[];
  readonly inputs: readonly P[];
  readonly scalars: readonly number[];
}

/** The shape of output `index` of `call`: `[...outer, ...inner]` for element outputs, `outer` for row outputs. */
export function fusedOutputShape(call: FusedCall<TensorPrimitive>, index: number): number[] {
  const { program } = call;
  const out = program.outputs[index];
  if (out === undefined) throw new BurnError('fusion', `output ${index} of a program with ${program.outputs.length}`);
  return program.levels[out.value] === 'row' ? [...call.outer] : [...call.outer, ...call.inner];
}

/** The dtype of output `index` of `program`. */
export function fusedOutputDtype(program: FusedProgram, index: number): DType {
  const out = program.outputs[index]!;
  return program.instrs[out.value]!.dtype;
}

/** The value ids an instruction reads. */
export function instrArgs(instr: FusedInstr): number[] {
  switch (instr.kind) {
    case 'load':
    case 'scalar':
      return [];
    case 'unary':
    case 'predicate':
    case 'cast':
    case 'reduce':
      return [instr.x];
    case 'binary':
    case 'compare':
      return [instr.x, instr.y];
    case 'where':
      return [instr.c, instr.x, instr.y];
  }
}

function instrKey(instr: FusedInstr): string {
  switch (instr.kind) {
    case 'load':
      return `L${instr.input}`;
    case 'scalar':
      return `S${instr.index}:${instr.dtype}`;
    case 'unary':
    case 'predicate':
    case 'reduce':
      return `${instr.kind[0]}.${instr.op}(${instr.x}):${instr.dtype}`;
    case 'binary':
    case 'compare':
      return `${instr.kind[0]}.${instr.op}(${instr.x},${instr.y}):${instr.dtype}`;
    case 'where':
      return `w(${instr.c},${instr.x},${instr.y}):${instr.dtype}`;
    case 'cast':
      return `c(${instr.x}):${instr.dtype}`;
  }
}

/**
 * Builds a program, checking it (SSA order, argument levels, input and scalar indices) and computing
 * its levels and key. A malformed program is a bug of the decorator, reported as a BurnError.
 */
export function fusedProgram(spec: {
  readonly inputs: readonly FusedInput[];
  readonly scalars: number;
  readonly instrs: readonly FusedInstr[];
  readonly outputs: readonly FusedOutput[];
}): FusedProgram {
  const { inputs, scalars, instrs, outputs } = spec;
  const levels: FusedLevel[] = [];
  let reduces = false;
  const bad = (i: number, why: string): never => {
    throw new BurnError('fusion', `malformed fused program: instruction ${i} (${instrKey(instrs[i]!)}) ${why}`);
  };
  instrs.forEach((instr, i) => {
    for (const a of instrArgs(instr)) if (!(a >= 0 && a < i && Number.isInteger(a))) bad(i, `reads value ${a}`);
    switch (instr.kind) {
      case 'load': {
        const input = inputs[instr.input];
        if (input === undefined) bad(i, `loads input ${instr.input} of ${inputs.length}`);
        else {
          if (input.dtype !== instr.dtype) bad(i, `has dtype ${instr.dtype}, its input ${input.dtype}`);
          levels.push(input.level);
        }
        return;
      }
      case 'scalar':
        if (!(instr.index >= 0 && instr.index < scalars)) bad(i, `reads scalar ${instr.index} of ${scalars}`);
        levels.push('row');
        return;
      case 'reduce':
        if (levels[instr.x] !== 'element') bad(i, 'reduces a row-level value');
        reduces = true;
        levels.push('row');
        return;
      default:
        levels.push(instrArgs(instr).some((a) => levels[a] === 'element') ? 'element' : 'row');
    }
  });
  if (!reduces) {
    // Without a reduction there are no rows: every value is per element.
    if (inputs.some((x) => x.level === 'row'))
      throw new BurnError('fusion', 'malformed fused program: a row input in a program without reductions');
    for (let i = 0; i < levels.length; i++) levels[i] = 'element';
  }
  if (outputs.length === 0) throw new BurnError('fusion', 'malformed fused program: no outputs');
  for (const o of outputs)
    if (!(o.value >= 0 && o.value < instrs.length))
      throw new BurnError('fusion', `malformed fused program: output value ${o.value} of ${instrs.length}`);
  const key = [
    inputs.map((x) => `${x.dtype}${x.level[0]}`).join(','),
    String(scalars),
    instrs.map(instrKey).join(';'),
    outputs.map((o) => o.value).join(','),
  ].join('|');
  return { inputs, scalars, instrs, outputs, reduces, levels, key };
}

/** One pass over a row: the element-level work done per inner index, and what it yields. */
export interface FusedPass {
  /** Element-level instructions evaluated per inner index in this pass (ascending ids). */
  readonly elementInstrs: readonly number[];
  /** The `reduce` instructions accumulated in this pass; their row values exist after it. */
  readonly reduces: readonly number[];
  /** Element-level outputs (indices into `program.outputs`) stored in this pass. */
  readonly stores: readonly number[];
}

/** How to run a program: row-level work between passes over the row. */
export interface FusedSchedule {
  /**
   * Row-level instructions to evaluate before pass `p` (`rowBefore[p]`), and after the last pass
   * (`rowBefore[passes.length]`); each reads only values available at that point.
   */
  readonly rowBefore: readonly (readonly number[])[];
  readonly passes: readonly FusedPass[];
  /** Row-level outputs (indices into `program.outputs`), stored once everything has run. */
  readonly rowStores: readonly number[];
}

/**
 * The passes a row program needs: a reduction whose argument depends on another reduction's
 * result needs a later pass (LayerNorm's variance after its mean); independent reductions share a
 * pass. Element-level values are recomputed in each pass that needs them (they live in registers,
 * not memory). For a program without reductions this is one pass that stores every output.
 */
export function scheduleFused(program: FusedProgram): FusedSchedule {
  const { instrs, levels } = program;
  // stage[v]: the pass in which an element value can first be computed, or for a row value the
  // number of passes that must finish before it exists.
  const stage: number[] = [];
  instrs.forEach((instr, i) => {
    const args = instrArgs(instr);
    let s = 0;
    for (const a of args) s = Math.max(s, stage[a]!);
    stage.push(instr.kind === 'reduce' ? s + 1 : s);
    void i;
  });
  let passCount = 0;
  for (let i = 0; i < instrs.length; i++) if (instrs[i]!.kind === 'reduce') passCount = Math.max(passCount, stage[i]!);
  const elementOutputs = program.outputs.map((o, k) => [o, k] as const).filter(([o]) => levels[o.value] === 'element');
  if (!program.reduces) passCount = 1;
  else if (elementOutputs.length > 0) {
    for (const [o] of elementOutputs) passCount = Math.max(passCount, stage[o.value]! + 1);
  }
  // Element instructions each pass needs: the transitive element-level arguments of its reduces and stores.
  const passes: { elementInstrs: Set<number>; reduces: number[]; stores: number[] }[] = [];
  for (let p = 0; p < passCount; p++) passes.push({ elementInstrs: new Set(), reduces: [], stores: [] });
  const need = (p: number, v: number) => {
    const stack = [v];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (levels[x] !== 'element' || passes[p]!.elementInstrs.has(x)) continue;
      passes[p]!.elementInstrs.add(x);
      stack.push(...instrArgs(instrs[x]!));
    }
  };
  instrs.forEach((instr, i) => {
    if (instr.kind !== 'reduce') return;
    const p = stage[i]! - 1;
    passes[p]!.reduces.push(i);
    need(p, instr.x);
  });
  for (const [o, k] of elementOutputs) {
    const p = program.reduces ? passCount - 1 : 0;
    passes[p]!.stores.push(k);
    need(p, o.value);
  }
  const rowBefore: number[][] = [];
  for (let p = 0; p <= passCount; p++) rowBefore.push([]);
  if (program.reduces)
    instrs.forEach((instr, i) => {
      if (levels[i] === 'row' && instr.kind !== 'reduce') rowBefore[stage[i]!]!.push(i);
    });
  const rowStores = program.outputs.flatMap((o, k) => (levels[o.value] === 'row' && program.reduces ? [k] : []));
  return {
    rowBefore,
    passes: passes.map((p) => ({
      elementInstrs: [...p.elementInstrs].sort((a, b) => a - b),
      reduces: p.reduces,
      stores: p.stores,
    })),
    rowStores,
  };
}
