// Type-level tests: ranks and kinds live in the type. `npm test` type-checks this file; every
// `@ts-expect-error` line must be an error, every other line must compile. The runtime part only
// checks that the inferred ranks match the real ones.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Tensor, type Bool, type Float, type Int } from '../../src/index.js';

it('ranks and kinds inferred by the type system match the runtime', () => {
  // Ranks from literal shapes and nested arrays.
  const v: Tensor<1> = Tensor.fromFloats([1, 2, 3]);
  const m: Tensor<2> = Tensor.fromFloats([
    [1, 2],
    [3, 4],
  ]);
  const c: Tensor<3> = Tensor.zeros([2, 3, 4]);
  const i: Tensor<2, Int> = Tensor.fromInts([[1, 2]]);
  const b: Tensor<1, Bool> = Tensor.fromBools([true, false]);
  const typed: Tensor<1> = Tensor.fromFloats(new Float32Array(4));
  const ints: Tensor<2, Int> = Tensor.zeros([2, 2], { dtype: 'i32' });
  const bools: Tensor<2, Bool> = Tensor.full([2, 2], true, { dtype: 'bool' });

  // Rank-changing ops.
  const r: Tensor<3> = m.reshape([1, 2, 2]);
  const f: Tensor<2> = c.flatten(0, 1);
  const f2: Tensor<1> = c.flatten(0, 2);
  const u: Tensor<3> = m.unsqueeze();
  const u4: Tensor<4> = m.unsqueeze(4);
  const ud: Tensor<3> = m.unsqueezeDim(1);
  const uds: Tensor<4> = m.unsqueezeDims([0, -1]);
  const sd: Tensor<2> = c.sliceDim(0, [0, 1]).squeezeDim(0);
  const sds: Tensor<1> = Tensor.zeros([1, 3, 1]).squeezeDims([0, 2]);
  const sq: Tensor<1> = Tensor.zeros([1, 3, 1]).squeeze<1>();
  const e: Tensor<3> = v.expand([2, 2, 3]);
  const st: Tensor<3> = Tensor.stack([m, m], 0);
  const oh: Tensor<2, Int> = Tensor.fromInts([0, 2]).oneHot(3);
  const sum: Tensor<1> = c.sum();
  const sumAlong: Tensor<3> = c.sum(1);
  const am: Tensor<3, Int> = c.argmax(1);
  const grid: Tensor<3, Int> = Tensor.cartesianGrid([2, 3]);
  const unknown: Tensor<number> = c; // any rank widens to number…
  const back: Tensor<3> = unknown; // …and back (unknown ranks are not errors)

  // Kind-specific ops.
  const fl: Tensor<2, Float> = i.float();
  const it2: Tensor<2, Int> = m.int();
  const bi: Tensor<1, Int> = b.int();
  const cmp: Tensor<2, Bool> = m.greater(0);
  const mixed: Tensor<2, Int> = i.add(1).bitwiseAnd(3);

  assert.deepEqual(
    [v, m, c, i, b, typed, ints, bools].map((t) => t.rank()),
    [1, 2, 3, 2, 1, 1, 2, 2],
  );
  assert.deepEqual(
    [r, f, f2, u, u4, ud, uds, sd, sds, sq, e, st, oh, sum, am, grid, back].map((t) => t.rank()),
    [3, 2, 1, 3, 4, 3, 4, 2, 1, 1, 3, 3, 2, 1, 3, 3, 3],
  );
  assert.deepEqual(
    [fl, it2, bi, cmp, mixed].map((t) => t.dtype()),
    ['f32', 'i32', 'i32', 'bool', 'i32'],
  );
  // sum(dim) is sumDim(dim): the dim is kept with size 1.
  assert.deepEqual(sumAlong.dims(), [c.dims()[0], 1, c.dims()[2]]);
  const cube = Tensor.fromFloats([
    [
      [1, 2],
      [3, 4],
    ],
    [
      [5, 6],
      [7, 8],
    ],
  ]);
  assert.deepEqual(Array.from(cube.sum(1).toDataSync().toArray()), [4, 6, 12, 14]);
  assert.deepEqual(cube.sum(-1).dims(), [2, 2, 1]);
  assert.deepEqual(Array.from(cube.sum().toDataSync().toArray()), [36]);
});

it('wrong ranks and kinds are compile errors', () => {
  const m = Tensor.fromFloats([
    [1, 2],
    [3, 4],
  ]);
  const i = Tensor.fromInts([1, 2]);
  const b = Tensor.fromBools([true]);
  const mistakes = [
    // @ts-expect-error a rank-2 tensor is not a rank-3 tensor
    (): Tensor<3> => m,
    // @ts-expect-error reshape to 3 dims gives rank 3, not 2
    (): Tensor<2> => m.reshape([1, 2, 2]),
    // @ts-expect-error flatten(0, 1) of rank 2 gives rank 1
    (): Tensor<2> => m.flatten(0, 1),
    // @ts-expect-error unsqueeze adds a dim
    (): Tensor<2> => m.unsqueezeDim(0),
    // @ts-expect-error an Int tensor is not a Float tensor
    (): Tensor<1> => i,
    // @ts-expect-error exp is float-only
    () => i.exp(),
    // @ts-expect-error no arithmetic on Bool tensors
    () => b.add(1),
    // @ts-expect-error bitwise ops are Int-only
    () => m.bitwiseAnd(1),
    // @ts-expect-error matmul operands share the rank
    () => m.matmul(Tensor.zeros([2, 2, 2])),
    // @ts-expect-error the mask must be a Bool tensor
    () => m.maskFill(m, 0),
  ];
  assert.equal(mistakes.length, 10);
});
