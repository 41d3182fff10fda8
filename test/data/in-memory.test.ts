// InMemDataset from JSON lines and CSV with typed columns (Burn's from_json_rows / from_csv with the
// same sample rows as burn-dataset's tests), and the errors a corrupt file gives.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, z } from '../../src/index.js';
import { InMemDataset, parseCsv } from '../../src/data/index.js';

const dir = mkdtempSync(join(tmpdir(), 'burn-ts-inmem-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const burnError = (pattern: RegExp) => (e: unknown) => e instanceof BurnError && pattern.test(e.message);

describe('InMemDataset.fromJsonRows', () => {
  const path = file(
    'dataset.json',
    '{"column_str":"HI1","column_bytes":[1,2,3],"column_int":1,"column_bool":true,"column_float":1.0}\n' +
      '{"column_str":"HI2","column_bytes":[1,2,3],"column_int":1,"column_bool":false,"column_float":1.0}\n\n',
  );
  it('reads one item per line, skipping blank lines', () => {
    const d = InMemDataset.fromJsonRows<{ column_str: string; column_bool: boolean; column_bytes: number[] }>(path);
    assert.equal(d.len(), 2);
    assert.equal(d.get(1)!.column_str, 'HI2');
    assert.equal(d.get(1)!.column_bool, false);
    assert.deepEqual(d.get(0)!.column_bytes, [1, 2, 3]);
    assert.equal(d.get(10), undefined);
  });
  it('validates rows with a schema', () => {
    const schema = z.object({ column_str: z.string(), column_int: z.number().int() });
    const d = InMemDataset.fromJsonRows(path, { schema });
    assert.deepEqual(d.get(0), { column_str: 'HI1', column_int: 1 });
    const bad = file('bad-schema.json', '{"column_str":"x","column_int":1}\n{"column_str":3,"column_int":1}\n');
    assert.throws(
      () => InMemDataset.fromJsonRows(bad, { schema }),
      burnError(/bad-schema\.json:2: the row does not match the schema/),
    );
  });
  it('names the file and line of corrupt JSON', () => {
    const bad = file('corrupt.json', '{"a":1}\n{"a":\n');
    assert.throws(
      () => InMemDataset.fromJsonRows(bad),
      burnError(/^InMemDataset\.fromJsonRows: .*corrupt\.json:2: invalid JSON/),
    );
    assert.throws(() => InMemDataset.fromJsonRows(join(dir, 'missing.json')), burnError(/cannot read .*missing\.json/));
  });
});

describe('InMemDataset.fromCsv', () => {
  const columns = {
    column_str: 'string',
    column_int: 'integer',
    column_bool: 'boolean',
    column_float: 'number',
  } as const;
  it('reads typed columns by header name', () => {
    const path = file(
      'dataset.csv',
      'column_str,column_int,column_bool,column_float\nHI1,1,true,1.0\nHI2,1,false,1.0\n',
    );
    const d = InMemDataset.fromCsv(path, { columns });
    assert.equal(d.len(), 2);
    const row = d.get(1)!;
    assert.deepEqual(row, { column_str: 'HI2', column_int: 1, column_bool: false, column_float: 1 });
    // The row type follows the columns: a compile-time check as much as a run-time one.
    const n: number = row.column_int;
    const b: boolean = row.column_bool;
    const s: string = row.column_str;
    assert.deepEqual([n, b, s], [1, false, 'HI2']);
  });
  it('reads files without headers with another delimiter (Burn dataset-fmt.csv)', () => {
    const path = file('dataset-fmt.csv', 'HI1 1 true 1.0\nHI2 1 false 1.0\n');
    const d = InMemDataset.fromCsv(path, { columns, delimiter: ' ', hasHeaders: false });
    assert.deepEqual(d.get(1), { column_str: 'HI2', column_int: 1, column_bool: false, column_float: 1 });
  });
  it('reads every column as text without a schema, selects and reorders with one', () => {
    const path = file('text.csv', 'a,b,c\r\n1,"x, ""quoted""\nline",3\r\n');
    const d = InMemDataset.fromCsv(path);
    assert.deepEqual(d.get(0), { a: '1', b: 'x, "quoted"\nline', c: '3' });
    const picked = InMemDataset.fromCsv(path, { columns: { c: 'integer', a: 'number' } });
    assert.deepEqual(picked.get(0), { c: 3, a: 1 });
    assert.deepEqual(parseCsv(' p , q \n 1 , 2 ', 'inline', { trim: true }), [{ p: '1', q: '2' }]);
  });
  it('names the file, line and column of a bad value', () => {
    const path = file(
      'badvalue.csv',
      'column_str,column_int,column_bool,column_float\nHI1,1,true,1.0\nHI2,one,false,1.0\n',
    );
    assert.throws(
      () => InMemDataset.fromCsv(path, { columns }),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message === `InMemDataset.fromCsv: ${path}:3: column 'column_int': 'one' is not an integer`,
    );
    const b = file('badbool.csv', 'x\nyes\n');
    assert.throws(
      () => InMemDataset.fromCsv(b, { columns: { x: 'boolean' } }),
      burnError(/badbool\.csv:2: column 'x': 'yes' is not a boolean; expected true or false/),
    );
    const f = file('badfloat.csv', 'x\n1.5e\n');
    assert.throws(
      () => InMemDataset.fromCsv(f, { columns: { x: 'number' } }),
      burnError(/badfloat\.csv:2: column 'x': '1\.5e' is not a finite decimal number/),
    );
  });
  it('names the file and line of a corrupt record', () => {
    const ragged = file('ragged.csv', 'a,b\n1,2\n3\n');
    assert.throws(
      () => InMemDataset.fromCsv(ragged),
      burnError(/ragged\.csv:3: 1 fields; expected 2 \(as the header\)/),
    );
    const open = file('open.csv', 'a,b\n1,"never closed\n2,3\n');
    assert.throws(() => InMemDataset.fromCsv(open), burnError(/open\.csv:2: a quoted field is never closed/));
    const stray = file('stray.csv', 'a\n1"2\n');
    assert.throws(() => InMemDataset.fromCsv(stray), burnError(/stray\.csv:2: a quote inside the unquoted field '1'/));
    const after = file('after.csv', 'a\n"1"x\n');
    assert.throws(() => InMemDataset.fromCsv(after), burnError(/after\.csv:2: text 'x' after the closing quote/));
    const missing = file('missing-col.csv', 'a,b\n1,2\n');
    assert.throws(
      () => InMemDataset.fromCsv(missing, { columns: { z: 'string' } }),
      burnError(/missing-col\.csv:1: the header \[a, b\] has no column 'z'/),
    );
    const empty = file('empty.csv', '');
    assert.throws(
      () => InMemDataset.fromCsv(empty),
      burnError(/empty\.csv: the file is empty; expected a header record/),
    );
    assert.throws(
      () => InMemDataset.fromCsv(empty, { hasHeaders: false }),
      burnError(/the columns option must name the columns/),
    );
    assert.throws(
      () => InMemDataset.fromCsv(empty, { delimiter: '::' }),
      burnError(/delimiter '::'; expected one character/),
    );
  });
  it('refuses a header naming a column twice', () => {
    const path = file('dup.csv', 'a,b,a\n1,2,3\n');
    assert.throws(
      () => InMemDataset.fromCsv(path),
      (e: unknown) =>
        e instanceof BurnError &&
        e.message ===
          `InMemDataset.fromCsv: ${path}:1: the header names column 'a' twice (fields 1 and 3); expected unique column names`,
    );
    assert.throws(
      () => InMemDataset.fromCsv(path, { columns: { a: 'integer' } }),
      burnError(/dup\.csv:1: the header names column 'a' twice \(fields 1 and 3\)/),
    );
    // A duplicate the columns option does not read is harmless.
    assert.deepEqual(InMemDataset.fromCsv(path, { columns: { b: 'integer' } }).toArray(), [{ b: 2 }]);
  });

  it('refuses non-finite and non-decimal numbers, naming file, line, column and value', () => {
    for (const text of ['NaN', 'Infinity', '-Infinity', 'inf', '1e999', '-1e400', '0x10', '0b1', '1_000']) {
      const path = file(`nonfinite-${text}.csv`, `x,y\n1,2\n3,${text}\n`);
      assert.throws(
        () => InMemDataset.fromCsv(path, { columns: { x: 'number', y: 'number' } }),
        (e: unknown) =>
          e instanceof BurnError &&
          e.message === `InMemDataset.fromCsv: ${path}:3: column 'y': '${text}' is not a finite decimal number`,
        text,
      );
    }
    assert.deepEqual(
      parseCsv('x\n-1.5e3\n+.5\n7.\n 2 \n', 'ok', { columns: { x: 'number' } }).map((r) => r.x),
      [-1500, 0.5, 7, 2],
    );
  });

  it('keeps the items and does not copy them', () => {
    const objects = [{ v: 1 }, { v: 2 }];
    const d = new InMemDataset(objects);
    assert.equal(d.get(1), objects[1]);
    assert.deepEqual(InMemDataset.fromDataset(d).toArray(), objects);
  });
});
