// Runs the API contract files (vendored in test/api-contract; ../shared/api when present) that
// burn-ts covers, unchanged, against the built package: `burn-ts` resolves to this package itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { webgpu } from './helpers/devices.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const vendored = join(root, 'test', 'api-contract');
const shared = join(root, '..', 'shared', 'api');
const workdir = join(root, '.api-contract');

/**
 * The contract files burn-ts covers; each must print `<name>: ok`. 05 and 07 run but are
 * not type-checked: they nest `ModelConfig.schema`, whose static type cannot name the subclass
 * (TypeScript has no polymorphic `this` for static getters); configs that nest with full types use
 * `ModelConfig.nested()`. The others are type-checked by `npm run typecheck` (tsconfig.contract.json).
 */
const COVERED = [
  '01-tensor',
  '02-module',
  '03-autodiff',
  '04-data',
  '05-training',
  '06-store',
  '07-inference',
  '08-backends',
  '09-layers',
  '10-datasets',
  '11-onnx',
  '12-fusion',
];

/** 08-backends needs a WebGPU adapter (SwiftShader serves without a GPU): it skips without one, which fails under BURN_TEST_STRICT=1. */
const SKIP: Readonly<Record<string, string | false>> = {
  '08-backends': webgpu.reason ? `no WebGPU device: ${webgpu.reason}` : false,
};

describe('API contract', () => {
  it('the vendored copy matches ../shared/api when it is present', () => {
    if (!existsSync(shared)) return;
    for (const name of readdirSync(shared, { recursive: true, encoding: 'utf8' })) {
      if (statSync(join(shared, name)).isDirectory()) continue;
      assert.ok(existsSync(join(vendored, name)), `${name} is in ../shared/api but not vendored in test/api-contract`);
      assert.ok(
        readFileSync(join(vendored, name)).equals(readFileSync(join(shared, name))),
        `${name} differs from ../shared/api`,
      );
    }
  });

  mkdirSync(workdir, { recursive: true });
  cpSync(existsSync(shared) ? shared : vendored, workdir, { recursive: true });
  for (const name of COVERED) {
    it(`${name}.ts runs unchanged and prints "${name}: ok"`, { skip: SKIP[name] ?? false }, () => {
      const out = execFileSync(process.execPath, ['--import', 'tsx', join(workdir, `${name}.ts`)], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      assert.match(out, new RegExp(`${name}: ok`));
    });
  }
});
