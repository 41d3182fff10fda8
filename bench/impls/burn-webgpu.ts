/**
 * burn-ts on `await Device.webgpu()` (Dawn through the `webgpu` package): the `burn-ts(webgpu)`
 * column. Work is queued asynchronously, so every timed call ends with `await device.sync()` (the
 * GPU finished); `--readback` reads the output back instead. Step cases time the forward pass until
 * the loss is on the host and the backward pass until a gradient value is. Each run disposes the
 * previous output, so the pool serves every run from the same buffers.
 *
 * On a software adapter (SwiftShader, the only one on machines without a GPU) the numbers say that
 * the path works, not how fast a GPU is.
 */
import { Device, Tensor, type Gradients } from '../../src/index.js';
import { labelValues } from '../lib/data.js';
import { inProcessImpl } from '../lib/measure.js';
import { NotAvailable, type BenchCase, type Impl, type Prepared } from '../lib/types.js';
import { body } from './burn.js';
import { model, tensorsOf } from './burn-autodiff.js';

type FloatTensor = Tensor<number>;

async function floats(t: FloatTensor): Promise<Float32Array> {
  const v = (await t.toData()).values;
  return v instanceof Float32Array ? v : Float32Array.from(v as ArrayLike<number>);
}

function prepareStep(c: BenchCase, inputs: readonly Float32Array[], device: Device): Prepared {
  const ad = device.autodiff();
  const [x, ...raw] = tensorsOf(c, inputs, ad);
  const params = raw.map((p) => p.requireGrad());
  const t = [x!, ...params];
  const batch = c.inputs[0]!.shape[0]!;
  const labels = Tensor.fromInts(labelValues(batch, c.attrs?.classes ?? 10), ad).reshape([batch, 1]);
  let loss: Tensor<1> | undefined;
  let grads: Gradients | undefined;
  const forward = async (): Promise<number> => {
    loss = model(c, t, labels);
    return loss.intoScalar();
  };
  const backward = async (): Promise<number> => {
    if (!loss) throw new Error('backward before forward');
    grads = loss.backward();
    loss = undefined;
    const g = params[0]!.grad(grads)!;
    return g.slice(g.dims().map(() => [0, 1] as const)).intoScalar();
  };
  return {
    run: async () => {
      await forward();
      return backward();
    },
    isAsync: true,
    step: { forward, backward },
    async output() {
      await forward();
      await backward();
      return floats(params[0]!.grad(grads!)!);
    },
    dispose() {
      loss = undefined;
      grads = undefined;
    },
  };
}

/** The `burn-ts(webgpu)` column; n/a without the `webgpu` package or an adapter. */
export function webgpuImpl(options: { readback: boolean }): Impl {
  let device = undefined as unknown as Device;
  let software = false;
  return inProcessImpl({
    name: 'burn-ts(webgpu)',
    isBurn: true,
    async init() {
      try {
        device = await Device.webgpu();
      } catch (e) {
        throw new NotAvailable(e instanceof Error ? e.message : String(e));
      }
      const info = device.info() as { isFallbackAdapter?: boolean };
      software = info.isFallbackAdapter === true;
      return `${device}${info.isFallbackAdapter ? ' — a software adapter: functional numbers only, not GPU speed' : ''}`;
    },
    async prepare(c, inputs): Promise<Prepared> {
      if (c.metric.kind === 'step') return prepareStep(c, inputs, device);
      if (c.metric.kind === 'decorator') throw new NotAvailable('decorator cases run on the CPU device');
      if (c.op === 'mnistTrainStep') throw new NotAvailable('the training-throughput case measures the CPU engines');
      if (software && c.metric.kind === 'flops' && c.metric.flops > 2e10) {
        throw new NotAvailable(
          `${(c.metric.flops / 1e9).toFixed(0)} GFLOP would take minutes on a software adapter; measure it on a GPU`,
        );
      }
      const run = body(c, tensorsOf(c, inputs, device));
      let last: FloatTensor | undefined;
      return {
        run: async () => {
          last?.dispose();
          last = run();
          if (options.readback) await last.toData();
          else await device.sync();
        },
        isAsync: true,
        async output() {
          return floats(last ?? run());
        },
        dispose() {
          last?.dispose();
          last = undefined;
        },
      };
    },
  });
}
