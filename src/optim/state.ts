import type { Device } from '../device/device.js';
import { TensorData } from '../core/data.js';
import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/**
 * Optimizer states as plain trees (Burn's `RecordState` derive, without the derive): objects and
 * arrays whose leaves are tensors, numbers or `undefined`. Trees flatten to dotted names
 * (`momentum.moment1`, `historyS.0`) for records and are rebuilt from them.
 */
export type StateValue =
  | Tensor<number, Float>
  | number
  | undefined
  | readonly StateValue[]
  | { readonly [field: string]: StateValue };

/** The state of one parameter (or the global state of an optimizer such as L-BFGS). */
export type OptimizerState = { readonly [field: string]: StateValue };

/** A state tree as read from a record: tensors are still `TensorData`. */
export type StateData =
  | TensorData
  | number
  | undefined
  | readonly StateData[]
  | { readonly [field: string]: StateData };

function join(prefix: string, key: string | number): string {
  return prefix === '' ? String(key) : `${prefix}.${key}`;
}

/** The tensors and scalars of a state tree under `prefix`, with their dotted names. */
export function flattenState(
  state: StateValue,
  prefix: string,
  tensors: [string, Tensor<number, Float>][],
  scalars: [string, number][],
): void {
  if (state === undefined) return;
  if (state instanceof Tensor) tensors.push([prefix, state]);
  else if (typeof state === 'number') scalars.push([prefix, state]);
  else if (Array.isArray(state))
    (state as readonly StateValue[]).forEach((v, i) => flattenState(v, join(prefix, i), tensors, scalars));
  else
    for (const [k, v] of Object.entries(state as { readonly [field: string]: StateValue }))
      flattenState(v, join(prefix, k), tensors, scalars);
}

/**
 * Rebuilds a state tree from dotted names relative to the tree (`momentum.moment1` → nested
 * objects; a level whose keys are 0, 1, … becomes an array).
 */
export function unflattenState(entries: Iterable<[string, TensorData | number]>): {
  readonly [field: string]: StateData;
} {
  const root: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    const parts = name.split('.');
    let node = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (v instanceof TensorData || typeof v !== 'object' || v === null) return v;
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    const mapped = Object.fromEntries(keys.map((k) => [k, arrays(obj[k])]));
    if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => mapped[k]);
    return mapped;
  };
  return arrays(root) as { readonly [field: string]: StateData };
}

/** Creates the tensors of a state read from a record on `device`. */
export function materializeState<S extends OptimizerState>(
  data: { readonly [field: string]: StateData },
  device: Device,
): S {
  const build = (v: StateData): StateValue => {
    if (v === undefined || typeof v === 'number') return v;
    if (v instanceof TensorData) return Tensor.fromData<number, Float>(v, device);
    if (Array.isArray(v)) return (v as readonly StateData[]).map(build);
    return Object.fromEntries(
      Object.entries(v as { readonly [field: string]: StateData }).map(([k, x]) => [k, build(x)]),
    );
  };
  return build(data) as S;
}

/** The state with every tensor moved to `device` (tensors already there are kept). */
export function stateToDevice<S extends StateValue>(state: S, device: Device): S {
  const move = (v: StateValue): StateValue => {
    if (v === undefined || typeof v === 'number') return v;
    if (v instanceof Tensor) return v.device().equals(device) ? v : v.toDevice(device);
    if (Array.isArray(v)) return (v as readonly StateValue[]).map(move);
    return Object.fromEntries(
      Object.entries(v as { readonly [field: string]: StateValue }).map(([k, x]) => [k, move(x)]),
    );
  };
  return move(state) as S;
}

/** Reads every tensor of a flattened state into `TensorData`, keyed by name. */
export async function readTensors(
  tensors: readonly [string, Tensor<number, Float>][],
): Promise<Record<string, TensorData>> {
  const data = await Promise.all(tensors.map(([, t]) => t.toData()));
  const out: Record<string, TensorData> = {};
  tensors.forEach(([name], i) => (out[name] = data[i]!));
  return out;
}

/**
 * `v` as `TensorData`: itself, or a copy when it only looks like one (a record built by another
 * copy of the package); undefined when it is not tensor data.
 */
export function asTensorData(v: unknown): TensorData | undefined {
  if (v instanceof TensorData) return v;
  if (typeof v !== 'object' || v === null) return undefined;
  const d = v as { dtype?: unknown; shape?: unknown; values?: unknown };
  if (typeof d.dtype !== 'string' || !Array.isArray(d.shape) || !ArrayBuffer.isView(d.values)) return undefined;
  return new TensorData(d.values as unknown as ArrayLike<number>, d.shape as number[], d.dtype as TensorData['dtype']);
}
