// `npm run example [name] [-- options]`: runs examples/<name>/main.ts (through tsx), or the
// tensor tour when no name is given. Unknown names list the examples there are.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = join(root, 'examples');
const [name, ...args] = process.argv.slice(2);

function available() {
  return readdirSync(examples, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(examples, entry.name, 'main.ts')))
    .map((entry) => entry.name)
    .sort();
}

let script;
if (name === undefined || name === 'tensor-tour' || name.startsWith('-')) {
  script = join(examples, 'tensor-tour.ts');
  if (name !== undefined && name !== 'tensor-tour') args.unshift(name);
} else {
  script = join(examples, name, 'main.ts');
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(script)) {
    console.error(`npm run example: no example named "${name}". Available: tensor-tour (the default), ${available().join(', ')}`);
    process.exit(2);
  }
}
const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, stdio: 'inherit' });
if (child.error) throw child.error;
process.exit(child.status ?? 1);
