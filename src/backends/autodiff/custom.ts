import type { Backend, TensorPrimitive } from '../../backend/backend.js';
import type { CustomCall, CustomSaved } from '../../backend/custom.js';
import { BurnError } from '../../core/errors.js';
import type { RecordOptions, SaveSource } from './record.js';
import type { AdTensor } from './tensor.js';

/**
 * User-defined ops under autodiff (`defineCustomOp`): the inner backend runs the forward, and the
 * op goes through `record` as a built-in op does — one node that saves the inputs and the output
 * and whose backward is the user's rule.
 */

/** What the hook needs of the autodiff backend. */
export interface CustomOpRecorder {
  readonly innerBackend: Backend;
  record<K extends string>(options: RecordOptions<K>): AdTensor;
}

/**
 * Runs `call` on the inner backend and records it, or returns undefined where the inner backend
 * has no forward for it (the tensor API then runs the op's composite on this backend). A tracked
 * input of an op without a backward rule is a BurnError: its gradient would silently be missing.
 */
export function recordCustomOp(
  ad: CustomOpRecorder,
  call: CustomCall,
  inputs: readonly AdTensor[],
): AdTensor | undefined {
  const inner = ad.innerBackend;
  const backward = call.backward;
  if (!backward && inputs.some((t) => t.node)) {
    throw new BurnError(
      call.kernel.name,
      'an input requires grad, but the op has no backward rule; give it backward (or a composite), or detach the inputs',
    );
  }
  const first = inner.customOp?.(
    call,
    inputs.map((t) => t.inner),
  );
  if (first === undefined) return undefined;
  const names = inputs.map((_, i) => `input${i}`);
  const save: Record<string, SaveSource> = { output: 'out' };
  names.forEach((n, i) => (save[n] = i));
  let pending: TensorPrimitive | undefined = first;
  return ad.record<string>({
    inputs,
    // The first run is the one above; a memory-bound op under checkpointing runs again in the backward pass.
    forward: (vals) => {
      const out = pending ?? inner.customOp!(call, vals);
      pending = undefined;
      if (out === undefined)
        throw new BurnError(call.kernel.name, `the forward on ${inner.name} declined when recomputed`);
      return out;
    },
    cost: call.cost ?? 'compute-bound',
    save,
    ...(backward
      ? {
          backward: (grad, saved, needs) => {
            // Read lazily: under checkpointing a saved value is recomputed only when the rule reads it.
            const values: CustomSaved = {
              get inputs() {
                return names.map((n) => saved[n]!);
              },
              get output() {
                return saved['output']!;
              },
            };
            return backward(grad, values, needs);
          },
        }
      : {}),
  });
}
