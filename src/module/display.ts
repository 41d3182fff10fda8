import type { Kind } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { Param, RunningState } from './param.js';
import { isPlainObject, visitValue } from './walk.js';

/** What the display needs from a module (the Module base class). */
interface Displayable {
  numParams(): number;
  displayAttributes(): Record<string, unknown> | undefined;
  visitLeaves(visitor: (leaf: Param | RunningState, path: string) => void, path: string): void;
}

function isDisplayable(v: unknown): v is Displayable {
  return typeof v === 'object' && v !== null && typeof (v as Partial<Displayable>).displayAttributes === 'function';
}

/** Formats an attribute value: arrays as `[1, 1]`, strings bare, nested objects `{k: v}`. */
function attr(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(attr).join(', ')}]`;
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : String(v);
  if (typeof v === 'object' && v !== null && 'toString' in v && (v as object).toString !== Object.prototype.toString)
    return String(v);
  if (isPlainObject(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${attr(x)}`)
      .join(', ')}}`;
  return String(v);
}

function countParams(value: unknown): number {
  let n = 0;
  visitValue(value, '', (leaf) => {
    if (leaf instanceof Param) n += leaf.val().numel();
  });
  return n;
}

function render(value: unknown, indent: string): string | undefined {
  if (isDisplayable(value)) return displayModule(value, indent);
  if (value instanceof Param) return `Param {shape: [${value.dims().join(', ')}], requireGrad: ${value.requireGrad}}`;
  if (value instanceof RunningState)
    return `RunningState {shape: [${(value.value() as Tensor<number, Kind>).dims().join(', ')}]}`;
  if (Array.isArray(value) && value.some((v) => isDisplayable(v) || v instanceof Param)) {
    const inner = indent + '  ';
    const lines = value.map((v, i) => `${inner}${i}: ${render(v, inner) ?? attr(v)}`);
    return `[\n${lines.join('\n')}\n${indent}]`;
  }
  return undefined;
}

/**
 * Burn's module display: a leaf layer on one line with its attributes and parameter count
 * (`Linear {dInput: 4, dOutput: 2, bias: true, params: 10}`), a composite module as a tree of
 * its fields ending with its total parameter count; parameter-free layers print their name.
 */
export function displayModule(module: Displayable, indent = ''): string {
  const name = (module as object).constructor.name;
  const attributes = module.displayAttributes();
  const params = module.numParams();
  if (attributes !== undefined) {
    const parts = Object.entries(attributes)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${attr(v)}`);
    if (params > 0) parts.push(`params: ${params}`);
    return parts.length > 0 ? `${name} {${parts.join(', ')}}` : name;
  }
  const inner = indent + '  ';
  const lines: string[] = [];
  for (const [key, value] of Object.entries(module)) {
    const shown = render(value, inner);
    if (shown !== undefined) lines.push(`${inner}${key}: ${shown}`);
    else if (isPlainObject(value) && countParams(value) > 0)
      lines.push(`${inner}${key}: {params: ${countParams(value)}}`);
  }
  if (lines.length === 0 && params === 0) return name;
  lines.push(`${inner}params: ${params}`);
  return `${name} {\n${lines.join('\n')}\n${indent}}`;
}
