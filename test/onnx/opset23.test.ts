// The opset-23 operators real models use and onnx 1.12 cannot build or check: Attention (4-d and
// 3-d, grouped-query, masks, causal with and without a cache, soft cap, qk output),
// RMSNormalization and RotaryEmbedding. One-node models are built here with builder.ts; the
// expected values come from PyTorch (test/fixtures/onnx/opset23-cases.json, made by
// scripts/onnx/gen_opset23_cases.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BurnError, Device, Tensor, TensorData, type DType } from '../../src/index.js';
import { generateOnnxModule, loadOnnx, supportedOps } from '../../src/onnx/index.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { floats, graph, model, node, T, value } from './builder.js';

interface Encoded {
  dtype: string;
  shape: number[];
  data: (number | string)[];
}
interface Case {
  name: string;
  op: string;
  attrs: Record<string, number | { float: number }>;
  inputs: [string, Encoded | null][];
  outputs: [string, Encoded | null][];
}

const cases = JSON.parse(
  readFileSync(new URL('../fixtures/onnx/opset23-cases.json', import.meta.url), 'utf8'),
) as Case[];
const DTYPES: Record<string, DType> = { float32: 'f32', int64: 'i64', bool: 'bool' };
const CODES: Record<string, number> = { float32: T.f32, int64: T.i64, bool: T.bool };
const num = (v: number | string): number => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));

function build(c: Case): Uint8Array {
  const ins = c.inputs.map(([n, e]) => (e ? n : ''));
  const outs = c.outputs.map(([n, e]) => (e ? n : ''));
  return model(
    graph({
      nodes: [node(c.op, ins, outs, c.attrs, c.name)],
      inputs: c.inputs.filter(([, e]) => e).map(([n, e]) => value(n, CODES[e!.dtype]!, e!.shape)),
      outputs: c.outputs.filter(([, e]) => e).map(([n, e]) => value(n, T.f32, e!.shape)),
    }),
    23,
  );
}

describe('opset-23 operators against PyTorch', () => {
  it('are registered', () => {
    const ops = new Set(supportedOps());
    for (const op of [
      'Attention',
      'RMSNormalization',
      'RotaryEmbedding',
      'Upsample',
      'LpNormalization',
      'LRN',
      'MeanVarianceNormalization',
      'SoftmaxCrossEntropyLoss',
      'NegativeLogLikelihoodLoss',
      'Einsum',
      'GlobalMaxPool',
      'CastLike',
    ])
      assert.ok(ops.has(`:${op}`), op);
  });

  for (const c of cases) {
    it(`${c.name} (${c.op})`, async () => {
      const m = await loadOnnx(build(c), Device.cpu());
      const feeds = Object.fromEntries(
        c.inputs
          .filter(([, e]) => e)
          .map(([n, e]) => [n, Tensor.fromData(new TensorData(e!.data.map(num), e!.shape, DTYPES[e!.dtype]!))]),
      );
      const outs = m.run(feeds);
      for (const [name, want] of c.outputs) {
        if (!want) continue;
        const got = outs[name]!;
        assert.deepEqual(got.dims(), want.shape, `${name} shape`);
        const values = got.toDataSync().toArray();
        want.data.forEach((w, i) => {
          const e = num(w);
          const ok = Number.isFinite(e) ? Math.abs(values[i]! - e) <= 1e-4 * Math.max(1, Math.abs(e)) : values[i] === e;
          assert.ok(ok, `${name}[${i}] = ${values[i]}, PyTorch ${e}`);
        });
      }
    });
  }

  it('Attention refuses opsets before 23 and 3-d inputs without head counts, naming the node', async () => {
    const q = value('q', T.f32, [1, 2, 8]);
    const older = model(
      graph({
        nodes: [node('Attention', ['q', 'q', 'q'], ['y'], {}, 'attn')],
        inputs: [q],
        outputs: [value('y', T.f32)],
      }),
      22,
    );
    await assert.rejects(
      loadOnnx(older, Device.cpu()),
      (e: Error) =>
        e instanceof BurnError &&
        /Attention \(node 'attn', opset 22\): opset 22 is older than the supported 23/.test(e.message),
    );
    const m = await loadOnnx(
      model(
        graph({
          nodes: [node('Attention', ['q', 'q', 'q'], ['y'], {}, 'attn')],
          inputs: [q],
          outputs: [value('y', T.f32)],
        }),
        23,
      ),
      Device.cpu(),
    );
    assert.throws(
      () => m.run({ q: Tensor.zeros([1, 2, 8]) }),
      (e: Error) =>
        e instanceof BurnError &&
        /node 'attn' \(Attention\) has 3-d inputs without the q_num_heads and kv_num_heads/.test(e.message),
    );
  });

  it('generated code (burn-ts onnx) equals PyTorch too, and refuses what it cannot express by name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burn-ts-opset23-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const src = new URL('../../src/', import.meta.url);
    const imports = { root: new URL('index.js', src).href, nn: new URL('nn/index.js', src).href };
    const generated: string[] = [];
    try {
      for (const c of cases) {
        let g;
        try {
          g = await generateOnnxModule(build(c), { imports, name: c.name });
        } catch (e) {
          // Caches and qk outputs stay with the runtime; the reason names the node.
          assert.match(
            (e as Error).message,
            new RegExp(`cannot generate code for 1 node .*\\n  ${c.op} \\(node '${c.name}'\\) `),
            c.name,
          );
          continue;
        }
        generated.push(c.name);
        writeFileSync(join(dir, `${c.name}.ts`), g.source);
        mkdirSync(join(dir, 'typecheck'), { recursive: true });
        writeFileSync(
          join(dir, 'typecheck', `${c.name}.ts`),
          g.source.replaceAll(imports.root, 'burn-ts').replaceAll(imports.nn, 'burn-ts/nn'),
        );
        writeFileSync(join(dir, `${c.name}.bpk`), g.weights);
        const mod = (await import(pathToFileURL(join(dir, `${c.name}.ts`)).href)) as Record<
          string,
          { load(p: string, d: Device): { forward(...x: Tensor<number, never>[]): Tensor | Record<string, Tensor> } }
        >;
        const m = mod[g.className]!.load(join(dir, `${c.name}.bpk`), Device.cpu());
        const ins = c.inputs
          .filter(([, e]) => e)
          .map(
            ([, e]) =>
              Tensor.fromData(new TensorData(e!.data.map(num), e!.shape, DTYPES[e!.dtype]!)) as Tensor<number, never>,
          );
        const out = m.forward(...ins);
        const y = out instanceof Tensor ? out : Object.values(out)[0]!;
        const want = c.outputs[0]![1]!;
        assert.deepEqual(y.dims(), want.shape, `${c.name} shape`);
        const values = y.toDataSync().toArray();
        want.data.forEach((w, i) =>
          assert.ok(
            Math.abs(values[i]! - num(w)) <= 1e-4 * Math.max(1, Math.abs(num(w))),
            `${c.name}[${i}] = ${values[i]}, PyTorch ${num(w)}`,
          ),
        );
      }
      // What users get (importing 'burn-ts') type-checks under strict.
      const root = fileURLToPath(new URL('../../', import.meta.url));
      const checked = join(dir, 'typecheck');
      writeFileSync(join(checked, 'package.json'), '{ "type": "module" }\n');
      writeFileSync(
        join(checked, 'tsconfig.json'),
        JSON.stringify({
          extends: join(root, 'tsconfig.base.json'),
          compilerOptions: {
            noEmit: true,
            noUnusedLocals: true,
            typeRoots: [join(root, 'node_modules/@types')],
            paths: { 'burn-ts': [join(root, 'src/index.ts')], 'burn-ts/nn': [join(root, 'src/nn/index.ts')] },
          },
          files: generated.map((n) => `${n}.ts`),
        }),
      );
      try {
        execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(checked, 'tsconfig.json')], {
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (e) {
        assert.fail(`tsc reported errors in generated code:\n${String((e as { stdout?: string }).stdout ?? e)}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    for (const name of [
      'rms_norm_last_axis',
      'rotary_4d_position_ids',
      'rotary_3d_interleaved',
      'rotary_partial_dim',
      'attention_4d',
      'attention_scale_softcap',
      'attention_3d_gqa',
      'attention_bool_mask',
      'attention_float_mask_padded',
      'attention_causal_square',
    ]) {
      assert.ok(generated.includes(name), `${name} generates`);
    }
  });

  it('RMSNormalization trains its scale as a parameter', async () => {
    const bytes = model(
      graph({
        nodes: [node('RMSNormalization', ['x', 'norm.weight'], ['y'])],
        inputs: [value('x', T.f32, [2, 4])],
        outputs: [value('y', T.f32, [2, 4])],
        initializers: [floats('norm.weight', [4], [1, 2, 3, 4])],
      }),
      23,
    );
    const m = await loadOnnx(bytes, Device.cpu());
    assert.deepEqual([...m.params().keys()], ['norm.weight']);
    const y = m.run({
      x: Tensor.fromFloats([
        [1, 1, 1, 1],
        [2, 0, 0, 0],
      ]),
    }).y!;
    const r = 1 / Math.sqrt(1 + 1e-5); // both rows have a mean square of 1
    const want = [r, 2 * r, 3 * r, 4 * r, 2 * r, 0, 0, 0];
    y.toDataSync()
      .toArray()
      .forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-6, `${v} vs ${want[i]}`));
  });
});
