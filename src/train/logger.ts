import { BurnError } from '../tensor/errors.js';
import type { MetricEntry } from './metric/base.js';

/** Training splits. */
export type Split = 'train' | 'valid';

interface Fs {
  mkdirSync(path: string, options: { recursive: boolean }): void;
  appendFileSync(path: string, data: string): void;
  readFileSync(path: string, encoding: 'utf8'): string;
  existsSync(path: string): boolean;
}

/** node:fs, resolved at run time (training runs in Node). */
export function nodeFs(op: string): Fs {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const fs = get?.('node:fs') as Fs | undefined;
  if (!fs) throw new BurnError(op, 'training artifacts need Node.js file access');
  return fs;
}

/**
 * Writes every metric update to Burn's layout: `<dir>/<split>/epoch-<N>/<Metric_Name>.log`, one
 * serialized entry (`value,count`) per line.
 */
export class FileMetricLogger {
  private readonly buffers = new Map<string, string[]>();

  constructor(readonly directory: string) {}

  /** The log file of a metric. */
  path(split: Split, epoch: number, name: string): string {
    return `${this.directory}/${split}/epoch-${epoch}/${name.replace(/ /g, '_')}.log`;
  }

  /** Buffers one entry (written by {@link flush}). */
  log(split: Split, epoch: number, entry: MetricEntry): void {
    const path = this.path(split, epoch, entry.name);
    let lines = this.buffers.get(path);
    if (!lines) this.buffers.set(path, (lines = []));
    lines.push(entry.serialized);
  }

  /** Appends the buffered entries to their files. */
  flush(): void {
    const fs = nodeFs('FileMetricLogger');
    for (const [path, lines] of this.buffers) {
      fs.mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
      fs.appendFileSync(path, `${lines.join('\n')}\n`);
    }
    this.buffers.clear();
  }

  /** Reads back the (value, count) entries of a metric for one epoch. */
  read(split: Split, epoch: number, name: string): { value: number; count: number }[] {
    const fs = nodeFs('FileMetricLogger');
    const path = this.path(split, epoch, name);
    if (!fs.existsSync(path)) return [];
    return fs.readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => {
      const [v, c] = l.split(',');
      return { value: Number(v), count: Number(c ?? 1) };
    });
  }
}
