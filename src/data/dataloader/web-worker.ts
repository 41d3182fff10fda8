import { BurnError } from '../../core/errors.js';
import type { Dataset } from '../dataset/dataset.js';
import { openInMemDataset } from '../dataset/in-memory.js';
import type { RecipeFactory, Revive, WorkerRecipe } from '../dataset/recipe.js';
import { openComposedDataset } from '../dataset/transform/composed.js';
import { openMapperDataset } from '../dataset/transform/mapper.js';
import { openPartialDataset } from '../dataset/transform/partial.js';
import { openSamplerDataset } from '../dataset/transform/sampler.js';
import { openSelectionDataset } from '../dataset/transform/selection.js';
import { openWindowsDataset } from '../dataset/transform/windows.js';
import type { InitRequest, LoadRequest } from './worker-protocol.js';
import { errorReply, serveLoads } from './worker-serve.js';

/** The part of a Web Worker (`new Worker(…)` in a page) the data loader uses. */
export interface WebWorkerLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message' | 'error' | 'messageerror', listener: (event: unknown) => void): void;
  terminate(): void;
}

/** The part of a Web Worker's global scope (`self` inside the worker) the data loader uses. */
interface WorkerScope {
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

/** The factories of burn-ts's own datasets and transforms that a page can use (the Node-only sources are not among them). */
const BUILT_IN: Record<string, RecipeFactory> = {
  openInMemDataset,
  openComposedDataset,
  openMapperDataset,
  openPartialDataset,
  openSamplerDataset,
  openSelectionDataset,
  openWindowsDataset,
};

/** Reopens `recipe` with the factories registered by name (a bundle has no module URLs to import). */
function reviveByName(factories: Readonly<Record<string, RecipeFactory>>): Revive {
  const revive: Revive = async (recipe: WorkerRecipe) => {
    const factory = Object.hasOwn(factories, recipe.export) ? factories[recipe.export] : undefined;
    if (typeof factory !== 'function') {
      throw new BurnError(
        'serveDataWorker',
        `the dataset's recipe names the factory '${recipe.export}' (of ${recipe.module}), which this worker does not serve; pass it: serveDataWorker({ ${recipe.export} }) (served: ${Object.keys(factories).join(', ')})`,
      );
    }
    return await (factory as (args: unknown, revive: Revive) => unknown)(recipe.args, revive);
  };
  return revive;
}

/**
 * Serves the data loader from a Web Worker: call it in the worker module a page passes to
 * `DataLoaderBuilder.webWorker`, with the factories its datasets' `workerRecipe()`s name (burn-ts's
 * own in-memory dataset and transforms are served already). A bundle renames modules, so a
 * recipe's factory is found by its export name here rather than imported from its module URL.
 *
 * ```ts
 * // data-worker.ts
 * import { serveDataWorker } from 'burn-ts/data';
 * import { openDigits } from './digits.js';
 * serveDataWorker({ openDigits });
 * ```
 */
export function serveDataWorker(factories: Readonly<Record<string, RecipeFactory>> = {}): void {
  const scope = globalThis as unknown as Partial<WorkerScope> & { document?: unknown };
  if (
    typeof scope.postMessage !== 'function' ||
    typeof scope.addEventListener !== 'function' ||
    scope.document !== undefined
  ) {
    throw new BurnError(
      'serveDataWorker',
      'must run inside a Web Worker (the module a page starts with new Worker(…)), not on a page or in Node',
    );
  }
  for (const [name, f] of Object.entries(factories)) {
    if (typeof f !== 'function')
      throw new BurnError(
        'serveDataWorker',
        `factory '${name}' is ${typeof f}; expected a function (args, revive) => dataset`,
      );
  }
  const revive = reviveByName({ ...BUILT_IN, ...factories });
  const post = (reply: unknown, transfer?: ArrayBuffer[]): void => scope.postMessage!(reply, transfer ?? []);
  let onLoad: ((request: LoadRequest) => void) | undefined;
  scope.addEventListener('message', (event) => {
    const message = event.data as InitRequest | LoadRequest;
    if (message.type === 'init') {
      let dataset: Promise<Dataset<unknown>>;
      try {
        dataset = revive(message.recipe).then((d) => d as Dataset<unknown>);
      } catch (e) {
        post(errorReply(undefined, e));
        return;
      }
      onLoad = serveLoads(dataset, post);
    } else if (onLoad) onLoad(message);
    else
      post(errorReply(message.id, new BurnError('DataLoader', 'a load request reached the worker before its dataset')));
  });
}
