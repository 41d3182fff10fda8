/**
 * How a data loader worker thread reopens a dataset (or a mapper) that lives on the main thread.
 *
 * A worker cannot receive a dataset object (its class and closures do not cross threads); it
 * receives a recipe instead: the URL of an ES module, the name of a function exported by it, and
 * arguments that survive a structured clone (plain data, typed arrays, `SharedArrayBuffer`s, which
 * are shared rather than copied). The worker imports the module and calls
 * `fn(args, revive)`; `revive(recipe)` reopens a nested recipe (the dataset a transform wraps).
 *
 * ```ts
 * export function openCsvRows(args: { path: string }) { return new CsvRows(args.path); }
 * class CsvRows implements Dataset<Row> {
 *   constructor(readonly path: string) {}
 *   workerRecipe() { return { module: import.meta.url, export: 'openCsvRows', args: { path: this.path } }; }
 *   …
 * }
 * ```
 */
export interface WorkerRecipe {
  /** URL (`file://…`) or specifier of the ES module that exports the factory. */
  readonly module: string;
  /** The name of the exported factory: `(args, revive) => object | Promise<object>`. */
  readonly export: string;
  /** The factory's arguments; they must survive a structured clone. */
  readonly args?: unknown;
}

/** Reopens a nested recipe inside a factory. */
export type Revive = (recipe: WorkerRecipe) => Promise<unknown>;

/** A factory named by a {@link WorkerRecipe}. */
export type RecipeFactory = (args: never, revive: Revive) => unknown;

/** Something that may describe itself as a {@link WorkerRecipe}. */
export interface MaybeReopenable {
  workerRecipe?(): WorkerRecipe | undefined;
}

/** The recipe of `value`, or `undefined` when it has none (or says it cannot be reopened). */
export function recipeOf(value: unknown): WorkerRecipe | undefined {
  const candidate = value as MaybeReopenable | null;
  if (candidate === null || (typeof candidate !== 'object' && typeof candidate !== 'function')) return undefined;
  return typeof candidate.workerRecipe === 'function' ? candidate.workerRecipe() : undefined;
}

/** Reopens the object a recipe describes (in a worker thread): imports the module and calls its factory. */
export async function reviveRecipe(r: WorkerRecipe): Promise<unknown> {
  const mod = (await import(r.module)) as Record<string, unknown>;
  const factory = mod[r.export];
  if (typeof factory !== 'function') {
    throw new Error(
      `the recipe names export '${r.export}' of ${r.module}, which is not a function (exports: ${Object.keys(mod).join(', ')})`,
    );
  }
  return await (factory as (args: unknown, revive: Revive) => unknown)(r.args, reviveRecipe);
}

/** Every module URL a recipe (and the recipes nested in its arguments) imports. */
export function recipeModules(r: WorkerRecipe): string[] {
  const out = new Set<string>();
  const walk = (value: unknown, depth: number): void => {
    if (depth > 64 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    if (
      value instanceof ArrayBuffer ||
      (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)
    )
      return;
    const v = value as Partial<WorkerRecipe>;
    if (typeof v.module === 'string' && typeof v.export === 'string') out.add(v.module);
    if (Array.isArray(value)) {
      if (value.length > 0 && typeof value[0] !== 'object') return;
      for (const x of value) walk(x, depth + 1);
    } else {
      for (const x of Object.values(value)) walk(x, depth + 1);
    }
  };
  walk(r, 0);
  return [...out];
}
