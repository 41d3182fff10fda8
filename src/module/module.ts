import type { Device } from '../device/device.js';
import { TensorData } from '../core/data.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Kind } from '../tensor/kind.js';
import { sameShape } from '../core/shape.js';
import { Tensor } from '../tensor/tensor.js';
import { DefaultRecorder } from '../record/burnpack-recorder.js';
import type { Recorder } from '../record/recorder.js';
import { displayModule } from './display.js';
import {
  loadModuleFile,
  loadModuleFileAsync,
  moduleFromRecord,
  moduleToRecordAsync,
  moduleToRecordForWriting,
  saveModuleFile,
  saveModuleFileAsync,
} from './module-file.js';
import { Param } from './param.js';
import { unflattenRecord, type ModuleRecord, type RecordItem } from './record.js';
import type { ModuleStoreLike } from './store-port.js';
import { assignInPlace, joinPath, mapValue, visitValue, type Leaf, type LeafMapper } from './walk.js';

/** Selects parameters by path: a prefix (`'conv1'` matches `conv1.weight`), a regular expression, or a predicate. */
export type ParamFilter = string | RegExp | ((path: string) => boolean);

function matches(filter: ParamFilter | undefined, path: string): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'string') return path === filter || path.startsWith(`${filter}.`);
  if (filter instanceof RegExp) return filter.test(path);
  return filter(path);
}

/**
 * The base class of every model and layer (Burn's `Module`). Parameters and sub-modules are
 * discovered from the fields: a `Param`, a `RunningState`, a `Module`, or arrays and plain objects
 * of them (`undefined` for an absent optional one); any other field is a constant. Methods that
 * transform a module (`map`, `toDevice`, `valid`, `freeze`, …) return a new module of the same
 * class; untouched tensors are shared.
 *
 * Loaders are the exception, with one convention for all of them: `loadFile`, `loadFileAsync`,
 * `loadBytes`, `loadRecord` and `loadFrom` load into the module they are called on (Burn's
 * `load_from(&mut self)`; a failed load changes nothing), and all but `loadFrom` (which returns
 * its report) return that same module, so `m.loadFile(p); m.forward(x)` and Burn's
 * `model = model.loadFile(p)` both use the loaded weights. To keep the original, load into a copy:
 * `m.clone().loadFile(p)`.
 *
 * Fields are read with `Object.keys`, so declare them as ordinary (not `#private`) fields.
 */
export abstract class Module {
  /**
   * Registers the module with the open `Tensor.scope`s, if any: whatever its fields reach when a
   * scope ends (parameters, running states, constant tensors) survives that scope.
   */
  constructor() {
    Tensor.keep(this);
  }

  // --- traversal (used by the walkers; not part of the user API) ---

  /** @internal Rebuilds this module with mapped leaves (no constructor call). */
  mapLeaves(mapper: LeafMapper, path: string): this {
    const copy = Tensor.keep(Object.create(Object.getPrototypeOf(this) as object) as this);
    for (const key of Object.keys(this)) {
      (copy as Record<string, unknown>)[key] = mapValue(
        (this as Record<string, unknown>)[key],
        joinPath(path, key),
        mapper,
      );
    }
    return copy;
  }

  /** @internal Visits the leaves in field order. */
  visitLeaves(visitor: (leaf: Leaf, path: string) => void, path: string): void {
    for (const key of Object.keys(this))
      visitValue((this as Record<string, unknown>)[key], joinPath(path, key), visitor);
  }

  // --- inspection ---

  /** Number of parameter elements (running states are not counted). */
  numParams(): number {
    let n = 0;
    this.visit((p) => (n += p.val().numel()));
    return n;
  }

  /** Calls `visitor(param, path)` for every parameter, with paths like `conv1.weight`. */
  visit(visitor: (param: Param, path: string) => void): void {
    this.visitLeaves((leaf, path) => {
      if (leaf instanceof Param) visitor(leaf, path);
    }, '');
  }

  /** A new module whose parameters are `mapper(param, path)`. */
  map(mapper: (param: Param, path: string) => Param): this {
    return this.mapLeaves({ param: mapper }, '');
  }

  /** Every parameter by path. */
  params(): Map<string, Param> {
    const out = new Map<string, Param>();
    this.visit((p, path) => out.set(path, p));
    return out;
  }

  /** The devices the parameters live on. */
  devices(): Device[] {
    const out: Device[] = [];
    this.visitLeaves((leaf) => {
      const d = leaf instanceof Param ? leaf.device() : leaf.value().device();
      if (!out.includes(d)) out.push(d);
    }, '');
    return out;
  }

  // --- devices and gradients ---

  /** The module on `device` (parameters keep their ids and requireGrad flags). */
  toDevice(device: Device): this {
    return this.mapLeaves(
      {
        param: (p) => p.withTensor(p.val().toDevice(device)),
        state: (s) => s.update(s.value().toDevice(device)),
        tensor: (t) => t.toDevice(device),
      },
      '',
    );
  }

  /** The module on `device` with fresh, detached leaves (Burn's `fork`). */
  fork(device: Device): this {
    return this.mapLeaves(
      {
        param: (p) => p.withTensor(p.val().detach().toDevice(device)),
        state: (s) => s.update(s.value().toDevice(device)),
        tensor: (t) => t.detach().toDevice(device),
      },
      '',
    );
  }

  /** The same module with every parameter marked as not requiring grad. */
  noGrad(): this {
    return this.freeze();
  }

  /** Marks the selected parameters (all when no filter) as frozen: no gradients, not updated. */
  freeze(filter?: ParamFilter): this {
    return this.map((p, path) => (matches(filter, path) ? p.setRequireGrad(false) : p));
  }

  /** Marks the selected parameters (all when no filter) as trainable again. */
  unfreeze(filter?: ParamFilter): this {
    return this.map((p, path) => (matches(filter, path) ? p.setRequireGrad(true) : p));
  }

  /** The module on the inner device of its autodiff device, for validation and inference (Burn's `valid`). */
  valid(): this {
    return this.mapLeaves(
      {
        param: (p) => p.withTensor(p.val().inner()),
        state: (s) => s.update(s.value().inner()),
        tensor: (t) => t.inner(),
      },
      '',
    );
  }

  /** The module on the autodiff device over its current device (the reverse of {@link valid}). */
  train(): this {
    const to = (t: Tensor<number, Kind>) => {
      const device = t.device();
      return device.isAutodiff() ? t : Tensor.fromInner(t, device.autodiff());
    };
    return this.mapLeaves(
      {
        param: (p) => p.withTensor(to(p.val())),
        state: (s) => s.update(to(s.value())),
        tensor: (t) => to(t),
      },
      '',
    );
  }

  /** A copy sharing every tensor. */
  clone(): this {
    return this.mapLeaves({}, '');
  }

  // --- records ---

  /** The parameters and running states as `TensorData`, nested like the module (reads every tensor). */
  async toRecord(): Promise<ModuleRecord> {
    const leaves: [string, Tensor<number, Kind>][] = [];
    this.visitLeaves((leaf, path) => leaves.push([path, leaf instanceof Param ? leaf.val() : leaf.value()]), '');
    const data = await Promise.all(leaves.map(([, t]) => t.toData()));
    return unflattenRecord(leaves.map(([path], i) => [path, data[i]!]));
  }

  /**
   * Loads the parameters and running states of `record` into this module, in place (moved to each
   * parameter's device; ids and requireGrad kept), and returns it. A missing entry, or a shape or
   * dtype mismatch, is a BurnError naming the path, and this module is unchanged.
   */
  loadRecord(record: ModuleRecord): this {
    const load = (path: string, current: Tensor<number, Kind>): Tensor<number, Kind> => {
      const data = lookup(record, path);
      if (!(data instanceof TensorData)) throw new BurnError('loadRecord', `no tensor for '${path}' in the record`);
      if (!sameShape(data.shape, current.dims())) {
        throw new BurnError(
          'loadRecord',
          `'${path}' has shape ${fmt(data.shape)} in the record; the module expects ${fmt(current.dims())}`,
        );
      }
      if (data.dtype !== current.dtype()) {
        throw new BurnError(
          'loadRecord',
          `'${path}' has dtype ${data.dtype} in the record; the module expects ${current.dtype()}`,
        );
      }
      return Tensor.fromData(data, current.device());
    };
    return this.loadInPlace(
      this.mapLeaves(
        {
          param: (p, path) => p.withTensor(load(path, p.val())),
          state: (s, path) => s.update(load(path, s.value())),
        },
        '',
      ),
    );
  }

  /** Takes the leaves of `loaded` (a rebuilt copy of this module) into this module; returns this. */
  private loadInPlace(loaded: this): this {
    assignInPlace(this, loaded);
    return this;
  }

  // --- files and stores (burn-ts/record, burn-ts/store) ---

  /**
   * Saves the parameters and running states to `path` with `recorder` (default: burnpack,
   * `.bpk` appended when the path has no extension). Reads tensors synchronously (CPU); use
   * {@link saveFileAsync} on devices that read asynchronously. Returns the path written.
   */
  saveFile(path: string, recorder: Recorder = new DefaultRecorder()): string {
    return saveModuleFile(this, path, recorder);
  }

  /** {@link saveFile} on every device. */
  saveFileAsync(path: string, recorder: Recorder = new DefaultRecorder()): Promise<string> {
    return saveModuleFileAsync(this, path, recorder);
  }

  /**
   * Loads the tensors of `path` (written by `recorder`, default burnpack) into this module, in
   * place, on `device`, and returns this module: every tensor must be there with the right shape
   * (floats are cast to the module's dtype) and parameter ids are restored. On any error this
   * module is unchanged. (See the class doc: every loader loads in place.)
   */
  loadFile(path: string, device?: Device, recorder: Recorder = new DefaultRecorder()): this {
    return this.loadInPlace(loadModuleFile(this, path, device, recorder));
  }

  /** Asynchronous {@link loadFile} (in place; resolves with this module). */
  async loadFileAsync(path: string, device?: Device, recorder: Recorder = new DefaultRecorder()): Promise<this> {
    return this.loadInPlace(await loadModuleFileAsync(this, path, device, recorder));
  }

  /** The saved bytes (default recorder: burnpack), without a file system. */
  toBytes(recorder: Recorder = new DefaultRecorder()): Uint8Array {
    return recorder.toBytes(moduleToRecordForWriting(this));
  }

  /** {@link toBytes} on every device. */
  async toBytesAsync(recorder: Recorder = new DefaultRecorder()): Promise<Uint8Array> {
    return recorder.toBytes(await moduleToRecordAsync(this));
  }

  /** Loads bytes written by {@link toBytes} into this module, in place, and returns it (same rules as {@link loadFile}). */
  loadBytes(bytes: Uint8Array, device?: Device, recorder: Recorder = new DefaultRecorder()): this {
    return this.loadInPlace(moduleFromRecord(this, recorder.fromBytes(bytes), device, '<bytes>'));
  }

  /** Saves the tensors into a store (Burn's `save_into`; synchronous reads, CPU), e.g. a `burn-ts/store` `ModuleStore`. */
  saveInto(store: ModuleStoreLike<unknown>): void {
    store.collectFrom(this);
  }

  /** {@link saveInto} on every device. */
  saveIntoAsync(store: ModuleStoreLike<unknown>): Promise<void> {
    return store.collectFromAsync(this);
  }

  /**
   * Loads tensors from a store into this module, in place (Burn's `load_from(&mut self)`), and
   * returns the report (a `ModuleStore`'s `ApplyResult`). When the store refuses the result
   * (errors, or missing tensors without `allowPartial`) it throws and this module is unchanged.
   */
  loadFrom<Result>(store: ModuleStoreLike<Result>): Result {
    const { module, result } = store.applyTo(this);
    this.loadInPlace(module);
    return result;
  }

  /** Asynchronous {@link loadFrom}. */
  async loadFromAsync<Result>(store: ModuleStoreLike<Result>): Promise<Result> {
    const { module, result } = await store.applyToAsync(this);
    this.loadInPlace(module);
    return result;
  }

  // --- display ---

  /**
   * One-line attributes for leaf layers (`Linear {dInput: 4, dOutput: 2, bias: true, params: 10}`);
   * undefined prints the field tree instead.
   */
  displayAttributes(): Record<string, unknown> | undefined {
    return undefined;
  }

  /** Burn's module tree: fields, attributes and parameter counts. */
  toString(): string {
    return displayModule(this);
  }

  /** @internal Node's util.inspect hook. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}

function lookup(record: ModuleRecord, path: string): RecordItem {
  let node: RecordItem = record;
  for (const part of path.split('.')) {
    if (node === undefined || node instanceof TensorData) return undefined;
    node = Array.isArray(node) ? (node as readonly RecordItem[])[Number(part)] : (node as ModuleRecord)[part];
  }
  return node;
}
