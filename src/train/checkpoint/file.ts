import { readTextFile, writeTextFileAtomic } from '../../config/files.js';
import type { Module } from '../../module/module.js';
import type { Optimizer, OptimizerRecord } from '../../optim/base.js';
import { DefaultRecorder } from '../../record/burnpack-recorder.js';
import type { JsonValue, RecordTensor } from '../../record/recorder.js';
import { BurnError } from '../../tensor/errors.js';
import type { TensorData } from '../../tensor/data.js';
import type { TrainingScheduler } from '../learner.js';
import { nodeFs } from '../logger.js';
import type { Checkpointer, CheckpointState } from './base.js';

/**
 * Writes checkpoints as Burn does under `<dir>`: `model-N.bpk` (the module record),
 * `optim-N.bpk` (the optimizer state) and `scheduler-N.json` — every file written atomically.
 */
export class FileCheckpointer implements Checkpointer {
  private readonly recorder = new DefaultRecorder();

  constructor(readonly directory: string) {}

  async save(epoch: number, state: CheckpointState): Promise<void> {
    nodeFs('FileCheckpointer').mkdirSync(this.directory, { recursive: true });
    const model = state.model as Module;
    const optimizer = state.optimizer as Optimizer;
    const scheduler = state.scheduler as TrainingScheduler;
    await model.saveFileAsync(this.path('model', epoch));
    const record = await optimizer.toRecord();
    const tensors = new Map<string, RecordTensor>(Object.entries(record.tensors).map(([k, data]) => [k, { data }]));
    await this.recorder.saveAsync({ tensors, meta: { scalars: record.scalars, paths: record.paths } as unknown as JsonValue }, this.path('optim', epoch));
    writeTextFileAtomic(`${this.directory}/scheduler-${epoch}.json`, `${JSON.stringify(scheduler.toRecord?.() ?? null)}\n`, 'FileCheckpointer.save');
  }

  async restore(epoch: number, state: CheckpointState): Promise<{ model: unknown }> {
    if (!this.epochs().includes(epoch)) {
      throw new BurnError('FileCheckpointer.restore', `no checkpoint for epoch ${epoch} in ${this.directory} (found: ${this.epochs().join(', ') || 'none'})`);
    }
    const model = state.model as Module;
    const device = model.devices()[0];
    const restored = await model.loadFileAsync(this.path('model', epoch), device);
    const loaded = await this.recorder.loadAsync(this.path('optim', epoch));
    const meta = (loaded.meta ?? {}) as { scalars?: OptimizerRecord['scalars']; paths?: OptimizerRecord['paths'] };
    const tensors: Record<string, TensorData> = {};
    for (const [k, t] of loaded.tensors) tensors[k] = t.data;
    (state.optimizer as Optimizer).loadRecord({ tensors, scalars: meta.scalars ?? {}, paths: meta.paths ?? {} });
    const schedulerRecord = JSON.parse(readTextFile(`${this.directory}/scheduler-${epoch}.json`, 'FileCheckpointer.restore')) as never;
    if (schedulerRecord !== null) (state.scheduler as TrainingScheduler).loadRecord?.(schedulerRecord);
    return { model: restored };
  }

  epochs(): number[] {
    const fs = nodeFs('FileCheckpointer') as unknown as { existsSync(p: string): boolean; readdirSync(p: string): string[] };
    if (!fs.existsSync(this.directory)) return [];
    return fs.readdirSync(this.directory)
      .map((f) => /^model-(\d+)\.bpk$/.exec(f)?.[1])
      .filter((e): e is string => e !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  delete(epoch: number): void {
    const fs = nodeFs('FileCheckpointer') as unknown as { rmSync(p: string, o: { force: boolean }): void };
    for (const f of [`model-${epoch}.bpk`, `optim-${epoch}.bpk`, `scheduler-${epoch}.json`]) fs.rmSync(`${this.directory}/${f}`, { force: true });
  }

  private path(kind: 'model' | 'optim', epoch: number): string {
    return `${this.directory}/${kind}-${epoch}`;
  }
}
