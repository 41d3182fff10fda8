// Conformance of slicing, select/gather/scatter, masks, nonzero/argwhere and triu/tril against
// PyTorch (fixtures: test/fixtures/gen_conformance_indexing.py). Burn's slice semantics differ from
// PyTorch's for negative steps: `[0, 5, -1]` walks [0, 5) backwards (4, 3, 2, 1, 0), as NumPy's
// `x[0:5][::-1]`; the fixtures build the expected values that way. Scatter/selectAssign take an
// explicit update op (Burn's IndexingUpdateOp); `mul`/`min`/`max` compare with
// `scatter_reduce(..., include_self=True)`.
import { Tensor, type IndexingUpdateOp, type Int, type SliceArg } from '../../src/index.js';
import { conformance, type Ctx, type Table } from './harness.js';

const ranges = (c: Ctx) => c.p<SliceArg[]>('ranges');

const table: Table = {
  slice: (c) => c.t().slice(ranges(c)),
  sliceDim: (c) => c.t().sliceDim(c.p('dim'), c.p<SliceArg>('range')),
  sliceAssign: (c) => c.t().sliceAssign(ranges(c), c.t('v')),
  sliceFill: (c) => c.t().sliceFill(ranges(c), c.p<number | boolean>('value')),
  select: (c) => c.t().select(c.p('dim'), c.i('idx')),
  selectAssign: (c) => c.t().selectAssign(c.p('dim'), c.i('idx'), c.t('v'), c.p<IndexingUpdateOp>('op')),
  gather: (c) => c.t().gather(c.p('dim'), c.i('idx')),
  scatter: (c) => {
    const v = c.t('v');
    const idx = c.i('idx');
    // The "values bigger" case passes the full values tensor; scatter uses the indices' extent.
    return c.t().scatter(c.p('dim'), idx, v, c.p<IndexingUpdateOp>('op'));
  },
  gatherNd: (c) => c.t().gatherNd(c.i('idx')),
  scatterNd: (c) => c.t().scatterNd(c.i('idx'), c.t('v'), c.p<IndexingUpdateOp>('op')),
  take: (c) => c.t().take(c.p('dim'), c.i('idx')),
  maskWhere: (c) => c.t().maskWhere(c.b('mask'), c.t('v')),
  maskFill: (c) => c.t().maskFill(c.b('mask'), c.p<number | boolean>('value')),
  maskSelect: (c) => c.t().maskSelect(c.b('mask')),
  maskSelectAsync: (c) => c.t().maskSelectAsync(c.b('mask')),
  // Burn's nonzero of an all-false tensor is an empty list (test/burn-fidelity pins it); PyTorch's
  // is one empty tensor per dim, put back for the comparison.
  nonzero: (c) => orEmptyPerDim(c.b().nonzero(), c),
  nonzeroAsync: async (c) => orEmptyPerDim(await c.b().nonzeroAsync(), c),
  argwhere: (c) => c.b().argwhere(),
  argwhereAsync: (c) => c.b().argwhereAsync(),
  triu: (c) => (c.t().dtype().startsWith('f') ? c.f() : c.i()).triu(c.p('diagonal')),
  tril: (c) => (c.t().dtype().startsWith('f') ? c.f() : c.i()).tril(c.p('diagonal')),
};

conformance('conformance_indexing', table);

/** `parts`, or one empty Int tensor per dim of the input when there are none. */
function orEmptyPerDim(parts: readonly Tensor<1, Int>[], c: Ctx): readonly Tensor<1, Int>[] {
  return parts.length > 0
    ? parts
    : c
        .b()
        .dims()
        .map(() => Tensor.zeros([0], { device: c.device, dtype: 'i32' }));
}
