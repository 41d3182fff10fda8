import { Device } from '../../device/device.js';
import { Param } from '../../module/param.js';
import type { TensorData } from '../../core/data.js';
import { fetchBytes } from '../../platform/fetch-bytes.js';
import { isNode, requireNodeBuiltin } from '../../platform/node-builtin.js';
import { BurnError } from '../../core/errors.js';
import { handOver } from '../../core/ownership.js';
import { Tensor } from '../../tensor/tensor.js';
import { inlineFunctions } from '../graph/inline.js';
import { parameterCandidates, simplify, type SimplifyReport } from '../graph/simplify.js';
import { sortGraph, subgraphsOf } from '../graph/topo.js';
import type { ConstTensor, Graph, Model } from '../ir/types.js';
import { isSupportedElem, onnxTypeName } from '../parse/dtype.js';
import { parseModel } from '../parse/model.js';
import { parseOwned } from '../parse/tensor.js';
import { dataForDevice } from '../ops/device-dtype.js';
import { describe, OnnxModel, OnnxPlan } from './model.js';
import { planOf, unsupportedNodes } from './plan.js';

const OP = 'loadOnnx';

/** Options of {@link loadOnnx}. */
export interface LoadOnnxOptions {
  /**
   * The folder external-data files are read from when the model is given as bytes (a path
   * argument uses the model's own folder).
   */
  readonly baseDir?: string;
  /** Run constant folding, shape-subgraph folding and dead-node removal (default true). */
  readonly simplify?: boolean;
  /**
   * Fold inference-mode BatchNormalization into the Conv or Gemm before it (default true; needs
   * `simplify`). The folded model has the producer's parameters only, so set it false to keep
   * the normalization's own parameters trainable and saved under their names. Also rewrites
   * MatMul + Add and Gemm with constant weights as one linear call (same parameters), and
   * spelled-out GELUs as one Gelu.
   */
  readonly fuse?: boolean;
}

/** Every externally stored tensor of a graph and its subgraphs (initializers and tensor attributes). */
function externalTensors(graph: Graph, out: ConstTensor[] = []): ConstTensor[] {
  for (const c of graph.initializers.values()) if (c.external) out.push(c);
  for (const n of graph.nodes) {
    for (const a of n.attributes.values()) {
      if (a.kind === 'tensor' && a.value.external) out.push(a.value);
      if (a.kind === 'tensors') for (const t of a.value) if (t.external) out.push(t);
    }
    for (const g of subgraphsOf(n)) externalTensors(g, out);
  }
  return out;
}

/** The problems of values burn-ts cannot hold (string inputs, u64 initializers…), as unsupported-list lines. */
function unsupportedValues(graph: Graph, out: string[]): void {
  for (const v of graph.inputs) {
    const t = v.type;
    if (t?.kind === 'tensor' && t.elem !== 'undefined' && !isSupportedElem(t.elem))
      out.push(`input '${v.name}' of element type ${onnxTypeName(t.elem)}: not supported`);
    if (t?.kind === 'other') out.push(`input '${v.name}' of type ${t.what}: not supported`);
  }
  for (const c of graph.initializers.values()) {
    if (!c.data && !c.external)
      out.push(`initializer '${c.name}' of element type ${onnxTypeName(c.elem)}: not supported`);
  }
  for (const n of graph.nodes) for (const g of subgraphsOf(n)) unsupportedValues(g, out);
}

/**
 * Splits initializer names into module paths: `conv1.weight` → `conv1` → `weight`. A name whose
 * dotted path would clash with another (`a` and `a.b`), has empty segments, or starts with a name
 * the module class uses (`run`, `inputs`, `visit`…) is kept whole with its dots as underscores.
 */
function paramPaths(names: readonly string[]): Map<string, string[]> {
  const reserved = (key: string) =>
    key in OnnxModel.prototype || key === 'onnx' || key === '__proto__' || key === 'constructor';
  const leaves = new Set<string>();
  const prefixes = new Set<string>();
  const out = new Map<string, string[]>();
  const taken = new Set<string>();
  const fits = (parts: string[]): boolean => {
    if (
      parts.some((p) => p === '' || p === '__proto__' || p === 'constructor' || p === 'prototype') ||
      reserved(parts[0]!)
    )
      return false;
    const full = parts.join('.');
    if (leaves.has(full) || prefixes.has(full)) return false;
    for (let i = 1; i < parts.length; i++) if (leaves.has(parts.slice(0, i).join('.'))) return false;
    return true;
  };
  const claim = (parts: string[]) => {
    leaves.add(parts.join('.'));
    for (let i = 1; i < parts.length; i++) prefixes.add(parts.slice(0, i).join('.'));
    taken.add(parts.join('.'));
  };
  // Dotted names first (so `a.b` claims `a` as a module before a plain `a` would take it as a leaf).
  const sorted = [...names].sort((a, b) => b.split('.').length - a.split('.').length);
  for (const name of sorted) {
    let parts = name.split('.');
    if (!fits(parts)) {
      let flat = name.replace(/\./g, '_') || 'param';
      if (reserved(flat)) flat = `param_${flat}`;
      let k = 1;
      while (!fits([flat + (k > 1 ? `_${k}` : '')])) k++;
      parts = [flat + (k > 1 ? `_${k}` : '')];
    }
    claim(parts);
    out.set(name, parts);
  }
  return out;
}

function setPath(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = root;
  for (const p of path.slice(0, -1)) {
    if (!Object.prototype.hasOwnProperty.call(node, p)) node[p] = {};
    node = node[p] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

async function readSource(
  source: string | URL | Uint8Array | ArrayBuffer,
): Promise<{ bytes: Uint8Array; dir: string | undefined; owned: boolean }> {
  if (source instanceof Uint8Array) return { bytes: source, dir: undefined, owned: false };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), dir: undefined, owned: false };
  if (fetchable(source)) return { bytes: await fetchBytes(source, OP), dir: undefined, owned: true };
  // Only a path needs the file system (node:fs resolved at run time: pages never load it).
  const fs = requireNodeBuiltin<typeof import('node:fs/promises')>(
    'node:fs/promises',
    OP,
    'loading a model from a file path',
  );
  const path = requireNodeBuiltin<typeof import('node:path')>('node:path', OP, 'loading a model from a file path');
  const file =
    typeof source === 'string'
      ? source
      : requireNodeBuiltin<typeof import('node:url')>('node:url', OP, 'loading a model from a file URL').fileURLToPath(
          source,
        );
  let bytes: Uint8Array;
  try {
    // One read of the whole file (readFile reads in 512 KiB round trips to the thread pool).
    const handle = await fs.open(file, 'r');
    try {
      const { size } = await handle.stat();
      bytes = new Uint8Array(size);
      let at = 0;
      while (at < size) {
        const { bytesRead } = await handle.read(bytes, at, size - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      if (at < size) bytes = bytes.subarray(0, at);
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw new BurnError(OP, `cannot read '${file}': ${(e as Error).message}`);
  }
  return { bytes, dir: path.dirname(path.resolve(file)), owned: true };
}

/**
 * True when `source` is read with `fetch`: an http(s), blob or data URL, and in a browser any
 * string (a URL relative to the page).
 */
function fetchable(source: string | URL): boolean {
  const href = typeof source === 'string' ? source : source.href;
  return /^(https?|blob|data):/i.test(href) || (typeof source === 'string' && !isNode());
}

/** The model after parsing and every load-time check: ready to simplify and plan. */
export async function prepareModel(
  source: string | URL | Uint8Array | ArrayBuffer,
  options: LoadOnnxOptions = {},
): Promise<Model> {
  const { bytes, dir, owned } = await readSource(source);
  const model = owned ? parseOwned(bytes, () => parseModel(bytes)) : parseModel(bytes);
  const external = externalTensors(model.graph);
  if (external.length > 0) {
    const base = dir ?? options.baseDir;
    if (!base)
      throw new BurnError(
        OP,
        `the model stores ${external.length} tensors in external files ('${external[0]!.external!.location}'…); load it from its path, or give options.baseDir`,
      );
    const { readExternalTensors } = await import('../parse/external.js');
    readExternalTensors(base, external);
  }
  inlineFunctions(model);
  sortGraph(model.graph);
  const problems = unsupportedNodes(model.graph, model.opsets);
  unsupportedValues(model.graph, problems);
  if (problems.length > 0) {
    throw new BurnError(
      OP,
      `the model cannot run: ${problems.length} unsupported ${problems.length === 1 ? 'item' : 'items'}:\n  ${problems.join('\n  ')}`,
    );
  }
  return model;
}

/** A loaded model together with what simplification did. */
export interface LoadedOnnx {
  readonly model: OnnxModel;
  readonly report: SimplifyReport;
}

/** {@link loadOnnx} that also returns the simplification report. */
export async function loadOnnxWithReport(
  source: string | URL | Uint8Array | ArrayBuffer,
  device: Device = Device.default(),
  options: LoadOnnxOptions = {},
): Promise<LoadedOnnx> {
  const ir = await prepareModel(source, options);
  const graph = ir.graph;
  const candidates = parameterCandidates(graph);
  const report =
    options.simplify === false
      ? { folded: 0, removed: 0, fused: 0, linear: 0, aliases: 0, gelu: 0 }
      : simplify(ir, candidates, options.fuse !== false);
  const params = [...candidates].filter((n) => graph.initializers.has(n));
  const paths = paramPaths(params);
  const tree: Record<string, unknown> = {};
  for (const name of params) {
    const data = graph.initializers.get(name)!.data!;
    // The parser's arrays are the IR's own (copied out of the file), and the IR lets go of them
    // below: the parameter takes the array as its storage instead of copying it again.
    setPath(tree, paths.get(name)!, new Param(Tensor.fromData(handOver(dataForDevice(data, device)), device)));
    // The parameter holds the values now: the IR lets go of its copy (a large model is not kept twice).
    graph.initializers.delete(name);
  }
  const constants = new Map<string, TensorData>();
  for (const [name, c] of graph.initializers) if (c.data) constants.set(name, c.data);
  const outputs = graph.outputs.map((o) => describe({ name: o.name, type: graph.types.get(o.name) ?? o.type }));
  const plan = new OnnxPlan(
    ir,
    planOf(graph, ir.opsets),
    paths,
    constants,
    graph.inputs.map(describe),
    outputs,
    device,
  );
  return { model: new OnnxModel(plan, tree), report };
}

/**
 * Loads an ONNX model from a file path (or URL) or from its bytes and returns it as a runnable
 * {@link OnnxModel} on `device` (default: `Device.default()`; an autodiff device makes it
 * trainable). External-data files are read from the model's folder, tensor by tensor; a location
 * outside that folder is refused. Every operator is checked before anything runs: a model with
 * unsupported operators fails here with one BurnError listing each (op type, node name, opset).
 */
export async function loadOnnx(
  source: string | URL | Uint8Array | ArrayBuffer,
  device: Device = Device.default(),
  options: LoadOnnxOptions = {},
): Promise<OnnxModel> {
  return (await loadOnnxWithReport(source, device, options)).model;
}
