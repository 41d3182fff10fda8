/**
 * burn-ts's optimizer cases (cases/optim.ts): a module holding the case's parameters on
 * `Device.cpu({ engine: 'js' }).autodiff()` (as in training: the update runs on the inner device
 * and the parameters come back as fresh leaves), gradients registered by hand in a
 * `GradientsParams` (tensors of the inner device). The timed body is one `optimizer.step`, the
 * optimizer state carried from run to run. The checksum covers the first parameter after two steps
 * of a fresh optimizer from the initial values (the second step exercises the stored moments).
 */
import { Module, Param, Tensor, TensorData, type Device, type Float } from '../../src/index.js';
import { AdamConfig, GradientsParams } from '../../src/optim/index.js';
import { ADAM_LR } from '../cases/optim.js';
import { NotAvailable, type BenchCase, type Prepared } from '../lib/types.js';

/** A module whose parameters are given tensors. */
class Params extends Module {
  constructor(readonly tensors: Param<Tensor<number, Float>>[]) {
    super();
  }
}

/** An optimizer case on `device` (its autodiff device is used). */
export function prepareOptim(c: BenchCase, inputs: readonly Float32Array[], device: Device): Prepared {
  if (c.op !== 'adamStep') throw new NotAvailable(`${c.op} is not an optimizer case`);
  const ad = device.autodiff();
  const n = inputs.length / 2;
  const tensor = (k: number, on: Device) =>
    Tensor.fromData<number>(new TensorData(inputs[k]!, c.inputs[k]!.shape, 'f32'), on);
  const fresh = () => new Params(Array.from({ length: n }, (_, k) => new Param(tensor(k, ad))));
  let model = fresh();
  const grads = new GradientsParams();
  model.visit((p, path) => grads.register(p.id, tensor(n + Number(path.split('.')[1]), ad.inner())));
  const lr = ADAM_LR;
  const optim = new AdamConfig({}).init<Params>();
  const initial = model;
  return {
    run: () => (model = optim.step(lr, model, grads)),
    isAsync: false,
    async output() {
      let m = fresh();
      const g = new GradientsParams();
      m.visit((p, path) => g.register(p.id, grads.get(initial.params().get(path)!.id)!));
      const o = new AdamConfig({}).init<Params>();
      for (let i = 0; i < 2; i++) m = o.step(lr, m, g);
      return m.tensors[0]!.val().toDataSync().values as Float32Array;
    },
    dispose() {
      model = initial;
    },
  };
}
