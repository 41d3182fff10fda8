import { BurnError } from '../../core/errors.js';

/** The type of a CSV column: the text, a finite decimal number, an integer, or a boolean (`true`/`false`). */
export type CsvColumnType = 'string' | 'number' | 'integer' | 'boolean';

/** Typed columns of a CSV file: column name → type, in file order when the file has no header. */
export type CsvColumns = Readonly<Record<string, CsvColumnType>>;

/** The value type of a column type. */
export type CsvValue<T extends CsvColumnType> = T extends 'string' ? string : T extends 'boolean' ? boolean : number;

/** A row read with typed columns. */
export type CsvRow<C extends CsvColumns> = { -readonly [K in keyof C]: CsvValue<C[K]> };

/** Options of `InMemDataset.fromCsv` (Burn passes a `csv::ReaderBuilder`). */
export interface CsvOptions<C extends CsvColumns = CsvColumns> {
  /** The columns to read and their types; without it every column of the header is read as text. */
  readonly columns?: C;
  /** Field separator, one character; default `,`. */
  readonly delimiter?: string;
  /** Whether the first record names the columns; default true. Without a header, `columns` gives the order. */
  readonly hasHeaders?: boolean;
  /** Quote character; default `"` (a doubled quote inside quotes is a literal quote). */
  readonly quote?: string;
  /** Trim spaces around unquoted fields; default false. */
  readonly trim?: boolean;
}

const OP = 'InMemDataset.fromCsv';

/** One record and the line it starts on (1-based). */
interface CsvRecord {
  readonly fields: string[];
  readonly line: number;
}

/** Splits CSV text into records (RFC 4180: quoted fields may hold delimiters, quotes and newlines). */
export function parseCsvRecords(
  text: string,
  file: string,
  options: Pick<CsvOptions, 'delimiter' | 'quote' | 'trim'> = {},
): CsvRecord[] {
  const delimiter = options.delimiter ?? ',';
  const quote = options.quote ?? '"';
  if (delimiter.length !== 1) throw new BurnError(OP, `delimiter '${delimiter}'; expected one character`);
  if (quote.length !== 1 || quote === delimiter)
    throw new BurnError(OP, `quote '${quote}'; expected one character other than the delimiter`);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;
  let quoteLine = 1;
  const endField = (): void => {
    fields.push(quoted || !options.trim ? field : field.trim());
    field = '';
    quoted = false;
  };
  const endRecord = (): void => {
    endField();
    if (!(fields.length === 1 && fields[0] === '' && !quoted)) records.push({ fields, line: recordLine });
    fields = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === quote) {
        if (text[i + 1] === quote) {
          field += quote;
          i++;
        } else inQuotes = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === quote) {
      if (field.trim() !== '') throw new BurnError(OP, `${file}:${line}: a quote inside the unquoted field '${field}'`);
      field = '';
      inQuotes = true;
      quoted = true;
      quoteLine = line;
    } else if (c === delimiter) {
      endField();
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      if (quoted && c !== ' ' && c !== '\t')
        throw new BurnError(OP, `${file}:${line}: text '${c}' after the closing quote of a field`);
      if (!quoted) field += c;
    }
  }
  if (inQuotes) throw new BurnError(OP, `${file}:${quoteLine}: a quoted field is never closed`);
  if (field !== '' || fields.length > 0 || quoted) endRecord();
  return records;
}

/** A decimal number: sign, digits with an optional point, optional exponent. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function convert(type: CsvColumnType, text: string, where: () => string): string | number | boolean {
  switch (type) {
    case 'string':
      return text;
    case 'boolean': {
      const t = text.trim().toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
      throw new BurnError(OP, `${where()}: '${text}' is not a boolean; expected true or false`);
    }
    case 'integer': {
      const t = text.trim();
      const v = Number(t);
      if (!/^[+-]?\d+$/.test(t) || !Number.isSafeInteger(v))
        throw new BurnError(OP, `${where()}: '${text}' is not an integer`);
      return v;
    }
    case 'number': {
      // Decimal notation only: Number() would also take hex, binary, 'Infinity' and '' (as 0), and NaN or an overflow (1e999) poisons training silently.
      const t = text.trim();
      const v = DECIMAL.test(t) ? Number(t) : Number.NaN;
      if (!Number.isFinite(v)) throw new BurnError(OP, `${where()}: '${text}' is not a finite decimal number`);
      return v;
    }
    default:
      throw new BurnError(OP, `column type '${String(type)}'; expected 'string', 'number', 'integer' or 'boolean'`);
  }
}

/** Parses CSV text into typed rows (`file` names the source in error messages). */
export function parseCsv(
  text: string,
  file: string,
  options: CsvOptions = {},
): Record<string, string | number | boolean>[] {
  const records = parseCsvRecords(text, file, options);
  const hasHeaders = options.hasHeaders ?? true;
  let names: string[];
  let positions: number[];
  let body: CsvRecord[];
  if (hasHeaders) {
    if (records.length === 0) throw new BurnError(OP, `${file}: the file is empty; expected a header record`);
    const header = records[0]!.fields;
    names = options.columns ? Object.keys(options.columns) : header;
    positions = names.map((name) => {
      const at = header.indexOf(name);
      if (at < 0)
        throw new BurnError(
          OP,
          `${file}:${records[0]!.line}: the header [${header.join(', ')}] has no column '${name}'`,
        );
      // Two columns of one name would silently become one field of each row.
      const again = header.indexOf(name, at + 1);
      if (again >= 0)
        throw new BurnError(
          OP,
          `${file}:${records[0]!.line}: the header names column '${name}' twice (fields ${at + 1} and ${again + 1}); expected unique column names`,
        );
      return at;
    });
    body = records.slice(1);
  } else {
    if (!options.columns)
      throw new BurnError(OP, `${file}: hasHeaders is false, so the columns option must name the columns`);
    names = Object.keys(options.columns);
    positions = names.map((_, k) => k);
    body = records;
  }
  const width = hasHeaders ? records[0]!.fields.length : names.length;
  return body.map((record) => {
    if (record.fields.length !== width) {
      throw new BurnError(
        OP,
        `${file}:${record.line}: ${record.fields.length} fields; expected ${width}${hasHeaders ? ' (as the header)' : ''}`,
      );
    }
    const row: Record<string, string | number | boolean> = {};
    names.forEach((name, k) => {
      const text = record.fields[positions[k]!]!;
      row[name] = convert(options.columns?.[name] ?? 'string', text, () => `${file}:${record.line}: column '${name}'`);
    });
    return row;
  });
}
