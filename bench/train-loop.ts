/**
 * The training case's step (cases/train.ts, impls/burn-train.ts) timed alone in a loop, without
 * the other columns: the spread of one implementation's step times on this machine.
 *
 *   npx tsx bench/train-loop.ts                       # native engine, 500 warm-up + 200 timed steps
 *   npx tsx bench/train-loop.ts --engine wasm --steps 100
 *
 * The warm-up is long because V8 keeps optimizing the step's functions for its first ~400 steps
 * (see cases/train.ts). Prints the median step time, images per second at the median, and the 10/25/75/90th percentiles.
 */
import { parseArgs } from 'node:util';
import { Device, type CpuEngine } from '../src/index.js';
import { trainCases } from './cases/train.js';
import { prepareTrain } from './impls/burn-train.js';
import { inputValues } from './lib/data.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'native' },
    steps: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '500' },
  },
});
const steps = Number(values.steps),
  warmup = Number(values.warmup);
if (!Number.isInteger(steps) || steps < 4 || !Number.isInteger(warmup) || warmup < 0)
  throw new Error(`--steps ${values.steps} --warmup ${values.warmup}: expected integers, steps >= 4`);

const c = trainCases[0]!;
const device = Device.cpu({ engine: values.engine as CpuEngine });
const prepared = prepareTrain(c, c.inputs.map(inputValues) as Float32Array[], device);
for (let i = 0; i < warmup; i++) await prepared.run();
const times: number[] = [];
for (let i = 0; i < steps; i++) {
  const t0 = performance.now();
  await prepared.run();
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const at = (q: number): string => times[Math.min(steps - 1, Math.floor(q * steps))]!.toFixed(2);
const median = times[steps >> 1]!;
const batch = c.inputs[0]!.shape[0]!;
console.log(
  `${c.title} on ${device}: median ${median.toFixed(2)} ms (${Math.round((batch * 1000) / median)} images/s); p10 ${at(0.1)}, p25 ${at(0.25)}, p75 ${at(0.75)}, p90 ${at(0.9)} ms over ${steps} steps`,
);
