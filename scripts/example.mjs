// `npm run example [name] [-- options]`: runs examples/<name>/main.ts (through tsx), or the
// tensor tour when no name is given. Unknown names list the examples there are.
// Web examples (examples/web/<name>/, a Vite app: a vite.config.ts beside index.html) are named
// `web/<name>` or just `<name>`; they start Vite's dev server, or with `--build` make a production
// build in examples/web/<name>/dist/ (`--preview` builds, then serves that build). Other options
// go to Vite (`--port 5174`, `--host`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = join(root, 'examples');
const web = join(examples, 'web');
const [name, ...args] = process.argv.slice(2);

/** Directories of `dir` that hold `file`. */
function dirsWith(dir, file) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, file)))
    .map((entry) => entry.name)
    .sort();
}

function available() {
  return [...dirsWith(examples, 'main.ts'), ...dirsWith(web, 'vite.config.ts').map((n) => `web/${n}`)];
}

/** The directory of the web example `name` (`web/<n>` or `<n>`), or undefined. */
function webExample(name) {
  const short = name.startsWith('web/') ? name.slice('web/'.length) : name;
  if (!/^[a-z0-9-]+$/.test(short)) return undefined;
  const dir = join(web, short);
  return existsSync(join(dir, 'vite.config.ts')) ? dir : undefined;
}

/** Runs `vite <command> <dir> <more>`; resolves with its exit status. A signal to this script goes to Vite too. */
function vite(dir, command, more) {
  const bin = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const child = spawn(process.execPath, [bin, ...command, dir, ...more], { cwd: root, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.off(s, forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Runs Vite on the web example in `dir`: dev server, `--build`, or `--preview` (build, then serve it). */
async function runVite(dir, viteArgs) {
  if (!existsSync(join(root, 'node_modules', 'vite', 'bin', 'vite.js'))) {
    console.error('npm run example: Vite is not installed (npm install)');
    return 2;
  }
  const build = viteArgs.includes('--build'),
    preview = viteArgs.includes('--preview');
  const rest = viteArgs.filter((a) => a !== '--build' && a !== '--preview');
  if (!build && !preview) return vite(dir, [], rest);
  const status = await vite(dir, ['build'], build && !preview ? rest : []);
  return status !== 0 || !preview ? status : vite(dir, ['preview'], rest);
}

let script;
if (name === undefined || name === 'tensor-tour' || name.startsWith('-')) {
  script = join(examples, 'tensor-tour.ts');
  if (name !== undefined && name !== 'tensor-tour') args.unshift(name);
} else {
  script = join(examples, name, 'main.ts');
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(script)) {
    const dir = webExample(name);
    if (dir) process.exit(await runVite(dir, args));
    console.error(
      `npm run example: no example named "${name}". Available: tensor-tour (the default), ${available().join(', ')}`,
    );
    process.exit(2);
  }
}
const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, stdio: 'inherit' });
if (child.error) throw child.error;
process.exit(child.status ?? 1);
