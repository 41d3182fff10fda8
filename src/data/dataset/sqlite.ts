import { BurnError } from '../../core/errors.js';
import { DatasetBase } from './dataset.js';
import type { WorkerRecipe } from './recipe.js';
import {
  checkSplitName,
  decodeItem,
  ident,
  openDatabase,
  type ItemFormat,
  type SqliteDatabase,
  type SqliteStatement,
} from './sqlite-driver.js';

/** How a split's table stores items: one serialised `item` column, or one column per field. */
type Layout = ItemFormat | 'columns';

/** The split tables of a database file (its tables other than burn-ts's staging tables). */
export function sqliteSplits(db: SqliteDatabase): string[] {
  const rows = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_burn%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .pluck()
    .all();
  return rows as string[];
}

/**
 * A split (a table) of an SQLite database as a dataset (Burn's `SqliteDataset`), read through
 * better-sqlite3 (an optional dependency). Items written by {@link SqliteDatasetWriter} are stored
 * as `(row_id INTEGER PRIMARY KEY, item BLOB)` with MessagePack (or `item TEXT` with JSON); any
 * other table reads as one object per row, its columns as fields (`row_id` left out). The length
 * is the number of rows, and item `i` is the row with the `i`-th smallest `row_id` (or `rowid`):
 * `row_id = i + 1` when the ids are `1..n`, as the writer (and Burn) makes them; other ids (gaps,
 * a table with deleted rows) are read into a list when the dataset is opened.
 *
 * Readers are independent connections opened read-only, so any number of them (in this thread,
 * in data loader workers, in other processes) read concurrently, also while a writer writes. The
 * length is read when the dataset is opened: reopen it to see a split rewritten since.
 */
export class SqliteDataset<I> extends DatasetBase<I> {
  private readonly db: SqliteDatabase;
  private readonly select: SqliteStatement;
  private readonly layout: Layout;
  private readonly length: number;
  private readonly keyColumn: string;
  /** The key of each item, in order; `undefined` when the keys are exactly `1..length`. */
  private readonly keys: readonly unknown[] | undefined;

  constructor(
    readonly path: string,
    readonly split: string,
  ) {
    super();
    const op = 'SqliteDataset';
    checkSplitName(op, split);
    this.db = openDatabase(op, path, { readonly: true });
    try {
      const columns = this.db.prepare(`PRAGMA table_info(${ident(split)})`).all() as {
        name: string;
        type: string;
        pk: number;
      }[];
      if (columns.length === 0) {
        const splits = sqliteSplits(this.db);
        throw new BurnError(op, `${path} has no split '${split}'; its splits are [${splits.join(', ')}]`);
      }
      const names = columns.map((c) => c.name.toLowerCase());
      this.keyColumn = names.includes('row_id') ? 'row_id' : 'rowid';
      if (columns.length === 2 && names[0] === 'row_id' && names[1] === 'item') {
        const type = columns[1]!.type.toLowerCase();
        this.layout = type === 'text' ? 'json' : 'msgpack';
        this.select = this.db.prepare(`SELECT item FROM ${ident(split)} WHERE row_id = ?`).pluck();
      } else {
        this.layout = 'columns';
        this.select = this.db.prepare(`SELECT * FROM ${ident(split)} WHERE ${this.keyColumn} = ?`);
      }
      // The real rows, not the largest id: one row with row_id 1e8 is one item.
      const key = this.keyColumn === 'rowid' ? 'rowid' : ident(columns[names.indexOf('row_id')]!.name);
      const keyInfo = columns[names.indexOf('row_id')];
      // An INTEGER PRIMARY KEY is the rowid itself: unique and never NULL, nothing to check.
      const unique =
        this.keyColumn === 'rowid' ||
        (keyInfo!.pk === 1 &&
          keyInfo!.type.toUpperCase() === 'INTEGER' &&
          columns.filter((c) => c.pk > 0).length === 1);
      const stats = this.db
        .prepare(
          `SELECT count(*) AS n, min(${key}) AS lo, max(${key}) AS hi${unique ? '' : `, count(DISTINCT ${key}) AS d`} FROM ${ident(split)}`,
        )
        .get() as { n: number; lo: unknown; hi: unknown; d?: number };
      if (!unique && stats.d !== stats.n) {
        throw new BurnError(
          op,
          `${path}: split '${split}' has ${stats.n} rows but ${stats.d} distinct non-NULL row_id values; expected a unique row_id per row`,
        );
      }
      this.length = stats.n;
      const dense = stats.n === 0 || (stats.lo === 1 && stats.hi === stats.n);
      this.keys = dense
        ? undefined
        : this.db
            .prepare(`SELECT ${key} FROM ${ident(split)} ORDER BY ${key}`)
            .pluck()
            .all();
    } catch (e) {
      this.db.close();
      if (e instanceof BurnError) throw e;
      throw new BurnError(op, `cannot read split '${split}' of ${path}: ${(e as Error).message}`);
    }
  }

  /** The splits (tables) of a database file. */
  static splits(path: string): string[] {
    const db = openDatabase('SqliteDataset.splits', path, { readonly: true });
    try {
      return sqliteSplits(db);
    } finally {
      db.close();
    }
  }

  /** How the items are stored: `msgpack`, `json`, or `columns` (a plain table). */
  storage(): Layout {
    return this.layout;
  }

  get(index: number): I | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    let value: unknown;
    try {
      value = this.select.get(this.keys ? this.keys[index] : index + 1);
    } catch (e) {
      throw new BurnError(
        'SqliteDataset.get',
        `${this.path}: cannot read row ${index} of split '${this.split}': ${(e as Error).message}`,
      );
    }
    if (value === undefined)
      throw new BurnError(
        'SqliteDataset.get',
        `${this.path}: split '${this.split}' has no row ${index} (row_id ${String(this.keys ? this.keys[index] : index + 1)}) any more although it had ${this.length} rows when opened; reopen the dataset after rewriting a split`,
      );
    if (this.layout === 'columns') {
      const row = { ...(value as Record<string, unknown>) };
      delete row.row_id;
      return row as I;
    }
    try {
      return decodeItem(this.layout, value) as I;
    } catch (e) {
      throw new BurnError(
        'SqliteDataset.get',
        `${this.path}: row ${index} of split '${this.split}' is not a valid ${this.layout === 'json' ? 'JSON' : 'MessagePack'} item: ${(e as Error).message}`,
      );
    }
  }

  len(): number {
    return this.length;
  }

  /** Closes the connection; `get` fails afterwards. */
  close(): void {
    this.db.close();
  }

  /** A worker opens its own read-only connection to the same file and split. */
  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: 'openSqliteDataset', args: { path: this.path, split: this.split } };
  }
}

/**
 * Worker factory of {@link SqliteDataset}.
 * @public a data loader worker imports it by the name its recipe gives.
 */
export function openSqliteDataset(args: { path: string; split: string }): SqliteDataset<unknown> {
  return new SqliteDataset(args.path, args.split);
}
