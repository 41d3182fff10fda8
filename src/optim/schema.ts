import { z } from 'zod';

/**
 * Zod field schemas shared by the optimizer and scheduler configs, with messages that name the
 * offending value (`beta1: must be in [0, 1), got 1.5`; the config prefixes the field path).
 */

function got(iss: { input?: unknown }): string {
  return `got ${String(iss.input)}`;
}

/** A number in `[0, 1)` (betas, decay rates). */
export function unitOpen(): z.ZodNumber {
  return z
    .number()
    .gte(0, { error: (iss) => `must be in [0, 1), ${got(iss)}` })
    .lt(1, { error: (iss) => `must be in [0, 1), ${got(iss)}` });
}

/** A number in `[0, 1]`. */
export function unitClosed(): z.ZodNumber {
  return z
    .number()
    .gte(0, { error: (iss) => `must be in [0, 1], ${got(iss)}` })
    .lte(1, { error: (iss) => `must be in [0, 1], ${got(iss)}` });
}

/** A number `> 0` (epsilons). */
export function positive(): z.ZodNumber {
  return z.number().gt(0, { error: (iss) => `must be > 0, ${got(iss)}` });
}

/** A number `>= 0` (penalties, tolerances, rates). */
export function nonNegative(): z.ZodNumber {
  return z.number().gte(0, { error: (iss) => `must be >= 0, ${got(iss)}` });
}

/** An integer `>= min`. */
export function intAtLeast(min: number): z.ZodNumber {
  return z
    .number()
    .int({ error: (iss) => `must be an integer, ${got(iss)}` })
    .gte(min, { error: (iss) => `must be an integer >= ${min}, ${got(iss)}` });
}

/** A number in `(0, 1]` (the scheduler learning rates Burn accepts). */
export function lrInUnit(): z.ZodNumber {
  return z
    .number()
    .gt(0, { error: (iss) => `must be in (0, 1], ${got(iss)}` })
    .lte(1, { error: (iss) => `must be in (0, 1], ${got(iss)}` });
}
