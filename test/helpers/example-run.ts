// Runs a ported example (examples/<name>/main.ts) as `npm run example <name> -- <args>` would, against
// the built package, and reads the last line it prints, `result {json}`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `examples/<name>` with `args` and returns its `result` line, parsed. */
export function runExample(name: string, args: readonly string[], timeoutMs = 120_000): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['scripts/example.mjs', name, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: timeoutMs,
  });
  const line = out
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('result '));
  assert.ok(line !== undefined, `examples/${name} printed no result line:\n${out}`);
  return JSON.parse(line.slice('result '.length)) as Record<string, unknown>;
}

/** A finite number from a result field. */
export function resultNumber(result: Record<string, unknown>, key: string): number {
  const value = result[key];
  assert.equal(typeof value, 'number', `result.${key} is ${JSON.stringify(value)}`);
  assert.ok(Number.isFinite(value), `result.${key} is ${String(value)}`);
  return value as number;
}
