import { BurnError } from '../core/errors.js';
import type { ModuleAdapter } from './adapter.js';
import type { ApplyResult } from './apply-result.js';
import { PathFilter, type PathPredicate } from './filter.js';
import { readModuleData, type ModuleLike } from '../module/leaves.js';
import type { ModuleStoreLike } from '../module/store-port.js';
import { applySnapshots, collectSnapshots } from './module-snapshot.js';
import { KeyRemapper, mapIndicesContiguous } from './remap.js';
import type { TensorSnapshot } from './snapshot.js';

/**
 * A place modules save their tensors into and load them from (Burn's `ModuleStore`), with the
 * options every store shares: a path filter, key remapping, adapters for each direction, partial
 * loading and validation. Builder methods change the store and return it.
 */
export abstract class ModuleStore implements ModuleStoreLike<ApplyResult> {
  protected filter: PathFilter | undefined;
  protected remapper = KeyRemapper.new();
  protected fromAdapter: ModuleAdapter | undefined;
  protected toAdapter: ModuleAdapter | undefined;
  protected partial = false;
  protected validating = true;
  protected skipVariants = false;
  protected contiguousIndices = false;
  private cache: Map<string, TensorSnapshot> | undefined;

  /** The operation named in this store's errors. */
  protected abstract readonly op: string;

  /** The source's tensors under their stored keys (before remapping). */
  protected abstract readSnapshots(): TensorSnapshot[];
  /** Writes tensors under their keys. */
  protected abstract writeSnapshots(snapshots: TensorSnapshot[]): void;

  /** Asynchronous {@link readSnapshots} (defaults to the synchronous one). */
  protected readSnapshotsAsync(): Promise<TensorSnapshot[]> {
    return Promise.resolve(this.readSnapshots());
  }

  /** Asynchronous {@link writeSnapshots} (defaults to the synchronous one). */
  protected writeSnapshotsAsync(snapshots: TensorSnapshot[]): Promise<void> {
    this.writeSnapshots(snapshots);
    return Promise.resolve();
  }

  // --- options ---

  /** Uses `filter` (replacing the current one): only selected tensors are saved or loaded. */
  withFilter(filter: PathFilter): this {
    this.filter = filter;
    return this;
  }

  /** Also selects paths matching `pattern`. */
  withRegex(pattern: string | RegExp): this {
    this.filter = (this.filter ?? PathFilter.new()).withRegex(pattern);
    return this;
  }

  /** Also selects paths matching any of `patterns`. */
  withRegexes(patterns: Iterable<string | RegExp>): this {
    this.filter = (this.filter ?? PathFilter.new()).withRegexes(patterns);
    return this;
  }

  /** Also selects `path` exactly. */
  withFullPath(path: string): this {
    this.filter = (this.filter ?? PathFilter.new()).withFullPath(path);
    return this;
  }

  /** Also selects these paths exactly. */
  withFullPaths(paths: Iterable<string>): this {
    this.filter = (this.filter ?? PathFilter.new()).withFullPaths(paths);
    return this;
  }

  /** Also selects tensors `predicate(path, containerPath)` accepts. */
  withPredicate(predicate: PathPredicate): this {
    this.filter = (this.filter ?? PathFilter.new()).withPredicate(predicate);
    return this;
  }

  /** Selects every tensor (the default). */
  matchAll(): this {
    this.filter = PathFilter.all();
    return this;
  }

  /** Renames keys matching `from` (a regular expression) to `to` (`$1` for groups); patterns apply in order. */
  withKeyRemapping(from: string | RegExp, to: string): this {
    this.remapper = this.remapper.addPattern(from, to);
    this.cache = undefined;
    return this;
  }

  /** Uses `remapper` for key renaming. */
  remap(remapper: KeyRemapper): this {
    this.remapper = remapper;
    this.cache = undefined;
    return this;
  }

  /** Adapter applied while loading (source layout → Burn). */
  withFromAdapter(adapter: ModuleAdapter): this {
    this.fromAdapter = adapter;
    return this;
  }

  /** Adapter applied while saving (Burn → target layout). */
  withToAdapter(adapter: ModuleAdapter): this {
    this.toAdapter = adapter;
    return this;
  }

  /** Whether loading may leave module tensors missing from the source (default false: missing tensors throw). */
  allowPartial(allow: boolean): this {
    this.partial = allow;
    return this;
  }

  /** Whether loading throws on errors (shape or dtype mismatch; default true). */
  validate(validate: boolean): this {
    this.validating = validate;
    return this;
  }

  /** Whether source keys match with enum-variant segments removed (Rust modules name variants in paths). */
  skipEnumVariants(skip: boolean): this {
    this.skipVariants = skip;
    return this;
  }

  /** Whether numeric key segments are renumbered 0, 1, 2, … per prefix before matching (PyTorch Sequential gaps). */
  mapIndicesContiguous(map: boolean): this {
    this.contiguousIndices = map;
    this.cache = undefined;
    return this;
  }

  // --- reading ---

  private keyed(raw: TensorSnapshot[]): Map<string, TensorSnapshot> {
    let snaps = raw;
    if (!this.remapper.isEmpty()) snaps = snaps.map((s) => s.withPath(this.remapper.remapKey(s.fullPath()).split('.')));
    if (this.contiguousIndices) {
      const m = mapIndicesContiguous(snaps.map((s) => s.fullPath()));
      snaps = snaps.map((s) => s.withPath(m.get(s.fullPath())!.split('.')));
    }
    return new Map(snaps.map((s) => [s.fullPath(), s]));
  }

  /** Every tensor of the source, by key (after remapping), sorted. */
  getAllSnapshots(): Map<string, TensorSnapshot> {
    this.cache ??= this.keyed(this.readSnapshots());
    return new Map([...this.cache].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** One tensor by key (after remapping), or undefined. */
  getSnapshot(name: string): TensorSnapshot | undefined {
    return this.getAllSnapshots().get(name);
  }

  /** The keys of the source (after remapping), sorted. */
  keys(): string[] {
    return [...this.getAllSnapshots().keys()];
  }

  // --- module side (used by Module.saveInto / loadFrom) ---

  /** @internal Saves a module's tensors (synchronous reads of the tensors). */
  collectFrom(module: ModuleLike): void {
    this.cache = undefined;
    this.writeSnapshots(this.prepare(module, undefined));
  }

  /** @internal Asynchronous {@link collectFrom}: reads every tensor with `await toData()`. */
  async collectFromAsync(module: ModuleLike): Promise<void> {
    this.cache = undefined;
    await this.writeSnapshotsAsync(this.prepare(module, await readModuleData(module)));
  }

  private prepare(module: ModuleLike, data: Awaited<ReturnType<typeof readModuleData>> | undefined): TensorSnapshot[] {
    const snaps = collectSnapshots(module, {
      ...(this.filter && !this.filter.isEmpty() ? { filter: this.filter } : {}),
      ...(this.toAdapter ? { adapter: this.toAdapter } : {}),
      ...(data ? { data } : {}),
      forWriting: true,
    });
    return this.remapper.isEmpty()
      ? snaps
      : snaps.map((s) => s.withPath(this.remapper.remapKey(s.fullPath()).split('.')));
  }

  /** @internal Loads into a copy of `module`; throws (leaving `module` untouched) per `validate` and `allowPartial`. */
  applyTo<M extends ModuleLike>(module: M): { module: M; result: ApplyResult } {
    return this.finish(module, [...this.getAllSnapshots().values()]);
  }

  /** @internal Asynchronous {@link applyTo}. */
  async applyToAsync<M extends ModuleLike>(module: M): Promise<{ module: M; result: ApplyResult }> {
    this.cache ??= this.keyed(await this.readSnapshotsAsync());
    return this.finish(module, [...this.cache.values()]);
  }

  private finish<M extends ModuleLike>(module: M, snapshots: TensorSnapshot[]): { module: M; result: ApplyResult } {
    const out = applySnapshots(module, snapshots, {
      ...(this.filter && !this.filter.isEmpty() ? { filter: this.filter } : {}),
      ...(this.fromAdapter ? { adapter: this.fromAdapter } : {}),
      skipEnumVariants: this.skipVariants,
    });
    const { result } = out;
    if (this.validating && result.errors.length > 0) {
      throw new BurnError(this.op, `${this.describe()}: import errors, the module is unchanged:\n${result}`);
    }
    if (!this.partial && result.missing.length > 0) {
      throw new BurnError(
        this.op,
        `${this.describe()}: ${result.missing.length} tensor(s) missing, the module is unchanged:\n${result}\n\nHint: use .allowPartial(true) on the store to get an ApplyResult with the missing tensors instead of an error.`,
      );
    }
    return out;
  }

  /** Names the store's file or memory in errors. */
  protected abstract describe(): string;
}
