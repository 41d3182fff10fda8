// Packed single-precision GEMM (GotoBLAS structure) with a 4×8 f32x4 micro-kernel.
//
// One job computes one tile (rows i0..i1, columns j0..j1) of one batch entry of
// C = A · B (+ bias per row). For each K-block of KC it packs B[kc × nt] into column slivers of
// NR and A, a block of rows at a time, into row slivers of MR (zero-padded at the edges; any
// row/column strides, so a transposed operand costs nothing extra), then runs the micro-kernel over
// every sliver pair. A tile is written by exactly one job, so jobs run on any thread in any order.
//
// 4×8 is the largest tile whose accumulators (8 v128) plus operands fit the 16 SIMD registers V8
// has on x64 without spilling; 6×8 and 4×12 measured at half its speed (they spill).
//
// A is packed *splatted*: each value as a full f32x4, so the kernel reads its four row operands
// with plain vector loads. With `v128.load32_splat` V8 (x64) emits a broadcast plus an address
// computation per row (it does not fold the offset), and the kernel ran at 5 cycles per step
// instead of 4: splatted A measured 16–25% faster in the kernel alone. The packed A is 4× larger,
// so it is packed in blocks of rows that stay in L2 (A_BLOCK_BYTES).

/** Rows of the micro-kernel. */
export const MR: i32 = 4;
/** Columns of the micro-kernel (two f32x4). */
export const NR: i32 = 8;
/**
 * Depth of a K-block. 512: an A sliver (8 KB) and a B sliver (16 KB) stay in L1, a job's A block
 * (128 rows, 256 KB) in L2; measured 3–5% faster than 256 at 512³ and 1024³ (fewer passes over C
 * and fewer pack tasks).
 */
export const KC: i32 = 512;
/** Bytes of one packed (splatted) block of A rows: at most 256 KB, so it stays in L2 beside the B block. */
const A_BLOCK_BYTES: i32 = 256 * 1024;

/** Rows of A packed at once for K-blocks of depth `kc` (a multiple of MR). */
@inline function blockRows(kc: i32): i32 {
  return max(MR, A_BLOCK_BYTES / (kc * MR * 4) / MR * MR);
}

// Argument block of a gemm task (u32 fields at `args`).
const M = 0, N = 4, K = 8, A_RS = 12, A_CS = 16, B_RS = 20, B_CS = 24, LDC = 28, TABLE = 32;
const MT = 36, NT = 40, TILES_M = 44, TILES_N = 48, SCRATCH = 52, SCRATCH_STRIDE = 56;
// Each batch entry of the table: A, B, C and bias (0: none) byte addresses.
const ENTRY = 16;

/** Bytes of per-thread scratch a gemm with tiles `mt × nt` needs (A goes through blocks of bounded size, so `mt` does not change it). */
export function gemmScratchBytes(mt: i32, nt: i32): i32 {
  return aBlockBytes() + (nt + NR) * KC * 4 + MR * NR * 4 + 64;
}

/** Bytes of the largest packed A block (any depth up to KC). */
@inline function aBlockBytes(): i32 {
  return max(A_BLOCK_BYTES, MR * KC * MR * 4);
}

/** Runs tile `job` of the gemm task described at `args` on thread `tid`. */
export function gemmJob(args: usize, job: i32, tid: i32): void {
  const m = load<i32>(args, M), n = load<i32>(args, N), k = load<i32>(args, K);
  const aRs = load<i32>(args, A_RS), aCs = load<i32>(args, A_CS), bRs = load<i32>(args, B_RS), bCs = load<i32>(args, B_CS);
  const ldc = load<i32>(args, LDC);
  const mt = load<i32>(args, MT), nt = load<i32>(args, NT), tilesM = load<i32>(args, TILES_M), tilesN = load<i32>(args, TILES_N);
  const perBatch = tilesM * tilesN;
  const batch = job / perBatch, r = job % perBatch;
  const i0 = (r / tilesN) * mt, j0 = (r % tilesN) * nt;
  const i1 = min(m, i0 + mt), j1 = min(n, j0 + nt);
  const entry = <usize>load<u32>(args, TABLE) + <usize>batch * ENTRY;
  const a = <usize>load<u32>(entry), b = <usize>load<u32>(entry, 4), c = <usize>load<u32>(entry, 8), bias = <usize>load<u32>(entry, 12);
  const scratch = (<usize>load<u32>(args, SCRATCH) + <usize>tid * <usize>load<u32>(args, SCRATCH_STRIDE) + 63) & ~<usize>63;
  const packA = scratch;
  const packB = packA + <usize>aBlockBytes();
  const tmp = packB + <usize>(nt + NR) * KC * 4;
  tile(a, aRs, aCs, b, bRs, bCs, c, ldc, bias, i0, i1, j0, j1, k, packA, packB, tmp);
}

/** C[i0:i1, j0:j1] = A[i0:i1, :] · B[:, j0:j1] (+ bias[i]); strides in elements, ldc in elements. */
function tile(a: usize, aRs: i32, aCs: i32, b: usize, bRs: i32, bCs: i32, c: usize, ldc: i32, bias: usize,
  i0: i32, i1: i32, j0: i32, j1: i32, k: i32, packA: usize, packB: usize, tmp: usize): void {
  const rows = i1 - i0, cols = j1 - j0;
  const ldcBytes = <usize>ldc * 4;
  if (k == 0) {
    for (let i = i0; i < i1; i++) {
      const row = c + <usize>i * ldcBytes;
      for (let j = j0; j < j1; j++) store<f32>(row + <usize>j * 4, bias != 0 ? load<f32>(bias + <usize>i * 4) : 0);
    }
    return;
  }
  if (rows < MR && bCs == 1) {
    fewRows(a, aRs, aCs, b + <usize>j0 * 4, bRs, c + <usize>j0 * 4, ldcBytes, i0, i1, cols, k);
  } else {
    // K-blocks of equal depth (at most KC): a short last block would spend more on its C updates than on its products.
    const blocks = (k + KC - 1) / KC;
    const depth = (k + blocks - 1) / blocks;
    for (let k0 = 0; k0 < k; k0 += depth) {
      const kc = min(depth, k - k0);
      packPanelB(b + <usize>(k0 * bRs + j0 * bCs) * 4, bRs, bCs, kc, cols, packB);
      multiplyRows(a + <usize>(i0 * aRs + k0 * aCs) * 4, aRs, aCs, rows, kc, packB, cols, c + <usize>i0 * ldcBytes + <usize>j0 * 4, ldcBytes, k0 == 0, packA, tmp);
    }
  }
  if (bias != 0) addBias(c, ldcBytes, bias, i0, i1, j0, j1);
}

/**
 * C[i0:i1, 0:cols] = A[i0:i1, :] · B[:, 0:cols] for fewer rows than the micro-kernel's (a
 * vector-matrix product, e.g. a linear layer at batch 1), B's rows contiguous: each row of C
 * accumulates the rows of B scaled by A's values, read where they are. Packing B would move all of
 * it (and the micro-kernel compute MR rows) to use it for one or two rows.
 */
function fewRows(a: usize, aRs: i32, aCs: i32, b: usize, bRs: i32, c: usize, ldcBytes: usize, i0: i32, i1: i32, cols: i32, k: i32): void {
  const rsB = <usize>bRs * 4;
  for (let i = i0; i < i1; i++) {
    const row = c + <usize>i * ldcBytes;
    const ai = a + <usize>(i * aRs) * 4;
    let j = 0;
    for (; j + 4 <= cols; j += 4) v128.store(row + <usize>j * 4, f32x4.splat(0));
    for (; j < cols; j++) store<f32>(row + <usize>j * 4, 0);
    let bp = b;
    let p = 0;
    // Four rows of B per pass over C's row: a quarter of the loads and stores of C.
    for (; p + 4 <= k; p += 4) {
      const a0 = f32x4.splat(load<f32>(ai + <usize>(p * aCs) * 4)), a1 = f32x4.splat(load<f32>(ai + <usize>((p + 1) * aCs) * 4));
      const a2 = f32x4.splat(load<f32>(ai + <usize>((p + 2) * aCs) * 4)), a3 = f32x4.splat(load<f32>(ai + <usize>((p + 3) * aCs) * 4));
      const b1 = bp + rsB, b2 = bp + 2 * rsB, b3 = bp + 3 * rsB;
      j = 0;
      for (; j + 4 <= cols; j += 4) {
        const at = row + <usize>j * 4, o = <usize>j * 4;
        let v = f32x4.add(v128.load(at), f32x4.mul(a0, v128.load(bp + o)));
        v = f32x4.add(v, f32x4.mul(a1, v128.load(b1 + o)));
        v = f32x4.add(v, f32x4.mul(a2, v128.load(b2 + o)));
        v128.store(at, f32x4.add(v, f32x4.mul(a3, v128.load(b3 + o))));
      }
      for (; j < cols; j++) {
        const at = row + <usize>j * 4, o = <usize>j * 4;
        let v = load<f32>(at) + f32x4.extract_lane(a0, 0) * load<f32>(bp + o);
        v += f32x4.extract_lane(a1, 0) * load<f32>(b1 + o);
        v += f32x4.extract_lane(a2, 0) * load<f32>(b2 + o);
        store<f32>(at, v + f32x4.extract_lane(a3, 0) * load<f32>(b3 + o));
      }
      bp += 4 * rsB;
    }
    for (; p < k; p++) {
      const av = load<f32>(ai + <usize>(p * aCs) * 4);
      const s = f32x4.splat(av);
      j = 0;
      for (; j + 4 <= cols; j += 4) {
        const at = row + <usize>j * 4;
        v128.store(at, f32x4.add(v128.load(at), f32x4.mul(s, v128.load(bp + <usize>j * 4))));
      }
      for (; j < cols; j++) store<f32>(row + <usize>j * 4, load<f32>(row + <usize>j * 4) + av * load<f32>(bp + <usize>j * 4));
      bp += rsB;
    }
  }
}

/**
 * C[rows × cols] (=, when `first`; else +=) A[rows × kc] (at `a`, strides in elements) times the
 * packed B slivers: A is packed into `packA` one block of rows at a time.
 */
function multiplyRows(a: usize, aRs: i32, aCs: i32, rows: i32, kc: i32, packB: usize, cols: i32, c: usize, ldcBytes: usize, first: bool, packA: usize, tmp: usize): void {
  const block = blockRows(kc);
  for (let r0 = 0; r0 < rows; r0 += block) {
    const h = min(block, rows - r0);
    packPanelA(a + <usize>(r0 * aRs) * 4, aRs, aCs, h, kc, packA);
    multiplyPacked(packA, h, packB, cols, kc, c + <usize>r0 * ldcBytes, ldcBytes, first, tmp);
  }
}

/**
 * C[rows × cols] (=, when `first`; else +=) the packed A slivers (MR rows each) times the packed B
 * slivers (NR columns each) of one K-block of depth `kc`; partial tiles at the edges go through
 * `tmp`. `c` is the tile's first element, `ldcBytes` its row stride.
 */
function multiplyPacked(packA: usize, rows: i32, packB: usize, cols: i32, kc: i32, c: usize, ldcBytes: usize, first: bool, tmp: usize): void {
  for (let jj = 0; jj < cols; jj += NR) {
    const nr = min(NR, cols - jj);
    const pb = packB + <usize>(jj * kc) * 4;
    for (let ii = 0; ii < rows; ii += MR) {
      const mr = min(MR, rows - ii);
      const pa = packA + <usize>(ii * kc) * 16;
      const cp = c + <usize>ii * ldcBytes + <usize>jj * 4;
      if (mr == MR && nr == NR) {
        kernel4x8(kc, pa, pb, cp, ldcBytes, !first);
      } else {
        kernel4x8(kc, pa, pb, tmp, NR * 4, false);
        for (let r = 0; r < mr; r++) {
          for (let q = 0; q < nr; q++) {
            const dst = cp + <usize>r * ldcBytes + <usize>q * 4;
            const v = load<f32>(tmp + <usize>(r * NR + q) * 4);
            store<f32>(dst, first ? v : load<f32>(dst) + v);
          }
        }
      }
    }
  }
}

/** C[i, j] += bias[i] for rows [i0, i1) and columns [j0, j1). */
function addBias(c: usize, ldcBytes: usize, bias: usize, i0: i32, i1: i32, j0: i32, j1: i32): void {
  for (let i = i0; i < i1; i++) {
    const b = load<f32>(bias + <usize>i * 4);
    const bv = f32x4.splat(b);
    const row = c + <usize>i * ldcBytes;
    let j = j0;
    for (; j + 4 <= j1; j += 4) v128.store(row + <usize>j * 4, f32x4.add(v128.load(row + <usize>j * 4), bv));
    for (; j < j1; j++) store<f32>(row + <usize>j * 4, load<f32>(row + <usize>j * 4) + b);
  }
}

/**
 * Packs B[kc × cols] (at `src`, strides in elements) into slivers of NR columns: sliver s holds,
 * for each p, the NR values B[p, s·NR .. s·NR + NR) contiguously; columns past `cols` are zero.
 */
function packPanelB(src: usize, rs: i32, cs: i32, kc: i32, cols: i32, dst: usize): void {
  const rsB = <usize>rs * 4, csB = <usize>cs * 4;
  for (let s = 0; s < cols; s += NR) {
    const w = min(NR, cols - s);
    let out = dst + <usize>(s * kc) * 4;
    const col0 = src + <usize>s * csB;
    if (w == NR && cs == 1) {
      let p0 = col0;
      for (let p = 0; p < kc; p++) {
        v128.store(out, v128.load(p0));
        v128.store(out, v128.load(p0, 16), 16);
        p0 += rsB; out += NR * 4;
      }
    } else if (w == NR && rs == 1) {
      // Columns are contiguous in memory: read each column down, 4 rows at a time, and transpose.
      let p = 0;
      for (; p + 4 <= kc; p += 4) {
        const base = col0 + <usize>p * 4;
        transpose4(base, csB, out, NR * 4);
        transpose4(base + 4 * csB, csB, out + 16, NR * 4);
        out += 4 * NR * 4;
      }
      for (; p < kc; p++) {
        for (let q = 0; q < NR; q++) store<f32>(out + <usize>q * 4, load<f32>(col0 + <usize>q * csB + <usize>p * 4));
        out += NR * 4;
      }
    } else {
      for (let p = 0; p < kc; p++) {
        const row = col0 + <usize>p * rsB;
        for (let q = 0; q < NR; q++) store<f32>(out + <usize>q * 4, q < w ? load<f32>(row + <usize>q * csB) : 0);
        out += NR * 4;
      }
    }
  }
}

/**
 * Packs A[rows × kc] (at `src`) into slivers of MR rows, splatted: sliver s holds, for each p, the
 * MR values A[s·MR + r, p] each as a full f32x4 (64 bytes per p); rows past `rows` are zero.
 */
function packPanelA(src: usize, rs: i32, cs: i32, rows: i32, kc: i32, dst: usize): void {
  const rsB = <usize>rs * 4, csB = <usize>cs * 4;
  const step: usize = MR * 16;
  for (let s = 0; s < rows; s += MR) {
    const h = min(MR, rows - s);
    let out = dst + <usize>(s * kc) * 16;
    const row0 = src + <usize>s * rsB;
    if (h == MR && cs == 1) {
      // Rows are contiguous: read 4 columns of each row at once and splat each lane.
      let p = 0;
      for (; p + 4 <= kc; p += 4) {
        const at = row0 + <usize>p * 4;
        for (let r = 0; r < MR; r++) {
          storeSplats(v128.load(at + <usize>r * rsB), out + <usize>r * 16, step);
        }
        out += 4 * step;
      }
      for (; p < kc; p++) {
        for (let r = 0; r < MR; r++) v128.store(out + <usize>r * 16, f32x4.splat(load<f32>(row0 + <usize>r * rsB + <usize>p * 4)));
        out += step;
      }
    } else if (h == MR && rs == 1) {
      // Columns are contiguous: the MR values of a column are one vector.
      let p0 = row0;
      for (let p = 0; p < kc; p++) {
        storeSplats(v128.load(p0), out, 16);
        p0 += csB; out += step;
      }
    } else {
      for (let p = 0; p < kc; p++) {
        const col = row0 + <usize>p * csB;
        for (let r = 0; r < MR; r++) v128.store(out + <usize>r * 16, f32x4.splat(r < h ? load<f32>(col + <usize>r * rsB) : 0));
        out += step;
      }
    }
  }
}

/**
 * Reads 4 vectors of 4 floats at `src`, `src + stride`, … and writes their transpose as 4 vectors
 * at `dst`, `dst + dstStride`, ….
 */
@inline function transpose4(src: usize, stride: usize, dst: usize, dstStride: usize): void {
  const r0 = v128.load(src), r1 = v128.load(src + stride), r2 = v128.load(src + 2 * stride), r3 = v128.load(src + 3 * stride);
  const t0 = v128.shuffle<f32>(r0, r1, 0, 4, 1, 5), t1 = v128.shuffle<f32>(r0, r1, 2, 6, 3, 7);
  const t2 = v128.shuffle<f32>(r2, r3, 0, 4, 1, 5), t3 = v128.shuffle<f32>(r2, r3, 2, 6, 3, 7);
  v128.store(dst, v128.shuffle<f64>(t0, t2, 0, 2));
  v128.store(dst + dstStride, v128.shuffle<f64>(t0, t2, 1, 3));
  v128.store(dst + 2 * dstStride, v128.shuffle<f64>(t1, t3, 0, 2));
  v128.store(dst + 3 * dstStride, v128.shuffle<f64>(t1, t3, 1, 3));
}

/** Stores each lane i of `v` as a full f32x4 at `dst + i·stride`. */
@inline function storeSplats(v: v128, dst: usize, stride: usize): void {
  v128.store(dst, v128.shuffle<f32>(v, v, 0, 0, 0, 0));
  v128.store(dst + stride, v128.shuffle<f32>(v, v, 1, 1, 1, 1));
  v128.store(dst + 2 * stride, v128.shuffle<f32>(v, v, 2, 2, 2, 2));
  v128.store(dst + 3 * stride, v128.shuffle<f32>(v, v, 3, 3, 3, 3));
}

/** C[4 × 8] (=|+=) Σ_p A[p][0..4] ⊗ B[p][0..8] over packed slivers (A splatted); `ldc` in bytes. */
function kernel4x8(kc: i32, pa: usize, pb: usize, c: usize, ldc: usize, accumulate: bool): void {
  let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
  const end = pb + <usize>kc * (NR * 4);
  while (pb < end) {
    const b0 = v128.load(pb), b1 = v128.load(pb, 16);
    let a = v128.load(pa);
    c00 = f32x4.add(c00, f32x4.mul(a, b0)); c01 = f32x4.add(c01, f32x4.mul(a, b1));
    a = v128.load(pa, 16);
    c10 = f32x4.add(c10, f32x4.mul(a, b0)); c11 = f32x4.add(c11, f32x4.mul(a, b1));
    a = v128.load(pa, 32);
    c20 = f32x4.add(c20, f32x4.mul(a, b0)); c21 = f32x4.add(c21, f32x4.mul(a, b1));
    a = v128.load(pa, 48);
    c30 = f32x4.add(c30, f32x4.mul(a, b0)); c31 = f32x4.add(c31, f32x4.mul(a, b1));
    pa += MR * 16; pb += NR * 4;
  }
  if (accumulate) {
    c00 = f32x4.add(c00, v128.load(c)); c01 = f32x4.add(c01, v128.load(c, 16));
    c10 = f32x4.add(c10, v128.load(c + ldc)); c11 = f32x4.add(c11, v128.load(c + ldc, 16));
    c20 = f32x4.add(c20, v128.load(c + 2 * ldc)); c21 = f32x4.add(c21, v128.load(c + 2 * ldc, 16));
    c30 = f32x4.add(c30, v128.load(c + 3 * ldc)); c31 = f32x4.add(c31, v128.load(c + 3 * ldc, 16));
  }
  v128.store(c, c00); v128.store(c, c01, 16);
  v128.store(c + ldc, c10); v128.store(c + ldc, c11, 16);
  v128.store(c + 2 * ldc, c20); v128.store(c + 2 * ldc, c21, 16);
  v128.store(c + 3 * ldc, c30); v128.store(c + 3 * ldc, c31, 16);
}

// A single product spread over the threads with B packed once per K-block and shared: a pack task
// (each job packs a range of column slivers into the shared buffer), then a rows task (each job
// packs its own rows of A and runs them against every sliver). Tiles that each pack their own copy
// of B spend as long packing as multiplying at 256³.
const P_M = 0, P_N = 4, P_KC = 8, P_A = 12, P_A_RS = 16, P_A_CS = 20, P_B = 24, P_B_RS = 28, P_B_CS = 32, P_C = 36, P_LDC = 40;
const P_BIAS = 44, P_ACC = 48, P_PACKED = 52, P_ROWS = 56, P_COLS = 60, P_SCRATCH = 64, P_SCRATCH_STRIDE = 68;

/** Packs column slivers [job·cols, …) of the K-block at `args` (B already offset to its first row) into the shared buffer. */
export function gemmPackBJob(args: usize, job: i32): void {
  const n = load<i32>(args, P_N), kc = load<i32>(args, P_KC), per = load<i32>(args, P_COLS);
  const j0 = job * per, j1 = min(n, j0 + per);
  if (j1 <= j0) return;
  const bRs = load<i32>(args, P_B_RS), bCs = load<i32>(args, P_B_CS);
  const b = <usize>load<u32>(args, P_B), packed = <usize>load<u32>(args, P_PACKED);
  packPanelB(b + <usize>(j0 * bCs) * 4, bRs, bCs, kc, j1 - j0, packed + <usize>(j0 * kc) * 4);
}

/** Rows [job·rows, …) of the K-block at `args` against every packed sliver; the last block adds the bias. */
export function gemmRowsJob(args: usize, job: i32, tid: i32): void {
  const m = load<i32>(args, P_M), n = load<i32>(args, P_N), kc = load<i32>(args, P_KC), per = load<i32>(args, P_ROWS);
  const i0 = job * per, i1 = min(m, i0 + per);
  if (i1 <= i0) return;
  const aRs = load<i32>(args, P_A_RS), aCs = load<i32>(args, P_A_CS), ldc = load<i32>(args, P_LDC);
  const a = <usize>load<u32>(args, P_A), c = <usize>load<u32>(args, P_C), bias = <usize>load<u32>(args, P_BIAS);
  const packed = <usize>load<u32>(args, P_PACKED);
  const first = load<i32>(args, P_ACC) == 0;
  const scratch = (<usize>load<u32>(args, P_SCRATCH) + <usize>tid * <usize>load<u32>(args, P_SCRATCH_STRIDE) + 63) & ~<usize>63;
  const rows = i1 - i0;
  const packA = scratch;
  const tmp = packA + <usize>aBlockBytes();
  const ldcBytes = <usize>ldc * 4;
  multiplyRows(a + <usize>(i0 * aRs) * 4, aRs, aCs, rows, kc, packed, n, c + <usize>i0 * ldcBytes, ldcBytes, first, packA, tmp);
  if (bias != 0) addBias(c, ldcBytes, bias, i0, i1, 0, n);
}
