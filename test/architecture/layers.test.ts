// scripts/check-layers.mjs (run by `npm test`): src/ passes, and small fixture trees with an upward
// import, a cycle, a sibling-backend import or a misused entry point fail, naming the files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'scripts', 'check-layers.mjs');

function check(srcDir: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [script, srcDir], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** Runs the checker on a tree of `files` (paths relative to the fixture root, e.g. `src/core/a.ts`). */
function checkTree(files: Record<string, string>): { code: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'burn-layers-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return check(join(dir, 'src'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('layer check (scripts/check-layers.mjs)', () => {
  it('passes on src/', () => {
    const { code, out } = check(join(root, 'src'));
    assert.equal(code, 0, out);
    assert.match(out, /no upward import, no cycle/);
  });

  it('passes on a downward tree, ignoring imports written in comments and strings', () => {
    const { code, out } = checkTree({
      'src/core/a.ts':
        "export const a = 1;\n// import { t } from '../tensor/t.js';\nexport const doc = \"import { t } from '../tensor/t.js'\";\n",
      'src/tensor/t.ts':
        "import { a } from '../core/a.js';\nexport const t = `${a} import '../nn/n.js'`;\nexport const re = /['\"]/g;\n",
      'src/nn/n.ts':
        "import { t } from '../tensor/t.js';\nimport type { a } from '../core/a.js';\nexport const n = t;\n",
    });
    assert.equal(code, 0, out);
  });

  it('fails on an upward import (value, type-only or dynamic), naming file, target and rule', () => {
    const { code, out } = checkTree({
      'src/core/a.ts': "import { t } from '../tensor/t.js';\nexport const a = t;\n",
      'src/core/b.ts': "import type { T } from '../module/m.js';\nexport type B = T;\n",
      'src/backend/c.ts': "export async function load() { return import('../device/d.js'); }\n",
      // After a regular expression holding a quote, the scanner still sees the code that follows.
      'src/backend/r.ts': "export function q(s: string) { return /'/.test(s); }\nexport { t } from '../tensor/t.js';\n",
      'src/tensor/t.ts': 'export const t = 1;\n',
      'src/module/m.ts': 'export type T = number;\n',
      'src/device/d.ts': 'export const d = 1;\n',
    });
    assert.equal(code, 1);
    assert.match(
      out,
      /src\/core\/a\.ts → src\/tensor\/t\.ts: upward import: 'core' \(layer 0\) imports 'tensor' \(layer 5\), a higher layer/,
    );
    assert.match(out, /src\/core\/b\.ts → src\/module\/m\.ts: upward import/);
    assert.match(out, /src\/backend\/c\.ts → src\/device\/d\.ts: upward import/);
    assert.match(out, /src\/backend\/r\.ts → src\/tensor\/t\.ts: upward import/);
  });

  it('fails on a cycle between folders, listing an import of each step', () => {
    const { code, out } = checkTree({
      'src/tensor/t.ts': "import { m } from '../module/m.js';\nexport const t = m;\n",
      'src/module/m.ts': "export const m = 1;\nimport type { t } from '../tensor/t.js';\nexport type M = typeof t;\n",
    });
    assert.equal(code, 1);
    assert.match(
      out,
      /folder cycle: module → tensor → module\n\s+src\/module\/m\.ts → src\/tensor\/t\.ts\n\s+src\/tensor\/t\.ts → src\/module\/m\.ts/,
    );
  });

  it('fails on a cycle of runtime imports between files of one folder; type-only imports do not count', () => {
    const cyclic = checkTree({
      'src/core/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/core/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    assert.equal(cyclic.code, 1);
    assert.match(cyclic.out, /file cycle \(runtime imports\): src\/core\/a\.ts → src\/core\/b\.ts → src\/core\/a\.ts/);
    const typeOnly = checkTree({
      'src/core/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/core/b.ts': "import type { a } from './a.js';\nexport const b = (f: typeof a) => f;\n",
    });
    assert.equal(typeOnly.code, 0, typeOnly.out);
  });

  it('fails when sibling backends import each other, and when data uses a layer outside its list', () => {
    const { code, out } = checkTree({
      'src/backends/cpu/x.ts': "import { y } from '../webgpu/y.js';\nexport const x = y;\n",
      'src/backends/webgpu/y.ts': 'export const y = 1;\n',
      'src/data/d.ts': "import { y } from '../backends/webgpu/y.js';\nexport const d = y;\n",
    });
    assert.equal(code, 1);
    assert.match(
      out,
      /src\/backends\/cpu\/x\.ts → src\/backends\/webgpu\/y\.ts: sibling backends do not import each other \(backends\/cpu → backends\/webgpu\)/,
    );
    assert.match(
      out,
      /src\/data\/d\.ts → src\/backends\/webgpu\/y\.ts: 'data' may use only core, platform, config, backend, device, tensor/,
    );
  });

  it('lets a package entry point re-export from above, but not be imported from below that layer', () => {
    const pkg = JSON.stringify({
      exports: { './record': { types: './dist/record/index.d.ts', default: './dist/record/index.js' } },
    });
    const tree = {
      'package.json': pkg,
      'src/record/recorder.ts': 'export const r = 1;\n',
      'src/record/index.ts': "export { r } from './recorder.js';\nexport { m } from '../module/m.js';\n",
      'src/module/m.ts': "import { r } from '../record/recorder.js';\nexport const m = r;\n",
    };
    assert.equal(checkTree(tree).code, 0, checkTree(tree).out);
    const { code, out } = checkTree({
      ...tree,
      'src/record/user.ts': "import { m } from './index.js';\nexport const u = m;\n",
    });
    assert.equal(code, 1);
    assert.match(
      out,
      /src\/record\/user\.ts → src\/record\/index\.ts: upward import: the entry point re-exports from layer 7/,
    );
    const notFacade = checkTree({ ...tree, 'package.json': '{}' });
    assert.equal(notFacade.code, 1);
    assert.match(notFacade.out, /src\/record\/index\.ts → src\/module\/m\.ts: upward import/);
  });

  it('fails on a folder that has no layer', () => {
    const { code, out } = checkTree({ 'src/extra/e.ts': 'export const e = 1;\n' });
    assert.equal(code, 1);
    assert.match(out, /src\/extra\/e\.ts: folder 'extra' has no layer; add it to LAYERS/);
  });
});
