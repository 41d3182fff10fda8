import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The cache directory of a data source: `$BURN_DATA_DIR/<name>` when `BURN_DATA_DIR` is set,
 * else `~/.cache/burn-ts/<name>`.
 */
export function dataDir(name: string): string {
  const base = process.env.BURN_DATA_DIR;
  return base !== undefined && base !== '' ? join(base, name) : join(homedir(), '.cache', 'burn-ts', name);
}
