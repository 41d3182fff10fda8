/**
 * Single-threaded GEMM in plain JavaScript: C[M×N] = A[M×K] · B[K×N] for strided A and B and a
 * contiguous C. Blocked as in GotoBLAS: B is packed in K-blocks into column panels of 4, A into
 * row panels of 4 (both as Float64Array, so the inner loop does no f32→f64 conversion), and a 4×4
 * register-tiled micro-kernel accumulates in 16 locals.
 */

const MR = 4;
const NR = 4;
const KC = 128;
const MC = 128;

let packA = new Float64Array(MC * KC);
let packB = new Float64Array(0);

/** Array types the kernel reads and writes. */
type Arr = Float32Array | Float64Array | Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array;

/**
 * Computes one matrix product. `aRs`/`aCs` are A's row and column strides (so a transposed
 * operand needs no copy); likewise for B. C is written (not accumulated) at `cOff` with row stride N.
 */
export function gemm(
  M: number,
  N: number,
  K: number,
  A: Arr,
  aOff: number,
  aRs: number,
  aCs: number,
  B: Arr,
  bOff: number,
  bRs: number,
  bCs: number,
  C: Arr,
  cOff: number,
): void {
  if (M === 0 || N === 0) return;
  if (K === 0) {
    for (let i = 0; i < M * N; i++) C[cOff + i] = 0;
    return;
  }
  if (M * N * K <= 4096) {
    // Tiny products: packing costs more than it saves.
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let acc = 0;
        for (let p = 0, ap = aOff + i * aRs, bp = bOff + j * bCs; p < K; p++, ap += aCs, bp += bRs)
          acc += A[ap]! * B[bp]!;
        C[cOff + i * N + j] = acc;
      }
    }
    return;
  }
  const nPanels = Math.ceil(N / NR);
  if (packB.length < nPanels * NR * KC) packB = new Float64Array(nPanels * NR * KC);
  for (let i = 0; i < M; i++) C.fill(0, cOff + i * N, cOff + i * N + N);
  for (let k0 = 0; k0 < K; k0 += KC) {
    const kc = Math.min(KC, K - k0);
    packPanelsB(B, bOff + k0 * bRs, bRs, bCs, kc, N);
    for (let i0 = 0; i0 < M; i0 += MC) {
      const mc = Math.min(MC, M - i0);
      packPanelsA(A, aOff + i0 * aRs + k0 * aCs, aRs, aCs, mc, kc);
      for (let jp = 0; jp < nPanels; jp++) {
        const j = jp * NR;
        const nr = Math.min(NR, N - j);
        for (let ip = 0; ip * MR < mc; ip++) {
          const i = i0 + ip * MR;
          const mr = Math.min(MR, M - i);
          micro(kc, ip * MR * kc, jp * NR * kc, C, cOff + i * N + j, N, mr, nr);
        }
      }
    }
  }
}

/** Packs B[kc × n] into panels `[panel][k][NR]`, zero-padding the last panel. */
function packPanelsB(B: Arr, off: number, rs: number, cs: number, kc: number, n: number): void {
  const p = packB;
  let w = 0;
  for (let j = 0; j < n; j += NR) {
    const nr = Math.min(NR, n - j);
    for (let k = 0; k < kc; k++) {
      const base = off + k * rs + j * cs;
      if (nr === NR) {
        p[w] = B[base]!;
        p[w + 1] = B[base + cs]!;
        p[w + 2] = B[base + 2 * cs]!;
        p[w + 3] = B[base + 3 * cs]!;
      } else {
        for (let c = 0; c < NR; c++) p[w + c] = c < nr ? B[base + c * cs]! : 0;
      }
      w += NR;
    }
  }
}

/** Packs A[mc × kc] into panels `[panel][k][MR]`, zero-padding the last panel. */
function packPanelsA(A: Arr, off: number, rs: number, cs: number, mc: number, kc: number): void {
  const p = packA;
  let w = 0;
  for (let i = 0; i < mc; i += MR) {
    const mr = Math.min(MR, mc - i);
    for (let k = 0; k < kc; k++) {
      const base = off + i * rs + k * cs;
      if (mr === MR) {
        p[w] = A[base]!;
        p[w + 1] = A[base + rs]!;
        p[w + 2] = A[base + 2 * rs]!;
        p[w + 3] = A[base + 3 * rs]!;
      } else {
        for (let r = 0; r < MR; r++) p[w + r] = r < mr ? A[base + r * rs]! : 0;
      }
      w += MR;
    }
  }
}

/** 4×4 micro-kernel: acc[i..i+4][j..j+4] += Apanel · Bpanel over kc. */
function micro(kc: number, ai: number, bi: number, acc: Arr, ci: number, ldc: number, mr: number, nr: number): void {
  const a = packA,
    b = packB;
  let c00 = 0,
    c01 = 0,
    c02 = 0,
    c03 = 0;
  let c10 = 0,
    c11 = 0,
    c12 = 0,
    c13 = 0;
  let c20 = 0,
    c21 = 0,
    c22 = 0,
    c23 = 0;
  let c30 = 0,
    c31 = 0,
    c32 = 0,
    c33 = 0;
  for (let k = 0; k < kc; k++) {
    const a0 = a[ai]!,
      a1 = a[ai + 1]!,
      a2 = a[ai + 2]!,
      a3 = a[ai + 3]!;
    const b0 = b[bi]!,
      b1 = b[bi + 1]!,
      b2 = b[bi + 2]!,
      b3 = b[bi + 3]!;
    c00 += a0 * b0;
    c01 += a0 * b1;
    c02 += a0 * b2;
    c03 += a0 * b3;
    c10 += a1 * b0;
    c11 += a1 * b1;
    c12 += a1 * b2;
    c13 += a1 * b3;
    c20 += a2 * b0;
    c21 += a2 * b1;
    c22 += a2 * b2;
    c23 += a2 * b3;
    c30 += a3 * b0;
    c31 += a3 * b1;
    c32 += a3 * b2;
    c33 += a3 * b3;
    ai += 4;
    bi += 4;
  }
  if (mr === 4 && nr === 4) {
    let r = ci;
    acc[r]! += c00;
    acc[r + 1]! += c01;
    acc[r + 2]! += c02;
    acc[r + 3]! += c03;
    r += ldc;
    acc[r]! += c10;
    acc[r + 1]! += c11;
    acc[r + 2]! += c12;
    acc[r + 3]! += c13;
    r += ldc;
    acc[r]! += c20;
    acc[r + 1]! += c21;
    acc[r + 2]! += c22;
    acc[r + 3]! += c23;
    r += ldc;
    acc[r]! += c30;
    acc[r + 1]! += c31;
    acc[r + 2]! += c32;
    acc[r + 3]! += c33;
    return;
  }
  const tile = [c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33];
  for (let r = 0; r < mr; r++) for (let c = 0; c < nr; c++) acc[ci + r * ldc + c]! += tile[r * 4 + c]!;
}
