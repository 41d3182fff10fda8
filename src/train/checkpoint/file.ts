import { readTextFile, removeStaleTempFilesIn, writeTextFileAtomic } from '../../config/files.js';
import { readBurnpack } from '../../record/burnpack.js';
import { fileSource } from '../../record/source.js';
import type { Module } from '../../module/module.js';
import type { Optimizer, OptimizerRecord } from '../../optim/base.js';
import { DefaultRecorder } from '../../record/burnpack-recorder.js';
import type { JsonValue, RecordTensor } from '../../record/recorder.js';
import { BurnError } from '../../core/errors.js';
import type { TensorData } from '../../core/data.js';
import type { TrainingScheduler } from '../learner.js';
import { nodeFs } from '../logger.js';
import type { Checkpointer, CheckpointState, TrainingCheckpoint } from './base.js';

/** The files of a checkpoint, by name. */
const CHECKPOINT_FILE = /^(?:(?:model|optim)-\d+\.bpk|scheduler-\d+\.json)$/;

/**
 * Writes checkpoints as Burn does under `<dir>`: `model-N.bpk` (the module record),
 * `optim-N.bpk` (the optimizer state) and `scheduler-N.json` — every file written atomically.
 * An epoch counts as checkpointed only when all three files are there and readable, and each save
 * removes the stale temporary files killed saves left in the directory.
 */
export class FileCheckpointer implements Checkpointer {
  private readonly recorder = new DefaultRecorder();

  constructor(readonly directory: string) {}

  async save(epoch: number, state: CheckpointState): Promise<void> {
    nodeFs('FileCheckpointer').mkdirSync(this.directory, { recursive: true });
    // A killed save of any epoch leaves temporaries no later save of that epoch may come to remove.
    removeStaleTempFilesIn(this.directory, (name) => CHECKPOINT_FILE.test(name));
    const model = state.model as Module;
    const optimizer = state.optimizer as Optimizer;
    const scheduler = state.scheduler as TrainingScheduler;
    await model.saveFileAsync(this.path('model', epoch));
    const record = await optimizer.toRecord();
    const tensors = new Map<string, RecordTensor>(Object.entries(record.tensors).map(([k, data]) => [k, { data }]));
    // The loop's state (the run's seed) rides in the optimizer file's metadata: no fourth file to keep complete.
    const meta = {
      scalars: record.scalars,
      paths: record.paths,
      ...(state.training ? { training: state.training } : {}),
    };
    await this.recorder.saveAsync({ tensors, meta: meta as unknown as JsonValue }, this.path('optim', epoch));
    writeTextFileAtomic(
      `${this.directory}/scheduler-${epoch}.json`,
      `${JSON.stringify(scheduler.toRecord?.() ?? null)}\n`,
      'FileCheckpointer.save',
    );
  }

  async restore(epoch: number, state: CheckpointState): Promise<{ model: unknown; training?: TrainingCheckpoint }> {
    if (!this.epochs().includes(epoch)) {
      throw new BurnError(
        'FileCheckpointer.restore',
        `no checkpoint for epoch ${epoch} in ${this.directory} (found: ${this.epochs().join(', ') || 'none'})`,
      );
    }
    const model = state.model as Module;
    const device = model.devices()[0];
    const restored = await model.loadFileAsync(this.path('model', epoch), device);
    const loaded = await this.recorder.loadAsync(this.path('optim', epoch));
    const meta = (loaded.meta ?? {}) as {
      scalars?: OptimizerRecord['scalars'];
      paths?: OptimizerRecord['paths'];
      training?: { seed?: unknown };
    };
    const tensors: Record<string, TensorData> = {};
    for (const [k, t] of loaded.tensors) tensors[k] = t.data;
    (state.optimizer as Optimizer).loadRecord({ tensors, scalars: meta.scalars ?? {}, paths: meta.paths ?? {} });
    const schedulerRecord = JSON.parse(
      readTextFile(`${this.directory}/scheduler-${epoch}.json`, 'FileCheckpointer.restore'),
    ) as never;
    if (schedulerRecord !== null) (state.scheduler as TrainingScheduler).loadRecord?.(schedulerRecord);
    const seed = meta.training?.seed;
    return typeof seed === 'number' && Number.isSafeInteger(seed)
      ? { model: restored, training: { seed } }
      : { model: restored };
  }

  /** The model file of the checkpoint of `epoch`: `<directory>/model-<epoch>.bpk`. */
  modelPath(epoch: number): string {
    return `${this.path('model', epoch)}.bpk`;
  }

  /** The model of the checkpoint of `epoch`, loaded into a copy of `model` on its device. */
  async loadModel(epoch: number, model: unknown): Promise<unknown> {
    if (!this.epochs().includes(epoch)) {
      throw new BurnError(
        'FileCheckpointer.loadModel',
        `no checkpoint for epoch ${epoch} in ${this.directory} (found: ${this.epochs().join(', ') || 'none'})`,
      );
    }
    const target = (model as Module).clone();
    return target.loadFileAsync(this.path('model', epoch), target.devices()[0]);
  }

  /**
   * The epochs with a complete checkpoint: model, optimizer and scheduler files all present, the
   * two burnpack files with a valid header and metadata whose tensors lie inside the file (only
   * metadata is read), and the scheduler file valid JSON. A save killed between its files, or a
   * truncated copy, is left out.
   */
  epochs(): number[] {
    const fs = nodeFs('FileCheckpointer') as unknown as {
      existsSync(p: string): boolean;
      readdirSync(p: string): string[];
    };
    if (!fs.existsSync(this.directory)) return [];
    const names = new Set(fs.readdirSync(this.directory));
    return [...names]
      .map((f) => /^model-(\d+)\.bpk$/.exec(f)?.[1])
      .filter((e): e is string => e !== undefined)
      .map(Number)
      .filter((e) => names.has(`optim-${e}.bpk`) && names.has(`scheduler-${e}.json`) && this.complete(e))
      .sort((a, b) => a - b);
  }

  /** Whether the files of `epoch` read as complete (metadata and JSON only, never tensor data). */
  private complete(epoch: number): boolean {
    try {
      for (const kind of ['model', 'optim'] as const) {
        const source = fileSource(`${this.path(kind, epoch)}.bpk`, 'FileCheckpointer.epochs');
        try {
          readBurnpack(source, 'FileCheckpointer.epochs');
        } finally {
          source.close();
        }
      }
      JSON.parse(readTextFile(`${this.directory}/scheduler-${epoch}.json`, 'FileCheckpointer.epochs'));
      return true;
    } catch {
      return false;
    }
  }

  delete(epoch: number): void {
    const fs = nodeFs('FileCheckpointer') as unknown as { rmSync(p: string, o: { force: boolean }): void };
    for (const f of [`model-${epoch}.bpk`, `optim-${epoch}.bpk`, `scheduler-${epoch}.json`])
      fs.rmSync(`${this.directory}/${f}`, { force: true });
  }

  private path(kind: 'model' | 'optim', epoch: number): string {
    return `${this.directory}/${kind}-${epoch}`;
  }
}
