// Differential fuzzing of the tensor API: random programs (random shapes of rank 0-4
// with zero-size dims, every dtype, views — slices with steps, permutes, flips, expands, narrows —
// then 1-3 ops: math, broadcasting binaries, reductions, scans, matmul, gather/select/scatter/take
// with random and out-of-range indices, cat/stack, masks, sorts, casts) run on the `js` engine
// (the oracle) and on every other conformance device: cpu(native) and cpu(wasm) with their size
// thresholds at 0, the required-only backend, autodiff over each, remote, and WebGPU when an
// adapter exists (run with VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json
// XDG_RUNTIME_DIR=/tmp). Every device must give the oracle's values (exactly for ints and bools;
// see tensor-program.ts for the float rules), or a BurnError where the oracle throws one; a
// non-BurnError anywhere fails.
//
// Seeded: BURN_FUZZ_SEED (default fixed), BURN_FUZZ_RUNS=10 runs ten times as many programs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fuzzParams, fuzzRuns } from './arbitraries.js';
import { checkProgram, comparedDevices } from './differential.js';
import { programArb } from './tensor-program.js';

const RUNS = fuzzRuns(500);

describe('fuzz: tensor programs agree with the js engine on every device', () => {
  const devices = comparedDevices();

  it(`${RUNS} random programs on ${devices.map((d) => d.name).join(', ')}`, { timeout: 300_000 }, async () => {
    const outcomes = { ok: 0, burn: 0 };
    await fc.assert(
      fc.asyncProperty(programArb(), async (program) => {
        const { mismatches, oracle } = await checkProgram(program, devices);
        if (mismatches.length > 0) assert.fail(mismatches.map((m) => `${m.device}: ${m.message}`).join('\n'));
        if (oracle.kind !== 'other') outcomes[oracle.kind]++;
      }),
      fuzzParams(RUNS),
    );
    // The generator must keep producing both: valid programs (values compared) and refused ones.
    assert.ok(outcomes.ok > RUNS / 2, `only ${outcomes.ok} of ${RUNS} programs ran`);
    assert.ok(outcomes.burn > 0, 'no program was refused');
  });
});
