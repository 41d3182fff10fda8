// Differential fuzzing of the file loaders: valid small files written by the project's
// own writers (burnpack, SafeTensors, PyTorch .pt, named MessagePack, bincode, JSON, gzip'd
// records), structure-aware mutations of them (file-formats.ts) plus byte mutations, loaded in a
// worker thread (file-worker.ts) so that a hang or a memory blow-up is caught and reported with
// its case. Every load must succeed or throw a BurnError — never another exception — within a
// time bound, producing at most PRODUCED_BOUND bytes of tensor data, without growing the
// process's peak memory by more than PEAK_BOUND.
//
// Seeded: BURN_FUZZ_SEED (default fixed), BURN_FUZZ_RUNS=10 runs ten times as many cases.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { crc32 } from '../../src/store/pytorch/zip.js';
import { applyByteMutations, byteMutationArb, fuzzParams, fuzzRuns, Rng } from './arbitraries.js';
import { FuzzWorker } from './worker.js';
import {
  baseFiles,
  FILE_FORMATS,
  mutateFile,
  MUTATION_KINDS,
  PRODUCED_BOUND,
  TERMINAL_KINDS,
  type FileFormat,
  type LoadReply,
} from './file-formats.js';

/** Longest a load may take (the bombs inflate up to 32 MiB within it). */
const TIME_BOUND_MS = 5000;
/** Longest the test waits for the worker's reply before calling it a hang. */
const HANG_MS = 20_000;
/** Most the process's peak resident memory may grow during one load. */
const PEAK_BOUND = 256 << 20;

const loader = new FuzzWorker<{ format: FileFormat; bytes: Uint8Array }, LoadReply>(
  new URL('./file-worker.ts', import.meta.url),
  HANG_MS,
);
after(() => loader.close());

/** One case: a base file of a format, 0-3 structure-aware mutations, 0-2 byte mutations. */
function caseArb(format: FileFormat) {
  return fc.record({
    base: fc.nat({ max: 9 }),
    mutations: fc.array(fc.record({ kind: fc.constantFrom(...MUTATION_KINDS[format]), seed: fc.nat() }), {
      minLength: 0,
      maxLength: 3,
    }),
    // Byte mutations on a quarter of the cases (they mostly break the magic or a length first).
    bytes: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(byteMutationArb(), { minLength: 1, maxLength: 2 }) },
    ),
  });
}

/** The bytes of a case (deterministic). */
function caseBytes(
  format: FileFormat,
  c: {
    base: number;
    mutations: readonly { kind: string; seed: number }[];
    bytes: Parameters<typeof applyByteMutations>[1];
  },
): Uint8Array {
  const bases = baseFiles(format);
  let b = bases[c.base % bases.length]!;
  for (const m of c.mutations) {
    b = mutateFile(format, b, m.kind, new Rng(m.seed), crc32);
    if (TERMINAL_KINDS.has(m.kind)) break;
  }
  return applyByteMutations(b, c.bytes);
}

/** Runs of each format's property. */
const RUNS: Record<FileFormat, number> = {
  burnpack: 200,
  safetensors: 200,
  pytorch: 300,
  mpk: 150,
  'mpk.gz': 100,
  bin: 150,
  'bin.gz': 80,
  json: 120,
};

describe('fuzz: mutated files load or fail with a BurnError (no crash, hang or unbounded allocation)', () => {
  before(async () => {
    // Start the worker (and build the base files) outside the timed cases.
    await loader.run({ format: 'bin', bytes: new Uint8Array(0) });
  });

  for (const format of FILE_FORMATS) {
    it(`${format}: ${fuzzRuns(RUNS[format])} mutated files`, { timeout: 120_000 }, async () => {
      const seen = { ok: 0, burn: 0 };
      await fc.assert(
        fc.asyncProperty(caseArb(format), async (c) => {
          const bytes = caseBytes(format, c);
          const r = await loader.run({ format, bytes });
          const where = `${format} file of ${bytes.length} bytes`;
          if ('crashed' in r) assert.fail(`${where}: ${r.crashed}`);
          assert.ok(
            r.kind === 'ok' || r.kind === 'burn',
            `${where}: ${r.kind === 'bound' ? 'allocation beyond the bound' : 'a non-BurnError was thrown'}: ${r.message}`,
          );
          assert.ok(r.ms <= TIME_BOUND_MS, `${where}: the load took ${r.ms.toFixed(0)} ms (bound ${TIME_BOUND_MS} ms)`);
          assert.ok(
            r.peakGrowth <= PEAK_BOUND,
            `${where}: the peak memory grew by ${(r.peakGrowth / 2 ** 20).toFixed(0)} MiB (bound ${PEAK_BOUND / 2 ** 20} MiB)`,
          );
          assert.ok(r.produced <= PRODUCED_BOUND);
          seen[r.kind]++;
        }),
        fuzzParams(fuzzRuns(RUNS[format])),
      );
      // The mutations must not all be refused at the first byte: some loads succeed, some fail.
      assert.ok(seen.burn > 0, `${format}: no mutated file was refused`);
    });
  }
});
