/**
 * Saving and loading: a 100 MB model (25M f32 parameters in four tensors) written to and
 * read from a file in burnpack, SafeTensors and PyTorch `.pt`, through burn-ts's stores
 * (`module.saveInto` / `module.loadFrom`), beside `torch.save` / `torch.load` of the same tensors
 * (`.pt` rows). The metric is throughput: file bytes per second (GB/s; ×1000 for MB/s). Files go
 * to the OS temporary directory (page cache: these are not disk-bound numbers).
 */
import type { BenchCase } from '../lib/types.js';
import { inputsOf } from './common.js';

/** The model: 25,005,000 parameters (100.02 MB of f32). */
const PARAMS: readonly (readonly number[])[] = [[5000, 4000], [4000], [2500, 2000], [1000]];
const BYTES = 4 * PARAMS.reduce((s, p) => s + p.reduce((a, b) => a * b, 1), 0);

const FORMATS = [
  ['burnpack', 'burnpack (.bpk)'],
  ['safetensors', 'SafeTensors'],
  ['pt', 'PyTorch .pt (zip)'],
] as const;

/** Store cases: save and load for each format. */
export const storeCases: readonly BenchCase[] = FORMATS.flatMap(([format, name]) =>
  (['storeSave', 'storeLoad'] as const).map(
    (op): BenchCase => ({
      id: `store/${op === 'storeSave' ? 'save' : 'load'}-${format}-100MB`,
      family: 'store',
      title: `${op === 'storeSave' ? 'save' : 'load'} 100 MB model, ${name}`,
      op,
      inputs: inputsOf(...PARAMS),
      attrs: { format },
      metric: { kind: 'bytes', bytes: BYTES },
    }),
  ),
);
