// SQLite datasets: splits as tables, MessagePack or JSON items, plain tables, concurrent readers,
// a writer that is atomic per split (a crash mid-write leaves the old data), and the errors of a
// missing or corrupt database.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BurnError } from '../../src/index.js';
import { DataLoaderBuilder, SqliteDataset, SqliteDatasetWriter, type Batcher } from '../../src/data/index.js';

interface Row {
  id: number;
  name: string;
  values: number[];
}
const rows = (n: number, tag = 'v1'): Row[] =>
  Array.from({ length: n }, (_, i) => ({ id: i, name: `${tag}-${i}`, values: [i, i * 0.5] }));

const dir = mkdtempSync(join(tmpdir(), 'burn-ts-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const dbPath = (): string => join(dir, `db${counter++}.db`);
const burnError = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);

type Raw = {
  prepare(sql: string): { all(...p: unknown[]): unknown[]; run(...p: unknown[]): unknown };
  exec(sql: string): void;
  close(): void;
};
const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => Raw;
const tables = (path: string): string[] => {
  const db = new Database(path);
  try {
    return (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((r) => r.name);
  } finally {
    db.close();
  }
};

function write(path: string, splits: Record<string, Row[]>, options = {}): void {
  const w = new SqliteDatasetWriter<Row>(path, options);
  for (const [split, items] of Object.entries(splits)) for (const item of items) w.write(split, item);
  w.close();
}

describe('SqliteDatasetWriter and SqliteDataset', () => {
  it('round-trips items through MessagePack (default) and JSON', () => {
    for (const format of ['msgpack', 'json'] as const) {
      const path = dbPath();
      const w = new SqliteDatasetWriter<Row & { blob?: Uint8Array }>(path, { format });
      assert.equal(
        w.write('train', { ...rows(1)[0]!, ...(format === 'msgpack' ? { blob: new Uint8Array([7, 8]) } : {}) }),
        0,
      );
      for (const r of rows(5).slice(1)) w.write('train', r);
      assert.equal(w.write('test', rows(1, 't')[0]!), 0);
      assert.deepEqual(w.counts(), { train: 5, test: 1 });
      w.close();
      const train = new SqliteDataset<Row & { blob?: Uint8Array }>(path, 'train');
      assert.equal(train.storage(), format);
      assert.equal(train.len(), 5);
      assert.deepEqual(train.get(3), rows(5)[3]);
      if (format === 'msgpack') assert.deepEqual(train.get(0)!.blob, new Uint8Array([7, 8]));
      assert.equal(train.get(5), undefined);
      assert.deepEqual(train.getMany([4, 1]), [rows(5)[4], rows(5)[1]]);
      assert.deepEqual(SqliteDataset.splits(path), ['test', 'train']);
      assert.deepEqual(new SqliteDataset(path, 'test').get(0), rows(1, 't')[0]);
      train.close();
    }
  });

  it('reads a plain table (one column per field) as objects', () => {
    const path = dbPath();
    const db = new Database(path);
    db.exec('CREATE TABLE train (row_id INTEGER PRIMARY KEY, column_str TEXT, column_float REAL)');
    db.prepare('INSERT INTO train VALUES (?, ?, ?)').run(1, 'HI1', 1.5);
    db.prepare('INSERT INTO train VALUES (?, ?, ?)').run(2, 'HI2', 2.5);
    db.close();
    const d = new SqliteDataset<{ column_str: string; column_float: number }>(path, 'train');
    assert.equal(d.storage(), 'columns');
    assert.equal(d.len(), 2);
    assert.deepEqual(d.get(1), { column_str: 'HI2', column_float: 2.5 });
  });

  it('is atomic per split: readers see the old split until close(), other splits are kept', () => {
    const path = dbPath();
    write(path, { train: rows(10), test: rows(3, 'test') });
    const w = new SqliteDatasetWriter<Row>(path);
    for (const r of rows(4, 'v2')) w.write('train', r);
    const during = new SqliteDataset<Row>(path, 'train');
    assert.equal(during.len(), 10, 'the old split while the writer writes');
    assert.equal(during.get(0)!.name, 'v1-0');
    w.close();
    const afterClose = new SqliteDataset<Row>(path, 'train');
    assert.equal(afterClose.len(), 4);
    assert.equal(afterClose.get(0)!.name, 'v2-0');
    assert.equal(new SqliteDataset<Row>(path, 'test').len(), 3, 'a split not written is kept');
    assert.deepEqual(tables(path), ['test', 'train'], 'no staging table left');
    during.close();
    afterClose.close();
  });

  it('leaves the old data after a crash mid-write, and the next writer removes the leftovers', () => {
    const path = dbPath();
    write(path, { train: rows(10) });
    const module = fileURLToPath(new URL('../../src/data/index.ts', import.meta.url));
    const script = `
      import { SqliteDatasetWriter } from ${JSON.stringify(module)};
      const w = new SqliteDatasetWriter(${JSON.stringify(path)}, { commitEvery: 5 });
      for (let i = 0; i < 23; i++) w.write('train', { id: i, name: 'crash-' + i, values: [] });
      process.exit(3); // dies without close()
    `;
    const scriptPath = join(dir, 'crash.mts');
    writeFileSync(scriptPath, script);
    assert.throws(
      () => execFileSync(process.execPath, ['--import', 'tsx', scriptPath], { stdio: 'pipe' }),
      (e: { status?: number }) => e.status === 3,
    );
    const leftovers = tables(path).filter((t) => t.startsWith('__burn_staging_'));
    assert.equal(leftovers.length, 1, 'the dead writer left its staging table (20 rows were committed to it)');
    const d = new SqliteDataset<Row>(path, 'train');
    assert.equal(d.len(), 10);
    assert.equal(d.get(9)!.name, 'v1-9');
    assert.deepEqual(SqliteDataset.splits(path), ['train'], 'staging tables are not splits');
    d.close();
    new SqliteDatasetWriter<Row>(path).abort();
    assert.deepEqual(tables(path), ['train'], 'the next writer dropped the dead writer\u2019s staging table');
  });

  it('abort() drops what was written; overwrite drops the splits not written', () => {
    const path = dbPath();
    write(path, { train: rows(5), valid: rows(2) });
    const w = new SqliteDatasetWriter<Row>(path);
    w.write('train', rows(1, 'x')[0]!);
    w.abort();
    assert.equal(new SqliteDataset<Row>(path, 'train').len(), 5);
    assert.throws(() => w.write('train', rows(1)[0]!), burnError(/the writer of .* is closed/));
    write(path, { train: rows(2, 'o') }, { overwrite: true });
    assert.deepEqual(SqliteDataset.splits(path), ['train']);
  });

  it('serves concurrent readers, also in worker threads while a writer writes', async () => {
    const path = dbPath();
    write(path, { train: rows(200) });
    const readers = [0, 1, 2].map(() => new SqliteDataset<Row>(path, 'train'));
    const w = new SqliteDatasetWriter<Row>(path, { commitEvery: 7 });
    for (let i = 0; i < 200; i++) {
      w.write('train', rows(1, 'new')[0]!);
      const r = readers[i % 3]!;
      assert.equal(r.get(i)!.name, `v1-${i}`);
    }
    const ids: Batcher<Row, number[]> = { batch: (items) => items.map((r) => r.id) };
    const loader = new DataLoaderBuilder(ids).batchSize(16).numWorkers(2).build(readers[0]!);
    assert.equal(loader.loadingMode(), 'workers');
    const seen: number[] = [];
    for await (const batch of loader) seen.push(...batch);
    await loader.close();
    assert.deepEqual(
      seen,
      Array.from({ length: 200 }, (_, i) => i),
      'workers read the old split while the writer still writes',
    );
    w.close();
    assert.equal(new SqliteDataset<Row>(path, 'train').get(0)!.name, 'new-0');
    for (const r of readers) r.close();
  });
});

describe('SQLite errors', () => {
  it('names a missing file, a file that is not a database, and a missing split', () => {
    assert.throws(
      () => new SqliteDataset(join(dir, 'nope.db'), 'train'),
      burnError(/^SqliteDataset: cannot open the SQLite database .*nope\.db/),
    );
    const garbage = join(dir, 'garbage.db');
    writeFileSync(
      garbage,
      'this is not a database, just some text that is long enough to look like a header...'.repeat(20),
    );
    assert.throws(
      () => new SqliteDataset(garbage, 'train'),
      burnError(/garbage\.db is not a valid SQLite database: file is not a database/),
    );
    assert.throws(() => new SqliteDatasetWriter(garbage), burnError(/garbage\.db is not a valid SQLite database/));
    const path = dbPath();
    write(path, { train: rows(1), test: rows(1) });
    assert.throws(
      () => new SqliteDataset(path, 'valid'),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message === `SqliteDataset: ${path} has no split 'valid'; its splits are [test, train]`,
    );
  });
  it('rejects bad split names and unserialisable items', () => {
    const w = new SqliteDatasetWriter<unknown>(dbPath());
    assert.throws(
      () => w.write('drop table; --', 1),
      burnError(/split name 'drop table; --'; expected letters, digits and '_'/),
    );
    assert.throws(() => w.write('__burn_x', 1), burnError(/split name '__burn_x'/));
    assert.throws(
      () => w.write('train', { f: () => 1 }),
      burnError(/cannot serialise an item of split 'train' as msgpack/),
    );
    assert.throws(() => new SqliteDatasetWriter(dbPath(), { format: 'xml' as 'json' }), burnError(/format 'xml'/));
    w.abort();
  });
  it('names the row of a corrupt item', () => {
    const path = dbPath();
    const db = new Database(path);
    db.exec('CREATE TABLE train (row_id INTEGER PRIMARY KEY, item BLOB)');
    db.prepare('INSERT INTO train VALUES (?, ?)').run(1, Buffer.from([0xc1]));
    db.prepare('INSERT INTO train VALUES (?, ?)').run(2, Buffer.from([0x01]));
    db.close();
    const d = new SqliteDataset(path, 'train');
    assert.throws(() => d.get(0), burnError(/row 0 of split 'train' is not a valid MessagePack item/));
    assert.equal(d.get(1), 1);
  });
  it('counts the rows a split has, whatever its row ids (gaps, one huge id)', () => {
    const path = dbPath();
    const db = new Database(path);
    db.exec('CREATE TABLE huge (row_id INTEGER PRIMARY KEY, item BLOB)');
    db.prepare('INSERT INTO huge VALUES (?, ?)').run(100_000_000, Buffer.from([0x07]));
    db.exec('CREATE TABLE gaps (row_id INTEGER PRIMARY KEY, item TEXT)');
    for (const [id, v] of [
      [1, 10],
      [3, 30],
      [4, 40],
      [9, 90],
    ])
      db.prepare('INSERT INTO gaps VALUES (?, ?)').run(id, JSON.stringify(v));
    db.exec('CREATE TABLE plain (a INTEGER, b TEXT)');
    for (let i = 0; i < 5; i++) db.prepare('INSERT INTO plain VALUES (?, ?)').run(i, `r${i}`);
    db.exec('DELETE FROM plain WHERE a = 1');
    db.exec('CREATE TABLE dup (row_id INTEGER, x INTEGER)');
    db.prepare('INSERT INTO dup VALUES (?, ?)').run(1, 1);
    db.prepare('INSERT INTO dup VALUES (?, ?)').run(1, 2);
    db.exec('CREATE TABLE empty (row_id INTEGER PRIMARY KEY, item BLOB)');
    db.close();
    const huge = new SqliteDataset<number>(path, 'huge');
    assert.equal(huge.len(), 1);
    assert.deepEqual(huge.toArray(), [7]);
    const gaps = new SqliteDataset<number>(path, 'gaps');
    assert.equal(gaps.len(), 4);
    assert.deepEqual(gaps.toArray(), [10, 30, 40, 90], 'in row_id order');
    assert.equal(gaps.get(4), undefined);
    const plain = new SqliteDataset<{ a: number; b: string }>(path, 'plain');
    assert.deepEqual(
      plain.toArray().map((r) => r.a),
      [0, 2, 3, 4],
      'rowids with a gap',
    );
    assert.throws(
      () => new SqliteDataset(path, 'dup'),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          `SqliteDataset: ${path}: split 'dup' has 2 rows but 1 distinct non-NULL row_id values; expected a unique row_id per row`,
    );
    assert.equal(new SqliteDataset(path, 'empty').len(), 0);
  });
  it('says how to install better-sqlite3 when it is missing', () => {
    const hook = join(dir, 'hide-sqlite.cjs');
    writeFileSync(
      hook,
      `const M = require('module'); const r = M._resolveFilename; M._resolveFilename = function (req, ...a) { if (req === 'better-sqlite3') throw new Error("Cannot find module 'better-sqlite3'"); return r.call(this, req, ...a); };`,
    );
    const module = fileURLToPath(new URL('../../src/data/index.ts', import.meta.url));
    const script = join(dir, 'missing.mts');
    writeFileSync(
      script,
      `import { SqliteDataset } from ${JSON.stringify(module)}; try { new SqliteDataset('x.db', 'train'); } catch (e) { console.log(e.message); }`,
    );
    const out = execFileSync(process.execPath, ['--require', hook, '--import', 'tsx', script], { encoding: 'utf8' });
    assert.match(
      out,
      /^SqliteDataset: SQLite datasets need the optional dependency better-sqlite3, which is not available \(Cannot find module 'better-sqlite3'\); install it with: npm install better-sqlite3@12/,
    );
  });
});
