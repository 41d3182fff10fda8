// The worker of empty-dims.test.ts: runs one op on a zero-element tensor with large dims on each
// CPU engine and reports how each ended and how long it took. A worker, because an op that walks
// the rows of an empty tensor can take minutes: the test terminates it and reports the hang.
import { parentPort } from 'node:worker_threads';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import { NativeEngine, nativeAddon } from '../../src/backends/cpu/native/index.js';
import { BufferPool } from '../../src/backends/cpu/pool.js';
import { wasmEngine, wasmRuntime } from '../../src/backends/cpu/wasm/index.js';
import { BurnError, Device, Tensor, type DType, type Float, type Int, type Kind } from '../../src/index.js';
import { describeThrown, Rng } from './arbitraries.js';

/** One case: a tensor of `shape` (numel 0) and `dtype`, op number `op` with parameters from `seed`. */
export interface EmptyCase {
  readonly id: number;
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly op: number;
  readonly seed: number;
  /** Leave out the ops that allocate by dim size (KNOWN_EMPTY_SORT_ALLOCATES_BY_DIM). */
  readonly skipSorts: boolean;
}

/** How the op ended on one engine. */
export interface EngineOutcome {
  readonly engine: string;
  readonly kind: 'ok' | 'burn' | 'other';
  readonly message: string;
  readonly shape: readonly number[];
  readonly ms: number;
}

/** The reply. */
export interface EmptyReply {
  readonly id: number;
  readonly op: string;
  readonly outcomes: readonly EngineOutcome[];
  readonly peakGrowth: number;
}

type T = Tensor<number, Kind>;
type F = Tensor<number, Float>;

/** Ops whose output keeps a zero dim (or is a single element): none may allocate by the dims. */
const OPS: readonly { name: string; sort?: boolean; run: (x: T, zero: number, other: number, r: Rng) => unknown }[] = [
  { name: 'exp', run: (x) => (x.cast('f32') as F).exp() },
  { name: 'neg/abs', run: (x, _z, _o, r) => (r.chance(0.5) ? (x as F).neg() : (x as F).abs()) },
  { name: 'add scalar', run: (x) => (x as F).add(1) },
  { name: 'add self', run: (x) => (x as F).add(x as F) },
  { name: 'equal', run: (x) => x.equal(x) },
  { name: 'cast', run: (x) => x.cast(x.dtype() === 'f64' ? 'f32' : 'f64') },
  { name: 'clamp', run: (x) => (x as F).clamp(0, 1) },
  { name: 'sumDim', run: (x, _z, o) => (x as F).sumDim(o) },
  { name: 'meanDim', run: (x, _z, o) => (x as F).meanDim(o) },
  { name: 'prodDim', run: (x, _z, o) => (x as F).prodDim(o) },
  { name: 'maxDim', run: (x, _z, o) => (x as F).maxDim(o) },
  { name: 'argmax', run: (x, _z, o) => (x as F).argmax(o) },
  { name: 'sum/any', run: (x, _z, _o, r) => (r.chance(0.5) ? (x as F).sum() : x.any()) },
  { name: 'cumsum', run: (x, z, o, r) => (x as F).cumsum(r.chance(0.5) ? z : o) },
  { name: 'cummax', run: (x, z, o, r) => (x as F).cummax(r.chance(0.5) ? z : o) },
  { name: 'softmax', run: (x, z, o, r) => (x.cast('f32') as F).softmax(r.chance(0.5) ? z : o) },
  { name: 'sort', sort: true, run: (x, _z, o) => (x as F).sort(o) },
  { name: 'argsort', sort: true, run: (x, _z, o) => (x as F).argsort(o) },
  { name: 'topk', sort: true, run: (x, _z, o) => (x as F).topk(0, o) },
  { name: 'median', sort: true, run: (x, _z, o) => (x.cast('f32') as F).median(o) },
  { name: 'unfold', sort: true, run: (x, _z, o) => x.unfold(o, 2, 1) },
  { name: 'flip', run: (x, z, o) => x.flip([z, o]) },
  { name: 'roll', run: (x, _z, o) => x.roll([3], [o]) },
  {
    name: 'narrow/slice',
    run: (x, _z, o, r) =>
      r.chance(0.5) ? x.narrow(o, 1, 2) : x.slice(x.dims().map((_, i) => (i === o ? [0, null, 3] : null))),
  },
  { name: 'reshape', run: (x) => x.reshape([-1]) },
  { name: 'transpose+add', run: (x) => (x.transpose() as F).add(1) },
  { name: 'expand', run: (x) => x.unsqueezeDim(0).expand([3, ...x.dims()]) },
  { name: 'cat', run: (x, z, o, r) => Tensor.cat([x, x], r.chance(0.5) ? z : o) },
  { name: 'stack', run: (x) => Tensor.stack([x, x], 0) },
  {
    name: 'gather',
    run: (x, _z, o) =>
      x.gather(
        o,
        Tensor.zeros(
          x.dims().map((n, i) => (i === o ? 1 : n)),
          { device: x.device(), dtype: 'i32' },
        ) as Tensor<number, Int>,
      ),
  },
  { name: 'select', run: (x, _z, o) => x.select(o, Tensor.fromInts([0], x.device()) as Tensor<1, Int>) },
  { name: 'maskFill', run: (x) => x.maskFill(x.equal(x), 1) },
  { name: 'toData', run: (x) => x },
];

/** The names of the ops (the test draws an index). */
export const EMPTY_OP_COUNT = OPS.length;

const devices: [string, Device][] = [['js', Device.cpu({ engine: 'js' })]];
const addon = nativeAddon();
if (addon)
  devices.push([
    'native',
    new Device(
      new CpuBackend(
        new NativeEngine(addon, { minElements: 0, minCostlyElements: 0, minGemm: 0, minAllocBytes: 0 }),
        new BufferPool({ minBytes: 0 }),
      ) as unknown as Backend<TensorPrimitive>,
      'cpu(native)',
    ),
  ]);
if (wasmRuntime())
  devices.push([
    'wasm',
    new Device(
      new CpuBackend(
        wasmEngine({ minElements: 0, minCostlyElements: 0, minGemm: 0 }),
        new BufferPool({ minBytes: 0 }),
      ) as unknown as Backend<TensorPrimitive>,
      'cpu(wasm)',
    ),
  ]);

async function runOn(engine: string, device: Device, c: EmptyCase, op: (typeof OPS)[number]): Promise<EngineOutcome> {
  const t0 = performance.now();
  const r = new Rng(c.seed);
  try {
    // Half the cases permute the dims first: a strided view, as transposes and slices make.
    const base = Tensor.zeros(c.shape, { device, dtype: c.dtype }) as T;
    const x = r.chance(0.5) ? base : (base.permute(r.perm(c.shape.length)) as T);
    const dims = x.dims();
    const zero = dims.indexOf(0);
    const others = dims.flatMap((n, i) => (n > 0 ? [i] : []));
    const out = op.run(x, zero, others.length > 0 ? r.pick(others) : zero, r);
    const data = await (out as T).toData();
    return { engine, kind: 'ok', message: '', shape: data.shape, ms: performance.now() - t0 };
  } catch (e) {
    const kind = e instanceof BurnError ? 'burn' : 'other';
    return {
      engine,
      kind,
      message: kind === 'burn' ? (e as Error).message.slice(0, 200) : describeThrown(e),
      shape: [],
      ms: performance.now() - t0,
    };
  }
}

parentPort!.on('message', (c: EmptyCase) => {
  void (async () => {
    const peak0 = process.resourceUsage().maxRSS * 1024;
    const ops = OPS.filter((o) => !(c.skipSorts && o.sort));
    const op = ops[c.op % ops.length]!;
    const outcomes: EngineOutcome[] = [];
    for (const [engine, device] of devices) outcomes.push(await runOn(engine, device, c, op));
    const reply: EmptyReply = {
      id: c.id,
      op: op.name,
      outcomes,
      peakGrowth: process.resourceUsage().maxRSS * 1024 - peak0,
    };
    parentPort!.postMessage(reply);
  })();
});
parentPort!.postMessage({ ready: true });
