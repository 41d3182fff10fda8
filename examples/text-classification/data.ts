// The data set of the example, built offline from text files every Debian machine with Node has:
// snippets of source and documentation files labelled with their language or kind, a byte-level
// tokenizer, and a batcher (Burn's example downloads AG News and DbPedia; this one needs no network).
import { existsSync, openSync, readdirSync, readSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tensor, type Bool, type Device, type Int } from 'burn-ts';
import type { Batcher, Dataset } from 'burn-ts/data';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const nodeModules = join(repo, 'node_modules');

/** Where the snippets of one class come from. */
export interface ClassSource {
  /** The label printed in reports. */
  readonly name: string;
  /** Directories searched recursively (missing ones are skipped). */
  readonly roots: () => string[];
  /** Which files of those directories belong to the class (given the path and the first bytes). */
  readonly accept: (path: string, head: string) => boolean;
}

/** The directories of `/usr/lib` whose name matches `re` (python3.11, perl5, …). */
function usrLibDirs(re: RegExp, under = '/usr/lib'): string[] {
  if (!existsSync(under)) return [];
  return readdirSync(under)
    .filter((name) => re.test(name))
    .sort()
    .map((name) => join(under, name));
}

const ext =
  (...exts: string[]) =>
  (path: string) =>
    exts.some((e) => path.endsWith(e));
const shebang = /^#! ?\/(usr\/)?bin\/(env )?(ba|da)?sh\b/;

/**
 * The pre-training task: which programming language a snippet is written in. Python is the
 * interpreter's standard library, Perl is perl-base (essential on Debian), shell is the scripts of
 * /usr/bin, /usr/sbin, /etc and git (gzip's z* tools, ldd, …), JavaScript is this repository's
 * node_modules.
 */
export const LANGUAGES: readonly ClassSource[] = [
  { name: 'python', roots: () => usrLibDirs(/^python3(\.\d+)?$/), accept: ext('.py') },
  {
    name: 'perl',
    roots: () => [
      '/usr/share/perl',
      '/usr/share/perl5',
      ...usrLibDirs(/^[a-z0-9_]+-linux-gnu[a-z]*$/).flatMap((d) => usrLibDirs(/^perl/, d)),
    ],
    accept: ext('.pm', '.pl'),
  },
  {
    name: 'shell',
    roots: () => ['/usr/bin', '/usr/sbin', '/etc', '/usr/lib/git-core', '/usr/share/debconf'],
    accept: (path, head) => path.endsWith('.sh') || shebang.test(head),
  },
  {
    name: 'javascript',
    roots: () => [nodeModules],
    accept: (path) => /\.(c|m)?js$/.test(path) && !path.endsWith('.min.js'),
  },
];

/**
 * The fine-tuning task (new labels, as Burn's example moves from AG News to DbPedia): what kind of
 * text a snippet is. TypeScript declarations, Markdown, JSON and license texts of node_modules
 * (fixed by the lockfile, unlike this repository's own files) and Debian's copyright files.
 */
export const TEXT_KINDS: readonly ClassSource[] = [
  { name: 'typescript', roots: () => [nodeModules], accept: (path) => /\.(d\.)?(m|c)?ts$/.test(path) },
  { name: 'markdown', roots: () => [nodeModules], accept: ext('.md') },
  {
    name: 'json',
    roots: () => [nodeModules],
    accept: (path) => path.endsWith('.json') && !path.endsWith('tsconfig.json'),
  },
  {
    name: 'license',
    roots: () => [nodeModules, '/usr/share/doc'],
    accept: (path) => /\/(LICENSE|LICENCE|COPYING|copyright)(\.(md|txt))?$/i.test(path),
  },
];

/** One labelled snippet. */
export interface TextItem {
  readonly text: string;
  readonly label: number;
}

/** Options of {@link buildCorpus}. */
export interface CorpusOptions {
  /** Snippet size in bytes (whole lines, at most this long). */
  readonly snippetBytes: number;
  /** Training snippets per class (fewer when a class has fewer files). */
  readonly trainPerClass: number;
  /** Test snippets per class, from files the training snippets do not come from. */
  readonly testPerClass: number;
  /** At most this many snippets from one file. */
  readonly perFile: number;
  /** Seed of the file order. */
  readonly seed: number;
}

/** A small seeded generator (mulberry32), so the corpus is the same on every run. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const listed = new Map<string, string[]>();

/** The files under `root` (sorted, symlinked directories not followed), at most `limit`; listed once per run. */
function listFiles(root: string, limit = 100_000): string[] {
  const cached = listed.get(root);
  if (cached) return cached;
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= limit) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(path);
    }
  };
  if (existsSync(root)) walk(root);
  listed.set(root, out);
  return out;
}

/** The first `bytes` bytes of a file as text ('' when unreadable or binary). */
function readHead(path: string, bytes: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    const head = buffer.subarray(0, n);
    return head.includes(0) ? '' : head.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Up to `count` snippets of `text`, spread over the file: runs of whole lines of at most
 * `snippetBytes` bytes with enough non-space characters (blank stretches and minified one-line
 * files give nothing).
 */
function snippetsOf(text: string, snippetBytes: number, count: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (Buffer.byteLength(line) >= snippetBytes) {
      current = '';
      continue;
    }
    if (Buffer.byteLength(current) + Buffer.byteLength(line) + 1 > snippetBytes) {
      chunks.push(current);
      current = '';
    }
    current += `${line}\n`;
  }
  if (current.length > 0) chunks.push(current);
  const good = chunks.filter((c) => c.replace(/\s/g, '').length >= snippetBytes / 3);
  if (good.length <= count) return good;
  return Array.from({ length: count }, (_, i) => good[Math.floor((i * good.length) / count)]!);
}

/** Train and test snippets of a task, and what each class holds. */
export interface Corpus {
  readonly classes: string[];
  readonly train: TextItem[];
  readonly test: TextItem[];
  /** Per class: files found, training and test snippets. */
  readonly stats: { name: string; files: number; train: number; test: number }[];
}

/**
 * Builds the snippets of `sources` from the files of this machine: per class the files are
 * shuffled (seeded), the test snippets come from the first files and the training snippets from
 * the next ones, so the two never share a file. Throws when a class finds too little text.
 */
export function buildCorpus(sources: readonly ClassSource[], options: CorpusOptions): Corpus {
  const train: TextItem[] = [],
    test: TextItem[] = [];
  const stats: Corpus['stats'] = [];
  const random = rng(options.seed);
  sources.forEach((source, label) => {
    // Only a class whose test reads the first bytes (the shell's shebang) opens every file.
    const readsHead = source.accept.length > 1;
    const candidates = [...new Set(source.roots().flatMap((root) => listFiles(root)))];
    const files = shuffle(
      candidates.filter((path) => source.accept(path, readsHead ? readHead(path, 64) : '')),
      random,
    );
    const taken: TextItem[][] = [[], []];
    for (const path of files) {
      const into = taken[0]!.length < options.testPerClass ? 0 : 1;
      const want = into === 0 ? options.testPerClass : options.trainPerClass;
      if (taken[1]!.length >= options.trainPerClass) break;
      let size = 0;
      try {
        size = statSync(path).size;
      } catch {
        continue;
      }
      if (size === 0) continue;
      // A window of the file is enough for its snippets (some files are megabytes).
      const text = readHead(path, Math.min(size, 64 * options.snippetBytes * options.perFile));
      const room = Math.min(options.perFile, want - taken[into]!.length);
      for (const snippet of snippetsOf(text, options.snippetBytes, room)) taken[into]!.push({ text: snippet, label });
    }
    const [testItems, trainItems] = taken as [TextItem[], TextItem[]];
    if (
      testItems.length < Math.min(8, options.testPerClass) ||
      trainItems.length < Math.min(16, options.trainPerClass)
    ) {
      throw new Error(
        `text-classification: class '${source.name}' found only ${trainItems.length} training and ${testItems.length} test snippets in ${files.length} files under ${source.roots().join(', ')}`,
      );
    }
    stats.push({ name: source.name, files: files.length, train: trainItems.length, test: testItems.length });
    test.push(...testItems);
    train.push(...trainItems);
  });
  return { classes: sources.map((s) => s.name), train: shuffle(train, random), test, stats };
}

/** An in-memory dataset of snippets. */
export class TextDataset implements Dataset<TextItem> {
  constructor(private readonly items: readonly TextItem[]) {}
  get(index: number): TextItem | undefined {
    return this.items[index];
  }
  len(): number {
    return this.items.length;
  }
}

/**
 * The tokenizer: one token per UTF-8 byte (ids 2–257), after a classification token (id 1) whose
 * encoding the model classifies; id 0 pads. No vocabulary to ship or train, and any text encodes.
 */
export class ByteTokenizer {
  static readonly PAD = 0;
  static readonly CLS = 1;
  /** 256 byte values, the classification token and padding. */
  readonly vocabSize = 258;

  /** The token ids of `text`, at most `maxLength` of them (classification token included). */
  encode(text: string, maxLength: number): number[] {
    const bytes = Buffer.from(text, 'utf8').subarray(0, maxLength - 1);
    return [ByteTokenizer.CLS, ...Array.from(bytes, (b) => b + 2)];
  }
}

/** A batch: tokens `[batch, seqLength]`, padding mask (true = padding) and labels. */
export interface TextBatch {
  readonly tokens: Tensor<2, Int>;
  readonly maskPad: Tensor<2, Bool>;
  readonly labels: Tensor<1, Int>;
}

/** Tokenizes and pads snippets to `seqLength` (Burn's `TextClassificationBatcher`). */
export class TextBatcher implements Batcher<TextItem, TextBatch> {
  constructor(
    private readonly tokenizer: ByteTokenizer,
    private readonly seqLength: number,
  ) {}

  batch(items: TextItem[], device: Device): TextBatch {
    const tokens = new Int32Array(items.length * this.seqLength);
    items.forEach((item, i) => tokens.set(this.tokenizer.encode(item.text, this.seqLength), i * this.seqLength));
    const ids = Tensor.fromInts(tokens, device).reshape([items.length, this.seqLength]);
    return {
      tokens: ids,
      maskPad: ids.equal(ByteTokenizer.PAD),
      labels: Tensor.fromInts(
        Int32Array.from(items, (item) => item.label),
        device,
      ),
    };
  }
}
