/**
 * Items a dataset's `get` returned as promises (an `async get`) are awaited before they are
 * batched or sent from a worker. Every promise of the batch gets a handler at once, so a rejected
 * one is never unhandled: the first rejection becomes the error of the load.
 */
export function awaitItems(items: unknown[]): unknown[] | Promise<unknown[]> {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item !== null && typeof item === 'object' && typeof (item as { then?: unknown }).then === 'function')
      return Promise.all(items);
  }
  return items;
}
