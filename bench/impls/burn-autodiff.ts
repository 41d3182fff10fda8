/**
 * burn-ts's autodiff cases (cases/autodiff.ts) on `Device.cpu({ engine: 'js' }).autodiff()`.
 * Step cases: the forward phase builds the graph and awaits the loss value (`intoScalar`), the
 * backward phase runs `loss.backward()` and reads one value of the first layer's weight gradient
 * (the last one the backward pass produces), so an asynchronous device would be synchronized
 * too. Decorator cases: the op on autodiff tensors (untracked, or requiring grad) beside the same
 * op on tensors of the plain device.
 */
import { Device, functional, Tensor, TensorData, type Gradients, type Int } from '../../src/index.js';
import { labelValues } from '../lib/data.js';
import { NotAvailable, type BenchCase, type Prepared } from '../lib/types.js';

type FloatTensor = Tensor<number>;

/** The case's inputs as float tensors on `device`. */
export function tensorsOf(c: BenchCase, inputs: readonly Float32Array[], device: Device): FloatTensor[] {
  return inputs.map((values, k) => Tensor.fromData<number>(new TensorData(values, c.inputs[k]!.shape, 'f32'), device));
}

/** Cross-entropy of logits `[N, classes]` against labels `[N, 1]`: `-mean(logSoftmax · one-hot)`. */
function crossEntropy(logits: Tensor<2>, labels: Tensor<2, Int>): Tensor<1> {
  return logits.logSoftmax(1).gather(1, labels).mean().neg();
}

/** `x·w + b` with Burn's Linear layout (`w` is `[dIn, dOut]`; `b` is broadcast over the rows). */
function dense(x: Tensor<2>, w: Tensor<2>, b: Tensor<1>): Tensor<2> {
  return x.matmul(w).add(b.unsqueeze());
}

/** The loss of a step case's model on its batch, given the tensors (batch first, then parameters). */
export function model(c: BenchCase, t: readonly FloatTensor[], labels: Tensor<2, Int>): Tensor<1> {
  switch (c.op) {
    case 'mlpStep': {
      const [x, w1, b1, w2, b2] = t as [Tensor<2>, Tensor<2>, Tensor<1>, Tensor<2>, Tensor<1>];
      return crossEntropy(dense(dense(x, w1, b1).relu(), w2, b2), labels);
    }
    case 'convnetStep': {
      const [x, c1, c1b, c2, c2b, fw, fb] = t as [
        Tensor<4>,
        Tensor<4>,
        Tensor<1>,
        Tensor<4>,
        Tensor<1>,
        Tensor<2>,
        Tensor<1>,
      ];
      const h1 = functional.conv2d(x, c1, c1b).relu();
      const h2 = functional.conv2d(h1, c2, c2b).relu();
      const pooled = functional.adaptiveAvgPool2d(h2, [8, 8]);
      return crossEntropy(dense(pooled.flatten(1, 3), fw, fb), labels);
    }
    default:
      throw new NotAvailable(`${c.op} is not a training step`);
  }
}

/** One value of a gradient, read to the host. */
function firstValue(g: FloatTensor): number {
  return g.slice(g.dims().map(() => [0, 1] as const)).intoScalarSync();
}

/** A step case: parameters require grad; `step.forward` / `step.backward` are timed separately. */
export function prepareStep(c: BenchCase, inputs: readonly Float32Array[], device: Device): Prepared {
  const ad = device.autodiff();
  const [x, ...raw] = tensorsOf(c, inputs, ad);
  const params = raw.map((p) => p.requireGrad());
  const t = [x!, ...params];
  const classes = c.attrs?.classes ?? 10;
  const batch = c.inputs[0]!.shape[0]!;
  const labels = Tensor.fromInts(labelValues(batch, classes), ad).reshape([batch, 1]);
  let loss: Tensor<1> | undefined;
  let grads: Gradients | undefined;
  const forward = async (): Promise<number> => {
    loss = model(c, t, labels);
    return loss.intoScalar();
  };
  const backward = (): number => {
    if (!loss) throw new Error('backward before forward');
    grads = loss.backward();
    loss = undefined;
    return firstValue(params[0]!.grad(grads)!);
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
      backward();
      const g = params[0]!.grad(grads!)!.toDataSync().values;
      return g instanceof Float32Array ? g : Float32Array.from(g as ArrayLike<number>);
    },
    dispose() {
      loss = undefined;
      grads = undefined;
    },
  };
}

/**
 * A decorator case: `run` is `body` on autodiff tensors (requiring grad when the case is
 * `tracked`), `baseline` the same body on the plain device's tensors.
 */
export function prepareDecorator(
  c: BenchCase,
  inputs: readonly Float32Array[],
  device: Device,
  body: (c: BenchCase, t: readonly FloatTensor[]) => () => FloatTensor,
  readback: boolean,
): Prepared {
  if (c.metric.kind !== 'decorator') throw new NotAvailable(`${c.id} is not a decorator case`);
  const tracked = c.metric.tracked;
  const decorated = tensorsOf(c, inputs, device.autodiff()).map((p) => (tracked ? p.requireGrad() : p));
  const run = body(c, decorated);
  const plain = body(c, tensorsOf(c, inputs, device));
  let last: FloatTensor | undefined;
  return {
    run: readback ? () => (last = run()).toDataSync() : () => (last = run()),
    baseline: readback ? () => plain().toDataSync() : plain,
    isAsync: false,
    async output() {
      const values = (last ?? run()).toDataSync().values;
      return values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>);
    },
    dispose() {
      last = undefined;
    },
  };
}
