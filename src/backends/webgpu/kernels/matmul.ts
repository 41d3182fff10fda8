import type { DType } from '../../../tensor/dtype.js';
import { numel } from '../../../tensor/shape.js';
import type { GPUBuffer } from '../gpu-types.js';
import { collapse, type Operand } from '../layout.js';
import type { GpuRuntime } from '../runtime.js';
import { Params, shader, storageDecls } from '../wgsl/params.js';
import { ctype, storeExpr, storeHelpers } from '../wgsl/types.js';

/** Output tile of one workgroup (rows × cols), depth of one shared-memory step, per-thread block. */
const TM = 64, TN = 64, TK = 16, RM = 4, RN = 4;

/**
 * Batched matrix product `C[b] = A[b] · B[b]` with broadcasting over the batch dims. Each 256-thread
 * workgroup computes a 64×64 tile of C, staging 64×16 panels of A and 16×64 panels of B in workgroup
 * memory; each thread accumulates a 4×4 block in registers. Operands are read through their strides,
 * so transposed (and otherwise strided) operands need no copy. Accumulates in the compute type
 * (f32 for floats, wrapping i32/u32 for ints) and stores with the output dtype's rounding.
 */
export function runMatmul(
  rt: GpuRuntime, a: Operand, aShape: readonly number[], b: Operand, bShape: readonly number[],
  batch: readonly number[], dst: GPUBuffer, dtype: DType,
): void {
  const rank = aShape.length;
  const m = aShape[rank - 2]!, k = aShape[rank - 1]!, n = bShape[rank - 1]!;
  const nBatch = numel(batch);
  if (m === 0 || n === 0 || nBatch === 0) return;
  const t = ctype(dtype, 'matmul');
  const align = (shape: readonly number[], strides: readonly number[]) => {
    const off = batch.length - shape.length;
    return batch.map((s, i) => (i < off || shape[i - off] === 1 ? 0 : strides[i - off]!));
  };
  const aB = align(aShape.slice(0, -2), a.strides.slice(0, -2));
  const bB = align(bShape.slice(0, -2), b.strides.slice(0, -2));
  const col = collapse(batch, [aB, bB]);
  const p = new Params();
  const M = p.u(m), N = p.u(n), K = p.u(k);
  const aRs = p.i(a.strides[rank - 2]!), aCs = p.i(a.strides[rank - 1]!), bRs = p.i(b.strides[rank - 2]!), bCs = p.i(b.strides[rank - 1]!);
  const aOff = p.i(a.offset), bOff = p.i(b.offset), zBase = p.u(0);
  const dims = col.shape.map((s, d) => ({ size: p.u(s), a: p.i(col.strides[0]![d]!), b: p.i(col.strides[1]![d]!) }));
  const zero = t === 'f32' ? '0.0' : t === 'i32' ? '0' : '0u';
  const batchLines: string[] = ['  var r = z;'];
  for (let d = dims.length - 1; d >= 0; d--) {
    const x = dims[d]!;
    batchLines.push(`  { let c = i32(r % ${x.size}); r = r / ${x.size}; ao = ao + c * ${x.a}; bo = bo + c * ${x.b}; }`);
  }
  const body = `
var<workgroup> As: array<${t}, ${TK * TM}>;
var<workgroup> Bs: array<${t}, ${TK * TN}>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let z = wid.z + ${zBase};
  var ao: i32 = ${aOff};
  var bo: i32 = ${bOff};
${batchLines.join('\n')}
  let row0 = wid.y * ${TM}u;
  let col0 = wid.x * ${TN}u;
  let tid = lid.y * 16u + lid.x;
  var acc: array<${t}, ${RM * RN}>;
  for (var q = 0u; q < ${RM * RN}u; q = q + 1u) { acc[q] = ${zero}; }
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
      var av: array<${t}, ${RM}>;
      var bv: array<${t}, ${RN}>;
      for (var x = 0u; x < ${RM}u; x = x + 1u) { av[x] = As[kk * ${TM}u + lid.y * ${RM}u + x]; }
      for (var y = 0u; y < ${RN}u; y = y + 1u) { bv[y] = Bs[kk * ${TN}u + lid.x * ${RN}u + y]; }
      for (var x = 0u; x < ${RM}u; x = x + 1u) {
        for (var y = 0u; y < ${RN}u; y = y + 1u) { acc[x * ${RN}u + y] = acc[x * ${RN}u + y] + av[x] * bv[y]; }
      }
    }
    workgroupBarrier();
  }
  let cBase = z * ${M} * ${N};
  for (var x = 0u; x < ${RM}u; x = x + 1u) {
    let gm = row0 + lid.y * ${RM}u + x;
    if (gm >= ${M}) { break; }
    for (var y = 0u; y < ${RN}u; y = y + 1u) {
      let gn = col0 + lid.x * ${RN}u + y;
      if (gn < ${N}) { let v = acc[x * ${RN}u + y]; C[cBase + gm * ${N} + gn] = ${storeExpr(dtype, 'v')}; }
    }
  }
}`;
  const code = shader(storeHelpers(dtype), [storageDecls([['C', t, true], ['A', t, false], ['B', t, false]]), p.decl(3), body]);
  const gx = Math.ceil(n / TN), gy = Math.ceil(m / TM);
  // Batches beyond the per-dimension grid limit run as several dispatches with a base batch index.
  for (let z0 = 0; z0 < nBatch; z0 += 65535) {
    const words = [...p.words];
    words[9] = z0;
    rt.dispatch(code, [dst, a.buffer, b.buffer], words, [gx, gy, Math.min(65535, nBatch - z0)]);
  }
}
