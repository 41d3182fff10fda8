import type { TensorData } from '../core/data.js';
import type { Kind } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { snakePath } from './naming.js';
import { Param, RunningState, type ParamId } from './param.js';
import { isPlainObject, type Leaf, type LeafMapper, type Mappable } from './walk.js';

/**
 * A module's leaves as files and stores see them: each parameter and running state with its
 * burn-ts path, its file key (Burn's snake_case) and its container stack. Shared by the record
 * files (./module-file.ts) and `burn-ts/store`, which sits above this layer.
 */

/** A module as the record files and stores see it (the Module base class). */
export type ModuleLike = Mappable;

/** A parameter or running state found in a module, with its path and containers. */
export interface ModuleLeaf {
  /** The burn-ts path (`norm.runningMean`). */
  readonly path: string;
  /** The key written to files: Burn's snake_case (`norm.running_mean`). */
  readonly key: string;
  readonly leaf: Leaf;
  readonly containerStack: readonly string[];
}

function isMappable(v: unknown): v is Mappable {
  return typeof v === 'object' && v !== null && typeof (v as Partial<Mappable>).mapLeaves === 'function';
}

function containerType(v: object): string {
  const ctor = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor;
  return `Struct:${ctor?.name ?? 'Module'}`;
}

/** Every parameter and running state of `module`, in field order, with container stacks. */
export function moduleLeaves(module: ModuleLike): ModuleLeaf[] {
  const out: ModuleLeaf[] = [];
  const walk = (value: unknown, path: string[], containers: string[]): void => {
    if (value instanceof Param || value instanceof RunningState) {
      const p = path.join('.');
      out.push({ path: p, key: snakePath(p), leaf: value, containerStack: containers });
      return;
    }
    if (isMappable(value)) {
      const c = [...containers, containerType(value)];
      for (const k of Object.keys(value)) walk((value as unknown as Record<string, unknown>)[k], [...path, k], c);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, [...path, String(i)], [...containers, 'Vec']));
    } else if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k], [...containers, 'Map']);
    }
  };
  walk(module, [], []);
  return out;
}

/** The tensor of a parameter or running state. */
export function leafTensor(leaf: Leaf): Tensor<number, Kind> {
  return leaf instanceof Param ? leaf.val() : (leaf.value() as Tensor<number, Kind>);
}

/** Reads every tensor of a module asynchronously, by burn-ts path (for devices that read asynchronously). */
export async function readModuleData(module: ModuleLike): Promise<Map<string, TensorData>> {
  const leaves = moduleLeaves(module);
  const data = await Promise.all(leaves.map((l) => leafTensor(l.leaf).toData()));
  return new Map(leaves.map((l, i) => [l.path, data[i]!]));
}

/** @internal `tensor`'s values for serializing at once: a view of its storage where the backend has one, else a copy. */
export function dataForWriting(tensor: Tensor<number, Kind>): TensorData {
  return tensor.backend.viewDataSync?.(tensor.primitive) ?? tensor.toDataSync();
}

/** A tensor loaded for one leaf, with the parameter id it takes (undefined: the leaf keeps its own). */
export interface LoadedLeaf {
  readonly tensor: Tensor<number, Kind>;
  readonly id: ParamId | undefined;
}

/**
 * A copy of `module` in which every leaf that `load(path, current)` returns a tensor for is
 * replaced (a parameter keeps its requireGrad flag); the other leaves and `module` are untouched.
 */
export function replaceLeaves<M extends ModuleLike>(
  module: M,
  load: (path: string, current: Tensor<number, Kind>) => LoadedLeaf | undefined,
): M {
  const mapper: LeafMapper = {
    param: (p, path) => {
      const r = load(path, p.val());
      return r ? new Param(r.tensor, { id: r.id ?? p.id, requireGrad: p.requireGrad }) : p;
    },
    state: (s, path) => {
      const r = load(path, s.value() as Tensor<number, Kind>);
      return r ? new RunningState(r.tensor, r.id ?? s.id) : s;
    },
  };
  return module.mapLeaves(mapper, '') as M;
}
