import { readTextFile } from '../../config/files.js';
import { BurnError } from '../../core/errors.js';
import { parseCsv, type CsvColumns, type CsvOptions, type CsvRow } from './csv.js';
import { DatasetBase, iterDataset, type Dataset } from './dataset.js';
import type { WorkerRecipe } from './recipe.js';

/** Options of {@link InMemDataset.fromJsonRows}. */
export interface JsonRowsOptions<I> {
  /** Validates (and may transform) each parsed row, e.g. a zod schema; a failure names the file and line. */
  readonly schema?: { parse(value: unknown): I };
}

// Files through config/files (node:fs resolved at run time), so the dataset also bundles for pages.
function readText(path: string, op: string): string {
  return readTextFile(path, op);
}

/**
 * A dataset held in memory as an array (Burn's `InMemDataset`). `get` returns the stored item
 * itself (no copy); the array is not copied either.
 *
 * In data loader workers the items are sent to each worker by structured clone, so they must be
 * plain data (objects, arrays, numbers, strings, typed arrays…), not class instances with methods.
 */
export class InMemDataset<I> extends DatasetBase<I> {
  constructor(private readonly items: readonly I[]) {
    super();
    if (!Array.isArray(items)) throw new BurnError('InMemDataset', `items ${String(items)}; expected an array`);
  }

  /** Reads every item of another dataset into memory. */
  static fromDataset<I>(dataset: Dataset<I>): InMemDataset<I> {
    return new InMemDataset([...iterDataset(dataset)]);
  }

  /** Reads a JSON-lines file: one JSON value per line (blank lines are skipped). */
  static fromJsonRows<I>(path: string, options: JsonRowsOptions<I> = {}): InMemDataset<I> {
    const op = 'InMemDataset.fromJsonRows';
    const lines = readText(path, op).split(/\r?\n/);
    const items: I[] = [];
    lines.forEach((line, k) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new BurnError(op, `${path}:${k + 1}: invalid JSON (${(e as Error).message})`);
      }
      if (options.schema) {
        try {
          value = options.schema.parse(value);
        } catch (e) {
          throw new BurnError(op, `${path}:${k + 1}: the row does not match the schema: ${(e as Error).message}`);
        }
      }
      items.push(value as I);
    });
    return new InMemDataset(items);
  }

  /**
   * Reads a CSV file. With `columns` (name → `'string' | 'number' | 'integer' | 'boolean'`) the
   * rows are typed and each value is checked; without it every header column is read as text.
   */
  static fromCsv<const C extends CsvColumns>(
    path: string,
    options: CsvOptions<C> & { readonly columns: C },
  ): InMemDataset<CsvRow<C>>;
  static fromCsv(path: string, options?: CsvOptions): InMemDataset<Record<string, string>>;
  static fromCsv(path: string, options: CsvOptions = {}): InMemDataset<unknown> {
    return new InMemDataset(parseCsv(readText(path, 'InMemDataset.fromCsv'), path, options));
  }

  get(index: number): I | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.items.length) return undefined;
    return this.items[index];
  }

  len(): number {
    return this.items.length;
  }

  /** The items travel to each worker by structured clone. */
  workerRecipe(): WorkerRecipe | undefined {
    return { module: import.meta.url, export: 'openInMemDataset', args: { items: this.items } };
  }
}

/** Worker factory of {@link InMemDataset}. */
export function openInMemDataset(args: { items: unknown[] }): InMemDataset<unknown> {
  return new InMemDataset(args.items);
}
