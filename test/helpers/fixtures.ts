import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tensor, TensorData, type Device, type DType, type Kind } from '../../src/index.js';

/** A tensor as the Python generators write it (non-finite values as strings). */
export interface FixtureTensor {
  readonly shape: number[];
  readonly dtype: DType;
  readonly data: (number | boolean | string)[];
}

/** One generated case: named input and output tensors plus free-form parameters. */
export interface FixtureCase {
  readonly inputs: Record<string, FixtureTensor>;
  readonly outputs: Record<string, FixtureTensor>;
  readonly params?: Record<string, unknown>;
}

const cache = new Map<string, Record<string, FixtureCase>>();

/** Loads `test/fixtures/<name>.json` (written by `gen_<name>.py` from real PyTorch). */
export function loadFixture(name: string): Record<string, FixtureCase> {
  let cases = cache.get(name);
  if (!cases) {
    const path = fileURLToPath(new URL(`../fixtures/${name}.json`, import.meta.url));
    cases = (JSON.parse(readFileSync(path, 'utf8')) as { cases: Record<string, FixtureCase> }).cases;
    cache.set(name, cases);
  }
  return cases;
}

function decode(v: number | boolean | string): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === 'nan') return NaN;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  return v as number;
}

/** Fixture values as numbers. */
export function fxValues(t: FixtureTensor): number[] {
  return t.data.map(decode);
}

/** A fixture tensor as TensorData (optionally converted). */
export function fxData(t: FixtureTensor, dtype: DType = t.dtype): TensorData {
  return new TensorData(fxValues(t), t.shape, t.dtype).convert(dtype);
}

/** A fixture tensor on `device`. */
export function fxTensor<D extends number = number, K extends Kind = 'float'>(
  t: FixtureTensor,
  device: Device,
  dtype: DType = t.dtype,
): Tensor<D, K> {
  return Tensor.fromData<D, K>(fxData(t, dtype), device);
}

/** Tolerances: |actual - expected| <= atol + rtol * |expected|. */
export interface Tol {
  readonly rtol?: number;
  readonly atol?: number;
}

/** Asserts shape and values of `actual` against expected values (fixture or plain), NaN matching NaN. */
export async function expectClose(
  actual: Tensor<number, Kind>,
  expected: FixtureTensor | { shape: number[]; data: number[] },
  tol: Tol = {},
  label = '',
): Promise<void> {
  const data = await actual.toData();
  const want = 'dtype' in expected ? fxValues(expected as FixtureTensor) : expected.data;
  const shape = expected.shape;
  if (data.shape.join(',') !== shape.join(','))
    throw new Error(`${label}: shape [${data.shape}] != expected [${shape}]`);
  const got = data.toArray();
  const rtol = tol.rtol ?? 1e-5;
  const atol = tol.atol ?? 1e-5;
  const bad: string[] = [];
  for (let i = 0; i < want.length; i++) {
    const a = got[i]!,
      e = want[i]!;
    const ok = Number.isNaN(e)
      ? Number.isNaN(a)
      : !Number.isFinite(e)
        ? a === e
        : Math.abs(a - e) <= atol + rtol * Math.abs(e);
    if (!ok && bad.length < 8) bad.push(`[${i}] ${a} != ${e}`);
  }
  if (bad.length) throw new Error(`${label}: values differ (rtol ${rtol}, atol ${atol}):\n  ${bad.join('\n  ')}`);
}

/** Asserts exact equality of values and shape. */
export async function expectEqual(
  actual: Tensor<number, Kind>,
  shape: number[],
  values: (number | boolean)[],
  label = '',
): Promise<void> {
  await expectClose(actual, { shape, data: values.map(Number) }, { rtol: 0, atol: 0 }, label);
}
