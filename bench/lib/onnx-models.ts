/**
 * The models of the ONNX rows (bench/cases/onnx.ts): exported once by
 * scripts/onnx/gen_bench_models.py with Debian's python3-torch into a cache folder (they are
 * large, so not in git), then reused by later runs.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NotAvailable, type OnnxBenchModel } from './types.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where the exported models live (`BENCH_ONNX_DIR` overrides). */
export const ONNX_MODEL_DIR = process.env.BENCH_ONNX_DIR ?? `${root}node_modules/.cache/burn-ts-bench/onnx`;
const MODELS: readonly OnnxBenchModel[] = ['resnet18', 'mobilenet_v2', 'encoder'];

let exporting: Promise<void> | undefined;

/** The path of a bench model, exporting the set first when one is missing; NotAvailable without python3-torch. */
export async function onnxModelPath(model: OnnxBenchModel): Promise<string> {
  const path = `${ONNX_MODEL_DIR}/${model}.onnx`;
  if (!MODELS.every((m) => existsSync(`${ONNX_MODEL_DIR}/${m}.onnx`))) {
    exporting ??= new Promise<void>((resolve, reject) => {
      const python = process.env.BENCH_PYTHON ?? '/usr/bin/python3';
      process.stderr.write(`exporting the ONNX bench models with ${python} into ${ONNX_MODEL_DIR} (once)…\n`);
      execFile(
        python,
        [`${root}scripts/onnx/gen_bench_models.py`, ONNX_MODEL_DIR],
        { timeout: 600_000 },
        (err, _out, stderr) => {
          if (err)
            reject(
              new NotAvailable(
                `the ONNX bench models need python3-torch and torchvision to be exported (${python} scripts/onnx/gen_bench_models.py failed: ${(stderr || err.message).trim().split('\n').pop()})`,
              ),
            );
          else resolve();
        },
      );
    });
    await exporting;
  }
  return path;
}
