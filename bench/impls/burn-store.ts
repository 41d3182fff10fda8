/**
 * burn-ts's file cases (cases/store.ts): a module holding the case's tensors saved with
 * `module.saveInto(store)` or loaded with `module.loadFrom(store)` (BurnpackStore, SafetensorsStore,
 * PytorchStore) on a file in a temporary directory. The checksum covers the first tensor read
 * back from the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, Param, Tensor, TensorData, type Device, type Float } from '../../src/index.js';
import { BurnpackStore, PytorchStore, SafetensorsStore, type ModuleStore } from '../../src/store/index.js';
import { NotAvailable, type BenchCase, type Prepared } from '../lib/types.js';

/** A module whose parameters are given tensors. */
class Params extends Module {
  constructor(readonly tensors: Param<Tensor<number, Float>>[]) {
    super();
  }
}

/** A store case on `device`. */
export function prepareStore(c: BenchCase, inputs: readonly Float32Array[], device: Device): Prepared {
  if (c.op !== 'storeSave' && c.op !== 'storeLoad') throw new NotAvailable(`${c.op} is not a store case`);
  const format = c.attrs?.format ?? 'burnpack';
  const dir = mkdtempSync(join(tmpdir(), 'burn-ts-bench-store-'));
  const path = join(dir, `model.${format === 'burnpack' ? 'bpk' : format}`);
  const store = (): ModuleStore =>
    format === 'burnpack'
      ? new BurnpackStore(path).overwrite(true)
      : format === 'safetensors'
        ? new SafetensorsStore(path).overwrite(true)
        : new PytorchStore(path).overwrite(true);
  const make = (zero: boolean) =>
    new Params(
      inputs.map(
        (v, k) =>
          new Param(
            Tensor.fromData<number>(
              new TensorData(zero ? new Float32Array(v.length) : v, c.inputs[k]!.shape, 'f32'),
              device,
            ),
          ),
      ),
    );
  const model = make(false);
  const target = make(true);
  model.saveInto(store());
  const run = c.op === 'storeSave' ? () => model.saveInto(store()) : () => target.loadFrom(store());
  return {
    run,
    isAsync: false,
    async output() {
      const back = make(true);
      back.loadFrom(store());
      return back.tensors[0]!.val().toDataSync().values as Float32Array;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
