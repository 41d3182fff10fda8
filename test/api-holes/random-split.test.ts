// randomSplit (PyTorch's random_split) for datasets: lengths or fractions, PyTorch's
// round-robin distribution of the remainder, disjoint parts covering every item, deterministic
// with a seed, and BurnErrors for bad lengths.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import { InMemDataset, randomSplit, SelectionDataset, type Dataset } from '../../src/data/index.js';

const items = (n: number) => new InMemDataset(Array.from({ length: n }, (_, i) => i * 10));
const all = <I>(ds: Dataset<I>) => Array.from({ length: ds.len() }, (_, i) => ds.get(i)!);
const throwsBurn = (fn: () => unknown, ...parts: string[]) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof BurnError, `expected a BurnError, got ${String(e)}`);
    assert.equal(e.op, 'randomSplit');
    for (const p of parts)
      assert.ok(e.message.includes(p), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });

describe('randomSplit', () => {
  it('lengths: parts of those sizes, disjoint, together every item', () => {
    const ds = items(10);
    const [a, b, c] = randomSplit(ds, [3, 5, 2], { seed: 7 });
    assert.ok(a instanceof SelectionDataset);
    assert.deepEqual([a.len(), b.len(), c.len()], [3, 5, 2]);
    const seen = [...all(a), ...all(b), ...all(c)];
    assert.deepEqual(
      [...seen].sort((x, y) => x - y),
      all(ds),
    );
    // A random order, not the identity.
    assert.notDeepEqual(seen, all(ds));
  });

  it('fractions: floor(len · f) each, the remainder round-robin from the first part (PyTorch)', () => {
    // 10 · [0.33, 0.33, 0.34] = floor [3, 3, 3], remainder 1 → [4, 3, 3]
    assert.deepEqual(
      randomSplit(items(10), [0.33, 0.33, 0.34], { seed: 1 }).map((p) => p.len()),
      [4, 3, 3],
    );
    // 11 · [0.25 × 4] = [2, 2, 2, 2], remainder 3 → [3, 3, 3, 2]
    assert.deepEqual(
      randomSplit(items(11), [0.25, 0.25, 0.25, 0.25], { seed: 1 }).map((p) => p.len()),
      [3, 3, 3, 2],
    );
    // 7 · [0.8, 0.2] = [5, 1], remainder 1 → [6, 1]
    assert.deepEqual(
      randomSplit(items(7), [0.8, 0.2], { seed: 1 }).map((p) => p.len()),
      [6, 1],
    );
    // Fractions within 1e-9 of 1 count as fractions: 0.1 + 0.2 + 0.7 is 0.9999999999999999.
    assert.deepEqual(
      randomSplit(items(10), [0.1, 0.2, 0.7], { seed: 1 }).map((p) => p.len()),
      [1, 2, 7],
    );
    // A part may be empty.
    assert.deepEqual(
      randomSplit(items(3), [0, 1], { seed: 1 }).map((p) => p.len()),
      [0, 3],
    );
  });

  it('the same seed gives the same split; another seed another one', () => {
    const ds = items(50);
    const one = randomSplit(ds, [0.5, 0.5], { seed: 123 }).map(all);
    const two = randomSplit(ds, [0.5, 0.5], { seed: 123 }).map(all);
    const other = randomSplit(ds, [0.5, 0.5], { seed: 124 }).map(all);
    assert.deepEqual(one, two);
    assert.notDeepEqual(one, other);
    // Pinned: the permutation is the dataset module's seeded shuffle (Philox), stable across runs and platforms.
    assert.deepEqual(
      randomSplit(items(6), [2, 4], { seed: 42 }).map((p) => p.selectedIndices()),
      [
        [4, 2],
        [1, 5, 0, 3],
      ],
    );
    assert.deepEqual(randomSplit(items(6), [2, 4], { seed: 42 }).map(all), [
      [40, 20],
      [10, 50, 0, 30],
    ]);
  });

  it('without a seed the parts still cover every item once', () => {
    const [a, b] = randomSplit(items(9), [4, 5]);
    assert.deepEqual(
      [...all(a), ...all(b)].sort((x, y) => x - y),
      all(items(9)),
    );
  });

  it('bad lengths, fractions and options are BurnErrors naming the values', () => {
    throwsBurn(() => randomSplit(items(10), [3, 4]), 'lengths [3, 4] add up to 7', 'the dataset has 10 items');
    throwsBurn(() => randomSplit(items(10), [0.5, 0.4]), 'neither lengths', 'add up to 0.9');
    throwsBurn(() => randomSplit(items(10), [12, -2]), 'entry 1', '-2', 'non-negative');
    throwsBurn(() => randomSplit(items(10), [1.5, -0.5]), 'entry 1');
    throwsBurn(() => randomSplit(items(10), [NaN, 10]), 'entry 0', 'NaN');
    throwsBurn(() => randomSplit(items(10), []), 'non-empty');
    throwsBurn(() => randomSplit(items(10), [10], { seed: -1 }), 'seed -1');
    throwsBurn(() => randomSplit(items(10), [10], { sed: 1 } as never), "unknown option 'sed'");
  });
});
