// Runs contract-08.ts — ../shared/api/08-backends.ts without its `wasm`-engine and remote-backend
// parts (other issues; see the file's header) — against the built package, the way
// test/api-contract.test.ts runs the contract files: copied into .api-contract/ so that `burn-ts`
// resolves to this package. Skips without a WebGPU adapter (a failure under BURN_TEST_STRICT=1).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { webgpu } from '../../helpers/devices.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('API contract 08-backends (WebGPU parts)', () => {
  it('runs and prints "08-backends: ok"', { skip: webgpu.reason ? `no WebGPU device: ${webgpu.reason}` : false, timeout: 300_000 }, () => {
    const dir = join(root, '.api-contract');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'webgpu-08-backends.ts');
    copyFileSync(fileURLToPath(new URL('./contract-08.ts', import.meta.url)), file);
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    assert.match(out, /08-backends: ok/);
  });
});
