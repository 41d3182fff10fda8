import { Worker } from 'node:worker_threads';
import { BurnError } from '../../tensor/errors.js';
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
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  failure: BurnError | undefined;
}

/**
 * Data loader worker threads: each reopens the dataset from its {@link WorkerRecipe} and loads
 * the items of the requests it receives. The workers live as long as the pool (across epochs);
 * they do not keep the process alive while idle.
 */
export class WorkerPool implements ItemSource {
  readonly mode = 'workers';
  private readonly slots: Slot[];
  private nextId = 0;
  private closed = false;

  constructor(recipe: WorkerRecipe, numWorkers: number) {
    const self = import.meta.url;
    const entry = new URL(isTypeScript(self) ? './worker.ts' : './worker.js', self).href;
    const modules = recipeModules(recipe);
    const tsx = isTypeScript(entry) || modules.some(isTypeScript) ? tsxApi(modules) : undefined;
    const boot = `(async () => { ${tsx ? `(await import(${JSON.stringify(tsx)})).register();` : ''} await import(${JSON.stringify(entry)}); })().catch((e) => { setImmediate(() => { throw e; }); });`;
    this.slots = Array.from({ length: numWorkers }, (_, k) => {
      let worker: Worker;
      try {
        worker = new Worker(boot, { eval: true, workerData: { recipe, worker: k } satisfies WorkerInit, stdout: false, stderr: false });
      } catch (e) {
        throw new BurnError('DataLoader', `cannot send the dataset to a worker thread (${(e as Error).message}); a recipe's arguments, and the items of in-memory data, must survive a structured clone`);
      }
      const slot: Slot = { worker, pending: new Map(), failure: undefined };
      worker.unref();
      worker.on('message', (reply: WorkerReply) => this.onReply(slot, k, reply));
      worker.on('error', (e) => this.fail(slot, new BurnError('DataLoader', `data loader worker ${k} failed: ${e.message}`)));
      worker.on('exit', (code) => {
        if (!this.closed) this.fail(slot, new BurnError('DataLoader', `data loader worker ${k} exited (code ${code})`));
      });
      return slot;
    });
  }

  private onReply(slot: Slot, k: number, reply: WorkerReply): void {
    if (reply.type === 'ready') return;
    const id = reply.id;
    if (id === undefined) {
      if (reply.type === 'error') this.fail(slot, new BurnError(reply.op ?? 'DataLoader', reply.op ? reply.message : `data loader worker ${k} cannot reopen the dataset: ${reply.message}`));
      return;
    }
    const pending = slot.pending.get(id);
    if (!pending) return;
    slot.pending.delete(id);
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
    }
    else pending.reject(new BurnError(reply.op ?? 'DataLoader', reply.op ? reply.message : `data loader worker ${k}: ${reply.message}`));
  }

  private fail(slot: Slot, error: BurnError): void {
    slot.failure ??= error;
    for (const p of slot.pending.values()) p.reject(error);
    slot.pending.clear();
    slot.worker.unref();
  }

  /** Loads the items at `indices` in worker `slot % numWorkers`. */
  load(indices: readonly number[], slot: number): Promise<unknown[]> {
    const s = this.slots[slot % this.slots.length]!;
    if (this.closed) return Promise.reject(new BurnError('DataLoader', 'the data loader is closed'));
    if (s.failure) return Promise.reject(s.failure);
    const id = this.nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      s.pending.set(id, { resolve, reject });
      s.worker.ref();
      s.worker.postMessage({ type: 'load', id, indices } satisfies LoadRequest);
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
