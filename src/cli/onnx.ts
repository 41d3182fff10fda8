import { writeOnnxModule, type GenerateOnnxOptions } from '../onnx/codegen/generate.js';
import type { CliIo } from './io.js';

/** The usage lines of `burn-ts onnx`. */
export const ONNX_USAGE = `  burn-ts onnx <model.onnx> [--out <dir>] [--name <file name>] [--class <ClassName>]
                          [--input <name>=<d0>,<d1>,...]...
      Generates <dir>/<name>.ts (a burn-ts Module class: nn layers, a typed forward, static load)
      and <dir>/<name>.bpk (its weights, burnpack) from an ONNX model. --out defaults to the
      current folder, --name to the model's file name; --input fixes the shape of an input whose
      dims the model leaves unknown.`;

/** Parses the arguments of `burn-ts onnx` and writes the generated module; returns the exit code. */
export async function onnxCommand(args: readonly string[], io: CliIo): Promise<number> {
  let model: string | undefined;
  let out = '.';
  const options: { name?: string; className?: string; inputShapes: Record<string, number[]> } = { inputShapes: {} };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (): string | undefined => {
      const eq = a.indexOf('=');
      if (a.startsWith('--') && eq > 0) return a.slice(eq + 1);
      return args[++i];
    };
    const flag = a.startsWith('--') ? a.split('=')[0] : undefined;
    if (flag === '--help' || a === '-h') {
      io.out(ONNX_USAGE);
      return 0;
    }
    if (flag === '--out' || flag === '--name' || flag === '--class' || flag === '--input') {
      const v = value();
      if (v === undefined || v === '') {
        io.err(`burn-ts onnx: ${flag} needs a value\n\n${ONNX_USAGE}`);
        return 2;
      }
      if (flag === '--out') out = v;
      else if (flag === '--name') options.name = v;
      else if (flag === '--class') options.className = v;
      else {
        const m = /^([^=]+)=(\d+(?:,\d+)*)?$/.exec(v);
        if (!m) {
          io.err(`burn-ts onnx: --input ${v}; expected <name>=<d0>,<d1>,... (e.g. image=1,3,224,224)`);
          return 2;
        }
        options.inputShapes[m[1]!] = m[2] ? m[2].split(',').map(Number) : [];
      }
    } else if (a.startsWith('-')) {
      io.err(`burn-ts onnx: unknown option '${a}'\n\n${ONNX_USAGE}`);
      return 2;
    } else if (model === undefined) model = a;
    else {
      io.err(`burn-ts onnx: one model at a time (got '${model}' and '${a}')`);
      return 2;
    }
  }
  if (model === undefined) {
    io.err(`burn-ts onnx: which model?\n\n${ONNX_USAGE}`);
    return 2;
  }
  const written = await writeOnnxModule(model, out, options as GenerateOnnxOptions);
  io.out(
    `${written.sourcePath}: class ${written.className} (${written.layers} nn layers, ${written.tensors} other tensors)`,
  );
  io.out(
    `${written.weightsPath}: ${(written.weights.length / 1e6).toFixed(1)} MB of weights; load with ${written.className}.load(path, device)`,
  );
  return 0;
}
