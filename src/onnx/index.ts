/**
 * `burn-ts/onnx`: run ONNX models on every burn-ts device, and fine-tune them.
 *
 * ```ts
 * import { Device, Tensor } from 'burn-ts';
 * import { loadOnnx } from 'burn-ts/onnx';
 * const model = await loadOnnx('model.onnx', Device.default());
 * console.log(model.inputs);                       // [{ name: 'image', dtype: 'f32', shape: ['batch', 3, 224, 224] }]
 * const { logits } = model.run({ image: Tensor.zeros([1, 3, 224, 224]) });
 * ```
 *
 * The loaded model is a `Module`: its float initializers are parameters, so `toDevice`, autodiff
 * devices, optimizers and `saveFile` (burnpack) work as for any module.
 *
 * Or turn the model into source, Burn's way: `generateOnnxModule('model.onnx')` returns a readable
 * `Module` class (TypeScript) and its burnpack weights; `writeOnnxModule` (and the `burn-ts onnx`
 * command) writes them to a folder.
 */
export { loadOnnx, loadOnnxWithReport, type LoadOnnxOptions, type LoadedOnnx } from './runtime/load.js';
export { OnnxModel, type OnnxValueInfo, type OnnxValue } from './runtime/model.js';
export type { SimplifyReport } from './graph/simplify.js';
export { supportedOps, MAX_OPSET } from './ops/registry.js';
export {
  generateOnnxModule,
  writeOnnxModule,
  type GenerateOnnxOptions,
  type GeneratedOnnxModule,
  type WrittenOnnxModule,
} from './codegen/generate.js';
export type { InputShapes } from './codegen/probe.js';
