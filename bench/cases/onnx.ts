/**
 * ONNX inference: real models exported by PyTorch (scripts/onnx/gen_bench_models.py,
 * random weights) run through `loadOnnx` on burn-ts's CPU engines beside onnxruntime-node (CPU
 * execution provider, 2 threads, all graph optimizations): ResNet-18 and MobileNetV2
 * (torchvision, 224×224, batch 1 and 16), a 2-layer transformer encoder (d_model 128, 4 heads,
 * d_ff 512, GELU; batch 16 × 64 tokens), and the load time of ResNet-18 (46.8 MB of weights:
 * parse, simplify and make parameters; ORT: `InferenceSession.create`). The models are exported
 * on first use into node_modules/.cache/burn-ts-bench/onnx (python3-torch needed; without it the
 * rows say so). The js engine is left out (a ResNet-18 at batch 16 takes it seconds per run).
 */
import type { BenchCase, OnnxBenchModel, Target } from '../lib/types.js';
import { inputsOf } from './common.js';

const ONLY = ['burn-ts(native)', 'burn-ts(wasm)', 'onnxruntime'];
const vsOrt: Target = { cmp: '>=', value: 1, source: 'ONNX goal', peer: 'onnxruntime' };
/** Whole-model runs take 10 ms to 1 s: a few warm-up runs, then at least 5 timed ones. */
const MEASURE = { warmupRuns: 2, minRuns: 5, budgetSeconds: 4 } as const;

function run(model: OnnxBenchModel, title: string, shape: readonly number[]): BenchCase {
  return {
    id: `onnx/${model}-b${shape[0]}`,
    family: 'onnx',
    title: `ONNX ${title}, batch ${shape[0]}`,
    op: 'onnxRun',
    inputs: inputsOf(shape),
    attrs: { model },
    metric: { kind: 'time' },
    measure: MEASURE,
    target: vsOrt,
    only: ONLY,
    // Thousands of logits summed in different orders by different kernels.
    checkAbsolute: 1e-2,
  };
}

/** The ONNX inference and load-time cases. */
export const onnxCases: readonly BenchCase[] = [
  run('resnet18', 'ResNet-18', [1, 3, 224, 224]),
  run('resnet18', 'ResNet-18', [16, 3, 224, 224]),
  run('mobilenet_v2', 'MobileNetV2', [1, 3, 224, 224]),
  run('mobilenet_v2', 'MobileNetV2', [16, 3, 224, 224]),
  run('encoder', 'transformer encoder (2 layers, d 128)', [16, 64, 128]),
  {
    id: 'onnx/load-resnet18',
    family: 'onnx',
    title: 'ONNX load ResNet-18 (46.8 MB)',
    op: 'onnxLoad',
    inputs: inputsOf([1, 3, 224, 224]),
    attrs: { model: 'resnet18' },
    metric: { kind: 'time' },
    measure: { warmupRuns: 1, minRuns: 5, budgetSeconds: 6 },
    target: { ...vsOrt, source: 'ONNX goal: load ≤ onnxruntime' },
    only: ONLY,
    checkAbsolute: 1e-2,
  },
];
