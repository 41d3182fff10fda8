import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BurnError } from '../../core/errors.js';
import {
  checkSplitName,
  encodeItem,
  ident,
  openDatabase,
  type ItemFormat,
  type SqliteDatabase,
  type SqliteStatement,
} from './sqlite-driver.js';
import { sqliteSplits } from './sqlite.js';

/** Options of {@link SqliteDatasetWriter}. */
export interface SqliteWriterOptions {
  /** How items are serialised: MessagePack in a BLOB (default, as Burn) or JSON in TEXT. */
  readonly format?: ItemFormat;
  /** At `close()`, also drop the splits this writer did not write, so the file holds exactly its splits (Burn's `overwrite`). Default false. */
  readonly overwrite?: boolean;
  /** Rows per intermediate commit of the staging tables (bounds the journal); default 10 000. */
  readonly commitEvery?: number;
}

const STAGING = /^__burn_staging_(\d+)_[0-9a-f]+_/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Staged {
  readonly table: string;
  readonly insert: SqliteStatement;
  rows: number;
}

/**
 * Writes items into splits of an SQLite database (Burn's `SqliteDatasetWriter`), for
 * {@link SqliteDataset} to read. Each split is a table `(row_id INTEGER PRIMARY KEY, item BLOB)`
 * of MessagePack items (or `item TEXT` of JSON with `format: 'json'`).
 *
 * Atomic per split: items go to a staging table, and `close()` replaces every written split in
 * one transaction. Until then readers see the old data; a crash or `abort()` before `close()`
 * leaves the old splits as they were (the next writer drops stale staging tables). Splits the
 * writer does not touch are kept (unless `overwrite`). The database uses WAL journaling, so
 * readers are never blocked by the writer.
 */
export class SqliteDatasetWriter<I> {
  private db: SqliteDatabase | undefined;
  private readonly staged = new Map<string, Staged>();
  private readonly format: ItemFormat;
  private readonly commitEvery: number;
  private readonly overwrite: boolean;
  private pending = 0;
  private readonly tag: string;

  constructor(
    readonly path: string,
    options: SqliteWriterOptions = {},
  ) {
    const op = 'SqliteDatasetWriter';
    this.format = options.format ?? 'msgpack';
    if (this.format !== 'msgpack' && this.format !== 'json')
      throw new BurnError(op, `format '${String(this.format)}'; expected 'msgpack' or 'json'`);
    this.commitEvery = options.commitEvery ?? 10000;
    if (!Number.isSafeInteger(this.commitEvery) || this.commitEvery < 1)
      throw new BurnError(op, `commitEvery ${this.commitEvery}; expected a positive integer`);
    this.overwrite = options.overwrite ?? false;
    this.tag = `${process.pid}_${Math.floor(Math.random() * 0xffffffff).toString(16)}`;
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      throw new BurnError(op, `cannot create the directory of ${path}: ${(e as Error).message}`);
    }
    const db = openDatabase(op, path, { readonly: false });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      const stale = (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_\\_burn\\_staging\\_%' ESCAPE '\\'",
          )
          .pluck()
          .all() as string[]
      ).filter((name) => {
        const m = STAGING.exec(name);
        return m !== null && !alive(Number(m[1]));
      });
      for (const name of stale) db.exec(`DROP TABLE IF EXISTS ${ident(name)}`);
    } catch (e) {
      db.close();
      throw new BurnError(op, `cannot prepare ${path} for writing: ${(e as Error).message}`);
    }
    this.db = db;
  }

  private open(op: string): SqliteDatabase {
    if (!this.db)
      throw new BurnError(op, `the writer of ${this.path} is closed; create a new SqliteDatasetWriter to write again`);
    return this.db;
  }

  /** Appends `item` to `split`; returns its index in the split. Visible to readers after `close()`. */
  write(split: string, item: I): number {
    const op = 'SqliteDatasetWriter.write';
    const db = this.open(op);
    checkSplitName(op, split);
    let stage = this.staged.get(split);
    if (!stage) {
      const table = `__burn_staging_${this.tag}_${split}`;
      try {
        db.exec(
          `CREATE TABLE ${ident(table)} (row_id INTEGER PRIMARY KEY, item ${this.format === 'json' ? 'TEXT' : 'BLOB'} NOT NULL)`,
        );
      } catch (e) {
        throw new BurnError(
          op,
          `cannot create a staging table for split '${split}' in ${this.path}: ${(e as Error).message}`,
        );
      }
      stage = { table, insert: db.prepare(`INSERT INTO ${ident(table)} (row_id, item) VALUES (?, ?)`), rows: 0 };
      this.staged.set(split, stage);
    }
    let value: Uint8Array | string;
    try {
      value = encodeItem(this.format, item);
    } catch (e) {
      throw new BurnError(
        op,
        `cannot serialise an item of split '${split}' as ${this.format}: ${(e as Error).message}`,
      );
    }
    if (!db.inTransaction) db.exec('BEGIN');
    stage.insert.run(stage.rows + 1, value);
    stage.rows++;
    if (++this.pending >= this.commitEvery) {
      db.exec('COMMIT');
      this.pending = 0;
    }
    return stage.rows - 1;
  }

  /** The splits written so far and their item counts. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.staged].map(([split, s]) => [split, s.rows]));
  }

  /** Publishes every written split at once (replacing the old ones) and closes the file. */
  close(): void {
    const op = 'SqliteDatasetWriter.close';
    const db = this.open(op);
    try {
      if (db.inTransaction) db.exec('COMMIT');
      db.transaction(() => {
        if (this.overwrite) {
          for (const name of sqliteSplits(db)) if (!this.staged.has(name)) db.exec(`DROP TABLE ${ident(name)}`);
        }
        for (const [split, stage] of this.staged) {
          db.exec(`DROP TABLE IF EXISTS ${ident(split)}`);
          db.exec(`ALTER TABLE ${ident(stage.table)} RENAME TO ${ident(split)}`);
        }
      })();
    } catch (e) {
      throw new BurnError(
        op,
        `cannot publish the splits [${[...this.staged.keys()].join(', ')}] in ${this.path}: ${(e as Error).message}`,
      );
    } finally {
      this.db = undefined;
      db.close();
    }
  }

  /** Drops everything written and closes the file: the old splits stay as they were. */
  abort(): void {
    const db = this.open('SqliteDatasetWriter.abort');
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const stage of this.staged.values()) db.exec(`DROP TABLE IF EXISTS ${ident(stage.table)}`);
    } finally {
      this.db = undefined;
      db.close();
    }
  }
}
