// The runtime: loadOnnx + run against PyTorch's values, the model as a Module (parameters by
// name, devices, autodiff, burnpack), input validation, run-time errors naming the node, and one
// load-time error listing every unsupported operator.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BurnError, Device, Param, Tensor, TensorData } from '../../src/index.js';
import { loadOnnx, OnnxModel } from '../../src/onnx/index.js';
import { SgdConfig } from '../../src/optim/index.js';
import { GradientsParams } from '../../src/optim/grads.js';
import { webgpu } from '../helpers/devices.js';
import { floats, graph, int64s, model, node, T, value } from './builder.js';

const fixtures = new URL('../api-contract/fixtures/', import.meta.url);
const ref = JSON.parse(readFileSync(new URL('tiny.json', fixtures), 'utf8')) as {
  input: number[][][][];
  output: number[][];
};
const tinyPath = new URL('tiny.onnx', fixtures).pathname;
const cpu = Device.cpu();

function close(got: ArrayLike<number>, want: readonly number[], tol = 1e-4): void {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++)
    assert.ok(Math.abs(got[i]! - want[i]!) <= tol * Math.max(1, Math.abs(want[i]!)), `[${i}] ${got[i]} vs ${want[i]}`);
}

describe('ONNX runtime: a PyTorch export', () => {
  it('matches PyTorch on every CPU engine, from a path and from bytes', async () => {
    for (const engine of ['js', 'wasm', 'native'] as const) {
      let device: Device;
      try {
        device = Device.cpu({ engine });
      } catch {
        continue;
      }
      const m = await loadOnnx(engine === 'js' ? readFileSync(tinyPath) : tinyPath, device);
      const { logits } = m.run({ image: Tensor.fromFloats(ref.input, device) });
      close(logits!.toDataSync().toArray(), ref.output.flat());
    }
  });

  it('describes inputs and outputs with symbolic dims', async () => {
    const m = await loadOnnx(tinyPath, cpu);
    assert.deepEqual(m.inputs, [{ name: 'image', dtype: 'f32', shape: ['batch', 1, 8, 8], rankKnown: true }]);
    assert.deepEqual(m.outputs, [{ name: 'logits', dtype: 'f32', shape: ['batch', 3], rankKnown: true }]);
    assert.equal(m.opsets.get(''), 13);
  });

  it('is a Module: initializers are parameters named as in the model', async () => {
    const m = await loadOnnx(tinyPath, cpu);
    assert.ok(m instanceof OnnxModel);
    assert.deepEqual([...m.params().keys()].sort(), ['conv.bias', 'conv.weight', 'fc.bias', 'fc.weight']);
    assert.equal(m.numParams(), 4 * 9 + 4 + 3 * 144 + 3);
    assert.ok(m.params().get('conv.weight') instanceof Param);
    assert.match(
      String(m),
      /OnnxModel \{inputs: image: f32\[batch, 1, 8, 8\], outputs: logits: f32\[batch, 3\], params: 475\}/,
    );
  });

  it('moves between devices and computes with the moved parameters', async () => {
    const m = await loadOnnx(tinyPath, cpu);
    const js = Device.cpu({ engine: 'js' });
    const moved = m.toDevice(js);
    assert.ok(moved.devices().every((d) => d.equals(js)));
    const { logits } = moved.run({ image: Tensor.fromFloats(ref.input, js) });
    assert.ok(logits!.device().equals(js));
    close(logits!.toDataSync().toArray(), ref.output.flat());
  });

  it('trains on an autodiff device: gradients reach every parameter and a step lowers the loss', async () => {
    const ad = cpu.autodiff();
    let m = await loadOnnx(tinyPath, ad);
    const x = Tensor.fromFloats(ref.input, ad);
    const loss = (mm: OnnxModel) => mm.run({ image: x }).logits!.powf(2).mean();
    const before = loss(m);
    const g = before.backward();
    for (const [path, p] of m.params()) assert.ok(p.val().grad(g) !== undefined, `no gradient for ${path}`);
    const optim = new SgdConfig().init<OnnxModel>();
    m = optim.step(0.05, m, GradientsParams.fromGrads(g, m));
    assert.ok(loss(m).intoScalarSync() < before.intoScalarSync());
  });

  it('saves as burnpack and loads back into a fresh copy', async () => {
    const m = await loadOnnx(tinyPath, cpu);
    const changed = m.map((p) => p.withTensor((p.val() as Tensor).mul(2)));
    const fresh = await loadOnnx(tinyPath, cpu);
    const restored = fresh.loadBytes(changed.toBytes());
    const x = Tensor.fromFloats(ref.input, cpu);
    close(
      restored.run({ image: x }).logits!.toDataSync().toArray(),
      Array.from(changed.run({ image: x }).logits!.toDataSync().toArray()),
      1e-6,
    );
    assert.notDeepEqual(
      Array.from(restored.run({ image: x }).logits!.toDataSync().toArray()),
      Array.from(m.run({ image: x }).logits!.toDataSync().toArray()),
    );
  });
});

describe('ONNX runtime: runAsync', () => {
  // acc = x summed `trips` times by a Loop (trip count from an input), then the positions of its non-zeros.
  const body = graph({
    name: 'body',
    nodes: [node('Identity', ['cond_in'], ['cond_out']), node('Add', ['acc_in', 'x'], ['acc_out'])],
    inputs: [value('i', T.i64, []), value('cond_in', T.bool, []), value('acc_in', T.f32, [3])],
    outputs: [value('cond_out', T.bool, []), value('acc_out', T.f32, [3])],
  });
  const bytes = model(
    graph({
      nodes: [
        node('Loop', ['trips', '', 'zero'], ['acc'], { body }, 'loop'),
        node('NonZero', ['acc'], ['nz'], {}, 'nonzero'),
      ],
      inputs: [value('x', T.f32, [3]), value('trips', T.i64, [])],
      outputs: [value('acc', T.f32, [3]), value('nz', T.i64, [1, null])],
      initializers: [floats('zero', [3], [0, 0, 0])],
    }),
  );

  it('gives the values of run (a Loop with an input trip count, NonZero)', async () => {
    const m = await loadOnnx(bytes, cpu);
    const feeds = { x: Tensor.fromFloats([1, 0, -2]), trips: Tensor.fromData(new TensorData([3], [], 'i64')) };
    const a = m.run(feeds);
    const b = await m.runAsync(feeds);
    assert.deepEqual(Array.from(a.acc!.toDataSync().toArray()), [3, 0, -6]);
    assert.deepEqual(Array.from(b.acc!.toDataSync().toArray()), [3, 0, -6]);
    assert.deepEqual(Array.from(b.nz!.toDataSync().toArray()), [0, 2]);
  });

  it('runs it on WebGPU, where run names the node and points to runAsync', {
    skip: webgpu.reason ? `no WebGPU device: ${webgpu.reason}` : false,
  }, async () => {
    const gpu = webgpu.device!;
    const m = await loadOnnx(bytes, gpu);
    const feeds = {
      x: Tensor.fromFloats([1, 0, -2], gpu),
      trips: Tensor.fromData(new TensorData([2], [], 'i32'), gpu),
    };
    assert.throws(
      () => m.run(feeds),
      (e: Error) =>
        e instanceof BurnError && /node 'loop' \(Loop\).*use model\.runAsync on this device/s.test(e.message),
    );
    const out = await m.runAsync(feeds);
    assert.deepEqual(Array.from((await out.acc!.toData()).toArray()), [2, 0, -4]);
    assert.deepEqual(Array.from((await out.nz!.toData()).toArray()), [0, 2]);
  });
});

describe('ONNX runtime: inputs and errors', () => {
  const mm = () =>
    loadOnnx(
      model(
        graph({
          nodes: [node('Add', ['a', 'b'], ['y'], {}, 'adder')],
          inputs: [value('a', T.f32, ['n', 3]), value('b', T.f32, ['n', 3])],
          outputs: [value('y', T.f32, ['n', 3])],
        }),
      ),
      cpu,
    );

  it('checks names, dtypes, static dims and symbolic dims of the inputs', async () => {
    const m = await mm();
    const ok = Tensor.zeros([2, 3]);
    const cases: [Record<string, Tensor>, RegExp][] = [
      [{ a: ok }, /missing input 'b'/],
      [{ a: ok, b: ok, c: ok }, /unknown input 'c'; the model's inputs are 'a', 'b'/],
      [{ a: ok, b: Tensor.zeros([2, 3], { dtype: 'f64' }) }, /input 'b' has dtype f64; the model expects f32/],
      [
        { a: ok, b: Tensor.zeros([2, 4]) },
        /input 'b' has shape \[2, 4\]; the model expects \[n, 3\] \(dim 1 must be 3\)/,
      ],
      [{ a: ok, b: Tensor.zeros([2, 3, 1]) }, /input 'b' has shape \[2, 3, 1\]; the model expects rank 2/],
      [{ a: ok, b: Tensor.zeros([5, 3]) }, /input 'b' has n = 5 \(dim 0\), but input 'a' has n = 2/],
    ];
    for (const [feeds, re] of cases)
      assert.throws(
        () => m.run(feeds),
        (e: Error) => e instanceof BurnError && re.test(e.message),
        re.source,
      );
    assert.deepEqual(m.run({ a: ok, b: ok }).y!.dims(), [2, 3]);
  });

  it('names the node when an op fails at run time', async () => {
    const m = await loadOnnx(
      model(
        graph({
          nodes: [node('Reshape', ['x', 'shape'], ['y'], {}, 'bad_reshape')],
          inputs: [value('x', T.f32, ['n']), value('shape', T.i64, [2])],
          outputs: [value('y', T.f32)],
        }),
      ),
      cpu,
    );
    assert.throws(
      () => m.run({ x: Tensor.zeros([6]), shape: Tensor.fromData(new TensorData([4, 2], [2], 'i64')) }),
      (e: Error) =>
        e instanceof BurnError &&
        /node 'bad_reshape' \(Reshape\) cannot reshape \[6\] \(6 elements\) into \[4, 2\]/.test(e.message),
    );
  });

  it('fails at load time with one error listing every unsupported operator, node and opset', async () => {
    const bytes = model(
      graph({
        nodes: [
          node('Relu', ['x'], ['a'], {}, 'fine'),
          node('FancyOp', ['a'], ['b'], {}, 'fancy_1'),
          node('Cast', ['b'], ['c'], { to: T.string }, 'to_string'),
          node('CustomThing', ['c'], ['d'], {}, 'custom_1', 'com.example'),
          node('FancyOp', ['d'], ['y'], {}, 'fancy_2'),
        ],
        inputs: [value('x', T.f32, [1])],
        outputs: [value('y', T.f32)],
      }),
      17,
      { 'com.example': 1 },
    );
    await assert.rejects(loadOnnx(bytes, cpu), (e: Error) => {
      assert.ok(e instanceof BurnError);
      assert.match(e.message, /the model cannot run: 4 unsupported items/);
      assert.match(e.message, /FancyOp \(node 'fancy_1', opset 17\): not implemented/);
      assert.match(e.message, /Cast \(node 'to_string', opset 17\): casting to string is not supported/);
      assert.match(e.message, /com\.example\.CustomThing \(node 'custom_1', opset 1\): not implemented/);
      assert.match(e.message, /FancyOp \(node 'fancy_2', opset 17\)/);
      assert.doesNotMatch(e.message, /'fine'/);
      return true;
    });
  });

  it('refuses opsets newer than it follows and string inputs', async () => {
    const newer = model(
      graph({
        nodes: [node('Relu', ['x'], ['y'], {}, 'r')],
        inputs: [value('x', T.f32, [1])],
        outputs: [value('y', T.f32)],
      }),
      99,
    );
    await assert.rejects(
      loadOnnx(newer, cpu),
      (e: Error) =>
        e instanceof BurnError &&
        /Relu \(node 'r', opset 99\): opset 99 is newer than the supported 23/.test(e.message),
    );
    const strings = model(
      graph({
        nodes: [node('Identity', ['x'], ['y'])],
        inputs: [value('x', T.string, [1])],
        outputs: [value('y', T.string)],
      }),
    );
    await assert.rejects(
      loadOnnx(strings, cpu),
      (e: Error) => e instanceof BurnError && /input 'x' of element type STRING: not supported/.test(e.message),
    );
  });

  it('gives sequence outputs through runValues and refuses them in run', async () => {
    const m = await loadOnnx(
      model(
        graph({
          nodes: [node('SplitToSequence', ['x', 'split'], ['s'], { axis: 0 })],
          inputs: [value('x', T.f32, [4])],
          outputs: [{ ...value('s', T.f32), type: undefined }],
          initializers: [int64s('split', [2], [1, 3])],
        }),
      ),
      cpu,
    );
    const x = Tensor.fromFloats([1, 2, 3, 4]);
    const s = m.runValues({ x }).s;
    assert.ok(Array.isArray(s));
    assert.deepEqual(
      s.map((t) => Array.from(t.toDataSync().toArray())),
      [[1], [2, 3, 4]],
    );
    assert.throws(
      () => m.run({ x }),
      (e: Error) => e instanceof BurnError && /output 's' is a sequence; use runValues/.test(e.message),
    );
  });

  it('keeps parameter names that would clash with the module API or with each other usable', async () => {
    const m = await loadOnnx(
      model(
        graph({
          nodes: [
            node('Add', ['x', 'run'], ['a']),
            node('Add', ['a', 'layer'], ['b']),
            node('Add', ['b', 'layer.w'], ['y']),
          ],
          inputs: [value('x', T.f32, [1])],
          outputs: [value('y', T.f32, [1])],
          initializers: [floats('run', [1], [1]), floats('layer', [1], [10]), floats('layer.w', [1], [100])],
        }),
      ),
      cpu,
    );
    // `run` would shadow the method; `layer` is already the module holding `layer.w`.
    assert.deepEqual([...m.params().keys()].sort(), ['layer.w', 'layer_2', 'param_run']);
    assert.deepEqual(
      Array.from(
        m
          .run({ x: Tensor.fromFloats([0]) })
          .y!.toDataSync()
          .toArray(),
      ),
      [111],
    );
    assert.equal(typeof m.run, 'function');
  });
});

describe('ONNX runtime: memory', () => {
  it("releases an op's temporaries when the op returns, so the next op reuses their memory in the same run", async () => {
    // HardSigmoid is a mul, an add and a clamp: its intermediates must be back in the CPU pool before Relu allocates.
    const n = 262_147; // a length no other test allocates, so only this run's arrays can be reused
    const device = Device.cpu();
    const m = await loadOnnx(
      model(
        graph({
          nodes: [
            node('HardSigmoid', ['x'], ['c'], { alpha: { float: 0.25 }, beta: { float: 0.5 } }),
            node('Relu', ['c'], ['y']),
          ],
          inputs: [value('x', T.f32, [n])],
          outputs: [value('y', T.f32, [n])],
        }),
        13,
      ),
      device,
    );
    const x = Tensor.fromData(
      new TensorData(
        new Float32Array(n).map((_, i) => (i % 17) - 8),
        [n],
        'f32',
      ),
      device,
    );
    const reused = () => (device.info().pool as { reused: number }).reused;
    const before = reused();
    const y = m.run({ x }).y!;
    assert.ok(reused() > before, 'Relu reused the array of an intermediate of HardSigmoid');
    assert.deepEqual(
      Array.from(y.toDataSync().toArray().slice(0, 17)),
      [0, 0, 0, 0, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1, 1, 1, 1, 1, 1],
    );
  });
});

describe('ONNX runtime: activations fused into the convolution before them', () => {
  const seq = (len: number, seed: number) => Array.from({ length: len }, (_, i) => Math.sin(i * 0.7 + seed) * 1.5);
  /** Conv (3×3, pad 1, optional groups) → act, with the activation nodes `acts` reading the conv's output `c`. */
  const convModel = (
    acts: ReturnType<typeof node>[],
    cin: number,
    cout: number,
    group: number,
    outputs = ['y'],
    opset = 13,
  ) =>
    model(
      graph({
        nodes: [
          node('Conv', ['x', 'w', 'b'], ['c'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], group }, 'conv'),
          ...acts,
        ],
        inputs: [value('x', T.f32, [2, cin, 9, 11])],
        outputs: outputs.map((o) => value(o, T.f32)),
        initializers: [
          floats('w', [cout, cin / group, 3, 3], seq(cout * (cin / group) * 9, 1)),
          floats('b', [cout], seq(cout, 2)),
          floats('lo', [], [0]),
          floats('hi', [], [6]),
          floats('lo2', [], [-0.5]),
        ],
      }),
      opset,
    );
  const input = (cin: number, device: Device) =>
    Tensor.fromData(
      new TensorData(Float32Array.from(seq(2 * cin * 99, 3).map((v) => v * 3)), [2, cin, 9, 11], 'f32'),
      device,
    );
  /** The native device with its convClamp calls counted (undefined without the engine). */
  const counted = (): { device: Device; calls: () => number } | undefined => {
    let device: Device;
    try {
      device = Device.cpu({ engine: 'native' });
    } catch {
      return undefined;
    }
    const b = device.backend as unknown as { convClamp?: (...a: unknown[]) => unknown; fusedCalls?: number };
    const original = b.convClamp;
    if (!original) return undefined;
    if (b.fusedCalls === undefined) {
      b.fusedCalls = 0;
      b.convClamp = (...a: unknown[]) => {
        b.fusedCalls!++;
        return original.apply(b, a);
      };
    }
    return { device, calls: () => b.fusedCalls! };
  };
  const cases: [string, ReturnType<typeof node>[], number, number, number, (v: number) => number][] = [
    ['Relu', [node('Relu', ['c'], ['y'])], 4, 6, 1, (v) => Math.max(v, 0)],
    ['Clip(0, 6)', [node('Clip', ['c', 'lo', 'hi'], ['y'])], 4, 6, 1, (v) => Math.min(Math.max(v, 0), 6)],
    ['Clip(-0.5) on a depthwise conv', [node('Clip', ['c', 'lo2'], ['y'])], 5, 5, 5, (v) => Math.max(v, -0.5)],
  ];
  for (const [name, acts, cin, cout, group, fn] of cases) {
    it(`Conv → ${name}: one fused call on the native engine, the values of the two ops on every engine`, async () => {
      const bytes = convModel(acts, cin, cout, group);
      const jsDev = Device.cpu({ engine: 'js' });
      const conv = (await loadOnnx(convModel([], cin, cout, group, ['c']), jsDev)).run({ x: input(cin, jsDev) }).c!;
      const want = Array.from(conv.toDataSync().toArray(), fn);
      const js = (await loadOnnx(bytes, jsDev)).run({ x: input(cin, jsDev) }).y!;
      close(js.toDataSync().toArray(), want, 1e-6);
      const ad = (await loadOnnx(bytes, jsDev.autodiff())).run({ x: input(cin, jsDev.autodiff()) }).y!;
      close(ad.toDataSync().toArray(), want, 1e-6);
      const native = counted();
      if (!native) return;
      const m = await loadOnnx(bytes, native.device);
      assert.deepEqual(
        m.onnx.model.graph.nodes.map((n) => n.opType),
        ['Conv', acts[0]!.opType],
        'the graph keeps both nodes (code generation reads it)',
      );
      const before = native.calls();
      const y = m.run({ x: input(cin, native.device) }).y!;
      assert.equal(native.calls() - before, 1, 'the activation ran inside the convolution');
      close(y.toDataSync().toArray(), want, 1e-4);
    });
  }

  it('Conv → Add (→ Relu): one fused call with the residual (either operand, made after the Conv), broadcast residuals op by op', async () => {
    // The residual r = Sigmoid(z) is computed after the Conv in the plan; `rb` broadcasts (no fused kernel takes it).
    const residualModel = (addInputs: [string, string], relu: boolean) =>
      model(
        graph({
          nodes: [
            node('Conv', ['x', 'w', 'b'], ['c'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }, 'conv'),
            node('Sigmoid', ['z'], ['r']),
            ...(relu ? [node('Add', addInputs, ['s']), node('Relu', ['s'], ['y'])] : [node('Add', addInputs, ['y'])]),
          ],
          inputs: [value('x', T.f32, [2, 4, 9, 11]), value('z', T.f32, [2, 6, 9, 11])],
          outputs: [value('y', T.f32)],
          initializers: [
            floats('w', [6, 4, 3, 3], seq(216, 1)),
            floats('b', [6], seq(6, 2)),
            floats('rb', [1, 6, 1, 1], seq(6, 5)),
          ],
        }),
        13,
      );
    const jsDev = Device.cpu({ engine: 'js' });
    const z = (d: Device) =>
      Tensor.fromData(new TensorData(Float32Array.from(seq(2 * 6 * 99, 4).map((v) => v * 4)), [2, 6, 9, 11], 'f32'), d);
    const conv = (await loadOnnx(convModel([], 4, 6, 1, ['c']), jsDev))
      .run({ x: input(4, jsDev) })
      .c!.toDataSync()
      .toArray();
    const zs = z(jsDev).sigmoid().toDataSync().toArray();
    const rb = seq(6, 5);
    const cases: [[string, string], (i: number) => number, boolean][] = [
      [['c', 'r'], (i) => zs[i]!, true],
      [['r', 'c'], (i) => zs[i]!, true],
      [['rb', 'c'], (i) => rb[Math.floor(i / 99) % 6]!, true],
      [['c', 'r'], (i) => zs[i]!, false],
    ];
    for (const [addInputs, residual, relu] of cases) {
      const want = Array.from(conv, (v, i) => (relu ? Math.max(v + residual(i), 0) : v + residual(i)));
      const bytes = residualModel(addInputs, relu);
      const js = (await loadOnnx(bytes, jsDev)).run({ x: input(4, jsDev), z: z(jsDev) }).y!;
      close(js.toDataSync().toArray(), want, 1e-5);
      const ad = (await loadOnnx(bytes, jsDev.autodiff())).run({
        x: input(4, jsDev.autodiff()),
        z: z(jsDev.autodiff()),
      }).y!;
      close(ad.toDataSync().toArray(), want, 1e-5);
      const native = counted();
      if (!native) continue;
      const m = await loadOnnx(bytes, native.device);
      const ops = m.onnx.model.graph.nodes.map((n) => n.opType);
      const kept = relu ? ['Conv', 'Add', 'Relu'] : ['Conv', 'Add'];
      assert.deepEqual(
        kept.filter((o) => ops.includes(o)),
        kept,
        'the graph keeps every node',
      );
      const before = native.calls();
      const y = m.run({ x: input(4, native.device), z: z(native.device) }).y!;
      assert.equal(native.calls() - before, 1, `one fused call (${addInputs.join(' + ')})`);
      close(y.toDataSync().toArray(), want, 1e-4);
    }
  });

  it('keeps the two steps when the convolution output has another reader, or the bounds are not constants', async () => {
    const native = counted();
    if (!native) return;
    const twoReaders = await loadOnnx(convModel([node('Relu', ['c'], ['y'])], 4, 6, 1, ['y', 'c']), native.device);
    const before = native.calls();
    const out = twoReaders.run({ x: input(4, native.device) });
    assert.equal(native.calls(), before, 'no fused call');
    close(
      out.y!.toDataSync().toArray(),
      Array.from(out.c!.toDataSync().toArray(), (v) => Math.max(v, 0)),
      0,
    );
    // A Clip bound that is a graph input is only known at run time.
    const dynamic = await loadOnnx(
      model(
        graph({
          nodes: [node('Conv', ['x', 'w'], ['c'], { kernel_shape: [3, 3] }), node('Clip', ['c', 'm'], ['y'])],
          inputs: [value('x', T.f32, [1, 2, 5, 5]), value('m', T.f32, [])],
          outputs: [value('y', T.f32)],
          initializers: [floats('w', [3, 2, 3, 3], seq(54, 4))],
        }),
        13,
      ),
      native.device,
    );
    const y = dynamic.run({
      x: input(2, native.device).slice([
        [0, 1],
        [0, 2],
        [0, 5],
        [0, 5],
      ]),
      m: Tensor.fromFloats(0.25, native.device),
    }).y!;
    assert.equal(native.calls(), before, 'no fused call');
    assert.ok(Array.from(y.toDataSync().toArray()).every((v) => v >= 0.25));
  });
});

describe('ONNX runtime: one-pass LayerNormalization and Gelu where the backend has them', () => {
  const seq = (len: number, seed: number) => Array.from({ length: len }, (_, i) => Math.sin(i * 0.37 + seed) * 2 + 0.5);
  const lnModel = (outputs: string[], axis = -1) =>
    model(
      graph({
        nodes: [
          node('LayerNormalization', ['x', 's', 'b'], outputs, { axis, epsilon: { float: 1e-5 } }),
          node('Gelu', [outputs[0]!], ['z']),
        ],
        inputs: [value('x', T.f32, [3, 5, 24])],
        outputs: [value('z', T.f32), ...outputs.slice(1).map((o) => value(o, T.f32))],
        initializers: [floats('s', [24], seq(24, 1)), floats('b', [24], seq(24, 2))],
      }),
      20,
    );
  it('gives the op-by-op values, through one call each on the native engine (Y only, last axis)', async () => {
    const jsDev = Device.cpu({ engine: 'js' });
    const x = (d: Device) => Tensor.fromData(new TensorData(Float32Array.from(seq(360, 3)), [3, 5, 24], 'f32'), d);
    const want = (await loadOnnx(lnModel(['y']), jsDev))
      .run({ x: x(jsDev) })
      .z!.toDataSync()
      .toArray();
    let native: Device;
    try {
      native = Device.cpu({ engine: 'native' });
    } catch {
      return;
    }
    const b = native.backend as unknown as Record<string, ((...a: unknown[]) => unknown) | undefined>;
    if (!b.layerNorm || !b.gelu) return;
    const calls = { layerNorm: 0, gelu: 0 };
    for (const k of ['layerNorm', 'gelu'] as const) {
      const f = b[k]!;
      b[k] = (...a: unknown[]) => {
        calls[k]++;
        return f.apply(b, a);
      };
    }
    try {
      close(
        (await loadOnnx(lnModel(['y']), native))
          .run({ x: x(native) })
          .z!.toDataSync()
          .toArray(),
        Array.from(want),
        1e-5,
      );
      assert.deepEqual(calls, { layerNorm: 1, gelu: 1 });
      // Mean and inverse deviation wanted, or another axis: the op-by-op form, the same values.
      const three = (await loadOnnx(lnModel(['y', 'mean', 'inv']), native)).run({ x: x(native) });
      close(three.z!.toDataSync().toArray(), Array.from(want), 1e-5);
      assert.equal(three.mean!.dims().join(), '3,5,1');
      assert.deepEqual(calls, { layerNorm: 1, gelu: 2 });
    } finally {
      delete b.layerNorm;
      delete b.gelu;
    }
  });
});
