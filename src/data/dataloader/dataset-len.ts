import { BurnError } from '../../core/errors.js';
import type { Dataset } from '../dataset/dataset.js';

/**
 * The length of a dataset a data loader iterates, checked: a `len()` that is not a non-negative
 * integer (NaN, 2.5, -5, a string) would make the loader fail obscurely or yield nothing.
 */
export function datasetLen(op: string, dataset: Dataset<unknown>): number {
  const len: unknown = dataset.len();
  if (typeof len !== 'number' || !Number.isSafeInteger(len) || len < 0) {
    throw new BurnError(
      op,
      `dataset ${dataset.constructor?.name ?? typeof dataset} has len() ${typeof len === 'string' ? JSON.stringify(len) : String(len)}; expected a non-negative integer`,
    );
  }
  return len;
}
