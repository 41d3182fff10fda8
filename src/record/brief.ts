/**
 * A value from a file, shown in an error message: JSON-like (as `JSON.stringify` prints small
 * values), but bounded in depth, items and length and never throwing, because a hostile file's
 * value may be nested 100k deep (`JSON.stringify` overflows the stack), hold bigints, or be huge.
 */
export function brief(value: unknown, maxLength = 120): string {
  const text = show(value, 0);
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}

const MAX_DEPTH = 3;
const MAX_ITEMS = 8;

function show(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
    case 'number':
    case 'boolean':
      return JSON.stringify(v);
    case 'bigint':
      return String(v);
    case 'undefined':
      return 'undefined';
    case 'symbol':
    case 'function':
      return `a ${typeof v}`;
  }
  if (v === null) return 'null';
  if (ArrayBuffer.isView(v)) return `bytes(${v.byteLength})`;
  const entries: [string | undefined, unknown][] = Array.isArray(v)
    ? v.slice(0, MAX_ITEMS + 1).map((x) => [undefined, x])
    : v instanceof Map
      ? [...take(v.entries(), MAX_ITEMS + 1)].map(([k, x]) => [String(k), x])
      : [...take(Object.entries(v as object)[Symbol.iterator](), MAX_ITEMS + 1)];
  const open = Array.isArray(v) ? '[' : '{';
  const close = Array.isArray(v) ? ']' : '}';
  if (entries.length === 0) return `${open}${close}`;
  if (depth >= MAX_DEPTH) return `${open}…${close}`;
  const parts = entries
    .slice(0, MAX_ITEMS)
    .map(([k, x]) => (k === undefined ? show(x, depth + 1) : `${JSON.stringify(k)}:${show(x, depth + 1)}`));
  if (entries.length > MAX_ITEMS) parts.push('…');
  return `${open}${parts.join(',')}${close}`;
}

function* take<T>(it: Iterator<T>, n: number): Generator<T> {
  for (let i = 0; i < n; i++) {
    const r = it.next();
    if (r.done === true) return;
    yield r.value;
  }
}
