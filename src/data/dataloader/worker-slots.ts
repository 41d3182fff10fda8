import { BurnError } from '../../core/errors.js';
import { decodeItems } from './item-codec.js';
import type { ItemSource } from './item-source.js';
import type { LoadRequest, WorkerReply } from './worker-protocol.js';

/**
 * One data loader worker as the pool sees it, whatever runs it: a Node worker thread or a Web
 * Worker. The adapters (worker-pool.ts, worker-pool.browser.ts) map their platform's events here.
 */
export interface WorkerPort {
  post(message: LoadRequest): void;
  /** Keeps the process alive while a request is pending (worker threads); a no-op in pages. */
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

/** What an adapter calls back with. */
export interface WorkerEvents {
  reply(reply: WorkerReply): void;
  /** The worker failed (an uncaught error, a message that could not be read) or exited. */
  failed(message: string): void;
}

interface Pending {
  readonly resolve: (items: unknown[]) => void;
  readonly reject: (error: Error) => void;
  /** The batch number and its item indices, for the timeout's message. */
  readonly batch: number;
  readonly indices: readonly number[];
}

interface Slot {
  readonly k: number;
  readonly port: WorkerPort;
  /** Requests sent and not answered, oldest first (the timeout names the oldest; any reply restarts it). */
  readonly pending: Map<number, Pending>;
  failure: BurnError | undefined;
  /** True once the worker has reopened the dataset: the timeout counts from then. */
  ready: boolean;
  /** Ended on purpose (timeout or close): its exit is no failure. */
  ended: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** `[0, 1, 2, …]`, at most 8 indices shown. */
function preview(indices: readonly number[]): string {
  return `[${indices.slice(0, 8).join(', ')}${indices.length > 8 ? `, … (${indices.length} items)` : ''}]`;
}

/**
 * Data loader workers: each reopens the dataset from its recipe and loads the items of the
 * requests it receives. The workers live as long as the pool (across epochs). With a timeout, a
 * worker that delivers nothing for that long is terminated (its requests fail with a `BurnError`
 * naming it and the batch) and replaced by a fresh one. Subclasses say how a worker starts.
 */
export abstract class WorkerSlots implements ItemSource {
  readonly mode = 'workers';
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly timeoutMs: number) {}

  /** Starts worker `k`; its events go to `events`. Throws a BurnError when it cannot start. */
  protected abstract spawn(k: number, events: WorkerEvents): WorkerPort;

  /** Starts the `numWorkers` workers (called by the subclass's constructor, once it is set up). */
  protected start(numWorkers: number): void {
    for (let k = 0; k < numWorkers; k++) this.slots.push(this.open(k));
  }

  private open(k: number): Slot {
    // The slot exists before its port: a worker may fail while it is being created.
    const slot = { k, pending: new Map(), failure: undefined, ready: false, ended: false, timer: undefined } as Omit<
      Slot,
      'port'
    > & { port: WorkerPort };
    slot.port = this.spawn(k, {
      reply: (reply) => this.onReply(slot, reply),
      failed: (message) => {
        if (!this.closed && !slot.ended)
          this.fail(slot, new BurnError('DataLoader', `data loader worker ${k} ${message}`));
      },
    });
    slot.port.unref();
    return slot;
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const k = slot.k;
    if (reply.type === 'ready') {
      slot.ready = true;
      this.arm(slot);
      return;
    }
    const id = reply.id;
    if (id === undefined) {
      if (reply.type === 'error')
        this.fail(
          slot,
          new BurnError(
            reply.op ?? 'DataLoader',
            reply.op ? reply.message : `data loader worker ${k} cannot reopen the dataset: ${reply.message}`,
          ),
        );
      return;
    }
    const pending = slot.pending.get(id);
    if (!pending) return;
    slot.pending.delete(id);
    this.arm(slot);
    if (slot.pending.size === 0) slot.port.unref();
    if (reply.type === 'items') {
      let items: unknown[];
      try {
        items = decodeItems(reply.items);
      } catch (e) {
        pending.reject(
          new BurnError('DataLoader', `cannot decode the items of data loader worker ${k}: ${(e as Error).message}`),
        );
        return;
      }
      pending.resolve(items);
    } else
      pending.reject(
        new BurnError(reply.op ?? 'DataLoader', reply.op ? reply.message : `data loader worker ${k}: ${reply.message}`),
      );
  }

  /** (Re)starts the timeout for the oldest request of a ready worker: it measures time without progress. */
  private arm(slot: Slot): void {
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    if (this.timeoutMs === 0 || !slot.ready || slot.ended || slot.pending.size === 0) return;
    slot.timer = setTimeout(() => this.expire(slot), this.timeoutMs);
  }

  /** The timeout of a worker's oldest request expired: fail its requests, terminate it, start a fresh one. */
  private expire(slot: Slot): void {
    const oldest = slot.pending.values().next().value as Pending | undefined;
    if (!oldest || slot.ended || this.closed) return;
    slot.ended = true;
    const error = new BurnError(
      'DataLoader',
      `data loader worker ${slot.k} delivered nothing for ${this.timeoutMs} ms while loading batch ${oldest.batch} (items ${preview(oldest.indices)}); it was terminated (the timeout is set by DataLoaderBuilder.timeout)`,
    );
    this.fail(slot, error);
    void slot.port.terminate().catch(() => undefined);
    try {
      this.slots[slot.k] = this.open(slot.k);
    } catch {
      // The slot keeps its failure: later loads on it report the timeout.
    }
  }

  private fail(slot: Slot, error: BurnError): void {
    slot.failure ??= error;
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    for (const p of slot.pending.values()) p.reject(error);
    slot.pending.clear();
    slot.port.unref();
  }

  /** Loads the items at `indices` (batch number `slot`) in worker `slot % numWorkers`. */
  load(indices: readonly number[], slot: number): Promise<unknown[]> {
    const s = this.slots[slot % this.slots.length]!;
    if (this.closed) return Promise.reject(new BurnError('DataLoader', 'the data loader is closed'));
    if (s.failure) return Promise.reject(s.failure);
    const id = this.nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      s.pending.set(id, { resolve, reject, batch: slot, indices });
      s.port.ref();
      s.port.post({ type: 'load', id, indices });
      if (s.pending.size === 1) this.arm(s);
    });
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.slots) this.fail(s, new BurnError('DataLoader', 'the data loader was closed'));
    await Promise.all(this.slots.map((s) => s.port.terminate()));
  }
}
