// The page of the Web Worker data loader test (bundled by ../data-workers.test.ts): one epoch of a
// shuffled, partial dataset loaded by two Web Workers, beside the same epoch on the main thread,
// then the errors a page can meet.
import { DataLoaderBuilder, PartialDataset, type Batcher } from '../../../src/data/index.browser.js';
import { Device } from '../../../src/index.js';
import { Squares, type Square } from './squares.js';

/** What the page reports to the test. */
export interface DataWorkersResult {
  readonly mode: string;
  readonly modeWithoutWebWorker: string;
  readonly workerBatches: Square[][];
  readonly pageBatches: Square[][];
  readonly unknownFactory: string;
  readonly missingEntry: string;
}

const identity: Batcher<Square, Square[]> = { batch: (items) => items };
const device = Device.cpu({ engine: 'js' });
const spawn = () => new Worker('/data-worker.js', { type: 'module' });

async function epoch(loader: AsyncIterable<Square[]>): Promise<Square[][]> {
  const out: Square[][] = [];
  for await (const batch of loader) out.push(batch);
  return out;
}

async function run(): Promise<DataWorkersResult> {
  const dataset = new PartialDataset(new Squares(50), 5, 45);
  const builder = () => new DataLoaderBuilder(identity).batchSize(8).shuffle(7).setDevice(device);
  const inWorkers = builder().numWorkers(2).webWorker(spawn).build(dataset);
  const workerBatches = await epoch(inWorkers);
  await inWorkers.close();
  const pageBatches = await epoch(builder().build(dataset));
  const unknown = builder().numWorkers(1).webWorker(spawn).build(new Squares(4, 'openUnknown'));
  const unknownFactory = await epoch(unknown).then(
    () => 'no error',
    (e: Error) => `${e.name}: ${e.message}`,
  );
  await unknown.close();
  const badEntry = builder()
    .numWorkers(1)
    .webWorker(() => new Worker('/missing.js', { type: 'module' }))
    .timeout(20_000)
    .build(new Squares(4));
  const missingEntry = await epoch(badEntry).then(
    () => 'no error',
    (e: Error) => `${e.name}: ${e.message}`,
  );
  await badEntry.close();
  return {
    mode: inWorkers.loadingMode(),
    modeWithoutWebWorker: builder().numWorkers(2).build(dataset).loadingMode(),
    workerBatches,
    pageBatches,
    unknownFactory,
    missingEntry,
  };
}

(globalThis as { burnResult?: unknown }).burnResult = run().catch((e: Error) => ({ error: `${e.name}: ${e.message}` }));
