// Runs every test/**/*.test.ts with Node's built-in test runner (TypeScript through tsx).
// BURN_TEST_STRICT=1 turns every skipped test into a failure, so CI cannot pass by skipping.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = collect(join(root, 'test'))
  .filter((f) => filter.length === 0 || filter.some((p) => relative(root, f).includes(p)))
  .sort();
// Test files run in child processes; they inherit this loader.
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import tsx`.trim();
const strict = process.env.BURN_TEST_STRICT === '1';
const skipped = [];
let failed = false;

const stream = run({ files, concurrency: 2, timeout: 15 * 60 * 1000 });
stream.on('test:fail', () => (failed = true));
stream.on('test:pass', (event) => {
  if (event.skip !== undefined && event.skip !== false)
    skipped.push(`${event.name}: ${event.skip === true ? 'skipped' : event.skip}`);
});
stream.on('end', () => {
  if (skipped.length > 0) {
    console.log(`\n${skipped.length} skipped test(s):\n  ${skipped.join('\n  ')}`);
    if (strict) {
      console.log('BURN_TEST_STRICT=1: skipped tests count as failures.');
      failed = true;
    }
  }
  process.exitCode = failed ? 1 : 0;
});
stream.compose(spec).pipe(process.stdout);
