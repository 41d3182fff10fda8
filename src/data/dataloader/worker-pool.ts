import type { Worker } from 'node:worker_threads';
import { requireNodeBuiltin } from '../../platform/node-builtin.js';
import { BurnError } from '../../core/errors.js';
import { recipeModules, type WorkerRecipe } from '../dataset/recipe.js';
import { decodeItems } from './item-codec.js';
import type { ItemSource } from './item-source.js';
import type { LoadRequest, WorkerInit, WorkerReply } from './worker-protocol.js';

const isTypeScript = (url: string): boolean => /\.[cm]?ts$/.test(new URL(url, 'file:///').pathname);

/** The URL of tsx's ESM registration API, for workers that must import TypeScript modules. */
function tsxApi(modules: readonly string[]): string {
  const attempts: string[] = [];
  for (const parent of [import.meta.url, ...modules]) {
    try {
      return import.meta.resolve('tsx/esm/api', parent);
    } catch (e) {
      attempts.push((e as Error).message.split('\n')[0]!);
    }
  }
  throw new BurnError('DataLoader', `the dataset's worker modules include TypeScript (${modules.filter(isTypeScript).join(', ')}), which a worker thread can only import through tsx, and tsx cannot be found (${attempts[0]}); install it (npm install -D tsx), or use numWorkers(0)`);
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
  readonly worker: Worker;
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
 * Data loader worker threads: each reopens the dataset from its {@link WorkerRecipe} and loads
 * the items of the requests it receives. The workers live as long as the pool (across epochs);
 * they do not keep the process alive while idle. With a timeout, a worker that delivers nothing
 * for that long is terminated (its requests fail with a `BurnError` naming it and the batch) and
 * replaced by a fresh one.
 */
export class WorkerPool implements ItemSource {
  readonly mode = 'workers';
  private readonly slots: Slot[];
  private readonly boot: string;
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly recipe: WorkerRecipe,
    numWorkers: number,
    private readonly timeoutMs = 0,
  ) {
    const self = import.meta.url;
    const entry = new URL(isTypeScript(self) ? './worker.ts' : './worker.js', self).href;
    const modules = recipeModules(recipe);
    const tsx = isTypeScript(entry) || modules.some(isTypeScript) ? tsxApi(modules) : undefined;
    this.boot = `(async () => { ${tsx ? `(await import(${JSON.stringify(tsx)})).register();` : ''} await import(${JSON.stringify(entry)}); })().catch((e) => { setImmediate(() => { throw e; }); });`;
    this.slots = [];
    for (let k = 0; k < numWorkers; k++) this.slots.push(this.spawn(k));
  }

  private spawn(k: number): Slot {
    let worker: Worker;
    try {
      // Resolved at run time: a bundle that keeps this module (no browser field) has no node: import.
      const { Worker } = requireNodeBuiltin<typeof import('node:worker_threads')>('node:worker_threads', 'DataLoader', 'worker threads');
      worker = new Worker(this.boot, { eval: true, workerData: { recipe: this.recipe, worker: k } satisfies WorkerInit, stdout: false, stderr: false });
    } catch (e) {
      throw new BurnError('DataLoader', `cannot send the dataset to a worker thread (${(e as Error).message}); a recipe's arguments, and the items of in-memory data, must survive a structured clone`);
    }
    const slot: Slot = { k, worker, pending: new Map(), failure: undefined, ready: false, ended: false, timer: undefined };
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on('error', (e) => this.fail(slot, new BurnError('DataLoader', `data loader worker ${k} failed: ${e.message}`)));
    worker.on('exit', (code) => {
      if (!this.closed && !slot.ended) this.fail(slot, new BurnError('DataLoader', `data loader worker ${k} exited (code ${code})`));
    });
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
      if (reply.type === 'error') this.fail(slot, new BurnError(reply.op ?? 'DataLoader', reply.op ? reply.message : `data loader worker ${k} cannot reopen the dataset: ${reply.message}`));
      return;
    }
    const pending = slot.pending.get(id);
    if (!pending) return;
    slot.pending.delete(id);
    this.arm(slot);
    if (slot.pending.size === 0) slot.worker.unref();
    if (reply.type === 'items') {
      let items: unknown[];
      try {
        items = decodeItems(reply.items);
      } catch (e) {
        pending.reject(new BurnError('DataLoader', `cannot decode the items of data loader worker ${k}: ${(e as Error).message}`));
        return;
      }
      pending.resolve(items);
    } else pending.reject(new BurnError(reply.op ?? 'DataLoader', reply.op ? reply.message : `data loader worker ${k}: ${reply.message}`));
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
    void slot.worker.terminate().catch(() => undefined);
    try {
      this.slots[slot.k] = this.spawn(slot.k);
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
    slot.worker.unref();
  }

  /** Loads the items at `indices` (batch number `slot`) in worker `slot % numWorkers`. */
  load(indices: readonly number[], slot: number): Promise<unknown[]> {
    const s = this.slots[slot % this.slots.length]!;
    if (this.closed) return Promise.reject(new BurnError('DataLoader', 'the data loader is closed'));
    if (s.failure) return Promise.reject(s.failure);
    const id = this.nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      s.pending.set(id, { resolve, reject, batch: slot, indices });
      s.worker.ref();
      s.worker.postMessage({ type: 'load', id, indices } satisfies LoadRequest);
      if (s.pending.size === 1) this.arm(s);
    });
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.slots) this.fail(s, new BurnError('DataLoader', 'the data loader was closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
