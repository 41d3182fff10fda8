import type { TensorData } from './data.js';
import { BurnError } from './errors.js';
import { kindOf } from './kind.js';
import type { DType } from './dtype.js';

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
  if (!(Number.isInteger(merged.threshold) && merged.threshold >= 0 && Number.isInteger(merged.edgeItems) && merged.edgeItems >= 0)) {
    throw new BurnError('setPrintOptions', `threshold ${merged.threshold} and edgeItems ${merged.edgeItems}; expected non-negative integers`);
  }
  if (merged.precision !== undefined && !(Number.isInteger(merged.precision) && merged.precision >= 0 && merged.precision <= 100)) {
    throw new BurnError('setPrintOptions', `precision ${merged.precision}; expected an integer in 0..=100`);
  }
  options = merged;
}

/** The current print options. */
export function getPrintOptions(): PrintOptions {
  return options;
}

/** Shortest decimal that reads back to the same value at the dtype's precision, Rust-style (`1.0`, `0.33333334`). */
function formatFloat(v: number, dtype: DType, precision: number | undefined): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (precision !== undefined) return v.toFixed(precision);
  let s = String(v);
  if (dtype !== 'f64') {
    for (let p = 1; p <= 9; p++) {
      const candidate = v.toPrecision(p);
      if (Math.fround(Number(candidate)) === Math.fround(v)) {
        s = String(Number(candidate));
        break;
      }
    }
  }
  return /[.e]/.test(s) || s.includes('Infinity') ? s : `${s}.0`;
}

/** Formats a tensor the way Burn's `Display` does. `data` is undefined when values cannot be read synchronously. */
export function formatTensor(data: TensorData | undefined, shape: readonly number[], dtype: DType, device: string, opts: PrintOptions): string {
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
    const strides: number[] = [];
    let acc = 1;
    for (let i = shape.length - 1; i >= 0; i--) { strides[i] = acc; acc *= shape[i]!; }
    const rec = (depth: number, base: number): string => {
      if (shape.length === 0) return fmtElem(0);
      const n = shape[depth]!;
      const cut = summarize && n > 2 * edge;
      const ids = cut ? [...Array.from({ length: edge }, (_, i) => i), -1, ...Array.from({ length: edge }, (_, i) => n - edge + i)] : Array.from({ length: n }, (_, i) => i);
      if (depth === shape.length - 1) return ids.map((i) => (i < 0 ? '...' : fmtElem(base + i))).join(', ');
      const pad = '\n' + ' '.repeat(depth + 1);
      return ids.map((i) => (i < 0 ? '...' : `[${rec(depth + 1, base + i * strides[depth]!)}]`)).join(`,${pad}`);
    };
    body = shape.length === 0 ? rec(0, 0) : `[${rec(0, 0)}]`;
  }
  const kindName = kind === 'float' ? 'Float' : kind === 'int' ? 'Int' : 'Bool';
  return `Tensor {\n  data:\n${body},\n  shape:  [${shape.join(', ')}],\n  device:  ${device},\n  kind:  "${kindName}",\n  dtype:  "${dtype}",\n}`;
}
