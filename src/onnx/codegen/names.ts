/**
 * Identifiers of generated code: ONNX node and value names (`/layer1/conv1/Conv`,
 * `encoder.layers.0.linear1.weight`, `onnx::MatMul_277`) become camelCase TypeScript names
 * (`layer1Conv1`, `encoderLayers0Linear1`), never a reserved word or a member of `Module`, and
 * unique within their scope.
 */

const RESERVED = new Set([
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'as',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'yield',
  'await',
  'async',
  'of',
  'any',
  'boolean',
  'number',
  'string',
  'symbol',
  'type',
  'undefined',
  'arguments',
  'eval',
  'constructor',
  'prototype',
  '__proto__',
  'Tensor',
  'Module',
  'Param',
  'Device',
  'Int',
  'Bool',
  'Float',
  'functional',
  'activation',
  'device',
  'Math',
  'Infinity',
  'NaN',
  'Object',
  'Array',
]);

/** Members of `Module` and of the generated class that a field must not shadow. */
const MODULE_MEMBERS = new Set([
  'forward',
  'load',
  'numParams',
  'visit',
  'map',
  'params',
  'devices',
  'toDevice',
  'fork',
  'noGrad',
  'freeze',
  'unfreeze',
  'valid',
  'train',
  'clone',
  'toRecord',
  'loadRecord',
  'saveFile',
  'saveFileAsync',
  'loadFile',
  'loadFileAsync',
  'toBytes',
  'toBytesAsync',
  'loadBytes',
  'saveInto',
  'saveIntoAsync',
  'loadFrom',
  'loadFromAsync',
  'displayAttributes',
  'toString',
  'mapLeaves',
  'visitLeaves',
  'loadInPlace',
  'hasOwnProperty',
  'valueOf',
]);

/** Splits a name into its alphanumeric words (`/encoder/layers.0/self_attn/MatMul_1` → `encoder layers 0 self attn MatMul 1`). */
function words(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
}

/** lowerCamelCase of a raw name; `fallback` when nothing alphanumeric remains. */
export function camel(name: string, fallback = 'value'): string {
  const ws = words(name);
  if (ws.length === 0) return fallback;
  const out = ws
    .map((w, i) => {
      // Keep inner capitals (`MatMul`), lower-case all-caps words (`ONNX` → `onnx`).
      const base = w === w.toUpperCase() ? w.toLowerCase() : w;
      return i === 0 ? base[0]!.toLowerCase() + base.slice(1) : base[0]!.toUpperCase() + base.slice(1);
    })
    .join('');
  return /^[0-9]/.test(out) ? `v${out}` : out;
}

/** UpperCamelCase (a class name) of a raw name. */
export function pascal(name: string, fallback = 'Model'): string {
  const c = camel(name, '');
  if (!c) return fallback;
  const p = c[0]!.toUpperCase() + c.slice(1);
  return /^[0-9]/.test(p) ? `Model${p}` : p;
}

/**
 * The module path in a node name, and the op it ends with: PyTorch names nodes
 * `/layer1/conv1/Conv` and `/stem/stem.0/Conv` (a child of a Sequential repeats its parent), so
 * `layer1/conv1` + `Conv` and `stem.0` + `Conv`. Generated names (`Conv_3`, `123`) have no path.
 */
export function splitNodeName(name: string): { path: string[]; op: string | undefined } {
  const parts = name
    .replace(/^\/+/, '')
    .split('/')
    .filter((p) => p.length > 0);
  let op: string | undefined;
  // A trailing PascalCase segment (`Conv`, `MatMul_1`, `LayerNormalization`) names the op.
  if (parts.length > 0 && /^[A-Z][A-Za-z0-9]*?(_\d+)?$/.test(parts[parts.length - 1]!)) op = parts.pop();
  const path: string[] = [];
  for (const p of parts) {
    const prev = path[path.length - 1];
    if (prev !== undefined && p.startsWith(`${prev}.`)) path[path.length - 1] = p;
    else path.push(p);
  }
  return { path, op };
}

/**
 * The owner of an initializer (`layer1.conv1.weight` → `layer1.conv1`, `pos` → `pos`), or
 * undefined for generated names (`onnx::Conv_12`, `123`).
 */
export function meaningful(name: string): string | undefined {
  if (!name || name.startsWith('onnx::') || /^[0-9_]+$/.test(name)) return undefined;
  const n = name.replace(/[._](weight|bias|W|B|R|scale|gamma|beta)$/, '');
  return n.length > 0 ? n : undefined;
}

/** Allocates unique identifiers within one scope (class fields, or the locals of a method). */
export class NameScope {
  private readonly taken = new Set<string>();

  constructor(private readonly forbidden: ReadonlySet<string> = MODULE_MEMBERS) {}

  /** Marks a name as used (a parameter name, an import). */
  reserve(name: string): void {
    this.taken.add(name);
  }

  /** A fresh identifier from `hint` (`hint`, `hint2`, `hint3`…). */
  fresh(hint: string): string {
    let base = hint && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(hint) ? hint : camel(hint);
    if (RESERVED.has(base) || this.forbidden.has(base)) base = `${base}_`;
    let name = base;
    for (let k = 2; this.taken.has(name); k++) name = `${base}${k}`;
    this.taken.add(name);
    return name;
  }
}
