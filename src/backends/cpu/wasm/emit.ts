/**
 * WebAssembly emitted straight from TypeScript for the cheap elementwise programs: one small
 * module per program (a few hundred bytes, compiled synchronously once per program key) whose loop
 * keeps every value in a `v128` local, so a chain of cheap ops costs its loads and stores once
 * instead of once per op as in the tiled interpreter (wasm/assembly/fused.ts). Measured on an
 * 8-op add chain over 4M f32, streamed the same way: 2.4 ms emitted, 8.5 ms interpreted (CPU time,
 * one thread). Each op is the same SIMD instruction (or the same few) that the module's unfused
 * kernel runs for it (wasm/assembly/ops4.ts), so the values are equal.
 *
 * Taken: elementwise programs of contiguous or single-value f32 inputs, scalars, the cheap unary
 * ops (not exp, log, tanh, sigmoid: their polynomials live in the module, where the interpreter
 * runs them), add, sub, mul, div, max, min, compares, isnan/isinf, where and the casts between
 * masks and f32. A scalar rhs that is not an f32 (binaryScalar applies it in f64) is left to the
 * interpreter at call time ({@link EmittedKernel.f32Scalars}).
 */
import type { FusedInstr, FusedProgram } from '../../../backend/fusion/program.js';
import type { BinaryOp, CompareOp, UnaryOp } from '../../../backend/ops.js';
import type { WasmApi, WasmMemory } from './wasm-api.js';

/** An emitted kernel: `run(inputs…, consts, outputs…, bytes)` over `bytes` (a multiple of 16) from each address. */
export interface EmittedKernel {
  readonly run: (...args: number[]) => void;
  /** Scalar indices applied as a binary op's rhs: each must be an f32 (else the interpreter runs the call). */
  readonly f32Scalars: readonly number[];
  /** Inputs read as one value splatted (a stride-0 operand) rather than a vector per step. */
  readonly splatInputs: readonly boolean[];
}

const SIMD = 0xfd;
const OP = {
  load: 0x00,
  load32Splat: 0x09,
  store: 0x0b,
  splat: 0x13,
  and: 0x4e,
  bitselect: 0x52,
  eq: 0x41,
  ne: 0x42,
  lt: 0x43,
  gt: 0x44,
  le: 0x45,
  ge: 0x46,
  ceil: 0x67,
  floor: 0x68,
  trunc: 0x69,
  nearest: 0x6a,
  abs: 0xe0,
  neg: 0xe1,
  sqrt: 0xe3,
  add: 0xe4,
  sub: 0xe5,
  mul: 0xe6,
  div: 0xe7,
  min: 0xe8,
  max: 0xe9,
} as const;

const UNARY: Partial<Record<UnaryOp, number>> = {
  neg: OP.neg,
  abs: OP.abs,
  sqrt: OP.sqrt,
  floor: OP.floor,
  ceil: OP.ceil,
  trunc: OP.trunc,
  round: OP.nearest,
};
const BINARY: Partial<Record<BinaryOp, number>> = {
  add: OP.add,
  sub: OP.sub,
  mul: OP.mul,
  div: OP.div,
  max: OP.max,
  min: OP.min,
};
const COMPARE: Record<CompareOp, number> = { eq: OP.eq, ne: OP.ne, gt: OP.gt, ge: OP.ge, lt: OP.lt, le: OP.le };

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
const name = (s: string) => [...leb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const simd = (op: number) => [SIMD, ...leb(op)];
const f32Const = (v: number) => [0x43, ...new Uint8Array(Float32Array.of(v).buffer)];

/**
 * The kernel of an elementwise program over `memory` (a plain, unshared memory), or undefined
 * when the program has an instruction or input layout it does not take. `splat[i]`: input i is
 * one value broadcast everywhere.
 */
export function emitElementwise(
  program: FusedProgram,
  splat: readonly boolean[],
  api: WasmApi,
  memory: WasmMemory,
): EmittedKernel | undefined {
  if (program.reduces || program.inputs.some((x) => x.dtype !== 'f32')) return undefined;
  const { instrs } = program;
  const nIn = program.inputs.length,
    nOut = program.outputs.length;
  // Params: inputs, the constants' address, outputs, bytes. Locals: i, then a v128 per value and four constants.
  const pConsts = nIn,
    pOut0 = nIn + 1,
    pBytes = nIn + 1 + nOut,
    lI = pBytes + 1,
    lVal0 = lI + 1,
    lOne = lVal0 + instrs.length,
    lNegOne = lOne + 1,
    lZero = lOne + 2,
    lInf = lOne + 3;
  const get = (l: number) => [0x20, ...leb(l)];
  const set = (l: number) => [0x21, ...leb(l)];
  const pre: number[] = [];
  const loop: number[] = [];
  const f32Scalars: number[] = [];
  const isBool = (v: number) => instrs[v]!.dtype === 'bool';
  let constCount = 0;
  for (let v = 0; v < instrs.length; v++) {
    const ins: FusedInstr = instrs[v]!;
    const dst = set(lVal0 + v);
    const x = (a: number) => get(lVal0 + a);
    switch (ins.kind) {
      case 'load':
        if (splat[ins.input]) pre.push(...get(ins.input), ...simd(OP.load32Splat), 0, 0, ...dst);
        else loop.push(...get(ins.input), ...get(lI), 0x6a, ...simd(OP.load), 0, 0, ...dst);
        break;
      case 'scalar':
        // Written by the caller, splatted and rounded to f32 as `fill` rounds it (16 bytes each).
        if (ins.dtype !== 'f32') return undefined;
        pre.push(...get(pConsts), ...simd(OP.load), 0, ...leb(16 * constCount++), ...dst);
        break;
      case 'unary': {
        if (ins.dtype !== 'f32') return undefined;
        if (ins.op === 'recip') loop.push(...get(lOne), ...x(ins.x), ...simd(OP.div), ...dst);
        else if (ins.op === 'sign') {
          // ops4.ts: bitselect(1, bitselect(-1, x + 0, x < 0), x > 0).
          loop.push(...get(lOne), ...get(lNegOne), ...x(ins.x), ...get(lZero), ...simd(OP.add));
          loop.push(...x(ins.x), ...get(lZero), ...simd(OP.lt), ...simd(OP.bitselect));
          loop.push(...x(ins.x), ...get(lZero), ...simd(OP.gt), ...simd(OP.bitselect), ...dst);
        } else {
          const op = UNARY[ins.op];
          if (op === undefined) return undefined;
          loop.push(...x(ins.x), ...simd(op), ...dst);
        }
        break;
      }
      case 'binary': {
        const op = BINARY[ins.op];
        if (op === undefined || ins.dtype !== 'f32' || isBool(ins.x) || isBool(ins.y)) return undefined;
        const y = instrs[ins.y]!;
        if (y.kind === 'scalar') f32Scalars.push(y.index);
        loop.push(...x(ins.x), ...x(ins.y), ...simd(op), ...dst);
        break;
      }
      case 'compare':
        if (isBool(ins.x) || isBool(ins.y)) return undefined;
        loop.push(...x(ins.x), ...x(ins.y), ...simd(COMPARE[ins.op]), ...dst);
        break;
      case 'predicate':
        if (isBool(ins.x)) return undefined;
        if (ins.op === 'isnan') loop.push(...x(ins.x), ...x(ins.x), ...simd(OP.ne), ...dst);
        else loop.push(...x(ins.x), ...simd(OP.abs), ...get(lInf), ...simd(OP.eq), ...dst);
        break;
      case 'where':
        if (!isBool(ins.c) || isBool(ins.x) || isBool(ins.y) || ins.dtype !== 'f32') return undefined;
        loop.push(...x(ins.x), ...x(ins.y), ...x(ins.c), ...simd(OP.bitselect), ...dst);
        break;
      case 'cast':
        if (ins.dtype === 'f32' && !isBool(ins.x)) loop.push(...x(ins.x), ...dst);
        else if (ins.dtype === 'f32') loop.push(...x(ins.x), ...get(lOne), ...simd(OP.and), ...dst);
        else if (ins.dtype === 'bool' && instrs[ins.x]!.dtype === 'f32')
          loop.push(...x(ins.x), ...get(lZero), ...simd(OP.ne), ...dst);
        else return undefined;
        break;
      default:
        return undefined;
    }
  }
  for (const [k, o] of program.outputs.entries()) {
    if (isBool(o.value)) return undefined;
    loop.push(...get(pOut0 + k), ...get(lI), 0x6a, ...get(lVal0 + o.value), ...simd(OP.store), 0, 0);
  }
  const constants = [
    [lOne, 1],
    [lNegOne, -1],
    [lZero, 0],
    [lInf, Number.POSITIVE_INFINITY],
  ] as const;
  const body = [
    2,
    1,
    0x7f,
    ...leb(instrs.length + 4),
    0x7b,
    ...constants.flatMap(([l, v]) => [...f32Const(v), ...simd(OP.splat), ...set(l)]),
    ...pre,
    // block { loop { if i >= bytes break; …; i += 16; continue } }
    0x02,
    0x40,
    0x03,
    0x40,
    ...get(lI),
    ...get(pBytes),
    0x4f,
    0x0d,
    1,
    ...loop,
    ...get(lI),
    0x41,
    16,
    0x6a,
    ...set(lI),
    0x0c,
    0,
    0x0b,
    0x0b,
    0x0b,
  ];
  const params = pBytes + 1;
  const bytes = Uint8Array.from([
    0,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, [1, 0x60, ...leb(params), ...new Array<number>(params).fill(0x7f), 0]),
    ...section(2, [1, ...name('env'), ...name('memory'), 2, 0, 0]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('run'), 0, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
  try {
    const instance = new api.Instance(new api.Module(bytes), { env: { memory } });
    const run = instance.exports['run'] as (...args: number[]) => void;
    return { run, f32Scalars, splatInputs: [...splat] };
  } catch {
    // A browser's main thread compiles at most 4 KiB synchronously (and a CSP may forbid it): the interpreter runs.
    return undefined;
  }
}
