// ONNX's backend node tests through code generation: each test model is turned into a generated
// module (its small integer inputs — shapes, axes, starts, sizes — made initializers, as real
// exports hold them), loaded with its burnpack weights and run; outputs must equal the reference
// within ONNX's tolerances. A test either passes, is refused at generation with a named reason
// (operators or forms generated code does not express), or is a listed known limitation; a
// numeric mismatch is a failure. Prints per-operator counts.
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Device, Module, Tensor, TensorData } from '../../src/index.js';
import { generateOnnxModule } from '../../src/onnx/index.js';
import { parseModel } from '../../src/onnx/parse/model.js';
import { readTensorProto } from '../../src/onnx/parse/tensor.js';
import { ModelProtoSchema, TensorProtoSchema } from '../../src/onnx/proto/onnx/onnx-ml_pb.js';
import { loadNodeTests } from './node-tests-bundle.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const src = join(root, 'src');
// The same specifiers as this file's imports resolve to (one copy of the library, one Tensor class).
const IMPORTS = { root: pathToFileURL(join(src, 'index.js')).href, nn: pathToFileURL(join(src, 'nn/index.js')).href };
const tmp = mkdtempSync(join(tmpdir(), 'burn-ts-codegen-nodes-'));
// ES modules, as in a package (without it tsx loads them, and the library through them, as CommonJS: a second copy).
writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Known limitations of generated code: indices computed at run time must be non-negative
 * (resolving negative ones on every call would cost every embedding lookup).
 */
const KNOWN = new Set(['test_gather_elements_negative_indices', 'test_scatter_elements_with_negative_indices']);
/** The passes this suite holds (a regression lowers it). */
const MIN_PASS = 595;

type Forward = (...inputs: Tensor<number, never>[]) => Tensor | Record<string, Tensor>;

/** The test's model with its small integer inputs turned into initializers, and the inputs that remain. */
function bake(model: Uint8Array, inputs: readonly Uint8Array[]): { model: Uint8Array; keep: number[] } {
  const proto = fromBinary(ModelProtoSchema, model);
  const g = proto.graph!;
  const keep: number[] = [];
  g.input.forEach((inp, i) => {
    const t = inputs[i] ? fromBinary(TensorProtoSchema, inputs[i]!) : undefined;
    const elem = inp.type?.value.case === 'tensorType' ? inp.type.value.value.elemType : 0;
    const n = t ? t.dims.reduce((a, b) => a * Number(b), 1) : Infinity;
    if (t && (elem === 6 || elem === 7) && t.dims.length <= 1 && n <= 64) {
      t.name = inp.name;
      g.initializer.push(t);
    } else keep.push(i);
  });
  g.input = keep.map((i) => g.input[i]!);
  return { model: toBinary(ModelProtoSchema, proto), keep };
}

describe('ONNX node tests through code generation', () => {
  it(`passes at least ${MIN_PASS}, with no numeric mismatch`, async () => {
    const device = Device.cpu();
    const counts = new Map<string, { pass: number; refused: number }>();
    const failures: string[] = [];
    const checked = join(tmp, 'typecheck');
    mkdirSync(checked);
    const typecheck: string[] = [];
    let pass = 0;
    let refused = 0;
    for (const test of loadNodeTests(process.env.NODE_TEST_FILTER)) {
      let ops: string[];
      let baked: { model: Uint8Array; keep: number[] };
      let inputs: TensorData[];
      try {
        baked = bake(test.model, test.sets[0]!.inputs);
        const ir = parseModel(baked.model);
        ops = [...new Set(ir.graph.nodes.map((n) => n.opType))];
        inputs = baked.keep.map((i) => readTensorProto(fromBinary(TensorProtoSchema, test.sets[0]!.inputs[i]!)).data!);
        if (
          inputs.some((d) => !d) ||
          ir.graph.inputs.some((v) => v.type?.kind !== 'tensor') ||
          ir.graph.outputs.some((v) => v.type?.kind !== 'tensor')
        )
          throw new Error('not tensors');
        const bf16 = (t: (typeof ir.graph.inputs)[number]['type']) => t?.kind === 'tensor' && t.elem === 'bf16';
        if (ir.graph.inputs.some((v) => bf16(v.type)) || ir.graph.outputs.some((v) => bf16(v.type)))
          throw new Error('bf16 data (NumPy stores it as uint16)');
      } catch {
        continue; // sequences, optionals, strings, bf16: the runtime conformance suite covers these
      }
      const op = ops.join('+');
      const c = counts.get(op) ?? { pass: 0, refused: 0 };
      counts.set(op, c);
      const shapes = Object.fromEntries(
        parseModel(baked.model).graph.inputs.map((v, i) => [v.name, [...inputs[i]!.shape]]),
      );
      let g;
      try {
        g = await generateOnnxModule(baked.model, { imports: IMPORTS, inputShapes: shapes, name: test.name });
      } catch {
        refused++;
        c.refused++;
        continue;
      }
      try {
        const file = join(tmp, `${test.name}.ts`);
        writeFileSync(file, g.source);
        writeFileSync(join(tmp, `${test.name}.bpk`), g.weights);
        const mod = (await import(pathToFileURL(file).href)) as Record<
          string,
          { load(p: string, d: Device): Module & { forward: Forward } }
        >;
        const m = mod[g.className]!.load(join(tmp, `${test.name}.bpk`), device);
        const result = m.forward(...inputs.map((d) => Tensor.fromData(d, device) as Tensor<number, never>));
        const outs = result instanceof Tensor ? [result] : Object.values(result);
        test.sets[0]!.outputs.forEach((bytes, i) => {
          const want = readTensorProto(fromBinary(TensorProtoSchema, bytes)).data!;
          const got = outs[i]!.toDataSync();
          assert.deepEqual(got.shape, [...want.shape], `output ${i} shape`);
          assert.equal(got.dtype, want.dtype, `output ${i} dtype`);
          const a = got.toArray();
          const b = want.toArray();
          for (let k = 0; k < b.length; k++) {
            const ok = Number.isNaN(b[k]!)
              ? Number.isNaN(a[k]!)
              : a[k] === b[k] || Math.abs(a[k]! - b[k]!) <= 1e-7 + 1e-3 * Math.abs(b[k]!);
            assert.ok(ok, `output ${i}[${k}] = ${a[k]}, expected ${b[k]}`);
          }
        });
        pass++;
        c.pass++;
        // The same code as users get it (importing 'burn-ts'), for the type check below.
        writeFileSync(
          join(checked, `${test.name}.ts`),
          g.source.replaceAll(IMPORTS.root, 'burn-ts').replaceAll(IMPORTS.nn, 'burn-ts/nn'),
        );
        typecheck.push(`${test.name}.ts`);
      } catch (e) {
        if (!KNOWN.has(test.name)) failures.push(`${test.name} (${op}): ${(e as Error).message.split('\n')[0]}`);
      }
    }
    const lines = [...counts]
      .sort()
      .map(([op, c]) => `  ${op}: ${c.pass} generated and equal${c.refused ? `, ${c.refused} refused` : ''}`);
    console.log(
      `# codegen over the node tests: ${pass} pass, ${refused} refused at generation, ${failures.length} fail\n${lines.join('\n')}`,
    );
    assert.deepEqual(failures, [], `generated code differs from the reference:\n${failures.join('\n')}`);
    // Every generated module that ran type-checks under strict (noUnusedLocals too).
    writeFileSync(join(checked, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(checked, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.base.json'),
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: true,
          allowImportingTsExtensions: true,
          typeRoots: [join(root, 'node_modules/@types')],
          paths: { 'burn-ts': [join(src, 'index.ts')], 'burn-ts/nn': [join(src, 'nn/index.ts')] },
        },
        files: typecheck,
      }),
    );
    try {
      execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(checked, 'tsconfig.json')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      assert.fail(
        `tsc reported errors in generated code:\n${String((e as { stdout?: string }).stdout ?? e)
          .split('\n')
          .slice(0, 30)
          .join('\n')}`,
      );
    }
    assert.ok(pass >= MIN_PASS, `${pass} passes; this suite held ${MIN_PASS}`);
  });
});
