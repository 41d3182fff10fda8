// The one protocol for fast paths (the comment heading the optional-kernel group at the end of
// `Backend`, src/backend/backend.ts): an optional kernel returns its result or `undefined` to
// decline, never `false` or `null`; decorators that record gradients do not forward them; ReLU is a
// method with its default in BaseBackend; code above the backends never imports backend/defaults.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { Backend, TensorPrimitive } from '../../src/backend/backend.js';
import { jsEngine, type CpuEngineKernels, type FloatArray } from '../../src/backends/cpu/engine.js';
import { NativeEngine, nativeAddon } from '../../src/backends/cpu/native/index.js';
import { wasmEngine, wasmRuntime } from '../../src/backends/cpu/wasm/index.js';
import { fusedProgram } from '../../src/backend/fusion/program.js';
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
  | 'customOp'
  // Fused programs of the fusion decorator (follow rules 3 and 4, like customOp).
  | 'fused'
  | 'maxFusedBindings';
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

/** The kernels of a CPU engine (every member of `CpuEngineKernels` but its name and allocator). */
const ENGINE_KERNELS = [
  'gemm',
  'binary',
  'binaryScalar',
  'binaryStrided',
  'copyStrided',
  'compareScalar',
  'where',
  'reduceStrided',
  'reluBackward',
  'random',
  'adamStep',
  'unary',
  'clamp',
  'gelu',
  'layerNorm',
  'reduceRows',
  'softmaxRows',
  'conv2d',
  'convTranspose2d',
  'conv2dWeightGrad',
  'unfold2d',
  'maxPoolBackward',
  'maxPool2d',
  'fused',
] as const;
type EngineKernel = (typeof ENGINE_KERNELS)[number];
// A kernel added to CpuEngineKernels and not listed above does not compile here.
const listed: Same<Exclude<keyof CpuEngineKernels, 'name' | 'alloc'>, EngineKernel> = true;

/**
 * One small call of each engine kernel over arrays of `F` (3×3 images, 2×2 kernels, 4 elements),
 * giving the kernel's result and the output it was given.
 */
function engineCalls(
  F: Float32ArrayConstructor | Float64ArrayConstructor,
): Record<EngineKernel, (e: CpuEngineKernels) => [unknown, unknown]> {
  const arr = (n: number): FloatArray => {
    const a = new F(n);
    for (let i = 0; i < n; i++) a[i] = (i % 5) - 1.5;
    return a;
  };
  const conv = { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 1 };
  const image = [1, 1, 3, 3] as const,
    kernel = [1, 1, 2, 2] as const;
  return {
    gemm: (e) => {
      const c = arr(4);
      const args = { m: 2, n: 2, k: 2, a: arr(4), aOffsets: [0], aRowStride: 2, aColStride: 1, c };
      return [e.gemm?.({ ...args, b: arr(4), bOffsets: [0], bRowStride: 2, bColStride: 1 }), c];
    },
    binary: (e) => {
      const out = arr(4);
      return [e.binary?.('add', out, arr(4), 0, arr(4), 0, 4), out];
    },
    binaryScalar: (e) => {
      const out = arr(4);
      return [e.binaryScalar?.('mul', out, arr(4), 0, 2, 4), out];
    },
    binaryStrided: (e) => {
      const out = arr(6);
      return [e.binaryStrided?.('add', out, [2, 3], arr(3), 0, [0, 1], arr(2), 0, [1, 0]), out];
    },
    copyStrided: (e) => {
      const dst = arr(4);
      return [e.copyStrided?.([2, 2], dst, 0, [1, 2], arr(4), 0, [2, 1]), dst];
    },
    compareScalar: (e) => {
      const out = new Uint8Array(4);
      return [e.compareScalar?.('gt', out, arr(4), 0, 0, 4), out];
    },
    where: (e) => {
      const out = arr(4);
      return [e.where?.(out, [4], new Uint8Array([1, 0, 1, 0]), 0, [1], arr(4), 0, [1], arr(4), 0, [1]), out];
    },
    reduceStrided: (e) => {
      const out = arr(2);
      return [e.reduceStrided?.('sum', out, [2, 2], arr(4), 0, [2, 1], [1, 0]), out];
    },
    reluBackward: (e) => {
      const out = arr(4);
      return [e.reluBackward?.(out, arr(4), 0, arr(4), 0, 4), out];
    },
    random: (e) => {
      const out = arr(4);
      return [e.random?.(out, { kind: 'default' }, { key0: 1, key1: 2, stream: 3 }), out];
    },
    adamStep: (e) => {
      const arrays = { n: 4, p: arr(4), pOffset: 0, g: arr(4), gOffset: 0, m: undefined, mOffset: 0 };
      const all = { ...arrays, v: undefined, vOffset: 0, outP: arr(4), outM: arr(4), outV: arr(4) };
      return [e.adamStep?.(all, { beta1: 0.9, beta2: 0.999, factor: 0.1, epsilon: 1e-8 }), all];
    },
    unary: (e) => {
      const out = arr(4);
      return [e.unary?.('exp', out, arr(4), 0, 4), out];
    },
    clamp: (e) => {
      const out = arr(4);
      return [e.clamp?.(out, arr(4), 0, 4, 0, 1), out];
    },
    gelu: (e) => {
      const out = arr(4);
      return [e.gelu?.(out, arr(4), 0, 4), out];
    },
    layerNorm: (e) => {
      const out = arr(4);
      return [e.layerNorm?.(out, arr(4), 0, arr(2), undefined, 2, 2, 1e-5), out];
    },
    reduceRows: (e) => {
      const out = arr(2);
      return [e.reduceRows?.('sum', out, arr(4), 0, 2, 2), out];
    },
    softmaxRows: (e) => {
      const out = arr(4);
      return [e.softmaxRows?.(out, arr(4), 0, 2, 2, false), out];
    },
    conv2d: (e) => {
      const out = arr(4);
      const args = { x: arr(9), xShape: image, w: arr(4), wShape: kernel, bias: undefined, options: conv };
      return [e.conv2d?.({ ...args, out, outShape: [1, 1, 2, 2] }), out];
    },
    convTranspose2d: (e) => {
      const out = arr(9);
      const options = { ...conv, paddingOut: [0, 0] };
      const args = { x: arr(4), xShape: kernel, w: arr(4), wShape: kernel, bias: undefined, options };
      return [e.convTranspose2d?.({ ...args, out, outShape: image }), out];
    },
    conv2dWeightGrad: (e) => {
      const dw = arr(4);
      return [e.conv2dWeightGrad?.(arr(9), image, arr(4), [1, 1, 2, 2], dw, kernel, conv), dw];
    },
    unfold2d: (e) => {
      const out = arr(16);
      return [e.unfold2d?.(arr(9), image, [2, 2], [2, 2], conv, out), out];
    },
    maxPoolBackward: (e) => {
      const dx = arr(9);
      return [e.maxPoolBackward?.(arr(4), new Int32Array([0, 1, 3, 4]), dx, 1, 9), dx];
    },
    maxPool2d: (e) => {
      const out = arr(4);
      const pool = { kernelSize: [2, 2], stride: [1, 1], padding: [0, 0], dilation: [1, 1], ceilMode: false };
      return [e.maxPool2d?.(arr(9), image, out, [1, 1, 2, 2], new Int32Array(4), pool), out];
    },
    fused: (e) => {
      // out = x * s over 4 elements: the kernel returns its outputs array; compare its first.
      const out = arr(4);
      const dtype = F === Float32Array ? 'f32' : 'f64';
      const program = fusedProgram({
        inputs: [{ dtype, level: 'element' }],
        scalars: 1,
        instrs: [
          { kind: 'load', input: 0, dtype },
          { kind: 'scalar', index: 0, dtype },
          { kind: 'binary', op: 'mul', x: 0, y: 1, dtype },
        ],
        outputs: [{ value: 2 }],
      });
      const args = { program, shape: [4], innerRank: 0, scalars: [2] };
      const r = e.fused?.({ ...args, inputs: [{ data: arr(4), offset: 0, strides: [1] }], outputs: [out] });
      return [r === undefined ? undefined : r[0], out];
    },
  };
}

/** An engine with its default size thresholds, one with none, and why it is missing (when it is). */
interface EngineCase {
  readonly name: string;
  readonly reason?: string;
  readonly make?: () => { sized: CpuEngineKernels; open: CpuEngineKernels };
  /** The float arrays the open engine declines whatever their size. */
  readonly declines?: Float64ArrayConstructor;
}

const engineCases: EngineCase[] = [
  ((addon) =>
    addon
      ? {
          name: 'native',
          make: () => ({
            sized: new NativeEngine(addon),
            open: new NativeEngine(addon, { minElements: 0, minCostlyElements: 0, minGemm: 0 }),
          }),
        }
      : { name: 'native', reason: 'the native addon is not available here' })(nativeAddon()),
  wasmRuntime()
    ? {
        name: 'wasm',
        make: () => ({ sized: wasmEngine(), open: wasmEngine({ minElements: 0, minCostlyElements: 0, minGemm: 0 }) }),
        declines: Float64Array,
      }
    : { name: 'wasm', reason: 'the wasm engine is not available here' },
];

describe('CPU engine kernels return their output, or undefined to decline', () => {
  it('every kernel of CpuEngineKernels is listed (checked by the compiler); the js engine has none', () => {
    assert.equal(listed, true);
    assert.deepEqual(
      ENGINE_KERNELS.filter((k) => jsEngine[k] !== undefined),
      [],
    );
  });

  for (const c of engineCases) {
    describe(`${c.name} engine`, () => {
      it('inputs below its size thresholds give exactly undefined', (t) => {
        if (!c.make) return t.skip(c.reason);
        const { sized } = c.make();
        const calls = engineCalls(Float32Array);
        const offered = ENGINE_KERNELS.filter((k) => sized[k] !== undefined);
        assert.ok(offered.length > 10, `${c.name} offers ${offered.join(', ')}`);
        assert.deepEqual(
          offered.map((k) => [k, calls[k](sized)[0]]),
          offered.map((k) => [k, undefined]),
        );
      });

      it('inputs it takes give back the very output it was given', (t) => {
        if (!c.make) return t.skip(c.reason);
        const { open } = c.make();
        const calls = engineCalls(Float32Array);
        for (const k of ENGINE_KERNELS.filter((k) => open[k] !== undefined)) {
          const [result, out] = calls[k](open);
          assert.ok(result === out, `${c.name}.${k} returned ${String(result)} instead of its output`);
        }
      });

      if (c.declines) {
        const F = c.declines;
        it(`${F.name} arrays (a dtype it does not take) give exactly undefined`, (t) => {
          if (!c.make) return t.skip(c.reason);
          const { open } = c.make();
          const calls = engineCalls(F);
          const offered = ENGINE_KERNELS.filter((k) => open[k] !== undefined);
          assert.deepEqual(
            offered.map((k) => [k, calls[k](open)[0]]),
            offered.map((k) => [k, undefined]),
          );
        });
      }
    });
  }
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
