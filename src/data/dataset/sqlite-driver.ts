import { createRequire } from 'node:module';
import { decode, encode } from '@msgpack/msgpack';
import { BurnError } from '../../core/errors.js';

/** The parts of a better-sqlite3 statement burn-ts uses. */
export interface SqliteStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  pluck(toggle?: boolean): SqliteStatement;
  raw(toggle?: boolean): SqliteStatement;
}

/** The parts of a better-sqlite3 database burn-ts uses. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): SqliteDatabase;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

type SqliteConstructor = new (
  path: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => SqliteDatabase;

let driver: SqliteConstructor | undefined;

/**
 * better-sqlite3, an optional dependency of burn-ts, loaded on first use. Throws a `BurnError`
 * for `op` saying how to install it when it is missing or failed to build.
 */
export function sqliteDriver(op: string): SqliteConstructor {
  if (driver) return driver;
  try {
    driver = createRequire(import.meta.url)('better-sqlite3') as SqliteConstructor;
  } catch (e) {
    throw new BurnError(
      op,
      `SQLite datasets need the optional dependency better-sqlite3, which is not available (${(e as Error).message.split('\n')[0]}); install it with: npm install better-sqlite3@12`,
    );
  }
  return driver;
}

/** Opens a database file, naming the file and the problem in a `BurnError` when it cannot. */
export function openDatabase(op: string, path: string, options: { readonly: boolean }): SqliteDatabase {
  const Database = sqliteDriver(op);
  let db: SqliteDatabase;
  try {
    db = new Database(path, { readonly: options.readonly, fileMustExist: options.readonly, timeout: 10000 });
  } catch (e) {
    throw new BurnError(op, `cannot open the SQLite database ${path}: ${(e as Error).message}`);
  }
  try {
    // Reading the schema checks that the file is a database at all.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
    db.close();
    throw new BurnError(op, `${path} is not a valid SQLite database: ${(e as Error).message}`);
  }
  return db;
}

/** How items are stored in a split's `item` column: MessagePack in a BLOB, or JSON in TEXT. */
export type ItemFormat = 'msgpack' | 'json';

/** Serialises an item for the `item` column. */
export function encodeItem(format: ItemFormat, item: unknown): Uint8Array | string {
  return format === 'json' ? JSON.stringify(item) : encode(item);
}

/** Deserialises an `item` column value. */
export function decodeItem(format: ItemFormat, value: unknown): unknown {
  if (format === 'json') {
    if (typeof value !== 'string')
      throw new Error(`expected JSON text, found ${value === null ? 'NULL' : typeof value}`);
    return JSON.parse(value);
  }
  if (!(value instanceof Uint8Array))
    throw new Error(`expected a MessagePack BLOB, found ${value === null ? 'NULL' : typeof value}`);
  // A plain Uint8Array view, so binary fields decode as Uint8Array (not as Buffer).
  return decode(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
}

/** Split names are table names: letters, digits and `_`, not starting with a digit or `__burn`. */
export function checkSplitName(op: string, split: string): void {
  if (typeof split !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(split) || split.startsWith('__burn')) {
    throw new BurnError(
      op,
      `split name '${String(split)}'; expected letters, digits and '_' (not starting with a digit or '__burn')`,
    );
  }
}

/** A quoted SQL identifier. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
