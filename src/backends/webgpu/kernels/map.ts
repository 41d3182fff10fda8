import type { DType } from '../../../core/dtype.js';
import { numel } from '../../../core/shape.js';
import { collapse, isContiguous } from '../../../core/strided.js';
import type { Operand } from '../layout.js';
import type { GpuRuntime } from '../runtime.js';
import type { Expr } from '../wgsl/ops.js';
import { LINEAR_MAIN, linearGroups, Params, shader, storageDecls } from '../wgsl/params.js';
import { decomposeIndex, indexDims } from '../wgsl/index-math.js';
import { castExpr, ctype, storeExpr, storeHelpers, type CType } from '../wgsl/types.js';

/** One input of an elementwise kernel: a strided operand (aligned to the output) read as `name`. */
export interface MapInput {
  readonly operand: Operand;
  /** Variable name in the expression (`x`, `y`, `c`). */
  readonly name: string;
  /** The dtype the expression wants the value in (cast from the operand's dtype when it differs). */
  readonly as: DType;
}

/** A scalar parameter of an elementwise kernel. */
export interface MapScalar {
  readonly name: string;
  readonly value: number;
  readonly type: CType;
}

/**
 * Runs one elementwise kernel: `dst[m] = store(expr(inputs[m]))` over every position `m` of
 * `shape`. Inputs and the output are strided views (broadcast inputs have stride 0); dims that
 * every operand walks together are collapsed first. The shader depends on the collapsed rank,
 * dtypes and expression only.
 */
export function runMap(
  rt: GpuRuntime,
  dst: Operand,
  shape: readonly number[],
  inputs: readonly MapInput[],
  scalars: readonly MapScalar[],
  expr: Expr,
): void {
  const n = numel(shape);
  if (n === 0) return;
  const col = collapse(shape, [dst.strides, ...inputs.map((x) => x.operand.strides)]);
  const outLinear = isContiguous(col.shape, col.strides[0]!);
  const p = new Params();
  const nExpr = p.u(n);
  const outOff = p.i(dst.offset);
  const inOff = inputs.map((x) => p.i(x.operand.offset));
  // A contiguous output is addressed by the thread index itself: only the inputs are walked.
  const walked = outLinear ? col.strides.slice(1) : col.strides;
  const dims = indexDims(p, col.shape, walked);
  const scalarExprs = scalars.map((s) => `let ${s.name} = ${p.of(s.value, s.type)};`);

  const helpers: string[] = [...expr.helpers, ...storeHelpers(dst.dtype)];
  const lines: string[] = [];
  lines.push(`  if (i >= ${nExpr}) { return; }`);
  lines.push(`  var po: i32 = ${outLinear ? `${outOff} + i32(i)` : outOff};`);
  inputs.forEach((_, k) => lines.push(`  var p${k}: i32 = ${inOff[k]};`));
  const offsets = inputs.map((_, k) => `p${k}`);
  lines.push(...decomposeIndex('i', 'r', outLinear ? offsets : ['po', ...offsets], dims));
  inputs.forEach((x, k) => {
    const c = castExpr(x.operand.dtype, x.as, `in${k}[p${k}]`);
    helpers.push(...c.helpers);
    lines.push(`  let ${x.name} = ${c.expr};`);
  });
  lines.push(...scalarExprs.map((s) => `  ${s}`));
  lines.push(`  dst[po] = ${storeExpr(dst.dtype, expr.expr)};`);
  lines.push('}');
  const bindings: [string, CType, boolean][] = [
    ['dst', ctype(dst.dtype), true],
    ...inputs.map((x, k): [string, CType, boolean] => [`in${k}`, ctype(x.operand.dtype), false]),
  ];
  const code = shader(helpers, [
    expr.code ?? '',
    storageDecls(bindings),
    p.decl(bindings.length),
    LINEAR_MAIN,
    ...lines,
  ]);
  rt.dispatch(code, [dst.buffer, ...inputs.map((x) => x.operand.buffer)], p.words, linearGroups(n));
}
