import type { SliceSpec } from '../../backend/backend.js';
import type { ScatterOp } from '../../backend/ops.js';
import { checkIntLiteral, isIntDType } from '../../core/dtype.js';
import { BurnError, enterUserOp, fmt, leaveUserOp, renameError } from '../../core/errors.js';
import type { Bool, Dec, Float, Int, Kind } from '../kind.js';
import { broadcastShapes, checkNumel, contiguousStrides, normDim, numel, sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { dataOf, TensorBase } from './base.js';

/**
 * One dim of a slice: an index `i` (keeps the dim with size 1), `[start, end]` (end exclusive),
 * `[start, end, step]`, `{ start, end, step }`, or `null`/`undefined` for the whole dim. Negative
 * indices count from the end; `null` bounds mean "from the start" / "to the end". As in Burn, range
 * bounds past either end are clamped to it (`[0, 4]` of a size-3 dim is the whole dim, `[5, 9]` is
 * empty), while a single index must exist. A negative step walks the range backwards (`[0, 5, -1]`
 * selects 4, 3, 2, 1, 0), as in Burn.
 */
export type SliceArg =
  | number
  | null
  | undefined
  | readonly [start?: number | null, end?: number | null, step?: number]
  | { readonly start?: number | null; readonly end?: number | null; readonly step?: number };

/** Padding mode of `pad`: a constant fill value, `'reflect'` or `'edge'` (Burn's `PadMode`). */
export type PadMode = number | 'reflect' | 'edge';

/** The update applied by scatter-like ops (Burn's `IndexingUpdateOp`). */
export type IndexingUpdateOp = ScatterOp;

/** Resolves user slices into per-dim specs for `shape`; throws a BurnError on bad ranges. */
export function sliceSpecs(shape: readonly number[], args: readonly SliceArg[], op: string): SliceSpec[] {
  if (args.length > shape.length)
    throw new BurnError(
      op,
      `${args.length} slices for a tensor of rank ${shape.length}; expected at most ${shape.length}`,
    );
  return shape.map((n, d) => {
    const arg = args[d];
    let start: number | null | undefined,
      end: number | null | undefined,
      step = 1;
    if (arg === null || arg === undefined) {
      start = 0;
      end = n;
    } else if (typeof arg === 'number') {
      const i = arg < 0 ? arg + n : arg;
      if (!Number.isInteger(arg) || i < 0 || i >= n)
        throw new BurnError(op, `index ${arg} is out of bounds for dim ${d} of size ${n}`);
      return { start: i, size: 1, step: 1 };
    } else if (Array.isArray(arg)) {
      [start, end] = arg as [number | null | undefined, number | null | undefined];
      step = (arg as readonly unknown[])[2] === undefined ? 1 : ((arg as readonly number[])[2] as number);
    } else {
      const o = arg as { start?: number | null; end?: number | null; step?: number };
      start = o.start;
      end = o.end;
      step = o.step ?? 1;
    }
    const s = clampBound(start ?? 0, n, d, op, 'start');
    const e = clampBound(end ?? n, n, d, op, 'end');
    if (!Number.isInteger(step) || step === 0)
      throw new BurnError(op, `step ${step} for dim ${d}; expected a non-zero integer`);
    const size = e > s ? Math.ceil((e - s) / Math.abs(step)) : 0;
    if (size === 0) return { start: 0, size: 0, step: 1 };
    return step > 0 ? { start: s, size, step } : { start: e - 1, size, step };
  });
}

/** A range bound in `[0, n]`: negative bounds count from the end, and both ends clamp (Burn's `convert_signed_index`). */
function clampBound(v: number, n: number, dim: number, op: string, which: string): number {
  if (!Number.isInteger(v)) throw new BurnError(op, `range ${which} ${v} for dim ${dim}; expected an integer`);
  return v < 0 ? Math.max(v + n, 0) : Math.min(v, n);
}

/** Indexing, slicing and masking ops (Burn's `api/base.rs` indexing part). */
export class TensorIndexing<D extends number = number, K extends Kind = Float> extends TensorBase<D, K> {
  /** @internal Checks that `t` lives on this tensor's device. */
  sameDevice(t: TensorBase<number, Kind>, op: string): void {
    if (!t.dev.equals(this.dev))
      throw new BurnError(
        op,
        `tensors are on different devices (${this.dev} and ${t.dev}); ${this.dev.inner().equals(t.dev.inner()) ? 'one is the autodiff (training) device over the other: run inference with model.valid() (TrainingResult.inferenceModel), or move a tensor with toDevice()' : 'move one with toDevice()'}`,
      );
  }

  /** @internal Checks an index tensor. */
  checkIndices(t: TensorBase<number, Kind>, op: string, rank?: number): void {
    this.sameDevice(t, op);
    if (!isIntDType(t.primitive.dtype))
      throw new BurnError(op, `indices must be an Int tensor, got ${t.primitive.dtype}`);
    if (rank !== undefined && t.primitive.shape.length !== rank) {
      throw new BurnError(
        op,
        `indices of shape ${fmt(t.primitive.shape)} have rank ${t.primitive.shape.length}; expected rank ${rank}`,
      );
    }
  }

  /** Slices every dim (see {@link SliceArg}); missing trailing dims are kept whole. */
  slice(ranges: readonly SliceArg[]): Tensor<D, K> {
    return this.wrap(this.backend.slice(this.primitive, sliceSpecs(this.primitive.shape, ranges, 'slice')));
  }

  /** Slices one dim. */
  sliceDim(dim: number, range: SliceArg): Tensor<D, K> {
    const d = normDim(dim, this.primitive.shape.length, 'sliceDim');
    const args: SliceArg[] = this.primitive.shape.map((_, i) => (i === d ? range : null));
    return this.wrap(this.backend.slice(this.primitive, sliceSpecs(this.primitive.shape, args, 'sliceDim')));
  }

  /** Index `index` of `dim`, with that dim removed (Burn's `select_dim`; negative values count from the end). */
  selectDim(dim: number, index: number): Tensor<Dec<D>, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'selectDim');
    const args: SliceArg[] = shape.map((_, i) => (i === d ? index : null));
    const b = this.backend;
    return this.wrap(
      b.reshape(
        b.slice(this.primitive, sliceSpecs(shape, args, 'selectDim')),
        shape.filter((_, i) => i !== d),
      ),
    );
  }

  /** A copy with the sliced region replaced by `values` (whose shape is the region's). */
  sliceAssign(ranges: readonly SliceArg[], values: Tensor<D, K>): Tensor<D, K> {
    this.sameDevice(values, 'sliceAssign');
    const specs = sliceSpecs(this.primitive.shape, ranges, 'sliceAssign');
    const region = specs.map((s) => s.size);
    if (!sameShape(region, values.primitive.shape)) {
      throw new BurnError(
        'sliceAssign',
        `values of shape ${fmt(values.primitive.shape)} for a region of shape ${fmt(region)}; expected equal shapes`,
      );
    }
    return this.wrap(this.backend.sliceAssign(this.primitive, specs, this.castLike(values.primitive)));
  }

  /** A copy with the sliced region filled with `value`. */
  sliceFill(ranges: readonly SliceArg[], value: number | boolean): Tensor<D, K> {
    const b = this.backend;
    const specs = sliceSpecs(this.primitive.shape, ranges, 'sliceFill');
    const region = specs.map((s) => s.size);
    const dtype = this.primitive.dtype;
    if (isIntDType(dtype)) checkIntLiteral(Number(value), dtype, 'sliceFill');
    return this.wrap(b.sliceAssign(this.primitive, specs, b.fill(region, Number(value), dtype)));
  }

  /** Entries `indices` (1-d Int) along `dim`. */
  select(dim: number, indices: Tensor<1, Int>): Tensor<D, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'select');
    this.checkIndices(indices, 'select', 1);
    // Only more indices than the dim's size can grow the tensor past the limit.
    const count = indices.primitive.shape[0]!;
    if (count > shape[d]!)
      checkNumel(
        shape.map((s, i) => (i === d ? count : s)),
        'select',
      );
    const outer = enterUserOp('select');
    try {
      return this.wrap(this.backend.select(this.primitive, d, indices.primitive));
    } catch (e) {
      throw renameError(e, 'select'); // the backend's select is a gather
    } finally {
      leaveUserOp(outer);
    }
  }

  /** Combines `values` into the entries `indices` along `dim` with `update` (Burn's `select_assign`). */
  selectAssign(dim: number, indices: Tensor<1, Int>, values: Tensor<D, K>, update: IndexingUpdateOp): Tensor<D, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'selectAssign');
    this.checkIndices(indices, 'selectAssign', 1);
    const expected = shape.map((s, i) => (i === d ? indices.primitive.shape[0]! : s));
    if (!sameShape(expected, values.primitive.shape)) {
      throw new BurnError('selectAssign', `values of shape ${fmt(values.primitive.shape)}; expected ${fmt(expected)}`);
    }
    const outer = enterUserOp('selectAssign');
    try {
      return this.wrap(
        this.backend.selectAssign(
          this.updateOf(update),
          this.primitive,
          d,
          indices.primitive,
          this.castLike(values.primitive),
        ),
      );
    } catch (e) {
      throw renameError(e, 'selectAssign'); // the backend's selectAssign is a scatter
    } finally {
      leaveUserOp(outer);
    }
  }

  /** PyTorch's gather: `out[i][j] = self[indices[i][j]][j]` for dim 0; the result has `indices`' shape. */
  gather(dim: number, indices: Tensor<D, Int>): Tensor<D, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'gather');
    this.checkIndices(indices, 'gather', shape.length);
    indices.primitive.shape.forEach((s, i) => {
      if (i !== d && s > shape[i]!)
        throw new BurnError(
          'gather',
          `indices of shape ${fmt(indices.primitive.shape)} exceed the tensor shape ${fmt(shape)} at dim ${i}`,
        );
    });
    return this.wrap(this.backend.gather(this.primitive, d, indices.primitive));
  }

  /** PyTorch's scatter with an update op: `self[indices[i][j]][j] (update)= values[i][j]` for dim 0. */
  scatter(dim: number, indices: Tensor<D, Int>, values: Tensor<D, K>, update: IndexingUpdateOp): Tensor<D, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'scatter');
    this.checkIndices(indices, 'scatter', shape.length);
    this.sameDevice(values, 'scatter');
    const is = indices.primitive.shape,
      vs = values.primitive.shape;
    if (vs.length !== shape.length)
      throw new BurnError('scatter', `values of rank ${vs.length}; expected ${shape.length}`);
    is.forEach((s, i) => {
      if (s > vs[i]! || (i !== d && s > shape[i]!)) {
        throw new BurnError(
          'scatter',
          `indices of shape ${fmt(is)} do not fit values ${fmt(vs)} and tensor ${fmt(shape)} at dim ${i}`,
        );
      }
    });
    return this.wrap(
      this.backend.scatter(
        this.updateOf(update),
        this.primitive,
        d,
        indices.primitive,
        this.castLike(values.primitive),
      ),
    );
  }

  /** Multi-dim gather: `indices[..., k]` addresses the leading k dims; the result has shape `indices.shape[:-1] ++ self.shape[k:]`. */
  gatherNd<DV extends number = number>(indices: Tensor<number, Int>): Tensor<DV, K> {
    const { flat, k } = this.flatNdIndices(indices, 'gatherNd');
    const shape = this.primitive.shape;
    const b = this.backend;
    const rest = shape.slice(k);
    const out = [...indices.primitive.shape.slice(0, -1), ...rest];
    checkNumel(out, 'gatherNd');
    const table = b.reshape(this.primitive, [numel(shape.slice(0, k)), ...rest]);
    const outer = enterUserOp('gatherNd');
    try {
      return this.wrap(b.reshape(b.select(table, 0, flat), out));
    } catch (e) {
      throw this.ndIndexError(e, indices, 'gatherNd');
    } finally {
      leaveUserOp(outer);
    }
  }

  /** Multi-dim scatter (see {@link gatherNd}); `values` has shape `indices.shape[:-1] ++ self.shape[k:]`. */
  scatterNd(indices: Tensor<number, Int>, values: Tensor<number, K>, update: IndexingUpdateOp): Tensor<D, K> {
    const { flat, k } = this.flatNdIndices(indices, 'scatterNd');
    this.sameDevice(values, 'scatterNd');
    const shape = this.primitive.shape;
    const rest = shape.slice(k);
    const expected = [...indices.primitive.shape.slice(0, -1), ...rest];
    if (!sameShape(expected, values.primitive.shape))
      throw new BurnError('scatterNd', `values of shape ${fmt(values.primitive.shape)}; expected ${fmt(expected)}`);
    const b = this.backend;
    const rows = numel(shape.slice(0, k));
    const table = b.reshape(this.primitive, [rows, ...rest]);
    const vals = b.reshape(this.castLike(values.primitive), [flat.shape[0]!, ...rest]);
    const outer = enterUserOp('scatterNd');
    try {
      return this.wrap(b.reshape(b.selectAssign(this.updateOf(update), table, 0, flat, vals), shape));
    } catch (e) {
      throw this.ndIndexError(e, indices, 'scatterNd');
    } finally {
      leaveUserOp(outer);
    }
  }

  /**
   * The backend update of `update` for this tensor: on a Bool tensor `'add'` accumulates as a
   * logical OR (Burn's `bool_select_or`/`bool_scatter_or`), which is the maximum of 0 and 1 on
   * every backend, so a bool tensor never holds a 2.
   */
  private updateOf(update: IndexingUpdateOp): IndexingUpdateOp {
    return update === 'add' && this.primitive.dtype === 'bool' ? 'max' : update;
  }

  /**
   * Flat row indices into the leading k dims. A row with a component out of its dim's range
   * becomes -1, so that it fails in the select instead of landing on another element (`[0, 3]`
   * of a `[2, 3]` tensor would otherwise address `[1, 0]`).
   */
  private flatNdIndices(indices: Tensor<number, Int>, op: string) {
    this.checkIndices(indices, op);
    const is = indices.primitive.shape;
    const shape = this.primitive.shape;
    const k = is[is.length - 1];
    if (is.length < 1 || k === undefined || k > shape.length || k < 1) {
      throw new BurnError(
        op,
        `indices of shape ${fmt(is)} for a tensor of shape ${fmt(shape)}; expected a last dim k with 1 <= k <= ${shape.length}`,
      );
    }
    const b = this.backend;
    const strides = Int32Array.from(contiguousStrides(shape.slice(0, k)));
    let idx = b.cast(indices.primitive, 'i32');
    const last = is.length - 1;
    if (this.dev.inner().backend.checkIndices && b.checkIndices) {
      // A device that cannot read the indices here (WebGPU, remote) checks each component itself,
      // so that its error, raised at a read, names the bad component (the select below sees -1).
      const cols = Array.from({ length: k }, (_, j) =>
        b.checkIndices!(
          b.slice(
            idx,
            is.map((s, i) => ({ start: i === last ? j : 0, size: i === last ? 1 : s, step: 1 })),
          ),
          0,
          shape[j]!,
          (v) =>
            new BurnError(
              op,
              `index component ${v} (column ${j} of the indices) is out of bounds for dim ${j} of size ${shape[j]} of a tensor of shape ${fmt(shape)}; expected 0 <= index[${j}] < ${shape[j]}`,
            ),
        ),
      );
      idx = k === 1 ? cols[0]! : b.cat(cols, last);
    }
    const flat = b.reduce('sum', b.binary('mul', idx, b.fromData(dataOf(strides))), [last]);
    const outside = b.binary(
      'or',
      b.compareScalar('lt', idx, 0),
      b.compare('ge', idx, b.fromData(dataOf(Int32Array.from(shape.slice(0, k))))),
    );
    const checked = b.where(b.reduce('any', outside, [last]), b.fill([], -1, 'i32'), flat);
    return { flat: b.reshape(checked, [numel(is.slice(0, -1))]), k };
  }

  /** The error of a gatherNd/scatterNd whose select failed: names the first bad multi-index where the indices can be read synchronously. */
  private ndIndexError(e: unknown, indices: Tensor<number, Int>, op: string): unknown {
    if (!(e instanceof BurnError)) return e;
    const shape = this.primitive.shape;
    const is = indices.primitive.shape;
    const k = is[is.length - 1]!;
    const data = indices.backend.toDataSync(indices.primitive)?.toArray();
    for (let r = 0; data && r < data.length / k; r++) {
      const row = Array.from(data.subarray(r * k, r * k + k));
      if (row.some((v, j) => v < 0 || v >= shape[j]!)) {
        return new BurnError(
          op,
          `index ${fmt(row)} (row ${r} of the indices) is out of bounds for a tensor of shape ${fmt(shape)}; expected 0 <= index[j] < ${fmt(shape.slice(0, k))}[j]`,
        );
      }
    }
    return renameError(e, op, `indices into the leading ${k} dims of shape ${fmt(shape)}`);
  }

  /** Selects `indices` (any rank) along `dim`; that dim is replaced by the indices' shape. */
  take<DO extends number = number>(dim: number, indices: Tensor<number, Int>): Tensor<DO, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'take');
    this.checkIndices(indices, 'take');
    const out = [...shape.slice(0, d), ...indices.primitive.shape, ...shape.slice(d + 1)];
    if (numel(indices.primitive.shape) > shape[d]!) checkNumel(out, 'take');
    const b = this.backend;
    const flat = b.reshape(indices.primitive, [numel(indices.primitive.shape)]);
    const outer = enterUserOp('take');
    try {
      return this.wrap(b.reshape(b.select(this.primitive, d, flat), out));
    } catch (e) {
      throw renameError(e, 'take');
    } finally {
      leaveUserOp(outer);
    }
  }

  /** `mask ? value : self` elementwise (Burn's `mask_where`). */
  maskWhere(mask: Tensor<D, Bool>, value: Tensor<D, K>): Tensor<D, K> {
    this.checkMask(mask, 'maskWhere');
    this.sameDevice(value, 'maskWhere');
    this.checkMaskShapes(mask, 'maskWhere', value.primitive.shape);
    return this.wrap(this.backend.where(mask.primitive, this.castLike(value.primitive), this.primitive));
  }

  /** `mask ? value : self` with a scalar. */
  maskFill(mask: Tensor<D, Bool>, value: number | boolean): Tensor<D, K> {
    this.checkMask(mask, 'maskFill');
    this.checkMaskShapes(mask, 'maskFill');
    const dtype = this.primitive.dtype;
    if (isIntDType(dtype)) checkIntLiteral(Number(value), dtype, 'maskFill', 'scalar');
    return this.wrap(this.backend.maskFill(this.primitive, mask.primitive, Number(value)));
  }

  /** The elements where `mask` is true, as a 1-d tensor (reads the mask synchronously; see {@link maskSelectAsync}). */
  maskSelect(mask: Tensor<D, Bool>): Tensor<1, K> {
    this.checkMask(mask, 'maskSelect');
    const data = mask.backend.toDataSync(mask.primitive);
    if (!data)
      throw new BurnError(
        'maskSelect',
        `${this.dev} cannot read the mask synchronously; use await tensor.maskSelectAsync(mask)`,
      );
    return this.maskSelectWith(mask, data.toArray());
  }

  /** The elements where `mask` is true, as a 1-d tensor. */
  async maskSelectAsync(mask: Tensor<D, Bool>): Promise<Tensor<1, K>> {
    this.checkMask(mask, 'maskSelectAsync');
    const data = await mask.backend.toData(mask.primitive);
    return this.maskSelectWith(mask, data.toArray());
  }

  private maskSelectWith(mask: Tensor<D, Bool>, values: ArrayLike<number>): Tensor<1, K> {
    const b = this.backend;
    const shape = this.primitive.shape;
    if (!sameShape(mask.primitive.shape, shape)) {
      throw new BurnError(
        'maskSelect',
        `mask of shape ${fmt(mask.primitive.shape)}; expected the tensor's shape ${fmt(shape)}`,
      );
    }
    const picked: number[] = [];
    for (let i = 0; i < values.length; i++) if (values[i]) picked.push(i);
    const flat = b.reshape(this.primitive, [numel(shape)]);
    return this.wrap(b.select(flat, 0, b.fromData(dataOf(Int32Array.from(picked)))));
  }

  private checkMask(mask: TensorBase<number, Kind>, op: string): void {
    this.sameDevice(mask, op);
    if (mask.primitive.dtype !== 'bool')
      throw new BurnError(op, `mask must be a Bool tensor, got ${mask.primitive.dtype}`);
  }

  /** Checks that the mask (and a value tensor) broadcast with this tensor, within the element limit. O(rank). */
  private checkMaskShapes(mask: TensorBase<number, Kind>, op: string, value?: readonly number[]): void {
    const shape = this.primitive.shape;
    let out = sameShape(mask.primitive.shape, shape) ? shape : broadcastShapes(shape, mask.primitive.shape, op);
    if (value !== undefined && !sameShape(value, out)) out = broadcastShapes(out, value, op);
    if (out !== shape) checkNumel(out, op);
  }

  /** @internal Casts a same-kind operand to this tensor's dtype. */
  castLike(p: TensorBase['primitive']): TensorBase['primitive'] {
    return p.dtype === this.primitive.dtype ? p : this.backend.cast(p, this.primitive.dtype);
  }

  /**
   * Pads the last dims: `padding` is a list of `[before, after]` pairs applied to the last
   * `padding.length` dims (the first pair to the earliest of them), or Burn's
   * `[left, right, top, bottom]` for the last two dims. `mode` is a constant value (default 0),
   * `'reflect'` (mirror without repeating the edge) or `'edge'` (repeat the edge).
   */
  pad(
    padding: readonly (readonly [number, number])[] | readonly [number, number, number, number],
    mode: PadMode = 0,
  ): Tensor<D, K> {
    const shape = this.primitive.shape;
    const pairs: (readonly [number, number])[] =
      typeof padding[0] === 'number'
        ? (() => {
            const [l, r, t, b] = padding as readonly number[];
            return [
              [t!, b!],
              [l!, r!],
            ] as [number, number][];
          })()
        : [...(padding as readonly (readonly [number, number])[])];
    if (pairs.length > shape.length)
      throw new BurnError('pad', `${pairs.length} padding pairs for a tensor of rank ${shape.length}`);
    const first = shape.length - pairs.length;
    for (const [a, b] of pairs) {
      if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0))
        throw new BurnError('pad', `padding [${a}, ${b}]; expected non-negative integers`);
    }
    const bk = this.backend;
    const out = shape.map((s, d) => (d < first ? s : s + pairs[d - first]![0] + pairs[d - first]![1]));
    checkNumel(out, 'pad');
    if (typeof mode === 'number') {
      const dtype = this.primitive.dtype;
      if (isIntDType(dtype)) checkIntLiteral(mode, dtype, 'pad');
      const specs = shape.map((s, d) => ({ start: d < first ? 0 : pairs[d - first]![0], size: s, step: 1 }));
      return this.wrap(bk.sliceAssign(bk.fill(out, mode, dtype), specs, this.primitive));
    }
    let p = this.primitive;
    pairs.forEach(([before, after], i) => {
      const d = first + i;
      const n = p.shape[d]!;
      if (mode === 'reflect' && (before >= n || after >= n)) {
        throw new BurnError(
          'pad',
          `reflect padding [${before}, ${after}] for dim ${d} of size ${n}; expected padding < size`,
        );
      }
      if (n === 0 && (before > 0 || after > 0)) throw new BurnError('pad', `cannot ${mode}-pad the empty dim ${d}`);
      const part = (start: number, size: number, step: number) =>
        bk.slice(
          p,
          p.shape.map((s, j) => (j === d ? { start, size, step } : { start: 0, size: s, step: 1 })),
        );
      const pieces = [];
      if (before > 0)
        pieces.push(
          mode === 'reflect'
            ? part(before, before, -1)
            : bk.expand(
                part(0, 1, 1),
                p.shape.map((s, j) => (j === d ? before : s)),
              ),
        );
      pieces.push(p);
      if (after > 0)
        pieces.push(
          mode === 'reflect'
            ? part(n - 2, after, -1)
            : bk.expand(
                part(n - 1, 1, 1),
                p.shape.map((s, j) => (j === d ? after : s)),
              ),
        );
      p = pieces.length > 1 ? bk.cat(pieces, d) : p;
    });
    return this.wrap(p);
  }

  /** `length` (at least 1, as Burn) elements from `start` along `dim`; use {@link sliceDim} for a range that may be empty. */
  narrow(dim: number, start: number, length: number): Tensor<D, K> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'narrow');
    if (
      !(Number.isInteger(start) && Number.isInteger(length) && start >= 0 && length >= 1 && start + length <= shape[d]!)
    ) {
      throw new BurnError(
        'narrow',
        `start ${start} and length ${length} for dim ${dim} of size ${shape[d]}; expected a length of at least 1 and start + length <= ${shape[d]}`,
      );
    }
    return this.sliceDim(d, [start, start + length]);
  }

  /**
   * Splits into at most `chunks` pieces along `dim`: equal sizes of `ceil(size / chunks)`, the last
   * smaller; an empty dim gives no pieces, as Burn. (Where Burn panics because its pieces run out,
   * e.g. 9 in 4 chunks, this gives PyTorch's 3 pieces of 3.)
   */
  chunk(chunks: number, dim: number): Tensor<D, K>[] {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'chunk');
    if (!(Number.isInteger(chunks) && chunks > 0))
      throw new BurnError('chunk', `${chunks} chunks; expected a positive integer`);
    const size = shape[d]!;
    if (size === 0) return [];
    return this.split(Math.ceil(size / chunks), d);
  }

  /**
   * Splits along `dim` into pieces of `splitSize` (the last may be smaller). As Burn, an empty dim
   * gives no pieces, and a split size of 0 is allowed only there.
   */
  split(splitSize: number, dim: number): Tensor<D, K>[] {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'split');
    const size = shape[d]!;
    if (!(Number.isInteger(splitSize) && (splitSize > 0 || (splitSize === 0 && size === 0)))) {
      throw new BurnError(
        'split',
        `split size ${splitSize} for dim ${dim} of size ${size}; expected an integer greater than 0 unless the dim is empty`,
      );
    }
    const pieces: Tensor<D, K>[] = [];
    for (let s = 0; s < size; s += splitSize) pieces.push(this.sliceDim(d, [s, Math.min(s + splitSize, size)]));
    return pieces;
  }

  /** Splits along `dim` into pieces of the given sizes (which must add up to the dim's size); as Burn, sizes of 0 give no piece. */
  splitWithSizes(sizes: readonly number[], dim: number): Tensor<D, K>[] {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'splitWithSizes');
    const total = sizes.reduce((a, s) => a + s, 0);
    if (total !== shape[d] || sizes.some((s) => !Number.isInteger(s) || s < 0)) {
      throw new BurnError(
        'splitWithSizes',
        `sizes ${fmt(sizes)} add up to ${total}; expected non-negative sizes adding up to ${shape[d]} (dim ${dim})`,
      );
    }
    const pieces: Tensor<D, K>[] = [];
    let start = 0;
    for (const s of sizes) {
      if (s === 0) continue;
      pieces.push(this.sliceDim(d, [start, start + s]));
      start += s;
    }
    return pieces;
  }

  /** Iterates over `dim`, yielding slices that keep the dim with size 1 (Burn's `iter_dim`); a bad dim throws here, not at the first `next()`. */
  iterDim(dim: number): IterableIterator<Tensor<D, K>> {
    const d = normDim(dim, this.primitive.shape.length, 'iterDim');
    return this.slicesAlong(d);
  }
  private *slicesAlong(d: number): IterableIterator<Tensor<D, K>> {
    for (let i = 0; i < this.primitive.shape[d]!; i++) yield this.sliceDim(d, [i, i + 1]);
  }
}
