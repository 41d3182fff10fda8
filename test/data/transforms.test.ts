// Dataset transforms (Burn's burn-dataset transform/*): lazy views over another dataset, checked
// item by item; seeded ones reproducible; every bad argument a BurnError.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import {
  ComposedDataset,
  FakeDataset,
  InMemDataset,
  MapperDataset,
  PartialDataset,
  SamplerDataset,
  SelectionDataset,
  ShuffledDataset,
  WindowsDataset,
  getMany,
  iterDataset,
  window,
  windows,
  type Dataset,
  type Mapper,
} from '../../src/data/index.js';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const items = (d: Dataset<unknown>): unknown[] => [...iterDataset(d)];

/** A dataset that counts its reads, to show the transforms are lazy. */
class Counting implements Dataset<number> {
  reads = 0;
  constructor(private readonly n: number) {}
  get(i: number): number | undefined {
    if (i < 0 || i >= this.n) return undefined;
    this.reads++;
    return i * 10;
  }
  len(): number {
    return this.n;
  }
}

describe('Dataset basics', () => {
  it('iterates, reads many, and returns undefined out of range', () => {
    const d = new InMemDataset(['a', 'b', 'c']);
    assert.deepEqual([...d], ['a', 'b', 'c']);
    assert.deepEqual([...d.iter()], ['a', 'b', 'c']);
    assert.deepEqual(d.toArray(), ['a', 'b', 'c']);
    assert.deepEqual(d.getMany([2, 0, 2]), ['c', 'a', 'c']);
    assert.equal(d.get(3), undefined);
    assert.equal(d.get(-1), undefined);
    assert.equal(d.get(1.5), undefined);
    assert.equal(d.isEmpty(), false);
    assert.equal(new InMemDataset([]).isEmpty(), true);
    assert.throws(
      () => d.getMany([0, 3]),
      (e: unknown) => e instanceof BurnError && /index 3 is out of range for 3 items/.test(e.message),
    );
    // The free functions work on any object with get/len.
    const plain: Dataset<number> = { get: (i) => (i < 2 ? i : undefined), len: () => 2 };
    assert.deepEqual(getMany(plain, [1, 0]), [1, 0]);
    assert.throws(() => getMany(plain, [2]), /index 2 is out of range for a dataset of 2 items/);
    assert.throws(() => new InMemDataset('abc' as unknown as string[]), BurnError);
  });
});

describe('MapperDataset', () => {
  it('maps lazily with a Mapper or a function', () => {
    const source = new Counting(4);
    class Plus implements Mapper<number, number> {
      map(x: number): number {
        return x + 1;
      }
    }
    const mapped = new MapperDataset(source, new Plus());
    assert.equal(source.reads, 0);
    assert.equal(mapped.len(), 4);
    assert.equal(mapped.get(2), 21);
    assert.equal(source.reads, 1);
    assert.equal(mapped.get(4), undefined);
    assert.deepEqual(items(new MapperDataset(new InMemDataset(['12', '34']), (s: string) => s.slice(0, 1))), [
      '1',
      '3',
    ]);
    assert.deepEqual(mapped.getMany([3, 0]), [31, 1]);
    assert.throws(() => new MapperDataset(source, 42 as unknown as Mapper<number, number>), /expected a Mapper/);
  });
});

describe('ComposedDataset', () => {
  it('concatenates datasets in order', () => {
    const a = new FakeDataset(10, undefined, { seed: 1 });
    const b = new FakeDataset(5, undefined, { seed: 2 });
    const c = new ComposedDataset([a, b]);
    assert.equal(c.len(), 15);
    assert.deepEqual(items(c), [...items(a), ...items(b)]);
    assert.equal(c.get(15), undefined);
    assert.equal(c.get(-1), undefined);
    assert.equal(new ComposedDataset<number>([]).len(), 0);
  });
});

describe('PartialDataset', () => {
  const d = new InMemDataset(range(10));
  it('views a range without copying', () => {
    const p = new PartialDataset(d, 2, 5);
    assert.equal(p.len(), 3);
    assert.deepEqual(items(p), [2, 3, 4]);
    assert.equal(p.get(3), undefined);
    assert.deepEqual(p.getMany([2, 0]), [4, 2]);
    assert.throws(() => p.getMany([3]), /index 3 is out of range for 3 items/);
    assert.equal(new PartialDataset(d, 8, 20).len(), 2, 'end past the length is clipped');
    assert.equal(new PartialDataset(d, 12, 20).len(), 0);
  });
  it('splits as Burn: equal parts, the last takes the remainder', () => {
    assert.deepEqual(PartialDataset.split(d, 3).map(items), [
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8, 9],
    ]);
  });
  it('splits into whole batches (split_chunks)', () => {
    // 10 items, batch 3 → 4 batches over 3 parts: 2, 1, 1 batches.
    assert.deepEqual(PartialDataset.splitChunks(d, 3, 3).map(items), [[0, 1, 2, 3, 4, 5], [6, 7, 8], [9]]);
    // More parts than batches: empty parts are left out.
    assert.deepEqual(PartialDataset.splitChunks(new InMemDataset(range(4)), 3, 3).map(items), [[0, 1, 2], [3]]);
  });
  it('rejects bad ranges', () => {
    assert.throws(
      () => new PartialDataset(d, 5, 2),
      (e: unknown) => e instanceof BurnError && e.message === 'PartialDataset: start 5 > end 2; expected start <= end',
    );
    assert.throws(() => new PartialDataset(d, -1, 2), /start -1; expected a non-negative integer/);
    assert.throws(() => new PartialDataset(d, 0, 2.5), /end 2.5/);
    assert.throws(() => PartialDataset.split(d, 0), /num 0; expected a positive integer/);
    assert.throws(() => PartialDataset.splitChunks(d, 2, 0), /batchSize 0/);
  });
});

describe('SelectionDataset and ShuffledDataset', () => {
  const source = new InMemDataset(range(27).map((i) => `item${i}`));
  it('selects indices (with repeats), checked or not', () => {
    const s = SelectionDataset.fromIndicesChecked(source, [15, 1, 12, 12]);
    assert.deepEqual(items(s), ['item15', 'item1', 'item12', 'item12']);
    assert.deepEqual(s.getMany([3, 0]), ['item12', 'item15']);
    assert.throws(() => s.getMany([4]), /index 4 is out of range for 4 items/);
    assert.throws(
      () => SelectionDataset.fromIndicesChecked(source, [15, 1, 300]),
      /index 300 \(position 2\) is out of range for a dataset of 27 items/,
    );
    assert.equal(SelectionDataset.fromIndicesUnchecked(source, [300]).get(0), undefined);
  });
  it('slices and splits', () => {
    const all = SelectionDataset.newSelectAll(new InMemDataset(range(28)));
    assert.deepEqual(
      items(all.slice(5, 15)),
      range(10).map((i) => i + 5),
    );
    assert.deepEqual(
      all.split(3).map((d) => d.len()),
      [9, 9, 10],
    );
    assert.throws(() => all.slice(5, 29), /range \[5, 29\) of a selection of 28/);
  });
  it('shuffles reproducibly into a permutation', () => {
    const a = new ShuffledDataset(source, 42);
    const b = new ShuffledDataset(source, 42);
    const c = new ShuffledDataset(source, 43);
    assert.deepEqual(items(a), items(b));
    assert.notDeepEqual(items(a), items(c));
    assert.deepEqual([...items(a)].sort(), [...items(source)].sort());
    assert.deepEqual(
      items(a),
      a.indices().map((i) => `item${i}`),
    );
    assert.notDeepEqual(a.indices(), range(27));
    // Unseeded shuffles differ (with overwhelming probability over 27! orders).
    assert.notDeepEqual(new ShuffledDataset(source).indices(), new ShuffledDataset(source).indices());
    const sel = SelectionDataset.newShuffled(source, 42);
    assert.deepEqual(sel.selectedIndices(), a.indices(), 'ShuffledDataset wraps SelectionDataset.newShuffled');
    const again = SelectionDataset.newSelectAll(source);
    again.shuffle(42);
    assert.deepEqual(again.selectedIndices(), a.indices());
  });
  it('is lazy: reads only what is asked', () => {
    const counting = new Counting(1000);
    const s = new ShuffledDataset(counting, 7);
    assert.equal(counting.reads, 0);
    s.get(3);
    assert.equal(counting.reads, 1);
  });
});

describe('SamplerDataset', () => {
  const source = new InMemDataset(range(10));
  it('draws with replacement by default, reproducibly, stable per index', () => {
    const s = new SamplerDataset(source, { size: 1000, seed: 5 });
    assert.equal(s.len(), 1000);
    assert.equal(s.isWithReplacement(), true);
    const drawn = items(s) as number[];
    assert.deepEqual(items(new SamplerDataset(source, { size: 1000, seed: 5 })), drawn);
    assert.deepEqual(items(s), drawn, 'get(i) returns the same item every time');
    const counts = range(10).map((v) => drawn.filter((x) => x === v).length);
    for (const c of counts)
      assert.ok(c > 60 && c < 140, `each of 10 values drawn about 100 times of 1000, got ${counts}`);
    assert.equal(new SamplerDataset(source, 25).len(), 25);
    assert.equal(s.get(1000), undefined);
  });
  it('draws without replacement: every item once before repeats', () => {
    const s = new SamplerDataset(source, { size: 25, replacement: false, seed: 3 });
    const drawn = items(s) as number[];
    const counts = range(10).map((v) => drawn.filter((x) => x === v).length);
    assert.equal(counts.filter((c) => c === 3).length, 5, `25 = 2 full passes + 5 distinct: ${counts}`);
    assert.equal(counts.filter((c) => c === 2).length, 5);
    const subset = items(new SamplerDataset(source, { size: 7, replacement: false, seed: 3 })) as number[];
    assert.equal(new Set(subset).size, 7, 'fewer than len: all distinct');
  });
  it('sizes by ratio, defaults to the source size', () => {
    assert.equal(new SamplerDataset(source, { ratio: 1.5 }).len(), 15);
    assert.equal(new SamplerDataset(source, { ratio: 0.25 }).len(), 2);
    assert.equal(new SamplerDataset(source).len(), 10);
  });
  it('rejects bad options', () => {
    assert.throws(() => new SamplerDataset(source, { size: 3, ratio: 1 }), /both size 3 and ratio 1/);
    assert.throws(() => new SamplerDataset(source, { size: -1 }), /size -1/);
    assert.throws(() => new SamplerDataset(source, { ratio: -0.5 }), /ratio -0.5/);
    assert.throws(() => new SamplerDataset(new InMemDataset([]), 3), /cannot draw 3 items from an empty dataset/);
    assert.throws(() => new SamplerDataset(source, { seed: 1.5 }), /seed 1.5/);
  });
});

describe('WindowsDataset', () => {
  const d = new InMemDataset([1, 2, 3, 4, 5]);
  it('matches sliding windows', () => {
    assert.deepEqual(items(new WindowsDataset(d, 3)), [
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 5],
    ]);
    assert.deepEqual(
      [...windows(d, 3)],
      [
        [1, 2, 3],
        [2, 3, 4],
        [3, 4, 5],
      ],
    );
    assert.deepEqual(window(d, 1, 2), [2, 3]);
    assert.equal(window(d, 4, 2), undefined);
    assert.equal(new WindowsDataset(new InMemDataset([1, 2, 3, 4]), 2).len(), 3);
    assert.equal(new WindowsDataset(new InMemDataset([1, 2]), 4).len(), 0);
    assert.equal(new WindowsDataset(new InMemDataset([1, 2]), 4).get(0), undefined);
    assert.deepEqual([...windows(new InMemDataset([1, 2]), 4)], []);
  });
  it('rejects a zero window', () => {
    assert.throws(
      () => new WindowsDataset(d, 0),
      (e: unknown) =>
        e instanceof BurnError && e.message === 'WindowsDataset: window size 0; expected a positive integer',
    );
    assert.throws(() => windows(d, 0).next(), /window size 0/);
  });
});

describe('FakeDataset', () => {
  it('generates reproducible items', () => {
    const a = new FakeDataset(20, undefined, { seed: 9 });
    assert.equal(a.len(), 20);
    assert.deepEqual(items(a), items(new FakeDataset(20, undefined, { seed: 9 })));
    for (const s of items(a) as string[]) assert.match(s, /^[A-Za-z0-9]{1,16}$/);
    const points = new FakeDataset(5, (rng, i) => ({ i, x: rng.nextFloat() }), { seed: 1 });
    assert.deepEqual(points.get(3)!.i, 3);
    assert.ok(points.get(3)!.x >= 0 && points.get(3)!.x < 1);
    assert.throws(() => new FakeDataset(-2), /size -2/);
  });
});
