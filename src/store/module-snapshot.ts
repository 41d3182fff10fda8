import type { Device } from '../device/device.js';
import { dataForWriting, leafTensor, moduleLeaves, replaceLeaves, type ModuleLike } from '../module/leaves.js';
import { snakePath, stripEnumVariants } from '../module/naming.js';
import type { TensorData } from '../core/data.js';
import { isFloatDType, isIntDType, type DType } from '../core/dtype.js';
import type { Kind } from '../tensor/kind.js';
import { sameShape } from '../core/shape.js';
import { Tensor } from '../tensor/tensor.js';
import type { ModuleAdapter } from './adapter.js';
import { ApplyResult, type ApplyError } from './apply-result.js';
import type { PathFilter } from './filter.js';
import { TensorSnapshot } from './snapshot.js';

/** Options of {@link collectSnapshots}. */
export interface CollectOptions {
  readonly filter?: PathFilter;
  readonly adapter?: ModuleAdapter;
  /** Data already read (by burn-ts path), for devices that read asynchronously. */
  readonly data?: ReadonlyMap<string, TensorData>;
  /** @internal Read without copying where the backend can: the snapshots are serialized at once, never mutated. */
  readonly forWriting?: boolean;
}

/**
 * Snapshots of a module's tensors (Burn's `collect`): keyed by Burn's snake_case names, with
 * container stacks and parameter ids, filtered and adapted. Data is read when a snapshot's
 * `toData()` is called (synchronously, unless `data` supplies it).
 */
export function collectSnapshots(module: ModuleLike, options: CollectOptions = {}): TensorSnapshot[] {
  const out: TensorSnapshot[] = [];
  for (const { path, key, leaf, containerStack } of moduleLeaves(module)) {
    if (
      options.filter &&
      !options.filter.matches(key, containerStack.join('.')) &&
      !options.filter.matches(path, containerStack.join('.'))
    )
      continue;
    const tensor = leafTensor(leaf);
    const pre = options.data?.get(path);
    const snap = new TensorSnapshot(
      tensor.dtype(),
      tensor.dims(),
      key.split('.'),
      () => pre ?? (options.forWriting ? dataForWriting(tensor) : tensor.toDataSync()),
      { containerStack, paramId: leaf.id },
    );
    out.push(options.adapter ? options.adapter.adapt(snap) : snap);
  }
  return out;
}

/** Options of {@link applySnapshots}. */
export interface ApplyOptions {
  readonly filter?: PathFilter;
  readonly adapter?: ModuleAdapter;
  /** Also match source keys with enum-variant segments removed (Rust modules' `feature.BaseConv.weight` → `feature.weight`). */
  readonly skipEnumVariants?: boolean;
  /** Cast each tensor to the dtype of the parameter it loads into (default: keep the source's dtype, as Burn). */
  readonly castToModule?: boolean;
  /** Load onto this device (default: each parameter's current device). */
  readonly device?: Device;
}

function kindOf(dtype: DType): string {
  return isFloatDType(dtype) ? 'float' : isIntDType(dtype) ? 'int' : 'bool';
}

/**
 * Loads snapshots into a module (Burn's `apply`): each parameter and running state is looked up
 * by its snake_case key (then its burn-ts path, then the adapter's alternative name), adapted in
 * its context, checked (shape, kind) and loaded on the parameter's device with the source's
 * dtype and parameter id. Returns the new module (the input is untouched) and the report.
 */
export function applySnapshots<M extends ModuleLike>(
  module: M,
  snapshots: readonly TensorSnapshot[],
  options: ApplyOptions = {},
): { module: M; result: ApplyResult } {
  const byKey = new Map<string, TensorSnapshot>();
  for (const s of snapshots) byKey.set(s.fullPath(), s);
  const aliases = new Map<string, string>();
  if (options.skipEnumVariants) {
    for (const k of byKey.keys()) {
      const stripped = stripEnumVariants(k);
      if (stripped !== k && !byKey.has(stripped)) aliases.set(stripped, k);
    }
  }
  const leaves = new Map(moduleLeaves(module).map((l) => [l.path, l]));
  const used = new Set<string>();
  const applied: string[] = [];
  const skipped: string[] = [];
  const missing: string[] = [];
  const missingContainers = new Map<string, string>();
  const errors: ApplyError[] = [];

  const find = (candidates: string[]): [string, TensorSnapshot] | undefined => {
    for (const c of candidates) {
      const s = byKey.get(c);
      if (s) return [c, s];
      const a = aliases.get(c);
      if (a) return [a, byKey.get(a)!];
    }
    return undefined;
  };

  const load = (
    path: string,
    current: Tensor<number, Kind>,
  ): { tensor: Tensor<number, Kind>; id: string | undefined } | undefined => {
    const info = leaves.get(path);
    const key = info?.key ?? snakePath(path);
    const containers = info?.containerStack ?? [];
    const containerPath = containers.join('.');
    if (options.filter && !options.filter.matches(key, containerPath) && !options.filter.matches(path, containerPath)) {
      skipped.push(path);
      const f = find([key, path]);
      if (f) used.add(f[0]);
      return undefined;
    }
    let found = find([key, path]);
    if (!found && options.adapter) {
      const type = [...containers].reverse().find((c) => c.startsWith('Struct:') || c.startsWith('Enum:'));
      const parts = key.split('.');
      const alt = type === undefined ? undefined : options.adapter.alternativeParamName(parts[parts.length - 1]!, type);
      if (alt !== undefined) found = find([[...parts.slice(0, -1), alt].join('.')]);
    }
    if (!found) {
      missing.push(path);
      missingContainers.set(path, containerPath);
      return undefined;
    }
    const [sourceKey, raw] = found;
    used.add(sourceKey);
    let snap = raw.withContext(key.split('.'), containers);
    try {
      if (options.adapter) snap = options.adapter.adapt(snap);
    } catch (e) {
      errors.push({ kind: 'AdapterError', path, message: (e as Error).message });
      return undefined;
    }
    if (!sameShape(snap.shape, current.dims())) {
      errors.push({ kind: 'ShapeMismatch', path, expected: current.dims(), found: [...snap.shape] });
      return undefined;
    }
    if (kindOf(snap.dtype) !== kindOf(current.dtype())) {
      errors.push({ kind: 'DTypeMismatch', path, expected: current.dtype(), found: snap.dtype });
      return undefined;
    }
    let data: TensorData;
    try {
      // An expanded source tensor is read compact and expanded as a view below: its memory stays that of its storage.
      data = snap.toCompactData();
    } catch (e) {
      errors.push({ kind: 'LoadError', path, message: (e as Error).message });
      return undefined;
    }
    if (!snap.isExpanded() && !sameShape(data.shape, current.dims())) {
      errors.push({ kind: 'ShapeMismatch', path, expected: current.dims(), found: data.shape });
      return undefined;
    }
    if (options.castToModule && data.dtype !== current.dtype()) data = data.convert(current.dtype());
    applied.push(path);
    const loaded = Tensor.fromData(data, options.device ?? current.device()) as Tensor<number, Kind>;
    return { tensor: snap.isExpanded() ? loaded.expand(snap.shape) : loaded, id: snap.paramId };
  };

  const mapped = replaceLeaves(module, load);
  const unused = [...byKey.keys()].filter((k) => !used.has(k)).sort();
  missing.sort();
  skipped.sort();
  return { module: mapped, result: new ApplyResult(applied, skipped, missing, unused, errors, missingContainers) };
}
