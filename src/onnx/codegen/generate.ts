import { Device } from '../../device/device.js';
import { requireNodeBuiltin } from '../../platform/node-builtin.js';
import { BurnError } from '../../core/errors.js';
import { parameterCandidates, simplify } from '../graph/simplify.js';
import { prepareModel } from '../runtime/load.js';
import { classNameOf, emitModule } from './emit.js';
import { probeModel, type InputShapes } from './probe.js';
import { weightsModule } from './weights.js';

const OP = 'generateOnnxModule';

/** Options of {@link generateOnnxModule}. */
export interface GenerateOnnxOptions {
  /** Base name of the generated files and the default class name (default: the model file's name, `resnet18`). */
  readonly name?: string;
  /** Name of the generated class (default: the name in PascalCase, `Resnet18`). */
  readonly className?: string;
  /** Shapes of inputs whose dims the model leaves unknown (generation runs the model to learn every value's rank and dtype). */
  readonly inputShapes?: InputShapes;
  /** The folder of external-data files when the model is given as bytes. */
  readonly baseDir?: string;
  /** Module specifiers the generated code imports from (default `'burn-ts'` and `'burn-ts/nn'`). */
  readonly imports?: { readonly root?: string; readonly nn?: string };
}

/** A generated module: TypeScript source and the burnpack weights it loads. */
export interface GeneratedOnnxModule {
  /** Base name of the files (`<name>.ts`, `<name>.bpk`). */
  readonly name: string;
  /** The generated class. */
  readonly className: string;
  /** The TypeScript source of `<name>.ts`. */
  readonly source: string;
  /** The weights, burnpack bytes of `<name>.bpk`. */
  readonly weights: Uint8Array;
  /** Fields of the class: `nn` layers, and other tensors (parameters and constants). */
  readonly layers: number;
  readonly tensors: number;
}

/** The file name of a path or URL without folders and `.onnx`. */
function baseName(source: string | URL): string {
  const s = typeof source === 'string' ? source : source.pathname;
  const file = s.split(/[\\/]/).pop() ?? 'model.onnx';
  return file.replace(/\.onnx$/i, '') || 'model';
}

/**
 * Turns an ONNX model into burn-ts source, Burn's way (`burn-import`): a readable `Module` class
 * whose fields are `burn-ts/nn` layers where one fits (Conv, Linear, norms, Embedding, pools,
 * LSTM/GRU, resizes) and other tensors, a typed `forward` of tensor-API calls in which shape
 * computations are plain numbers (`x.reshape([batch, seq * 4, 8])`), and `static load(path,
 * device)` reading the burnpack weights returned beside it. The model is parsed, simplified (as
 * `loadOnnx` does) and run twice on generated inputs to learn each value's rank, dtype and which
 * dims are static or follow a symbolic input dim. Nodes the generator cannot express are listed
 * in one BurnError (such models run with `loadOnnx`).
 *
 * ```ts
 * const { source, weights } = await generateOnnxModule('resnet18.onnx');
 * ```
 */
export async function generateOnnxModule(
  source: string | URL | Uint8Array | ArrayBuffer,
  options: GenerateOnnxOptions = {},
): Promise<GeneratedOnnxModule> {
  const name = options.name ?? (typeof source === 'string' || source instanceof URL ? baseName(source) : 'model');
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name))
    throw new BurnError(OP, `name '${name}'; expected letters, digits, '_', '-' or '.' (it names the files)`);
  const model = await prepareModel(source, options.baseDir ? { baseDir: options.baseDir } : {});
  const params = parameterCandidates(model.graph);
  simplify(model, params, true);
  const probe = probeModel(model, options.inputShapes);
  const className = options.className ?? classNameOf(name);
  if (!/^[A-Z_$][A-Za-z0-9_$]*$/.test(className))
    throw new BurnError(OP, `className '${className}'; expected a TypeScript class name`);
  const emission = emitModule(model, probe, params, {
    className,
    sourceName: `${name}.onnx`,
    weightsName: `${name}.bpk`,
    ...(options.imports ? { imports: options.imports } : {}),
  });
  const weights = weightsModule(emission.fields, Device.cpu()).toBytes();
  return {
    name,
    className,
    source: emission.source,
    weights,
    layers: emission.fields.filter((f) => 'layer' in f).length,
    tensors: emission.fields.filter((f) => 'param' in f).length,
  };
}

/** Paths written by {@link writeOnnxModule}. */
export interface WrittenOnnxModule extends GeneratedOnnxModule {
  readonly sourcePath: string;
  readonly weightsPath: string;
}

/**
 * {@link generateOnnxModule} then writes `<outDir>/<name>.ts` and `<outDir>/<name>.bpk` (each to a
 * temporary file renamed into place, so a failed write leaves the previous files intact).
 */
export async function writeOnnxModule(
  source: string | URL | Uint8Array | ArrayBuffer,
  outDir: string,
  options: GenerateOnnxOptions = {},
): Promise<WrittenOnnxModule> {
  const generated = await generateOnnxModule(source, options);
  const fs = requireNodeBuiltin<typeof import('node:fs/promises')>(
    'node:fs/promises',
    OP,
    'writing the generated module to files',
  );
  const path = requireNodeBuiltin<typeof import('node:path')>('node:path', OP, 'writing the generated module to files');
  await fs.mkdir(outDir, { recursive: true });
  const write = async (file: string, data: string | Uint8Array) => {
    const tmp = `${file}.tmp-${process.pid}`;
    try {
      await fs.writeFile(tmp, data);
      await fs.rename(tmp, file);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw new BurnError(OP, `cannot write '${file}': ${(e as Error).message}`);
    }
  };
  const sourcePath = path.join(outDir, `${generated.name}.ts`);
  const weightsPath = path.join(outDir, `${generated.name}.bpk`);
  await write(weightsPath, generated.weights);
  await write(sourcePath, generated.source);
  return { ...generated, sourcePath, weightsPath };
}
