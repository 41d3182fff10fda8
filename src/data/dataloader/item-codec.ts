/**
 * How items travel from a data loader worker to the main thread. A structured clone of nested
 * number arrays (an MNIST image is 28 arrays of 28 numbers) costs far more to deserialise than to
 * build, so the worker packs every rectangular nested number array into one `Float64Array`
 * (transferred, not copied) and the main thread rebuilds the arrays; typed arrays that own their
 * buffer are transferred too. Everything else goes by structured clone.
 */

/** The placeholder of a packed array (a key no user object has). */
const PACKED = '\u0000burn-ts.packed';

interface Placeholder {
  readonly [PACKED]: readonly [offset: number, ...shape: number[]];
}

/** A batch of encoded items. */
export interface EncodedItems {
  readonly tree: unknown[];
  readonly numbers: Float64Array;
}

/** Arrays with fewer numbers than this are cloned as they are. */
const MIN_PACKED = 16;

/** True when every element of `v` is a number. */
function allNumbers(v: unknown[]): boolean {
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'number') return false;
  return true;
}

/** The shape of a rectangular nested array of numbers, or `undefined`. */
function numericShape(v: unknown[]): number[] | undefined {
  if (v.length === 0) return undefined;
  const first = v[0];
  if (typeof first === 'number') return allNumbers(v) ? [v.length] : undefined;
  if (!Array.isArray(first)) return undefined;
  const inner = numericShape(first);
  if (!inner) return undefined;
  for (let i = 1; i < v.length; i++) {
    const row = v[i];
    if (!Array.isArray(row) || row.length !== inner[0]) return undefined;
    if (inner.length === 1) {
      if (!allNumbers(row)) return undefined;
    } else {
      const s = numericShape(row);
      if (!s || s.length !== inner.length || s.some((d, k) => d !== inner[k])) return undefined;
    }
  }
  return [v.length, ...inner];
}

/** A growable buffer of doubles. */
class Numbers {
  data = new Float64Array(4096);
  length = 0;
  reserve(n: number): void {
    if (this.length + n <= this.data.length) return;
    const next = new Float64Array(Math.max(this.data.length * 2, this.length + n));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  write(v: unknown[], depth: number): void {
    if (depth === 1) {
      const d = this.data;
      let o = this.length;
      for (let i = 0; i < v.length; i++) d[o++] = v[i] as number;
      this.length = o;
    } else {
      for (let i = 0; i < v.length; i++) this.write(v[i] as unknown[], depth - 1);
    }
  }
}

/** Packs `items` for `postMessage`; returns the encoding and the buffers to transfer. */
export function encodeItems(items: unknown[]): { encoded: EncodedItems; transfer: ArrayBuffer[] } {
  const numbers = new Numbers();
  const transfer = new Set<ArrayBuffer>();
  const encode = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object' || depth > 32) return v;
    if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength)
        transfer.add(v.buffer);
      return v;
    }
    if (Array.isArray(v)) {
      const shape = numericShape(v);
      const count = shape ? shape.reduce((a, b) => a * b, 1) : 0;
      if (shape && count >= MIN_PACKED) {
        const offset = numbers.length;
        numbers.reserve(count);
        numbers.write(v, shape.length);
        return { [PACKED]: [offset, ...shape] } satisfies Placeholder;
      }
      return v.map((x) => encode(x, depth + 1));
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return v;
    const out: Record<string, unknown> = {};
    for (const k in v) if (Object.hasOwn(v, k)) out[k] = encode((v as Record<string, unknown>)[k], depth + 1);
    return out;
  };
  const tree = items.map((item) => encode(item, 0));
  const packed = numbers.data.slice(0, numbers.length);
  transfer.add(packed.buffer);
  return { encoded: { tree, numbers: packed }, transfer: [...transfer] };
}

/** Rebuilds the items of {@link encodeItems} (on the main thread). */
export function decodeItems(encoded: EncodedItems): unknown[] {
  const { numbers } = encoded;
  const build = (shape: readonly number[], dim: number, at: { o: number }): unknown[] => {
    const n = shape[dim]!;
    const out = new Array<unknown>(n);
    if (dim === shape.length - 1) {
      let o = at.o;
      for (let i = 0; i < n; i++) out[i] = numbers[o++];
      at.o = o;
    } else {
      for (let i = 0; i < n; i++) out[i] = build(shape, dim + 1, at);
    }
    return out;
  };
  const decode = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = decode(v[i]);
      return v;
    }
    const placeholder = (v as Partial<Placeholder>)[PACKED];
    if (placeholder) {
      const [offset, ...shape] = placeholder;
      return build(shape, 0, { o: offset });
    }
    if (Object.getPrototypeOf(v) !== Object.prototype) return v;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = decode(o[k]);
    return o;
  };
  return encoded.tree.map(decode);
}
