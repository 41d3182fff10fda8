import { BurnError } from '../core/errors.js';
import type { MetricEntry } from './metric/base.js';

/** Training splits. */
export type Split = 'train' | 'valid';

interface Fs {
  mkdirSync(path: string, options: { recursive: boolean }): void;
  appendFileSync(path: string, data: string): void;
  writeFileSync(path: string, data: string): void;
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

/** Options of {@link FileMetricLogger}. */
export interface FileMetricLoggerOptions {
  /**
   * Evaluation layout (Burn's `FileMetricLogger::new_eval`): files go straight into the directory,
   * without `<split>/epoch-N/`.
   */
  readonly evaluation?: boolean;
}

/** One logged numeric entry: `value,count` (aggregated) or `value,final` (the epoch value). */
export interface LoggedEntry {
  readonly value: number;
  readonly count: number;
  /** True for the epoch's final value (Burn's `NumericEntry::Final`). */
  readonly final?: boolean;
}

/**
 * Where the training loop logs metric entries and reads epoch values back (on resume):
 * {@link FileMetricLogger} in Node, `InMemoryMetricLogger` where there are no files (browsers).
 */
export interface MetricLogger {
  /** Buffers one entry. */
  log(split: Split, epoch: number, entry: MetricEntry): void;
  /** Stores the buffered entries. */
  flush(): void;
  /** The epoch value of a metric: the final entry, else the count-weighted mean (NaN when absent). */
  epochValue(split: Split, epoch: number, name: string): number;
}

/**
 * Writes every metric update to Burn's layout: `<dir>/<split>/epoch-<N>/<Metric_Name>.log`, one
 * serialized entry (`value,count`) per line, then the epoch's final value (`value,final`). Entries
 * with nothing to log (empty `serialized`) are skipped; a file first written in this run is
 * replaced, not appended to (a resumed run rewrites the epochs it re-trains).
 */
export class FileMetricLogger implements MetricLogger {
  private readonly buffers = new Map<string, string[]>();
  private readonly written = new Set<string>();

  constructor(
    readonly directory: string,
    readonly options: FileMetricLoggerOptions = {},
  ) {}

  /** The log file of a metric. */
  path(split: Split, epoch: number, name: string): string {
    const file = `${name.replace(/ /g, '_')}.log`;
    return this.options.evaluation ? `${this.directory}/${file}` : `${this.directory}/${split}/epoch-${epoch}/${file}`;
  }

  /** Buffers one entry (written by {@link flush}). */
  log(split: Split, epoch: number, entry: MetricEntry): void {
    if (entry.serialized === '') return;
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
      if (this.written.has(path)) {
        fs.appendFileSync(path, `${lines.join('\n')}\n`);
      } else {
        fs.writeFileSync(path, `${lines.join('\n')}\n`);
        this.written.add(path);
      }
    }
    this.buffers.clear();
  }

  /** Reads back the entries of a metric for one epoch. */
  read(split: Split, epoch: number, name: string): LoggedEntry[] {
    const fs = nodeFs('FileMetricLogger');
    const path = this.path(split, epoch, name);
    if (!fs.existsSync(path)) return [];
    return fs
      .readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => {
        const [v, c] = l.split(',');
        return c === 'final'
          ? { value: Number(v), count: 1, final: true }
          : { value: Number(v), count: Number(c ?? 1) };
      });
  }

  /** The epoch value of a metric from its log: the final entry, else the count-weighted mean (NaN when absent). */
  epochValue(split: Split, epoch: number, name: string): number {
    const entries = this.read(split, epoch, name);
    const final = entries.findLast((e) => e.final);
    if (final) return final.value;
    const weight = entries.reduce((a, x) => a + x.count, 0);
    return weight > 0 ? entries.reduce((a, x) => a + x.value * x.count, 0) / weight : Number.NaN;
  }
}
