import type { SliceSpecs } from '../../backend/backend.js';
import type { ReduceOp } from '../../backend/ops.js';
import { isIntDType, type DType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { broadcastShapes, checkBroadcastTo, numel, sameShape } from '../../core/shape.js';

/**
 * The shape and dtype rule of every op the remote backend sends. The client computes each
 * output's shape and dtype with these (so ops stay synchronous); the server runs the same rules
 * to validate a message before its backend sees it (a backend assumes what the tensor API checked)
 * and checks its backend's result against them.
 */

/** What a rule knows of a tensor. */
export interface Meta {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

const meta = (shape: readonly number[], dtype: DType): Meta => ({ shape: [...shape], dtype });

function checkDim(op: string, dim: number, rank: number): void {
  if (!(Number.isInteger(dim) && dim >= 0 && dim < rank)) {
    throw new BurnError(op, `dim ${dim} is out of range for a tensor of rank ${rank}; expected 0 <= dim < ${rank}`);
  }
}

function checkIndices(op: string, indices: Meta): void {
  if (!isIntDType(indices.dtype))
    throw new BurnError(op, `indices of dtype ${indices.dtype}; expected an integer dtype`);
}

function checkMask(op: string, mask: Meta): void {
  if (mask.dtype !== 'bool') throw new BurnError(op, `mask of dtype ${mask.dtype}; expected bool`);
}

/** `fill`: a tensor of `shape`. */
export function fill(shape: readonly number[], dtype: DType): Meta {
  return meta(shape, dtype);
}

/** `reshape`: the element count is kept. */
export function reshape(p: Meta, shape: readonly number[]): Meta {
  if (numel(shape) !== numel(p.shape)) {
    throw new BurnError(
      'reshape',
      `cannot reshape ${fmt(p.shape)} (${numel(p.shape)} elements) to ${fmt(shape)} (${numel(shape)} elements)`,
    );
  }
  return meta(shape, p.dtype);
}

/** `permute`: `axes` is a permutation of the dims. */
export function permute(p: Meta, axes: readonly number[]): Meta {
  const rank = p.shape.length;
  if (
    axes.length !== rank ||
    new Set(axes).size !== rank ||
    axes.some((a) => !(Number.isInteger(a) && a >= 0 && a < rank))
  ) {
    throw new BurnError(
      'permute',
      `axes ${fmt(axes)} for a tensor of rank ${rank}; expected a permutation of 0..${rank - 1}`,
    );
  }
  return meta(
    axes.map((a) => p.shape[a]!),
    p.dtype,
  );
}

/** `expand`: size-1 or missing leading dims broadcast to `shape`. */
export function expand(p: Meta, shape: readonly number[]): Meta {
  checkBroadcastTo(p.shape, shape, 'expand');
  return meta(shape, p.dtype);
}

/** `slice`: one in-range spec per dim. */
export function slice(p: Meta, specs: SliceSpecs, op = 'slice'): Meta {
  const rank = p.shape.length;
  if (specs.length !== rank)
    throw new BurnError(op, `${specs.length} slice specs for a tensor of rank ${rank}; expected ${rank}`);
  return meta(
    specs.map((s, d) => {
      const n = p.shape[d]!;
      const ok =
        Number.isInteger(s.start) &&
        Number.isInteger(s.size) &&
        Number.isInteger(s.step) &&
        s.step !== 0 &&
        s.size >= 0 &&
        (s.size === 0 ||
          (s.start >= 0 && s.start < n && s.start + (s.size - 1) * s.step >= 0 && s.start + (s.size - 1) * s.step < n));
      if (!ok)
        throw new BurnError(
          op,
          `slice {start: ${s.start}, size: ${s.size}, step: ${s.step}} of dim ${d} of size ${n}; expected every index in 0..${n - 1} and a non-zero step`,
        );
      return s.size;
    }),
    p.dtype,
  );
}

/** `sliceAssign`: `values` has the region's shape. */
export function sliceAssign(p: Meta, specs: SliceSpecs, values: Meta): Meta {
  const region = slice(p, specs, 'sliceAssign');
  if (!sameShape(region.shape, values.shape)) {
    throw new BurnError(
      'sliceAssign',
      `values of shape ${fmt(values.shape)} for a region of shape ${fmt(region.shape)}; expected equal shapes`,
    );
  }
  return meta(p.shape, p.dtype);
}

/** `cat`: same rank, dtype and sizes except along `dim`. */
export function cat(ps: readonly Meta[], dim: number): Meta {
  const first = ps[0];
  if (!first) throw new BurnError('cat', 'no tensors; expected at least one');
  checkDim('cat', dim, first.shape.length);
  let size = 0;
  for (const p of ps) {
    const ok =
      p.dtype === first.dtype &&
      p.shape.length === first.shape.length &&
      p.shape.every((s, d) => d === dim || s === first.shape[d]);
    if (!ok)
      throw new BurnError(
        'cat',
        `tensors ${fmt(first.shape)} (${first.dtype}) and ${fmt(p.shape)} (${p.dtype}) along dim ${dim}; expected one dtype and equal sizes except along dim ${dim}`,
      );
    size += p.shape[dim]!;
  }
  return meta(
    first.shape.map((s, d) => (d === dim ? size : s)),
    first.dtype,
  );
}

/** `unary`: same shape and dtype. */
export function unary(p: Meta): Meta {
  return meta(p.shape, p.dtype);
}

/** `predicate`: a bool tensor of the same shape. */
export function predicate(p: Meta): Meta {
  return meta(p.shape, 'bool');
}

/** `binary` (and `binaryScalar` with `b` undefined): the broadcast shape, `a`'s dtype. */
export function binary(op: string, a: Meta, b?: Meta): Meta {
  return meta(b ? broadcastShapes(a.shape, b.shape, op) : a.shape, a.dtype);
}

/** `compare` (and `compareScalar` with `b` undefined): the broadcast shape, bool. */
export function compare(op: string, a: Meta, b?: Meta): Meta {
  return meta(b ? broadcastShapes(a.shape, b.shape, op) : a.shape, 'bool');
}

/** `where`: a bool condition; all three broadcast; `a`'s dtype. */
export function where(cond: Meta, a: Meta, b: Meta): Meta {
  checkMask('where', cond);
  return meta(broadcastShapes(broadcastShapes(cond.shape, a.shape, 'where'), b.shape, 'where'), a.dtype);
}

/** `cast`: the new dtype. */
export function cast(p: Meta, dtype: DType): Meta {
  return meta(p.shape, dtype);
}

/** `reduce`: distinct in-range dims kept with size 1; `any`/`all` give bool. */
export function reduce(op: ReduceOp, p: Meta, dims: readonly number[]): Meta {
  const rank = p.shape.length;
  for (const d of dims) checkDim(op, d, rank);
  if (new Set(dims).size !== dims.length) throw new BurnError(op, `dims ${fmt(dims)} repeat a dimension`);
  return meta(
    p.shape.map((s, d) => (dims.includes(d) ? 1 : s)),
    op === 'any' || op === 'all' ? 'bool' : p.dtype,
  );
}

/** `argReduce`: `dim` kept with size 1, i32. */
export function argReduce(op: string, p: Meta, dim: number): Meta {
  checkDim(op, dim, p.shape.length);
  return meta(
    p.shape.map((s, d) => (d === dim ? 1 : s)),
    'i32',
  );
}

/** `scan`, `softmax`, `logSoftmax`: an in-range dim, same shape and dtype. */
export function alongDim(op: string, p: Meta, dim: number): Meta {
  checkDim(op, dim, p.shape.length);
  return meta(p.shape, p.dtype);
}

/** `gather`: integer indices of `p`'s rank, not larger than `p` except along `dim`; indices' shape. */
export function gather(p: Meta, dim: number, indices: Meta): Meta {
  checkDim('gather', dim, p.shape.length);
  checkIndices('gather', indices);
  const ok = indices.shape.length === p.shape.length && indices.shape.every((s, d) => d === dim || s <= p.shape[d]!);
  if (!ok)
    throw new BurnError(
      'gather',
      `indices of shape ${fmt(indices.shape)} for a tensor of shape ${fmt(p.shape)} along dim ${dim}; expected the same rank and sizes <= the tensor's except along dim ${dim}`,
    );
  return meta(indices.shape, p.dtype);
}

/** `scatter`: indices fit `values` and `p` (except along `dim`); `p`'s shape. */
export function scatter(p: Meta, dim: number, indices: Meta, values: Meta): Meta {
  checkDim('scatter', dim, p.shape.length);
  checkIndices('scatter', indices);
  const rank = p.shape.length;
  const ok =
    indices.shape.length === rank &&
    values.shape.length === rank &&
    indices.shape.every((s, d) => s <= values.shape[d]! && (d === dim || s <= p.shape[d]!));
  if (!ok)
    throw new BurnError(
      'scatter',
      `indices ${fmt(indices.shape)} and values ${fmt(values.shape)} for a tensor of shape ${fmt(p.shape)} along dim ${dim}; expected one rank, indices within values, and within the tensor except along dim ${dim}`,
    );
  return meta(p.shape, p.dtype);
}

/** `checkIndices`: numeric indices (a float tensor's `oneHot` checks float class values); same shape and dtype. */
export function checkedIndices(indices: Meta): Meta {
  if (indices.dtype === 'bool') throw new BurnError('checkIndices', 'indices of dtype bool; expected a numeric dtype');
  return meta(indices.shape, indices.dtype);
}

/** `select`: 1-d integer indices; `dim` takes their length. */
export function select(p: Meta, dim: number, indices: Meta): Meta {
  checkDim('select', dim, p.shape.length);
  checkIndices('select', indices);
  if (indices.shape.length !== 1) throw new BurnError('select', `indices of shape ${fmt(indices.shape)}; expected 1-d`);
  return meta(
    p.shape.map((s, d) => (d === dim ? indices.shape[0]! : s)),
    p.dtype,
  );
}

/** `selectAssign`: 1-d integer indices and values of `select`'s shape; `p`'s shape. */
export function selectAssign(p: Meta, dim: number, indices: Meta, values: Meta): Meta {
  const region = select(p, dim, indices);
  if (!sameShape(region.shape, values.shape)) {
    throw new BurnError('selectAssign', `values of shape ${fmt(values.shape)}; expected ${fmt(region.shape)}`);
  }
  return meta(p.shape, p.dtype);
}

/** `matmul`: same rank >= 2, matching inner dims, broadcast batch dims; `a`'s dtype. */
export function matmul(a: Meta, b: Meta): Meta {
  const rank = a.shape.length;
  if (rank < 2 || b.shape.length !== rank) {
    throw new BurnError(
      'matmul',
      `operands of shapes ${fmt(a.shape)} and ${fmt(b.shape)}; expected the same rank >= 2`,
    );
  }
  if (a.shape[rank - 1] !== b.shape[rank - 2]) {
    throw new BurnError(
      'matmul',
      `inner dimensions differ: lhs ${fmt(a.shape)} and rhs ${fmt(b.shape)}; expected lhs[-1] == rhs[-2]`,
    );
  }
  const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2), 'matmul');
  return meta([...batch, a.shape[rank - 2]!, b.shape[rank - 1]!], a.dtype);
}

/** `sort`: values of `p`'s shape and dtype, and their i32 indices. */
export function sort(p: Meta, dim: number): [Meta, Meta] {
  checkDim('sort', dim, p.shape.length);
  return [meta(p.shape, p.dtype), meta(p.shape, 'i32')];
}

/** `maskFill`: a bool mask broadcast with `p`; `p`'s dtype. */
export function maskFill(p: Meta, mask: Meta): Meta {
  checkMask('maskFill', mask);
  return meta(broadcastShapes(mask.shape, p.shape, 'maskFill'), p.dtype);
}

/** `arange`: `ceil((end - start) / step)` elements (at least 0), for finite bounds and a non-zero step. */
export function arange(start: number, end: number, step: number, dtype: DType): Meta {
  if (!(Number.isFinite(start) && Number.isFinite(end) && Number.isFinite(step) && step !== 0)) {
    throw new BurnError(
      'arange',
      `start ${start}, end ${end}, step ${step}; expected finite values and a non-zero step`,
    );
  }
  return meta([Math.max(0, Math.ceil((end - start) / step))], dtype);
}
