import type { TensorPrimitive } from '../../backend/backend.js';
import type { Backward, Cost } from './graph.js';
import type { AdTensor } from './tensor.js';

/**
 * What one recorded op is made of: every op of the autodiff backend — built-in or custom — goes
 * through {@link AutodiffBackend.record} with these options, so a custom op is differentiated and
 * checkpointed exactly as the built-in ones are.
 */

/**
 * Where a saved value comes from: an input by position (`0` is the first input), `'out'` for the
 * op's output, or a primitive of the inner backend computed beside the output (sort's indices),
 * which is kept as it is.
 */
export type SaveSource = number | 'out' | TensorPrimitive;

/** The options of {@link AutodiffBackend.record}. */
export interface RecordOptions<K extends string> {
  /** The op's operands on the autodiff backend, tracked or not; the backward returns one gradient per input, in this order. */
  readonly inputs: readonly AdTensor[];
  /**
   * Computes the output from the inputs' inner primitives. Under checkpointing a memory-bound
   * op's forward runs again during the backward pass, so it must compute the same value again.
   */
  readonly forward: (inputs: TensorPrimitive[]) => TensorPrimitive;
  /** How the op's cost is bound: what gradient checkpointing keeps or recomputes (see {@link Cost}). */
  readonly cost: Cost;
  /** The values the backward reads, by the name it reads them under; only these are kept alive for it. */
  readonly save?: { readonly [N in K]: SaveSource };
  /**
   * The backward rule, run on the inner backend's primitives; without one the output is not
   * tracked (a non-differentiable op).
   */
  readonly backward?: Backward<K>;
}
