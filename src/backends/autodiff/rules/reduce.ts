import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import type { ReduceOp, ScanOp } from '../../../backend/ops.js';
import type { Saved } from '../graph.js';
import { div, mul } from './shared.js';

/** Backward rules of reductions and scans. */

type P = TensorPrimitive;

/** Moves `dims` to the end and flattens them into one: `[...kept, reducedVolume]`. */
function flattenReduced(
  b: Backend,
  x: P,
  dims: readonly number[],
): { flat: P; axes: number[]; permutedShape: number[] } {
  const kept = x.shape.map((_, d) => d).filter((d) => !dims.includes(d));
  const axes = [...kept, ...dims];
  const permuted = b.permute(x, axes);
  const permutedShape = axes.map((a) => x.shape[a]!);
  const volume = dims.reduce((acc, d) => acc * x.shape[d]!, 1);
  return { flat: b.reshape(permuted, [...kept.map((d) => x.shape[d]!), volume]), axes, permutedShape };
}

/** Inverse of {@link flattenReduced}. */
function unflattenReduced(b: Backend, flat: P, axes: readonly number[], permutedShape: readonly number[]): P {
  const inverse = new Array<number>(axes.length);
  axes.forEach((a, i) => (inverse[a] = i));
  return b.permute(b.reshape(flat, permutedShape), inverse);
}

/** Product of every other element of each line (exact with zeros): exclusive prefix × exclusive suffix products. */
function productOfOthers(b: Backend, flat: P): P {
  const last = flat.shape.length - 1;
  const n = flat.shape[last]!;
  const ones = b.fill([...flat.shape.slice(0, -1), 1], 1, flat.dtype);
  const line = (p: P, start: number, size: number, step = 1) =>
    b.slice(
      p,
      p.shape.map((s, d) => (d === last ? { start, size, step } : { start: 0, size: s, step: 1 })),
    );
  if (n === 1) return ones;
  const prefix = b.cat([ones, line(b.scan('prod', flat, last), 0, n - 1)], last);
  const reversed = line(flat, n - 1, n, -1);
  const suffixRev = b.cat([ones, line(b.scan('prod', reversed, last), 0, n - 1)], last);
  return mul(b, prefix, line(suffixRev, n - 1, n, -1));
}

/**
 * Gradient of `reduce(op, x, dims)` from the saved input `x` and output `out` (the reduced dims
 * kept with size 1); a sum reads only the shape of `x`.
 */
export function reduceGrad(
  b: Backend,
  op: ReduceOp,
  g: P,
  { x, out }: Saved<'x' | 'out'>,
  dims: readonly number[],
): P | undefined {
  switch (op) {
    case 'sum':
      return b.expand(g, x.shape);
    case 'prod': {
      const { flat, axes, permutedShape } = flattenReduced(b, x, dims);
      const others = unflattenReduced(b, productOfOthers(b, flat), axes, permutedShape);
      return mul(b, b.expand(g, x.shape), others);
    }
    case 'max':
    case 'min': {
      // The gradient is shared by all positions equal to the extreme (PyTorch's amax/amin).
      const hit = b.cast(b.compare('eq', x, b.expand(out, x.shape)), x.dtype);
      const count = b.reduce('sum', hit, dims);
      return mul(b, hit, b.expand(div(b, g, count), x.shape));
    }
    case 'any':
    case 'all':
      return undefined;
    default:
      return op satisfies never; // a new ReduceOp needs its rule here, not a silent undefined
  }
}

/** Gradient of an inclusive scan along `dim` from the saved input `x` and output `out`; a sum reads only the shape of `x`. */
export function scanGrad(b: Backend, op: ScanOp, g: P, { x, out }: Saved<'x' | 'out'>, dim: number): P {
  const n = x.shape[dim]!;
  const flip = (p: P) =>
    b.slice(
      p,
      p.shape.map((s, d) => (d === dim ? { start: s - 1, size: s, step: -1 } : { start: 0, size: s, step: 1 })),
    );
  switch (op) {
    case 'sum':
      return flip(b.scan('sum', flip(g), dim));
    case 'prod': {
      // d out_j / d x_i = prod_{k <= j, k != i} x_k for j >= i. Build, per line, the n×n matrix of
      // cumulative products with x_i replaced by 1 (exact with zeros), mask j >= i, contract with g.
      const last = x.shape.length;
      const xm = b.permute(x, moveToEnd(x.shape.length, dim));
      const gm = b.permute(g, moveToEnd(x.shape.length, dim));
      const lead = xm.shape.slice(0, -1);
      const rows = b.expand(b.reshape(xm, [...lead, 1, n]), [...lead, n, n]);
      const eye = eyeMask(b, n, x.dtype);
      const withOne = b.where(b.expand(eye.diag, [...lead, n, n]), b.fill([], 1, x.dtype), rows);
      const cum = b.scan('prod', withOne, last);
      const masked = b.where(b.expand(eye.upper, [...lead, n, n]), cum, b.fill([], 0, x.dtype));
      const gi = b.reduce('sum', mul(b, masked, b.reshape(gm, [...lead, 1, n])), [last]);
      return b.permute(b.reshape(gi, [...lead, n]), inverseOf(moveToEnd(x.shape.length, dim)));
    }
    case 'max':
    case 'min': {
      // Each output position came from the latest input position equal to it at or before it.
      const hit = b.compare('eq', x, out);
      const positions = b.reshape(
        b.arange(0, n, 1, 'i32'),
        x.shape.map((_, d) => (d === dim ? n : 1)),
      );
      const candidate = b.where(hit, b.expand(positions, x.shape), b.fill([], 0, 'i32'));
      const source = b.scan('max', candidate, dim);
      return b.scatter('add', b.fill(x.shape, 0, x.dtype), dim, source, g);
    }
  }
}

function moveToEnd(rank: number, dim: number): number[] {
  return [...Array.from({ length: rank }, (_, i) => i).filter((i) => i !== dim), dim];
}

function inverseOf(axes: readonly number[]): number[] {
  const inv = new Array<number>(axes.length);
  axes.forEach((a, i) => (inv[a] = i));
  return inv;
}

/** Bool masks of shape [n, n]: the diagonal (i == j) and the upper triangle (j >= i). */
function eyeMask(b: Backend, n: number, dtype: P['dtype']): { diag: P; upper: P } {
  void dtype;
  const i = b.reshape(b.arange(0, n, 1, 'i32'), [n, 1]);
  const j = b.reshape(b.arange(0, n, 1, 'i32'), [1, n]);
  return {
    diag: b.compare('eq', b.expand(i, [n, n]), b.expand(j, [n, n])),
    upper: b.compare('ge', b.expand(j, [n, n]), b.expand(i, [n, n])),
  };
}
