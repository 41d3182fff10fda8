// The line printed when the native CPU engine is unavailable must give advice that works where
// burn-ts is a dependency (a consumer project has no `npm run build:native`): `npm rebuild
// burn-ts`, and npm 11's allowScripts, without which npm never runs burn-ts's install script.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('native engine fallback advice', () => {
  // The loader finds the addon relative to its own file, four folders up (as in dist/ and src/):
  // a copy of it in a fresh folder is a package whose addon was never built.
  mkdirSync(join(root, '.scratch'), { recursive: true });
  const pkg = mkdtempSync(join(root, '.scratch', 'no-addon-'));
  after(() => rmSync(pkg, { recursive: true, force: true }));

  it('a missing addon names the file and says how to build it in a consumer project', async () => {
    const dir = join(pkg, 'dist', 'backends', 'cpu', 'native');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(root, 'src', 'backends', 'cpu', 'native', 'addon.ts'), join(dir, 'addon.ts'));
    const loader = (await import(
      pathToFileURL(join(dir, 'addon.ts')).href
    )) as typeof import('../../src/backends/cpu/native/addon.js');
    const loaded = loader.loadNativeAddon();
    assert.ok('reason' in loaded);
    const reason = loaded.reason;
    assert.match(reason, /native\/build\/Release\/burn_native\.node is missing/);
    assert.match(reason, /npm rebuild burn-ts/);
    assert.match(reason, /"allowScripts": \{ "burn-ts": true \}/);
    assert.match(reason, /npm 11/);
  });

  it("the install script's fallback line says what runs instead and how to retry (npm rebuild burn-ts)", () => {
    const out = execFileSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', BURN_SKIP_NATIVE: '1' },
    });
    assert.equal(
      out.trim(),
      'burn-ts: native CPU engine not built (BURN_SKIP_NATIVE=1); burn-ts will use its wasm or js CPU engine (`npm rebuild burn-ts` builds it again)',
    );
  });
});
