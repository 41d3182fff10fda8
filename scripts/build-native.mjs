// Builds the native CPU engine (native/, a Node addon over N-API) with the node-gyp that ships
// with npm, against the headers of the running Node (no download). Run by `npm install` (the
// package's `install` script) and by `npm run build:native`.
//
// It never fails the install: when the build fails or the built addon cannot load, it prints ONE
// line saying why (the full compiler output goes to native/build-native.log) and burn-ts uses its
// `wasm` or `js` engine. BURN_SKIP_NATIVE=1 skips the build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const nativeDir = join(root, 'native');
const logFile = join(nativeDir, 'build-native.log');
const addon = join(nativeDir, 'build', 'Release', 'burn_native.node');

function done(line) {
  console.log(`burn-ts: ${line}`);
  process.exit(0);
}

/** The end of every line that falls back: what runs instead, and how to retry in a consumer project. */
const FALLBACK = 'burn-ts will use its wasm or js CPU engine (`npm rebuild burn-ts` builds it again)';

if (process.env.BURN_SKIP_NATIVE === '1') done(`native CPU engine not built (BURN_SKIP_NATIVE=1); ${FALLBACK}`);
if (!existsSync(join(nativeDir, 'binding.gyp')))
  done(`native CPU engine not built (native/binding.gyp is missing); ${FALLBACK}`);

/** node-gyp's entry point: npm's own (npm sets npm_config_node_gyp in scripts), else next to this Node. */
function findNodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
    join(dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return undefined;
  }
}

/** The directory holding include/node/node_api.h of this Node (so node-gyp downloads nothing). */
function findNodeDir() {
  const candidates = [process.env.npm_config_nodedir, dirname(dirname(process.execPath)), '/usr', '/usr/local'];
  for (const c of candidates)
    if (
      c &&
      existsSync(join(c, 'include', 'node', 'node_api.h')) &&
      existsSync(join(c, 'include', 'node', 'common.gypi'))
    )
      return c;
  return undefined;
}

const gyp = findNodeGyp();
if (!gyp) done(`native CPU engine not built (npm's node-gyp was not found); ${FALLBACK}`);
const nodedir = findNodeDir();
if (!nodedir)
  done(
    `native CPU engine not built (no Node headers next to ${process.execPath}: include/node/node_api.h); ${FALLBACK}`,
  );

mkdirSync(nativeDir, { recursive: true });
const started = Date.now();
const result = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${nodedir}`, '--jobs=max', '--release'], {
  cwd: nativeDir,
  encoding: 'utf8',
  env: { ...process.env, npm_config_nodedir: nodedir },
  maxBuffer: 64 * 1024 * 1024,
});
writeFileSync(logFile, `${result.stdout ?? ''}\n${result.stderr ?? ''}\n${result.error ? String(result.error) : ''}`);
if (result.error || result.status !== 0) {
  const lines = `${result.stderr ?? ''}\n${result.stdout ?? ''}`.split('\n');
  const first =
    lines.find(
      (l) =>
        /error|not found|No such file/i.test(l) &&
        !/^gyp (info|ERR! (stack|System|command|cwd|node|node-gyp|not ok))/.test(l),
    ) ?? (result.error ? String(result.error) : `node-gyp exited with ${result.status}`);
  done(`native CPU engine not built (${first.trim().slice(0, 200)}; full log: ${logFile}); ${FALLBACK}`);
}

// The addon must load in this Node (a fresh process, so a crash cannot take the install down).
const probe = spawnSync(
  process.execPath,
  [
    '-e',
    `const a = require(${JSON.stringify(addon)}); const i = a.info(); process.stdout.write(i.isa + ' ' + i.threads)`,
  ],
  { encoding: 'utf8' },
);
if (probe.status !== 0) {
  const why = (probe.stderr || `exit ${probe.status}`).split('\n').find((l) => l.trim() !== '') ?? 'unknown error';
  done(`native CPU engine built but it does not load (${why.trim().slice(0, 200)}); ${FALLBACK}`);
}
const [isa, threads] = probe.stdout.split(' ');
done(`native CPU engine built in ${((Date.now() - started) / 1000).toFixed(0)} s (${isa} kernels, ${threads} threads)`);
