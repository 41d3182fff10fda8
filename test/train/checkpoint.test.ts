// FileCheckpointer: epochs() lists only complete checkpoints (model, optimizer and
// scheduler files all present and readable), so a save killed between files or a truncated file
// is never offered for resume; a save removes the stale temporary files killed saves left.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, Device } from '../../src/index.js';
import { SgdConfig } from '../../src/optim/index.js';
import { FileCheckpointer } from '../../src/train/index.js';
import { TinyClassifier } from './helpers.js';

const device = Device.cpu({ engine: 'js' }).autodiff();
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'burn-ckpt-'));
  dirs.push(d);
  return d;
}
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function state() {
  const model = new TinyClassifier(device);
  return {
    model,
    optimizer: new SgdConfig({}).init<TinyClassifier>(),
    scheduler: { step: () => 0.1, toRecord: () => ({ lr: 0.1 }) },
  };
}

describe('FileCheckpointer: only complete checkpoints are listed', () => {
  it('a missing, truncated or unparsable file removes its epoch from epochs()', async () => {
    const dir = tempDir();
    const ckpt = new FileCheckpointer(dir);
    for (const e of [1, 2, 3, 4, 5]) await ckpt.save(e, state());
    assert.deepEqual(ckpt.epochs(), [1, 2, 3, 4, 5]);
    rmSync(join(dir, 'optim-2.bpk')); // killed after the model file
    rmSync(join(dir, 'scheduler-3.json')); // killed before the scheduler file
    truncateSync(join(dir, 'model-4.bpk'), statSync(join(dir, 'model-4.bpk')).size - 8); // a partial copy
    writeFileSync(join(dir, 'scheduler-5.json'), '{"lr": 0.'); // a partial text file
    writeFileSync(join(dir, 'model-6.bpk'), ''); // only an empty model file
    assert.deepEqual(ckpt.epochs(), [1]);
    await assert.rejects(
      ckpt.restore(4, state()),
      (e: Error) => e instanceof BurnError && /no checkpoint for epoch 4 .*found: 1\)/.test(e.message),
    );
    const restored = await ckpt.restore(1, state());
    assert.ok(restored.model instanceof TinyClassifier);
  });

  it('save() removes stale temporary files of checkpoint files killed saves left', async () => {
    const dir = tempDir();
    const dead = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
    );
    const stale = [`model-7.bpk.tmp-${dead}-1-2`, `optim-7.bpk.tmp-${dead}-1-2`, `scheduler-7.json.tmp-${dead}-1-2`];
    const keep = [`model-7.bpk.tmp-${process.pid}-${Date.now()}-3`, `notes.txt.tmp-${dead}-1-2`];
    for (const f of [...stale, ...keep]) writeFileSync(join(dir, f), 'partial');
    await new FileCheckpointer(dir).save(1, state());
    assert.deepEqual(readdirSync(dir).sort(), ['model-1.bpk', 'optim-1.bpk', 'scheduler-1.json', ...keep].sort());
  });
});
