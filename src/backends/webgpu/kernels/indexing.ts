import type { ScatterOp } from '../../../backend/ops.js';
import type { DType } from '../../../core/dtype.js';
import { contiguousStrides, numel } from '../../../core/shape.js';
import type { GPUBuffer } from '../gpu-types.js';
import type { Operand } from '../layout.js';
import type { GpuRuntime, IndexCheck } from '../runtime.js';
import { decomposeIndex, indexDims } from '../wgsl/index-math.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from '../wgsl/params.js';
import { BurnError } from '../../../core/errors.js';
import { castExpr, ctype, storeExpr, storeHelpers } from '../wgsl/types.js';

/**
 * Gather and scatter along one dim (PyTorch's semantics). A kernel cannot throw, so an index
 * outside `[0, size)` is counted in the dispatch's slot of the runtime's check buffer (and the
 * element skipped: gather writes 0, scatter leaves it); the runtime turns the count into the CPU
 * engines' BurnError, naming `op` (`select` for a select) or the user op that ran it (`take`,
 * `embedding`: see `currentUserOp`), when the batch settles, and reads of the result throw it.
 */

/** Declares the check buffer at `binding` and `flag_index(slot, k)`, which records a bad index `k` in its slot. */
function checkDecl(binding: number): string {
  return `@group(0) @binding(${binding}) var<storage, read_write> chk: array<atomic<u32>>;
fn flag_index(slot: u32, k: i32) {
  atomicAdd(&chk[slot], 1u);
  let e = bitcast<u32>(k) ^ 0x80000000u;
  atomicMax(&chk[slot + 1u], e);
  atomicMax(&chk[slot + 2u], ~e);
}`;
}

/** The index check of a kernel indexing dim `dim` of size `size` for `op`; its slot word is the next of `p`. */
function indexCheck(p: Params, op: string, dim: number, size: number): { check: IndexCheck; slot: string } {
  const word = p.words.length;
  // The CPU engines' message, and why it comes late.
  const error = (index: number, count: number) =>
    new BurnError(
      op,
      `index ${index} is out of bounds for dim ${dim} of size ${size}; expected 0 <= index < ${size}` +
        `${count > 1 ? ` (${count} indices out of bounds)` : ''}; WebGPU checks indices on the device, so this surfaces when a result is read`,
    );
  return { slot: p.u(0), check: { lo: 0, hi: size, error, word } };
}

/**
 * `dst[i] = src[offset + i]` for `n` elements of a contiguous integer tensor, counting values
 * outside `[lo, hi)` in the check's slot: indices a later op uses, checked where no kernel of
 * that op indexes with them (one-hot compares instead). With `sink`, `dst` is the (one-word)
 * buffer of an empty result that no kernel writes: only its first word is written, so that the
 * check's failure spoils that result (indices selecting empty slices).
 */
export function runCheckIndices(
  rt: GpuRuntime,
  src: GPUBuffer,
  offset: number,
  dtype: DType,
  n: number,
  dst: GPUBuffer,
  lo: number,
  hi: number,
  error: (index: number) => Error,
  sink = false,
): void {
  if (n === 0) return;
  const t = ctype(dtype, 'checkIndices');
  const p = new Params();
  const clamp = (v: number) => Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, v));
  const nE = p.u(n),
    off = p.i(offset),
    loW = p.i(clamp(lo)),
    hiW = p.i(clamp(hi));
  const word = p.words.length;
  const slot = p.u(0);
  const k = castExpr(dtype, 'i32', 'v');
  const lines = [
    LINEAR_MAIN,
    `  if (i >= ${nE}) { return; }`,
    `  let v = src[${off} + i32(i)];`,
    `  let k = ${k.expr};`,
    `  if (k < ${loW} || k >= ${hiW}) { flag_index(${slot}, k); }`,
    sink ? '  if (i == 0u) { dst[0] = v; }' : '  dst[i] = v;',
    '}',
  ];
  const code = shader(k.helpers, [
    storageDecls([
      ['dst', t, true],
      ['src', t, false],
    ]),
    checkDecl(2),
    p.decl(3),
    ...lines,
  ]);
  rt.dispatch(code, [dst, src, rt.checkBuffer], p.words, linearGroups(n), {
    lo,
    hi,
    error: (index) => error(index),
    word,
  });
}

/** WGSL clearing `first` off coordinate 0 of a dim the index operand broadcasts (stride `idxStride` 0). */
function firstFlag(idxStride: string): string {
  return `if (${idxStride} == 0 && c != 0) { first = false; }`;
}

/** `dst[m] = src[m with m[dim] = idx[m]]` over idx's shape; `dst` is contiguous. */
export function runGather(
  rt: GpuRuntime,
  src: Operand,
  srcShape: readonly number[],
  dim: number,
  idx: Operand,
  idxShape: readonly number[],
  dst: GPUBuffer,
  op = 'gather',
): void {
  const n = numel(idxShape);
  if (n === 0) return;
  const t = ctype(src.dtype, op);
  const it = ctype(idx.dtype, op);
  const p = new Params();
  const nE = p.u(n),
    size = p.i(srcShape[dim]!),
    dimStride = p.i(src.strides[dim]!),
    sOff = p.i(src.offset),
    iOff = p.i(idx.offset);
  const { check, slot } = indexCheck(p, op, dim, srcShape[dim]!);
  const srcStrides = src.strides.map((s, d) => (d === dim ? 0 : s));
  // An index element read by many threads (a broadcast view: a select's indices spread over the
  // other dims) is flagged by the one at coordinate 0 of those dims, so the count is of indices.
  const dims = indexDims(p, idxShape, [srcStrides, idx.strides]).map((x) => ({
    ...x,
    extra: firstFlag(x.strides[1]!),
  }));
  const lines = [
    LINEAR_MAIN,
    `  if (i >= ${nE}) { return; }`,
    `  var ps: i32 = ${sOff};`,
    `  var pi: i32 = ${iOff};`,
    '  var first = true;',
  ];
  lines.push(...decomposeIndex('i', 'r', ['ps', 'pi'], dims));
  const k = castExpr(idx.dtype, 'i32', 'ix[pi]');
  lines.push(`  let k = ${k.expr};`);
  lines.push(
    `  if (k < 0 || k >= ${size}) { if (first) { flag_index(${slot}, k); } dst[i] = ${t === 'f32' ? '0.0' : t === 'i32' ? '0' : '0u'}; return; }`,
  );
  lines.push(`  dst[i] = src[ps + k * ${dimStride}];`, '}');
  const code = shader(k.helpers, [
    storageDecls([
      ['dst', t, true],
      ['src', t, false],
      ['ix', it, false],
    ]),
    checkDecl(3),
    p.decl(4),
    ...lines,
  ]);
  rt.dispatch(code, [dst, src.buffer, idx.buffer, rt.checkBuffer], p.words, linearGroups(n), check);
}

/**
 * Combines `values[m]` into `dst[m with m[dim] = idx[m]]` over idx's shape, in place on the
 * contiguous `dst` (already holding the input's values). Deterministic and equal to the sequential
 * order: each output element walks the index line that can reach it. When that walk is long, an
 * `add` on f32/i32/u32 uses atomics instead (floats through a compare-and-swap loop on the bits).
 */
export function runScatter(
  rt: GpuRuntime,
  op: ScatterOp,
  dst: GPUBuffer,
  dtype: DType,
  outShape: readonly number[],
  dim: number,
  idx: Operand,
  idxShape: readonly number[],
  values: Operand,
  userOp = 'scatter',
): void {
  const nIdx = numel(idxShape);
  if (nIdx === 0) return;
  const t = ctype(dtype, userOp);
  const atomic =
    op === 'add' &&
    (dtype === 'f32' || dtype === 'i32' || dtype === 'u32') &&
    numel(outShape) * idxShape[dim]! > 1 << 24;
  // An empty output (size 0 along dim) has no thread to walk the index lines: the per-index kernel flags them.
  if (atomic || numel(outShape) === 0)
    return runScatterAtomic(rt, dst, dtype, outShape, dim, idx, idxShape, values, userOp);
  const outStrides = contiguousStrides(outShape);
  const n = numel(outShape);
  const p = new Params();
  const nE = p.u(n),
    line = p.u(idxShape[dim]!),
    iDim = p.i(idx.strides[dim]!),
    vDim = p.i(values.strides[dim]!),
    iOff = p.i(idx.offset),
    vOff = p.i(values.offset);
  const { check, slot } = indexCheck(p, userOp, dim, outShape[dim]!);
  const size = p.i(outShape[dim]!);
  // Each output position walks the index and value lines through it (none past the index's extent).
  const dims = outShape.map((size, d) => {
    const at = { size: p.u(size), lim: p.u(d === dim ? 0xffffffff : idxShape[d]!) };
    const strides = [p.i(d === dim ? 0 : idx.strides[d]!), p.i(d === dim ? 0 : values.strides[d]!)];
    // As in gather, an index element shared through a broadcast view is flagged once.
    const extra = `if (u32(c) >= ${at.lim}) { return; }${d === dim ? ' tgt = c;' : ` ${firstFlag(strides[0]!)}`}`;
    return { size: at.size, strides, extra };
  });
  void outStrides;
  const lines = [
    LINEAR_MAIN,
    `  if (i >= ${nE}) { return; }`,
    `  var pi: i32 = ${iOff};`,
    `  var pv: i32 = ${vOff};`,
    '  var tgt: i32 = 0;',
    '  var first = true;',
  ];
  lines.push(...decomposeIndex('i', 'r', ['pi', 'pv'], dims));
  const k = castExpr(idx.dtype, 'i32', `ix[pi + i32(j) * ${iDim}]`);
  const v = castExpr(values.dtype, dtype, `vals[pv + i32(j) * ${vDim}]`);
  const combine: Record<ScatterOp, string> = {
    assign: 'v',
    add: 'acc + v',
    mul: 'acc * v',
    min: t === 'f32' ? 'select(acc, v, v < acc || is_nan(v))' : 'min(acc, v)',
    max: t === 'f32' ? 'select(acc, v, v > acc || is_nan(v))' : 'max(acc, v)',
  };
  // Every thread walks its index line; the one at position 0 along dim checks it (each index once).
  lines.push('  var acc = dst[i];', '  var hit = false;');
  lines.push(
    `  for (var j = 0u; j < ${line}; j = j + 1u) {`,
    `    let k = ${k.expr};`,
    `    if (k == tgt) { let v = ${v.expr}; acc = ${combine[op]}; hit = true; }`,
  );
  lines.push(`    else if (tgt == 0 && first && (k < 0 || k >= ${size})) { flag_index(${slot}, k); }`, '  }');
  lines.push(`  if (hit) { dst[i] = ${storeExpr(dtype, 'acc')}; }`, '}');
  const helpers = [...k.helpers, ...v.helpers, ...storeHelpers(dtype), ...(t === 'f32' ? ['is_nan'] : [])];
  const code = shader(helpers, [
    storageDecls([
      ['dst', t, true],
      ['ix', ctype(idx.dtype), false],
      ['vals', ctype(values.dtype), false],
    ]),
    checkDecl(3),
    p.decl(4),
    ...lines,
  ]);
  rt.dispatch(code, [dst, idx.buffer, values.buffer, rt.checkBuffer], p.words, linearGroups(n), check);
}

/**
 * Scatter-add with one thread per index (atomics; f32 through a compare-and-swap loop). Also
 * serves an empty output (size 0 along `dim`) for every op: each index is flagged, nothing written.
 */
function runScatterAtomic(
  rt: GpuRuntime,
  dst: GPUBuffer,
  dtype: DType,
  outShape: readonly number[],
  dim: number,
  idx: Operand,
  idxShape: readonly number[],
  values: Operand,
  userOp: string,
): void {
  const t = ctype(dtype);
  const outStrides = contiguousStrides(outShape);
  const n = numel(idxShape);
  const p = new Params();
  const nE = p.u(n),
    size = p.i(outShape[dim]!),
    dimStride = p.i(outStrides[dim]!),
    iOff = p.i(idx.offset),
    vOff = p.i(values.offset);
  const { check, slot } = indexCheck(p, userOp, dim, outShape[dim]!);
  const dstStrides = outStrides.map((s, d) => (d === dim ? 0 : s));
  const dims = indexDims(p, idxShape, [dstStrides, idx.strides, values.strides]).map((x) => ({
    ...x,
    extra: firstFlag(x.strides[1]!),
  }));
  const lines = [
    LINEAR_MAIN,
    `  if (i >= ${nE}) { return; }`,
    '  var po: i32 = 0;',
    `  var pi: i32 = ${iOff};`,
    `  var pv: i32 = ${vOff};`,
    '  var first = true;',
  ];
  lines.push(...decomposeIndex('i', 'r', ['po', 'pi', 'pv'], dims));
  const k = castExpr(idx.dtype, 'i32', 'ix[pi]');
  const v = castExpr(values.dtype, dtype, 'vals[pv]');
  lines.push(
    `  let k = ${k.expr};`,
    `  if (k < 0 || k >= ${size}) { if (first) { flag_index(${slot}, k); } return; }`,
    `  let at = po + k * ${dimStride};`,
    `  let v = ${v.expr};`,
  );
  if (t === 'f32') {
    lines.push(
      '  var old = atomicLoad(&dst[at]);',
      '  loop {',
      '    let r2 = atomicCompareExchangeWeak(&dst[at], old, bitcast<u32>(bitcast<f32>(old) + v));',
      '    if (r2.exchanged) { break; }',
      '    old = r2.old_value;',
      '  }',
    );
  } else {
    lines.push(`  atomicAdd(&dst[at], ${t === 'i32' ? 'bitcast<u32>(v)' : 'v'});`);
  }
  lines.push('}');
  const decl = `@group(0) @binding(0) var<storage, read_write> dst: array<atomic<u32>>;\n@group(0) @binding(1) var<storage, read> ix: array<${ctype(idx.dtype)}>;\n@group(0) @binding(2) var<storage, read> vals: array<${ctype(values.dtype)}>;`;
  const code = shader([...k.helpers, ...v.helpers], [decl, checkDecl(3), p.decl(4), ...lines]);
  rt.dispatch(code, [dst, idx.buffer, values.buffer, rt.checkBuffer], p.words, linearGroups(n), check);
}
