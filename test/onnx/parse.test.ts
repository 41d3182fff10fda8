// Parsing ONNX protobuf into the IR: opsets, value types with symbolic dims, initializers of every
// dtype from raw_data and from the typed fields, sparse initializers, subgraph attributes, and bad
// input (truncated or corrupt protobuf, other formats, dims that do not fit) as named BurnErrors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { BurnError } from '../../src/index.js';
import { parseModel } from '../../src/onnx/parse/model.js';
import { SparseTensorProtoSchema, TensorProtoSchema } from '../../src/onnx/proto/onnx/onnx-ml_pb.js';
import { floats, graph, int64s, model, node, rawTensor, T, value } from './builder.js';

const tiny = readFileSync(new URL('../api-contract/fixtures/tiny.onnx', import.meta.url));

/** A model whose only initializer is `t`, passed through Identity. */
function withInitializer(
  t: Parameters<typeof graph>[0]['initializers'] extends (infer U)[] | undefined ? U : never,
): Uint8Array {
  return model(
    graph({
      nodes: [node('Identity', [t.name], ['y'])],
      inputs: [],
      outputs: [value('y', t.dataType)],
      initializers: [t],
    }),
  );
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

describe('ONNX parsing', () => {
  it('reads a PyTorch export: opsets, symbolic dims, initializers, nodes', () => {
    const m = parseModel(tiny);
    assert.equal(m.opsets.get(''), 13);
    assert.deepEqual(
      m.graph.inputs.map((v) => [v.name, v.type]),
      [['image', { kind: 'tensor', elem: 'f32', shape: ['batch', 1, 8, 8] }]],
    );
    assert.deepEqual([...m.graph.initializers.keys()].sort(), ['conv.bias', 'conv.weight', 'fc.bias', 'fc.weight']);
    assert.deepEqual(m.graph.initializers.get('conv.weight')!.shape, [4, 1, 3, 3]);
    assert.equal(m.graph.initializers.get('conv.weight')!.data!.dtype, 'f32');
    assert.deepEqual(
      m.graph.nodes.map((n) => n.opType),
      ['Conv', 'Relu', 'Flatten', 'Gemm'],
    );
    const conv = m.graph.nodes[0]!;
    assert.deepEqual(conv.attributes.get('kernel_shape'), { kind: 'ints', value: [3, 3] });
  });

  const cases: [string, number, ArrayBufferView, number[]][] = [
    ['f32', T.f32, Float32Array.from([1.5, -2]), [1.5, -2]],
    ['f64', T.f64, Float64Array.from([1e300, -0.25]), [1e300, -0.25]],
    ['i64', T.i64, BigInt64Array.from([-5n, 9007199254740991n]), [-5, 9007199254740991]],
    ['i32', T.i32, Int32Array.from([-7, 2147483647]), [-7, 2147483647]],
    ['i16', T.i16, Int16Array.from([-300, 5]), [-300, 5]],
    ['i8', T.i8, Int8Array.from([-128, 127]), [-128, 127]],
    ['u32', T.u32, Uint32Array.from([4294967295, 1]), [4294967295, 1]],
    ['u16', T.u16, Uint16Array.from([65535, 2]), [65535, 2]],
    ['u8', T.u8, Uint8Array.from([255, 0]), [255, 0]],
    ['bool', T.bool, Uint8Array.from([1, 0]), [1, 0]],
    ['f16', T.f16, Uint16Array.from([0x3c00, 0xc000]), [1, -2]],
    ['bf16', T.bf16, Uint16Array.from([0x3f80, 0xc040]), [1, -3]],
  ];
  for (const [dtype, code, raw, expected] of cases) {
    it(`reads a ${dtype} initializer from raw_data`, () => {
      const c = parseModel(withInitializer(rawTensor('w', code, [2], bytesOf(raw)))).graph.initializers.get('w')!;
      assert.equal(c.data!.dtype, dtype);
      assert.deepEqual(Array.from(c.data!.toArray()), expected);
    });
  }

  it('reads initializers from the typed fields (float_data, double_data, int32_data, int64_data, uint64_data)', () => {
    const typed = [
      create(TensorProtoSchema, { name: 'f', dataType: T.f32, dims: [2n], floatData: [0.5, 3] }),
      create(TensorProtoSchema, { name: 'd', dataType: T.f64, dims: [1n], doubleData: [1e-300] }),
      create(TensorProtoSchema, { name: 'i', dataType: T.i8, dims: [2n], int32Data: [-3, 4] }),
      create(TensorProtoSchema, { name: 'b', dataType: T.bool, dims: [2n], int32Data: [0, 1] }),
      create(TensorProtoSchema, { name: 'h', dataType: T.f16, dims: [1n], int32Data: [0x3800] }),
      int64s('l', [2], [-1, 1e15]),
      create(TensorProtoSchema, { name: 'u', dataType: T.u32, dims: [1n], uint64Data: [4000000000n] }),
      create(TensorProtoSchema, { name: 's', dataType: T.f32, dims: [], floatData: [7] }),
    ];
    const g = parseModel(
      model(graph({ nodes: [], inputs: [], outputs: [value('f', T.f32)], initializers: typed })),
    ).graph;
    const v = (n: string) => Array.from(g.initializers.get(n)!.data!.toArray());
    assert.deepEqual(v('f'), [0.5, 3]);
    assert.deepEqual(v('d'), [1e-300]);
    assert.deepEqual(v('i'), [-3, 4]);
    assert.deepEqual(v('b'), [0, 1]);
    assert.deepEqual(v('h'), [0.5]);
    assert.deepEqual(v('l'), [-1, 1e15]);
    assert.deepEqual(v('u'), [4000000000]);
    assert.deepEqual(g.initializers.get('s')!.shape, []);
  });

  it('keeps string tensors as strings and marks types burn-ts cannot hold', () => {
    const s = create(TensorProtoSchema, {
      name: 's',
      dataType: T.string,
      dims: [2n],
      stringData: [new TextEncoder().encode('héllo'), new Uint8Array()],
    });
    const u = create(TensorProtoSchema, { name: 'u', dataType: T.u64, dims: [1n], uint64Data: [1n] });
    const g = parseModel(
      model(graph({ nodes: [], inputs: [], outputs: [value('s', T.string)], initializers: [s, u] })),
    ).graph;
    assert.deepEqual(g.initializers.get('s')!.strings, ['héllo', '']);
    assert.equal(g.initializers.get('u')!.data, undefined);
    assert.equal(g.initializers.get('u')!.elem, 'u64');
  });

  it('densifies sparse initializers (linear and per-dim indices)', () => {
    const sparse = create(SparseTensorProtoSchema, {
      dims: [2n, 3n],
      values: floats('sp', [2], [5, 6]),
      indices: int64s('', [2, 2], [0, 1, 1, 2]),
    });
    const g = graph({ nodes: [], inputs: [], outputs: [value('sp', T.f32)] });
    g.sparseInitializer.push(sparse);
    const c = parseModel(model(g)).graph.initializers.get('sp')!;
    assert.deepEqual(c.shape, [2, 3]);
    assert.deepEqual(Array.from(c.data!.toArray()), [0, 5, 0, 0, 0, 6]);
  });

  it('reads subgraph attributes (If branches) recursively, with outer-scope references', () => {
    const then = graph({ name: 'then', nodes: [node('Neg', ['x'], ['t'])], inputs: [], outputs: [value('t', T.f32)] });
    const els = graph({ name: 'else', nodes: [node('Abs', ['x'], ['e'])], inputs: [], outputs: [value('e', T.f32)] });
    const m = parseModel(
      model(
        graph({
          nodes: [node('If', ['c'], ['y'], { then_branch: then, else_branch: els })],
          inputs: [value('c', T.bool, []), value('x', T.f32, [2])],
          outputs: [value('y', T.f32)],
        }),
      ),
    );
    const a = m.graph.nodes[0]!.attributes.get('then_branch')!;
    assert.equal(a.kind, 'graph');
    assert.deepEqual(a.kind === 'graph' && a.value.nodes.map((n) => [n.opType, n.inputs]), [['Neg', ['x']]]);
  });

  it('names nodes that have no name', () => {
    const m = parseModel(
      model(
        graph({ nodes: [node('Relu', ['x'], ['y'])], inputs: [value('x', T.f32, [1])], outputs: [value('y', T.f32)] }),
      ),
    );
    assert.equal(m.graph.nodes[0]!.name, 'Relu_0');
  });

  it('refuses truncated protobuf with a BurnError', () => {
    for (const n of [10, 100, tiny.length - 3]) {
      assert.throws(
        () => parseModel(tiny.subarray(0, n)),
        (e: Error) =>
          e instanceof BurnError && /loadOnnx: .*(truncated or corrupt|no graph|raw_data|dims)/.test(e.message),
        `truncated at ${n}`,
      );
    }
  });

  it('refuses other formats (wrong magic) and empty input by name', () => {
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array(), /empty/],
      [new TextEncoder().encode('PK\x03\x04 zip bytes'), /zip archive/],
      [Uint8Array.from([0x80, 0x02, 0x7d, 0x71]), /pickle/],
      [new TextEncoder().encode('{"not": "onnx"}'), /JSON/],
      [new TextEncoder().encode('BURN burnpack'), /burnpack/],
      [Uint8Array.from([0x12, 0x03, 0x61, 0x62, 0x63]), /no graph/],
      [Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f]), /truncated or corrupt/],
    ];
    for (const [bytes, re] of cases)
      assert.throws(
        () => parseModel(bytes),
        (e: Error) => e instanceof BurnError && re.test(e.message),
        re.source,
      );
  });

  it('refuses dims that do not fit the data, negative dims and huge dims', () => {
    const bad: [ReturnType<typeof rawTensor>, RegExp][] = [
      [
        rawTensor('w', T.f32, [3], new Uint8Array(8)),
        /tensor 'w' has 8 bytes of raw_data for dims \[3\] of FLOAT; expected 12/,
      ],
      [
        create(TensorProtoSchema, { name: 'w', dataType: T.f32, dims: [4n], floatData: [1, 2] }),
        /tensor 'w' holds 2 values for dims \[4\]; expected 4/,
      ],
      [
        create(TensorProtoSchema, { name: 'w', dataType: T.f32, dims: [-1n], floatData: [] }),
        /tensor 'w' has dims \[-1\]/,
      ],
      [
        create(TensorProtoSchema, { name: 'w', dataType: T.f32, dims: [1n << 40n], floatData: [] }),
        /tensor 'w' has dims/,
      ],
      [
        create(TensorProtoSchema, { name: 'w', dataType: T.f32, dims: [1n << 20n, 1n << 20n], floatData: [] }),
        /elements/,
      ],
      [create(TensorProtoSchema, { name: 'w', dataType: 99, dims: [1n] }), /data type code 99/],
    ];
    for (const [t, re] of bad)
      assert.throws(
        () => parseModel(withInitializer(t)),
        (e: Error) => e instanceof BurnError && re.test(e.message),
        re.source,
      );
  });

  it('never lets anything but a BurnError escape on corrupted bytes (fuzz: byte flips and truncations)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(tiny.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.nat(tiny.length),
        (flips, cut) => {
          const b = Uint8Array.from(tiny.subarray(0, Math.max(1, cut)));
          for (const [i, v] of flips) if (i < b.length) b[i] = v;
          try {
            parseModel(b);
          } catch (e) {
            assert.ok(e instanceof BurnError, `${(e as Error).name}: ${(e as Error).message}`);
          }
        },
      ),
      { numRuns: 300, seed: 20 },
    );
  });

  it('round-trips a model built with the generated code', () => {
    const bytes = toBinary(TensorProtoSchema, floats('x', [1], [1]));
    assert.ok(bytes.length > 0);
  });
});

describe('ONNX parsing: weights read from a file', () => {
  it('keeps large weights in the file buffer (aligned in place) with the right values, and never changes bytes it was given', async () => {
    const { fromBinary } = await import('@bufbuild/protobuf');
    const { ModelProtoSchema } = await import('../../src/onnx/proto/onnx/onnx-ml_pb.js');
    const { Device, Tensor } = await import('../../src/index.js');
    const { loadOnnx } = await import('../../src/onnx/index.js');
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const n = 20_000; // 80 KB: past the in-place threshold
    const w = Array.from({ length: n }, (_, i) => Math.sin(i) * 100);
    // A weight name whose length leaves the raw data misaligned in the file.
    let bytes: Uint8Array | undefined;
    for (let k = 1; k < 8 && !bytes; k++) {
      const b = model(
        graph({
          nodes: [node('Add', ['x', 'w'.repeat(k)], ['y'])],
          inputs: [value('x', T.f32, [n])],
          outputs: [value('y', T.f32, [n])],
          initializers: [floats('w'.repeat(k), [n], w)],
        }),
      );
      const raw = fromBinary(ModelProtoSchema, b).graph!.initializer[0]!.rawData;
      if (raw.byteOffset % 4 !== 0) bytes = b;
    }
    assert.ok(bytes, 'a misaligned layout');
    const dir = mkdtempSync(join(tmpdir(), 'burn-ts-align-'));
    try {
      const file = join(dir, 'm.onnx');
      writeFileSync(file, bytes);
      const x = Tensor.fromFloats(new Float32Array(n).fill(1));
      const want = Float32Array.from(w, (v) => Math.fround(v) + 1);
      assert.deepEqual(
        Array.from((await loadOnnx(file, Device.cpu())).run({ x }).y!.toDataSync().toArray()),
        Array.from(want),
      );
      const copy = bytes.slice();
      assert.deepEqual(
        Array.from((await loadOnnx(bytes, Device.cpu())).run({ x }).y!.toDataSync().toArray()),
        Array.from(want),
      );
      assert.deepEqual(bytes, copy, 'the bytes given to loadOnnx are unchanged');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
