/**
 * The `wasm` engine (class WasmEngine): the CPU backend offers each op here first (see ../engine.ts); every
 * method lays the op out in the module's memory, runs it (on worker threads when it is large) and
 * returns its output, or returns undefined to leave the op to the JavaScript kernels (f64,
 * unsupported ops, tensors too small to be worth the trip).
 *
 * Where tensor data lives: in ordinary JavaScript typed arrays, garbage collected like every CPU
 * tensor; a call copies its inputs into the module's arena and the output back (cheap elementwise
 * ops and reductions stream through a cache-sized window). Tensors kept in the module's memory
 * would save the copies but need explicit frees: a FinalizationRegistry runs too late (the JS heap
 * barely grows while the module's memory fills, and a synchronous training loop never yields to
 * the event loop), so every loop would depend on `dispose()` or scopes. The copies cost
 * compute-bound kernels a few percent and memory-bound ones about half their in-memory speed
 * (bench/RESULTS.md); a large product overlaps them with the work (A is copied while the threads
 * pack B, C's row blocks as their jobs finish). The arena is reused by every call, so memory stays
 * flat (test/backends/wasm.test.ts runs a 300-step loop without a single dispose()).
 */
import type { BinaryOp, ReduceOp, UnaryOp } from '../../../backend/ops.js';
import type { AdamStepOptions, ConvOptions, MaxPoolOptions, UnfoldOptions } from '../../../backend/options.js';
import type { RandomKey } from '../../../backend/rng.js';
import type {
  Conv2dArgs,
  ConvTranspose2dArgs,
  CpuEngineKernels,
  FloatArray,
  FusedEngineArgs,
  GemmArgs,
  UniformDistribution,
} from '../engine.js';
import type { AdamArrays } from '../js/optim.js';
import { UNARY_COST } from '../op-cost.js';
import type { CpuArray } from '../storage.js';
import { emitElementwise, type EmittedKernel } from './emit.js';
import { compileFused, operandPattern, type FusedCode } from './fused.js';
import { webAssembly } from './wasm-api.js';
import { requiredKinds, wasmOpCodes, type TaskKind, type WasmOpCodes } from './ops.js';
import { MAX_JOBS } from './pool.js';
import { GEMM_MAX_TILE, type WasmRuntime } from './runtime.js';

/** Copies a gemm's caller overlaps with the work (see `WasmEngine.gemmTask`). */
interface GemmIo {
  /** Copies A into the arena; runs before any job reads A. */
  readonly copyA?: () => void;
  /** Rows [i0, i1) of C are final. */
  readonly rowsDone?: (i0: number, i1: number) => void;
}

/** Size thresholds below which the engine declines work (the JavaScript kernels are faster there). */
export interface WasmEngineOptions {
  /** Least elements of a cheap elementwise op (add, neg, …) or a reduction (default 1024). */
  readonly minElements?: number;
  /** Least elements of a transcendental elementwise op (exp, log, tanh, sigmoid) or a softmax (default 128). */
  readonly minCostlyElements?: number;
  /** Least multiply-adds of a matmul, convolution or pooling (default 1024). */
  readonly minGemm?: number;
  /** Least multiply-adds (elements for elementwise ops × 16) from which a task is spread over the threads (default 2^20). */
  readonly minParallel?: number;
}

/**
 * The engine over an instantiated module. `streaming`: a single-threaded instance over
 * an unshared memory for the ops streamed on the calling thread (cheap elementwise ops,
 * reductions): `TypedArray.set` copies into and out of a SharedArrayBuffer with relaxed atomics,
 * so where it is the only copy (browsers; Node copies with `Buffer.fill`, see `WasmRuntime.write`)
 * those copies, most of a streamed op's time, run about 1.5× faster into a plain memory. Without
 * it, `rt` streams too.
 */
export class WasmEngine implements CpuEngineKernels {
  readonly name = 'wasm';
  /** The runtime the streamed ops run on (see the class comment). */
  private readonly stream: WasmRuntime;
  private readonly minElements: number;
  private readonly minCostly: number;
  private readonly minGemm: number;
  private readonly minParallel: number;
  /** The module's op codes by name. */
  private readonly codes: WasmOpCodes;
  /** The module's task kinds. */
  private readonly kind: Readonly<Record<TaskKind, number>>;
  /** The gemm micro-tile (rows, columns) and depth block of the module. */
  private readonly MR: number;
  private readonly NR: number;
  private readonly KC: number;
  private readonly threads: number;
  /** Compiled fused programs by program key (null: declined), so a program compiles once. */
  private readonly fusedCodes = new Map<string, FusedCode | null>();
  /** Fused calls run so far by each path: the emitted kernels (./emit.ts) and the interpreter (./fused.ts). */
  readonly fusedRuns = { emitted: 0, interpreted: 0 };
  /** Emitted kernels by program key and splatted inputs (null: the emitter does not take it). */
  private readonly emitted = new Map<string, EmittedKernel | null>();

  constructor(
    private readonly rt: WasmRuntime,
    options: WasmEngineOptions = {},
    streaming?: WasmRuntime,
  ) {
    this.stream = streaming ?? rt;
    // The crossovers with the copies included (one thread): add and mul-by-scalar gain from about 1K
    // elements, exp and softmax from about 128, sums from 64, matmul from about 10³ multiply-adds.
    this.minElements = options.minElements ?? 1024;
    this.minCostly = options.minCostlyElements ?? 128;
    this.minGemm = options.minGemm ?? 1024;
    this.minParallel = options.minParallel ?? 1 << 20;
    this.codes = wasmOpCodes(rt);
    this.kind = requiredKinds(this.codes.kind);
    this.MR = rt.constant('MR');
    this.NR = rt.constant('NR');
    this.KC = rt.constant('KC');
    this.threads = rt.threads;
  }

  /**
   * Runs a fused program. Cheap elementwise programs over contiguous or single-value inputs run a
   * kernel emitted for the program (./emit.ts: values stay in vector registers across ops). The rest
   * run the module's tiled interpreter (wasm/assembly/fused.ts): the operands stream through the
   * memory in blocks of rows (an elementwise program: blocks of elements) on the calling thread, as
   * the cheap elementwise ops do, or, with enough work per element, are copied once and split into
   * jobs over the threads; each block runs every instruction tile by tile in registers that stay
   * in the L1 cache. Both compute with the unfused kernels' vector ops, so the values are the
   * unfused ones. Declines (undefined) what the compiler does not take (./fused.ts), operand
   * layouts other than contiguous or broadcast runs (`operandPattern`), empty and small programs.
   */
  fused(args: FusedEngineArgs): readonly CpuArray[] | undefined {
    const { program, shape, innerRank, inputs, outputs, scalars } = args;
    let code = this.fusedCodes.get(program.key);
    if (code === undefined) {
      code =
        compileFused(program, {
          unary: this.codes.unary,
          binary: this.codes.binary,
          reduce: this.codes.reduce,
          fused: this.stream.constantsNamed('FUSED'),
        }) ?? null;
      // Bounded: a stream of ever-new programs must not grow the cache (or its modules) without end.
      if (this.fusedCodes.size >= FUSED_CACHE) this.fusedCodes.clear();
      this.fusedCodes.set(program.key, code);
    }
    if (code === null) return undefined;
    const rank = shape.length,
      outerRank = rank - innerRank;
    const numel = shape.reduce((a, d) => a * d, 1);
    const outerShape = shape.slice(0, outerRank);
    const rows = program.reduces ? outerShape.reduce((a, d) => a * d, 1) : 1;
    const len = program.reduces ? numel / Math.max(rows, 1) : numel;
    if (numel === 0 || numel >= 2 ** 31 || numel < (code.costly ? this.minCostly : this.minElements)) return undefined;
    // A row program may come with no inner dims (rows of one value, size-1 dims collapsed away).
    if (!program.reduces && innerRank !== 0) return undefined;
    if (!outputs.every((o) => o instanceof Float32Array)) return undefined;
    // Each input's layout: element inputs over the whole space, row inputs over the rows.
    const plans: {
      /** f32 values, or a bool input widened to lane masks (0 or all ones). */
      data: Float32Array | Int32Array;
      offset: number;
      P: number;
      Q: number;
      streamed: boolean;
      /** Any other strided view of an element input (rank ≤ 4): copied whole, gathered per tile. */
      gather?: { lo: number; dims: number[]; strides: number[] };
    }[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const x = inputs[i]!;
      const mask = program.inputs[i]!.dtype === 'bool';
      if (!(mask ? x.data instanceof Uint8Array : x.data instanceof Float32Array)) return undefined;
      const row = program.inputs[i]!.level === 'row';
      if (row && x.strides.slice(outerRank).some((s, d) => s !== 0 && shape[outerRank + d] !== 1)) return undefined;
      const pat = row ? operandPattern(outerShape, x.strides.slice(0, outerRank)) : operandPattern(shape, x.strides);
      if (!pat && !row && rank <= 4) {
        const pad = 4 - rank;
        const dims = [...new Array<number>(pad).fill(1), ...shape];
        const strides = [...new Array<number>(pad).fill(0), ...x.strides];
        const span = stridedSpan(x.offset, dims, strides);
        if (span.lo < 0 || span.hi > x.data.length) return undefined;
        plans.push({
          data: x.data as Float32Array,
          offset: span.lo,
          P: span.hi - span.lo,
          Q: 1,
          streamed: false,
          gather: { lo: x.offset - span.lo, dims, strides },
        });
        continue;
      }
      if (!pat || x.offset < 0 || x.offset + pat.P > x.data.length) return undefined;
      // Whole operands that repeat (a bias) are copied once; the rest stream with the blocks.
      const streamed = !row && pat.P * pat.Q === numel && pat.P > FUSED_RESIDENT;
      plans.push({ data: x.data as Float32Array, offset: x.offset, P: pat.P, Q: pat.Q, streamed });
    }
    // Bool inputs: the span each reads, widened to lane masks once per call.
    plans.forEach((p, i) => {
      if (program.inputs[i]!.dtype !== 'bool') return;
      const bytes = inputs[i]!.data as Uint8Array;
      const masks = new Int32Array(p.P);
      for (let k = 0; k < p.P; k++) masks[k] = bytes[p.offset + k] ? -1 : 0;
      p.data = masks;
      p.offset = 0;
    });
    // Cheap elementwise programs over contiguous or single-value inputs: the emitted kernel (./emit.ts).
    if (!program.reduces && plans.every((p) => !p.gather && (p.P === 1 || (p.Q === 1 && p.P === numel)))) {
      const kernel = this.emittedKernel(
        program,
        plans.map((p) => p.P === 1 && numel > 1),
      );
      if (kernel && kernel.f32Scalars.every((i) => isF32(scalars[i]!)))
        return this.runEmitted(kernel, code, plans, outputs as readonly Float32Array[], scalars, numel);
    }
    // Programs with a transcendental op and enough work run on the threads (the whole operands
    // copied once); the rest stream on this thread: cheap ops are memory-bound, and copying whole
    // operands for the threads costs more than the threads save (LayerNorm over [8192, 512]: 8.2 ms
    // streamed, 14.7 ms on two threads; a chain with exp, tanh and sigmoid on 4M: 28.5 ms streamed,
    // 15.7 ms on two threads).
    const cost = code.cost;
    const parallel = this.threads > 1 && code.costly && numel * cost >= this.minParallel;
    const s = parallel ? this.rt : this.stream;
    s.reset();
    const T = FUSED_TILE;
    const nOut = outputs.length;
    const rowOut = program.outputs.map((o) => program.reduces && program.levels[o.value] === 'row');
    const total = program.reduces ? rows : numel;
    // Streamed: blocks of whole rows of at most FUSED_BLOCK elements (at least one row). On the
    // threads: one block of everything, in jobs of rows (or elements).
    const step = parallel
      ? total
      : program.reduces
        ? Math.max(1, Math.min(rows, Math.floor(FUSED_BLOCK / len)))
        : Math.min(numel, FUSED_BLOCK);
    const blockElems = program.reduces ? step * len : step;
    // Rows that fit a tile run the linear code, several rows a tile; longer ones pass over each row.
    const linear = !program.reduces || len <= T;
    const words = linear ? code.linear : code.passes!;
    const group = program.reduces && linear ? Math.max(1, Math.floor(T / len)) : 1;
    // Per-thread scratch: context, slot pointers, row slots (a vector per row of a tile), reduction states, registers.
    const threads = parallel ? this.threads : 1;
    const ptrsOff = 128,
      rowSlotsOff = roundUp(ptrsOff + code.elementSlots * 4, 64),
      redOff = roundUp(rowSlotsOff + code.rowSlots * 16 * group + 16, 64),
      regsOff = roundUp(redOff + code.reduces * 80 + 16, 64),
      stride = roundUp(regsOff + code.elementSlots * T * 4, 64);
    const codeAt = s.alloc(words.length * 4),
      scalarsAt = s.alloc(scalars.length * 8 + 8),
      constsAt = s.alloc(code.consts.length * 16 + 16),
      operandsAt = s.alloc(inputs.length * 64 + 64),
      outputsAt = s.alloc(nOut * 4),
      scratchAt = s.alloc(stride * threads),
      argsAt = s.alloc(128);
    const inAt = plans.map((p) =>
      p.streamed && !parallel ? s.alloc((Math.ceil(blockElems / p.Q) + 1) * 4) : s.alloc(p.P * 4),
    );
    const outAt = rowOut.map((row) => s.alloc((row ? (program.reduces ? step : 1) : blockElems) * 4));
    if ([codeAt, scalarsAt, constsAt, operandsAt, outputsAt, scratchAt, argsAt, ...inAt, ...outAt].some((a) => a < 0))
      return undefined;
    s.i32.set(words, codeAt >>> 2);
    this.fusedRuns.interpreted++;
    s.f64.set(scalars, scalarsAt >>> 3);
    // Constants rounded to f32 as `fill` rounds them, one splatted vector each.
    code.consts.forEach((index, k) =>
      s.f32.fill(Math.fround(scalars[index]!), (constsAt >>> 2) + 4 * k, (constsAt >>> 2) + 4 * k + 4),
    );
    plans.forEach((p, i) => {
      if (!(p.streamed && !parallel)) s.write(inAt[i]!, p.data, p.offset, p.offset + p.P);
      const g = p.gather;
      // A gathered operand's address is its view's offset; strides go in as 32-bit two's complement.
      if (g)
        s.fields(operandsAt + i * 64, [inAt[i]! + g.lo * 4, p.P, 1, 0, 1, ...g.dims, ...g.strides.map((v) => v >>> 0)]);
      else s.fields(operandsAt + i * 64, [inAt[i]!, p.P, p.Q, 0, 0]);
    });
    s.fields(outputsAt, outAt);
    let per = step;
    if (parallel) {
      // Several jobs per thread (a thread slow to wake is not waited for); tiles stay whole.
      per = Math.max(Math.ceil(total / (this.threads * 4)), Math.ceil(total / MAX_JOBS));
      if (!program.reduces) per = roundUp(per, T);
    }
    for (let b0 = 0; b0 < total; b0 += step) {
      const count = Math.min(step, total - b0);
      const start = program.reduces ? b0 * len : b0,
        end = start + (program.reduces ? count * len : count);
      if (!parallel)
        plans.forEach((p, i) => {
          if (!p.streamed) return;
          const lo = Math.floor(start / p.Q),
            hi = Math.floor((end - 1) / p.Q) + 1;
          s.write(inAt[i]!, p.data, p.offset + lo, p.offset + hi);
          s.u32[((operandsAt + i * 64) >>> 2) + 3] = lo;
        });
      s.fields(argsAt, [
        codeAt,
        count,
        len,
        program.reduces ? b0 : 0,
        start,
        operandsAt,
        outputsAt,
        scalarsAt,
        scratchAt + regsOff,
        scratchAt + ptrsOff,
        scratchAt + rowSlotsOff,
        scratchAt + redOff,
        T,
        parallel ? per : count,
        program.reduces ? 0 : 1,
        stride,
        scratchAt,
        group,
        constsAt,
        16 * group,
      ]);
      // Copies out [r0, r1) of this block (rows, or elements of an elementwise program).
      const copyOut = (r0: number, r1: number) =>
        rowOut.forEach((row, k) => {
          const [lo, hi] = row || !program.reduces ? [r0, r1] : [r0 * len, r1 * len];
          s.read(outAt[k]! + lo * 4, outputs[k] as Float32Array, hi - lo, (row ? b0 : start) + lo);
        });
      if (parallel)
        // Each job's outputs leave as it finishes, while the others still run.
        s.run(this.kind.fused, argsAt, Math.ceil(count / per), true, {
          jobDone: (job) => copyOut(job * per, Math.min(count, (job + 1) * per)),
        });
      else {
        s.run(this.kind.fused, argsAt, 1, false);
        copyOut(0, count);
      }
    }
    return outputs;
  }

  /** The emitted kernel of an elementwise program (cached), or undefined. */
  private emittedKernel(program: FusedEngineArgs['program'], splat: readonly boolean[]): EmittedKernel | undefined {
    const key = `${program.key}|${splat.map((b) => (b ? 's' : 'v')).join('')}`;
    let kernel = this.emitted.get(key);
    if (kernel === undefined) {
      const api = webAssembly();
      const memory = this.stream.memory;
      // A shared memory would need a shared import (and the threads' instances): the interpreter serves there.
      const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
      kernel = (api && !shared ? emitElementwise(program, splat, api, memory) : undefined) ?? null;
      if (this.emitted.size >= FUSED_CACHE) this.emitted.clear();
      this.emitted.set(key, kernel);
    }
    return kernel ?? undefined;
  }

  /** Streams an elementwise program through its emitted kernel on this thread, block by block. */
  private runEmitted(
    kernel: EmittedKernel,
    code: FusedCode,
    plans: readonly { data: Float32Array | Int32Array; offset: number }[],
    outputs: readonly Float32Array[],
    scalars: readonly number[],
    numel: number,
  ): readonly CpuArray[] | undefined {
    const s = this.stream;
    s.reset();
    this.fusedRuns.emitted++;
    const block = Math.min(numel, FUSED_BLOCK);
    // Every buffer has a vector of room past its end: the kernel runs whole vectors.
    const inAt = plans.map((_, i) => s.alloc((kernel.splatInputs[i] ? 1 : block) * 4 + 16));
    const constsAt = s.alloc(code.consts.length * 16 + 16);
    const outAt = outputs.map(() => s.alloc(block * 4 + 16));
    if ([...inAt, constsAt, ...outAt].some((a) => a < 0)) return undefined;
    plans.forEach((p, i) => {
      if (kernel.splatInputs[i]) s.write(inAt[i]!, p.data, p.offset, p.offset + 1);
    });
    code.consts.forEach((index, k) =>
      s.f32.fill(Math.fround(scalars[index]!), (constsAt >>> 2) + 4 * k, (constsAt >>> 2) + 4 * k + 4),
    );
    for (let start = 0; start < numel; start += block) {
      const count = Math.min(block, numel - start);
      plans.forEach((p, i) => {
        if (!kernel.splatInputs[i]) s.write(inAt[i]!, p.data, p.offset + start, p.offset + start + count);
      });
      kernel.run(...inAt, constsAt, ...outAt, roundUp(count, 4) * 4);
      outputs.forEach((o, k) => s.read(outAt[k]!, o, count, start));
    }
    return outputs;
  }

  gemm(g: GemmArgs): FloatArray | undefined {
    const { a, b, c, n, k } = g;
    if (!(a instanceof Float32Array) || !(b instanceof Float32Array) || !(c instanceof Float32Array)) return undefined;
    let m = g.m,
      aOffs = g.aOffsets,
      bOffs = g.bOffsets;
    if (m === 0 || n === 0 || k === 0 || aOffs.length * m * n * k < this.minGemm) return undefined;
    // Batches that share B and whose A rows continue one another are one taller product.
    if (
      aOffs.length > 1 &&
      bOffs.every((o) => o === bOffs[0]) &&
      aOffs.every((o, i) => o === aOffs[0]! + i * m * g.aRowStride)
    ) {
      m *= aOffs.length;
      aOffs = [aOffs[0]!];
      bOffs = [bOffs[0]!];
    }
    const batches = aOffs.length;
    const aSpan = span(aOffs, m, k, g.aRowStride, g.aColStride);
    const bSpan = span(bOffs, k, n, g.bRowStride, g.bColStride);
    this.rt.reset();
    // A's copy is deferred (it can overlap the packing of B) unless one copy serves both.
    const deferA = a !== b;
    const [aAt, bAt] = deferA
      ? [this.rt.alloc((aSpan.hi - aSpan.lo) * 4), this.rt.copyIn(b, bSpan.lo, bSpan.hi)]
      : this.copyOperands(a, aSpan, b, bSpan);
    const cAt = this.rt.alloc(batches * m * n * 4),
      table = this.rt.alloc(batches * 16),
      args = this.rt.alloc(128);
    if (aAt < 0 || bAt < 0 || cAt < 0 || table < 0 || args < 0) return undefined;
    const t = table >>> 2;
    for (let i = 0; i < batches; i++) {
      this.rt.u32[t + 4 * i] = aAt + (aOffs[i]! - aSpan.lo) * 4;
      this.rt.u32[t + 4 * i + 1] = bAt + (bOffs[i]! - bSpan.lo) * 4;
      this.rt.u32[t + 4 * i + 2] = cAt + i * m * n * 4;
      this.rt.u32[t + 4 * i + 3] = 0;
    }
    const io: GemmIo = {
      copyA: deferA ? () => this.rt.write(aAt, a, aSpan.lo, aSpan.hi) : undefined,
      // One product: rows of C reach `c` as their jobs finish.
      rowsDone: batches === 1 ? (i0, i1) => this.rt.read(cAt + i0 * n * 4, c, (i1 - i0) * n, i0 * n) : undefined,
    };
    if (!this.gemmTask(m, n, k, g.aRowStride, g.aColStride, g.bRowStride, g.bColStride, n, table, batches, args, io))
      this.rt.read(cAt, c, batches * m * n);
    return c;
  }

  unary(op: UnaryOp, out: FloatArray, a: FloatArray, aOffset: number, n: number): FloatArray | undefined {
    const code = this.codes.unary[op];
    if (
      code === undefined ||
      !(a instanceof Float32Array) ||
      n < (UNARY_COST[op] === 'costly' ? this.minCostly : this.minElements)
    )
      return undefined;
    return this.elementwise(code, this.kind.unary, out, a, aOffset, n, UNARY_COST[op] === 'costly' ? COSTLY_COST : 2);
  }

  binary(
    op: BinaryOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    b: FloatArray,
    bOffset: number,
    n: number,
  ): FloatArray | undefined {
    const code = this.codes.binary[op];
    if (code === undefined || !(a instanceof Float32Array) || !(b instanceof Float32Array) || n < this.minElements)
      return undefined;
    return this.elementwise(code, this.kind.binary, out, a, aOffset, n, 2, b, bOffset);
  }

  reluBackward(
    out: FloatArray,
    y: FloatArray,
    yOffset: number,
    g: FloatArray,
    gOffset: number,
    n: number,
  ): FloatArray | undefined {
    if (!(y instanceof Float32Array) || !(g instanceof Float32Array) || n < this.minElements) return undefined;
    const code = this.codes.binary.reluGrad;
    if (code === undefined) return undefined;
    return this.elementwise(code, this.kind.binary, out, y, yOffset, n, 2, g, gOffset);
  }

  adamStep(arr: AdamArrays, o: AdamStepOptions): AdamArrays | undefined {
    const { n, p, g, m, v, outP, outM, outV } = arr;
    if (
      !(p instanceof Float32Array) ||
      !(g instanceof Float32Array) ||
      !(outP instanceof Float32Array) ||
      !(outM instanceof Float32Array) ||
      !(outV instanceof Float32Array)
    )
      return undefined;
    if ((m && !(m instanceof Float32Array)) || (v && !(v instanceof Float32Array)) || !m !== !v || n < this.minElements)
      return undefined;
    // Memory-bound (seven arrays, a few operations each): streamed through blocks on the calling thread.
    const s = this.stream;
    s.reset();
    const block = Math.min(n, STREAM_BLOCK);
    const at = [0, 1, 2, 3, 4, 5].map(() => s.alloc(block * 4)),
      args = s.alloc(128);
    if (at.some((x) => x < 0) || args < 0) return undefined;
    const [pAt, gAt, mAt, vAt, mOut, vOut] = at as [number, number, number, number, number, number];
    const first = !m;
    // Outputs over their inputs (each element is read before it is written); fresh blocks on the first step.
    const mDst = first ? mOut : mAt,
      vDst = first ? vOut : vAt;
    const take = (from: number, into: Float32Array, start: number, len: number) => s.read(from, into, len, start);
    for (let start = 0; start < n; start += block) {
      const len = Math.min(block, n - start);
      const put = (src: Float32Array, offset: number, to: number) =>
        s.write(to, src, offset + start, offset + start + len);
      put(p, arr.pOffset, pAt);
      put(g, arr.gOffset, gAt);
      if (!first) {
        put(m as Float32Array, arr.mOffset, mAt);
        put(v as Float32Array, arr.vOffset, vAt);
      }
      s.fields(args, [len, pAt, gAt, first ? 0 : mAt, first ? 0 : vAt, pAt, mDst, vDst]);
      s.f64.set([o.beta1, 1 - o.beta1, o.beta2, 1 - o.beta2, o.factor, o.epsilon], (args + 32) >>> 3);
      s.run(this.kind.adam, args, 1, false);
      take(pAt, outP, start, len);
      take(mDst, outM, start, len);
      take(vDst, outV, start, len);
    }
    return arr;
  }

  random(out: FloatArray, dist: UniformDistribution, key: RandomKey): FloatArray | undefined {
    if (!(out instanceof Float32Array) || out.length < this.minElements) return undefined;
    const n = out.length;
    // Philox costs about what a transcendental op does per element.
    const { chunk, jobs, parallel } = this.chunking(n, COSTLY_COST);
    this.rt.reset();
    const outAt = this.rt.alloc(n * 4),
      args = this.rt.alloc(64);
    if (outAt < 0 || args < 0) return undefined;
    const code = this.codes.random[dist.kind];
    if (code === undefined) return undefined;
    this.rt.fields(args, [code, n, outAt, key.key0 >>> 0, key.key1 >>> 0, key.stream >>> 0, chunk, 0]);
    this.rt.f64[(args + 32) >>> 3] = dist.kind === 'uniform' ? dist.low : dist.kind === 'bernoulli' ? dist.prob : 0;
    this.rt.f64[(args + 40) >>> 3] = dist.kind === 'uniform' ? dist.high : 0;
    this.rt.run(this.kind.random, args, jobs, parallel);
    this.rt.read(outAt, out, n);
    return out;
  }

  binaryStrided(
    op: BinaryOp,
    out: FloatArray,
    shape: readonly number[],
    a: FloatArray,
    aOffset: number,
    aStrides: readonly number[],
    b: FloatArray,
    bOffset: number,
    bStrides: readonly number[],
  ): FloatArray | undefined {
    const code = this.codes.binary[op];
    const rank = shape.length;
    if (
      code === undefined ||
      rank > 3 ||
      !(a instanceof Float32Array) ||
      !(b instanceof Float32Array) ||
      !(out instanceof Float32Array)
    )
      return undefined;
    const n = out.length;
    // Empty: nothing to compute (and a zero dim makes the operands' spans meaningless).
    if (n === 0 || n < this.minElements) return undefined;
    // Pad to rank 3 with leading dims of size 1.
    const pad = (v: readonly number[], fill: number) => [...new Array<number>(3 - rank).fill(fill), ...v];
    const dims = pad(shape, 1),
      as = pad(aStrides, 0),
      bs = pad(bStrides, 0);
    const aSpan = stridedSpan(aOffset, dims, as),
      bSpan = stridedSpan(bOffset, dims, bs);
    this.rt.reset();
    const [aAt, bAt] = this.copyOperands(a, aSpan, b, bSpan);
    const outAt = this.rt.alloc(n * 4),
      args = this.rt.alloc(64);
    if (aAt < 0 || bAt < 0 || outAt < 0 || args < 0) return undefined;
    // Negative strides are stored as their 32-bit two's complement (the kernel reads them signed).
    this.rt.fields(args, [
      code,
      dims[0]!,
      dims[1]!,
      dims[2]!,
      aAt + (aOffset - aSpan.lo) * 4,
      as[0]!,
      as[1]!,
      as[2]!,
      bAt + (bOffset - bSpan.lo) * 4,
      bs[0]!,
      bs[1]!,
      bs[2]!,
      outAt,
      dims[0]!,
    ]);
    this.rt.run(this.kind.strided, args, 1, false);
    this.rt.read(outAt, out, n);
    return out;
  }

  binaryScalar(
    op: BinaryOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    scalar: number,
    n: number,
  ): FloatArray | undefined {
    const code = this.codes.binary[op];
    if (code === undefined || !(a instanceof Float32Array) || n < this.minElements) return undefined;
    return this.elementwise(code, this.kind.scalar, out, a, aOffset, n, 2, undefined, 0, scalar);
  }

  reduceRows(
    op: ReduceOp,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    rows: number,
    len: number,
  ): FloatArray | undefined {
    const code = this.codes.reduce[op];
    if (
      code === undefined ||
      !(a instanceof Float32Array) ||
      !(out instanceof Float32Array) ||
      rows * len < this.minElements
    )
      return undefined;
    // Memory-bound: always streamed on the calling thread (no worker would get the data sooner).
    const plan = this.rowChunking(rows, len, 0);
    return rowTask(plan.parallel ? this.rt : this.stream, this.kind.reduce, code, out, a, aOffset, rows, len, plan, op);
  }

  softmaxRows(
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    rows: number,
    len: number,
    log: boolean,
  ): FloatArray | undefined {
    if (!(a instanceof Float32Array) || !(out instanceof Float32Array) || len === 0 || rows * len < this.minCostly)
      return undefined;
    const plan = this.rowChunking(rows, len, COSTLY_COST);
    return rowTask(
      plan.parallel ? this.rt : this.stream,
      this.kind.softmax,
      log ? 1 : 0,
      out,
      a,
      aOffset,
      rows,
      len,
      plan,
    );
  }

  conv2d(args: Conv2dArgs): FloatArray | undefined {
    const { x, w, bias, out, options: o } = args;
    if (
      !(x instanceof Float32Array) ||
      !(w instanceof Float32Array) ||
      !(out instanceof Float32Array) ||
      (bias && !(bias instanceof Float32Array))
    )
      return undefined;
    // No fused activation or residual here: the backend then runs the conv and the clamp as two ops.
    if (o.padding.length !== 2 || args.clamp || args.residual) return undefined;
    const [n, c, h, wd] = args.xShape;
    const [cOut, cg, kh, kw] = args.wShape;
    const [, , oh, ow] = args.outShape;
    const groups = o.groups,
      coutG = cOut / groups,
      kk = cg * kh * kw,
      l = oh * ow;
    if (n === 0 || l === 0 || kk === 0 || cOut === 0 || n * cOut * l * kk < this.minGemm) return undefined;
    this.rt.reset();
    const xAt = this.rt.copyIn(x, 0, n * c * h * wd),
      wAt = this.rt.copyIn(w, 0, cOut * kk);
    const bAt = bias ? this.rt.copyIn(bias as Float32Array, 0, cOut) : 0;
    const outAt = this.rt.alloc(n * cOut * l * 4);
    // A 1×1 kernel with stride 1 and no padding reads the input as its own column matrix.
    const direct =
      kh === 1 && kw === 1 && o.stride[0] === 1 && o.stride[1] === 1 && o.padding[0] === 0 && o.padding[1] === 0;
    const colPerImage = c * kh * kw * l;
    const parallel = this.threads > 1 && n * cOut * l * kk >= this.minParallel;
    // On one thread, chunks of columns that stay in cache: the gemm packs them right after im2col wrote them.
    const budget = parallel ? COL_BUDGET : CACHED_COL_BUDGET;
    const chunk = direct ? n : Math.max(1, Math.min(n, Math.floor(budget / (colPerImage * 4))));
    const colAt = direct ? 0 : this.rt.alloc(chunk * colPerImage * 4);
    const table = this.rt.alloc(chunk * groups * 16),
      imArgs = this.rt.alloc(128),
      gemmArgs = this.rt.alloc(128);
    if (xAt < 0 || wAt < 0 || bAt < 0 || outAt < 0 || colAt < 0 || table < 0 || imArgs < 0 || gemmArgs < 0)
      return undefined;
    for (let n0 = 0; n0 < n; n0 += chunk) {
      const images = Math.min(chunk, n - n0);
      if (!direct)
        im2col(
          this.rt,
          this.kind.im2col,
          imArgs,
          xAt + n0 * c * h * wd * 4,
          colAt,
          images,
          [c, h, wd],
          [kh, kw],
          [oh, ow],
          o,
          parallel,
        );
      const t = table >>> 2;
      for (let i = 0; i < images; i++) {
        for (let g = 0; g < groups; g++) {
          const e = t + 4 * (i * groups + g);
          this.rt.u32[e] = wAt + g * coutG * kk * 4;
          this.rt.u32[e + 1] = direct
            ? xAt + ((n0 + i) * c + g * cg) * l * 4
            : colAt + (i * colPerImage + g * kk * l) * 4;
          this.rt.u32[e + 2] = outAt + ((n0 + i) * cOut + g * coutG) * l * 4;
          this.rt.u32[e + 3] = bias ? bAt + g * coutG * 4 : 0;
        }
      }
      this.gemmTask(coutG, l, kk, kk, 1, l, 1, l, table, images * groups, gemmArgs);
    }
    this.rt.read(outAt, out, n * cOut * l);
    return out;
  }

  convTranspose2d(args: ConvTranspose2dArgs): FloatArray | undefined {
    // Per image and group, the column matrix [Cout/g·kh·kw, H·W] = W_gᵀ · x_g (a gemm with a
    // transposed operand), then col2im sums the columns into the output planes.
    const { x, w, bias, out, options: o } = args;
    if (
      !(x instanceof Float32Array) ||
      !(w instanceof Float32Array) ||
      !(out instanceof Float32Array) ||
      (bias && !(bias instanceof Float32Array))
    )
      return undefined;
    if (o.padding.length !== 2) return undefined;
    const [n, cIn, h, wd] = args.xShape;
    const [, coutG, kh, kw] = args.wShape;
    const [, cOut, oh, ow] = args.outShape;
    const groups = o.groups,
      cinG = cIn / groups,
      rowsG = coutG * kh * kw,
      l = h * wd;
    if (
      n === 0 ||
      l === 0 ||
      cinG === 0 ||
      rowsG === 0 ||
      oh * ow === 0 ||
      n * groups * rowsG * l * cinG < this.minGemm
    )
      return undefined;
    this.rt.reset();
    const xAt = this.rt.copyIn(x, 0, n * cIn * l),
      wAt = this.rt.copyIn(w, 0, cIn * rowsG);
    const bAt = bias ? this.rt.copyIn(bias as Float32Array, 0, cOut) : 0;
    const outAt = this.rt.alloc(n * cOut * oh * ow * 4);
    const colPerImage = cOut * kh * kw * l;
    const chunk = Math.max(1, Math.min(n, Math.floor(COL_BUDGET / (colPerImage * 4))));
    const colAt = this.rt.alloc(chunk * colPerImage * 4);
    const table = this.rt.alloc(chunk * groups * 16),
      colArgs = this.rt.alloc(128),
      gemmArgs = this.rt.alloc(128);
    if (xAt < 0 || wAt < 0 || bAt < 0 || outAt < 0 || colAt < 0 || table < 0 || colArgs < 0 || gemmArgs < 0)
      return undefined;
    const parallel = this.threads > 1 && n * groups * rowsG * l * cinG >= this.minParallel;
    for (let n0 = 0; n0 < n; n0 += chunk) {
      const images = Math.min(chunk, n - n0);
      const t = table >>> 2;
      for (let i = 0; i < images; i++) {
        for (let g = 0; g < groups; g++) {
          const e = t + 4 * (i * groups + g);
          this.rt.u32[e] = wAt + g * cinG * rowsG * 4;
          this.rt.u32[e + 1] = xAt + ((n0 + i) * cIn + g * cinG) * l * 4;
          this.rt.u32[e + 2] = colAt + (i * colPerImage + g * rowsG * l) * 4;
          this.rt.u32[e + 3] = 0;
        }
      }
      this.gemmTask(rowsG, l, cinG, 1, rowsG, l, 1, l, table, images * groups, gemmArgs);
      const blocks = parallel ? Math.min(cOut, Math.max(1, Math.ceil(16 / images))) : 1;
      const per = Math.max(Math.ceil(cOut / blocks), Math.ceil((cOut * images) / MAX_JOBS));
      const jobsPerImage = Math.ceil(cOut / per);
      this.rt.fields(colArgs, [
        cOut,
        oh,
        ow,
        h,
        wd,
        kh,
        kw,
        o.stride[0]!,
        o.stride[1]!,
        o.padding[0]!,
        o.padding[1]!,
        o.dilation[0]!,
        o.dilation[1]!,
        colAt,
        outAt + n0 * cOut * oh * ow * 4,
        bAt,
        per,
        jobsPerImage,
      ]);
      this.rt.run(this.kind.col2im, colArgs, images * jobsPerImage, parallel);
    }
    this.rt.read(outAt, out, n * cOut * oh * ow);
    return out;
  }

  conv2dWeightGrad(
    x: FloatArray,
    xShape: readonly number[],
    g: FloatArray,
    gShape: readonly number[],
    dw: FloatArray,
    wShape: readonly number[],
    o: ConvOptions,
  ): FloatArray | undefined {
    // Per image and group, dW_g += g_g [Cout/g, L] · cols_g [C/g·kh·kw, L]ᵀ: im2col into the arena
    // for a chunk of images, a task of dot-product tiles writing a partial per image, then the
    // partials summed in image order (the im2col matrix never leaves the module's memory).
    if (
      !(x instanceof Float32Array) ||
      !(g instanceof Float32Array) ||
      !(dw instanceof Float32Array) ||
      o.padding.length !== 2
    )
      return undefined;
    const [n, c, h, wd] = xShape as [number, number, number, number];
    const [, cOut, oh, ow] = gShape as [number, number, number, number];
    const [, cg, kh, kw] = wShape as [number, number, number, number];
    const groups = o.groups,
      coutG = cOut / groups,
      kk = cg * kh * kw,
      l = oh * ow;
    if (n === 0 || l === 0 || kk === 0 || cOut === 0 || n * cOut * l * kk < this.minGemm) return undefined;
    this.rt.reset();
    const xAt = this.rt.copyIn(x, 0, n * c * h * wd),
      gAt = this.rt.copyIn(g, 0, n * cOut * l);
    const colPerImage = c * kh * kw * l;
    const chunk = Math.max(1, Math.min(n, Math.floor(COL_BUDGET / (colPerImage * 4))));
    const colAt = this.rt.alloc(chunk * colPerImage * 4),
      partAt = this.rt.alloc(n * cOut * kk * 4);
    const table = this.rt.alloc(chunk * groups * 16),
      imArgs = this.rt.alloc(128),
      gemmArgs = this.rt.alloc(128);
    if (xAt < 0 || gAt < 0 || colAt < 0 || partAt < 0 || table < 0 || imArgs < 0 || gemmArgs < 0) return undefined;
    const parallel = this.threads > 1 && n * cOut * l * kk >= this.minParallel;
    for (let n0 = 0; n0 < n; n0 += chunk) {
      const images = Math.min(chunk, n - n0);
      im2col(
        this.rt,
        this.kind.im2col,
        imArgs,
        xAt + n0 * c * h * wd * 4,
        colAt,
        images,
        [c, h, wd],
        [kh, kw],
        [oh, ow],
        o,
        parallel,
      );
      const t = table >>> 2;
      for (let i = 0; i < images; i++) {
        for (let gr = 0; gr < groups; gr++) {
          const e = t + 4 * (i * groups + gr);
          this.rt.u32[e] = gAt + ((n0 + i) * cOut + gr * coutG) * l * 4;
          this.rt.u32[e + 1] = colAt + (i * colPerImage + gr * kk * l) * 4;
          this.rt.u32[e + 2] = partAt + ((n0 + i) * cOut + gr * coutG) * kk * 4;
          this.rt.u32[e + 3] = 0;
        }
      }
      // Both operands run along L: dot products of g's rows with the column matrix's rows.
      this.rt.fields(gemmArgs, [coutG, kk, l, table]);
      this.rt.run(this.kind.dot, gemmArgs, images * groups, parallel);
    }
    const f32 = this.rt.f32,
      part = partAt >>> 2,
      size = cOut * kk;
    for (let j = 0; j < size; j++) {
      let acc = f32[part + j]!;
      for (let i = 1; i < n; i++) acc += f32[part + i * size + j]!;
      dw[j] = acc;
    }
    return dw;
  }

  unfold2d(
    x: FloatArray,
    xShape: readonly number[],
    kernel: readonly number[],
    outSpatial: readonly number[],
    options: UnfoldOptions,
    out: FloatArray,
  ): FloatArray | undefined {
    if (
      !(x instanceof Float32Array) ||
      !(out instanceof Float32Array) ||
      kernel.length !== 2 ||
      out.length < this.minElements
    )
      return undefined;
    const [n, c, h, wd] = xShape as [number, number, number, number];
    this.rt.reset();
    const xAt = this.rt.copyIn(x, 0, n * c * h * wd),
      outAt = this.rt.alloc(out.length * 4),
      args = this.rt.alloc(128);
    if (xAt < 0 || outAt < 0 || args < 0) return undefined;
    im2col(
      this.rt,
      this.kind.im2col,
      args,
      xAt,
      outAt,
      n,
      [c, h, wd],
      kernel,
      outSpatial,
      options,
      this.threads > 1 && out.length * 4 >= this.minParallel,
    );
    this.rt.read(outAt, out, out.length);
    return out;
  }

  maxPool2d(
    x: FloatArray,
    xShape: readonly number[],
    out: FloatArray,
    outShape: readonly number[],
    indices: Int32Array | undefined,
    o: MaxPoolOptions,
  ): FloatArray | undefined {
    if (!(x instanceof Float32Array) || !(out instanceof Float32Array) || o.kernelSize.length !== 2) return undefined;
    const [kh, kw] = o.kernelSize as [number, number];
    if (out.length * kh * kw < this.minGemm) return undefined;
    const [n, c, h, wd] = xShape as [number, number, number, number];
    const [, , oh, ow] = outShape as [number, number, number, number];
    this.rt.reset();
    const xAt = this.rt.copyIn(x, 0, n * c * h * wd),
      outAt = this.rt.alloc(out.length * 4),
      idxAt = indices ? this.rt.alloc(out.length * 4) : 0,
      args = this.rt.alloc(128);
    if (xAt < 0 || outAt < 0 || idxAt < 0 || args < 0) return undefined;
    const planes = n * c;
    const { per, jobs, parallel } = this.rowChunking(planes, oh * ow * kh * kw, 1);
    this.rt.fields(args, [
      planes,
      h,
      wd,
      oh,
      ow,
      kh,
      kw,
      o.stride[0]!,
      o.stride[1]!,
      o.padding[0]!,
      o.padding[1]!,
      o.dilation[0]!,
      o.dilation[1]!,
      xAt,
      outAt,
      idxAt,
      per,
    ]);
    this.rt.run(this.kind.maxPool, args, jobs, parallel);
    this.rt.read(outAt, out, out.length);
    if (indices) this.rt.read(idxAt, indices, out.length);
    return out;
  }

  /** Elements per job of an elementwise task of `n` elements, and whether it goes parallel. */
  private chunking(n: number, costPerElement: number): { chunk: number; jobs: number; parallel: boolean } {
    const parallel = this.threads > 1 && n * costPerElement >= this.minParallel;
    let chunk = parallel ? Math.max(16384, Math.ceil(n / (this.threads * 4))) : n;
    chunk = Math.max(chunk, Math.ceil(n / MAX_JOBS));
    chunk = Math.ceil(chunk / 16) * 16;
    return { chunk, jobs: Math.ceil(n / chunk), parallel };
  }

  /** Rows per job of a row task. */
  private rowChunking(
    rows: number,
    len: number,
    costPerElement: number,
  ): { per: number; jobs: number; parallel: boolean } {
    const parallel = this.threads > 1 && rows > 1 && rows * len * costPerElement >= this.minParallel;
    let per = parallel ? Math.max(1, Math.ceil(rows / (this.threads * 4))) : rows;
    per = Math.max(per, Math.ceil(rows / MAX_JOBS));
    return { per, jobs: Math.ceil(rows / per), parallel };
  }

  /**
   * Runs a gemm task over `batches` entries of the table at `table` (A, B, C, bias addresses):
   * C = A · B (+ bias per row), A `m × k` and B `k × n` with element strides, C with row stride `ldc`.
   * `io` lets the caller overlap its copies with the work: `copyA` (A's copy into the arena, made
   * before any job reads A) and `rowsDone` (rows [i0, i1) of C are final). Returns whether
   * `rowsDone` covered every row (else C is final when this returns).
   */
  private gemmTask(
    m: number,
    n: number,
    k: number,
    aRs: number,
    aCs: number,
    bRs: number,
    bCs: number,
    ldc: number,
    table: number,
    batches: number,
    args: number,
    io?: GemmIo,
  ): boolean {
    const macs = batches * m * n * k;
    const parallel = this.threads > 1 && macs >= this.minParallel;
    if (
      parallel &&
      batches === 1 &&
      k > 0 &&
      m >= 4 * this.MR * this.threads &&
      this.sharedGemm(m, n, k, aRs, aCs, bRs, bCs, ldc, table, args, io)
    )
      return io?.rowsDone !== undefined;
    io?.copyA?.();
    let mt = Math.min(GEMM_MAX_TILE.m, roundUp(m, this.MR)),
      nt = Math.min(GEMM_MAX_TILE.n, roundUp(n, this.NR));
    const tiles = () => Math.ceil(m / mt) * Math.ceil(n / nt);
    if (parallel) {
      // Enough tiles to keep every thread busy (and balance uneven progress), not so small that packing dominates.
      while (batches * tiles() < 4 * this.threads) {
        if (mt >= 2 * 32 && mt >= nt / 4) mt = roundUp(mt / 2, this.MR);
        else if (nt >= 2 * 64) nt = roundUp(nt / 2, this.NR);
        else break;
      }
    }
    const perBatch = tiles();
    const batchesPerTask = Math.max(1, Math.floor(MAX_JOBS / perBatch));
    for (let b0 = 0; b0 < batches; b0 += batchesPerTask) {
      const count = Math.min(batchesPerTask, batches - b0);
      this.rt.fields(args, [
        m,
        n,
        k,
        aRs,
        aCs,
        bRs,
        bCs,
        ldc,
        table + b0 * 16,
        mt,
        nt,
        Math.ceil(m / mt),
        Math.ceil(n / nt),
        this.rt.scratch,
        this.rt.scratchStride,
      ]);
      this.rt.run(this.kind.gemm, args, count * perBatch, parallel);
    }
    return false;
  }

  /**
   * One product (the table's first entry) over the threads with B packed once per K-block into a
   * shared buffer: per block, a pack task over column slivers, then a task over blocks of rows.
   * A's copy (`io.copyA`) overlaps the first pack task, and the last rows task reports each block
   * of rows as it finishes (`io.rowsDone`), so the caller copies them out while others still run.
   * False when the arena cannot hold the packed block (the tiled path then runs).
   */
  private sharedGemm(
    m: number,
    n: number,
    k: number,
    aRs: number,
    aCs: number,
    bRs: number,
    bCs: number,
    ldc: number,
    table: number,
    args: number,
    io?: GemmIo,
  ): boolean {
    const blocks = Math.ceil(k / this.KC),
      depth = Math.ceil(k / blocks);
    const packed = this.rt.alloc(roundUp(n, this.NR) * depth * 4);
    if (packed < 0) return false;
    const t = table >>> 2;
    const a = this.rt.u32[t]!,
      b = this.rt.u32[t + 1]!,
      c = this.rt.u32[t + 2]!,
      bias = this.rt.u32[t + 3]!;
    // Several row blocks per thread (a thread slow to wake is not waited for), each at most a tile.
    const rows = Math.min(GEMM_MAX_TILE.m, roundUp(Math.ceil(m / (4 * this.threads)), this.MR));
    const cols = roundUp(Math.ceil(n / (2 * this.threads)), this.NR);
    for (let k0 = 0; k0 < k; k0 += depth) {
      const kc = Math.min(depth, k - k0);
      const last = k0 + kc >= k;
      this.rt.fields(args, [
        m,
        n,
        kc,
        a + k0 * aCs * 4,
        aRs,
        aCs,
        b + k0 * bRs * 4,
        bRs,
        bCs,
        c,
        ldc,
        last ? bias : 0,
        k0 > 0 ? 1 : 0,
        packed,
        rows,
        cols,
        this.rt.scratch,
        this.rt.scratchStride,
      ]);
      this.rt.run(
        this.kind.gemmPackB,
        args,
        Math.ceil(n / cols),
        true,
        k0 === 0 && io?.copyA ? { beforeJobs: io.copyA } : undefined,
      );
      const rowsDone = io?.rowsDone;
      this.rt.run(
        this.kind.gemmRows,
        args,
        Math.ceil(m / rows),
        true,
        last && rowsDone ? { jobDone: (job) => rowsDone(job * rows, Math.min(m, (job + 1) * rows)) } : undefined,
      );
    }
    return true;
  }

  /**
   * Copies the element ranges two operands read into the arena; one copy serves both when they
   * are the same array (x · xᵀ and the like), and the spans then start at the shared copy.
   * Returns their addresses (negative when the arena is full).
   */
  private copyOperands(
    a: Float32Array,
    aSpan: { lo: number; hi: number },
    b: Float32Array,
    bSpan: { lo: number; hi: number },
  ): [number, number] {
    if (a !== b) return [this.rt.copyIn(a, aSpan.lo, aSpan.hi), this.rt.copyIn(b, bSpan.lo, bSpan.hi)];
    const lo = Math.min(aSpan.lo, bSpan.lo);
    const at = this.rt.copyIn(a, lo, Math.max(aSpan.hi, bSpan.hi));
    aSpan.lo = bSpan.lo = lo;
    return [at, at];
  }

  private elementwise(
    code: number,
    taskKind: number,
    out: FloatArray,
    a: FloatArray,
    aOffset: number,
    n: number,
    cost: number,
    b?: FloatArray,
    bOffset = 0,
    scalar = 0,
  ): FloatArray | undefined {
    const { chunk, jobs, parallel } = this.chunking(n, cost);
    // Cheap ops are memory-bound: streaming on one thread moves a third of the bytes that copying
    // whole arrays for the worker threads would, so only costly ops (exp, tanh, …) go parallel.
    if (!parallel || cost < COSTLY_COST) {
      // Streamed through a cache-sized window: copy a block in, run, copy it out. The copies then
      // run at cache speed, and the memory traffic is the op's own (inputs read once, output
      // written once), as if the data lived in the module's memory.
      const s = this.stream;
      s.reset();
      const block = Math.min(n, STREAM_BLOCK);
      const aAt = s.alloc(block * 4),
        bAt = b ? s.alloc(block * 4) : 0,
        args = s.alloc(64);
      if (aAt < 0 || bAt < 0 || args < 0) return undefined;
      for (let start = 0; start < n; start += block) {
        const len = Math.min(block, n - start);
        s.write(aAt, a as Float32Array, aOffset + start, aOffset + start + len);
        if (b) s.write(bAt, b as Float32Array, bOffset + start, bOffset + start + len);
        s.fields(args, [code, len, aAt, aAt, bAt, len]);
        s.f64[(args + 24) >>> 3] = scalar;
        s.run(taskKind, args, 1, false);
        s.read(aAt, out as Float32Array, len, start);
      }
      return out;
    }
    this.rt.reset();
    const aAt = this.rt.copyIn(a as Float32Array, aOffset, aOffset + n);
    const bAt = b ? this.rt.copyIn(b as Float32Array, bOffset, bOffset + n) : 0;
    const args = this.rt.alloc(64);
    if (aAt < 0 || bAt < 0 || args < 0) return undefined;
    // The output overwrites the first input in place (each vector is read before it is written).
    this.rt.fields(args, [code, n, aAt, aAt, bAt, chunk]);
    this.rt.f64[(args + 24) >>> 3] = scalar;
    this.rt.run(taskKind, args, jobs, parallel);
    this.rt.read(aAt, out as Float32Array, n);
    return out;
  }
}

/** Relative cost per element of a transcendental op (a cheap op costs 2, a multiply-add 1). */
const COSTLY_COST = 16;

/** Values per register of the fused interpreter (a multiple of 16: see wasm/assembly/fused.ts). */
const FUSED_TILE = 1024;
/** Elements per block of a fused program's operands streamed through the memory. */
const FUSED_BLOCK = 32768;
/** Programs each fused cache holds before it starts over. */
const FUSED_CACHE = 1024;
/** Operands of at most this many distinct values are copied once per call, not per block. */
const FUSED_RESIDENT = 4096;

/** Elements per block of a streamed elementwise op (128 KiB per operand: fits the L2 cache with room to spare). */
const STREAM_BLOCK = 32768;

/** Bytes of im2col columns one convolution lays out at a time (images are processed in chunks). */
const COL_BUDGET = 64 << 20;
/** The same on one thread, where the columns are packed right after they are written: they stay in the L2 cache. */
const CACHED_COL_BUDGET = 256 << 10;

/** Whether `v` is an f32 (or NaN): binaryScalar applies it in f32 then. */
function isF32(v: number): boolean {
  return Math.fround(v) === v || v !== v;
}

function roundUp(v: number, m: number): number {
  return Math.ceil(v / m) * m;
}

/** The element range `[lo, hi)` a strided `rows × cols` operand covers over all batch offsets (strides may be negative). */
function span(
  offsets: readonly number[],
  rows: number,
  cols: number,
  rs: number,
  cs: number,
): { lo: number; hi: number } {
  const extLo = Math.min(0, (rows - 1) * rs) + Math.min(0, (cols - 1) * cs);
  const extHi = Math.max(0, (rows - 1) * rs) + Math.max(0, (cols - 1) * cs);
  let lo = Infinity,
    hi = -Infinity;
  for (const o of offsets) {
    lo = Math.min(lo, o + extLo);
    hi = Math.max(hi, o + extHi + 1);
  }
  return { lo, hi };
}

/** The element range `[lo, hi)` a non-empty strided view at `offset` covers (strides may be negative or 0). */
function stridedSpan(offset: number, dims: readonly number[], strides: readonly number[]): { lo: number; hi: number } {
  let lo = offset,
    hi = offset;
  dims.forEach((d, i) => {
    const ext = (d - 1) * strides[i]!;
    if (ext < 0) lo += ext;
    else hi += ext;
  });
  return { lo, hi: hi + 1 };
}

/**
 * Runs a row task (reduction or softmax). On one thread the rows stream through a cache-sized
 * window (whole rows per block; a reduction of rows longer than the window combines the partial
 * results of its segments); on several threads the whole block is copied in once.
 */
function rowTask(
  rt: WasmRuntime,
  taskKind: number,
  op: number,
  out: Float32Array,
  a: Float32Array,
  aOffset: number,
  rows: number,
  len: number,
  plan: { per: number; jobs: number; parallel: boolean },
  reduceOp?: ReduceOp,
): Float32Array | undefined {
  rt.reset();
  const outPerRow = out.length / rows;
  if (!plan.parallel && (len <= STREAM_BLOCK || reduceOp !== undefined)) {
    const segment = Math.min(len, STREAM_BLOCK);
    const blockRows = Math.max(1, Math.min(rows, Math.floor(STREAM_BLOCK / len)));
    const aAt = rt.alloc(blockRows * segment * 4),
      outAt = rt.alloc(blockRows * outPerRow * 4),
      args = rt.alloc(64);
    if (aAt < 0 || outAt < 0 || args < 0) return undefined;
    const f32 = rt.f32;
    if (len <= STREAM_BLOCK) {
      for (let r0 = 0; r0 < rows; r0 += blockRows) {
        const count = Math.min(blockRows, rows - r0);
        rt.write(aAt, a, aOffset + r0 * len, aOffset + (r0 + count) * len);
        rt.fields(args, [op, count, len, outAt, aAt, count]);
        rt.run(taskKind, args, 1, false);
        rt.read(outAt, out, count * outPerRow, r0 * outPerRow);
      }
      return out;
    }
    for (let r = 0; r < rows; r++) {
      let acc = NaN;
      for (let s0 = 0; s0 < len; s0 += segment) {
        const count = Math.min(segment, len - s0);
        const from = aOffset + r * len + s0;
        rt.write(aAt, a, from, from + count);
        rt.fields(args, [op, 1, count, outAt, aAt, 1]);
        rt.run(taskKind, args, 1, false);
        const v = f32[outAt >>> 2]!;
        acc = s0 === 0 ? v : combine(reduceOp!, acc, v);
      }
      out[r] = acc;
    }
    return out;
  }
  const n = rows * len;
  const aAt = rt.copyIn(a, aOffset, aOffset + n),
    outAt = rt.alloc(out.length * 4),
    args = rt.alloc(64);
  if (aAt < 0 || outAt < 0 || args < 0) return undefined;
  rt.fields(args, [op, rows, len, outAt, aAt, plan.per]);
  rt.run(taskKind, args, plan.jobs, plan.parallel);
  rt.read(outAt, out, out.length);
  return out;
}

/** Combines two partial reductions as the JavaScript kernels do (NaN wins for max and min). */
function combine(op: ReduceOp, acc: number, v: number): number {
  switch (op) {
    case 'sum':
      return acc + v;
    case 'prod':
      return acc * v;
    case 'max':
      return acc !== acc || v > acc || v !== v ? (acc !== acc ? acc : v) : acc;
    default:
      return acc !== acc || v < acc || v !== v ? (acc !== acc ? acc : v) : acc;
  }
}

/** Lays out an im2col task for `images` NCHW images at `xAt` into columns at `colAt` and runs it. */
function im2col(
  rt: WasmRuntime,
  kind: number,
  args: number,
  xAt: number,
  colAt: number,
  images: number,
  chw: readonly number[],
  kernel: readonly number[],
  outSpatial: readonly number[],
  o: { stride: readonly number[]; padding: readonly number[]; dilation: readonly number[] },
  parallel: boolean,
): void {
  const [c, h, w] = chw as [number, number, number];
  // Channel blocks per image: enough jobs for the threads, at most MAX_JOBS in all.
  const blocks = parallel ? Math.min(c, Math.max(1, Math.ceil(16 / images))) : 1;
  let per = Math.ceil(c / blocks);
  per = Math.max(per, Math.ceil((c * images) / MAX_JOBS));
  const jobsPerImage = Math.ceil(c / per);
  rt.fields(args, [
    c,
    h,
    w,
    kernel[0]!,
    kernel[1]!,
    o.stride[0]!,
    o.stride[1]!,
    o.padding[0]!,
    o.padding[1]!,
    o.dilation[0]!,
    o.dilation[1]!,
    outSpatial[0]!,
    outSpatial[1]!,
    xAt,
    colAt,
    per,
    jobsPerImage,
  ]);
  rt.run(kind, args, images * jobsPerImage, parallel);
}
