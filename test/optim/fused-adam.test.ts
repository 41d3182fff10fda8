// The fused Adam step (Backend.adamStep: one pass over parameter, gradient and moments) against
// the op-by-op update it replaces, on the same device: identical values after every step, on the
// js kernels and on the native and wasm engines, f32 and f64, first and later steps, with L2
// weight decay; AMSGrad keeps the op-by-op path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { Device, Tensor, type DType, type Float } from '../../src/index.js';
import { Adam, AdamConfig, type AdamState } from '../../src/optim/index.js';
import { nativeTestDevice, wasmTestDevice } from '../helpers/devices.js';

/** The same backend without its fused kernel (the op-by-op update runs). */
function withoutFused(device: Device): Device {
  const backend = Object.create(device.backend, { adamStep: { value: undefined } }) as Backend<TensorPrimitive>;
  return new Device(backend, `${String(device)} without adamStep`);
}

const devices: [string, () => Device | undefined][] = [
  ['cpu(js)', () => Device.cpu({ engine: 'js' })],
  ['cpu(native)', nativeTestDevice],
  ['cpu(wasm)', wasmTestDevice],
];

/** Parameters after `steps` steps of `config` from fixed values and gradients (a few zeros and sign changes). */
function trajectory(device: Device, dtype: DType, config: AdamConfig, steps: number, n: number): number[][] {
  const adam: Adam = config.build();
  const values = (seed: number) =>
    Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 0 : Math.sin(seed * 13.7 + i * 0.61) * (1 + (i % 7))));
  let p = Tensor.fromFloats(values(1), device).cast(dtype) as Tensor<1, Float>;
  let state: AdamState | undefined;
  const out: number[][] = [];
  for (let step = 0; step < steps; step++) {
    const g = Tensor.fromFloats(values(step + 2), device).cast(dtype) as Tensor<1, Float>;
    const r = adam.step(0.01 * (step + 1), p, g, state);
    p = r.tensor;
    state = r.state;
    out.push(
      ...[p, state!.momentum.moment1, state!.momentum.moment2].map((t) =>
        Array.from(t.toDataSync().values as ArrayLike<number>),
      ),
    );
  }
  return out;
}

describe('fused Adam step', () => {
  for (const [name, make] of devices) {
    const device = make();
    for (const dtype of ['f32', 'f64'] as const) {
      it(`${name} ${dtype}: the same values as the op-by-op update over several steps`, {
        skip: device ? false : `${name} unavailable`,
      }, () => {
        assert.ok(device!.backend.adamStep, `${name} has a fused Adam kernel`);
        for (const config of [
          new AdamConfig({}),
          new AdamConfig({ beta1: 0.8, beta2: 0.99, epsilon: 1e-8, weightDecay: { penalty: 0.05 } }),
        ]) {
          // Below the engines' thresholds, one block, and several of the wasm engine's streamed blocks.
          for (const n of [5, 3001, 70001]) {
            const fused = trajectory(device!, dtype, config, 4, n),
              plain = trajectory(withoutFused(device!), dtype, config, 4, n);
            fused.forEach((row, i) =>
              assert.deepEqual(
                row,
                plain[i],
                `step ${Math.floor(i / 3)} ${['parameter', 'moment 1', 'moment 2'][i % 3]}, n=${n}, ${JSON.stringify(config.toJSON())}`,
              ),
            );
          }
        }
      });
    }
  }

  it('AMSGrad and half-precision parameters take the op-by-op update', () => {
    const device = Device.cpu({ engine: 'js' });
    for (const [config, dtype] of [
      [new AdamConfig({ amsgrad: true }), 'f32'],
      [new AdamConfig({}), 'f16'],
    ] as const) {
      const fused = trajectory(device, dtype, config, 3, 50),
        plain = trajectory(withoutFused(device), dtype, config, 3, 50);
      assert.deepEqual(fused, plain);
    }
  });
});
