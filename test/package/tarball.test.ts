// What `npm pack` ships: what a user needs (licenses, READMEs and the pages they link, examples,
// the built entry points, source maps that resolve), and nothing of the repository's own tooling
// (tests, benchmarks, CI, scratch files, the docs site's dependencies or build output).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path/posix';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const strict = process.env['BURN_TEST_STRICT'] === '1';

interface PackedFile {
  readonly path: string;
  readonly size: number;
}

/**
 * The tarball's file list. `--ignore-scripts` keeps `prepare` (the build) from running: this lists
 * the files as they are now, so the dist/ checks need a build first (`npm test` builds).
 */
function packList(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const [pack] = JSON.parse(out) as [{ files: PackedFile[] }];
  return new Set(pack.files.map((f) => f.path));
}

const files = packList();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, Conditions>;
  bin: Record<string, string>;
};
/** An export's target: a path, or conditions (`browser`, `node`, `types`, `default`) nesting more. */
type Conditions = string | { readonly [condition: string]: Conditions };
/** Every path an export can resolve to. */
const targetsOf = (c: Conditions): string[] => (typeof c === 'string' ? [c] : Object.values(c).flatMap(targetsOf));
const built = existsSync(join(root, 'dist', 'index.js'));
const needsDist = !built && !strict ? 'dist/ is not built (npm run build; npm test builds first)' : false;

/**
 * Links that point into the repository, not the package: the benchmarks (bench/ is the repo's
 * tooling, its figures are quoted in the README) are not shipped.
 */
const REPOSITORY_ONLY = [/^bench\//];

/** Relative link targets of a markdown file (code blocks left out), resolved against its folder. */
function relativeLinks(path: string): { link: string; target: string }[] {
  const text = readFileSync(join(root, path), 'utf8').replace(/```[\s\S]*?```/g, '');
  const links: { link: string; target: string }[] = [];
  for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
    const link = m[1]!;
    if (/^[a-z]+:/i.test(link) || link.startsWith('/')) continue;
    links.push({ link, target: normalize(join(dirname(path), link)) });
  }
  return links;
}

describe('npm pack', () => {
  it('ships the licenses, the README and the examples with their READMEs', () => {
    for (const f of ['package.json', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE'])
      assert.ok(files.has(f), `${f} is not in the tarball`);
    assert.match(
      readFileSync(join(root, 'LICENSE-MIT'), 'utf8'),
      /^MIT License\n\nCopyright \(c\) burn-ts contributors\n/,
    );
    assert.match(
      readFileSync(join(root, 'LICENSE-APACHE'), 'utf8'),
      /Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/,
    );
    const examples = readdirSync(join(root, 'examples'), { withFileTypes: true }).filter(
      (d) => d.isDirectory() && existsSync(join(root, 'examples', d.name, 'README.md')),
    );
    assert.ok(examples.length >= 8, `only ${examples.length} examples with a README`);
    for (const d of examples) {
      assert.ok(files.has(`examples/${d.name}/README.md`), `examples/${d.name}/README.md is not in the tarball`);
      assert.ok(
        files.has(`examples/${d.name}/main.ts`) ||
          [...files].some((f) => f.startsWith(`examples/${d.name}/`) && f.endsWith('.ts')),
        `examples/${d.name} has no source in the tarball`,
      );
    }
  });

  it("ships nothing of the repository's tooling", () => {
    const banned = [
      /^test\//,
      /^bench\//,
      /^\.ci\//,
      /^\.scratch\//,
      /^\.github\//,
      /^docs\/(node_modules|\.vitepress)\//,
      /^docs\/package(-lock)?\.json$/,
      /(^|\/)dist\//,
      /^native\/build\//,
      /\.log$/,
      /(^|\/)node_modules\//,
    ];
    for (const f of files) {
      if (f.startsWith('dist/')) continue; // the package's own build output
      const hit = banned.find((re) => re.test(f));
      assert.equal(hit, undefined, `${f} should not be in the tarball (matches ${hit})`);
    }
    assert.ok(![...files].some((f) => f.endsWith('.test.ts')), 'a test file is in the tarball');
  });

  it('every relative link of its markdown files resolves inside the tarball', () => {
    const pages = [...files].filter((f) => f.endsWith('.md'));
    assert.ok(
      pages.includes('README.md') && pages.includes('src/onnx/README.md') && pages.includes('docs/security.md'),
    );
    const broken: string[] = [];
    for (const page of pages) {
      for (const { link, target } of relativeLinks(page)) {
        if (REPOSITORY_ONLY.some((re) => re.test(target))) continue;
        const ok = files.has(target) || [...files].some((f) => f.startsWith(`${target.replace(/\/$/, '')}/`));
        if (!ok) broken.push(`${page}: ${link} (${target})`);
      }
    }
    assert.deepEqual(broken, [], `links that do not resolve in the tarball:\n  ${broken.join('\n  ')}`);
  });

  it('ships every entry point of package.json (exports and bin)', { skip: needsDist }, () => {
    const targets = [...Object.values(pkg.exports).flatMap(targetsOf), ...Object.values(pkg.bin)];
    for (const t of targets) assert.ok(files.has(normalize(t)), `${t} (package.json) is not in the tarball`);
  });

  it('its source maps resolve: every source is in the tarball or inline', { skip: needsDist }, () => {
    const maps = [...files].filter((f) => f.endsWith('.js.map'));
    assert.ok(maps.length > 50, `only ${maps.length} source maps`);
    const unresolved: string[] = [];
    for (const map of maps) {
      const m = JSON.parse(readFileSync(join(root, map), 'utf8')) as {
        file: string;
        sources: string[];
        sourcesContent?: (string | null)[];
        sourceRoot?: string;
      };
      assert.ok(files.has(normalize(join(dirname(map), m.file))), `${map}: its file ${m.file} is not in the tarball`);
      m.sources.forEach((source, i) => {
        const inline = typeof m.sourcesContent?.[i] === 'string';
        const shipped = files.has(normalize(join(dirname(map), m.sourceRoot ?? '', source)));
        if (!inline && !shipped) unresolved.push(`${map}: ${source}`);
      });
    }
    assert.deepEqual(
      unresolved.slice(0, 10),
      [],
      `${unresolved.length} source(s) neither shipped nor inline (rebuild with tsconfig.build.json's inlineSources), e.g.:\n  ${unresolved.slice(0, 10).join('\n  ')}`,
    );
  });

  it('its install script is the native build, which never fails the install', () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.equal(scripts['install'], 'node scripts/build-native.mjs');
    assert.ok(
      files.has('scripts/build-native.mjs') && files.has('native/binding.gyp'),
      'the install script or the addon sources are not in the tarball',
    );
    // Every exit of the script is exit code 0 (a failed build prints one line and falls back).
    const script = readFileSync(join(root, 'scripts/build-native.mjs'), 'utf8');
    assert.deepEqual(script.match(/process\.exit\((?!0\))[^)]*\)/g) ?? [], []);
  });

  it('ships every addon source the build includes (native/src, its kernels by concern, the op list)', () => {
    const walk = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? walk(`${dir}/${d.name}`) : [`${dir}/${d.name}`],
      );
    const sources = walk('native/src');
    for (const f of [
      'native/src/ops.h',
      'native/src/kernels.inc',
      'native/src/kernels/gemm.inc',
      'native/src/isa_avx512.cc',
    ])
      assert.ok(sources.includes(f), `${f} is missing from the checkout`);
    for (const f of sources) assert.ok(files.has(f), `${f} is not in the tarball`);
    // Every file a kernel unit includes is a shipped file.
    for (const f of sources.filter((s) => /\.(cc|h|inc)$/.test(s))) {
      for (const m of readFileSync(join(root, f), 'utf8').matchAll(/^#include "([^"]+)"/gm)) {
        const target = normalize(join(dirname(f), m[1]!));
        assert.ok(files.has(target), `${f} includes ${m[1]}, which is not in the tarball`);
      }
    }
  });

  it('the built native loader finds the addon where the install script builds it, four folders up', {
    skip: needsDist,
  }, () => {
    const loader = 'dist/backends/cpu/native/addon.js';
    assert.ok(files.has(loader), `${loader} is not in the tarball`);
    const path = /const ADDON_PATH = '([^']+)'/.exec(readFileSync(join(root, loader), 'utf8'))?.[1];
    assert.ok(path, `${loader} has no ADDON_PATH`);
    assert.equal(normalize(join(dirname(loader), path)), 'native/build/Release/burn_native.node');
  });
});
