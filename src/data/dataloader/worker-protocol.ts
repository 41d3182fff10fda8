import type { WorkerRecipe } from '../dataset/recipe.js';
import type { EncodedItems } from './item-codec.js';

/** What a data loader worker receives first: as `workerData` (worker threads) or as its first message (Web Workers). */
export interface WorkerInit {
  readonly recipe: WorkerRecipe;
  readonly worker: number;
}

/** Main thread → Web Worker, once: the dataset to reopen (a Web Worker has no `workerData`). */
export interface InitRequest extends WorkerInit {
  readonly type: 'init';
}

/** Main thread → worker: load the items at `indices`. */
export interface LoadRequest {
  readonly type: 'load';
  readonly id: number;
  readonly indices: readonly number[];
}

/** Worker → main thread. */
export type WorkerReply =
  | { readonly type: 'ready'; readonly len: number }
  | { readonly type: 'items'; readonly id: number; readonly items: EncodedItems }
  | {
      readonly type: 'error';
      readonly id: number | undefined;
      readonly op: string | undefined;
      readonly message: string;
    };
