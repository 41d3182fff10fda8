// Fused programs (src/backend/fusion/program.ts): a tiled interpreter. The JavaScript side
// (src/backends/cpu/wasm/fused.ts) compiles a program once into the i32 code read here; each call
// runs it over a block of rows (an elementwise program is one row: the block), tile by tile: every
// instruction runs over at most T values held in a tile-sized register in this memory (a few KiB,
// so a chain's registers stay in the L1 cache), with the vector ops of the unfused kernels
// (ops4.ts, rows.ts), so a fused program's values are those of its ops run one by one.
//
// Values live in *element slots* (a register of T f32 per slot; `ptrs[slot]` is where the current
// tile's values are: the slot's register, an output block, or straight in an input block), *row
// slots* (one splatted vector per row of the tile: row-level values) or *constants* (one splatted
// vector: the scalars). An operand reference `ref` >= 0 is element slot `ref` (a vector a step);
// FUSED_CONST_REF < ref < 0 is row slot `~ref` (a vector a step at row level; in an element-level
// instruction the row's one vector, so the same loops broadcast it along the row); ref <=
// FUSED_CONST_REF is constant FUSED_CONST_REF − ref (one vector everywhere). Bool values are lane
// masks (0 or all ones). Programs run as one list of instructions per tile (elementwise programs;
// GROUP short rows a tile) or, for rows longer than a tile, as passes over each row.
import { binary2d, binary4, tailLoad, tailStore, unary4 } from './ops4';
import { combine, combine1 } from './rows';

// Instruction op codes (the first word of an 8-word instruction: op, sub, dst, a, b, c, out, 0).
/** Element load of input `a` into element slot `dst`. */
export const FUSED_loadElement: i32 = 1;
/** Row load of input `a` (at the current row) into row slot `~dst`. */
export const FUSED_loadRow: i32 = 2;
/** dst = unary `sub`(a). */
export const FUSED_unary: i32 = 3;
/** dst = a (binary `sub`) b, both f32 vectors. */
export const FUSED_binary: i32 = 4;
/** dst = a (binary `sub`) scalar `b` (f64; applied in f32 when it is an f32, else in f64, as the scalar kernel). */
export const FUSED_binaryScalar: i32 = 5;
/** dst = a (compare `sub`) b: a lane mask. */
export const FUSED_compare: i32 = 6;
/** dst = predicate `sub`(a) (0: isnan, 1: isinf): a lane mask. */
export const FUSED_predicate: i32 = 7;
/** dst = a ? b : c (a lane mask). */
export const FUSED_where: i32 = 8;
/** dst = a cast: `sub` 0 the same dtype (a copy), 1 a mask to f32 (1 or 0), 2 f32 to a mask (x != 0). */
export const FUSED_copy: i32 = 9;
/** Row slot `dst` = reduction `sub` of element slot `a` over whole rows (linear programs). */
export const FUSED_reduce: i32 = 10;
/** Element output `b` = `a` (linear programs; nothing when `a` was computed into it). */
export const FUSED_store: i32 = 11;
/** Row output `b` = row slot `a` (linear programs). */
export const FUSED_rowStore: i32 = 12;

// Compare codes.
export const FUSED_CMP_eq: i32 = 0;
export const FUSED_CMP_ne: i32 = 1;
export const FUSED_CMP_gt: i32 = 2;
export const FUSED_CMP_ge: i32 = 3;
export const FUSED_CMP_lt: i32 = 4;
export const FUSED_CMP_le: i32 = 5;

// Phases of the code after the scalar table: row-level instructions, a pass over the row, row stores.
export const FUSED_PHASE_end: i32 = 0;
export const FUSED_PHASE_row: i32 = 1;
export const FUSED_PHASE_pass: i32 = 2;
export const FUSED_PHASE_rowStore: i32 = 3;
/** The whole program as one list of instructions (elementwise programs; rows that fit a tile). */
export const FUSED_PHASE_linear: i32 = 4;

/** Words per instruction in the code. */
export const FUSED_INSTR_WORDS: i32 = 8;
/** Bytes of one reduction's state (four vector accumulators, the scalar one). */
export const FUSED_REDUCE_STATE: i32 = 80;

// Argument block (u32 fields, 80 bytes). A task is TOTAL rows (an elementwise program: TOTAL
// elements, one row per job) split into jobs of PER_JOB; ROW_ORIGIN and FLAT_ORIGIN are the row and
// the flat index that the outputs' blocks and streamed inputs start at. REGS, PTRS, ROW_SLOTS,
// RED_STATE and CTX are thread 0's; thread `tid`'s are THREAD_STRIDE · tid bytes further. GROUP:
// rows per tile of a linear program (short rows); ROW_SLOT_BYTES: 16 · GROUP (a row slot holds one
// vector per row of the tile); CONSTS: the scalars, one splatted vector each (written by the caller).
const CODE = 0, TOTAL = 4, LEN = 8, ROW_ORIGIN = 12, FLAT_ORIGIN = 16, OPERANDS = 20, OUTPUTS = 24;
const SCALARS = 28, REGS = 32, PTRS = 36, ROW_SLOTS = 40, RED_STATE = 44, TILE = 48, PER_JOB = 52;
const ELEMENTWISE = 56, THREAD_STRIDE = 60, CTX = 64, GROUP = 68, CONSTS = 72, ROW_SLOT_BYTES = 76;
/** Bytes of the argument block (each thread copies it into its context, with its own scratch). */
export const FUSED_ARGS_BYTES: i32 = 80;
/**
 * Operand table entries (64 bytes): address, period P, repeat Q, first index held (u32 each); then
 * a gather flag and, for a gathered operand (any strided view), its rank-4 dims and signed strides.
 */
export const FUSED_OPERAND_BYTES: i32 = 64;
const OPERAND_BYTES = 64;
/** Operand references at or below this are constants: `FUSED_CONST_REF - ref` is the constant. */
export const FUSED_CONST_REF: i32 = -(1 << 20);

/** The kind of an operand reference: 0 element slot, 1 row slot, 2 constant. */
@inline function kindOf(ref: i32): i32 {
  return ref >= 0 ? 0 : ref > FUSED_CONST_REF ? 1 : 2;
}

/** Where operand `ref` is: an element slot's current values, a row slot, a constant. */
@inline function addr(ctx: usize, ref: i32): usize {
  if (ref >= 0) return <usize>load<u32>(<usize>load<u32>(ctx, PTRS) + <usize>ref * 4);
  if (ref > FUSED_CONST_REF) return <usize>load<u32>(ctx, ROW_SLOTS) + <usize>(~ref) * <usize>load<u32>(ctx, ROW_SLOT_BYTES);
  return <usize>load<u32>(ctx, CONSTS) + <usize>(FUSED_CONST_REF - ref) * 16;
}

/** Runs job `job` of a fused task (see the argument block above) on thread `tid`. */
export function fusedJob(args: usize, job: i32, tid: i32): void {
  // This thread's context: the arguments with its own registers and slots.
  const stride = <usize>load<u32>(args, THREAD_STRIDE) * <usize>tid;
  const ctx = <usize>load<u32>(args, CTX) + stride;
  memory.copy(ctx, args, FUSED_ARGS_BYTES);
  store<u32>(ctx, <u32>(<usize>load<u32>(args, REGS) + stride), REGS);
  store<u32>(ctx, <u32>(<usize>load<u32>(args, PTRS) + stride), PTRS);
  store<u32>(ctx, <u32>(<usize>load<u32>(args, ROW_SLOTS) + stride), ROW_SLOTS);
  store<u32>(ctx, <u32>(<usize>load<u32>(args, RED_STATE) + stride), RED_STATE);
  const per = load<i32>(ctx, PER_JOB), total = load<i32>(ctx, TOTAL);
  const s0 = job * per, cnt = min(per, total - s0);
  const elementwise = load<i32>(ctx, ELEMENTWISE) != 0;
  const rows = elementwise ? 1 : cnt, len = elementwise ? cnt : load<i32>(ctx, LEN);
  const row0 = load<i32>(ctx, ROW_ORIGIN) + (elementwise ? 0 : s0);
  const flat0 = elementwise ? load<i32>(ctx, FLAT_ORIGIN) + s0 : row0 * len;
  const T = load<i32>(ctx, TILE);
  const code = <usize>load<u32>(ctx, CODE);
  if (load<i32>(code) == FUSED_PHASE_linear) {
    // One pass: elementwise programs tile by tile, short rows GROUP rows a tile.
    const count = load<i32>(code, 4), instrs = code + 8;
    if (elementwise) {
      for (let t0 = 0; t0 < len; t0 += T) linear(ctx, instrs, count, flat0 + t0, 0, 1, min(T, len - t0));
    } else {
      const group = load<i32>(ctx, GROUP);
      for (let r = 0; r < rows; r += group)
        linear(ctx, instrs, count, flat0 + r * len, row0 + r, min(group, rows - r), len);
    }
    return;
  }
  for (let r = 0; r < rows; r++) {
    let p = code;
    while (true) {
      const phase = load<i32>(p);
      if (phase == FUSED_PHASE_end) break;
      const count = load<i32>(p, 4);
      if (phase == FUSED_PHASE_row) {
        p += 8;
        for (let i = 0; i < count; i++) {
          exec(ctx, p, 0, row0 + r, 1, 0);
          p += <usize>FUSED_INSTR_WORDS * 4;
        }
      } else if (phase == FUSED_PHASE_pass) {
        p = pass(ctx, p, len, flat0 + r * len);
      } else {
        // Row stores: lane 0 of each row slot into its output's block.
        p += 8;
        for (let i = 0; i < count; i++) {
          rowStore(ctx, load<i32>(p), load<i32>(p, 4), row0 + r, 1);
          p += 8;
        }
      }
    }
  }
}

/** Runs a linear program's `count` instructions at `ins` over a tile of `R` rows of `L` values from flat index `g`, row `row`. */
function linear(ctx: usize, ins: usize, count: i32, g: i32, row: i32, R: i32, L: i32): void {
  for (let i = 0; i < count; i++) {
    exec(ctx, ins, g, row, R, L);
    ins += <usize>FUSED_INSTR_WORDS * 4;
  }
}

/** Lane 0 of row slot `ref`'s vectors for rows [row, row + R) into output `out`. */
function rowStore(ctx: usize, ref: i32, out: i32, row: i32, R: i32): void {
  const to = <usize>load<u32>(<usize>load<u32>(ctx, OUTPUTS) + <usize>out * 4) + <usize>(row - load<i32>(ctx, ROW_ORIGIN)) * 4;
  const from = addr(ctx, ref);
  const step = kindOf(ref) == 1 ? 16 : 0;
  for (let r = 0; r < R; r++) store<f32>(to + <usize>r * 4, load<f32>(from + <usize>(r * step)));
}

/** Stores `n` values of `ref` as output `out` from flat index `g` (nothing to do when computed there). */
function storeElements(ctx: usize, ref: i32, out: i32, g: i32, n: i32): void {
  const to = <usize>load<u32>(<usize>load<u32>(ctx, OUTPUTS) + <usize>out * 4) + <usize>(g - load<i32>(ctx, FLAT_ORIGIN)) * 4;
  const from = addr(ctx, ref);
  if (from == to) return;
  if (ref >= 0) memory.copy(to, from, <usize>n * 4);
  else fill(to, load<f32>(from), n);
}

/** One pass over a long row (flat index of its first element `g0`), tile by tile; returns the next phase's address. */
function pass(ctx: usize, p: usize, len: i32, g0: i32): usize {
  const nInstr = load<i32>(p, 4), nRed = load<i32>(p, 8), nStore = load<i32>(p, 12);
  const instrs = p + 16;
  const reds = instrs + <usize>(nInstr * FUSED_INSTR_WORDS) * 4;
  const stores = reds + <usize>nRed * 16;
  const T = load<i32>(ctx, TILE);
  const redState = <usize>load<u32>(ctx, RED_STATE);
  for (let t0 = 0; t0 < len; t0 += T) {
    const n = min(T, len - t0), g = g0 + t0;
    let q = instrs;
    for (let i = 0; i < nInstr; i++) {
      exec(ctx, q, g, 0, 1, n);
      q += <usize>FUSED_INSTR_WORDS * 4;
    }
    for (let i = 0; i < nRed; i++) {
      const e = reds + <usize>i * 16;
      const op = load<i32>(e), src = load<i32>(e, 4), dst = load<i32>(e, 8), st = load<i32>(e, 12);
      reduceTile(op, redState + <usize>st * FUSED_REDUCE_STATE, addr(ctx, src), t0, n, len, addr(ctx, dst));
    }
    for (let i = 0; i < nStore; i++) {
      const e = stores + <usize>i * 8;
      storeElements(ctx, load<i32>(e), load<i32>(e, 4), g, n);
    }
  }
  return stores + <usize>nStore * 8;
}

@inline function fill(to: usize, v: f32, n: i32): void {
  const s = f32x4.splat(v);
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(to + <usize>i * 4, s);
  for (; i < n; i++) store<f32>(to + <usize>i * 4, v);
}

/**
 * Accumulates `n` values at `x` (elements [c0, c0 + n) of a row of `len`) into a reduction's state
 * with rows.ts's `reduceRow` order (four vector accumulators over blocks of 16, then blocks of 4
 * into the first, then the rest one by one), so the result equals the unfused reduction: tiles are
 * multiples of 16 except the row's last. The last tile writes the result, splatted, to `dst`.
 */
function reduceTile(op: i32, st: usize, x: usize, c0: i32, n: i32, len: i32, dst: usize): void {
  switch (op) {
    case 0: reduceTileOp(0, st, x, c0, n, len, dst); break;
    case 1: reduceTileOp(1, st, x, c0, n, len, dst); break;
    case 2: reduceTileOp(2, st, x, c0, n, len, dst); break;
    default: reduceTileOp(3, st, x, c0, n, len, dst); break;
  }
}

@inline function reduceTileOp(op: i32, st: usize, x: usize, c0: i32, n: i32, len: i32, dst: usize): void {
  let acc: f32;
  let j = 0;
  if (len >= 16) {
    let v0: v128, v1: v128, v2: v128, v3: v128;
    if (c0 == 0) {
      v0 = v128.load(x); v1 = v128.load(x, 16); v2 = v128.load(x, 32); v3 = v128.load(x, 48);
      j = 16;
    } else {
      v0 = v128.load(st); v1 = v128.load(st, 16); v2 = v128.load(st, 32); v3 = v128.load(st, 48);
    }
    for (; j + 16 <= n; j += 16) {
      const q = x + <usize>j * 4;
      v0 = combine(op, v0, v128.load(q)); v1 = combine(op, v1, v128.load(q, 16));
      v2 = combine(op, v2, v128.load(q, 32)); v3 = combine(op, v3, v128.load(q, 48));
    }
    if (c0 + n < len) {
      v128.store(st, v0); v128.store(st, v1, 16); v128.store(st, v2, 32); v128.store(st, v3, 48);
      return;
    }
    for (; j + 4 <= n; j += 4) v0 = combine(op, v0, v128.load(x + <usize>j * 4));
    const v = combine(op, combine(op, v0, v1), combine(op, v2, v3));
    acc = combine1(op, combine1(op, f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), combine1(op, f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
  } else {
    // The whole row is this tile (tiles hold at least 16 values).
    acc = load<f32>(x);
    j = 1;
  }
  for (; j < n; j++) acc = combine1(op, acc, load<f32>(x + <usize>j * 4));
  v128.store(dst, f32x4.splat(acc));
}

/**
 * Runs the instruction at `ins` over a tile: `R` rows of `L` values from flat index `g` and row
 * `row` (a long row's tile: R = 1, L its length). A row-level instruction computes the R rows'
 * vectors of its row slot; an element-level one reading a row value runs row by row.
 */
function exec(ctx: usize, ins: usize, g: i32, row: i32, R: i32, L: i32): void {
  const op = load<i32>(ins), sub = load<i32>(ins, 4), dst = load<i32>(ins, 8);
  const a = load<i32>(ins, 12), b = load<i32>(ins, 16), c = load<i32>(ins, 20), outIndex = load<i32>(ins, 24);
  const n = R * L;
  if (op == FUSED_store) {
    storeElements(ctx, a, b, g, n);
    return;
  }
  if (op == FUSED_rowStore) {
    rowStore(ctx, a, b, row, R);
    return;
  }
  // The destination: an output's block (a value that is stored), the slot's register, or a row slot.
  let out: usize;
  if (dst < 0) out = addr(ctx, dst);
  else if (outIndex >= 0)
    out = <usize>load<u32>(<usize>load<u32>(ctx, OUTPUTS) + <usize>outIndex * 4) + <usize>(g - load<i32>(ctx, FLAT_ORIGIN)) * 4;
  else out = <usize>load<u32>(ctx, REGS) + <usize>dst * <usize>load<i32>(ctx, TILE) * 4;
  if (op == FUSED_loadElement) {
    const o = <usize>load<u32>(ctx, OPERANDS) + <usize>a * OPERAND_BYTES;
    if (load<u32>(o, 16) != 0) gather(out, o, g, n);
    else out = loadElement(out, <usize>load<u32>(o), load<u32>(o, 4), load<u32>(o, 8), load<u32>(o, 12), <u32>g, n);
  } else if (op == FUSED_loadRow) {
    const o = <usize>load<u32>(ctx, OPERANDS) + <usize>a * OPERAND_BYTES;
    const base = <usize>load<u32>(o), P = load<u32>(o, 4), Q = load<u32>(o, 8), lo = load<u32>(o, 12);
    for (let r = 0; r < R; r++)
      v128.store(out + <usize>r * 16, v128.load32_splat(base + <usize>((<u32>(row + r) / Q) % P - lo) * 4));
  } else if (op == FUSED_reduce) {
    // Whole rows of L values each (a linear program's short rows).
    const x = addr(ctx, a);
    for (let r = 0; r < R; r++) reduceTile(sub, 0, x + <usize>(r * L) * 4, 0, L, L, out + <usize>r * 16);
  } else if (dst < 0) {
    // Row level: the R rows' vectors (a constant operand's one vector serves every row).
    compute(ctx, op, sub, out, a, b, c, 4 * R, 0, 0, true);
  } else if (R > 1 && (kindOf(a) == 1 || kindOf(b) == 1 || kindOf(c) == 1)) {
    // Short rows reading a row value (x − max, e / sum): one call for the binary ops, row by row.
    if (op == FUSED_binary && kindOf(a) != 1 && kindOf(b) == 1)
      binaryRows(sub, out, addr(ctx, a), kindOf(a) == 0 ? 16 : 0, addr(ctx, b), R, L, false);
    else if (op == FUSED_binary && kindOf(a) == 1 && kindOf(b) != 1)
      binaryRows(sub, out, addr(ctx, b), kindOf(b) == 0 ? 16 : 0, addr(ctx, a), R, L, true);
    else
      for (let r = 0; r < R; r++) compute(ctx, op, sub, out + <usize>(r * L) * 4, a, b, c, L, r * L * 4, r * 16, false);
  } else compute(ctx, op, sub, out, a, b, c, n, 0, 0, false);
  if (dst >= 0) store<u32>(<usize>load<u32>(ctx, PTRS) + <usize>dst * 4, <u32>out);
}

/**
 * One computing instruction over `n` values into `out`. Operands: element slots from byte offset
 * `eOff` (a vector a step), row slots from `rOff` (a step of 16 when `rowLevel`, `n` = 4 · rows;
 * else one vector for all `n`), constants one vector for all.
 */
function compute(ctx: usize, op: i32, sub: i32, out: usize, a: i32, b: i32, c: i32, n: i32, eOff: i32, rOff: i32, rowLevel: bool): void {
  const pa = operand(ctx, a, eOff, rOff), sa = stepOf(a, rowLevel);
  switch (op) {
    case FUSED_unary: unary(sub, out, pa, sa, n); break;
    case FUSED_binary: binary(sub, out, pa, sa, operand(ctx, b, eOff, rOff), stepOf(b, rowLevel), n); break;
    case FUSED_binaryScalar:
      binaryScalar(sub, out, pa, sa, load<f64>(<usize>load<u32>(ctx, SCALARS) + <usize>b * 8), n);
      break;
    case FUSED_compare: compare(sub, out, pa, sa, operand(ctx, b, eOff, rOff), stepOf(b, rowLevel), n); break;
    case FUSED_predicate: predicate(sub, out, pa, sa, n); break;
    case FUSED_where:
      where(out, pa, sa, operand(ctx, b, eOff, rOff), stepOf(b, rowLevel), operand(ctx, c, eOff, rOff), stepOf(c, rowLevel), n);
      break;
    default: cast(sub, out, pa, sa, n); break;
  }
}

@inline function operand(ctx: usize, ref: i32, eOff: i32, rOff: i32): usize {
  const k = kindOf(ref);
  return addr(ctx, ref) + <usize>(k == 0 ? eOff : k == 1 ? rOff : 0);
}

/** The byte step of an operand's vectors: element slots 16; row slots 16 at row level, else 0; constants 0. */
@inline function stepOf(ref: i32, rowLevel: bool): usize {
  const k = kindOf(ref);
  return k == 0 || (k == 1 && rowLevel) ? 16 : 0;
}

/**
 * Input values at flat indices [g, g + n) into `out`: value k = (i / Q) mod P of the input, held
 * from index `lo` at `base`. A run that is contiguous in the input is not copied: the slot then
 * points into the input (the returned address).
 */
function loadElement(out: usize, base: usize, P: u32, Q: u32, lo: u32, g: u32, n: i32): usize {
  if (Q == 1) {
    let k = g % P;
    if (k + <u32>n <= P) return base + <usize>(k - lo) * 4;
    let i = 0;
    while (i < n) {
      const run = min(<u32>(n - i), P - k);
      memory.copy(out + <usize>i * 4, base + <usize>(k - lo) * 4, <usize>run * 4);
      i += <i32>run;
      k = 0;
    }
    return out;
  }
  let k = (g / Q) % P, q = g % Q;
  let i = 0;
  while (i < n) {
    const run = min(<u32>(n - i), Q - q);
    fill(out + <usize>i * 4, load<f32>(base + <usize>(k - lo) * 4), <i32>run);
    i += <i32>run;
    q = 0;
    k = k + 1 == P ? 0 : k + 1;
  }
  return out;
}

// The loops: `sa`, `sb`, `sc` are 16 (a vector per step) or 0 (a row slot: the same vector). The
// op is a constant in each case of the switches, so each loop is compiled for its op.

function unary(op: i32, out: usize, a: usize, sa: usize, n: i32): void {
  switch (op) {
    case 0: unaryLoop(0, out, a, sa, n); break;
    case 1: unaryLoop(1, out, a, sa, n); break;
    case 2: unaryLoop(2, out, a, sa, n); break;
    case 3: unaryLoop(3, out, a, sa, n); break;
    case 4: unaryLoop(4, out, a, sa, n); break;
    case 5: unaryLoop(5, out, a, sa, n); break;
    case 6: unaryLoop(6, out, a, sa, n); break;
    case 7: unaryLoop(7, out, a, sa, n); break;
    case 8: unaryLoop(8, out, a, sa, n); break;
    case 9: unaryLoop(9, out, a, sa, n); break;
    case 10: unaryLoop(10, out, a, sa, n); break;
    case 11: unaryLoop(11, out, a, sa, n); break;
    default: unaryLoop(12, out, a, sa, n); break;
  }
}

@inline function unaryLoop(op: i32, out: usize, a: usize, sa: usize, n: i32): void {
  let i = 0;
  // Four vectors a step: the loop's own instructions are a large part of a cheap op's.
  const sa4 = sa * 4;
  for (; i + 16 <= n; i += 16) {
    const x0 = v128.load(a), x1 = v128.load(a + sa), x2 = v128.load(a + sa * 2), x3 = v128.load(a + sa * 3);
    v128.store(out, unary4(op, x0));
    v128.store(out, unary4(op, x1), 16);
    v128.store(out, unary4(op, x2), 32);
    v128.store(out, unary4(op, x3), 48);
    out += 64; a += sa4;
  }
  for (; i + 4 <= n; i += 4) {
    v128.store(out, unary4(op, v128.load(a)));
    out += 16; a += sa;
  }
  if (i < n) tailStore(out, unary4(op, tailLoad(a, n - i)), n - i);
}

function binary(op: i32, out: usize, a: usize, sa: usize, b: usize, sb: usize, n: i32): void {
  switch (op) {
    case 0: binaryLoop(0, out, a, sa, b, sb, n); break;
    case 1: binaryLoop(1, out, a, sa, b, sb, n); break;
    case 2: binaryLoop(2, out, a, sa, b, sb, n); break;
    case 3: binaryLoop(3, out, a, sa, b, sb, n); break;
    case 4: binaryLoop(4, out, a, sa, b, sb, n); break;
    case 6: binaryLoop(6, out, a, sa, b, sb, n); break;
    default: binaryLoop(5, out, a, sa, b, sb, n); break;
  }
}

@inline function binaryLoop(op: i32, out: usize, a: usize, sa: usize, b: usize, sb: usize, n: i32): void {
  let i = 0;
  const sa4 = sa * 4, sb4 = sb * 4;
  for (; i + 16 <= n; i += 16) {
    const x0 = v128.load(a), x1 = v128.load(a + sa), x2 = v128.load(a + sa * 2), x3 = v128.load(a + sa * 3);
    const y0 = v128.load(b), y1 = v128.load(b + sb), y2 = v128.load(b + sb * 2), y3 = v128.load(b + sb * 3);
    v128.store(out, binary4(op, x0, y0));
    v128.store(out, binary4(op, x1, y1), 16);
    v128.store(out, binary4(op, x2, y2), 32);
    v128.store(out, binary4(op, x3, y3), 48);
    out += 64; a += sa4; b += sb4;
  }
  for (; i + 4 <= n; i += 4) {
    v128.store(out, binary4(op, v128.load(a), v128.load(b)));
    out += 16; a += sa; b += sb;
  }
  if (i < n) tailStore(out, binary4(op, tailLoad(a, n - i), tailLoad(b, n - i)), n - i);
}

/** elementwise.ts's `scalarJob` over a tile: f32 when the scalar is an f32 (or NaN), else f64 rounded once. */
function binaryScalar(op: i32, out: usize, a: usize, sa: usize, s: f64, n: i32): void {
  if (<f64><f32>s == s || s != s) {
    const sv = f32x4.splat(<f32>s);
    switch (op) {
      case 0: scalarLoop(0, out, a, sa, sv, n); break;
      case 1: scalarLoop(1, out, a, sa, sv, n); break;
      case 2: scalarLoop(2, out, a, sa, sv, n); break;
      case 3: scalarLoop(3, out, a, sa, sv, n); break;
      case 4: scalarLoop(4, out, a, sa, sv, n); break;
      case 6: scalarLoop(6, out, a, sa, sv, n); break;
      default: scalarLoop(5, out, a, sa, sv, n); break;
    }
    return;
  }
  const sd = f64x2.splat(s);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const x = v128.load(a);
    const lo = binary2d(op, f64x2.promote_low_f32x4(x), sd);
    const hi = binary2d(op, f64x2.promote_low_f32x4(v128.shuffle<f32>(x, x, 2, 3, 0, 1)), sd);
    v128.store(out, v128.shuffle<f32>(f32x4.demote_f64x2_zero(lo), f32x4.demote_f64x2_zero(hi), 0, 1, 4, 5));
    out += 16; a += sa;
  }
  for (; i < n; i++) {
    const lo = binary2d(op, f64x2.splat(<f64>load<f32>(a + <usize>(i & 3) * 4)), sd);
    store<f32>(out, <f32>f64x2.extract_lane(lo, 0));
    out += 4;
  }
}

@inline function scalarLoop(op: i32, out: usize, a: usize, sa: usize, sv: v128, n: i32): void {
  let i = 0;
  const sa4 = sa * 4;
  for (; i + 16 <= n; i += 16) {
    const x0 = v128.load(a), x1 = v128.load(a + sa), x2 = v128.load(a + sa * 2), x3 = v128.load(a + sa * 3);
    v128.store(out, binary4(op, x0, sv));
    v128.store(out, binary4(op, x1, sv), 16);
    v128.store(out, binary4(op, x2, sv), 32);
    v128.store(out, binary4(op, x3, sv), 48);
    out += 64; a += sa4;
  }
  for (; i + 4 <= n; i += 4) {
    v128.store(out, binary4(op, v128.load(a), sv));
    out += 16; a += sa;
  }
  if (i < n) tailStore(out, binary4(op, tailLoad(a, n - i), sv), n - i);
}

@inline function compare4(op: i32, x: v128, y: v128): v128 {
  switch (op) {
    case FUSED_CMP_eq: return f32x4.eq(x, y);
    case FUSED_CMP_ne: return f32x4.ne(x, y);
    case FUSED_CMP_gt: return f32x4.gt(x, y);
    case FUSED_CMP_ge: return f32x4.ge(x, y);
    case FUSED_CMP_lt: return f32x4.lt(x, y);
    default: return f32x4.le(x, y);
  }
}

function compare(op: i32, out: usize, a: usize, sa: usize, b: usize, sb: usize, n: i32): void {
  switch (op) {
    case 0: compareLoop(0, out, a, sa, b, sb, n); break;
    case 1: compareLoop(1, out, a, sa, b, sb, n); break;
    case 2: compareLoop(2, out, a, sa, b, sb, n); break;
    case 3: compareLoop(3, out, a, sa, b, sb, n); break;
    case 4: compareLoop(4, out, a, sa, b, sb, n); break;
    default: compareLoop(5, out, a, sa, b, sb, n); break;
  }
}

@inline function compareLoop(op: i32, out: usize, a: usize, sa: usize, b: usize, sb: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    v128.store(out, compare4(op, v128.load(a), v128.load(b)));
    out += 16; a += sa; b += sb;
  }
  if (i < n) tailStore(out, compare4(op, tailLoad(a, n - i), tailLoad(b, n - i)), n - i);
}

function predicate(op: i32, out: usize, a: usize, sa: usize, n: i32): void {
  const inf = f32x4.splat(Infinity);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const x = v128.load(a);
    v128.store(out, op == 0 ? f32x4.ne(x, x) : f32x4.eq(f32x4.abs(x), inf));
    out += 16; a += sa;
  }
  if (i < n) {
    const x = tailLoad(a, n - i);
    tailStore(out, op == 0 ? f32x4.ne(x, x) : f32x4.eq(f32x4.abs(x), inf), n - i);
  }
}

/** out = c ? x : y per lane (`c` a lane mask); with c = x = y it copies. */
function where(out: usize, c: usize, sc: usize, x: usize, sx: usize, y: usize, sy: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    v128.store(out, v128.bitselect(v128.load(x), v128.load(y), v128.load(c)));
    out += 16; c += sc; x += sx; y += sy;
  }
  if (i < n) tailStore(out, v128.bitselect(tailLoad(x, n - i), tailLoad(y, n - i), tailLoad(c, n - i)), n - i);
}

/** Casts: 0 a copy, 1 a lane mask to 1.0 / 0.0, 2 an f32 to a mask (true where x != 0, NaN included). */
function cast(op: i32, out: usize, a: usize, sa: usize, n: i32): void {
  const one = f32x4.splat(1), zero = f32x4.splat(0);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const x = v128.load(a);
    v128.store(out, op == 0 ? x : op == 1 ? v128.and(x, one) : f32x4.ne(x, zero));
    out += 16; a += sa;
  }
  if (i < n) {
    const x = tailLoad(a, n - i);
    tailStore(out, op == 0 ? x : op == 1 ? v128.and(x, one) : f32x4.ne(x, zero), n - i);
  }
}

/**
 * `R` rows of `L` values: out = x (op) row value, or row value (op) x when `rowFirst`; `x` a vector a
 * step (`sx` 16) or one vector (`sx` 0), `rows` one vector per row. binary4 per vector, as binaryLoop.
 */
function binaryRows(op: i32, out: usize, x: usize, sx: usize, rows: usize, R: i32, L: i32, rowFirst: bool): void {
  switch (op) {
    case 0: binaryRowsLoop(0, out, x, sx, rows, R, L, rowFirst); break;
    case 1: binaryRowsLoop(1, out, x, sx, rows, R, L, rowFirst); break;
    case 2: binaryRowsLoop(2, out, x, sx, rows, R, L, rowFirst); break;
    case 3: binaryRowsLoop(3, out, x, sx, rows, R, L, rowFirst); break;
    case 4: binaryRowsLoop(4, out, x, sx, rows, R, L, rowFirst); break;
    case 6: binaryRowsLoop(6, out, x, sx, rows, R, L, rowFirst); break;
    default: binaryRowsLoop(5, out, x, sx, rows, R, L, rowFirst); break;
  }
}

@inline function binaryRowsLoop(op: i32, out: usize, x: usize, sx: usize, rows: usize, R: i32, L: i32, rowFirst: bool): void {
  for (let r = 0; r < R; r++) {
    const v = v128.load(rows + <usize>r * 16);
    let i = 0;
    if (rowFirst) {
      for (; i + 4 <= L; i += 4) {
        v128.store(out, binary4(op, v, v128.load(x)));
        out += 16; x += sx;
      }
      if (i < L) {
        tailStore(out, binary4(op, v, tailLoad(x, L - i)), L - i);
        out += <usize>(L - i) * 4; x += <usize>(L - i) * (sx >> 2);
      }
    } else {
      for (; i + 4 <= L; i += 4) {
        v128.store(out, binary4(op, v128.load(x), v));
        out += 16; x += sx;
      }
      if (i < L) {
        tailStore(out, binary4(op, tailLoad(x, L - i), v), L - i);
        out += <usize>(L - i) * 4; x += <usize>(L - i) * (sx >> 2);
      }
    }
  }
}

/** A strided operand's values at flat indices [g, g + n) into `out`: rank-4 dims at +20, strides at +36 (elements). */
function gather(out: usize, o: usize, g: i32, n: i32): void {
  const base = <usize>load<u32>(o);
  const d1 = load<i32>(o, 24), d2 = load<i32>(o, 28), d3 = load<i32>(o, 32);
  const s0 = load<i32>(o, 36), s1 = load<i32>(o, 40), s2 = load<i32>(o, 44), s3 = load<i32>(o, 48);
  let i3 = g % d3, t = g / d3;
  let i2 = t % d2;
  t /= d2;
  let i1 = t % d1;
  const i0 = t / d1;
  let at = i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3;
  for (let k = 0; k < n; k++) {
    store<f32>(out + <usize>k * 4, load<f32>(base + <usize>(at * 4)));
    // The next index, odometer-wise.
    at += s3;
    if (++i3 == d3) {
      i3 = 0;
      at += s2 - d3 * s3;
      if (++i2 == d2) {
        i2 = 0;
        at += s1 - d2 * s2;
        if (++i1 == d1) {
          i1 = 0;
          at += s0 - d1 * s1;
        }
      }
    }
  }
}
