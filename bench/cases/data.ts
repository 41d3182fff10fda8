/**
 * Data loading: `burn-ts/data`'s loader, on its own — no peer runs the same loader, so
 * this family prints its own table after the main one instead of adding rows to it.
 *
 * - **MNIST throughput**: items/s of an epoch of MNIST batches of 64 (shuffled) with 0, 1 and 2
 *   worker threads, once with the API contract's `MnistBatcher` (tensors [64, 28, 28] normalised
 *   on the CPU device) and once with a batcher that only counts (the loader's own cost). The
 *   dataset is whatever `MnistDataset.train()` reads here (IDX files in the cache, else the npm
 *   package's 8 571 training digits). Each value is the median of the timed epochs, after an
 *   epoch that starts the workers.
 * - **Overlap**: a dataset that sleeps 2 ms per item (Atomics.wait: I/O-like, no CPU) in 10
 *   batches of 10, and a consumer that keeps the main thread busy 20 ms per batch. Loading on the
 *   main thread, an epoch takes the sum (10 × (20 + 20) = 400 ms); with workers, close to the
 *   larger of the two (10 × 20 ms = 200 ms, plus the first batch).
 *
 * `npm run bench` runs it after the main table: this module registers itself when
 * bench/cases/index.ts imports it, and runs when there is no `--filter` or one of the filters is
 * part of "data loader mnist overlap" (the main table needs a filter matching its own cases too,
 * e.g. `--filter add-2x2,data`); `--quick` shortens it. `node --import tsx bench/cases/data.ts
 * [--quick]` runs it alone.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import {
  DataLoaderBuilder,
  MnistDataset,
  type Batcher,
  type Dataset,
  type MnistItem,
  type WorkerRecipe,
} from '../../src/data/index.js';
import { Device, Tensor, type Int } from '../../src/index.js';
import { parseArgs } from '../lib/cli.js';

const WORKERS = [0, 1, 2] as const;

/** The API contract's MNIST batcher (test/api-contract/mnist-batcher.ts). */
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

/** A dataset whose items take `ms` to load (the thread sleeps), reopenable in workers. */
export class SleepyDataset implements Dataset<{ index: number; thread: number }> {
  constructor(
    readonly n: number,
    readonly ms: number,
  ) {}
  get(index: number): { index: number; thread: number } | undefined {
    if (index < 0 || index >= this.n) return undefined;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.ms);
    return { index, thread: threadId };
  }
  len(): number {
    return this.n;
  }
  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: 'openSleepyDataset', args: { n: this.n, ms: this.ms } };
  }
}

/** Worker factory of {@link SleepyDataset}. */
export function openSleepyDataset(args: { n: number; ms: number }): SleepyDataset {
  return new SleepyDataset(args.n, args.ms);
}

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Seconds of each timed epoch (after one that starts the workers), consuming batches with `consume`. */
async function epochs<I, O>(
  dataset: Dataset<I>,
  batcher: Batcher<I, O>,
  options: { batch: number; workers: number; epochs: number; consume?: (b: O) => void },
): Promise<number[]> {
  const loader = new DataLoaderBuilder(batcher)
    .batchSize(options.batch)
    .shuffle(1)
    .numWorkers(options.workers)
    .setDevice(Device.cpu())
    .build(dataset);
  try {
    for await (const b of loader) {
      options.consume?.(b);
    }
    const out: number[] = [];
    for (let e = 0; e < options.epochs; e++) {
      const start = performance.now();
      for await (const b of loader) options.consume?.(b);
      out.push((performance.now() - start) / 1000);
    }
    return out;
  } finally {
    await loader.close();
  }
}

/** Runs the data loader benchmark and prints its table. */
export async function runDataBench(options: { quick: boolean }): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const load0 = loadavg()[0]!;
  const started = Date.now();
  const mnist = MnistDataset.train();
  const timed = options.quick ? 1 : 3;
  const rows: [string, string, string[]][] = [];

  for (const [title, batcher] of [
    ['MNIST batches of 64, MnistBatcher (tensors)', new MnistBatcher()],
    ['MNIST batches of 64, loading only (counting batcher)', { batch: (items: MnistItem[]) => items.length }],
  ] as const) {
    const cells: string[] = [];
    for (const workers of WORKERS) {
      const seconds = await epochs<MnistItem, unknown>(mnist, batcher as Batcher<MnistItem, unknown>, {
        batch: 64,
        workers,
        epochs: timed,
      });
      const rate = mnist.len() / median(seconds);
      log(`[data] ${title} · ${workers} workers: ${Math.round(rate)} items/s`);
      cells.push(`${Math.round(rate).toLocaleString('en-US')}`);
    }
    rows.push([title, 'items/s', cells]);
  }

  const sleepy = new SleepyDataset(100, 2);
  const cells: string[] = [];
  for (const workers of WORKERS) {
    const seconds = await epochs(
      sleepy,
      { batch: (items: unknown[]) => items.length },
      { batch: 10, workers, epochs: timed, consume: () => busy(20) },
    );
    const ms = median(seconds) * 1000;
    log(`[data] overlap · ${workers} workers: ${ms.toFixed(0)} ms per epoch`);
    cells.push(ms.toFixed(0));
  }
  rows.push([
    'overlap: 10 batches × 10 items × 2 ms load, 20 ms consumer per batch (sum 400 ms, max 200 ms)',
    'ms/epoch',
    cells,
  ]);

  const source =
    mnist.source.kind === 'idx' ? `IDX files (${mnist.len()} items)` : `${mnist.source.package} (${mnist.len()} items)`;
  console.log(`\n## burn-ts data loader${options.quick ? ' (quick)' : ''}\n`);
  console.log(`| case | unit | ${WORKERS.map((w) => `${w} worker${w === 1 ? '' : 's'}`).join(' | ')} |`);
  console.log(`|---|---|${WORKERS.map(() => '---:').join('|')}|`);
  for (const [title, unit, values] of rows) console.log(`| ${title} | ${unit} | ${values.join(' | ')} |`);
  console.log('');
  console.log(
    `Values: median of ${timed} epoch${timed === 1 ? '' : 's'} after a warm-up epoch; MNIST from ${source}; device Device.cpu().`,
  );
  console.log(
    `- machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; load average ${load0.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

/** Filter words that select this family in `npm run bench -- --filter …`. */
export const DATA_BENCH_KEYWORDS = 'data loader mnist overlap';

// `node --import tsx bench/cases/data.ts [--quick]` runs this family alone.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const options = parseArgs(process.argv.slice(2));
  await runDataBench({ quick: options.quick });
}
