import { BurnError } from '../core/errors.js';

/** The parts of `node:fs` configs use, resolved at run time so the module also loads in browsers. */
interface Fs {
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: boolean }): void;
}

function fs(op: string): Fs {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const mod = get?.('node:fs') as Fs | undefined;
  if (!mod) throw new BurnError(op, 'files are only available in Node.js (use toJSON/fromJSON elsewhere)');
  return mod;
}

/** Reads a UTF-8 file, or throws a BurnError naming it. */
export function readTextFile(path: string, op: string): string {
  try {
    return fs(op).readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof BurnError) throw e;
    throw new BurnError(op, `cannot read ${path}: ${(e as Error).message}`);
  }
}

/**
 * Writes a file through a temporary file and a rename, so a failed write leaves the old file
 * intact; stale temporary files of killed saves of `path` are removed first.
 */
export function writeTextFileAtomic(path: string, text: string, op: string): void {
  const f = fs(op);
  removeStaleTempFiles(path);
  const tmp = tmpPath(path);
  try {
    f.writeFileSync(tmp, text);
    f.renameSync(tmp, path);
  } catch (e) {
    quietly(() => f.rmSync(tmp, { force: true }));
    throw writeError(path, e, op);
  }
}

// --- binary files (recorders and stores) ---

/** The parts of `node:fs` binary files use. */
interface BinaryFs {
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | bigint): number;
  writeSync(fd: number, buffer: Uint8Array, offset?: number, length?: number): number;
  fstatSync(fd: number): { size: number };
  existsSync(path: string): boolean;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: boolean }): void;
  readdirSync(path: string): string[];
  statSync(path: string): { mtimeMs: number; isFile(): boolean };
  promises: {
    readFile(path: string): Promise<Uint8Array>;
    writeFile(path: string, data: Uint8Array): Promise<void>;
    rename(from: string, to: string): Promise<void>;
    rm(path: string, options: { force: boolean }): Promise<void>;
  };
}

function binaryFs(op: string): BinaryFs {
  return fs(op) as unknown as BinaryFs;
}

/** True when the file system is available (Node.js). */
export function hasFileSystem(): boolean {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  return get?.('node:fs') !== undefined;
}

/** True when `path` exists. */
export function fileExists(path: string, op: string): boolean {
  return binaryFs(op).existsSync(path);
}

/**
 * A file opened for ranged reads: only the bytes asked for are read, so files larger than memory
 * (or than 2 GB, the largest single Node.js buffer read) are read piece by piece.
 */
export interface FileReader {
  /** The file's path. */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Reads `length` bytes at `offset` (a short read past the end is a BurnError naming the file). */
  read(offset: number, length: number): Uint8Array;
  /** Closes the file. */
  close(): void;
}

/** Opens a file for ranged reads; `chunkSize` caps each underlying read call (default 1 GiB). */
export function openFileReader(path: string, op: string, chunkSize = 1 << 30): FileReader {
  const f = binaryFs(op);
  let fd: number;
  try {
    fd = f.openSync(path, 'r');
  } catch (e) {
    throw new BurnError(op, `cannot read ${path}: ${(e as Error).message}`);
  }
  const size = f.fstatSync(fd).size;
  return {
    path,
    size,
    read(offset: number, length: number): Uint8Array {
      if (offset < 0 || length < 0 || offset + length > size) {
        throw new BurnError(
          op,
          `${path}: cannot read ${length} bytes at byte offset ${offset}; the file has ${size} bytes (truncated?)`,
        );
      }
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = f.readSync(fd, out, done, Math.min(chunkSize, length - done), offset + done);
        if (n <= 0) throw new BurnError(op, `${path}: unexpected end of file at byte offset ${offset + done}`);
        done += n;
      }
      return out;
    },
    close(): void {
      f.closeSync(fd);
    },
  };
}

/** Reads a whole binary file, or throws a BurnError naming it. */
export function readBinaryFile(path: string, op: string): Uint8Array {
  const reader = openFileReader(path, op);
  try {
    return reader.read(0, reader.size);
  } finally {
    reader.close();
  }
}

/** Reads a whole binary file asynchronously, or throws a BurnError naming it. */
export async function readBinaryFileAsync(path: string, op: string): Promise<Uint8Array> {
  try {
    const data = await binaryFs(op).promises.readFile(path);
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } catch (e) {
    if (e instanceof BurnError) throw e;
    throw new BurnError(op, `cannot read ${path}: ${(e as Error).message}`);
  }
}

/** The temporary file a save of `path` writes first: `<path>.tmp-<writer pid>-<ms>-<random>`. */
function tmpPath(path: string): string {
  return `${path}.tmp-${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
}

/** Runs a cleanup whose failure must not hide the error being reported. */
function quietly(cleanup: () => void): void {
  try {
    cleanup();
  } catch {
    // The original error is the one worth reporting.
  }
}

/** The BurnError of a failed write: the path, and the real cause with its code (ENOTDIR, ENOSPC, …). */
function writeError(path: string, e: unknown, op: string): BurnError {
  if (e instanceof BurnError) return e;
  const err = e as NodeJS.ErrnoException;
  const hint =
    err.code === 'ENOTDIR'
      ? ' (a parent of the path is a file, not a directory)'
      : err.code === 'ENOENT'
        ? ' (does its directory exist?)'
        : '';
  return new BurnError(op, `cannot write ${path}: ${err.message}${hint}`);
}

/** A temporary file of a save older than this is stale whoever wrote it (1 hour). */
export const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

/** True when process `pid` runs on this machine (EPERM: it runs under another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the stale temporary files that killed saves left beside files of `dir` whose names
 * `isTarget` accepts, and returns their names. A temporary file (`<target>.tmp-<pid>-<ms>…`) is
 * stale when its writer process no longer runs on this machine (a save of this process or of a
 * live one is never touched while it is fresh), or when it has not been written to for
 * {@link STALE_TEMP_AGE_MS} (a writer on another machine sharing the directory, or a pid reused
 * since). Best effort: a file that cannot be examined or removed is left, silently.
 */
export function removeStaleTempFilesIn(dir: string, isTarget: (name: string) => boolean): string[] {
  const removed: string[] = [];
  let f: BinaryFs;
  let names: string[];
  try {
    f = binaryFs('removeStaleTempFiles');
    names = f.readdirSync(dir);
  } catch {
    return removed;
  }
  const now = Date.now();
  for (const name of names) {
    const m = /^(.+)\.tmp-(\d+)-(\d+)(?:-\d+)?$/.exec(name);
    if (m === null || !isTarget(m[1]!)) continue;
    const full = `${dir}/${name}`;
    quietly(() => {
      const pid = Number(m[2]);
      const st = f.statSync(full);
      if (!st.isFile()) return;
      const writerGone = pid !== process.pid && !processRuns(pid);
      if (writerGone || now - st.mtimeMs > STALE_TEMP_AGE_MS) {
        f.rmSync(full, { force: true });
        removed.push(name);
      }
    });
  }
  return removed;
}

/** Removes the stale temporary files of earlier saves of `path` (see {@link removeStaleTempFilesIn}); returns their names. */
export function removeStaleTempFiles(path: string): string[] {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '.' : slash === 0 ? '/' : path.slice(0, slash);
  const base = path.slice(slash + 1);
  return removeStaleTempFilesIn(dir, (name) => name === base);
}

/**
 * Writes `chunks` one after another to a temporary file beside `path`, then renames it into
 * place: a failed write leaves the previous file intact and no partial file at `path`. Stale
 * temporary files of earlier, killed saves of `path` are removed first
 * ({@link removeStaleTempFiles}); a failure is a BurnError naming `path` and the real cause.
 */
export function writeBinaryFileAtomic(path: string, chunks: Iterable<Uint8Array>, op: string): void {
  const f = binaryFs(op);
  removeStaleTempFiles(path);
  const tmp = tmpPath(path);
  let fd: number | undefined;
  try {
    fd = f.openSync(tmp, 'w');
    for (const chunk of chunks) {
      let done = 0;
      while (done < chunk.byteLength) done += f.writeSync(fd, chunk, done, chunk.byteLength - done);
    }
    f.closeSync(fd);
    fd = undefined;
    f.renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) quietly(() => f.closeSync(fd!));
    quietly(() => f.rmSync(tmp, { force: true }));
    throw writeError(path, e, op);
  }
}

/** Asynchronous {@link writeBinaryFileAtomic}. */
export async function writeBinaryFileAtomicAsync(path: string, data: Uint8Array, op: string): Promise<void> {
  const f = binaryFs(op);
  removeStaleTempFiles(path);
  const tmp = tmpPath(path);
  try {
    await f.promises.writeFile(tmp, data);
    await f.promises.rename(tmp, path);
  } catch (e) {
    await f.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw writeError(path, e, op);
  }
}
