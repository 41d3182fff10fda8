import { getMany, type Dataset } from '../dataset/dataset.js';
import { awaitItems } from './await-items.js';
import { encodeItems } from './item-codec.js';
import type { LoadRequest, WorkerReply } from './worker-protocol.js';

/** How a worker answers the main thread (a worker thread's `parentPort`, a Web Worker's `self`). */
export type PostReply = (reply: WorkerReply, transfer?: ArrayBuffer[]) => void;

/** The reply for an error: a BurnError keeps its op and message, anything else its name and message. */
export function errorReply(id: number | undefined, e: unknown): WorkerReply {
  const err = e as { name?: string; op?: string; message?: string };
  const isBurn = err?.name === 'BurnError' && typeof err.op === 'string';
  const message = isBurn
    ? err.message!.slice(err.op!.length + 2)
    : `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}`;
  return { type: 'error', id, op: isBurn ? err.op : undefined, message };
}

/**
 * The worker side of the data loader, shared by worker threads and Web Workers: reports `ready`
 * (or why the dataset cannot be reopened) once `dataset` settles, and returns the handler of
 * load requests, which answers each with the items (encoded off the main thread) or an error.
 */
export function serveLoads(dataset: Promise<Dataset<unknown>>, post: PostReply): (request: LoadRequest) => void {
  dataset.then(
    (d) => post({ type: 'ready', len: d.len() }),
    (e) => post(errorReply(undefined, e)),
  );
  const send = (id: number, items: unknown[]): void => {
    try {
      const { encoded, transfer } = encodeItems(items);
      post({ type: 'items', id, items: encoded }, transfer);
    } catch (e) {
      post(
        errorReply(
          id,
          new Error(
            `the items cannot be sent to the main thread (${(e as Error).message}); items must survive a structured clone`,
          ),
        ),
      );
    }
  };
  return (request) => {
    void dataset.then(
      (d) => {
        let items: unknown[] | Promise<unknown[]>;
        try {
          items = awaitItems(getMany(d, request.indices, 'DataLoader'));
        } catch (e) {
          post(errorReply(request.id, e));
          return;
        }
        if (Array.isArray(items)) send(request.id, items);
        else
          items.then(
            (loaded) => send(request.id, loaded),
            (e: unknown) => post(errorReply(request.id, e)),
          );
      },
      () => undefined,
    );
  };
}
