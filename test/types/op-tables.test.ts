// Type-level tests of the per-op tables (src/backend/op-table.ts): a `Record<Op, …>` without an
// entry for every op of its union does not compile, and an op a dtype does not define is an
// explicit entry whose lookup throws a BurnError naming the op and the dtype. `npm run typecheck`
// checks every `@ts-expect-error` line.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { entryOf, notDefined, type NotDefined } from '../../src/backend/op-table.js';
import type { CompareOp, PredicateOp } from '../../src/backend/ops.js';
import { binaryExpr as jsBinary } from '../../src/backends/cpu/js/expressions.js';
import { binaryExpr as wgslBinary } from '../../src/backends/webgpu/wgsl/ops.js';
import { BurnError } from '../../src/core/errors.js';

it('a table missing an op of its union does not compile', () => {
  // @ts-expect-error `isinf` has no entry
  const missing: Record<PredicateOp, string> = { isnan: 'x != x' };
  const complete: Record<PredicateOp, string> = { isnan: 'x != x', isinf: 'abs(x) == inf' };
  // @ts-expect-error an entry for a name outside the union
  const extra: Record<CompareOp, string> = { eq: '==', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=', approx: '~' };
  assert.deepEqual([Object.keys(missing), Object.keys(complete).length, Object.keys(extra).length], [['isnan'], 2, 7]);
});

it('an op a dtype does not define is an entry whose lookup names the op and the dtype', () => {
  const table: Record<PredicateOp, string | NotDefined> = {
    isnan: 'x != x',
    isinf: notDefined((dtype) => `needs a float tensor, got ${dtype}`),
  };
  assert.equal(entryOf(table, 'isnan', 'f32'), 'x != x');
  assert.throws(
    () => entryOf(table, 'isinf', 'i32'),
    (e: unknown) =>
      e instanceof BurnError && /isinf/.test(e.message) && /needs a float tensor, got i32/.test(e.message),
  );
});

it('the elementwise expression tables keep their errors for undefined (op, dtype) pairs', () => {
  for (const binaryExpr of [jsBinary, wgslBinary]) {
    assert.throws(
      () => binaryExpr('add', 'bool'),
      (e: unknown) =>
        e instanceof BurnError && /add/.test(e.message) && /is not defined for bool tensors/.test(e.message),
    );
    assert.throws(
      () => binaryExpr('shl', 'f32'),
      (e: unknown) =>
        e instanceof BurnError && /shl/.test(e.message) && /needs int or bool tensors, got f32/.test(e.message),
    );
  }
  assert.equal(jsBinary('xor', 'bool'), '(x ^ y)');
  assert.equal(jsBinary('mul', 'i32'), 'Math.imul(x, y)');
  assert.equal(jsBinary('shr', 'u32'), '(x >>> y)');
  assert.equal(jsBinary('and', 'i64'), 'H.i64.and(x, y)');
  assert.equal(wgslBinary('max', 'bool').expr, '(x | y)');
  assert.equal(wgslBinary('rem', 'u8').expr, 'select(x % y, 0u, y == 0u)');
  assert.equal(wgslBinary('div', 'i32').expr, 'select(x / y, 0, y == 0)');
  assert.deepEqual(wgslBinary('pow', 'f32'), { expr: 'f_pow(x, y)', helpers: ['f_pow'] });
});
