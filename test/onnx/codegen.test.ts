// Code generation (Burn's way): the real-model fixtures (test/fixtures/onnx/models, PyTorch
// exports) become TypeScript modules of nn layers. The committed examples in test/onnx/generated/
// must be what the generator writes now (scripts/onnx/gen-codegen-examples.ts regenerates them);
// the main type check covers them (strict, noUnusedLocals), and here they run with their burnpack
// weights on every CPU engine: outputs equal PyTorch's and the runtime's.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BurnError, Device, Module, Tensor, TensorData, type DType } from '../../src/index.js';
import { generateOnnxModule, loadOnnx } from '../../src/onnx/index.js';
import { webgpu } from '../helpers/devices.js';
import { graph, model, node, T, value } from './builder.js';

const fixtures = new URL('../fixtures/onnx/models/', import.meta.url);
const generated = new URL('./generated/', import.meta.url);
const IMPORTS = { root: '../../../src/index.js', nn: '../../../src/nn/index.js' };
const DTYPES: Record<string, DType> = { float32: 'f32', int64: 'i64', int32: 'i32' };
const tmp = mkdtempSync(join(tmpdir(), 'burn-ts-codegen-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

interface Fixture {
  inputs: Record<string, { dtype: string; shape: number[]; data: number[] }>;
  outputs: Record<string, { shape: number[]; data: number[] }>;
}
type Forward = (...inputs: Tensor<number, never>[]) => Tensor | Record<string, Tensor>;
interface GeneratedClass {
  load(path: string, device: Device): Module & { forward: Forward };
}

const names = readdirSync(fixtures)
  .filter((f) => f.endsWith('.onnx'))
  .map((f) => f.slice(0, -5))
  .sort();

function closeTo(what: string, got: ArrayLike<number>, want: ArrayLike<number>, tol = 2e-4): void {
  assert.equal(got.length, want.length, `${what}: ${got.length} values, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= tol * Math.max(1, Math.abs(want[i]!))))
      assert.fail(`${what}[${i}] = ${got[i]}, expected ${want[i]}`);
  }
}

/** The generated class of a fixture with its weights written to the temp folder. */
async function generatedModel(name: string): Promise<{ cls: GeneratedClass; weights: string }> {
  const g = await generateOnnxModule(new URL(`${name}.onnx`, fixtures), { imports: IMPORTS });
  const weights = join(tmp, `${name}.bpk`);
  writeFileSync(weights, g.weights);
  const mod = (await import(new URL(`${name}.ts`, generated).href)) as Record<string, GeneratedClass>;
  return { cls: mod[g.className]!, weights };
}

function outputsOf(result: Tensor | Record<string, Tensor>, names: readonly string[]): Record<string, Tensor> {
  if (result instanceof Tensor) return { [names[0]!]: result };
  return result;
}

describe('ONNX code generation', () => {
  it('has an example per fixture', () => {
    assert.deepEqual(
      readdirSync(generated)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => f.slice(0, -3))
        .sort(),
      names,
    );
  });

  for (const name of names) {
    it(`${name}: the committed example is what the generator writes`, async () => {
      const g = await generateOnnxModule(new URL(`${name}.onnx`, fixtures), { imports: IMPORTS });
      assert.equal(
        g.source,
        readFileSync(new URL(`${name}.ts`, generated), 'utf8'),
        `test/onnx/generated/${name}.ts is stale: run node --import tsx scripts/onnx/gen-codegen-examples.ts`,
      );
    });
  }

  for (const engine of ['js', 'wasm', 'native'] as const) {
    it(`generated models equal PyTorch and the runtime (${engine} engine)`, async (t) => {
      let device: Device;
      try {
        device = Device.cpu({ engine });
      } catch (e) {
        t.skip(`the ${engine} engine is not available: ${(e as Error).message}`);
        return;
      }
      for (const name of names) {
        const fx = JSON.parse(readFileSync(new URL(`${name}.json`, fixtures), 'utf8')) as Fixture;
        const { cls, weights } = await generatedModel(name);
        const m = cls.load(weights, device);
        const inputs = Object.values(fx.inputs).map(
          (v) => Tensor.fromData(new TensorData(v.data, v.shape, DTYPES[v.dtype]!), device) as Tensor<number, never>,
        );
        const outNames = Object.keys(fx.outputs);
        const keys = outNames.map((k) => k.replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase()));
        const got = outputsOf(m.forward(...inputs), keys);
        const runtime = (await loadOnnx(new URL(`${name}.onnx`, fixtures), device)).run(
          Object.fromEntries(Object.keys(fx.inputs).map((k, i) => [k, inputs[i]!])),
        );
        outNames.forEach((k, i) => {
          const out = got[keys[i]!]!;
          assert.deepEqual(out.dims(), fx.outputs[k]!.shape, `${name} ${k} shape`);
          const values = out.toDataSync().toArray();
          closeTo(`${engine} ${name} ${k} vs PyTorch`, values, fx.outputs[k]!.data);
          closeTo(`${engine} ${name} ${k} vs runtime`, values, runtime[k]!.toDataSync().toArray(), 1e-5);
        });
      }
    });
  }

  it('generated models run on WebGPU with the same outputs (SwiftShader in CI)', {
    skip: webgpu.reason ? `no WebGPU device: ${webgpu.reason}` : false,
  }, async () => {
    const gpu = webgpu.device!;
    for (const name of ['resnet_opset17', 'unet', 'transformer_opset17']) {
      const fx = JSON.parse(readFileSync(new URL(`${name}.json`, fixtures), 'utf8')) as Fixture;
      const { cls, weights } = await generatedModel(name);
      const m = cls.load(weights, gpu);
      const input = Object.values(fx.inputs)[0]!;
      // WGSL has no 64-bit integers: token ids go in as i32.
      const out = m.forward(
        Tensor.fromData(
          new TensorData(input.data, input.shape, input.dtype === 'int64' ? 'i32' : 'f32'),
          gpu,
        ) as Tensor<number, never>,
      ) as Tensor;
      closeTo(`webgpu ${name}`, (await out.toData()).toArray(), Object.values(fx.outputs)[0]!.data);
    }
  });

  it('a generated model takes other sizes of its symbolic dims', async () => {
    const { cls, weights } = await generatedModel('transformer_opset17');
    const m = cls.load(weights, Device.cpu());
    const tokens = Tensor.fromData(new TensorData([1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3], 'i64')) as Tensor<number, never>;
    const runtime = (await loadOnnx(new URL('transformer_opset17.onnx', fixtures), Device.cpu())).run({ tokens });
    const out = m.forward(tokens) as Tensor;
    assert.deepEqual(out.dims(), [3, 5]);
    closeTo('transformer [3, 3]', out.toDataSync().toArray(), runtime.logits!.toDataSync().toArray(), 1e-5);
  });

  it('lists every node it cannot express in one error', async () => {
    const bytes = model(
      graph({
        nodes: [
          node('NonZero', ['x'], ['nz'], {}, 'find'),
          node('Cast', ['nz'], ['f'], { to: 1 }),
          node('Det', ['m'], ['d'], {}, 'det'),
        ],
        inputs: [value('x', T.f32, [4]), value('m', T.f32, [2, 2])],
        outputs: [value('f', T.f32), value('d', T.f32)],
      }),
    );
    await assert.rejects(generateOnnxModule(bytes), (e: Error) => {
      assert.ok(e instanceof BurnError, String(e));
      assert.match(e.message, /cannot generate code for 2 nodes/);
      assert.match(e.message, /NonZero \(node 'find'\): no code generation for this operator/);
      assert.match(e.message, /Det \(node 'det'\): no code generation for this operator/);
      return true;
    });
  });
});
