// The data loader: batches, per-epoch seeded shuffles, identical batches with 0, 1 and 2 worker
// threads, slicing, devices, errors from workers, and loading overlapped with consumption.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { threadId } from 'node:worker_threads';
import { BurnError, Device, Tensor, type Int } from '../../src/index.js';
import {
  DataLoaderBuilder,
  ImageFolderDataset,
  InMemDataset,
  MapperDataset,
  MnistDataset,
  PartialDataset,
  SamplerDataset,
  ShuffledDataset,
  splitDataloader,
  SqliteDataset,
  SqliteDatasetWriter,
  type Batcher,
  type DataLoader,
  type Dataset,
  type MnistItem,
} from '../../src/data/index.js';
import {
  AsyncDataset,
  BrokenRecipeDataset,
  busy,
  HangingDataset,
  now,
  OffsetMapper,
  PlainDataset,
  SlowDataset,
  type Traced,
} from './helpers/datasets.js';

const dir = mkdtempSync(join(tmpdir(), 'burn-ts-loader-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const burnError = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);

/** Batches of indices (and the threads that loaded them, and the device). */
const indexBatcher: Batcher<Traced, { indices: number[]; threads: number[]; device: Device }> = {
  batch: (items, device) => ({ indices: items.map((i) => i.index), threads: items.map((i) => i.thread), device }),
};
const valueBatcher = <T>(): Batcher<T, T[]> => ({ batch: (items) => items });

async function collect<O>(loader: DataLoader<O>, limit = Infinity): Promise<O[]> {
  const out: O[] = [];
  for await (const b of loader) {
    out.push(b);
    if (out.length >= limit) break;
  }
  return out;
}
const indicesOf = async (loader: DataLoader<{ indices: number[] }>): Promise<number[][]> =>
  (await collect(loader)).map((b) => b.indices);

/** The MNIST batcher of the API contract: images [B, 28, 28] normalised, targets [B]. */
class MnistBatcher implements Batcher<MnistItem, { images: Tensor<3>; targets: Tensor<1, Int> }> {
  batch(items: MnistItem[], device: Device) {
    const images = items.map((item) =>
      Tensor.fromFloats(item.image, device).reshape([1, 28, 28]).div(255).sub(0.1307).div(0.3081),
    );
    return {
      images: Tensor.cat(images, 0),
      targets: Tensor.cat(
        items.map((item) => Tensor.fromInts([item.label], device)),
        0,
      ),
    };
  }
}

describe('DataLoader batches and shuffles', () => {
  it('batches in order, the last batch smaller, with progress', async () => {
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(4).build(new SlowDataset(10));
    assert.equal(loader.numItems(), 10);
    assert.equal(loader.numBatches(), 3);
    assert.equal(loader.loadingMode(), 'main-thread');
    const it = loader.iter();
    assert.deepEqual(it.progress(), { itemsProcessed: 0, itemsTotal: 10, unit: 'items' });
    assert.deepEqual((await it.next()).value.indices, [0, 1, 2, 3]);
    assert.deepEqual(it.progress(), { itemsProcessed: 4, itemsTotal: 10, unit: 'items' });
    assert.deepEqual((await it.next()).value.indices, [4, 5, 6, 7]);
    assert.deepEqual((await it.next()).value.indices, [8, 9]);
    assert.equal((await it.next()).done, true);
    assert.equal(it.progress().itemsProcessed, 10);
    assert.deepEqual(
      await indicesOf(new DataLoaderBuilder(indexBatcher).build(new SlowDataset(3))),
      [[0], [1], [2]],
      'batch size 1 by default',
    );
    assert.deepEqual(await indicesOf(new DataLoaderBuilder(indexBatcher).batchSize(4).build(new SlowDataset(0))), []);
  });

  it('shuffles every epoch differently, reproducibly from the seed', async () => {
    const make = (seed: number) =>
      new DataLoaderBuilder(indexBatcher).batchSize(5).shuffle(seed).build(new SlowDataset(40));
    const a = make(42);
    const epoch0 = (await indicesOf(a)).flat();
    const epoch1 = (await indicesOf(a)).flat();
    const b = make(42);
    assert.deepEqual((await indicesOf(b)).flat(), epoch0, 'same seed, same first epoch');
    assert.deepEqual((await indicesOf(b)).flat(), epoch1, 'same seed, same second epoch');
    assert.notDeepEqual(epoch0, epoch1, 'a new order each epoch');
    for (const e of [epoch0, epoch1])
      assert.deepEqual(
        [...e].sort((x, y) => x - y),
        Array.from({ length: 40 }, (_, i) => i),
      );
    assert.notDeepEqual((await indicesOf(make(43))).flat(), epoch0);
    assert.notDeepEqual(
      epoch0,
      Array.from({ length: 40 }, (_, i) => i),
    );
  });

  it('starts a fresh epoch after a break', async () => {
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(3).build(new SlowDataset(9));
    const first = await collect(loader, 1);
    assert.deepEqual(first[0]!.indices, [0, 1, 2]);
    assert.deepEqual((await indicesOf(loader)).flat(), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('DataLoader workers', () => {
  it('gives identical MNIST batches (tensors) with 0, 1 and 2 workers', async () => {
    const dataset = MnistDataset.train({ dir: join(dir, 'no-idx') });
    const device = Device.cpu();
    const runs: { images: number[][]; targets: number[]; labels: number[] }[] = [];
    for (const workers of [0, 1, 2]) {
      const loader = new DataLoaderBuilder(new MnistBatcher())
        .batchSize(64)
        .shuffle(7)
        .numWorkers(workers)
        .setDevice(device)
        .build(dataset);
      assert.equal(loader.loadingMode(), workers === 0 ? 'main-thread' : 'workers');
      const images: number[][] = [];
      const targets: number[] = [];
      for await (const batch of loader) {
        assert.deepEqual(batch.images.dims(), [64, 28, 28]);
        images.push(Array.from((await batch.images.toData()).toArray()));
        targets.push(...Array.from((await batch.targets.toData()).toArray()));
        if (images.length === 8) break;
      }
      await loader.close();
      // A whole epoch (labels only, to keep the test fast): the same order whatever the workers.
      const labels = new DataLoaderBuilder<MnistItem, number[]>({ batch: (items) => items.map((x) => x.label) })
        .batchSize(64)
        .shuffle(7)
        .numWorkers(workers)
        .build(dataset);
      runs.push({ images, targets, labels: (await collect(labels)).flat() });
      await labels.close();
    }
    assert.equal(runs[0]!.labels.length, dataset.len());
    assert.deepEqual(runs[0]!.targets, runs[0]!.labels.slice(0, 8 * 64));
    assert.deepEqual(runs[1], runs[0]);
    assert.deepEqual(runs[2], runs[0]);
  });

  it('loads in worker threads: transforms, SQLite and image folders, the same batches as the main thread', async () => {
    // A transform chain over a user dataset whose recipe names a TypeScript module (workers load it through tsx).
    const chain = new MapperDataset(
      new PartialDataset(new ShuffledDataset(new SlowDataset(50), 3), 5, 45),
      new OffsetMapper(1000),
    );
    const db = join(dir, 'items.db');
    const w = new SqliteDatasetWriter<{ index: number }>(db);
    for (let i = 0; i < 30; i++) w.write('train', { index: i });
    w.close();
    const images = join(dir, 'images');
    const { PNG } = createRequire(import.meta.url)('pngjs') as {
      PNG: { sync: { write(p: { width: number; height: number; data: Uint8Array }): Buffer } };
    };
    for (let i = 0; i < 6; i++) {
      mkdirSync(join(images, `class${i % 2}`), { recursive: true });
      writeFileSync(
        join(images, `class${i % 2}`, `${i}.png`),
        PNG.sync.write({ width: 2, height: 2, data: new Uint8Array(16).fill(i * 10) }),
      );
    }
    const cases: [string, Dataset<unknown>][] = [
      ['transforms', chain],
      [
        'sampler',
        new SamplerDataset(new InMemDataset(Array.from({ length: 20 }, (_, i) => ({ i }))), { size: 30, seed: 1 }),
      ],
      ['sqlite', new SqliteDataset(db, 'train')],
      ['image folder', ImageFolderDataset.newClassification(images)],
    ];
    for (const [name, dataset] of cases) {
      const results: unknown[] = [];
      for (const workers of [0, 2]) {
        const loader = new DataLoaderBuilder(valueBatcher<unknown>())
          .batchSize(4)
          .shuffle(11)
          .numWorkers(workers)
          .build(dataset);
        assert.equal(loader.loadingMode(), workers === 0 ? 'main-thread' : 'workers', name);
        results.push(
          (await collect(loader))
            .flat()
            .map((x) => (x && typeof x === 'object' && 'thread' in x ? { ...x, thread: 0 } : x)),
        );
        await loader.close();
      }
      assert.deepEqual(results[1], results[0], name);
      assert.equal((results[0] as unknown[]).length, dataset.len(), name);
    }
  });

  it('loads items off the main thread, in every worker', async () => {
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(2).numWorkers(2).build(new SlowDataset(12, 1));
    const batches = await collect(loader);
    await loader.close();
    assert.deepEqual(
      batches.flatMap((b) => b.indices),
      Array.from({ length: 12 }, (_, i) => i),
    );
    const threads = new Set(batches.flatMap((b) => b.threads));
    assert.equal(threads.has(threadId), false, 'no item was loaded on the main thread');
    assert.equal(threads.size, 2, 'both workers loaded items');
  });

  it('loads a dataset without a recipe on the main thread, with a warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }): void => void warnings.push(`${w.code}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const loader = new DataLoaderBuilder(indexBatcher).batchSize(4).numWorkers(2).build(new PlainDataset(10));
      assert.equal(loader.loadingMode(), 'main-thread');
      const batches = await collect(loader);
      assert.deepEqual(
        batches.flatMap((b) => b.indices),
        Array.from({ length: 10 }, (_, i) => i),
      );
      assert.ok(batches.every((b) => b.threads.every((t) => t === threadId)));
      await new Promise((r) => setImmediate(r));
      assert.equal(warnings.length, 1);
      assert.match(
        warnings[0]!,
        /^BURN_DATALOADER_MAIN_THREAD: PlainDataset cannot be reopened in a worker thread \(it, or a dataset or Mapper inside it, has no workerRecipe\(\)\)/,
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('reports a failing item as a BurnError, with workers or without', async () => {
    for (const workers of [0, 2]) {
      const loader = new DataLoaderBuilder(indexBatcher)
        .batchSize(4)
        .numWorkers(workers)
        .build(new SlowDataset(20, 0, 9));
      const seen: number[][] = [];
      await assert.rejects(
        (async () => {
          for await (const b of loader) seen.push(b.indices);
        })(),
        workers === 0 ? /item 9 is broken/ : burnError(/^DataLoader: data loader worker 0: Error: item 9 is broken$/),
      );
      assert.deepEqual(
        seen,
        [
          [0, 1, 2, 3],
          [4, 5, 6, 7],
        ],
        'the batches before the failing one arrive',
      );
      await loader.close();
    }
    const broken = new DataLoaderBuilder(indexBatcher).numWorkers(1).build(new BrokenRecipeDataset(3));
    await assert.rejects(
      collect(broken),
      burnError(
        /data loader worker 0 cannot reopen the dataset: Error: the recipe names export 'noSuchFactory' of .*datasets\.ts, which is not a function/,
      ),
    );
    await broken.close();
    const unclonable = new DataLoaderBuilder(valueBatcher<{ f: () => number }>())
      .numWorkers(1)
      .build(new InMemDataset([{ f: () => 1 }]));
    await assert.rejects(
      collect(unclonable),
      burnError(
        /^DataLoader: cannot send the dataset to a worker thread \(.*could not be cloned.*\); a recipe's arguments, and the items of in-memory data, must survive a structured clone$/,
      ),
    );
    await unclonable.close(); // a pool that never started closes quietly
    const holes: Dataset<Traced> = { get: (i) => (i === 2 ? undefined : { index: i, thread: 0 }), len: () => 4 };
    await assert.rejects(
      collect(new DataLoaderBuilder(indexBatcher).batchSize(4).build(holes)),
      burnError(/^DataLoader: index 2 is out of range for a dataset of 4 items/),
    );
  });

  it('stops its workers on close() and starts them again when iterated', async () => {
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(5).numWorkers(1).build(new SlowDataset(10));
    assert.equal((await collect(loader)).length, 2);
    await loader.close();
    assert.equal((await collect(loader)).length, 2);
    await loader[Symbol.asyncDispose]();
  });

  it('overlaps loading with consumption: with workers, items load while the consumer works', async (t) => {
    // 10 batches of 2 items at 10 ms each (20 ms to load a batch), and a consumer busy for 20 ms
    // per batch. Items record when they were loaded; the share of loading time that fell inside
    // the consumer's busy periods is 0 on the main thread and most of it with workers. (Wall
    // times depend on the machine's load; bench/cases/data.ts reports them.)
    const epoch = async (workers: number): Promise<{ ms: number; overlap: number }> => {
      const loader = new DataLoaderBuilder(valueBatcher<Traced>())
        .batchSize(2)
        .numWorkers(workers)
        .build(new SlowDataset(20, 10));
      await collect(loader, 1); // starts the workers
      const busyPeriods: [number, number][] = [];
      const loaded: Traced[] = [];
      const start = performance.now();
      for await (const batch of loader) {
        loaded.push(...batch);
        const from = now();
        busy(20);
        busyPeriods.push([from, now()]);
      }
      const ms = performance.now() - start;
      await loader.close();
      let inside = 0;
      let total = 0;
      for (const item of loaded) {
        total += item.end! - item.start!;
        for (const [a, b] of busyPeriods) inside += Math.max(0, Math.min(b, item.end!) - Math.max(a, item.start!));
      }
      return { ms, overlap: inside / total };
    };
    const main = await epoch(0);
    const workers = await epoch(2);
    t.diagnostic(
      `main thread: ${main.ms.toFixed(0)} ms, ${(100 * main.overlap).toFixed(0)}% of loading overlapped; 2 workers: ${workers.ms.toFixed(0)} ms, ${(100 * workers.overlap).toFixed(0)}% overlapped`,
    );
    assert.equal(main.overlap, 0, 'on the main thread, loading and consuming alternate');
    assert.ok(
      workers.overlap > 0.5,
      `with workers most loading happens while the consumer works: ${(100 * workers.overlap).toFixed(0)}%`,
    );
  });
});

describe('DataLoader failures (hostile datasets)', () => {
  it('awaits items a get() returns as promises; a rejection is the error of the iteration, nothing unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const workers of [0, 1]) {
        const ok = new DataLoaderBuilder(indexBatcher).batchSize(3).numWorkers(workers).build(new AsyncDataset(7));
        assert.deepEqual(await indicesOf(ok), [[0, 1, 2], [3, 4, 5], [6]], `${workers} workers`);
        await ok.close();
        const loader = new DataLoaderBuilder(indexBatcher)
          .batchSize(3)
          .numWorkers(workers)
          .build(new AsyncDataset(12, 4));
        const seen: number[][] = [];
        await assert.rejects(
          (async () => {
            for await (const b of loader) seen.push(b.indices);
          })(),
          workers === 0
            ? (e: unknown) => e instanceof Error && e.message === 'item 4 rejected'
            : burnError(/^DataLoader: data loader worker 0: Error: item 4 rejected$/),
        );
        assert.deepEqual(seen, [[0, 1, 2]], 'the batch before the failing one arrives');
        await loader.close();
      }
      // A rejected promise and, later in the same batch, an item that throws: the throw is the error, the rejection is not unhandled.
      const mixed: Dataset<Traced> = {
        get: (i) => {
          if (i === 2) throw new Error('item 2 throws');
          return (i === 1
            ? Promise.reject(new Error('item 1 rejected'))
            : Promise.resolve({ index: i, thread: 0 })) as unknown as Traced;
        },
        len: () => 4,
      };
      await assert.rejects(collect(new DataLoaderBuilder(indexBatcher).batchSize(4).build(mixed)), /item 2 throws/);
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('refuses a dataset whose len() is not a non-negative integer', async () => {
    for (const len of [Number.NaN, 2.5, -5, Infinity, '3' as unknown as number]) {
      const dataset: Dataset<Traced> = { get: (i) => ({ index: i, thread: 0 }), len: () => len };
      const message = `DataLoader: dataset Object has len() ${typeof len === 'string' ? '"3"' : len}; expected a non-negative integer`;
      const same = (e: unknown) => e instanceof BurnError && e.message === message;
      assert.throws(
        () => new DataLoaderBuilder(indexBatcher).batchSize(2).build(dataset),
        (e: unknown) =>
          e instanceof BurnError && e.message === message.replace('DataLoader:', 'DataLoaderBuilder.build:'),
      );
      // len() may change after build: every epoch checks it again.
      let current = 4;
      const changing: Dataset<Traced> = { get: (i) => ({ index: i, thread: 0 }), len: () => current };
      const loader = new DataLoaderBuilder(indexBatcher).batchSize(2).build(changing);
      current = len;
      await assert.rejects(collect(loader), same);
      assert.throws(() => loader.numItems(), same);
      assert.throws(() => loader.numBatches(), same);
    }
  });

  it('ends a stuck worker after timeout(ms): a BurnError naming the worker and the batch, no hang', async () => {
    const hung = new HangingDataset(12, 5);
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(2).numWorkers(2).timeout(1000).build(hung);
    const seen: number[][] = [];
    const start = performance.now();
    await assert.rejects(
      (async () => {
        for await (const b of loader) seen.push(b.indices);
      })(),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          'DataLoader: data loader worker 0 delivered nothing for 1000 ms while loading batch 2 (items [4, 5]); it was terminated (the timeout is set by DataLoaderBuilder.timeout)',
    );
    assert.ok(performance.now() - start < 8000, `${performance.now() - start} ms`);
    assert.deepEqual(seen, [
      [0, 1],
      [2, 3],
    ]);
    // The worker was replaced: the next epoch runs (the dataset hangs only once).
    assert.deepEqual(
      (await indicesOf(loader)).flat(),
      Array.from({ length: 12 }, (_, i) => i),
    );
    await loader.close();
    assert.throws(
      () => new DataLoaderBuilder(indexBatcher).timeout(-1),
      burnError(/^DataLoaderBuilder\.timeout: timeout -1; expected an integer >= 0 \(milliseconds, 0 for none\)$/),
    );
  });
});

describe('DataLoader slices and devices', () => {
  it('slices the dataset, keeping batch size and workers', async () => {
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(2).numWorkers(1).build(new SlowDataset(10));
    const part = loader.slice(3, 8);
    assert.equal(part.numItems(), 5);
    assert.equal(part.loadingMode(), 'workers');
    assert.deepEqual(await indicesOf(part), [[3, 4], [5, 6], [7]]);
    await part.close();
    assert.throws(
      () => loader.slice(3, 11),
      burnError(/^DataLoader\.slice: range \[3, 11\) of 10 items; expected 0 <= start <= end <= 10$/),
    );
    assert.throws(() => loader.slice(5, 4), BurnError);
    // A shuffled slice is a permutation of its range, reproducible.
    const shuffled = new DataLoaderBuilder(indexBatcher).batchSize(20).shuffle(3).build(new SlowDataset(30));
    const s1 = (await indicesOf(shuffled.slice(10, 20))).flat();
    assert.deepEqual(
      [...s1].sort((a, b) => a - b),
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
    );
    const again = new DataLoaderBuilder(indexBatcher).batchSize(20).shuffle(3).build(new SlowDataset(30));
    assert.deepEqual((await indicesOf(again.slice(10, 20))).flat(), s1);
  });

  it('moves to a device and splits into one loader per device', async () => {
    const cpu = Device.cpu();
    const ad = cpu.autodiff();
    const loader = new DataLoaderBuilder(indexBatcher).batchSize(3).setDevice(cpu).build(new SlowDataset(10));
    assert.equal(loader.device, cpu);
    const moved = loader.toDevice(ad);
    assert.equal(moved.device, ad);
    assert.ok((await collect(moved)).every((b) => b.device === ad));
    const [a, b] = splitDataloader(loader, [cpu, ad]);
    assert.deepEqual(await indicesOf(a!), [
      [0, 1, 2],
      [3, 4],
    ]);
    assert.deepEqual(await indicesOf(b!), [
      [5, 6, 7],
      [8, 9],
    ]);
    assert.ok((await collect(b!)).every((x) => x.device === ad));
    const three = splitDataloader(loader, [cpu, cpu, ad]);
    assert.deepEqual(
      three.map((l) => l.numItems()),
      [3, 3, 4],
    );
    assert.equal(splitDataloader(loader, [ad])[0]!.device, ad);
    assert.throws(() => splitDataloader(loader, []), burnError(/no devices; expected at least one/));
    assert.throws(() => loader.toDevice('cpu' as unknown as Device), burnError(/expected a Device/));
  });

  it('validates the builder', () => {
    const b = new DataLoaderBuilder(indexBatcher);
    assert.throws(
      () => b.batchSize(0),
      (e: unknown) =>
        e instanceof BurnError && e.message === 'DataLoaderBuilder.batchSize: batch size 0; expected an integer >= 1',
    );
    assert.throws(() => b.numWorkers(-1), burnError(/numWorkers -1; expected an integer >= 0/));
    assert.throws(() => b.shuffle(1.5), burnError(/seed 1\.5/));
    assert.throws(() => b.prefetch(-1), burnError(/prefetch -1/));
    assert.throws(() => b.setDevice({} as Device), burnError(/expected a Device/));
    assert.throws(() => b.build([1, 2] as unknown as Dataset<Traced>), burnError(/expected a Dataset/));
    assert.throws(() => new DataLoaderBuilder({} as Batcher<Traced, number>), burnError(/expected a Batcher/));
  });
});
