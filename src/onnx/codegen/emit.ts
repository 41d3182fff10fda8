import { TensorData } from '../../core/data.js';
import { isFloatDType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import type { Graph, Model, Node } from '../ir/types.js';
import { Attrs } from '../ops/attrs.js';
import { BURN_DOMAIN } from '../graph/linear.js';
import {
  CannotExpress,
  kindOf,
  literal,
  num,
  Slot,
  tsType,
  type CgValue,
  type Dep,
  type DimInfo,
  type EmitContext,
  type Emitted,
  type Emitter,
  type LayerSpec,
  type ParamSpec,
  type TInfo,
} from './context.js';
import { camel, meaningful, NameScope, pascal, splitNodeName } from './names.js';
import { compositeEmitters } from './ops-composite.js';
import { elementwiseEmitters } from './ops-elementwise.js';
import { embedding, layerEmitters } from './ops-layers.js';
import { rnnEmitters } from './ops-rnn.js';
import { hostEmitters, shapeEmitters } from './ops-shape.js';
import type { ProbeResult } from './probe.js';

const OP = 'generateOnnxModule';

/** Every tensor-mode emitter by op type (default domain, plus burn-ts's own `Linear`). */
const EMITTERS: Readonly<Record<string, Emitter>> = {
  ...elementwiseEmitters,
  ...shapeEmitters,
  ...layerEmitters,
  ...rnnEmitters,
  ...compositeEmitters,
};

/** Ops whose results are host numbers when their inputs are (shape arithmetic). */
const HOST_OPS = new Set(Object.keys(hostEmitters));
/** The largest integer vector computed on the host as JS numbers. */
const HOST_MAX = 64;

/** A generated field: a layer or a tensor (parameter or constant). */
export type Field =
  | { readonly name: string; readonly layer: LayerSpec }
  | { readonly name: string; readonly param: ParamSpec };

/** What emission produced: the TypeScript source, and the fields whose weights go to the `.bpk`. */
export interface Emission {
  readonly source: string;
  readonly className: string;
  readonly fields: readonly Field[];
}

/** Options of {@link emitModule}. */
export interface EmitOptions {
  readonly className: string;
  /** The model file the code came from (for the header). */
  readonly sourceName: string;
  /** The weights file written beside the source (for the doc of `load`). */
  readonly weightsName: string;
  /** Module specifiers of the imports (default `burn-ts` and `burn-ts/nn`). */
  readonly imports?: { readonly root?: string; readonly nn?: string };
}

type Statement = { readonly slot: Slot } | { readonly code: string; readonly deps: readonly Dep[] };

/** The emission state of one model. */
class Emitter_ {
  readonly values = new Map<string, CgValue>();
  readonly fields: Field[] = [];
  readonly fieldNames = new NameScope();
  readonly locals = new NameScope();
  readonly statements: Statement[] = [];
  readonly imports = { 'burn-ts': new Set<string>(['Device', 'Module']), 'burn-ts/nn': new Set<string>() };
  readonly paramFields = new Map<string, string>();
  readonly symbolLocals = new Map<string, string>();
  readonly usedSymbols = new Set<string>();
  readonly problems: string[] = [];
  readonly uses = new Map<string, number>();
  firstInput: string | undefined;
  /** What the node being emitted has read so far (the dependencies of what it produces). */
  touched = new Set<Dep>();

  constructor(
    readonly model: Model,
    readonly probe: ProbeResult,
    readonly params: ReadonlySet<string>,
  ) {}

  get graph(): Graph {
    return this.model.graph;
  }

  /** The dims and dtype of a probed value. */
  infoOf(name: string): TInfo {
    const p = this.probe.values.get(name);
    if (!p) throw new CannotExpress(`has a value '${name}' whose type the probe runs did not see`);
    const dims: DimInfo[] = p.dims[0].map((a, d) => {
      const b = p.dims[1][d]!;
      if (a === b) return a;
      for (const [sym, [s1, s2]] of this.probe.symbols) if (s1 === a && s2 === b) return { symbol: sym };
      return undefined;
    });
    return { rank: dims.length, dtype: p.dtype, dims };
  }

  symbolLocal(sym: string): string {
    this.touched.add(`sym:${sym}`);
    return this.symbolLocals.get(sym)!;
  }
}

/** True when a constant's values are all zeros. */
function allZero(d: TensorData): boolean {
  return Array.from(d.toArray()).every((v) => v === 0);
}

/** A tensor literal for a small constant (`Tensor.fromFloats([...], { device, dtype })`). */
function smallConstant(e: Emitter_, data: TensorData, deviceOf: () => string): string | undefined {
  if (data.numElements() > 8 || data.shape.length > 1) return undefined;
  const device = deviceOf();
  const values = Array.from(data.toArray()).map((v) => (data.dtype === 'bool' ? String(v !== 0) : num(Number(v))));
  e.imports['burn-ts'].add('Tensor');
  const fn = data.dtype === 'bool' ? 'fromBools' : isFloatDType(data.dtype) ? 'fromFloats' : 'fromInts';
  const opts =
    data.dtype === 'bool'
      ? device
      : data.dtype === 'f32' || data.dtype === 'i32'
        ? `{ device: ${device} }`
        : `{ device: ${device}, dtype: '${data.dtype}' }`;
  const t = `Tensor.${fn}([${values.join(', ')}], ${opts})`;
  return data.shape.length === 0 ? `${t}.reshape([])` : t;
}

/**
 * Name hints of a node: for a layer field, its module path (`/layer1/conv1/Conv` → `layer1Conv1`,
 * else the op type); for a local, the path and the op (`/layer1/Relu_1` → `layer1Relu1`).
 */
function hintsOf(node: Node): { field: string; local: string } {
  const { path, op } = splitNodeName(node.name);
  const opName = op ?? node.opType;
  const field = path.length > 0 ? camel(path.join(' '), 'layer') : camel(node.opType, 'layer');
  const local = camel([...path, opName].join(' '), camel(node.opType, 'value'));
  return { field, local };
}

/** The local-variable hint of each context (the node's path and op). */
const localHints = new WeakMap<EmitContext, string>();

function contextFor(e: Emitter_, node: Node, host: boolean): EmitContext {
  const attrs = new Attrs(node);
  const opset = e.model.opsets.get(node.domain === BURN_DOMAIN ? '' : node.domain) ?? 0;
  const hints = hintsOf(node);
  const hint = hints.field;
  const value = (i: number): CgValue | undefined => (node.inputs[i] ? e.values.get(node.inputs[i]!) : undefined);
  const fail = (why: string): never => {
    throw new CannotExpress(why);
  };
  const ctx: EmitContext = {
    node,
    attrs,
    opset,
    hint,
    fail,
    value,
    has: (i) => !!node.inputs[i],
    info: (i) => {
      const v = value(i);
      if (!v) return fail(`reads input ${i}, which is missing`);
      if (v.kind === 'tensor') return v.info;
      if (v.kind === 'host') return { rank: v.scalar ? 0 : 1, dtype: v.dtype, dims: v.scalar ? [] : [v.elems.length] };
      return { rank: v.data.shape.length, dtype: v.data.dtype, dims: [...v.data.shape] };
    },
    out: (i) => e.infoOf(node.outputs[i]!),
    used: (i) => (e.uses.get(node.outputs[i] ?? '') ?? 0) > 0,
    tensor: (i, inline = true) => {
      const v = value(i);
      if (!v) return fail(`reads input ${i}, which is missing`);
      if (v.kind === 'tensor') {
        e.touched.add(v.slot);
        return v.slot.ref(inline);
      }
      if (v.kind === 'host') {
        for (const d of v.deps) e.touched.add(d);
        e.imports['burn-ts'].add('Tensor');
        const dtype = v.dtype;
        const t = `Tensor.fromInts([${v.elems.join(', ')}], { device: ${ctx.device()}${dtype === 'i32' ? '' : `, dtype: '${dtype}'`} })`;
        return v.scalar ? `${t}.reshape([])` : t;
      }
      const small = v.kind === 'const' ? smallConstant(e, v.data, () => ctx.device()) : undefined;
      if (small) return small;
      let field = e.paramFields.get(v.name);
      if (!field) {
        const trainable = v.kind === 'param';
        field = e.fieldNames.fresh(
          camel(meaningful(v.name) ?? `${hint} ${trainable ? 'weight' : 'constant'}`, 'constant'),
        );
        e.fields.push({ name: field, param: { data: v.data, trainable, source: v.name } });
        e.paramFields.set(v.name, field);
      }
      return `this.${field}.val()`;
    },
    lifted: (i, rank) => {
      const r = ctx.info(i).rank;
      const t = ctx.tensor(i);
      return r < rank ? `${t}.unsqueeze(${rank})` : t;
    },
    expanded: (i, rank) => {
      const info = ctx.info(i);
      const out = ctx.out(0);
      const t = ctx.lifted(i, rank);
      const off = rank - info.rank;
      const same = out.dims.every((d, k) => {
        const mine = k < off ? 1 : info.dims[k - off];
        return d === mine || (typeof d === 'object' && typeof mine === 'object' && d.symbol === mine.symbol);
      });
      if (same) return t;
      const target = out.dims.map((d, k) => {
        const mine = k < off ? 1 : info.dims[k - off];
        if (typeof d === 'number') return String(d);
        if (d && typeof d === 'object') return e.symbolLocal(d.symbol);
        if (mine === undefined) return '-1';
        return fail('broadcasts over a dim whose size varies');
      });
      return `${t}.expand([${target.join(', ')}])`;
    },
    host: (i) => {
      const v = value(i);
      if (!v) return undefined;
      if (v.kind === 'host') {
        for (const d of v.deps) e.touched.add(d);
        return v.elems;
      }
      if (v.kind === 'const' && v.data.numElements() <= HOST_MAX && v.data.shape.length <= 1)
        return Array.from(v.data.toArray(), (x) => num(Number(x)));
      return undefined;
    },
    constant: (i) => {
      const v = value(i);
      return v && (v.kind === 'const' || v.kind === 'param') ? v.data : undefined;
    },
    scalar: (i) => {
      const v = value(i);
      if (!v) return undefined;
      if (v.kind === 'const' && v.data.numElements() === 1) return Number(v.data.toArray()[0]);
      return undefined;
    },
    dim: (i, d) => {
      const info = ctx.info(i);
      const dd = info.dims[d];
      if (typeof dd === 'number') return String(dd);
      if (dd && typeof dd === 'object') return e.symbolLocal(dd.symbol);
      const v = value(i);
      if (v?.kind !== 'tensor') return fail(`reads dim ${d} of a value that is not a tensor`);
      e.touched.add(v.slot);
      return `${v.slot.ref(false)}.dims()[${d}]`;
    },
    layer: (h, spec) => {
      // The weights' own names say most (`encoder.layers.0.self_attn.out_proj.weight`); folded ones (`onnx::Conv_7`) do not.
      const named = spec.sources
        ?.filter((s) => e.uses.get(s) === 1)
        .map((s) => meaningful(s))
        .find((m) => m !== undefined);
      const name = e.fieldNames.fresh(named ? camel(named, h) : h);
      e.fields.push({ name, layer: spec });
      e.imports['burn-ts/nn'].add(spec.cls).add(spec.configCls);
      return name;
    },
    param: (h, spec) => {
      const name = e.fieldNames.fresh(camel(h, 'constant'));
      e.fields.push({ name, param: spec });
      return `this.${name}.val()`;
    },
    local: (h) => e.locals.fresh(h),
    stmt: (code) => void e.statements.push({ code, deps: [...e.touched] }),
    device: () => {
      e.touched.add('device');
      return 'device';
    },
    use: (from, name) => void e.imports[from].add(name),
  };
  void host;
  localHints.set(ctx, hints.local);
  return ctx;
}

/** True when `node` computes shape arithmetic on the host: integer inputs known as numbers, a short integer result. */
function isHostNode(e: Emitter_, node: Node): boolean {
  if (node.domain !== '' || !HOST_OPS.has(node.opType)) return false;
  if (node.opType === 'Shape' || node.opType === 'Size') return true;
  const out = e.probe.values.get(node.outputs[0] ?? '');
  if (!out || out.dims[0].length > 1 || kindOf(out.dtype) !== 'Int' || (out.dims[0][0] ?? 1) > HOST_MAX) return false;
  return node.inputs.every((name) => {
    if (!name) return true;
    const v = e.values.get(name);
    return (
      v?.kind === 'host' ||
      (v?.kind === 'const' &&
        kindOf(v.data.dtype) === 'Int' &&
        v.data.numElements() <= HOST_MAX &&
        v.data.shape.length <= 1)
    );
  });
}

/** The emitter of a node in tensor mode, or undefined. */
function emitterOf(node: Node): Emitter | undefined {
  if (node.domain === BURN_DOMAIN) return node.opType === 'Linear' ? layerEmitters.Linear : undefined;
  if (node.domain !== '') return undefined;
  if (node.opType === 'Gather') {
    return (ctx) => {
      const emb = embedding(ctx);
      return emb ? [emb] : shapeEmitters.Gather!(ctx);
    };
  }
  return EMITTERS[node.opType];
}

/** Ops whose result is all zeros when their (data) input is: zero initial states stay known as zeros through them. */
const ZERO_KEEPING = new Set([
  'Slice',
  'Reshape',
  'Transpose',
  'Squeeze',
  'Unsqueeze',
  'Expand',
  'Concat',
  'Cast',
  'Identity',
  'Flatten',
  'Gather',
  'Tile',
]);

function isZero(e: Emitter_, name: string): boolean {
  const v = e.values.get(name);
  return (v?.kind === 'tensor' || v?.kind === 'const') && v.zero === true;
}

/** Removes layout steps that undo each other (`.swapDims(1, 2).swapDims(1, 2)`, `.unsqueezeDim(1).squeezeDim(1)`). */
export function tidy(expr: string): string {
  let prev = '';
  let out = expr;
  while (prev !== out) {
    prev = out;
    out = out
      .replace(/\.swapDims\((\d+), (\d+)\)\.swapDims\(\1, \2\)/g, '')
      .replace(/\.unsqueezeDim\((\d+)\)\.squeezeDim\(\1\)/g, '');
  }
  return out;
}

/** Records an emitter's outputs as values of the graph. */
function bind(e: Emitter_, node: Node, results: readonly Emitted[], hint: string): void {
  node.outputs.forEach((name, i) => {
    if (!name) return;
    const r = results[i];
    if (r === undefined) {
      if ((e.uses.get(name) ?? 0) > 0) throw new CannotExpress(`does not produce output '${name}', which is read`);
      return;
    }
    if (typeof r === 'object' && 'same' in r) {
      e.values.set(name, r.same);
      return;
    }
    if (typeof r === 'object' && 'host' in r) {
      const p = e.probe.values.get(name);
      e.values.set(name, {
        kind: 'host',
        elems: r.host,
        scalar: r.scalar,
        dtype: p?.dtype ?? 'i64',
        deps: [...e.touched],
      });
      return;
    }
    const expr = tidy(typeof r === 'string' ? r : r.zeros);
    const zero =
      typeof r === 'object' ||
      (ZERO_KEEPING.has(node.opType) &&
        node.domain === '' &&
        node.inputs.length > 0 &&
        isZero(e, node.inputs[0]!) &&
        node.inputs.slice(1).every((x) => !x || node.opType !== 'Concat' || isZero(e, x)));
    const local = e.locals.fresh(node.outputs.length > 1 ? camel(`${hint} ${i}`, hint) : hint);
    const slot = new Slot(local, expr, e.uses.get(name) ?? 0);
    slot.deps = [...e.touched];
    e.statements.push({ slot });
    e.values.set(name, { kind: 'tensor', slot, info: e.infoOf(name), ...(zero ? { zero: true } : {}) });
  });
}

/** The JSDoc shape of a value: `[batch, 3, 224, 224]`. */
function shapeDoc(info: TInfo): string {
  return `[${info.dims.map((d) => (typeof d === 'number' ? d : d ? d.symbol : '?')).join(', ')}]`;
}

/** The statement of a constructor that makes a field. */
function fieldInit(f: Field, e: Emitter_): string {
  if ('layer' in f) {
    const args = Object.keys(f.layer.config).length ? literal(f.layer.config) : '';
    return `this.${f.name} = new ${f.layer.configCls}(${args}).init(${f.layer.device ? 'device' : ''});`;
  }
  const d = f.param.data;
  e.imports['burn-ts'].add('Param').add('Tensor');
  const zeros =
    d.dtype === 'f32'
      ? `Tensor.zeros(${literal([...d.shape])}, device)`
      : `Tensor.zeros(${literal([...d.shape])}, { device, dtype: '${d.dtype}' })`;
  return `this.${f.name} = new Param(${zeros}${f.param.trainable ? '' : ', { requireGrad: false }'});`;
}

function fieldType(f: Field): string {
  if ('layer' in f) return f.layer.cls;
  return `Param<${tsType({ rank: f.param.data.shape.length, dtype: f.param.data.dtype })}>`;
}

/**
 * Writes the TypeScript module of a simplified, probed model: a `Module` class with one field per
 * layer (an `nn` layer from its config) or tensor (parameter or constant), a typed `forward` whose
 * body is the graph as tensor-API calls, and `static load`. Nodes the generator cannot express
 * are collected and reported in one BurnError.
 */
export function emitModule(
  model: Model,
  probe: ProbeResult,
  params: ReadonlySet<string>,
  options: EmitOptions,
): Emission {
  const e = new Emitter_(model, probe, params);
  const graph = model.graph;
  for (const n of graph.nodes) for (const i of n.inputs) if (i) e.uses.set(i, (e.uses.get(i) ?? 0) + 1);
  for (const o of graph.outputs) e.uses.set(o.name, (e.uses.get(o.name) ?? 0) + 1);
  for (const [name, c] of graph.initializers) {
    if (!c.data) continue;
    e.values.set(
      name,
      params.has(name)
        ? { kind: 'param', name, data: c.data }
        : { kind: 'const', name, data: c.data, ...(allZero(c.data) ? { zero: true } : {}) },
    );
  }
  // Inputs: typed parameters of forward, named after the ONNX inputs.
  const inputParams: string[] = [];
  const inputDocs: string[] = [];
  for (const input of graph.inputs) {
    const local = e.locals.fresh(camel(input.name, 'input'));
    const info = e.infoOf(input.name);
    e.values.set(input.name, { kind: 'tensor', slot: new Slot(local, local, e.uses.get(input.name) ?? 0, true), info });
    inputParams.push(`${local}: ${tsType(info)}`);
    inputDocs.push(`${local} ${shapeDoc(info)}`);
    e.firstInput ??= local;
    // Symbolic dims are read from the first input that has them.
    info.dims.forEach((d) => {
      if (d && typeof d === 'object' && !e.symbolLocals.has(d.symbol))
        e.symbolLocals.set(d.symbol, e.locals.fresh(camel(d.symbol, 'size')));
    });
  }
  // Values of nodes that could not be expressed: their readers are consequences, not reported again.
  const failed = new Set<string>();
  for (const node of graph.nodes) {
    if (node.inputs.some((i) => failed.has(i))) {
      for (const o of node.outputs) failed.add(o);
      continue;
    }
    const host = isHostNode(e, node);
    const emitter = host ? hostEmitters[node.opType] : emitterOf(node);
    const where = `${node.domain && node.domain !== BURN_DOMAIN ? `${node.domain}.` : ''}${node.opType} (node '${node.name}')`;
    if (!emitter) {
      e.problems.push(`${where}: no code generation for this operator`);
      for (const o of node.outputs) failed.add(o);
      continue;
    }
    e.touched = new Set();
    try {
      const ctx = contextFor(e, node, host);
      const before = e.fields.length;
      const results = emitter(ctx);
      // A node that made a layer names its result after the layer (`const conv1 = this.conv1.forward(x)`).
      const made =
        e.fields.length > before && 'layer' in e.fields[e.fields.length - 1]!
          ? e.fields[e.fields.length - 1]!.name
          : undefined;
      bind(e, node, results, made ?? localHints.get(ctx)!);
    } catch (err) {
      if (err instanceof CannotExpress) e.problems.push(`${where} ${err.message}`);
      else if (err instanceof BurnError) e.problems.push(`${where}: ${err.message}`);
      else throw err;
      for (const o of node.outputs) failed.add(o);
    }
  }
  if (e.problems.length > 0) {
    throw new BurnError(
      OP,
      `cannot generate code for ${e.problems.length} ${e.problems.length === 1 ? 'node' : 'nodes'} of '${options.sourceName}' (run it with loadOnnx instead):\n  ${e.problems.join('\n  ')}`,
    );
  }
  // Outputs.
  const outs = graph.outputs.map((o) => {
    const v = e.values.get(o.name);
    if (!v) throw new BurnError(OP, `output '${o.name}' has no value`);
    if (v.kind === 'tensor') return { name: o.name, expr: v.slot.ref(true, 100), info: v.info, slot: v.slot };
    throw new BurnError(OP, `output '${o.name}' is a constant or a shape computation; generated code returns tensors`);
  });
  return { source: render(e, options, inputParams, inputDocs, outs), className: options.className, fields: e.fields };
}

function render(
  e: Emitter_,
  options: EmitOptions,
  inputParams: string[],
  inputDocs: string[],
  outs: { name: string; expr: string; info: TInfo; slot: Slot }[],
): string {
  const body: string[] = [];
  // Only what the outputs (and the multi-result statements) read is written: a value whose readers
  // all went away (a zero initial state the layer does not need) is not computed.
  const live = new Set<Slot>();
  let device = false;
  const mark = (d: Dep): void => {
    if (typeof d === 'string') {
      if (d === 'device') device = true;
      else e.usedSymbols.add(d.slice(4));
      return;
    }
    if (live.has(d)) return;
    live.add(d);
    for (const x of d.deps) mark(x);
  };
  for (const o of outs) mark(o.slot);
  for (const s of e.statements) if ('code' in s) for (const d of s.deps) mark(d);
  // Symbolic dims the code reads, destructured from the first input that has each.
  const bySource = new Map<string, (string | undefined)[]>();
  for (const input of e.graph.inputs) {
    const v = e.values.get(input.name);
    if (v?.kind !== 'tensor') continue;
    v.info.dims.forEach((d, k) => {
      if (!d || typeof d !== 'object' || !e.usedSymbols.has(d.symbol)) return;
      const local = e.symbolLocals.get(d.symbol)!;
      if ([...bySource.values()].some((l) => l.includes(local))) return;
      const list = bySource.get(v.slot.name) ?? [];
      list[k] = local;
      bySource.set(v.slot.name, list);
    });
  }
  for (const [src, list] of bySource)
    body.push(`const [${Array.from({ length: list.length }, (_, k) => list[k] ?? '').join(', ')}] = ${src}.dims();`);
  if (device) body.push(`const device = ${e.firstInput ?? 'Device.default()'}.device();`);
  for (const s of e.statements) {
    if ('code' in s) body.push(s.code);
    else if (s.slot.state === 'declared' && live.has(s.slot)) body.push(`const ${s.slot.name} = ${s.slot.expr};`);
  }
  const single = outs.length === 1;
  const keys = new NameScope(new Set());
  const outKeys = outs.map((o) => keys.fresh(camel(o.name, 'output')));
  const returnType = single
    ? tsType(outs[0]!.info)
    : `{ ${outs.map((o, i) => `${outKeys[i]}: ${tsType(o.info)}`).join('; ')} }`;
  body.push(
    single
      ? `return ${outs[0]!.expr};`
      : `return { ${outs.map((o, i) => (o.expr === outKeys[i] ? o.expr : `${outKeys[i]}: ${o.expr}`)).join(', ')} };`,
  );
  const root = options.imports?.root ?? 'burn-ts';
  const nn = options.imports?.nn ?? 'burn-ts/nn';
  for (const f of e.fields) if ('param' in f) e.imports['burn-ts'].add('Param').add('Tensor');
  const fieldInits = e.fields.map((f) => fieldInit(f, e));
  // The kinds named in types (parameters, fields, generics like take<2>) are type imports.
  const typed = [...inputParams, returnType, ...e.fields.map(fieldType), ...body].join('\n');
  if (/, Int>/.test(typed)) e.imports['burn-ts'].add('Int');
  if (/, Bool>/.test(typed)) e.imports['burn-ts'].add('Bool');
  e.imports['burn-ts'].add('Tensor');
  const types = new Set(['Int', 'Bool']);
  const rootNames = [...e.imports['burn-ts']]
    .sort((a, b) => a.localeCompare(b))
    .map((n) => (types.has(n) ? `type ${n}` : n));
  const nnNames = [...e.imports['burn-ts/nn']].sort((a, b) => a.localeCompare(b));
  const cls = options.className;
  const lines: string[] = [];
  lines.push(
    `// Generated by burn-ts from ${options.sourceName} (ONNX opset ${e.model.opsets.get('') ?? '?'}${e.model.producer ? `, exported by ${e.model.producer}` : ''}).`,
  );
  lines.push(
    `// Weights: ${options.weightsName} (burnpack). Regenerate with \`npx burn-ts onnx ${options.sourceName} --out <dir>\`; edit freely.`,
  );
  lines.push(`import { ${rootNames.join(', ')} } from '${root}';`);
  if (nnNames.length > 0) lines.push(`import { ${nnNames.join(', ')} } from '${nn}';`);
  lines.push('');
  lines.push(
    `/** The model of ${options.sourceName}: ${inputDocs.join(', ')} → ${outs.map((o, i) => `${outKeys[i]} ${shapeDoc(o.info)}`).join(', ')}. */`,
  );
  lines.push(`export class ${cls} extends Module {`);
  for (const f of e.fields) lines.push(`  ${f.name}: ${fieldType(f)};`);
  if (e.fields.length > 0) lines.push('');
  lines.push(
    `  /** Creates the layers on \`device\` with fresh weights; {@link ${cls}.load} reads the exported ones. */`,
  );
  lines.push('  constructor(device: Device = Device.default()) {');
  lines.push('    super();');
  for (const s of fieldInits) lines.push(`    ${s}`);
  lines.push('  }');
  lines.push('');
  lines.push(
    `  /** ${inputDocs.join(', ')} → ${outs.map((o, i) => `${single ? '' : `${outKeys[i]} `}${shapeDoc(o.info)}`).join(', ')}. */`,
  );
  lines.push(`  forward(${inputParams.join(', ')}): ${returnType} {`);
  for (const s of body) lines.push(`    ${s}`);
  lines.push('  }');
  lines.push('');
  lines.push(`  /** The model with the exported weights (\`${options.weightsName}\`) on \`device\`. */`);
  lines.push(`  static load(path: string, device: Device = Device.default()): ${cls} {`);
  lines.push(`    return new ${cls}(device).loadFile(path, device);`);
  lines.push('  }');
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** The class name of a model file: `resnet18.onnx` → `Resnet18`. */
export function classNameOf(file: string): string {
  return pascal(file.replace(/\.onnx$/i, ''), 'Model');
}
