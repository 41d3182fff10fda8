import type { Backend } from '../backend/backend.js';
import { TensorBase } from './api/base.js';
import type { TensorData } from '../core/data.js';
import { BurnError, describeValue } from '../core/errors.js';
import type { Kind } from './kind.js';
import type { Tensor } from './tensor.js';

/**
 * Reads several tensors at once (Burn's `Transaction`): register the tensors, then `execute()`
 * gives their data in registration order.
 *
 * ```ts
 * const [output, loss] = await new Transaction().register(output).register(loss).execute();
 * ```
 *
 * The reads of one device are one round trip: on WebGPU one submit and one readback for all of
 * them; on a remote device the reads leave in one message batch (every read is sent before any
 * reply is awaited); on the CPU the values are at hand. Tensors of several devices may be mixed.
 * The type of `execute()`'s result is a tuple with one `TensorData` per registered tensor.
 */
export class Transaction<T extends readonly TensorData[] = []> {
  private readonly tensors: TensorBase<number, Kind>[] = [];

  /** Adds `tensor` to this transaction and returns the transaction (typed with one more result). */
  register<D extends number, K extends Kind>(tensor: Tensor<D, K>): Transaction<[...T, TensorData]> {
    if (!(tensor instanceof TensorBase))
      throw new BurnError('Transaction.register', `${describeValue(tensor)} is not a Tensor; expected a Tensor`);
    this.tensors.push(tensor);
    return this as unknown as Transaction<[...T, TensorData]>;
  }

  /** Reads every registered tensor, in registration order. */
  execute(): Promise<T> {
    const tensors = this.tensors;
    const reads = new Array<Promise<TensorData>>(tensors.length);
    // One batch per backend: every read is issued before any is awaited.
    const byBackend = new Map<Backend, number[]>();
    tensors.forEach((t, i) => {
      const group = byBackend.get(t.backend);
      if (group) group.push(i);
      else byBackend.set(t.backend, [i]);
    });
    for (const [backend, group] of byBackend) {
      if (backend.toDataMany && group.length > 1) {
        const all = backend.toDataMany(group.map((i) => tensors[i]!.primitive));
        group.forEach((i, k) => (reads[i] = all.then((data) => data[k]!)));
      } else {
        for (const i of group) reads[i] = backend.toData(tensors[i]!.primitive);
      }
    }
    return Promise.all(reads) as Promise<readonly TensorData[]> as Promise<T>;
  }

  /** Reads every registered tensor synchronously; throws a BurnError for a tensor of a device that cannot (WebGPU, remote). */
  executeSync(): T {
    return this.tensors.map((t) => {
      const data = t.backend.toDataSync(t.primitive);
      if (!data)
        throw new BurnError(
          'Transaction.executeSync',
          `${t.dev} cannot read synchronously; use await transaction.execute()`,
        );
      return data;
    }) as readonly TensorData[] as T;
  }
}
