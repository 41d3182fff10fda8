/**
 * Optimizers: one Adam step over a 10M-parameter model, burn-ts's `AdamConfig` optimizer
 * beside `torch.optim.Adam`. The inputs are the parameters, then their gradients (same order);
 * both sides use Burn's defaults (β 0.9 / 0.999, ε 1e-5) and lr 1e-3 (`ADAM_LR`).
 */
import type { BenchCase } from '../lib/types.js';
import { inputsOf } from './common.js';

/** The learning rate of the Adam cases (fixed; torch_optim.py uses the same). */
export const ADAM_LR = 1e-3;

/** The model: three tensors, 10,000,000 parameters (a 2500→2000→2499 MLP without the last bias). */
const PARAMS: readonly (readonly number[])[] = [[2500, 2000], [2000], [2000, 2499]];

/** Optimizer cases. */
export const optimCases: readonly BenchCase[] = [
  {
    id: 'optim/adam-step-10M',
    family: 'optim',
    title: 'Adam step, 10M parameters',
    op: 'adamStep',
    // Gradients scaled by 0.01, a realistic size next to ε.
    inputs: inputsOf(...PARAMS, ...PARAMS).map((spec, k) => (k < PARAMS.length ? spec : { ...spec, scale: 0.01 })),
    metric: { kind: 'time' },
  },
];
