// The graph layer: topological order (files list nodes in any order), cycle and SSA checks,
// shape/dtype inference with symbolic dims, constant folding, shape-subgraph folding and
// dead-node removal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor, TensorData } from '../../src/index.js';
import { loadOnnx, loadOnnxWithReport } from '../../src/onnx/index.js';
import { floats, graph, int64s, model, node, T, value } from './builder.js';

const cpu = Device.cpu();

/** The op types the loaded model still runs (after simplification). */
function steps(m: Awaited<ReturnType<typeof loadOnnx>>): string[] {
  return m.onnx.plan.steps.map((s) => s.node.opType);
}

describe('ONNX graph: order and structure checks', () => {
  it('sorts nodes listed out of order', async () => {
    const m = await loadOnnx(
      model(
        graph({
          nodes: [
            node('Mul', ['b', 'x'], ['y'], {}, 'last'),
            node('Exp', ['a'], ['b'], {}, 'middle'),
            node('Neg', ['x'], ['a'], {}, 'first'),
          ],
          inputs: [value('x', T.f32, [2])],
          outputs: [value('y', T.f32, [2])],
        }),
      ),
      cpu,
    );
    assert.deepEqual(steps(m), ['Neg', 'Exp', 'Mul']);
    const y = m
      .run({ x: Tensor.fromFloats([0, 1]) })
      .y!.toDataSync()
      .toArray();
    assert.deepEqual(
      Array.from(y, (v) => Number(v.toFixed(5))),
      [0, Number(Math.exp(-1).toFixed(5))],
    );
  });

  it('refuses a cyclic graph, naming the nodes on the cycle', async () => {
    const bytes = model(
      graph({
        nodes: [
          node('Add', ['x', 'c'], ['a'], {}, 'n1'),
          node('Relu', ['a'], ['b'], {}, 'n2'),
          node('Neg', ['b'], ['c'], {}, 'n3'),
          node('Abs', ['x'], ['y'], {}, 'ok'),
        ],
        inputs: [value('x', T.f32, [1])],
        outputs: [value('y', T.f32, [1])],
      }),
    );
    await assert.rejects(
      loadOnnx(bytes, cpu),
      (e: Error) => e instanceof BurnError && /has a cycle through nodes 'n1', 'n2', 'n3'/.test(e.message),
    );
  });

  it('refuses a value produced twice and a read of a value nobody produces', async () => {
    const twice = model(
      graph({
        nodes: [node('Neg', ['x'], ['y'], {}, 'p'), node('Abs', ['x'], ['y'], {}, 'q')],
        inputs: [value('x', T.f32, [1])],
        outputs: [value('y', T.f32)],
      }),
    );
    await assert.rejects(
      loadOnnx(twice, cpu),
      (e: Error) => e instanceof BurnError && /value 'y' is produced by both node 'p' and node 'q'/.test(e.message),
    );
    const dangling = model(
      graph({
        nodes: [node('Add', ['x', 'ghost'], ['y'], {}, 'adder')],
        inputs: [value('x', T.f32, [1])],
        outputs: [value('y', T.f32)],
      }),
    );
    await assert.rejects(
      loadOnnx(dangling, cpu),
      (e: Error) =>
        e instanceof BurnError &&
        /node 'adder' \(Add\) reads 'ghost', which no node, input or initializer/.test(e.message),
    );
  });
});

describe('ONNX graph: inference and simplification', () => {
  it('infers output shapes with symbolic dims kept as names', async () => {
    const m = await loadOnnx(
      model(
        graph({
          nodes: [
            node('MatMul', ['x', 'w'], ['h']),
            node('Relu', ['h'], ['r']),
            node('ReduceSum', ['r', 'axes'], ['y'], { keepdims: 0 }),
          ],
          inputs: [value('x', T.f32, ['batch', 'seq', 4])],
          outputs: [value('y', T.f32)],
          initializers: [floats('w', [4, 8], new Array(32).fill(0.5)), int64s('axes', [1], [1])],
        }),
      ),
      cpu,
    );
    assert.deepEqual(m.outputs, [{ name: 'y', dtype: 'f32', shape: ['batch', 8], rankKnown: true }]);
    assert.deepEqual(m.inputs, [{ name: 'x', dtype: 'f32', shape: ['batch', 'seq', 4], rankKnown: true }]);
  });

  it('keeps unknown dims unknown through MatMul broadcasting (no folding of a guessed size)', async () => {
    // Regression: an unknown leading dim was taken as 1, and Shape(...)[0] folded to the constant 1.
    const m = await loadOnnx(
      model(
        graph({
          nodes: [
            node('MatMul', ['x', 'w'], ['h']),
            node('Shape', ['h'], ['s']),
            node('Gather', ['s', 'i0'], ['d0'], { axis: 0 }),
            node('Unsqueeze', ['d0', 'ax'], ['u']),
            node('Concat', ['u', 'minus1'], ['shape'], { axis: 0 }),
            node('Reshape', ['h', 'shape'], ['y']),
          ],
          inputs: [value('x', T.f32, [null, null, 4])],
          outputs: [value('y', T.f32)],
          initializers: [
            floats('w', [4, 2], new Array(8).fill(1)),
            int64s('i0', [], [0]),
            int64s('ax', [1], [0]),
            int64s('minus1', [1], [-1]),
          ],
        }),
      ),
      cpu,
    );
    assert.deepEqual(m.run({ x: Tensor.ones([3, 5, 4]) }).y!.dims(), [3, 10]);
    assert.ok(steps(m).includes('Shape'));
  });

  it('folds constant subgraphs into constants and leaves parameters alone', async () => {
    const { model: m, report } = await loadOnnxWithReport(
      model(
        graph({
          nodes: [
            node('Constant', [], ['two'], { value: floats('', [], [2]) }),
            node('Add', ['two', 'two'], ['four']), // constant: folds
            node('Mul', ['w', 'four'], ['w4']), // reads a parameter: stays
            node('Add', ['x', 'w4'], ['y']),
          ],
          inputs: [value('x', T.f32, [2])],
          outputs: [value('y', T.f32, [2])],
          initializers: [floats('w', [2], [1, -1])],
        }),
      ),
      cpu,
    );
    assert.equal(report.folded, 2);
    assert.deepEqual(steps(m), ['Mul', 'Add']);
    assert.deepEqual([...m.params().keys()], ['w']);
    assert.deepEqual(
      Array.from(
        m
          .run({ x: Tensor.fromFloats([1, 1]) })
          .y!.toDataSync()
          .toArray(),
      ),
      [5, -3],
    );
  });

  it('folds shape computations on static dims, also next to symbolic ones', async () => {
    // y = reshape(x, [shape(x)[0], shape(x)[1] * shape(x)[2]]): the batch dim stays a run-time value.
    const g = graph({
      nodes: [
        node('Shape', ['x'], ['s']),
        node('Gather', ['s', 'i0'], ['d0'], { axis: 0 }),
        node('Gather', ['s', 'i1'], ['d1'], { axis: 0 }),
        node('Gather', ['s', 'i2'], ['d2'], { axis: 0 }),
        node('Mul', ['d1', 'd2'], ['d12']),
        node('Unsqueeze', ['d0', 'ax'], ['u0']),
        node('Unsqueeze', ['d12', 'ax'], ['u12']),
        node('Concat', ['u0', 'u12'], ['shape'], { axis: 0 }),
        node('Reshape', ['x', 'shape'], ['y']),
      ],
      inputs: [value('x', T.f32, ['batch', 3, 4])],
      outputs: [value('y', T.f32)],
      initializers: [int64s('i0', [], [0]), int64s('i1', [], [1]), int64s('i2', [], [2]), int64s('ax', [1], [0])],
    });
    const { model: m, report } = await loadOnnxWithReport(model(g), cpu);
    // d1, d2 (static dims 3 and 4), their product and its Unsqueeze fold; the batch chain runs.
    assert.deepEqual(steps(m), ['Shape', 'Gather', 'Unsqueeze', 'Concat', 'Reshape']);
    assert.ok(report.folded >= 4);
    assert.deepEqual(m.outputs[0]!.shape, ['batch', 12]);
    assert.deepEqual(m.run({ x: Tensor.zeros([5, 3, 4]) }).y!.dims(), [5, 12]);
    // With every dim static the whole chain folds away.
    const stat = await loadOnnx(
      model(
        graph({
          ...g,
          nodes: g.node,
          inputs: [value('x', T.f32, [2, 3, 4])],
          outputs: [value('y', T.f32)],
          initializers: g.initializer,
        }),
      ),
      cpu,
    );
    assert.deepEqual(steps(stat), ['Reshape']);
  });

  it('removes dead nodes and unused initializers (they do not become parameters)', async () => {
    const { model: m, report } = await loadOnnxWithReport(
      model(
        graph({
          nodes: [
            node('Add', ['x', 'w'], ['y']),
            node('Mul', ['x', 'unused_w'], ['dead1']),
            node('Exp', ['dead1'], ['dead2']),
          ],
          inputs: [value('x', T.f32, [2])],
          outputs: [value('y', T.f32, [2])],
          initializers: [floats('w', [2], [1, 2]), floats('unused_w', [2], [3, 4]), floats('orphan', [1], [0])],
        }),
      ),
      cpu,
    );
    assert.equal(report.removed, 2);
    assert.deepEqual(steps(m), ['Add']);
    assert.deepEqual([...m.params().keys()], ['w']);
    assert.equal(m.numParams(), 2);
  });

  it('folds inference BatchNormalization into the Conv and Gemm before it, with the same outputs', async () => {
    const r = (n: number, k: number) => Array.from({ length: n }, (_, i) => Math.sin(i * 1.7 + k));
    const bn = (p: string, c: number) => [
      floats(`${p}.scale`, [c], r(c, 1)),
      floats(`${p}.bias`, [c], r(c, 2)),
      floats(`${p}.mean`, [c], r(c, 3)),
      floats(
        `${p}.var`,
        [c],
        r(c, 4).map((v) => v * v + 0.5),
      ),
    ];
    const bytes = model(
      graph({
        nodes: [
          node('Conv', ['x', 'conv.weight'], ['c'], { pads: [1, 1, 1, 1] }),
          node('BatchNormalization', ['c', 'bn1.scale', 'bn1.bias', 'bn1.mean', 'bn1.var'], ['h'], {
            epsilon: { float: 1e-3 },
          }),
          node('Flatten', ['h'], ['f']),
          node('Gemm', ['f', 'fc.weight', 'fc.bias'], ['g'], { transB: 1 }),
          node('BatchNormalization', ['g', 'bn2.scale', 'bn2.bias', 'bn2.mean', 'bn2.var'], ['y']),
        ],
        inputs: [value('x', T.f32, ['n', 2, 3, 3])],
        outputs: [value('y', T.f32)],
        initializers: [
          floats('conv.weight', [4, 2, 3, 3], r(72, 5)),
          ...bn('bn1', 4),
          floats('fc.weight', [5, 36], r(180, 6)),
          floats('fc.bias', [5], r(5, 7)),
          ...bn('bn2', 5),
        ],
      }),
    );
    const fused = await loadOnnxWithReport(bytes, cpu);
    const plain = await loadOnnxWithReport(bytes, cpu, { fuse: false });
    assert.equal(fused.report.fused, 2);
    assert.deepEqual(steps(fused.model), ['Conv', 'Flatten', 'Linear']);
    assert.deepEqual([...fused.model.params().keys()].sort(), ['bn1.bias', 'conv.weight', 'fc.bias', 'fc.weight']);
    assert.equal(plain.report.fused, 0);
    assert.ok(steps(plain.model).includes('BatchNormalization'));
    const x = Tensor.fromFloats([
      [
        [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9],
        ],
        [
          [-1, 0, 1],
          [2, -3, 4],
          [0, 0, 5],
        ],
      ],
    ]);
    const a = fused.model.run({ x }).y!.toDataSync().toArray();
    const b = plain.model.run({ x }).y!.toDataSync().toArray();
    a.forEach((v, i) =>
      assert.ok(Math.abs(v - b[i]!) <= 1e-4 * Math.max(1, Math.abs(b[i]!)), `[${i}] ${v} vs ${b[i]}`),
    );
  });

  it('does not fold a BatchNormalization whose input has another reader', async () => {
    const { model: m, report } = await loadOnnxWithReport(
      model(
        graph({
          nodes: [
            node('Conv', ['x', 'w'], ['c']),
            node('BatchNormalization', ['c', 's', 'b', 'm', 'v'], ['h']),
            node('Add', ['h', 'c'], ['y']),
          ],
          inputs: [value('x', T.f32, [1, 1, 2, 2])],
          outputs: [value('y', T.f32)],
          initializers: [
            floats('w', [1, 1, 1, 1], [2]),
            floats('s', [1], [1]),
            floats('b', [1], [0]),
            floats('m', [1], [1]),
            floats('v', [1], [1]),
          ],
        }),
      ),
      cpu,
    );
    assert.equal(report.fused, 0);
    assert.deepEqual(steps(m), ['Conv', 'BatchNormalization', 'Add']);
  });

  it('keeps random ops unfolded', async () => {
    const m = await loadOnnx(
      model(
        graph({
          nodes: [node('RandomUniform', [], ['y'], { shape: [3] })],
          inputs: [],
          outputs: [value('y', T.f32, [3])],
        }),
      ),
      cpu,
    );
    assert.deepEqual(steps(m), ['RandomUniform']);
    const a = m.run({}).y!.toDataSync().toArray();
    assert.ok(Array.from(a).every((v) => v >= 0 && v < 1));
  });

  it('can skip simplification', async () => {
    const { model: m } = await loadOnnxWithReport(
      model(
        graph({
          nodes: [node('Constant', [], ['c'], { value: floats('', [1], [1]) }), node('Add', ['x', 'c'], ['y'])],
          inputs: [value('x', T.f32, [1])],
          outputs: [value('y', T.f32, [1])],
        }),
      ),
      cpu,
      { simplify: false },
    );
    assert.deepEqual(steps(m), ['Constant', 'Add']);
    assert.deepEqual(
      Array.from(
        m
          .run({ x: Tensor.fromFloats([1]) })
          .y!.toDataSync()
          .toArray(),
      ),
      [2],
    );
  });
});

describe('ONNX simplification: linear layers and GELU', () => {
  const cpu = Device.cpu();
  const r = (n: number, k: number) => Array.from({ length: n }, (_, i) => Math.sin(i * 1.3 + k));

  it('rewrites MatMul + Add with constant weights as one Linear (same values, same parameters), but not a product read twice', async () => {
    const g = (extra: boolean) =>
      model(
        graph({
          nodes: [
            node('MatMul', ['x', 'fc.weight'], ['p']),
            node('Add', ['p', 'fc.bias'], ['y']),
            ...(extra ? [node('Neg', ['p'], ['z'])] : []),
          ],
          inputs: [value('x', T.f32, ['n', 3, 4])],
          outputs: [value('y', T.f32), ...(extra ? [value('z', T.f32)] : [])],
          initializers: [floats('fc.weight', [4, 5], r(20, 1)), floats('fc.bias', [5], r(5, 2))],
        }),
      );
    const fused = await loadOnnxWithReport(g(false), cpu);
    const plain = await loadOnnxWithReport(g(false), cpu, { fuse: false });
    assert.equal(fused.report.linear, 1);
    assert.deepEqual(steps(fused.model), ['Linear']);
    assert.deepEqual([...fused.model.params().keys()].sort(), ['fc.bias', 'fc.weight']);
    const x = Tensor.fromData(new TensorData(r(24, 3), [2, 3, 4], 'f32'));
    const a = fused.model.run({ x }).y!.toDataSync().toArray();
    const b = plain.model.run({ x }).y!.toDataSync().toArray();
    a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) <= 1e-6, `[${i}] ${v} vs ${b[i]}`));
    assert.deepEqual(steps((await loadOnnxWithReport(g(true), cpu)).model), ['Linear', 'Add', 'Neg']);
  });

  it('rewrites the spelled-out exact GELU as one Gelu, and not when an intermediate has another reader', async () => {
    const g = (extra: boolean) =>
      model(
        graph({
          nodes: [
            node('Div', ['x', 'sqrt2'], ['d']),
            node('Erf', ['d'], ['e']),
            node('Add', ['e', 'one'], ['a']),
            node('Mul', ['x', 'a'], ['m']),
            node('Mul', ['m', 'half'], ['y']),
            ...(extra ? [node('Neg', ['e'], ['z'])] : []),
          ],
          inputs: [value('x', T.f32, [6])],
          outputs: [value('y', T.f32), ...(extra ? [value('z', T.f32)] : [])],
          initializers: [floats('sqrt2', [], [Math.SQRT2]), floats('one', [], [1]), floats('half', [], [0.5])],
        }),
        13,
      );
    const { model: m, report } = await loadOnnxWithReport(g(false), cpu);
    assert.equal(report.gelu, 1);
    assert.deepEqual(steps(m), ['Gelu']);
    const xs = [-3, -1, -0.5, 0, 0.7, 2.5];
    const y = m
      .run({ x: Tensor.fromFloats(xs) })
      .y!.toDataSync()
      .toArray();
    // x·Φ(x) from PyTorch's F.gelu.
    const want = [-0.004049694, -0.158655254, -0.154268769, 0, 0.530625443, 2.484475837];
    y.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) <= 1e-6, `gelu(${xs[i]}) = ${v}, expected ${want[i]}`));
    assert.equal((await loadOnnxWithReport(g(true), cpu)).report.gelu, 0);
  });
});
