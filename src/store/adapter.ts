import { TensorData } from '../core/data.js';
import { dtypeSize, isFloatDType, type DType, type FloatDType } from '../core/dtype.js';
import { BurnError } from '../core/errors.js';
import type { TensorSnapshot } from './snapshot.js';

/** Container types of Burn's layers, as they appear in a snapshot's container stack. */
const LINEAR = 'Struct:Linear';
const NORMS = new Set(['Struct:BatchNorm', 'Struct:LayerNorm', 'Struct:GroupNorm', 'Struct:RmsNorm']);
const HALF_DEFAULT = [
  'Linear',
  'Embedding',
  'Conv1d',
  'Conv2d',
  'Conv3d',
  'ConvTranspose1d',
  'ConvTranspose2d',
  'ConvTranspose3d',
  'DeformConv2d',
  'LayerNorm',
  'GroupNorm',
  'InstanceNorm',
  'RmsNorm',
  'PRelu',
].map((n) => `Struct:${n}`);

/**
 * Transforms snapshots between layouts while saving or loading (Burn's `ModuleAdapter`), using
 * the snapshot's container stack to know which layer a tensor belongs to.
 */
export abstract class ModuleAdapter {
  /** The adapted snapshot (may rename, transpose or cast; lazily). */
  abstract adapt(snapshot: TensorSnapshot): TensorSnapshot;

  /** Another parameter name to look for when `paramName` is absent (e.g. PyTorch's `weight` for Burn's `gamma`). */
  alternativeParamName(_paramName: string, _containerType: string): string | undefined {
    return undefined;
  }

  /** This adapter, then `next`. */
  chain(next: ModuleAdapter): ChainAdapter {
    return new ChainAdapter(this, next);
  }
}

/** Two adapters in sequence (Burn's `ChainAdapter`). */
export class ChainAdapter extends ModuleAdapter {
  constructor(
    private readonly first: ModuleAdapter,
    private readonly second: ModuleAdapter,
  ) {
    super();
  }

  override adapt(snapshot: TensorSnapshot): TensorSnapshot {
    return this.second.adapt(this.first.adapt(snapshot));
  }

  override alternativeParamName(paramName: string, containerType: string): string | undefined {
    const a = this.first.alternativeParamName(paramName, containerType);
    if (a !== undefined) return this.second.alternativeParamName(a, containerType) ?? a;
    return this.second.alternativeParamName(paramName, containerType);
  }
}

/** Leaves snapshots unchanged. */
export class IdentityAdapter extends ModuleAdapter {
  override adapt(snapshot: TensorSnapshot): TensorSnapshot {
    return snapshot;
  }
}

/** Transposes 2-D data (any dtype, at the byte level). */
export function transposeData(data: TensorData): TensorData {
  const [rows, cols] = data.shape as [number, number];
  const size = data.dtype === 'bool' ? 1 : dtypeSize(data.dtype);
  const src = data.bytes;
  const out = new Uint8Array(src.length);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const s = (i * cols + j) * size;
      const d = (j * rows + i) * size;
      for (let k = 0; k < size; k++) out[d + k] = src[s + k]!;
    }
  }
  return TensorData.fromBytes(out, [cols, rows], data.dtype);
}

function lastSegment(s: TensorSnapshot): string | undefined {
  return s.pathStack[s.pathStack.length - 1];
}

function adaptPytorch(snapshot: TensorSnapshot, toBurn: boolean): TensorSnapshot {
  const name = lastSegment(snapshot);
  const type = snapshot.moduleType();
  if (name === undefined || type === undefined) return snapshot;
  if (type === LINEAR && name === 'weight' && snapshot.shape.length === 2) {
    // Transposing commutes with broadcasting: an expanded weight stays compact.
    const [c0, c1] = snapshot.compactShape as [number, number];
    return snapshot.mapCompact(snapshot.dtype, [snapshot.shape[1]!, snapshot.shape[0]!], [c1, c0], transposeData);
  }
  if (NORMS.has(type)) {
    const renamed = toBurn ? { weight: 'gamma', bias: 'beta' }[name] : { gamma: 'weight', beta: 'bias' }[name];
    if (renamed) return snapshot.withPath([...snapshot.pathStack.slice(0, -1), renamed]);
  }
  return snapshot;
}

/**
 * PyTorch → Burn layouts (Burn's `PyTorchToBurnAdapter`): Linear weights transposed
 * (`[out, in]` → `[in, out]`), normalization `weight`/`bias` renamed `gamma`/`beta`. Running
 * statistics keep their names (`running_mean`, `running_var`; burn-ts's `runningMean` matches
 * through snake_case keys).
 */
export class PyTorchToBurnAdapter extends ModuleAdapter {
  override adapt(snapshot: TensorSnapshot): TensorSnapshot {
    return adaptPytorch(snapshot, true);
  }

  override alternativeParamName(paramName: string, containerType: string): string | undefined {
    return NORMS.has(containerType) ? { gamma: 'weight', beta: 'bias' }[paramName] : undefined;
  }
}

/** Burn → PyTorch layouts (Burn's `BurnToPyTorchAdapter`): the inverse of {@link PyTorchToBurnAdapter}. */
export class BurnToPyTorchAdapter extends ModuleAdapter {
  override adapt(snapshot: TensorSnapshot): TensorSnapshot {
    return adaptPytorch(snapshot, false);
  }

  override alternativeParamName(paramName: string, containerType: string): string | undefined {
    return NORMS.has(containerType) ? { weight: 'gamma', bias: 'beta' }[paramName] : undefined;
  }
}

function castSnapshot(snapshot: TensorSnapshot, target: DType): TensorSnapshot {
  return snapshot.mapCompact(target, snapshot.shape, snapshot.compactShape, (d) => d.convert(target));
}

/**
 * Mixed-precision storage (Burn's `HalfPrecisionAdapter`): f32 → f16 and f16 → f32 (the
 * direction from the snapshot's dtype), for the weights of Linear, Embedding, the convolutions,
 * LayerNorm, GroupNorm, InstanceNorm, RmsNorm and PRelu. BatchNorm is left out by default
 * (its running variance underflows in f16).
 */
export class HalfPrecisionAdapter extends ModuleAdapter {
  private readonly modules: ReadonlySet<string>;

  constructor(modules: Iterable<string> = HALF_DEFAULT) {
    super();
    this.modules = new Set(modules);
  }

  /** Also converts `moduleType` (`'MyLayer'` or `'Struct:MyLayer'`). */
  withModule(moduleType: string): HalfPrecisionAdapter {
    return new HalfPrecisionAdapter([...this.modules, qualify(moduleType)]);
  }

  /** No longer converts `moduleType` (must be in the set). */
  withoutModule(moduleType: string): HalfPrecisionAdapter {
    const key = qualify(moduleType);
    if (!this.modules.has(key))
      throw new BurnError(
        'HalfPrecisionAdapter.withoutModule',
        `'${key}' is not in the module set (${[...this.modules].join(', ')})`,
      );
    return new HalfPrecisionAdapter([...this.modules].filter((m) => m !== key));
  }

  override adapt(snapshot: TensorSnapshot): TensorSnapshot {
    const target = snapshot.dtype === 'f32' ? 'f16' : snapshot.dtype === 'f16' ? 'f32' : undefined;
    const type = snapshot.moduleType();
    if (target === undefined || type === undefined || !this.modules.has(type)) return snapshot;
    return castSnapshot(snapshot, target);
  }
}

function qualify(name: string): string {
  return name.includes(':') ? name : `Struct:${name}`;
}

/** Casts every float tensor to one dtype, whatever its module (Burn's `FloatCastAdapter`); ints and bools pass. */
export class FloatCastAdapter extends ModuleAdapter {
  private constructor(private readonly target: FloatDType) {
    super();
  }

  /** An adapter casting floats to `target` (a float dtype). */
  static to(target: DType): FloatCastAdapter {
    if (!isFloatDType(target))
      throw new BurnError('FloatCastAdapter.to', `target must be a float dtype (f64, f32, f16, bf16), got ${target}`);
    return new FloatCastAdapter(target);
  }

  override adapt(snapshot: TensorSnapshot): TensorSnapshot {
    if (!isFloatDType(snapshot.dtype) || snapshot.dtype === this.target) return snapshot;
    return castSnapshot(snapshot, this.target);
  }
}
