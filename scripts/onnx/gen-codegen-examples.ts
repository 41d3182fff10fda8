// Regenerates test/onnx/generated/<model>.ts: the code `burn-ts onnx` writes for each real-model
// fixture (test/fixtures/onnx/models), importing burn-ts from src/ so the main type check covers
// it and test/onnx/codegen.test.ts runs it. The test fails when these files differ from what the
// generator writes now; rerun this after changing the generator:
//   node --import tsx scripts/onnx/gen-codegen-examples.ts
import { readdirSync, writeFileSync } from 'node:fs';
import { generateOnnxModule } from '../../src/onnx/index.js';

const models = new URL('../../test/fixtures/onnx/models/', import.meta.url);
const out = new URL('../../test/onnx/generated/', import.meta.url);
/** The imports of the committed examples: the sources, not the package (users get 'burn-ts'). */
export const EXAMPLE_IMPORTS = { root: '../../../src/index.js', nn: '../../../src/nn/index.js' } as const;

for (const file of readdirSync(models)
  .filter((f) => f.endsWith('.onnx'))
  .sort()) {
  const g = await generateOnnxModule(new URL(file, models), { imports: EXAMPLE_IMPORTS });
  writeFileSync(new URL(`${g.name}.ts`, out), g.source);
  console.log(`${g.name}.ts: ${g.className}, ${g.layers} layers, ${g.tensors} other tensors`);
}
