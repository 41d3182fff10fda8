// The differential check of one program: run on the `js` engine (the oracle) and on every other
// conformance device, then compare outcomes — the same values (per the oracle's stability of each
// output), or a BurnError wherever the oracle threw one. A non-BurnError anywhere is a failure.
import { BurnError, Device, type DType } from '../../src/index.js';
import { conformanceDevices, type ConformanceDevice } from '../helpers/devices.js';
import { describeThrown } from './arbitraries.js';
import { compareOutput, runProgram, type Outcome, type Program } from './tensor-program.js';

/** The oracle: the CPU's js engine. */
export const oracle: Device = Device.cpu({ engine: 'js' });

/** The devices compared against the oracle (every conformance device but the oracle itself). */
export function comparedDevices(): ConformanceDevice[] {
  return conformanceDevices().filter((d) => d.name !== 'cpu(js)');
}

/** A device refusing a dtype it does not store (WebGPU: f64, i64) with the specified BurnError. */
function refusesDType(entry: ConformanceDevice, out: Outcome): boolean {
  if (!entry.dtypes || out.kind !== 'burn') return false;
  const m = /dtype (\w+) is not supported by the/.exec(out.error.message);
  return m !== null && !entry.dtypes.has(m[1] as DType);
}

function outcomeText(o: Outcome): string {
  if (o.kind === 'ok') return `ok (${o.outputs.length} outputs)`;
  return o.kind === 'burn' ? `BurnError: ${o.error.message.slice(0, 300)}` : `NON-BurnError ${describeThrown(o.error)}`;
}

/** One disagreement. */
export interface Mismatch {
  readonly device: string;
  readonly message: string;
}

/**
 * Runs `program` on the oracle and on `devices`; returns the mismatches (empty when every device
 * agrees) and the oracle's outcome.
 */
export async function checkProgram(
  program: Program,
  devices: readonly ConformanceDevice[],
): Promise<{ mismatches: Mismatch[]; oracle: Outcome }> {
  const want = await runProgram(program, oracle, true);
  const mismatches: Mismatch[] = [];
  const trace = () => want.trace.join(' | ');
  if (want.kind === 'other') {
    mismatches.push({ device: 'cpu(js)', message: `${outcomeText(want)}\n  trace: ${trace()}` });
    return { mismatches, oracle: want };
  }
  for (const entry of devices) {
    const got = await runProgram(program, entry.device(), false);
    const add = (message: string) =>
      mismatches.push({ device: entry.name, message: `${message}\n  trace: ${trace()}` });
    if (got.kind === 'other') {
      add(`threw a non-BurnError: ${describeThrown(got.error)} (oracle: ${outcomeText(want)})`);
      continue;
    }
    if (refusesDType(entry, got)) continue;
    if (want.kind === 'burn') {
      if (got.kind !== 'burn') add(`succeeded where the oracle threw ${outcomeText(want)}`);
      continue;
    }
    if (got.kind === 'burn') {
      add(`threw ${outcomeText(got)} where the oracle succeeded`);
      continue;
    }
    if (got.outputs.length !== want.outputs.length) {
      add(`${got.outputs.length} outputs, oracle ${want.outputs.length}`);
      continue;
    }
    const loose = entry.name.includes('webgpu');
    for (let i = 0; i < want.outputs.length; i++) {
      const m = compareOutput(want.outputs[i]!, got.outputs[i]!, want.metas[i]!, loose);
      if (m) {
        add(m);
        break;
      }
    }
  }
  return { mismatches, oracle: want };
}

/** True for a BurnError (re-exported for the tests). */
export const isBurnError = (e: unknown): e is BurnError => e instanceof BurnError;
