/**
 * The entry of a data loader worker thread: reopens the dataset from its recipe, then answers
 * load requests with the items (decoded here, off the main thread). Started by `WorkerPool`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getMany, type Dataset } from '../dataset/dataset.js';
import { reviveRecipe } from '../dataset/recipe.js';
import { awaitItems } from './await-items.js';
import { encodeItems } from './item-codec.js';
import type { LoadRequest, WorkerInit, WorkerReply } from './worker-protocol.js';

const init = workerData as WorkerInit;
const port = parentPort!;

function errorReply(id: number | undefined, e: unknown): WorkerReply {
  const err = e as { name?: string; op?: string; message?: string };
  const isBurn = err?.name === 'BurnError' && typeof err.op === 'string';
  const message = isBurn ? err.message!.slice(err.op!.length + 2) : `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}`;
  return { type: 'error', id, op: isBurn ? err.op : undefined, message };
}

const ready: Promise<Dataset<unknown>> = reviveRecipe(init.recipe).then((d) => d as Dataset<unknown>);
ready.then(
  (dataset) => port.postMessage({ type: 'ready', len: dataset.len() } satisfies WorkerReply),
  (e) => port.postMessage(errorReply(undefined, e)),
);

function send(id: number, items: unknown[]): void {
  try {
    const { encoded, transfer } = encodeItems(items);
    port.postMessage({ type: 'items', id, items: encoded } satisfies WorkerReply, transfer);
  } catch (e) {
    port.postMessage(errorReply(id, new Error(`the items cannot be sent to the main thread (${(e as Error).message}); items must survive a structured clone`)));
  }
}

port.on('message', (request: LoadRequest) => {
  void ready.then(
    (dataset) => {
      let items: unknown[] | Promise<unknown[]>;
      try {
        items = awaitItems(getMany(dataset, request.indices, 'DataLoader'));
      } catch (e) {
        port.postMessage(errorReply(request.id, e));
        return;
      }
      if (Array.isArray(items)) send(request.id, items);
      else items.then((loaded) => send(request.id, loaded), (e: unknown) => port.postMessage(errorReply(request.id, e)));
    },
    () => undefined,
  );
});
