// The table-driven conformance runner: every fixture case (generated from real PyTorch by
// test/fixtures/gen_conformance_*.py) runs on every device of conformanceDevices() and its fused devices, once per input
// layout (contiguous, permuted, flipped = negative strides, strided = a step-2 slice of a larger
// buffer), and its outputs are compared with the fixture: dtype and shape exactly, values exactly
// for ints and bools and within the dtype's precision for floats.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Tensor,
  TensorData,
  type Bool,
  type Device,
  type DType,
  type Float,
  type Int,
  type Kind,
  type Numeric,
} from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { fxValues, loadFixture, type FixtureCase, type FixtureTensor } from '../helpers/fixtures.js';

/** Any tensor. */
export type AnyTensor = Tensor<number, Kind>;
/** What a case function returns: one tensor, several (out0, out1, …), or a host scalar. */
export type Out = AnyTensor | readonly AnyTensor[] | number | boolean;

/** The inputs and parameters of one case, as a case function sees them. */
export interface Ctx {
  /** Input `name` (default `a`) as a Float tensor. */
  f(name?: string): Tensor<number, Float>;
  /** Input `name` (default `a`) as an Int tensor. */
  i(name?: string): Tensor<number, Int>;
  /** Input `name` (default `a`) as a Float or Int tensor. */
  n(name?: string): Tensor<number, Numeric>;
  /** Input `name` (default `a`) as a Bool tensor. */
  b(name?: string): Tensor<number, Bool>;
  /** Input `name` (default `a`) of any kind. */
  t(name?: string): AnyTensor;
  /** Every input, in fixture order. */
  all(): AnyTensor[];
  /** Parameter `name` (throws when missing). */
  p<T = number>(name: string): T;
  /** Parameter `name`, or `fallback`. */
  opt<T>(name: string, fallback: T): T;
  /** The device of the run. */
  readonly device: Device;
  /** The case name. */
  readonly name: string;
}

/** Case functions keyed by op (the part of the case name before `/`). */
export type Table = Record<string, (c: Ctx) => Out | Promise<Out>>;

/** The input layouts every case runs with. */
export const LAYOUTS = ['contiguous', 'permuted', 'flipped', 'strided'] as const;
/** One input layout. */
export type Layout = (typeof LAYOUTS)[number];

/** Default float tolerances per dtype: `|a - e| <= atol + rtol * |e|`. */
const TOL: Partial<Record<DType, { rtol: number; atol: number }>> = {
  f64: { rtol: 1e-9, atol: 1e-12 },
  f32: { rtol: 1e-5, atol: 1e-6 },
  f16: { rtol: 2e-3, atol: 1e-3 },
  bf16: { rtol: 1.6e-2, atol: 1e-2 },
};

function contiguousStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

function numel(shape: readonly number[]): number {
  return shape.reduce((a, s) => a * s, 1);
}

/**
 * Builds a fixture tensor on `device` with the given memory layout; the logical values are always
 * the fixture's. Layouts other than contiguous are views (strides ≠ row-major) over a buffer built
 * on the host, so every op also sees transposed, negative-stride and offset/step-2 inputs.
 */
export function layoutTensor(t: FixtureTensor, device: Device, layout: Layout): AnyTensor {
  const values = fxValues(t);
  const shape = t.shape;
  const rank = shape.length;
  const make = (vals: number[], s: readonly number[]) =>
    Tensor.fromData<number, Kind>(new TensorData(vals, s, t.dtype), device);
  if (layout === 'contiguous' || rank === 0) return make(values, shape);
  const n = numel(shape);
  const strides = contiguousStrides(shape);
  const index = (flat: number) => shape.map((s, d) => Math.floor(flat / strides[d]!) % s);
  if (layout === 'flipped') {
    return make([...values].reverse(), shape).flip(shape.map((_, d) => d));
  }
  if (layout === 'permuted') {
    const rev = [...shape].reverse();
    const rs = contiguousStrides(rev);
    const base = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const m = index(i).reverse();
      base[m.reduce((acc, v, d) => acc + v * rs[d]!, 0)] = values[i]!;
    }
    return make(base, rev).permute(shape.map((_, d) => rank - 1 - d));
  }
  // strided: element m sits at 1 + 2 * m[d] of a (2 s + 1)-sized buffer dim; the rest is filler.
  const big = shape.map((s) => 2 * s + 1);
  const bs = contiguousStrides(big);
  const filler = t.dtype === 'bool' ? 1 : 77;
  const base = new Array<number>(numel(big)).fill(filler);
  for (let i = 0; i < n; i++) base[index(i).reduce((acc, v, d) => acc + (1 + 2 * v) * bs[d]!, 0)] = values[i]!;
  return make(base, big).slice(shape.map((s) => [1, 1 + 2 * s, 2] as const));
}

function makeCtx(name: string, c: FixtureCase, device: Device, layout: Layout): Ctx {
  const cache = new Map<string, AnyTensor>();
  const params = c.params ?? {};
  const get = (key = 'a'): AnyTensor => {
    let t = cache.get(key);
    if (!t) {
      const fx = c.inputs[key];
      if (!fx) throw new Error(`${name}: no input '${key}'`);
      t = layoutTensor(fx, device, layout);
      // `params.expand[name]`: the op sees the input broadcast to that shape (stride-0 dims).
      const expandTo = (params['expand'] as Record<string, number[]> | undefined)?.[key];
      if (expandTo) t = t.expand(expandTo);
      cache.set(key, t);
    }
    return t;
  };
  return {
    f: (k) => get(k) as Tensor<number, Float>,
    i: (k) => get(k) as Tensor<number, Int>,
    n: (k) => get(k) as Tensor<number, Numeric>,
    b: (k) => get(k) as Tensor<number, Bool>,
    t: (k) => get(k),
    all: () => Object.keys(c.inputs).map((k) => get(k)),
    p: <T>(k: string) => {
      if (!(k in params)) throw new Error(`${name}: no parameter '${k}'`);
      return params[k] as T;
    },
    opt: <T>(k: string, fallback: T) => (k in params ? (params[k] as T) : fallback),
    device,
    name,
  };
}

/** Compares one actual tensor (or host scalar) with an expected fixture tensor; returns the problems. */
export async function compare(
  actual: AnyTensor | number | boolean,
  expected: FixtureTensor,
  tol?: { rtol?: number; atol?: number },
): Promise<string[]> {
  const want = fxValues(expected);
  if (typeof actual === 'number' || typeof actual === 'boolean') {
    const v = Number(actual);
    const e = want[0]!;
    const d = TOL[expected.dtype] ?? { rtol: 0, atol: 0 };
    const ok = Number.isNaN(e)
      ? Number.isNaN(v)
      : Math.abs(v - e) <= (tol?.atol ?? d.atol) + (tol?.rtol ?? d.rtol) * Math.abs(e);
    return ok ? [] : [`scalar ${v} != ${e}`];
  }
  const problems: string[] = [];
  if (actual.dtype() !== expected.dtype) problems.push(`dtype ${actual.dtype()} != ${expected.dtype}`);
  const data = await actual.toData();
  if (data.shape.join(',') !== expected.shape.join(','))
    return [...problems, `shape [${data.shape}] != [${expected.shape}]`];
  if (data.dtype !== actual.dtype()) problems.push(`toData dtype ${data.dtype} != tensor dtype ${actual.dtype()}`);
  const got = data.toArray();
  const d = TOL[expected.dtype] ?? { rtol: 0, atol: 0 };
  const rtol = tol?.rtol ?? d.rtol;
  const atol = tol?.atol ?? d.atol;
  let bad = 0;
  for (let i = 0; i < want.length; i++) {
    const a = got[i]!,
      e = want[i]!;
    const ok = Number.isNaN(e)
      ? Number.isNaN(a)
      : !Number.isFinite(e)
        ? a === e
        : Math.abs(a - e) <= atol + rtol * Math.abs(e);
    if (!ok && bad++ < 6) problems.push(`[${i}] ${a} != ${e}`);
  }
  if (bad > 6) problems.push(`… ${bad - 6} more`);
  return problems;
}

/** Runs one case in one layout; returns the problems found. */
async function runCase(
  name: string,
  c: FixtureCase,
  fn: Table[string],
  device: Device,
  layout: Layout,
  dtypes?: ReadonlySet<DType>,
  readsSync = true,
): Promise<string[]> {
  // On a device without some dtypes, a case using one must fail with a BurnError naming it.
  const missing = dtypes
    ? [...Object.values(c.inputs), ...Object.values(c.outputs)].map((t) => t.dtype).filter((d) => !dtypes.has(d))
    : [];
  let out: Out;
  try {
    out = await fn(makeCtx(name, c, device, layout));
  } catch (e) {
    if (
      missing.length > 0 &&
      e instanceof Error &&
      e.name === 'BurnError' &&
      missing.some((d) => e.message.includes(d))
    )
      return [];
    // A synchronous read on a device that cannot do one must say to await (its async twin checks the values).
    if (
      !readsSync &&
      e instanceof Error &&
      e.name === 'BurnError' &&
      /cannot read .*synchronously; use await/.test(e.message)
    )
      return [];
    return [`threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`];
  }
  if (missing.length > 0) return [`expected a BurnError for the unsupported dtype ${missing[0]}`];
  const expected = Object.keys(c.outputs)
    .sort((x, y) => Number(x.slice(3)) - Number(y.slice(3)))
    .map((k) => c.outputs[k]!);
  const outs = Array.isArray(out) ? (out as readonly AnyTensor[]) : [out as AnyTensor | number | boolean];
  if (outs.length !== expected.length) return [`${outs.length} outputs, expected ${expected.length}`];
  const tol = c.params?.['tol'] as { rtol?: number; atol?: number } | undefined;
  const problems: string[] = [];
  for (let i = 0; i < outs.length; i++) {
    for (const p of await compare(outs[i]!, expected[i]!, tol)) problems.push(`out${i}: ${p}`);
  }
  return problems;
}

/**
 * Declares the conformance tests of one fixture: a coverage check (every case has a table entry
 * and every entry has a case), then per device one test per op running all its cases in every
 * layout. `params.expand` broadcasts named inputs before the op (stride-0 views); cases with
 * `params.layouts = false` run contiguous only.
 */
export function conformance(fixture: string, table: Table): void {
  const cases = loadFixture(fixture);
  const byOp = new Map<string, [string, FixtureCase][]>();
  for (const [name, c] of Object.entries(cases)) {
    const op = name.split('/')[0]!;
    if (!byOp.has(op)) byOp.set(op, []);
    byOp.get(op)!.push([name, c]);
  }
  describe(`conformance: ${fixture}`, () => {
    it('every case has an implementation and every implementation a case', () => {
      assert.deepEqual(
        [...byOp.keys()].filter((op) => !(op in table)),
        [],
        'cases without a table entry',
      );
      assert.deepEqual(
        Object.keys(table).filter((op) => !byOp.has(op)),
        [],
        'table entries without cases',
      );
    });
    for (const { name: devName, device, dtypes, readsSync } of conformanceDevices({ fusion: true })) {
      describe(devName, () => {
        for (const [op, list] of byOp) {
          const fn = table[op];
          if (!fn) continue;
          it(`${op} (${list.length} case${list.length === 1 ? '' : 's'})`, async () => {
            const dev = device();
            const failures: string[] = [];
            for (const [name, c] of list) {
              const layouts =
                c.params?.['layouts'] === false || Object.keys(c.inputs).length === 0
                  ? ['contiguous' as const]
                  : LAYOUTS;
              for (const layout of layouts) {
                const problems = await runCase(name, c, fn, dev, layout, dtypes, readsSync);
                if (problems.length) failures.push(`${name} [${layout}]: ${problems.join('; ')}`);
              }
            }
            assert.ok(failures.length === 0, `${failures.length} failure(s):\n  ${failures.slice(0, 30).join('\n  ')}`);
          });
        }
      });
    }
  });
}
