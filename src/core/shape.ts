import { BurnError, fmt, fmtValues } from './errors.js';

/** A tensor shape: the size of every dimension. */
export type Shape = readonly number[];

/** Number of elements of a shape (1 for rank 0). */
export function numel(shape: Shape): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i]!;
  return n;
}

/** Row-major (C-order) strides of a shape. */
export function contiguousStrides(shape: Shape): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}

/** True when two shapes are equal. */
export function sameShape(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The most elements one tensor may have: 2^32 − 1, the longest typed array JavaScript engines
 * allocate (and the 32-bit index range of the WebAssembly and GPU kernels). Past it no backend can
 * hold the tensor, so creation ops and ops whose output can grow (repeat, expand, cat, pad, matmul,
 * broadcasting, …) refuse it up front with a BurnError instead of a raw RangeError deep inside.
 */
export const MAX_ELEMENTS = 2 ** 32 - 1;

const LIMIT_TEXT = `expected at most ${MAX_ELEMENTS} (2^32 - 1) elements per tensor`;

/**
 * Checks a shape given by a user: an array of non-negative integer sizes, none and no element
 * count past {@link MAX_ELEMENTS}. `what` names the shape in the message (`shape`, `repeat sizes`).
 * O(rank).
 */
export function checkShape(shape: Shape, op: string, what = 'shape'): void {
  if (!Array.isArray(shape))
    throw new BurnError(op, `${what} must be an array of sizes, got ${fmtValues([shape]).slice(1, -1)}`);
  for (const s of shape) {
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 0)
      throw new BurnError(op, `invalid ${what} ${fmtValues(shape)}; expected non-negative integer sizes`);
  }
  checkNumel(shape, op, what);
}

/**
 * Checks that a shape of valid sizes (an op's output, a checked input) stays within
 * {@link MAX_ELEMENTS}: no size past it, even in an empty shape, and no element count. O(rank).
 */
export function checkNumel(shape: Shape, op: string, what = 'output shape'): void {
  let n = 1,
    largest = 0;
  for (let i = 0; i < shape.length; i++) {
    n *= shape[i]!;
    if (shape[i]! > largest) largest = shape[i]!;
  }
  if (n > MAX_ELEMENTS) throw new BurnError(op, `${what} ${fmt(shape)} has ${n} elements; ${LIMIT_TEXT}`);
  if (largest > MAX_ELEMENTS) {
    const i = shape.indexOf(largest);
    throw new BurnError(op, `${what} ${fmt(shape)}: size ${largest} in dim ${i} is too large; ${LIMIT_TEXT}`);
  }
}

/** Resolves a possibly negative dim against `rank`; throws a BurnError when out of range. */
export function normDim(dim: number, rank: number, op: string): number {
  if (!Number.isInteger(dim) || dim < -rank || dim >= rank) {
    throw new BurnError(
      op,
      `dim ${dim} is out of range for a tensor of rank ${rank}; expected ${rank === 0 ? 'no dims' : `-${rank} <= dim < ${rank}`}`,
    );
  }
  return dim < 0 ? dim + rank : dim;
}

/** Resolves a list of dims; rejects duplicates. */
export function normDims(dims: readonly number[], rank: number, op: string): number[] {
  const out = dims.map((d) => normDim(d, rank, op));
  if (new Set(out).size !== out.length) throw new BurnError(op, `dims ${fmt(dims)} repeat a dimension`);
  return out;
}

/** Broadcast shape of two shapes (NumPy rules, aligned on the right). */
export function broadcastShapes(a: Shape, b: Shape, op: string): number[] {
  const rank = Math.max(a.length, b.length);
  const out = new Array<number>(rank);
  for (let i = 0; i < rank; i++) {
    const da = i < rank - a.length ? 1 : a[i - (rank - a.length)]!;
    const db = i < rank - b.length ? 1 : b[i - (rank - b.length)]!;
    if (da === db || db === 1) out[i] = da;
    else if (da === 1) out[i] = db;
    else
      throw new BurnError(
        op,
        `shapes ${fmt(a)} and ${fmt(b)} cannot be broadcast together (dim ${i}: ${da} vs ${db}); expected equal sizes or 1`,
      );
  }
  return out;
}

/** Checks that `from` broadcasts to exactly `to` (used by expand). */
export function checkBroadcastTo(from: Shape, to: Shape, op: string): void {
  if (to.length < from.length) throw new BurnError(op, `cannot expand shape ${fmt(from)} to ${fmt(to)}: fewer dims`);
  const off = to.length - from.length;
  for (let i = 0; i < from.length; i++) {
    if (from[i] !== to[i + off] && from[i] !== 1) {
      throw new BurnError(
        op,
        `cannot expand shape ${fmt(from)} to ${fmt(to)}: dim ${i} has size ${from[i]}; expected 1 or ${to[i + off]}`,
      );
    }
  }
}

/**
 * Resolves a reshape target: `-1` is inferred from the element count, `0` keeps the input's size
 * at that position (as in Burn and ONNX) — except for an empty input, where `0` is a zero size.
 */
export function resolveReshape(from: Shape, to: readonly number[], op = 'reshape'): number[] {
  const empty = numel(from) === 0;
  const out = to.map((s, i) => {
    if (s === 0 && !empty) {
      if (i >= from.length)
        throw new BurnError(
          op,
          `0 at position ${i} keeps an input size, but the input ${fmt(from)} has only ${from.length} dims`,
        );
      return from[i]!;
    }
    return s;
  });
  const unknown = out.indexOf(-1);
  if (unknown !== out.lastIndexOf(-1)) throw new BurnError(op, `shape ${fmt(to)} has more than one -1`);
  for (const s of out) {
    if (!Number.isInteger(s) || s < -1) throw new BurnError(op, `invalid size ${s} in shape ${fmt(to)}`);
  }
  // Only an empty target can name a size past the limit (its element count is the input's).
  if (empty)
    checkNumel(
      out.map((s) => Math.max(s, 0)),
      op,
      'shape',
    );
  const total = numel(from);
  if (unknown >= 0) {
    const known = out.reduce((acc, s, i) => (i === unknown ? acc : acc * s), 1);
    if (known === 0 || total % known !== 0)
      throw new BurnError(op, `cannot infer -1 in ${fmt(to)} for ${total} elements of shape ${fmt(from)}`);
    out[unknown] = total / known;
  }
  if (numel(out) !== total) {
    throw new BurnError(op, `cannot reshape ${fmt(from)} (${total} elements) to ${fmt(to)} (${numel(out)} elements)`);
  }
  return out;
}
