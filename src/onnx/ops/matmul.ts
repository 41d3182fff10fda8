import { BurnError } from '../../core/errors.js';
import { det } from '../../tensor/linalg/det.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Dim } from '../ir/types.js';
import type { AnyTensor, InferContext, OpContext, OpDef, OpFamily } from './types.js';
import { asF, asN, broadcastShape, broadcastTo, castTo, inShape, optTensorAt, sameElem, tensorAt } from './util.js';

const OP = 'onnx';

/** NumPy `matmul`: 1-D operands get a dim added (and removed again), batch dims broadcast. */
export function matmul(ctx: { node: { name: string; opType: string } }, a: AnyTensor, b: AnyTensor): AnyTensor {
  const aVec = a.rank() === 1;
  const bVec = b.rank() === 1;
  let x = aVec ? a.reshape([1, a.dims()[0]!]) : a;
  let y = bVec ? b.reshape([b.dims()[0]!, 1]) : b;
  const xs = x.dims();
  const ys = y.dims();
  if (xs[xs.length - 1] !== ys[ys.length - 2]) {
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (${ctx.node.opType}) multiplies [${a.dims().join(', ')}] by [${b.dims().join(', ')}]; expected matching inner dims`,
    );
  }
  const batch = broadcastShape(ctx, xs.slice(0, -2), ys.slice(0, -2));
  x = broadcastTo(x, [...batch, ...xs.slice(-2)]);
  y = broadcastTo(y, [...batch, ...ys.slice(-2)]);
  let out = asN(x).matmul(asN(y)) as AnyTensor;
  const od = out.dims();
  if (aVec && bVec) out = out.reshape(od.slice(0, -2));
  else if (aVec) out = out.reshape([...od.slice(0, -2), od[od.length - 1]!]);
  else if (bVec) out = out.reshape(od.slice(0, -1));
  return out;
}

function inferMatmul(ctx: InferContext): ReturnType<NonNullable<OpDef['infer']>> {
  const a = inShape(ctx, 0);
  const b = inShape(ctx, 1);
  if (!a || !b || a.length === 0 || b.length === 0) return [sameElem(ctx, 0, undefined)];
  const aa: Dim[] = a.length === 1 ? [1, a[0]] : [...a];
  const bb: Dim[] = b.length === 1 ? [b[0], 1] : [...b];
  const rank = Math.max(aa.length, bb.length);
  const batch: Dim[] = [];
  for (let i = 0; i < rank - 2; i++) {
    // Dims missing on the left broadcast as 1; an unknown dim stays unknown.
    const x = i - rank + aa.length < 0 ? 1 : aa[i - rank + aa.length];
    const y = i - rank + bb.length < 0 ? 1 : bb[i - rank + bb.length];
    batch.push(
      x === 1 ? y : y === 1 ? x : x === y ? x : typeof x === 'number' ? x : typeof y === 'number' ? y : undefined,
    );
  }
  const out: Dim[] = [...batch];
  if (a.length > 1) out.push(aa[aa.length - 2]);
  if (b.length > 1) out.push(bb[bb.length - 1]);
  return [sameElem(ctx, 0, out)];
}

function gemm(ctx: OpContext, a: AnyTensor, b: AnyTensor, c: AnyTensor | undefined): AnyTensor {
  const alpha = ctx.attrs.float('alpha', 1);
  const beta = ctx.attrs.float('beta', 1);
  const x = ctx.attrs.int('transA', 0) ? a.transpose() : a;
  const y = ctx.attrs.int('transB', 0) ? b.transpose() : b;
  let out = asN(asN(x).matmul(asN(y)));
  if (alpha !== 1) out = out.mul(alpha);
  if (c && beta !== 0) out = out.add(asN(broadcastTo(beta === 1 ? c : (asN(c).mul(beta) as AnyTensor), out.dims())));
  return out as AnyTensor;
}

// --- Einsum ---

interface Operand {
  t: AnyTensor;
  labels: string[];
}

/** Parses `ij,jk->ik` (with `...` as one label per broadcast dim) into operand labels and output labels. */
function parseEinsum(
  ctx: OpContext,
  equation: string,
  operands: readonly AnyTensor[],
): { ins: Operand[]; out: string[] } {
  const eq = equation.replace(/\s+/g, '');
  const [lhs, rhs] = eq.split('->') as [string, string | undefined];
  const terms = lhs.split(',');
  if (terms.length !== operands.length)
    throw new BurnError(
      OP,
      `node '${ctx.node.name}' (Einsum) equation '${equation}' has ${terms.length} operands; got ${operands.length} inputs`,
    );
  let ellipsisRank = 0;
  const ins = terms.map((term, i) => {
    const t = operands[i]!;
    const named = term.replace('...', '').length;
    const e = term.includes('...') ? t.rank() - named : 0;
    ellipsisRank = Math.max(ellipsisRank, e);
    const labels: string[] = [];
    for (let j = 0; j < term.length; j++) {
      if (term.startsWith('...', j)) {
        for (let k = 0; k < e; k++) labels.push(`.${ellipsisRank - e + k}`);
        j += 2;
      } else labels.push(term[j]!);
    }
    if (labels.length !== t.rank())
      throw new BurnError(
        OP,
        `node '${ctx.node.name}' (Einsum) term '${term}' names ${labels.length} dims for an input of rank ${t.rank()}`,
      );
    return { t, labels };
  });
  let out: string[];
  const ell = Array.from({ length: ellipsisRank }, (_, k) => `.${k}`);
  if (rhs !== undefined) {
    out = [];
    for (let j = 0; j < rhs.length; j++) {
      if (rhs.startsWith('...', j)) {
        out.push(...ell);
        j += 2;
      } else out.push(rhs[j]!);
    }
  } else {
    // Implicit output: the ellipsis dims, then the labels that appear once, alphabetically.
    const count = new Map<string, number>();
    for (const o of ins) for (const l of o.labels) if (!l.startsWith('.')) count.set(l, (count.get(l) ?? 0) + 1);
    out = [
      ...ell,
      ...[...count]
        .filter(([, c]) => c === 1)
        .map(([l]) => l)
        .sort(),
    ];
  }
  return { ins, out };
}

/** Takes the diagonal of repeated labels in one operand (`ii->i`). */
function diagonalize(o: Operand): Operand {
  let { t, labels } = o;
  for (;;) {
    const dup = labels.findIndex((l, i) => labels.indexOf(l) !== i);
    if (dup < 0) return { t, labels };
    const first = labels.indexOf(labels[dup]!);
    const n = t.dims()[first]!;
    const dims = t.dims();
    const eyeShape = dims.map((d, i) => (i === first || i === dup ? d : 1));
    const eye = castTo(Tensor.eye(n, { device: t.device(), dtype: 'f32' }) as AnyTensor, t.dtype()).reshape(eyeShape);
    t = asN(asN(t).mul(asN(eye)))
      .sumDim(dup)
      .squeezeDim(dup) as AnyTensor;
    labels = labels.filter((_, i) => i !== dup);
  }
}

/** Sums away labels that appear only in this operand and not in `keep`. */
function sumUnused(o: Operand, keep: ReadonlySet<string>): Operand {
  const drop = o.labels.flatMap((l, i) => (keep.has(l) ? [] : [i]));
  if (drop.length === 0) return o;
  const t = asN(o.t)
    .sumDims(drop)
    .reshape(o.t.dims().filter((_, i) => !drop.includes(i))) as AnyTensor;
  return { t, labels: o.labels.filter((_, i) => !drop.includes(i)) };
}

/** Contracts two operands with one batched matmul, keeping the labels in `keep`. */
function contract(a: Operand, b: Operand, keep: ReadonlySet<string>): Operand {
  const size = new Map<string, number>();
  a.labels.forEach((l, i) => size.set(l, a.t.dims()[i]!));
  b.labels.forEach((l, i) => size.set(l, Math.max(size.get(l) ?? 1, b.t.dims()[i]!)));
  const inB = new Set(b.labels);
  const inA = new Set(a.labels);
  const batch = a.labels.filter((l) => inB.has(l) && keep.has(l));
  const summed = a.labels.filter((l) => inB.has(l) && !keep.has(l));
  const left = a.labels.filter((l) => !inB.has(l));
  const right = b.labels.filter((l) => !inA.has(l));
  const arrange = (o: Operand, order: string[]): AnyTensor => {
    const perm = order.map((l) => o.labels.indexOf(l));
    const t = o.t.permute(perm);
    return broadcastTo(
      t,
      order.map((l) => size.get(l)!),
    );
  };
  const prod = (ls: string[]) => ls.reduce((p, l) => p * size.get(l)!, 1);
  const x = arrange(a, [...batch, ...left, ...summed]).reshape([prod(batch), prod(left), prod(summed)]);
  const y = arrange(b, [...batch, ...summed, ...right]).reshape([prod(batch), prod(summed), prod(right)]);
  const out = asN(x)
    .matmul(asN(y))
    .reshape([...batch, ...left, ...right].map((l) => size.get(l)!)) as AnyTensor;
  return { t: out, labels: [...batch, ...left, ...right] };
}

function einsum(ctx: OpContext, operands: readonly AnyTensor[]): AnyTensor {
  const { ins, out } = parseEinsum(ctx, ctx.attrs.string('equation', ''), operands);
  let ops = ins.map(diagonalize);
  const needed = (rest: Operand[]) => new Set([...out, ...rest.flatMap((o) => o.labels)]);
  ops = ops.map((o, i) => sumUnused(o, needed(ops.filter((_, j) => j !== i))));
  let acc = ops[0]!;
  for (let i = 1; i < ops.length; i++) acc = contract(acc, ops[i]!, needed(ops.slice(i + 1)));
  acc = sumUnused(acc, new Set(out));
  // Labels of the output missing from every operand cannot occur; reorder to the output order.
  const perm = out.map((l) => acc.labels.indexOf(l));
  if (perm.some((p) => p < 0))
    throw new BurnError(OP, `node '${ctx.node.name}' (Einsum) output labels ${out.join('')} are not all in the inputs`);
  return perm.length > 1 ? acc.t.permute(perm) : acc.t;
}

/** Matrix products: MatMul, Gemm, Einsum, integer matmul, determinants. */
export const matmulOps: OpFamily = {
  MatMul: {
    run: (ctx, inputs) => [matmul(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1))],
    infer: inferMatmul,
  },
  Gemm: {
    run: (ctx, inputs) => [gemm(ctx, tensorAt(ctx, inputs, 0), tensorAt(ctx, inputs, 1), optTensorAt(ctx, inputs, 2))],
    infer: (ctx) => {
      const a = inShape(ctx, 0);
      const b = inShape(ctx, 1);
      if (!a || !b) return [sameElem(ctx, 0, [undefined, undefined])];
      return [sameElem(ctx, 0, [ctx.attrs.int('transA', 0) ? a[1] : a[0], ctx.attrs.int('transB', 0) ? b[0] : b[1]])];
    },
  },
  Einsum: {
    run: (ctx, inputs) => [
      einsum(
        ctx,
        inputs.map((_, i) => tensorAt(ctx, inputs, i)),
      ),
    ],
  },
  MatMulInteger: {
    run: (ctx, inputs) => {
      const shift = (i: number, zp: number): AnyTensor => {
        const t = castTo(tensorAt(ctx, inputs, i), 'i32');
        const z = optTensorAt(ctx, inputs, zp);
        if (!z) return t;
        const zz = castTo(z, 'i32');
        // A per-row (A) or per-column (B) zero point is a vector along the non-contracted dim.
        const aligned = zz.rank() === 1 && i === 0 && t.rank() >= 2 ? zz.reshape([zz.dims()[0]!, 1]) : zz;
        return asN(t).sub(asN(aligned)) as AnyTensor;
      };
      const a = castTo(shift(0, 2), 'f64');
      const b = castTo(shift(1, 3), 'f64');
      return [castTo(matmul(ctx, a, b), 'i32')];
    },
  },
  Det: {
    run: (ctx, inputs) => {
      const x = asF(tensorAt(ctx, inputs, 0));
      const out = det(x) as AnyTensor;
      return [x.rank() === 2 ? out.reshape([]) : out];
    },
  },
};
