// TEMPORARY scaffold: replaced by the real defaults (conv.ts, pool.ts, interpolate.ts, …).
import { BurnError } from '../../tensor/errors.js';
export function notYet(op: string): never {
  throw new BurnError(op, 'not implemented yet');
}
