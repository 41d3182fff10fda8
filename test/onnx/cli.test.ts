// The `burn-ts onnx` command (package.json bin → src/cli/index.ts): writes <name>.ts and
// <name>.bpk, and what it writes with the default imports ('burn-ts', 'burn-ts/nn') type-checks
// under strict with the TypeScript compiler (a temporary tsconfig mapping burn-ts to src/).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = join(root, 'test/fixtures/onnx/models');
const tmp = mkdtempSync(join(tmpdir(), 'burn-ts-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function capture(): { io: { out(l: string): void; err(l: string): void }; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l) => out.push(l), err: (l) => err.push(l) }, out, err };
}

describe('burn-ts onnx', () => {
  it('is the package bin', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    assert.equal(pkg.bin?.['burn-ts'], './dist/cli/index.js');
  });

  it('writes <name>.ts and <name>.bpk, and they type-check under strict against burn-ts', async () => {
    const out = join(tmp, 'models');
    for (const [model, extra] of [
      ['resnet_opset17', []],
      ['transformer_opset13', ['--name', 'encoder', '--class', 'TinyEncoder']],
      ['recurrent', []],
      ['unet', []],
    ] as const) {
      const c = capture();
      const code = await runCli(['onnx', join(fixtures, `${model}.onnx`), '--out', out, ...extra], c.io);
      assert.equal(code, 0, c.err.join('\n'));
      const name = extra.length ? 'encoder' : model;
      assert.ok(existsSync(join(out, `${name}.ts`)) && existsSync(join(out, `${name}.bpk`)), `${name} files`);
      assert.match(c.out[0]!, new RegExp(`${name}\\.ts: class`));
    }
    assert.match(readFileSync(join(out, 'encoder.ts'), 'utf8'), /export class TinyEncoder extends Module/);
    assert.match(readFileSync(join(out, 'unet.ts'), 'utf8'), /from 'burn-ts';\nimport \{[^}]*\} from 'burn-ts\/nn';/);
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(out, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.base.json'),
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: true,
          allowImportingTsExtensions: true,
          typeRoots: [join(root, 'node_modules/@types')],
          paths: { 'burn-ts': [join(root, 'src/index.ts')], 'burn-ts/nn': [join(root, 'src/nn/index.ts')] },
        },
        files: ['resnet_opset17.ts', 'encoder.ts', 'recurrent.ts', 'unet.ts'],
      }),
    );
    try {
      execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(out, 'tsconfig.json')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      assert.fail(`tsc reported errors in the generated code:\n${(e as { stdout?: string }).stdout ?? String(e)}`);
    }
  });

  it('runs as a program (node src/cli/index.ts)', () => {
    const out = join(tmp, 'program');
    const stdout = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/cli/index.ts'), 'onnx', join(fixtures, 'mobilenet_v2.onnx'), `--out=${out}`],
      { encoding: 'utf8', cwd: root },
    );
    assert.match(stdout, /mobilenet_v2\.ts: class MobilenetV2 \(54 nn layers, 0 other tensors\)/);
    assert.ok(existsSync(join(out, 'mobilenet_v2.bpk')));
  });

  it('reports bad usage and bad models with a message and a non-zero code', async () => {
    let c = capture();
    assert.equal(await runCli(['onnx'], c.io), 2);
    assert.match(c.err.join('\n'), /which model\?/);
    c = capture();
    assert.equal(await runCli(['onnx', 'a.onnx', '--frobnicate'], c.io), 2);
    assert.match(c.err.join('\n'), /unknown option '--frobnicate'/);
    c = capture();
    assert.equal(await runCli(['onnx', 'a.onnx', '--input', 'image'], c.io), 2);
    assert.match(c.err.join('\n'), /expected <name>=<d0>,<d1>/);
    c = capture();
    assert.equal(await runCli(['onnx', join(tmp, 'missing.onnx'), '--out', tmp], c.io), 1);
    assert.match(c.err.join('\n'), /loadOnnx: cannot read '.*missing\.onnx'/);
    c = capture();
    assert.equal(await runCli(['transmogrify'], c.io), 2);
    assert.match(c.err.join('\n'), /unknown command 'transmogrify'/);
    c = capture();
    assert.equal(await runCli(['help'], c.io), 0);
    assert.match(c.out.join('\n'), /burn-ts onnx <model\.onnx>/);
  });
});
