// Fuzzing zero-element tensors with large dims (no hang, no allocation beyond a stated
// bound): a tensor of 0 elements must cost time and memory in its elements, not in its dims. Each
// case builds `Tensor.zeros(shape)` with a 0 among large dims and runs one op whose output stays
// empty (or one element) on every CPU engine, in a worker thread (empty-worker.ts) so that an op
// that walks the rows of the empty tensor is caught as a hang instead of stalling the suite.
// Every engine must finish within TIME_BOUND_MS, grow the peak memory by at most PEAK_BOUND, throw
// nothing but BurnErrors, and agree with the js engine.
//
// Seeded: BURN_FUZZ_SEED (default fixed), BURN_FUZZ_RUNS=10 runs ten times as many cases.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { fuzzParams, fuzzRuns } from './arbitraries.js';
import type { EmptyCase, EmptyReply } from './empty-worker.js';
import { FuzzWorker } from './worker.js';

// KNOWN: every CPU engine walks the rows of an empty strided tensor (toData, elementwise ops, casts,
// cat, ...): [0, 2^32 - 1] transposed takes ~50 s per op.
// While true, the large dims stay at 2^10-2^12 (one per shape) so that a case costs milliseconds.
const KNOWN_EMPTY_TENSORS_WALK_ROWS = false;
// KNOWN: sort / argsort / topk / median / unfold of an empty tensor allocate scratch by the dim's
// size (RangeError at 2^32 - 1). While true, those ops are left out.
const KNOWN_EMPTY_SORT_ALLOCATES_BY_DIM = false;

/** Longest one op may take on one engine. */
const TIME_BOUND_MS = 2000;
/** Longest the test waits for a case's reply (all engines) before calling it a hang. */
const HANG_MS = 15_000;
/** Most the process's peak resident memory may grow during one case. */
const PEAK_BOUND = 256 << 20;

const RUNS = fuzzRuns(150);
const worker = new FuzzWorker<Omit<EmptyCase, 'id'>, EmptyReply>(
  new URL('./empty-worker.ts', import.meta.url),
  HANG_MS,
);
after(() => worker.close());

const LARGE = KNOWN_EMPTY_TENSORS_WALK_ROWS ? [2 ** 10, 2 ** 12 + 1] : [2 ** 20 + 3, 2 ** 28, 2 ** 31, 2 ** 32 - 1];

/** A shape with one 0, one or two large dims (one while KNOWN_EMPTY_TENSORS_WALK_ROWS) and small dims, in any order. */
const shapeArb = fc
  .tuple(
    fc.constantFrom(...LARGE),
    fc.option(fc.constantFrom(...LARGE), { nil: undefined }),
    fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 1 }),
    fc.nat(),
  )
  .map(([big, big2, small, order]) => {
    const dims = [0, big, ...(big2 === undefined || KNOWN_EMPTY_TENSORS_WALK_ROWS ? [] : [big2]), ...small];
    // A rotation of the dims by `order` (every position of the 0 and of the large dims).
    const k = order % dims.length;
    return [...dims.slice(k), ...dims.slice(0, k)];
  });

describe('fuzz: zero-element tensors with large dims cost nothing (every CPU engine)', () => {
  it(`${RUNS} ops on empty tensors`, { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        shapeArb,
        fc.constantFrom('f32', 'f64', 'i32', 'i64', 'bool' as const),
        fc.nat(),
        fc.nat(),
        async (shape, dtype, op, seed) => {
          const r = await worker.run({ shape, dtype, op, seed, skipSorts: KNOWN_EMPTY_SORT_ALLOCATES_BY_DIM });
          const where = `[${shape.join(', ')}] ${dtype}`;
          if ('crashed' in r) assert.fail(`${where}: ${r.crashed}`);
          const js = r.outcomes[0]!;
          for (const o of r.outcomes) {
            assert.notEqual(o.kind, 'other', `${where} ${r.op} on ${o.engine}: a non-BurnError: ${o.message}`);
            assert.ok(
              o.ms <= TIME_BOUND_MS,
              `${where} ${r.op} on ${o.engine}: ${o.ms.toFixed(0)} ms for a tensor of 0 elements (bound ${TIME_BOUND_MS} ms)`,
            );
            assert.equal(
              o.kind,
              js.kind,
              `${where} ${r.op}: ${o.engine} ${o.kind} (${o.message}), js ${js.kind} (${js.message})`,
            );
            assert.deepEqual(
              o.shape,
              js.shape,
              `${where} ${r.op}: ${o.engine} gave shape [${o.shape.join(', ')}], js [${js.shape.join(', ')}]`,
            );
          }
          assert.ok(
            r.peakGrowth <= PEAK_BOUND,
            `${where} ${r.op}: the peak memory grew by ${(r.peakGrowth / 2 ** 20).toFixed(0)} MiB`,
          );
        },
      ),
      fuzzParams(RUNS),
    );
  });
});
