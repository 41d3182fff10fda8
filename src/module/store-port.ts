import type { ModuleLike } from './leaves.js';

/**
 * What `Module.saveInto` / `loadFrom` need of a store. `burn-ts/store`'s `ModuleStore` implements
 * it with `Result` = its `ApplyResult`; the interface is declared here, in the module layer,
 * because the stores sit above the modules they save (Burn: burn-store depends on burn-core).
 */
export interface ModuleStoreLike<Result> {
  /** Saves a module's tensors (synchronous reads of the tensors). */
  collectFrom(module: ModuleLike): void;
  /** Asynchronous {@link collectFrom}. */
  collectFromAsync(module: ModuleLike): Promise<void>;
  /** Loads into a copy of `module` and reports; throws, leaving `module` untouched, when the store refuses the result. */
  applyTo<M extends ModuleLike>(module: M): { module: M; result: Result };
  /** Asynchronous {@link applyTo}. */
  applyToAsync<M extends ModuleLike>(module: M): Promise<{ module: M; result: Result }>;
}
