import { BurnError } from '../tensor/errors.js';

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

/** Writes a file through a temporary file and a rename, so a failed write leaves the old file intact. */
export function writeTextFileAtomic(path: string, text: string, op: string): void {
  const f = fs(op);
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  try {
    f.writeFileSync(tmp, text);
    f.renameSync(tmp, path);
  } catch (e) {
    f.rmSync(tmp, { force: true });
    throw new BurnError(op, `cannot write ${path}: ${(e as Error).message}`);
  }
}
