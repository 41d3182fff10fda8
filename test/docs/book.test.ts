// The book's code blocks (docs/**/*.md) are part of the test suite, so the book cannot drift from
// the API: every ```ts block is type-checked (strict, TypeScript 7, with `burn-ts` and
// `burn-ts/*` mapped to src/ as a user's project maps them to dist/), and the blocks marked
// ```ts run are run with tsx (one process for all, each block a module of its own) and must finish
// without throwing. A block that is only a piece of code is marked ```ts fragment and counted, so
// nothing is left out silently. Relative links between pages must resolve, and the API
// reference's entry points must cover package.json's exports.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const docs = join(root, 'docs');

/**
 * The fragments the book has: a new one must be added here on purpose. Each is a piece of a page
 * (a class body, a line of configuration) that has no meaning as a file of its own.
 */
const EXPECTED_FRAGMENTS = 0;

/** Languages whose blocks must be checked (or marked as fragments). */
const CODE_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'tsx', 'mts']);
/** The words a block may carry after its language. */
const MARKERS = new Set(['run', 'fragment']);

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly markers: ReadonlySet<string>;
  readonly code: string;
}

/** Every markdown page of the book (not the generated API reference, not dependencies). */
function pages(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      if (name === 'node_modules' || name === '.vitepress' || name === 'api' || name === 'public') return [];
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return pages(path);
      return name.endsWith('.md') ? [path] : [];
    })
    .sort();
}

/** The fenced code blocks of one page, with their language and markers. */
function blocksOf(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open as unknown as [string, string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(fence); j++) body.push(lines[j]!.slice(indent.length));
    if (CODE_LANGS.has(lang.toLowerCase())) {
      out.push({
        file,
        line: i + 1,
        lang: lang.toLowerCase(),
        markers: new Set(rest.split(/\s+/).filter((w) => w !== '')),
        code: body.join('\n'),
      });
    }
    i = j;
  }
  return out;
}

/** `burn-ts` and its subpaths (package.json "exports") mapped to their sources in src/. */
function sourcePaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [sub, target] of Object.entries(pkg.exports)) {
    // Entries that are not compiled modules (./package.json) have nothing in src/.
    if (typeof target === 'string' || !target.default.startsWith('./dist/')) continue;
    const src = join(root, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    assert.ok(
      existsSync(src),
      `package.json exports ${sub} -> ${target.default}, but ${relative(root, src)} is missing`,
    );
    paths[sub === '.' ? 'burn-ts' : `burn-ts/${sub.slice(2)}`] = [src];
  }
  return paths;
}

const allPages = pages(docs);
const blocks = allPages.flatMap(blocksOf);
const checked = blocks.filter((b) => !b.markers.has('fragment'));
const runnable = checked.filter((b) => b.markers.has('run'));
const where = (b: Block): string => `${relative(root, b.file)}:${b.line}`;

// One scratch project for all blocks, inside the repository so node_modules (tsx, @types/node) resolve.
mkdirSync(join(root, '.scratch'), { recursive: true });
const dir = mkdtempSync(join(root, '.scratch', 'book-'));
after(() => rmSync(dir, { recursive: true, force: true }));
/** The file a block is written to: named after its page and line, so errors point back to it. */
const fileOf = (b: Block): string =>
  join(
    dir,
    `${relative(docs, b.file).replace(/[\\/]/g, '__').replace(/\.md$/, '')}_L${b.line}.${b.lang === 'tsx' ? 'tsx' : 'ts'}`,
  );

writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify(
    {
      extends: join(root, 'tsconfig.base.json'),
      compilerOptions: { noEmit: true, strict: true, paths: sourcePaths(), allowImportingTsExtensions: true },
      include: ['*.ts', '*.tsx'],
    },
    null,
    2,
  ),
);
// Every block is a module of its own (top-level await, no clashes between blocks' names).
for (const b of checked) writeFileSync(fileOf(b), `${b.code}\nexport {};\n`);

describe('the book (docs/)', () => {
  it('has its pages, and every code block is checked, run or a counted fragment', () => {
    for (const page of [
      'index.md',
      'getting-started.md',
      'tensors.md',
      'autodiff.md',
      'modules-and-configs.md',
      'data.md',
      'training.md',
      'saving-and-loading.md',
      'backends.md',
      'import.md',
    ]) {
      assert.ok(existsSync(join(docs, page)), `docs/${page} is missing`);
    }
    for (const b of blocks) {
      const unknown = [...b.markers].filter((m) => !MARKERS.has(m));
      assert.deepEqual(
        unknown,
        [],
        `${where(b)}: unknown marker(s) ${unknown.join(', ')} (known: ${[...MARKERS].join(', ')})`,
      );
      assert.ok(!(b.markers.has('run') && b.markers.has('fragment')), `${where(b)}: a fragment cannot run`);
      assert.ok(
        b.lang === 'ts' || b.lang === 'tsx' || b.markers.has('fragment'),
        `${where(b)}: write \`\`\`ts (the book is TypeScript), not \`\`\`${b.lang}`,
      );
    }
    const fragments = blocks.length - checked.length;
    console.log(
      `book: ${allPages.length} pages, ${blocks.length} code blocks: ${checked.length} type-checked (${runnable.length} of them run), ${fragments} fragment(s)`,
    );
    assert.ok(checked.length >= 30, `only ${checked.length} checked blocks: is the extraction broken?`);
    assert.equal(
      fragments,
      EXPECTED_FRAGMENTS,
      `the book has ${fragments} fragment block(s), test/docs/book.test.ts expects ${EXPECTED_FRAGMENTS}: check the new ones cannot be whole, then update the count`,
    );
  });

  it('relative links between pages resolve', () => {
    for (const page of allPages) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\((?!https?:|mailto:|#|\/api\/)([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const target = resolve(dirname(page), m[1]!);
        const candidates = [target, `${target}.md`, join(target, 'index.md')];
        assert.ok(
          candidates.some((c) => existsSync(c)),
          `${relative(root, page)}: link ${m[1]} does not resolve`,
        );
      }
    }
  });

  it("the API reference (docs/typedoc.json) covers every entry point of package.json's exports", () => {
    const entryPoints = (
      JSON.parse(readFileSync(join(docs, 'typedoc.json'), 'utf8')) as { entryPoints: string[] }
    ).entryPoints.map((e) => resolve(docs, e));
    for (const [name, [src]] of Object.entries(sourcePaths())) {
      assert.ok(
        entryPoints.includes(src!),
        `${name} (${relative(root, src!)}) is not an entry point of docs/typedoc.json`,
      );
    }
  });

  it('every block type-checks (strict, one tsc run)', () => {
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')],
      { cwd: dir, encoding: 'utf8' },
    );
    // Errors name the scratch file; point them back at the page and line of the book.
    const report = `${tsc.stdout}${tsc.stderr}`.replace(
      /(\S+)_L(\d+)\.tsx?\((\d+),(\d+)\)/g,
      (_, page: string, line: string, row: string, col: string) =>
        `docs/${page.replace(/__/g, '/')}.md:${Number(line) + Number(row)}:${col}`,
    );
    assert.equal(tsc.status, 0, `the book's code does not type-check:\n${report}`);
  });
});

/** What the runner reports for one block: its output and its error, if any. */
interface RunReport {
  readonly ok: boolean;
  readonly ms: number;
  readonly output: string;
  readonly error?: string;
}

/**
 * The runnable blocks run one after another in ONE tsx process (burn-ts's sources are compiled
 * once, not once per block), each imported as its own module in a cwd of its own; a marker line
 * after each says whether it finished or threw. A block that ends the process (process.exit, a
 * crash) leaves the blocks after it without a report, and they fail.
 */
const RUNNER = `
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [dir, ...files] = process.argv.slice(2);
for (const file of files) {
  process.chdir(mkdtempSync(join(dir, 'run-')));
  const started = Date.now();
  let error;
  try {
    await import(pathToFileURL(file).href);
  } catch (e) {
    error = e instanceof Error ? e.stack ?? e.message : String(e);
  }
  process.stdout.write('\\n' + MARK + JSON.stringify({ file, ms: Date.now() - started, error }) + '\\n');
}
`;
const MARK = '@@book-block ';

describe('the book: runnable blocks (```ts run) run and finish', () => {
  const reports = new Map<string, RunReport>();
  let crash = '';
  before(async () => {
    const runner = join(dir, 'run-blocks.ts');
    writeFileSync(runner, `const MARK = ${JSON.stringify(MARK)};\n${RUNNER}`);
    const { status, signal, out } = await new Promise<{ status: number | null; signal: string | null; out: string }>(
      (done) => {
        // tsx reads the scratch tsconfig (its paths map burn-ts to src/).
        const child = spawn(process.execPath, ['--import', 'tsx', runner, dir, ...runnable.map(fileOf)], {
          cwd: dir,
          env: { ...process.env, NODE_OPTIONS: '', TSX_TSCONFIG_PATH: join(dir, 'tsconfig.json') },
          timeout: 600_000,
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (status, signal) => done({ status, signal, out }));
      },
    );
    let output = '';
    for (const line of out.split('\n')) {
      if (!line.startsWith(MARK)) {
        output += `${line}\n`;
        continue;
      }
      const r = JSON.parse(line.slice(MARK.length)) as { file: string; ms: number; error?: string };
      reports.set(r.file, {
        ok: r.error === undefined,
        ms: r.ms,
        output,
        ...(r.error !== undefined ? { error: r.error } : {}),
      });
      output = '';
    }
    if (status !== 0) crash = `the runner exited with ${status}${signal ? ` (${signal})` : ''} after:\n${output}`;
  });

  for (const b of runnable) {
    it(`runs ${where(b)}`, () => {
      const r = reports.get(fileOf(b));
      assert.ok(r, `${where(b)} did not finish: ${crash || 'no report'}`);
      assert.ok(r.ok, `${where(b)} threw:\n${r.error}\n--- its output:\n${r.output}`);
    });
  }
});
