import type { Module } from '../../module/module.js';
import type { Optimizer, OptimizerRecord } from '../../optim/base.js';
import { DefaultRecorder } from '../../record/burnpack-recorder.js';
import type { JsonValue, RecordTensor } from '../../record/recorder.js';
import { IndexedDbStorage } from '../../store/indexeddb.js';
import type { TensorData } from '../../core/data.js';
import { BurnError } from '../../core/errors.js';
import type { TrainingScheduler } from '../learner.js';
import type { Checkpointer, CheckpointState, TrainingCheckpoint } from './base.js';

const KEY = /^(.+)\/(model|optim|scheduler)-(\d+)$/;

/**
 * Checkpoints in the browser's IndexedDB ({@link IndexedDbStorage}), the page's counterpart of
 * `FileCheckpointer`: per epoch the model and the optimizer as burnpack bytes and the scheduler
 * as JSON, under `<prefix>/model-N`, `<prefix>/optim-N`, `<prefix>/scheduler-N`. Pass it to
 * `SupervisedTraining.withCheckpointer`; a reloaded page resumes with `.checkpoint(epoch)`.
 */
export class IndexedDbCheckpointer implements Checkpointer {
  private readonly recorder = new DefaultRecorder();
  private readonly saved: Set<number>;
  private pendingDeletes: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly storage: IndexedDbStorage,
    readonly prefix: string,
    epochs: readonly number[],
  ) {
    this.saved = new Set(epochs);
  }

  /** Opens the checkpoints under `prefix` in the IndexedDB database `database` (default `burn-ts`). */
  static async open(prefix = 'checkpoint', database = 'burn-ts'): Promise<IndexedDbCheckpointer> {
    const storage = await IndexedDbStorage.open(database);
    const parts = new Map<number, Set<string>>();
    for (const key of await storage.keys()) {
      const m = KEY.exec(key);
      if (!m || m[1] !== prefix) continue;
      const epoch = Number(m[3]);
      if (!parts.has(epoch)) parts.set(epoch, new Set());
      parts.get(epoch)!.add(m[2]!);
    }
    // Complete epochs only: a save interrupted between its three writes is left out.
    return new IndexedDbCheckpointer(
      storage,
      prefix,
      [...parts].filter(([, p]) => p.size === 3).map(([e]) => e),
    );
  }

  private key(kind: 'model' | 'optim' | 'scheduler', epoch: number): string {
    return `${this.prefix}/${kind}-${epoch}`;
  }

  async save(epoch: number, state: CheckpointState): Promise<void> {
    await this.pendingDeletes;
    const record = await (state.optimizer as Optimizer).toRecord();
    const tensors = new Map<string, RecordTensor>(Object.entries(record.tensors).map(([k, data]) => [k, { data }]));
    const meta = {
      scalars: record.scalars,
      paths: record.paths,
      ...(state.training ? { training: state.training } : {}),
    };
    const scheduler = JSON.stringify((state.scheduler as TrainingScheduler).toRecord?.() ?? null);
    // The scheduler is written last: an epoch counts as saved only once all three are there.
    await this.storage.saveModule(state.model as Module, this.key('model', epoch));
    await this.storage.put(
      this.key('optim', epoch),
      this.recorder.toBytes({ tensors, meta: meta as unknown as JsonValue }),
    );
    await this.storage.put(this.key('scheduler', epoch), new TextEncoder().encode(scheduler));
    this.saved.add(epoch);
  }

  async restore(epoch: number, state: CheckpointState): Promise<{ model: unknown; training?: TrainingCheckpoint }> {
    this.check(epoch, 'IndexedDbCheckpointer.restore');
    const model = state.model as Module;
    const restored = await this.storage.loadModule(model, this.key('model', epoch), model.devices()[0]);
    const loaded = this.recorder.fromBytes((await this.storage.get(this.key('optim', epoch)))!);
    const meta = (loaded.meta ?? {}) as {
      scalars?: OptimizerRecord['scalars'];
      paths?: OptimizerRecord['paths'];
      training?: { seed?: unknown };
    };
    const tensors: Record<string, TensorData> = {};
    for (const [k, t] of loaded.tensors) tensors[k] = t.data;
    (state.optimizer as Optimizer).loadRecord({ tensors, scalars: meta.scalars ?? {}, paths: meta.paths ?? {} });
    const schedulerRecord = JSON.parse(
      new TextDecoder().decode((await this.storage.get(this.key('scheduler', epoch)))!),
    ) as never;
    if (schedulerRecord !== null) (state.scheduler as TrainingScheduler).loadRecord?.(schedulerRecord);
    const seed = meta.training?.seed;
    return typeof seed === 'number' && Number.isSafeInteger(seed)
      ? { model: restored, training: { seed } }
      : { model: restored };
  }

  /** The model of the checkpoint of `epoch`, loaded into a copy of `model` on its device. */
  async loadModel(epoch: number, model: unknown): Promise<unknown> {
    this.check(epoch, 'IndexedDbCheckpointer.loadModel');
    const target = (model as Module).clone();
    return this.storage.loadModule(target, this.key('model', epoch), target.devices()[0]);
  }

  epochs(): number[] {
    return [...this.saved].sort((a, b) => a - b);
  }

  /** Forgets the checkpoint of `epoch` at once; its entries are removed in the background (before the next save). */
  delete(epoch: number): void {
    this.saved.delete(epoch);
    const keys = (['model', 'optim', 'scheduler'] as const).map((k) => this.key(k, epoch));
    this.pendingDeletes = this.pendingDeletes
      .then(() => Promise.all(keys.map((k) => this.storage.delete(k))))
      .catch(() => undefined);
  }

  /** Waits for background deletions, then closes the database connection. */
  async close(): Promise<void> {
    await this.pendingDeletes;
    this.storage.close();
  }

  private check(epoch: number, op: string): void {
    if (!this.saved.has(epoch))
      throw new BurnError(
        op,
        `no checkpoint for epoch ${epoch} under '${this.prefix}' in IndexedDB database '${this.storage.name}' (found: ${this.epochs().join(', ') || 'none'})`,
      );
  }
}
