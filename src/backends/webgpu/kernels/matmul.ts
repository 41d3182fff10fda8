import type { DType } from '../../../core/dtype.js';
import { numel } from '../../../core/shape.js';
import type { GPUBuffer } from '../gpu-types.js';
import { alignStrides, collapse } from '../../../core/strided.js';
import type { Operand } from '../layout.js';
import type { GpuRuntime } from '../runtime.js';
import { decomposeIndex, indexDims } from '../wgsl/index-math.js';
import { Params, shader, storageDecls } from '../wgsl/params.js';
import { ctype, storeExpr, storeHelpers } from '../wgsl/types.js';

/** Output tile of one workgroup (rows × cols), depth of one shared-memory step, per-thread block. */
const TM = 64,
  TN = 64,
  TK = 16,
  RM = 4,
  RN = 4;

/**
 * Batched matrix product `C[b] = A[b] · B[b]` with broadcasting over the batch dims. `tiled` (for
 * GPUs): each 256-thread
 * workgroup computes a 64×64 tile of C, staging 64×16 panels of A and 16×64 panels of B in workgroup
 * memory; each thread accumulates a 4×4 block in registers. Operands are read through their strides,
 * so transposed (and otherwise strided) operands need no copy. Accumulates in the compute type
 * (f32 for floats, wrapping i32/u32 for ints) and stores with the output dtype's rounding.
 * Otherwise (software adapters, where workgroup barriers are costly): each thread accumulates a
 * 4×4 block straight from the operands, 64 threads (32×32 outputs) per workgroup.
 */
export function runMatmul(
  rt: GpuRuntime,
  a: Operand,
  aShape: readonly number[],
  b: Operand,
  bShape: readonly number[],
  batch: readonly number[],
  dst: GPUBuffer,
  dtype: DType,
  tiled = true,
): void {
  const rank = aShape.length;
  const m = aShape[rank - 2]!,
    k = aShape[rank - 1]!,
    n = bShape[rank - 1]!;
  const nBatch = numel(batch);
  if (m === 0 || n === 0 || nBatch === 0) return;
  const t = ctype(dtype, 'matmul');
  const aB = alignStrides(aShape.slice(0, -2), a.strides.slice(0, -2), batch);
  const bB = alignStrides(bShape.slice(0, -2), b.strides.slice(0, -2), batch);
  const col = collapse(batch, [aB, bB]);
  const p = new Params();
  const M = p.u(m),
    N = p.u(n),
    K = p.u(k);
  const aRs = p.i(a.strides[rank - 2]!),
    aCs = p.i(a.strides[rank - 1]!),
    bRs = p.i(b.strides[rank - 2]!),
    bCs = p.i(b.strides[rank - 1]!);
  const aOff = p.i(a.offset),
    bOff = p.i(b.offset),
    zBase = p.u(0);
  const dims = indexDims(p, col.shape, col.strides);
  const zero = t === 'f32' ? '0.0' : t === 'i32' ? '0' : '0u';
  const batchLines = decomposeIndex('z', 'r', ['ao', 'bo'], dims);
  const body = `
var<workgroup> As: array<${t}, ${TK * TM}>;
var<workgroup> Bs: array<${t}, ${TK * TN}>;
fn store_row(base: u32, gm: u32, gn0: u32, r: vec4<${t}>) {
  if (gm >= ${M}) { return; }
  for (var y = 0u; y < 4u; y = y + 1u) {
    let gn = gn0 + y;
    if (gn < ${N}) { let v = r[y]; C[base + gm * ${N} + gn] = ${storeExpr(dtype, 'v')}; }
  }
}
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let z = wid.z + ${zBase};
  var ao: i32 = ${aOff};
  var bo: i32 = ${bOff};
${batchLines.join('\n')}
  let row0 = wid.y * ${TM}u;
  let col0 = wid.x * ${TN}u;
  let tid = lid.y * 16u + lid.x;
  var acc0 = vec4<${t}>(${zero});
  var acc1 = vec4<${t}>(${zero});
  var acc2 = vec4<${t}>(${zero});
  var acc3 = vec4<${t}>(${zero});
  for (var k0 = 0u; k0 < ${K}; k0 = k0 + ${TK}u) {
    for (var l = 0u; l < ${(TM * TK) / 256}u; l = l + 1u) {
      let e = tid + l * 256u;
      let mm = e / ${TK}u;
      let kk = e % ${TK}u;
      let gm = row0 + mm;
      let gk = k0 + kk;
      var v = ${zero};
      if (gm < ${M} && gk < ${K}) { v = A[ao + i32(gm) * ${aRs} + i32(gk) * ${aCs}]; }
      As[kk * ${TM}u + mm] = v;
    }
    for (var l = 0u; l < ${(TN * TK) / 256}u; l = l + 1u) {
      let e = tid + l * 256u;
      let kk = e / ${TN}u;
      let nn = e % ${TN}u;
      let gk = k0 + kk;
      let gn = col0 + nn;
      var v = ${zero};
      if (gk < ${K} && gn < ${N}) { v = B[bo + i32(gk) * ${bRs} + i32(gn) * ${bCs}]; }
      Bs[kk * ${TN}u + nn] = v;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < ${TK}u; kk = kk + 1u) {
      let ai = kk * ${TM}u + lid.y * ${RM}u;
      let bi = kk * ${TN}u + lid.x * ${RN}u;
      let b = vec4<${t}>(Bs[bi], Bs[bi + 1u], Bs[bi + 2u], Bs[bi + 3u]);
      acc0 = acc0 + As[ai] * b;
      acc1 = acc1 + As[ai + 1u] * b;
      acc2 = acc2 + As[ai + 2u] * b;
      acc3 = acc3 + As[ai + 3u] * b;
    }
    workgroupBarrier();
  }
  let cBase = z * ${M} * ${N};
  let gm0 = row0 + lid.y * ${RM}u;
  let gn0 = col0 + lid.x * ${RN}u;
  store_row(cBase, gm0, gn0, acc0);
  store_row(cBase, gm0 + 1u, gn0, acc1);
  store_row(cBase, gm0 + 2u, gn0, acc2);
  store_row(cBase, gm0 + 3u, gn0, acc3);
}`;
  const blocked = `
fn store_row(base: u32, gm: u32, gn0: u32, r: vec4<${t}>) {
  if (gm >= ${M}) { return; }
  for (var y = 0u; y < 4u; y = y + 1u) {
    let gn = gn0 + y;
    if (gn < ${N}) { let v = r[y]; C[base + gm * ${N} + gn] = ${storeExpr(dtype, 'v')}; }
  }
}
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let z = wid.z + ${zBase};
  var ao: i32 = ${aOff};
  var bo: i32 = ${bOff};
${batchLines.join('\n')}
  let gm0 = (wid.y * 8u + lid.y) * 4u;
  let gn0 = (wid.x * 8u + lid.x) * 4u;
  if (gm0 >= ${M} || gn0 >= ${N}) { return; }
  // Rows and columns past the edge read clamped positions; their results are never stored.
  let mLast = ${M} - 1u;
  let nLast = ${N} - 1u;
  let r0 = ao + i32(gm0) * ${aRs};
  let r1 = ao + i32(min(gm0 + 1u, mLast)) * ${aRs};
  let r2 = ao + i32(min(gm0 + 2u, mLast)) * ${aRs};
  let r3 = ao + i32(min(gm0 + 3u, mLast)) * ${aRs};
  let c0 = bo + i32(gn0) * ${bCs};
  let c1 = bo + i32(min(gn0 + 1u, nLast)) * ${bCs};
  let c2 = bo + i32(min(gn0 + 2u, nLast)) * ${bCs};
  let c3 = bo + i32(min(gn0 + 3u, nLast)) * ${bCs};
  var acc0 = vec4<${t}>(${zero});
  var acc1 = vec4<${t}>(${zero});
  var acc2 = vec4<${t}>(${zero});
  var acc3 = vec4<${t}>(${zero});
  for (var k = 0u; k < ${K}; k = k + 1u) {
    let ka = i32(k) * ${aCs};
    let kb = i32(k) * ${bRs};
    let b = vec4<${t}>(B[c0 + kb], B[c1 + kb], B[c2 + kb], B[c3 + kb]);
    acc0 = acc0 + A[r0 + ka] * b;
    acc1 = acc1 + A[r1 + ka] * b;
    acc2 = acc2 + A[r2 + ka] * b;
    acc3 = acc3 + A[r3 + ka] * b;
  }
  let cBase = z * ${M} * ${N};
  store_row(cBase, gm0, gn0, acc0);
  store_row(cBase, gm0 + 1u, gn0, acc1);
  store_row(cBase, gm0 + 2u, gn0, acc2);
  store_row(cBase, gm0 + 3u, gn0, acc3);
}`;
  const code = shader(storeHelpers(dtype), [
    storageDecls([
      ['C', t, true],
      ['A', t, false],
      ['B', t, false],
    ]),
    p.decl(3),
    tiled ? body : blocked,
  ]);
  const gx = Math.ceil(n / (tiled ? TN : 32)),
    gy = Math.ceil(m / (tiled ? TM : 32));
  // Batches beyond the per-dimension grid limit run as several dispatches with a base batch index.
  for (let z0 = 0; z0 < nBatch; z0 += 65535) {
    const words = [...p.words];
    words[9] = z0;
    rt.dispatch(code, [dst, a.buffer, b.buffer], words, [gx, gy, Math.min(65535, nBatch - z0)]);
  }
}
