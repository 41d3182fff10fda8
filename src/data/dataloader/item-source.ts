import { getMany, type Dataset } from '../dataset/dataset.js';
import { awaitItems } from './await-items.js';

/** Where a data loader's items come from: the main thread, or worker threads. */
export interface ItemSource {
  /** `main-thread` or `workers`. */
  readonly mode: 'main-thread' | 'workers';
  /** Loads the items at `indices`; `slot` is the batch number (workers take turns by it). */
  load(indices: readonly number[], slot: number): Promise<unknown[]>;
  /** Releases what the source holds. */
  close(): Promise<void>;
}

/**
 * Loads items on the main thread, each batch in a macrotask of its own, so a batch requested
 * ahead (prefetched) is read while the consumer awaits something else. Items returned as
 * promises are awaited (a rejection rejects the batch).
 */
export class MainThreadSource implements ItemSource {
  readonly mode = 'main-thread';

  constructor(private readonly dataset: Dataset<unknown>) {}

  load(indices: readonly number[]): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      nextMacrotask(() => {
        try {
          resolve(awaitItems(getMany(this.dataset, indices, 'DataLoader')));
        } catch (e) {
          reject(e as Error);
        }
      });
    });
  }

  async close(): Promise<void> {}
}

/** `setImmediate` in Node; a zero-delay timer in browsers, which have no setImmediate. */
const nextMacrotask: (run: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);
