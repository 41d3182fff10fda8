import type { AvgPoolOptions, ConvOptions, MaxPoolOptions, UnfoldOptions } from '../../backend/options.js';
import { numel } from '../../core/shape.js';
import {
  convOutputSizes,
  geometry3,
  lift3,
  poolOutputSizes,
  type Geometry3,
  type WindowOptions,
} from '../../core/geometry.js';
import type { BinaryOp } from '../../backend/ops.js';
import type { DType } from '../../core/dtype.js';
import type { Operand } from './layout.js';
import { grid2 } from './kernels/reduce.js';
import type { GpuRuntime } from './runtime.js';
import type { WebGpuTensor } from './tensor.js';
import { decomposeIndex, indexDims } from './wgsl/index-math.js';
import { windowDims } from './wgsl/window.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from './wgsl/params.js';
import { ctype, storeExpr, storeHelpers } from './wgsl/types.js';

/**
 * Module ops with dedicated WGSL kernels: softmax, im2col (behind conv and unfold4d), max and
 * average pooling. Each returns undefined for a case it does not handle (non-float dtypes, more than
 * 3 spatial dims), and the backend then runs the shared default in a memory scope. Spatial ops lift
 * 1-d and 2-d cases to 3-d (size-1 leading dims), as the CPU kernels do.
 */

/** What the module ops need of the backend (kept as an interface, so this file does not import it). */
export interface KernelHost {
  readonly rt: GpuRuntime;
  kernels(): {
    alloc: (shape: readonly number[], dtype: DType, op?: string) => WebGpuTensor;
    operand: (p: WebGpuTensor, shape?: readonly number[]) => Operand;
    contiguous: (p: WebGpuTensor) => WebGpuTensor;
  };
  reshape(p: WebGpuTensor, shape: readonly number[]): WebGpuTensor;
  matmul(a: WebGpuTensor, b: WebGpuTensor): WebGpuTensor;
  binary(op: BinaryOp, a: WebGpuTensor, b: WebGpuTensor): WebGpuTensor;
}

/** Softmax / log-softmax along `dim`: one workgroup per row (tree max and sum), or one thread per short row. */
export function softmax(
  rt: GpuRuntime,
  b: KernelHost,
  p: WebGpuTensor,
  dim: number,
  log: boolean,
): WebGpuTensor | undefined {
  if (ctype(p.dtype) !== 'f32') return undefined;
  const k = b.kernels();
  const len = p.shape[dim]!;
  const rows = len === 0 ? 0 : p.numel / len;
  const out = k.alloc(p.shape, p.dtype, log ? 'logSoftmax' : 'softmax');
  if (rows === 0) return out;
  const outStrides = out.strides;
  const prm = new Params();
  const R = prm.u(rows),
    L = prm.u(len),
    off = prm.i(p.offset),
    sStep = prm.i(p.strides[dim]!),
    oStep = prm.i(outStrides[dim]!);
  const others = (xs: readonly number[]) => xs.filter((_, d) => d !== dim);
  const kept = indexDims(prm, others(p.shape), [others(p.strides), others(outStrides)]);
  const locate = (row: string) => [
    `  var ps: i32 = ${off};`,
    '  var po: i32 = 0;',
    ...decomposeIndex(row, 'r', ['ps', 'po'], kept),
  ];
  const final = log ? 'x - m - f_log(s)' : 'f_exp(x - m) / s';
  const helpers = ['f_exp', 'f_max', ...(log ? ['f_log'] : []), ...storeHelpers(p.dtype)];
  let body: string[];
  let groups: [number, number];
  if (len <= 64) {
    body = [
      LINEAR_MAIN,
      `  if (i >= ${R}) { return; }`,
      ...locate('i'),
      '  var m = src[ps];',
      `  for (var j = 1u; j < ${L}; j = j + 1u) { m = f_max(m, src[ps + i32(j) * ${sStep}]); }`,
      '  var s = 0.0;',
      `  for (var j = 0u; j < ${L}; j = j + 1u) { s = s + f_exp(src[ps + i32(j) * ${sStep}] - m); }`,
      `  for (var j = 0u; j < ${L}; j = j + 1u) { let x = src[ps + i32(j) * ${sStep}]; let v = ${final}; dst[po + i32(j) * ${oStep}] = ${storeExpr(p.dtype, 'v')}; }`,
      '}',
    ];
    groups = linearGroups(rows);
  } else {
    body = [
      'var<workgroup> sh: array<f32, 256>;',
      '@compute @workgroup_size(256)',
      'fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) nwg: vec3<u32>) {',
      '  let row = wid.x + wid.y * nwg.x;',
      `  if (row >= ${R}) { return; }`,
      ...locate('row'),
      '  var m = src[ps];',
      `  for (var j = t; j < ${L}; j = j + 256u) { m = f_max(m, src[ps + i32(j) * ${sStep}]); }`,
      '  sh[t] = m;',
      '  workgroupBarrier();',
      '  for (var w = 128u; w > 0u; w = w >> 1u) { if (t < w) { sh[t] = f_max(sh[t], sh[t + w]); } workgroupBarrier(); }',
      '  let mx = sh[0];',
      '  workgroupBarrier();',
      '  var s = 0.0;',
      `  for (var j = t; j < ${L}; j = j + 256u) { s = s + f_exp(src[ps + i32(j) * ${sStep}] - mx); }`,
      '  sh[t] = s;',
      '  workgroupBarrier();',
      '  for (var w = 128u; w > 0u; w = w >> 1u) { if (t < w) { sh[t] = sh[t] + sh[t + w]; } workgroupBarrier(); }',
      '  let total = sh[0];',
      `  for (var j = t; j < ${L}; j = j + 256u) { let x = src[ps + i32(j) * ${sStep}]; let m = mx; let s = total; let v = ${final}; dst[po + i32(j) * ${oStep}] = ${storeExpr(p.dtype, 'v')}; }`,
      '}',
    ];
    groups = grid2(rows);
  }
  const code = shader(helpers, [
    storageDecls([
      ['dst', 'f32', true],
      ['src', 'f32', false],
    ]),
    prm.decl(2),
    ...body,
  ]);
  rt.dispatch(code, [out.buffer, p.buffer], prm.words, groups);
  return out;
}

/** im2col over lifted 3-d geometry: `[N, C, ...in]` → contiguous `[N, C · kvol, L]`. */
function im2col(b: KernelHost, x: WebGpuTensor, g: Geometry3, outShape: readonly number[]): WebGpuTensor {
  const k = b.kernels();
  const [n, c] = x.shape as [number, number];
  const kvol = numel(g.kernel),
    l = numel(g.out);
  const out = k.alloc(outShape, x.dtype, 'unfold4d');
  const total = n * c * kvol * l;
  if (total === 0) return out;
  const xs = x.strides;
  const spatialStrides = lift3(xs.slice(2), 0);
  const p = new Params();
  const N = p.u(total),
    L = p.u(l),
    KV = p.u(kvol),
    C = p.u(c),
    off = p.i(x.offset),
    sn = p.i(xs[0]!),
    sc = p.i(xs[1]!);
  const dims = windowDims(p, g, spatialStrides, 'u32');
  const t = ctype(x.dtype);
  const zero = t === 'f32' ? '0.0' : t === 'i32' ? '0' : '0u';
  const body = [
    LINEAR_MAIN,
    `  if (i >= ${N}) { return; }`,
    `  let li = i % ${L};`,
    `  let rowAll = i / ${L};`,
    `  let kk = rowAll % ${KV};`,
    `  let nc = rowAll / ${KV};`,
    `  let ch = nc % ${C};`,
    `  let nb = nc / ${C};`,
    `  var pos: i32 = ${off} + i32(nb) * ${sn} + i32(ch) * ${sc};`,
    '  var lr = li;',
    '  var kr = kk;',
    '  var inside = true;',
  ];
  for (let d = 2; d >= 0; d--) {
    const x2 = dims[d]!;
    body.push(
      `  { let o = i32(lr % ${x2.out}); lr = lr / ${x2.out}; let q = i32(kr % ${x2.k}); kr = kr / ${x2.k};`,
      `    let at = o * ${x2.st} - ${x2.pad} + q * ${x2.dil};`,
      `    if (at < 0 || at >= ${x2.in}) { inside = false; } pos = pos + at * ${x2.xs}; }`,
    );
  }
  body.push(`  var v = ${zero};`, '  if (inside) { v = src[pos]; }', '  dst[i] = v;', '}');
  const code = shader(
    [],
    [
      storageDecls([
        ['dst', t, true],
        ['src', t, false],
      ]),
      p.decl(2),
      ...body,
    ],
  );
  b.rt.dispatch(code, [out.buffer, x.buffer], p.words, linearGroups(total));
  return out;
}

function convGeometry(x: WebGpuTensor, kernel: readonly number[], o: WindowOptions): Geometry3 {
  const inSize = x.shape.slice(2);
  return geometry3(inSize, convOutputSizes(inSize, kernel, o), kernel, o);
}

/** N-d convolution (1–3 spatial dims) as im2col + the tiled batched matmul. */
export function conv(
  b: KernelHost,
  x: WebGpuTensor,
  weight: WebGpuTensor,
  bias: WebGpuTensor | undefined,
  o: ConvOptions,
): WebGpuTensor | undefined {
  const spatial = x.shape.length - 2;
  if (spatial < 1 || spatial > 3 || ctype(x.dtype) !== 'f32' || x.dtype !== weight.dtype) return undefined;
  const [n, cIn] = x.shape as [number, number];
  const [cOut, cInG, ...kernel] = weight.shape as [number, number, ...number[]];
  const groups = o.groups;
  const g = convGeometry(x, kernel, o);
  const outSize = g.out.slice(3 - spatial);
  const kvol = numel(kernel),
    l = numel(outSize);
  const cols = im2col(b, x, g, [n, cIn * kvol, l]);
  const colsG = b.reshape(cols, [n, groups, (cIn / groups) * kvol, l]);
  const w = b.reshape(weight, [1, groups, cOut / groups, cInG * kvol]);
  const y = b.reshape(b.matmul(w, colsG), [n, cOut, ...outSize]);
  return bias === undefined ? y : b.binary('add', y, b.reshape(bias, [1, cOut, ...outSize.map(() => 1)]));
}

/** im2col for `unfold4d`: `[N, C, H, W]` → `[N, C · kh · kw, L]`. */
export function unfold(
  b: KernelHost,
  x: WebGpuTensor,
  kernelSize: readonly number[],
  o: UnfoldOptions,
): WebGpuTensor | undefined {
  const spatial = x.shape.length - 2;
  if (spatial < 1 || spatial > 3) return undefined;
  ctype(x.dtype, 'unfold4d');
  const g = convGeometry(x, kernelSize, o);
  const [n, c] = x.shape as [number, number];
  return im2col(b, x, g, [n, c * numel(kernelSize), numel(g.out)]);
}

/** Shared pooling kernel: one thread per output element walks its window. */
function pool(
  b: KernelHost,
  x: WebGpuTensor,
  kernel: readonly number[],
  stride: readonly number[],
  padding: readonly number[],
  dilation: readonly number[],
  ceilMode: boolean,
  mode: 'max' | 'avg',
  withIndices: boolean,
  countIncludePad = true,
): [WebGpuTensor, WebGpuTensor | undefined] | undefined {
  const spatial = x.shape.length - 2;
  if (spatial < 1 || spatial > 3 || ctype(x.dtype) !== 'f32') return undefined;
  const k = b.kernels();
  const inSize = x.shape.slice(2);
  const outSize = poolOutputSizes(inSize, kernel, stride, padding, dilation, ceilMode);
  const [n, c] = x.shape as [number, number];
  const outShape = [n, c, ...outSize];
  const out = k.alloc(outShape, x.dtype, mode === 'max' ? 'maxPool' : 'avgPool');
  const idx = withIndices ? k.alloc(outShape, 'i32', 'maxPool') : undefined;
  const total = numel(outShape);
  if (total === 0) return [out, idx];
  const G = geometry3(inSize, outSize, kernel, { stride, padding, dilation });
  const xs = lift3(x.strides.slice(2), 0);
  const p = new Params();
  const N = p.u(total),
    C = p.u(c),
    off = p.i(x.offset),
    sn = p.i(x.strides[0]!),
    sc = p.i(x.strides[1]!);
  const d3 = windowDims(p, G, xs, 'i32');
  const body = [LINEAR_MAIN, `  if (i >= ${N}) { return; }`, '  var r = i;'];
  for (let d = 2; d >= 0; d--) body.push(`  let o${d} = i32(r % ${d3[d]!.out}); r = r / ${d3[d]!.out};`);
  body.push(`  let ch = r % ${C};`, `  let nb = r / ${C};`, `  let base = ${off} + i32(nb) * ${sn} + i32(ch) * ${sc};`);
  if (mode === 'max') body.push('  var best = 0.0;', '  var at = -1;', '  var found = false;');
  else body.push('  var acc = 0.0;', '  var count = 0;');
  body.push(
    `  for (var k0 = 0; k0 < ${d3[0]!.k}; k0 = k0 + 1) {`,
    `    let a0 = o0 * ${d3[0]!.st} - ${d3[0]!.pad} + k0 * ${d3[0]!.dil};`,
    `    if (a0 < 0 || a0 >= ${d3[0]!.in}) { continue; }`,
  );
  body.push(
    `    for (var k1 = 0; k1 < ${d3[1]!.k}; k1 = k1 + 1) {`,
    `      let a1 = o1 * ${d3[1]!.st} - ${d3[1]!.pad} + k1 * ${d3[1]!.dil};`,
    `      if (a1 < 0 || a1 >= ${d3[1]!.in}) { continue; }`,
  );
  body.push(
    `      for (var k2 = 0; k2 < ${d3[2]!.k}; k2 = k2 + 1) {`,
    `        let a2 = o2 * ${d3[2]!.st} - ${d3[2]!.pad} + k2 * ${d3[2]!.dil};`,
    `        if (a2 < 0 || a2 >= ${d3[2]!.in}) { continue; }`,
  );
  body.push(`        let v = src[base + a0 * ${d3[0]!.xs} + a1 * ${d3[1]!.xs} + a2 * ${d3[2]!.xs}];`);
  if (mode === 'max') {
    body.push(
      `        let flat = (a0 * ${d3[1]!.in} + a1) * ${d3[2]!.in} + a2;`,
      '        if (!found || (!is_nan(best) && (is_nan(v) || v > best))) { best = v; at = flat; found = true; }',
    );
  } else {
    body.push('        acc = acc + v;');
  }
  body.push('      }', '    }', '  }');
  if (mode === 'max') {
    body.push(`  dst[i] = ${storeExpr(x.dtype, 'best')};`);
    if (withIndices) body.push('  ix[i] = at;');
  } else {
    // Divisor: the window clipped to the padded input, or the number of real elements.
    body.push('  var div = 1;');
    for (let d = 0; d < 3; d++) {
      const x2 = d3[d]!;
      body.push(
        `  { let s = o${d} * ${x2.st} - ${x2.pad}; let e = min(s + ${x2.k}, ${x2.in} + ${x2.pad});`,
        countIncludePad ? '    div = div * (e - s); }' : `    div = div * (min(e, ${x2.in}) - max(s, 0)); }`,
      );
    }
    body.push('  let v = acc / f32(div);', `  dst[i] = ${storeExpr(x.dtype, 'v')};`);
  }
  body.push('}');
  const decls: [string, 'f32' | 'i32', boolean][] = [
    ['dst', 'f32', true],
    ...(withIndices ? [['ix', 'i32', true] as [string, 'i32', boolean]] : []),
    ['src', 'f32', false],
  ];
  const code = shader(
    [...storeHelpers(x.dtype), ...(mode === 'max' ? ['is_nan'] : [])],
    [storageDecls(decls), p.decl(decls.length), ...body],
  );
  b.rt.dispatch(code, [out.buffer, ...(idx ? [idx.buffer] : []), x.buffer], p.words, linearGroups(total));
  return [out, idx];
}

/** Max pooling with PyTorch's flat per-channel indices (first maximum, NaN wins). */
export function maxPool(
  b: KernelHost,
  x: WebGpuTensor,
  o: MaxPoolOptions,
  withIndices: boolean,
): [WebGpuTensor, WebGpuTensor] | undefined {
  const r = pool(b, x, o.kernelSize, o.stride, o.padding, o.dilation, o.ceilMode, 'max', withIndices);
  if (!r) return undefined;
  return [r[0], r[1] ?? r[0]];
}

/** Average pooling (PyTorch's divisor rules). */
export function avgPool(b: KernelHost, x: WebGpuTensor, o: AvgPoolOptions): WebGpuTensor | undefined {
  const ones = o.kernelSize.map(() => 1);
  return pool(b, x, o.kernelSize, o.stride, o.padding, ones, o.ceilMode, 'avg', false, o.countIncludePad)?.[0];
}
