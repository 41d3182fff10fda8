/**
 * The entry of a data loader worker thread: reopens the dataset from its recipe, then answers
 * load requests with the items (decoded here, off the main thread). Started by `WorkerPool`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getMany, type Dataset } from '../dataset/dataset.js';
import { reviveRecipe } from '../dataset/recipe.js';
import type { LoadRequest, WorkerInit, WorkerReply } from './worker-protocol.js';

const init = workerData as WorkerInit;
const port = parentPort!;

function errorReply(id: number | undefined, e: unknown): WorkerReply {
  const err = e as { name?: string; op?: string; message?: string };
  const isBurn = err?.name === 'BurnError' && typeof err.op === 'string';
  const message = isBurn ? err.message!.slice(err.op!.length + 2) : `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}`;
  return { type: 'error', id, op: isBurn ? err.op : undefined, message };
}

/** The buffers of typed arrays that own them entirely, directly under each item (moved, not copied). */
function transferables(items: unknown[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const consider = (v: unknown): void => {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) out.add(v.buffer);
  };
  for (const item of items) {
    consider(item);
    if (item !== null && typeof item === 'object' && !ArrayBuffer.isView(item)) for (const v of Object.values(item)) consider(v);
  }
  return [...out];
}

const ready: Promise<Dataset<unknown>> = reviveRecipe(init.recipe).then((d) => d as Dataset<unknown>);
ready.then(
  (dataset) => port.postMessage({ type: 'ready', len: dataset.len() } satisfies WorkerReply),
  (e) => port.postMessage(errorReply(undefined, e)),
);

port.on('message', (request: LoadRequest) => {
  void ready.then(
    (dataset) => {
      let items: unknown[];
      try {
        items = getMany(dataset, request.indices, 'DataLoader');
      } catch (e) {
        port.postMessage(errorReply(request.id, e));
        return;
      }
      try {
        port.postMessage({ type: 'items', id: request.id, items } satisfies WorkerReply, transferables(items));
      } catch (e) {
        port.postMessage(errorReply(request.id, new Error(`the items cannot be sent to the main thread (${(e as Error).message}); items must survive a structured clone`)));
      }
    },
    () => undefined,
  );
});
