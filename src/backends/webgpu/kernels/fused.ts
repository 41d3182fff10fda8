import {
  instrArgs,
  scheduleFused,
  type FusedCall,
  type FusedInstr,
  type FusedProgram,
  type FusedSchedule,
} from '../../../backend/fusion/program.js';
import type { ReduceOp } from '../../../backend/ops.js';
import {
  bf16BitsToF32,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
  isFloatDType,
  isUnsignedDType,
  type DType,
} from '../../../core/dtype.js';
import { castNumber } from '../../../core/element.js';
import { numel } from '../../../core/shape.js';
import { alignStrides, collapse, isContiguous } from '../../../core/strided.js';
import type { GPUBuffer } from '../gpu-types.js';
import type { GpuRuntime } from '../runtime.js';
import { decomposeIndex, type IndexDim } from '../wgsl/index-math.js';
import { binaryExpr, compareExpr, predicateExpr, reduceCode, unaryExpr, type Expr } from '../wgsl/ops.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from '../wgsl/params.js';
import { castExpr, ctype, storeExpr, storeHelpers, type CType } from '../wgsl/types.js';
import { grid2 } from './reduce.js';

/**
 * The WGSL generator of fused programs (src/backend/fusion/program.ts): one compute shader per
 * program and layout, dispatched once per call.
 *
 * - Elementwise programs run one invocation per element; each input is read at
 *   `offset + Σ coord·stride` (a broadcast dim has stride 0), contiguous inputs at `offset + i`.
 * - Row programs run the schedule of {@link scheduleFused}: each pass walks the row's inner index
 *   and accumulates its reductions, row-level instructions run between passes, element outputs
 *   are stored in the last pass and row outputs once at the end. Rows of 64 or more elements get
 *   a 256-invocation workgroup each (strided partial reductions, then a tree in workgroup memory),
 *   shorter rows an invocation each (a sequential loop) — the same split, order of accumulation
 *   and tree as kernels/reduce.ts, so the fused sums are bit-for-bit the unfused ones.
 *
 * Every instruction's result is stored through `storeExpr` (f16/bf16 rounding, narrow-int
 * wrapping) exactly as the unfused kernel's output store would, and f32 results are kept from
 * being contracted into FMAs across instructions, so the values equal the op-by-op replay's. Shapes, strides, offsets and scalars are uniform words ({@link Params}); the shader
 * text depends on the program's key and the layout signature only (rank, mode, which inputs are
 * contiguous or broadcast scalars), and it is generated once per runtime and signature.
 */

/** One input of a fused call as the generator sees it: a strided view of a buffer. */
export interface FusedOperand {
  readonly buffer: GPUBuffer;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
  readonly dtype: DType;
}

/** Counters of the fused-kernel generator of one runtime (tests check that nothing compiles twice). */
export interface FusedKernelStats {
  /** Shaders generated (one per program key and layout signature). */
  readonly generated: number;
  /** Calls served by an already generated shader. */
  readonly reused: number;
}

interface Cache {
  /** Shader text per program key and layout signature; null where the generator declined. */
  readonly code: Map<string, string | null>;
  generated: number;
  reused: number;
}

const caches = new WeakMap<GpuRuntime, Cache>();

function cacheOf(rt: GpuRuntime): Cache {
  let c = caches.get(rt);
  if (!c) caches.set(rt, (c = { code: new Map(), generated: 0, reused: 0 }));
  return c;
}

/** The generator's counters for `rt`. */
export function fusedKernelStats(rt: GpuRuntime): FusedKernelStats {
  const c = cacheOf(rt);
  return { generated: c.generated, reused: c.reused };
}

/** Rows of at least this many elements get a workgroup each (as kernels/reduce.ts decides). */
const WIDE_ROW = 64;
/** Invocations of a row workgroup. */
const ROW_WG = 256;

/** How an input is addressed in the walked (element) space. */
type Access = 'c' | 's' | 'g';

/** Where the words of one call go, and the WGSL expressions reading them. */
interface Plan {
  readonly sig: string;
  readonly params: Params;
  /** Inputs the program loads (indices into `call.inputs`), in binding order. */
  readonly used: readonly number[];
  readonly groups: readonly [number, number];
  /** Elementwise: element count; row programs: row count. */
  readonly n: string;
  /** Row programs: row length. */
  readonly nInner: string;
  readonly offsets: ReadonlyMap<number, string>;
  readonly access: ReadonlyMap<number, Access>;
  /** Dims walked per element (elementwise) or per inner index (rows), strides of the 'g' inputs. */
  readonly dims: readonly IndexDim[];
  readonly gInputs: readonly number[];
  /** Row programs: the dims of the row index, strides of every used input. */
  readonly outerDims: readonly IndexDim[];
  /** The uniform word of each `scalar` instruction (by instruction id), in its dtype. */
  readonly scalars: ReadonlyMap<number, string>;
  readonly wide: boolean;
  /** A uniform word holding 0, opaque to the compiler (see {@link Gen.instr}). */
  readonly zero: string;
}

/** A fused call ready to dispatch: its shader is generated, its parameters laid out. */
export interface PreparedFused {
  /** Encodes the one dispatch writing the fresh contiguous `outputs` (one per program output, of its shape and dtype). */
  run(outputs: readonly GPUBuffer[]): void;
}

/**
 * Prepares `call` (generating its shader on the first call of its program and layout), or
 * returns undefined where the generator has no kernel: a dtype WGSL lacks, an op undefined for
 * its dtype, inputs of the wrong dtype or shape, empty rows.
 */
export function prepareFused(
  rt: GpuRuntime,
  call: Omit<FusedCall, 'inputs'>,
  inputs: readonly FusedOperand[],
): PreparedFused | undefined {
  const plan = planOf(call, inputs);
  if (plan === undefined) return undefined;
  const cache = cacheOf(rt);
  const key = `${call.program.key}#${plan.sig}`;
  let code = cache.code.get(key);
  if (code === undefined) {
    // A program the generator declines is remembered too (null): it is not generated again.
    code = generate(call.program, plan) ?? null;
    cache.code.set(key, code);
    if (code !== null) cache.generated++;
  } else if (code !== null) cache.reused++;
  if (code === null) return undefined;
  const shaderCode = code;
  const empty = numel(call.outer) === 0 || numel(call.inner) === 0;
  return {
    run(outputs) {
      if (empty) return;
      const buffers = [...outputs, ...plan.used.map((k) => inputs[k]!.buffer)];
      rt.dispatch(shaderCode, buffers, plan.params.words, plan.groups);
    },
  };
}

/** Whether `prepareFused` can run `call`'s program at all (dtypes and ops; layouts are always fine). */
export function fusedSupported(program: FusedProgram): boolean {
  return analyze(program).supported;
}

function broadcastable(shape: readonly number[], target: readonly number[]): boolean {
  if (shape.length > target.length) return false;
  const off = target.length - shape.length;
  return shape.every((s, d) => s === target[d + off] || s === 1);
}

function accessOf(shape: readonly number[], strides: readonly number[]): Access {
  if (strides.every((s) => s === 0)) return 's';
  return isContiguous(shape, strides) ? 'c' : 'g';
}

/** What the generator derives from a program once: the values it emits and the inputs it loads. */
interface Analysis {
  /** Elementwise programs: the values the outputs need, transitively (dead ones are not generated). */
  readonly live: readonly boolean[];
  /** Row programs: the pass schedule. */
  readonly schedule: FusedSchedule | undefined;
  /** The inputs the generated code loads, ascending. */
  readonly used: readonly number[];
  /** False when a dtype of the program has no WGSL type (f64, i64). */
  readonly supported: boolean;
}

/**
 * Analyses by program key (the decorator builds a new program object for every block it runs, so
 * the key, not the object, is what recurs); cleared when it grows past {@link MAX_ANALYSES}.
 */
const analyses = new Map<string, Analysis>();
const MAX_ANALYSES = 4096;

function analyze(program: FusedProgram): Analysis {
  let a = analyses.get(program.key);
  if (a) return a;
  const live = program.instrs.map(() => false);
  const stack = program.outputs.map((o) => o.value);
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (live[v]) continue;
    live[v] = true;
    stack.push(...instrArgs(program.instrs[v]!));
  }
  const schedule = program.reduces ? scheduleFused(program) : undefined;
  // Row programs emit what the schedule lists (every row instruction and reduce, live or not).
  const emitted = schedule
    ? [...schedule.rowBefore.flat(), ...schedule.passes.flatMap((p) => p.elementInstrs)]
    : program.instrs.map((_, i) => i).filter((i) => live[i]);
  const used = new Set<number>();
  for (const i of emitted) {
    const instr = program.instrs[i]!;
    if (instr.kind === 'load') used.add(instr.input);
  }
  let supported = true;
  try {
    for (const x of program.inputs) ctype(x.dtype);
    for (const instr of program.instrs) ctype(instr.dtype);
  } catch {
    supported = false;
  }
  a = { live, schedule, used: [...used].sort((x, y) => x - y), supported };
  if (analyses.size >= MAX_ANALYSES) analyses.clear();
  analyses.set(program.key, a);
  return a;
}

function planOf(call: Omit<FusedCall, 'inputs'>, inputs: readonly FusedOperand[]): Plan | undefined {
  const { program, outer, inner } = call;
  if (!fusedSupported(program)) return undefined;
  // A reduction over no dims, or over empty rows, is left to the replay (the unfused reduce's rules).
  if (program.reduces ? inner.length === 0 || (numel(inner) === 0 && numel(outer) > 0) : inner.length > 0)
    return undefined;
  if (inputs.length !== program.inputs.length || call.scalars.length !== program.scalars) return undefined;
  const { used } = analyze(program);
  const full = [...outer, ...inner];
  for (const k of used) {
    const x = inputs[k];
    const want = program.inputs[k]!;
    if (x === undefined || x.dtype !== want.dtype) return undefined;
    if (!broadcastable(x.shape, want.level === 'row' ? outer : full)) return undefined;
  }
  const p = new Params();
  const zero = p.u(0);
  // One word per scalar instruction: two reads of one scalar may convert it to different dtypes.
  const scalarsOf = () => {
    const out = new Map<number, string>();
    program.instrs.forEach((instr, i) => {
      if (instr.kind === 'scalar')
        out.set(i, p.of(scalarFor(call.scalars[instr.index]!, instr.dtype), ctype(instr.dtype)));
    });
    return out;
  };
  const offsets = new Map<number, string>();
  const access = new Map<number, Access>();
  if (!program.reduces) {
    const n = numel(full);
    const nExpr = p.u(n);
    const aligned = used.map((k) => alignStrides(inputs[k]!.shape, inputs[k]!.strides, full));
    const col = collapse(full, aligned);
    used.forEach((k, u) => {
      offsets.set(k, p.i(inputs[k]!.offset));
      access.set(k, accessOf(col.shape, col.strides[u]!));
    });
    const gInputs = used.filter((k) => access.get(k) === 'g');
    const dims: IndexDim[] = gInputs.length
      ? col.shape.map((size, d) => ({
          size: p.u(size),
          strides: gInputs.map((k) => p.i(col.strides[used.indexOf(k)]![d]!)),
        }))
      : [];
    const scalars = scalarsOf();
    const sig = `E${gInputs.length ? col.shape.length : 0}:${used.map((k) => access.get(k)).join('')}`;
    return {
      sig,
      params: p,
      used,
      groups: linearGroups(n),
      n: nExpr,
      nInner: '',
      offsets,
      access,
      dims,
      gInputs,
      outerDims: [],
      scalars,
      wide: false,
      zero,
    };
  }
  const nO = numel(outer),
    nI = numel(inner);
  const wide = nI >= WIDE_ROW;
  const nExpr = p.u(nO),
    nIExpr = p.u(nI);
  const elementUsed = used.filter((k) => program.inputs[k]!.level === 'element');
  const outerAligned = used.map((k) => {
    const x = inputs[k]!;
    const level = program.inputs[k]!.level;
    return alignStrides(x.shape, x.strides, level === 'row' ? outer : full).slice(0, outer.length);
  });
  const innerAligned = elementUsed.map((k) =>
    alignStrides(inputs[k]!.shape, inputs[k]!.strides, full).slice(outer.length),
  );
  const oc = collapse(outer, outerAligned);
  const ic = collapse(inner, innerAligned);
  used.forEach((k) => offsets.set(k, p.i(inputs[k]!.offset)));
  elementUsed.forEach((k, u) => access.set(k, accessOf(ic.shape, ic.strides[u]!)));
  const outerDims: IndexDim[] = oc.shape.map((size, d) => ({
    size: p.u(size),
    strides: used.map((_, u) => p.i(oc.strides[u]![d]!)),
  }));
  const gInputs = elementUsed.filter((k) => access.get(k) === 'g');
  const dims: IndexDim[] = gInputs.length
    ? ic.shape.map((size, d) => ({
        size: p.u(size),
        strides: gInputs.map((k) => p.i(ic.strides[elementUsed.indexOf(k)]![d]!)),
      }))
    : [];
  const scalars = scalarsOf();
  const sig = `R${wide ? 'w' : 'n'}${oc.shape.length}.${gInputs.length ? ic.shape.length : 0}:${used
    .map((k) => access.get(k) ?? 'r')
    .join('')}`;
  return {
    sig,
    params: p,
    used,
    groups: wide ? grid2(nO) : linearGroups(nO),
    n: nExpr,
    nInner: nIExpr,
    offsets,
    access,
    dims,
    gInputs,
    outerDims,
    scalars,
    wide,
    zero,
  };
}

/** A host scalar as the backend's `fill` converts it for `dtype` (cast, then half-precision rounding). */
function scalarFor(value: number, dtype: DType): number {
  const v = castNumber(value, dtype);
  if (dtype === 'f16') return f16BitsToF32(f32ToF16Bits(v));
  if (dtype === 'bf16') return bf16BitsToF32(f32ToBf16Bits(v));
  return v;
}

/** The compute dtype two operands of a comparison are read in (as the backend's `compare`). */
function commonDType(a: DType, b: DType): DType {
  if (a === b) return a;
  if (isFloatDType(a) || isFloatDType(b)) return 'f32';
  const ua = isUnsignedDType(a) || a === 'bool',
    ub = isUnsignedDType(b) || b === 'bool';
  return ua && ub ? 'u32' : 'i32';
}

/** The identity of a reduction's accumulator (max/min seed with the extreme value: same result as seeding with the first element). */
function reduceInit(op: ReduceOp, t: CType, init: string): string {
  if (op === 'max') return t === 'f32' ? '-inf()' : t === 'i32' ? '(-2147483647 - 1)' : '0u';
  if (op === 'min') return t === 'f32' ? 'inf()' : t === 'i32' ? '2147483647' : '0xffffffffu';
  return init;
}

/** The WGSL text of `program` for `plan`, or undefined where an op has no WGSL form for its dtype. */
function generate(program: FusedProgram, plan: Plan): string | undefined {
  try {
    return program.reduces ? generateRows(program, plan) : generateElementwise(program, plan);
  } catch {
    // An op undefined for its dtype (the replay raises its BurnError) or a dtype WGSL lacks.
    return undefined;
  }
}

/** Shared code-generation state: helper names and per-instruction functions. */
class Gen {
  readonly helpers = new Set<string>();
  readonly fns: string[] = [];
  /** The `let` of each instruction generated so far (element values recur in later passes). */
  private readonly lets = new Map<number, string>();

  constructor(
    readonly program: FusedProgram,
    private readonly zero: string,
  ) {}

  t(v: number): CType {
    return ctype(this.program.instrs[v]!.dtype);
  }

  dtype(v: number): DType {
    return this.program.instrs[v]!.dtype;
  }

  /** `v{a}` converted from its dtype to `to`'s compute type (as the unfused kernel reads it). */
  arg(a: number, to: DType): string {
    const c = castExpr(this.dtype(a), to, `v${a}`);
    for (const h of c.helpers) this.helpers.add(h);
    return c.expr;
  }

  /** A function `op{i}` over params `names` of types `types` returning `ret` by `e` (`f{i}` would name `f32` and `f16`). */
  fn(i: number, e: Expr, names: readonly string[], types: readonly CType[], ret: CType): string {
    for (const h of e.helpers) this.helpers.add(h);
    let expr = e.expr;
    if (e.code !== undefined) {
      // An expression's own functions are renamed per instruction (two int unary ops both define one).
      let code = e.code;
      for (const m of e.code.matchAll(/fn\s+(\w+)/g)) {
        const re = new RegExp(`\\b${m[1]}\\b`, 'g');
        code = code.replace(re, `${m[1]}_${i}`);
        expr = expr.replace(re, `${m[1]}_${i}`);
      }
      this.fns.push(code);
    }
    const params = names.map((n, k) => `${n}: ${types[k]!}`).join(', ');
    this.fns.push(`fn op${i}(${params}) -> ${ret} { return ${expr}; }`);
    return `op${i}`;
  }

  /** The `let` of a non-load, non-reduce instruction `i`, rounded to its dtype. */
  instr(i: number, scalars: ReadonlyMap<number, string>): string {
    const known = this.lets.get(i);
    if (known !== undefined) return known;
    const instr = this.program.instrs[i]!;
    const d = instr.dtype;
    const t = ctype(d);
    for (const h of storeHelpers(d)) this.helpers.add(h);
    let value = this.value(i, instr, t, scalars);
    // An f32 result passes through an XOR with a uniform zero: the compiler cannot see through it,
    // so it cannot contract a product with the next instruction's sum into an FMA (one rounding
    // where the unfused ops, storing the product, round twice). f16/bf16 stores are integer code already.
    if (d === 'f32' && (instr.kind === 'unary' || instr.kind === 'binary'))
      value = `bitcast<f32>(bitcast<u32>(${value}) ^ ${this.zero})`;
    const line = `let v${i}: ${t} = ${storeExpr(d, value)};`;
    this.lets.set(i, line);
    return line;
  }

  private value(i: number, instr: FusedInstr, t: CType, scalars: ReadonlyMap<number, string>): string {
    const d = instr.dtype;
    switch (instr.kind) {
      case 'scalar':
        return scalars.get(i)!;
      case 'unary':
        return `${this.fn(i, unaryExpr(instr.op, d), ['x'], [t], t)}(${this.arg(instr.x, d)})`;
      case 'predicate': {
        const xd = this.dtype(instr.x);
        return `${this.fn(i, predicateExpr(instr.op, xd), ['x'], [ctype(xd)], 'u32')}(v${instr.x})`;
      }
      case 'binary':
        return `${this.fn(i, binaryExpr(instr.op, d), ['x', 'y'], [t, t], t)}(${this.arg(instr.x, d)}, ${this.arg(instr.y, d)})`;
      case 'compare': {
        const common = commonDType(this.dtype(instr.x), this.dtype(instr.y));
        const ct = ctype(common);
        const f = this.fn(i, compareExpr(instr.op, ct), ['x', 'y'], [ct, ct], 'u32');
        return `${f}(${this.arg(instr.x, common)}, ${this.arg(instr.y, common)})`;
      }
      case 'where':
        return `select(${this.arg(instr.y, d)}, ${this.arg(instr.x, d)}, ${this.arg(instr.c, 'bool')} != 0u)`;
      case 'cast':
        return this.arg(instr.x, d);
      case 'load':
      case 'reduce':
        throw new Error('unreachable: loads and reduces are generated by their callers');
    }
  }
}

function generateElementwise(program: FusedProgram, plan: Plan): string {
  const g = new Gen(program, plan.zero);
  const { live } = analyze(program);
  const lines: string[] = [LINEAR_MAIN, `  if (i >= ${plan.n}) { return; }`];
  for (const k of plan.used) {
    const a = plan.access.get(k)!;
    lines.push(`  var p${k}: i32 = ${plan.offsets.get(k)!}${a === 'c' ? ' + i32(i)' : ''};`);
  }
  if (plan.gInputs.length > 0)
    lines.push(
      ...decomposeIndex(
        'i',
        'r',
        plan.gInputs.map((k) => `p${k}`),
        plan.dims,
      ),
    );
  program.instrs.forEach((instr, i) => {
    if (!live[i]) return;
    if (instr.kind === 'load') lines.push(`  let v${i}: ${g.t(i)} = in${instr.input}[p${instr.input}];`);
    else lines.push(`  ${g.instr(i, plan.scalars)}`);
  });
  program.outputs.forEach((o, k) => lines.push(`  out${k}[i] = v${o.value};`));
  lines.push('}');
  return assemble(g, program, plan, lines);
}

function assemble(g: Gen, program: FusedProgram, plan: Plan, body: readonly string[]): string {
  const bindings: [string, CType, boolean][] = [
    ...program.outputs.map((o, k): [string, CType, boolean] => [`out${k}`, g.t(o.value), true]),
    ...plan.used.map((k): [string, CType, boolean] => [`in${k}`, ctype(program.inputs[k]!.dtype), false]),
  ];
  return shader(g.helpers, [...g.fns, storageDecls(bindings), plan.params.decl(bindings.length), ...body]);
}

function generateRows(program: FusedProgram, plan: Plan): string {
  const g = new Gen(program, plan.zero);
  const schedule = analyze(program).schedule!;
  const { instrs } = program;
  const wide = plan.wide;
  const lines: string[] = [];
  // Workgroup memory for the trees: one array per accumulator type, reused by each reduce in turn.
  const accTypes = new Set<CType>();
  const accOf = (i: number): { t: CType; acc: CType } => {
    const instr = instrs[i] as Extract<FusedInstr, { kind: 'reduce' }>;
    const t = g.t(instr.x);
    return { t, acc: instr.op === 'any' || instr.op === 'all' ? 'u32' : t };
  };
  for (const p of schedule.passes) for (const r of p.reduces) accTypes.add(accOf(r).acc);
  if (wide) {
    for (const t of accTypes) lines.push(`var<workgroup> sh_${t}: array<${t}, ${ROW_WG}>;`);
    lines.push(
      `@compute @workgroup_size(${ROW_WG})`,
      'fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) nwg: vec3<u32>) {',
      '  let o = wid.x + wid.y * nwg.x;',
    );
  } else lines.push(LINEAR_MAIN, '  let o = i;');
  // Whole workgroups return together (o is uniform), so the barriers below stay in uniform control flow.
  lines.push(`  if (o >= ${plan.n}) { return; }`, `  let ni = ${plan.nInner};`);
  for (const k of plan.used) lines.push(`  var b${k}: i32 = ${plan.offsets.get(k)!};`);
  if (plan.outerDims.length > 0)
    lines.push(
      ...decomposeIndex(
        'o',
        'ro',
        plan.used.map((k) => `b${k}`),
        plan.outerDims,
      ),
    );
  const emitRow = (i: number) => {
    const instr = instrs[i]!;
    if (instr.kind === 'load') lines.push(`  let v${i}: ${g.t(i)} = in${instr.input}[b${instr.input}];`);
    else lines.push(`  ${g.instr(i, plan.scalars)}`);
  };
  schedule.passes.forEach((pass, p) => {
    for (const i of schedule.rowBefore[p]!) emitRow(i);
    const red = pass.reduces.map((r) => {
      const instr = instrs[r] as Extract<FusedInstr, { kind: 'reduce' }>;
      const { t, acc } = accOf(r);
      const code = reduceCode(instr.op, g.dtype(instr.x));
      for (const h of code.helpers) g.helpers.add(h);
      if ((instr.op === 'max' || instr.op === 'min') && t === 'f32') g.helpers.add('inf');
      g.fns.push(`fn step${r}(acc: ${acc}, v: ${t}) -> ${acc} { return ${code.step}; }`);
      g.fns.push(`fn comb${r}(a: ${acc}, b: ${acc}) -> ${acc} { return ${code.combine}; }`);
      return { r, instr, acc, init: reduceInit(instr.op, t, code.init) };
    });
    for (const { r, acc, init } of red) lines.push(`  var a${r}: ${acc} = ${init};`);
    lines.push(wide ? `  for (var j = t; j < ni; j = j + ${ROW_WG}u) {` : '  for (var j = 0u; j < ni; j = j + 1u) {');
    const loaded = new Set<number>();
    for (const i of pass.elementInstrs) {
      const instr = instrs[i]!;
      if (instr.kind === 'load') loaded.add(instr.input);
    }
    for (const k of loaded) lines.push(`    var q${k}: i32 = b${k}${plan.access.get(k) === 'c' ? ' + i32(j)' : ''};`);
    const gHere = plan.gInputs.filter((k) => loaded.has(k));
    if (gHere.length > 0) {
      // The inner dims carry the strides of every 'g' input; those this pass does not load use a dummy.
      lines.push('    var qz: i32 = 0;');
      lines.push(
        ...decomposeIndex(
          'j',
          'rj',
          plan.gInputs.map((k) => (gHere.includes(k) ? `q${k}` : 'qz')),
          plan.dims,
          '    ',
        ),
      );
    }
    for (const i of pass.elementInstrs) {
      const instr = instrs[i]!;
      if (instr.kind === 'load') lines.push(`    let v${i}: ${g.t(i)} = in${instr.input}[q${instr.input}];`);
      else lines.push(`    ${g.instr(i, plan.scalars)}`);
    }
    for (const { r, instr } of red) lines.push(`    a${r} = step${r}(a${r}, v${instr.x});`);
    for (const k of pass.stores) lines.push(`    out${k}[o * ni + j] = v${program.outputs[k]!.value};`);
    lines.push('  }');
    for (const { r, instr, acc } of red) {
      const src = instr.op === 'any' || instr.op === 'all' ? 'bool' : g.dtype(instr.x);
      const c = castExpr(src, instr.dtype, `a${r}`);
      for (const h of [...c.helpers, ...storeHelpers(instr.dtype)]) g.helpers.add(h);
      if (wide)
        lines.push(
          `  sh_${acc}[t] = a${r};`,
          '  workgroupBarrier();',
          `  for (var s = ${ROW_WG / 2}u; s > 0u; s = s >> 1u) {`,
          `    if (t < s) { sh_${acc}[t] = comb${r}(sh_${acc}[t], sh_${acc}[t + s]); }`,
          '    workgroupBarrier();',
          '  }',
          `  a${r} = sh_${acc}[0];`,
          // Everyone has read the total before the array serves the next reduction.
          '  workgroupBarrier();',
        );
      lines.push(`  let v${r}: ${g.t(r)} = ${storeExpr(instr.dtype, c.expr)};`);
    }
  });
  for (const i of schedule.rowBefore[schedule.passes.length]!) emitRow(i);
  if (schedule.rowStores.length > 0) {
    const stores = schedule.rowStores.map((k) => `out${k}[o] = v${program.outputs[k]!.value};`).join(' ');
    lines.push(wide ? `  if (t == 0u) { ${stores} }` : `  ${stores}`);
  }
  lines.push('}');
  return assemble(g, program, plan, lines);
}
