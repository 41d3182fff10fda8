import { BurnError, fmt } from '../../core/errors.js';
import type { Inc, Kind } from '../kind.js';
import { Tensor } from '../tensor.js';

/**
 * How {@link meshgrid} orders the grid's dims (Burn's `GridIndexing`): `'matrix'` follows the
 * inputs' order (NumPy's and PyTorch's `'ij'`); `'cartesian'` swaps the first two (`'xy'`).
 */
export type GridIndexing = 'matrix' | 'cartesian';

/**
 * Whether {@link meshgrid} expands its outputs (Burn's `GridSparsity`): `'dense'` to the full grid
 * shape, `'sparse'` only along each input's own dim (size 1 elsewhere, for broadcasting).
 */
export type GridSparsity = 'dense' | 'sparse';

/** Options of {@link meshgrid} (Burn's `GridOptions`; defaults `'matrix'`, `'dense'`). */
export interface GridOptions {
  /** Dim order (default `'matrix'`). */
  readonly indexing?: GridIndexing;
  /** Expansion (default `'dense'`). */
  readonly sparsity?: GridSparsity;
}

/** Where {@link meshgrid} puts the coordinate index (Burn's `IndexPos`). */
export type IndexPos = 'first' | 'last';

/** The kind of a tensor type. */
type KindIn<T> = T extends Tensor<number, infer K> ? K : Kind;

/** One rank-`N` tensor per input, `N` the number of inputs, each of its input's kind. */
export type MeshgridOutput<T extends readonly Tensor<1, Kind>[]> = {
  -readonly [I in keyof T]: Tensor<T['length'], KindIn<T[I]>>;
};

function normalize(options: GridOptions | GridIndexing | GridSparsity | undefined, op: string): Required<GridOptions> {
  const o: GridOptions =
    typeof options === 'string'
      ? options === 'matrix' || options === 'cartesian'
        ? { indexing: options }
        : { sparsity: options as GridSparsity }
      : (options ?? {});
  const indexing = o.indexing ?? 'matrix',
    sparsity = o.sparsity ?? 'dense';
  if (indexing !== 'matrix' && indexing !== 'cartesian')
    throw new BurnError(op, `indexing ${JSON.stringify(indexing)}; expected 'matrix' or 'cartesian'`);
  if (sparsity !== 'dense' && sparsity !== 'sparse')
    throw new BurnError(op, `sparsity ${JSON.stringify(sparsity)}; expected 'dense' or 'sparse'`);
  return { indexing, sparsity };
}

function checkInputs(tensors: readonly Tensor<1, Kind>[], op: string): void {
  const first = tensors[0];
  if (!first) throw new BurnError(op, 'no tensors; expected at least one 1-d tensor');
  tensors.forEach((t, i) => {
    first.sameDevice(t, op);
    if (t.rank() !== 1) throw new BurnError(op, `tensor ${i} has shape ${fmt(t.dims())}; expected 1-d tensors`);
    if (t.dtype() !== first.dtype())
      throw new BurnError(op, `tensor ${i} has dtype ${t.dtype()}, tensor 0 has ${first.dtype()}; expected one dtype`);
  });
}

/**
 * Coordinate tensors of the grid spanned by 1-d tensors (Burn's `grid::meshgrid`, NumPy's and
 * PyTorch's `meshgrid`): for `N` inputs, `N` tensors of rank `N`, the `i`-th holding input `i`'s
 * values along dim `i`. `'cartesian'` indexing swaps the first two dims of every output;
 * `'sparse'` leaves size 1 in every other dim instead of expanding (expanded outputs are views).
 *
 * ```ts
 * const [xs, ys] = grid.meshgrid([Tensor.fromFloats([1, 2, 3]), Tensor.fromFloats([4, 5])]); // [3, 2] each
 * ```
 *
 * @param tensors 1-d tensors of one kind and dtype
 * @param options the indexing and sparsity, or one of them alone
 */
export function meshgrid<const T extends readonly Tensor<1, Kind>[]>(
  tensors: T,
  options?: GridOptions | GridIndexing | GridSparsity,
): MeshgridOutput<T> {
  const op = 'meshgrid';
  checkInputs(tensors, op);
  const { indexing, sparsity } = normalize(options, op);
  const n = tensors.length;
  const gridShape = tensors.map((t) => t.dims()[0]!);
  const swap = indexing === 'cartesian' && n > 1;
  return tensors.map((t, i) => {
    let out: Tensor<number, Kind> = t.reshape(gridShape.map((s, d) => (d === i ? s : 1)));
    if (sparsity === 'dense') out = out.expand(gridShape);
    if (swap) out = out.swapDims(0, 1);
    return out;
  }) as unknown as MeshgridOutput<T>;
}

/**
 * The dense `'matrix'` {@link meshgrid} stacked into one tensor (Burn's `grid::meshgrid_stack`):
 * `[N, |t0|, |t1|, …]` with the coordinate index first, or `[|t0|, |t1|, …, N]` with it last.
 *
 * @param tensors 1-d tensors of one kind and dtype
 * @param indexPos where the coordinate index goes (default `'first'`)
 */
export function meshgridStack<const T extends readonly Tensor<1, Kind>[]>(
  tensors: T,
  indexPos: IndexPos = 'first',
): Tensor<Inc<T['length']>, KindIn<T[number]>> {
  const op = 'meshgridStack';
  checkInputs(tensors, op);
  if (indexPos !== 'first' && indexPos !== 'last')
    throw new BurnError(op, `indexPos ${JSON.stringify(indexPos)}; expected 'first' or 'last'`);
  const grids = meshgrid(tensors) as unknown as Tensor<number, Kind>[];
  return Tensor.stack(grids, indexPos === 'first' ? 0 : tensors.length) as unknown as Tensor<
    Inc<T['length']>,
    KindIn<T[number]>
  >;
}
