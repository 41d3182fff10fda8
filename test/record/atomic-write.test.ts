// Atomic saves: a save whose parent path is a file fails with a BurnError naming the
// path and the real cause (ENOTDIR), not the cleanup's error; a failed write leaves the old file
// intact; the temporary files of killed saves are removed on the next save of that file (only
// that file's, and only stale ones: the writer process is gone, or the file is over an hour old).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BurnError, Device } from '../../src/index.js';
import { writeBinaryFileAtomic, writeBinaryFileAtomicAsync, writeTextFileAtomic } from '../../src/config/files.js';
import { BurnpackRecorder, NamedMpkFileRecorder } from '../../src/record/index.js';
import { BurnpackStore } from '../../src/store/index.js';
import { Small, tempDir } from '../store/helpers.js';

const device = Device.cpu();
const ROOT = new URL('../..', import.meta.url).pathname;

/** The pid of a process that has exited (spawned and waited for). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('atomic saves: the real cause of a failure, the old file intact', () => {
  it('a path whose parent is a file: BurnError naming the path and ENOTDIR (sync, async, text, stores)', async () => {
    const [dir, done] = tempDir();
    try {
      const parent = join(dir, 'afile');
      writeFileSync(parent, 'not a directory');
      const path = join(parent, 'model');
      const cause = (e: unknown) => e instanceof BurnError && e.message.includes(path) && /ENOTDIR/.test(e.message);
      assert.throws(() => writeBinaryFileAtomic(`${path}.bin`, [new Uint8Array(4)], 'test'), cause);
      await assert.rejects(writeBinaryFileAtomicAsync(`${path}.bin`, new Uint8Array(4), 'test'), cause);
      assert.throws(() => writeTextFileAtomic(`${path}.json`, '{}', 'test'), cause);
      const model = new Small(device);
      assert.throws(
        () => model.saveFile(path, new NamedMpkFileRecorder()),
        (e: unknown) => cause(e) && /NamedMpkFileRecorder/.test((e as Error).message),
      );
      await assert.rejects(model.saveFileAsync(path, new BurnpackRecorder()), cause);
      assert.throws(() => model.saveInto(new BurnpackStore(path)), cause);
      assert.equal(readFileSync(parent, 'utf8'), 'not a directory');
    } finally {
      done();
    }
  });

  it('a write that fails midway leaves the previous file and no temporary file', () => {
    const [dir, done] = tempDir();
    try {
      const path = join(dir, 'f.bin');
      writeBinaryFileAtomic(path, [Uint8Array.from([1, 2, 3])], 'test');
      function* failing() {
        yield new Uint8Array(1000);
        throw new Error('device lost');
      }
      assert.throws(
        () => writeBinaryFileAtomic(path, failing(), 'test'),
        (e: Error) => e instanceof BurnError && /cannot write .*f\.bin: device lost/.test(e.message),
      );
      assert.deepEqual(Array.from(readFileSync(path)), [1, 2, 3]);
      assert.deepEqual(readdirSync(dir), ['f.bin']);
    } finally {
      done();
    }
  });
});

describe('atomic saves: stale temporary files of the target are removed on its next save', () => {
  it('removes those of dead writers and those over an hour old; keeps live fresh ones and other targets', () => {
    const [dir, done] = tempDir();
    try {
      const dead = deadPid();
      const now = Date.now();
      const names = {
        deadWriter: `model.bpk.tmp-${dead}-${now}-12345`,
        deadOldStyle: `model.bpk.tmp-${dead}-${now}`,
        liveFresh: `model.bpk.tmp-${process.pid}-${now}-1`,
        liveOld: `model.bpk.tmp-${process.pid}-${now - 7_200_000}-2`,
        otherTarget: `other.bpk.tmp-${dead}-${now}-3`,
        prefixTarget: `model.bpk.old.tmp-${dead}-${now}-4`,
        notTemp: `model.bpk.tmp-notes.txt`,
      };
      for (const n of Object.values(names)) writeFileSync(join(dir, n), 'partial');
      const old = new Date(now - 7_200_000);
      utimesSync(join(dir, names.liveOld), old, old);
      new Small(device).saveFile(join(dir, 'model'), new BurnpackRecorder());
      const left = readdirSync(dir).sort();
      assert.deepEqual(
        left,
        [names.liveFresh, 'model.bpk', names.notTemp, names.prefixTarget, names.otherTarget].sort(),
      );
    } finally {
      done();
    }
  });

  it('a save killed mid-write leaves a temp file; the next save of that file removes it', async () => {
    const [dir, done] = tempDir();
    try {
      const target = join(dir, 'ckpt.bin');
      // The child writes one chunk, says so, then blocks until it is killed.
      const code = `
        import { writeBinaryFileAtomic } from './src/config/files.ts';
        function* chunks() {
          yield new Uint8Array(1024);
          process.stdout.write('started\\n');
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
        }
        writeBinaryFileAtomic(${JSON.stringify(target)}, chunks(), 'child');
      `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('started') && resolve());
        child.on('exit', (c) => reject(new Error(`child exited early (${c})`)));
      });
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGKILL');
      await exited;
      const temps = readdirSync(dir).filter((f) => f.startsWith('ckpt.bin.tmp-'));
      assert.equal(temps.length, 1, 'the killed save left its temporary file');
      assert.ok(!existsSync(target));
      writeBinaryFileAtomic(target, [Uint8Array.from([7])], 'test');
      assert.deepEqual(readdirSync(dir), ['ckpt.bin']);
      assert.deepEqual(Array.from(readFileSync(target)), [7]);
    } finally {
      done();
    }
  });
});
