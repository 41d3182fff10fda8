// The one protocol for fast paths (the comment heading the optional-kernel group at the end of
// `Backend`, src/backend/backend.ts): an optional kernel returns its result or `undefined` to
// decline, never `false` or `null`; decorators that record gradients do not forward them; ReLU is a
// method with its default in BaseBackend; code above the backends never imports backend/defaults.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { Device, Tensor, TensorData } from '../../src/index.js';
import { nativeTestDevice, wasmTestDevice } from '../helpers/devices.js';
import { requiredOnlyDevice } from '../helpers/required-backend.js';

/** The optional kernels of `Backend`, in the group's order. */
const OPTIONAL_KERNELS = ['gelu', 'layerNorm', 'convClamp', 'adamStep', 'convWeightGrad', 'maxPoolGrad'] as const;

// Every optional member of Backend is either a device capability (memory, readback, custom ops) or
// one of the kernels above: a new optional member that is neither does not compile here.
type OptionalMembers = { [K in keyof Backend]-?: undefined extends Backend[K] ? K : never }[keyof Backend];
type Capabilities =
  | 'autodiff'
  | 'viewDataSync'
  | 'dispose'
  | 'retain'
  | 'sync'
  | 'toDataMany'
  | 'info'
  | 'checkIndices'
  | 'customOp';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const classified: Same<Exclude<OptionalMembers, Capabilities>, (typeof OPTIONAL_KERNELS)[number]> = true;

const cpuEngines: [string, () => Device | undefined][] = [
  ['cpu(js)', () => Device.cpu({ engine: 'js' })],
  ['cpu(native)', nativeTestDevice],
  ['cpu(wasm)', wasmTestDevice],
];

function prim(
  device: Device,
  values: number[],
  shape: number[],
  dtype: 'f32' | 'f16' | 'i32' = 'f32',
): TensorPrimitive {
  return device.backend.fromData(new TensorData(values, shape, dtype));
}

describe('optional kernels decline with undefined', () => {
  for (const [name, make] of cpuEngines) {
    it(`${name}: inputs no kernel takes give exactly undefined`, (t) => {
      const device = make();
      if (!device) return t.skip(`${name} is not available here`);
      const b = device.backend as Backend;
      const ints = prim(device, [1, -2, 3, 4], [4], 'i32');
      const x = prim(device, [1, 2, 3, 4, 5, 6], [2, 3]);
      const wrongGamma = prim(device, [1, 1], [2]);
      const x3 = prim(device, [1, 2, 3, 4], [1, 1, 4]);
      const w3 = prim(device, [1, 1], [1, 1, 2]);
      const conv = { stride: [1], padding: [0], dilation: [1], groups: 1 };
      const half = prim(device, [1, 2], [2], 'f16');
      const adam = { beta1: 0.9, beta2: 0.999, factor: 0.1, epsilon: 1e-8 };
      const declined = [
        b.gelu?.(ints),
        b.layerNorm?.(x, wrongGamma, undefined, 1e-5),
        b.convClamp?.(x3, w3, undefined, conv, 0, Infinity),
        b.adamStep?.(half, half, undefined, undefined, adam),
        b.convWeightGrad?.(x3, x3, [1, 1, 2], conv),
        b.maxPoolGrad?.(x, prim(device, [0, 0, 0, 0, 0, 0], [2, 3], 'i32'), [6]),
      ];
      assert.deepEqual(
        declined.map((r) => (r === undefined ? 'undefined' : String(r))),
        OPTIONAL_KERNELS.map(() => 'undefined'),
      );
    });
  }

  it('every optional member of Backend is classified (checked by the compiler)', () => {
    assert.equal(classified, true);
  });

  it('the autodiff decorator does not forward them (its rules call them on the inner backend)', () => {
    const b = Device.cpu({ engine: 'js' }).autodiff().backend;
    assert.deepEqual(
      OPTIONAL_KERNELS.filter((k) => b[k] !== undefined),
      [],
    );
  });
});

describe('ReLU is a Backend method with its default in BaseBackend', () => {
  const values = [-2, -0, 0, 0.5, Number.NaN, 3];
  const expected = [0, 0, 0, 0.5, Number.NaN, 3];

  it('the default (required-only backend) and the CPU override give the same values, NaN kept', async () => {
    for (const device of [requiredOnlyDevice(), Device.cpu({ engine: 'js' })]) {
      const y = Tensor.fromFloats(values, device).relu();
      assert.deepEqual(Array.from((await y.toData()).toArray()), expected);
      const g = device.backend.reluBackward(y.primitive, Tensor.fromFloats([1, 1, 1, 1, 1, 1], device).primitive);
      const back = Array.from((await device.backend.toData(g)).toArray());
      assert.deepEqual(back, [0, 0, 0, 1, 1, 1]);
    }
  });

  it('under autodiff the gradient is 0 at 0 and 1 above', async () => {
    const x = Tensor.fromFloats([-1, 0, 2], Device.cpu({ engine: 'js' }).autodiff()).requireGrad();
    const grads = x.relu().sum().backward();
    assert.deepEqual(Array.from((await x.grad(grads)!.toData()).toArray()), [0, 0, 1]);
  });
});

it('code above the backends never imports backend/defaults (a fallback is reached through a Backend method)', () => {
  const src = join(import.meta.dirname, '../../src');
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts') && /from '[^']*backend\/defaults\//.test(readFileSync(path, 'utf8')))
        offenders.push(relative(src, path));
    }
  };
  for (const layer of ['tensor', 'nn', 'onnx', 'optim', 'train', 'module', 'record', 'store', 'device', 'data'])
    walk(join(src, layer));
  assert.deepEqual(offenders, []);
});
