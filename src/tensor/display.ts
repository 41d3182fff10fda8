import type { TensorData } from '../core/data.js';
import { BurnError } from '../core/errors.js';
import { contiguousStrides } from '../core/shape.js';
import { kindOf } from './kind.js';
import type { DType } from '../core/dtype.js';

/** How tensors print (Burn's `PrintOptions`). */
export interface PrintOptions {
  /** Above this many elements, only the edges of each dim are shown. */
  readonly threshold: number;
  /** Elements shown at each edge when summarizing. */
  readonly edgeItems: number;
  /** Digits after the decimal point for floats; undefined prints the shortest exact form. */
  readonly precision: number | undefined;
}

let options: PrintOptions = { threshold: 1000, edgeItems: 3, precision: undefined };

/** Sets how tensors print, for the whole process. */
export function setPrintOptions(next: Partial<PrintOptions>): void {
  const merged = { ...options, ...next };
  if (
    !(
      Number.isInteger(merged.threshold) &&
      merged.threshold >= 0 &&
      Number.isInteger(merged.edgeItems) &&
      merged.edgeItems >= 0
    )
  ) {
    throw new BurnError(
      'setPrintOptions',
      `threshold ${merged.threshold} and edgeItems ${merged.edgeItems}; expected non-negative integers`,
    );
  }
  if (
    merged.precision !== undefined &&
    !(Number.isInteger(merged.precision) && merged.precision >= 0 && merged.precision <= 100)
  ) {
    throw new BurnError('setPrintOptions', `precision ${merged.precision}; expected an integer in 0..=100`);
  }
  options = merged;
}

/** The current print options. */
export function getPrintOptions(): PrintOptions {
  return options;
}

/**
 * A float the way Rust's `{:?}` prints it (Burn's display): the shortest decimal that reads back to
 * the same value at the dtype's precision (f16/bf16 print through f32, as the `half` crate does),
 * in positional form with at least one fractional digit (`1.0`, `0.33333334`), or in exponential
 * form (`1e-7`, `1.5e16`) below 1e-4 or from 1e16 on. With a precision it is Rust's `{:.p}`:
 * positional, exactly `p` digits, ties to even.
 */
export function formatFloat(v: number, dtype: DType, precision: number | undefined): string {
  if (Number.isNaN(v)) return 'NaN';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  const abs = Math.abs(v);
  if (abs === Infinity) return `${sign}inf`;
  if (precision !== undefined) return sign + fixedTiesEven(abs, precision);
  const single = dtype !== 'f64';
  const [digits, exp] = shortestDigits(abs, single);
  const small = single ? Math.fround(1e-4) : 1e-4;
  const large = single ? Math.fround(1e16) : 1e16;
  if (abs !== 0 && (abs < small || abs >= large)) {
    return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exp}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}.${frac || '0'}`;
}

/** Shortest significant digits (no dot) and decimal exponent that read back to `abs` (as f32 when `single`). */
function shortestDigits(abs: number, single: boolean): [string, number] {
  let s = abs.toExponential();
  if (single) {
    for (let p = 1; p <= 9; p++) {
      const candidate = abs.toExponential(p - 1);
      if (Math.fround(Number(candidate)) === abs) {
        s = candidate;
        break;
      }
    }
  }
  const [mant, e] = s.split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  return [digits, abs === 0 ? 0 : Number(e)];
}

/** Rust's `{:.p}` of a non-negative finite value: exact decimal rounded to `p` digits, ties to even. */
function fixedTiesEven(abs: number, p: number): string {
  if (abs >= 1e21) return `${BigInt(abs).toString()}${p > 0 ? `.${'0'.repeat(p)}` : ''}`;
  const up = abs.toFixed(p); // rounds ties away from zero
  if (p >= 100) return up;
  const exact = abs.toFixed(100); // exact for every tie at digit p + 1
  const dot = exact.indexOf('.');
  const rest = exact.slice(dot + 1 + p);
  if (!/^50*$/.test(rest)) return up;
  const down = exact.slice(0, p === 0 ? dot : dot + 1 + p);
  const last = Number(down[down.length - 1]);
  return last % 2 === 0 ? down : up;
}

/** Formats a tensor the way Burn's `Display` does. `data` is undefined when values cannot be read synchronously. */
export function formatTensor(
  data: TensorData | undefined,
  shape: readonly number[],
  dtype: DType,
  device: string,
  opts: PrintOptions,
): string {
  const kind = kindOf(dtype);
  let body: string;
  if (!data) {
    body = '<data not readable synchronously on this device; use await tensor.toData()>';
  } else {
    const values = data.toArray();
    const fmtElem = (i: number): string => {
      const v = values[i]!;
      if (kind === 'bool') return v ? 'true' : 'false';
      if (kind === 'int') return String(v);
      return formatFloat(v, dtype, opts.precision);
    };
    const summarize = values.length > opts.threshold;
    const edge = opts.edgeItems;
    const strides = contiguousStrides(shape);
    const rec = (depth: number, base: number): string => {
      if (shape.length === 0) return fmtElem(0);
      const n = shape[depth]!;
      const cut = summarize && n > 2 * edge;
      const ids = cut
        ? [...Array.from({ length: edge }, (_, i) => i), -1, ...Array.from({ length: edge }, (_, i) => n - edge + i)]
        : Array.from({ length: n }, (_, i) => i);
      if (depth === shape.length - 1) return ids.map((i) => (i < 0 ? '...' : fmtElem(base + i))).join(', ');
      // As Burn: rows are joined by ",\n " and the elision line has no comma after it.
      const pad = '\n' + ' '.repeat(depth + 1);
      let out = '';
      ids.forEach((i, k) => {
        if (k > 0) out += ids[k - 1]! < 0 ? pad : `,${pad}`;
        out += i < 0 ? '...' : `[${rec(depth + 1, base + i * strides[depth]!)}]`;
      });
      return out;
    };
    body = shape.length === 0 ? rec(0, 0) : `[${rec(0, 0)}]`;
  }
  const kindName = kind === 'float' ? 'Float' : kind === 'int' ? 'Int' : 'Bool';
  return `Tensor {\n  data:\n${body},\n  shape:  [${shape.join(', ')}],\n  device:  ${device},\n  kind:  "${kindName}",\n  dtype:  "${dtype}",\n}`;
}
