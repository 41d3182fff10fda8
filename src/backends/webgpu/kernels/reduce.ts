import type { ArgOp, ReduceOp, ScanOp } from '../../../backend/ops.js';
import type { DType } from '../../../core/dtype.js';
import { numel } from '../../../core/shape.js';
import type { GPUBuffer } from '../gpu-types.js';
import { splitReduced } from '../../../core/strided.js';
import type { Operand } from '../layout.js';
import type { GpuRuntime } from '../runtime.js';
import { decomposeIndex, indexDims } from '../wgsl/index-math.js';
import { reduceCode } from '../wgsl/ops.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from '../wgsl/params.js';
import { castExpr, ctype, storeExpr, storeHelpers } from '../wgsl/types.js';

/**
 * Reductions, index reductions and scans. Dims split into kept (outer) and reduced (inner)
 * groups, each collapsed. Short reductions run one thread per output; long ones one 256-thread
 * workgroup per output with a tree reduction in workgroup memory.
 */

function splitDims(shape: readonly number[], strides: readonly number[], dims: readonly number[]) {
  const { kept, reduced } = splitReduced(shape, strides, dims);
  return {
    outer: kept.shape.map((s, i) => [s, kept.strides[i]!] as const),
    inner: reduced.shape.map((s, i) => [s, reduced.strides[i]!] as const),
    nOuter: numel(kept.shape),
    nInner: numel(reduced.shape),
  };
}

/** Reduces `src` (shape `shape`) over `dims` into contiguous `dst` (dtype `outDtype`). */
export function runReduce(
  rt: GpuRuntime,
  op: ReduceOp,
  src: Operand,
  shape: readonly number[],
  dims: readonly number[],
  dst: GPUBuffer,
  outDtype: DType,
): void {
  const { outer, inner, nOuter, nInner } = splitDims(shape, src.strides, dims);
  if (nOuter === 0) return;
  const t = ctype(src.dtype, op);
  const acc = reduceCode(op, src.dtype);
  const accType = op === 'any' || op === 'all' ? 'u32' : t;
  const p = new Params();
  const nO = p.u(nOuter),
    nI = p.u(nInner),
    off = p.i(src.offset);
  const od = outer.map(([s, st]) => ({ size: p.u(s), strides: [p.i(st)] }));
  const id = inner.map(([s, st]) => ({ size: p.u(s), strides: [p.i(st)] }));
  const store = castExpr(op === 'any' || op === 'all' ? 'bool' : src.dtype, outDtype, 'acc');
  const helpers = [...acc.helpers, ...store.helpers, ...storeHelpers(outDtype)];
  const first = acc.init === 'FIRST';
  const wide = nInner >= 64;
  const lines: string[] = [];
  if (!wide) {
    lines.push(
      LINEAR_MAIN,
      `  if (i >= ${nO}) { return; }`,
      `  var base: i32 = ${off};`,
      ...decomposeIndex('i', 'base_r', ['base'], od, '  '),
    );
    lines.push(`  var acc: ${accType} = ${first ? 'src[base]' : acc.init};`);
    lines.push(
      `  for (var j = 0u; j < ${nI}; j = j + 1u) {`,
      '    var q: i32 = base;',
      ...decomposeIndex('j', 'q_r', ['q'], id, '    '),
      '    let v = src[q];',
      `    acc = ${acc.step};`,
      '  }',
    );
    lines.push(`  dst[i] = ${storeExpr(outDtype, store.expr)};`, '}');
  } else {
    lines.push(`var<workgroup> sh: array<${accType}, 256>;`);
    lines.push('@compute @workgroup_size(256)');
    lines.push(
      'fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) nwg: vec3<u32>) {',
    );
    lines.push('  let o = wid.x + wid.y * nwg.x;');
    lines.push(
      `  if (o >= ${nO}) { return; }`,
      `  var base: i32 = ${off};`,
      ...decomposeIndex('o', 'base_r', ['base'], od, '  '),
    );
    lines.push(`  var acc: ${accType} = ${first ? 'src[base]' : acc.init};`);
    lines.push(
      `  for (var j = t; j < ${nI}; j = j + 256u) {`,
      '    var q: i32 = base;',
      ...decomposeIndex('j', 'q_r', ['q'], id, '    '),
      '    let v = src[q];',
      `    acc = ${acc.step};`,
      '  }',
    );
    lines.push('  sh[t] = acc;', '  workgroupBarrier();');
    lines.push(
      '  for (var s = 128u; s > 0u; s = s >> 1u) {',
      '    if (t < s) { let a = sh[t]; let b = sh[t + s]; sh[t] = ' + acc.combine + '; }',
      '    workgroupBarrier();',
      '  }',
    );
    lines.push(`  if (t == 0u) { let acc = sh[0]; dst[o] = ${storeExpr(outDtype, store.expr)}; }`, '}');
  }
  const code = shader(helpers, [
    storageDecls([
      ['dst', ctype(outDtype), true],
      ['src', t, false],
    ]),
    p.decl(2),
    ...lines,
  ]);
  // Workgroup-uniform control flow: the early return above is taken by whole workgroups only.
  rt.dispatch(code, [dst, src.buffer], p.words, wide ? grid2(nOuter) : linearGroups(nOuter));
}

/** A 2-d grid of `n` workgroups. */
export function grid2(n: number): [number, number] {
  if (n <= 65535) return [n, 1];
  const y = Math.ceil(n / 65535);
  return [Math.ceil(n / y), y];
}

/** Index of the max/min along `dim` (first occurrence, NaN wins) into contiguous i32 `dst`. */
export function runArgReduce(
  rt: GpuRuntime,
  op: ArgOp,
  src: Operand,
  shape: readonly number[],
  dim: number,
  dst: GPUBuffer,
): void {
  const { outer, nOuter } = splitDims(shape, src.strides, [dim]);
  if (nOuter === 0) return;
  const t = ctype(src.dtype, op);
  const p = new Params();
  const nO = p.u(nOuter),
    size = p.u(shape[dim]!),
    stride = p.i(src.strides[dim]!),
    off = p.i(src.offset);
  const od = outer.map(([s, st]) => ({ size: p.u(s), strides: [p.i(st)] }));
  const better = op === 'argmax' ? 'v > best' : 'v < best';
  const nanTest = t === 'f32' ? 'is_nan(v)' : 'false';
  const lines = [
    LINEAR_MAIN,
    `  if (i >= ${nO}) { return; }`,
    `  var base: i32 = ${off};`,
    ...decomposeIndex('i', 'base_r', ['base'], od, '  '),
    '  var best = src[base];',
    '  var at = 0u;',
    ...(t === 'f32' ? ['  if (is_nan(best)) { dst[i] = 0; return; }'] : []),
    `  for (var j = 1u; j < ${size}; j = j + 1u) {`,
    `    let v = src[base + i32(j) * ${stride}];`,
    `    if (${nanTest}) { at = j; break; }`,
    `    if (${better}) { best = v; at = j; }`,
    '  }',
    '  dst[i] = i32(at);',
    '}',
  ];
  const code = shader(t === 'f32' ? ['is_nan'] : [], [
    storageDecls([
      ['dst', 'i32', true],
      ['src', t, false],
    ]),
    p.decl(2),
    ...lines,
  ]);
  rt.dispatch(code, [dst, src.buffer], p.words, linearGroups(nOuter));
}

/** Inclusive scan along `dim` of `src` into contiguous `dst` of the same shape and dtype. */
export function runScan(
  rt: GpuRuntime,
  op: ScanOp,
  src: Operand,
  shape: readonly number[],
  dim: number,
  dst: GPUBuffer,
): void {
  const keptShape = shape.filter((_, d) => d !== dim);
  const nLines = numel(keptShape);
  const size = shape[dim]!;
  if (nLines === 0 || size === 0) return;
  const t = ctype(src.dtype, op);
  const acc = reduceCode(op, src.dtype);
  const outStrides = shape.map((_, d) => numel(shape.slice(d + 1)));
  const p = new Params();
  const nL = p.u(nLines),
    sz = p.u(size),
    sStride = p.i(src.strides[dim]!),
    oStride = p.i(outStrides[dim]!),
    off = p.i(src.offset);
  const others = (xs: readonly number[]) => xs.filter((_, d) => d !== dim);
  const dims = indexDims(p, keptShape, [others(src.strides), others(outStrides)]);
  const lines = [LINEAR_MAIN, `  if (i >= ${nL}) { return; }`, `  var ps: i32 = ${off};`, '  var po: i32 = 0;'];
  lines.push(...decomposeIndex('i', 'r', ['ps', 'po'], dims));
  const nanCheck = t === 'f32' && (op === 'max' || op === 'min');
  lines.push(`  var acc = src[ps];`, `  dst[po] = ${storeExpr(src.dtype, 'acc')};`);
  lines.push(`  for (var j = 1u; j < ${sz}; j = j + 1u) {`, `    let v = src[ps + i32(j) * ${sStride}];`);
  lines.push(nanCheck ? `    if (!is_nan(acc)) { acc = ${acc.step}; }` : `    acc = ${acc.step};`);
  lines.push(`    dst[po + i32(j) * ${oStride}] = ${storeExpr(src.dtype, 'acc')};`, '  }', '}');
  const code = shader(
    [...acc.helpers, ...storeHelpers(src.dtype), ...(nanCheck ? ['is_nan'] : [])],
    [
      storageDecls([
        ['dst', t, true],
        ['src', t, false],
      ]),
      p.decl(2),
      ...lines,
    ],
  );
  rt.dispatch(code, [dst, src.buffer], p.words, linearGroups(nLines));
}
