#!/usr/bin/env node
// Checks the layering of src/ (`npm run lint:layers`, part of `npm test`). Layers, bottom to top:
//   core ← (platform, config) ← backend ← backends ← device ← tensor ← (record, data) ← module ← store
//   ← (nn, optim) ← (onnx, train) ← (cli, src/index.ts)
// A file may import (value, type, re-export or `import()`) its own folder or a folder of a lower layer;
// folders of one layer do not import each other. data sits beside record and may use only core, platform,
// config, backend, device and tensor. Sibling backends (backends/cpu, webgpu, remote, autodiff) do not
// import each other: the autodiff decorator wraps any backend through backend/'s `Backend` interface, so
// the current graph needs no exception (SIBLING_EXCEPTIONS is empty).
// Facades: a package entry point (a file package.json "exports" names) may re-export (`export … from`)
// from a higher layer, since its names are fixed by users' import paths; only files above it may import it.
// Also fails on any cycle between folders and on any cycle of runtime imports between files (`import type`
// is erased and `import()` is lazy, so neither counts; verbatimModuleSyntax keeps `import { type A }`).
// Usage: node scripts/check-layers.mjs [srcDir]  (default src; facades from srcDir/../package.json).
// Exit 1, listing each violation (file → target and the rule), when one is found.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Each top-level folder of src/ ('' for files directly in src/): its rank; a side layer lists what it may use. */
const LAYERS = {
  core: { rank: 0 },
  platform: { rank: 1 },
  config: { rank: 1 },
  backend: { rank: 2 },
  backends: { rank: 3 },
  device: { rank: 4 },
  tensor: { rank: 5 },
  record: { rank: 6 },
  data: { rank: 6, mayUse: ['core', 'platform', 'config', 'backend', 'device', 'tensor'] },
  module: { rank: 7 },
  store: { rank: 8 },
  nn: { rank: 9 },
  optim: { rank: 9 },
  onnx: { rank: 10 },
  train: { rank: 10 },
  cli: { rank: 11 },
  '': { rank: 11 },
};

/** Sibling-backend imports allowed, as 'backends/<from> -> backends/<to>'; none are needed today. */
const SIBLING_EXCEPTIONS = new Set([]);

const srcDir = resolve(process.argv[2] ?? 'src');

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listFiles(path);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The code of `src` with comments removed and every string or template literal replaced by `'#n'`
 * (n indexes `strings`), so that import statements are found only in code, never in comments,
 * doc examples or generated-source templates.
 */
function scan(src) {
  const strings = [];
  let out = '';
  let i = 0;
  let last = ''; // the last significant code character: tells a regular expression from a division
  const regexBefore = new Set([
    '',
    '(',
    ',',
    '=',
    ':',
    '[',
    '!',
    '&',
    '|',
    '?',
    '{',
    '}',
    ';',
    '+',
    '-',
    '*',
    '%',
    '<',
    '>',
    '~',
    '^',
  ]);
  const code = (stopAtBrace) => {
    let depth = 0;
    while (i < src.length) {
      const c = src[i];
      const d = src[i + 1];
      if (c === '/' && d === '/') {
        while (i < src.length && src[i] !== '\n') i++;
      } else if (c === '/' && d === '*') {
        const end = src.indexOf('*/', i + 2);
        i = end < 0 ? src.length : end + 2;
        out += ' ';
      } else if (c === "'" || c === '"') {
        let v = '';
        i++;
        while (i < src.length && src[i] !== c) {
          if (src[i] === '\\') i++;
          v += src[i++];
        }
        i++;
        strings.push(v);
        out += `'#${strings.length - 1}'`;
        last = "'";
      } else if (c === '`') {
        i++;
        while (i < src.length && src[i] !== '`') {
          if (src[i] === '\\') i += 2;
          else if (src[i] === '$' && src[i + 1] === '{') {
            i += 2;
            code(true);
          } else i++;
        }
        i++;
        out += "''";
        last = "'";
      } else if (
        c === '/' &&
        (regexBefore.has(last) || /\b(return|typeof|case|of|in|void|throw|yield|await)\s*$/.test(out))
      ) {
        let inClass = false;
        i++;
        while (i < src.length && (src[i] !== '/' || inClass) && src[i] !== '\n') {
          if (src[i] === '\\') i++;
          else if (src[i] === '[') inClass = true;
          else if (src[i] === ']') inClass = false;
          i++;
        }
        i++;
        out += '/r/';
        last = 'r';
      } else {
        if (stopAtBrace && c === '}' && depth === 0) {
          i++;
          return;
        }
        if (c === '{') depth++;
        if (c === '}') depth--;
        out += c;
        if (!/\s/.test(c)) last = /[\w$)\]]/.test(c) ? 'w' : c;
        i++;
      }
    }
  };
  code(false);
  return { code: out, strings };
}

const CLAUSE = String.raw`(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\}|[\w$]+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+[\w$]+))?)`;
const PATTERNS = [
  // import [type] clause from 'x' / export [type] clause from 'x'
  {
    re: new RegExp(String.raw`(?<![\w$.])(import|export)\s+(type\s+)?${CLAUSE}\s*from\s*'#(\d+)'`, 'g'),
    kind: (m) => (m[1] === 'export' ? 'reexport' : 'import'),
    typeOnly: (m) => m[2] !== undefined,
    spec: 3,
  },
  // import 'x' (side effects)
  { re: /(?<![\w$.])import\s*'#(\d+)'/g, kind: () => 'import', typeOnly: () => false, spec: 1 },
  // import('x'), in code or in a type (`typeof import('x')`)
  { re: /(?<![\w$.])import\s*\(\s*'#(\d+)'/g, kind: () => 'dynamic', typeOnly: () => false, spec: 1 },
];

/** The relative imports of one file: { spec, kind: 'import' | 'reexport' | 'dynamic', typeOnly }. */
function importsOf(file) {
  const { code, strings } = scan(readFileSync(file, 'utf8'));
  const out = [];
  for (const p of PATTERNS) {
    for (const m of code.matchAll(p.re))
      out.push({ spec: strings[Number(m[p.spec])], kind: p.kind(m), typeOnly: p.typeOnly(m) });
  }
  return out.filter((x) => x.spec.startsWith('.'));
}

function resolveImport(file, spec) {
  const base = resolve(dirname(file), spec);
  const candidates = [
    base,
    base.replace(/\.(m?)js$/, '.$1ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => /\.(ts|tsx|mts)$/.test(c) && existsSync(c));
}

/** The package entry points (package.json "exports", every condition) as source files. */
function facadesOf() {
  const pkg = join(srcDir, '..', 'package.json');
  if (!existsSync(pkg)) return new Set();
  const targets = [];
  const walk = (v) =>
    typeof v === 'string' ? targets.push(v) : v && typeof v === 'object' ? Object.values(v).forEach(walk) : undefined;
  walk(JSON.parse(readFileSync(pkg, 'utf8')).exports);
  const srcName = relative(join(srcDir, '..'), srcDir);
  return new Set(
    targets
      .filter((t) => /^\.\/dist\/.*\.js$/.test(t))
      .map((t) => resolve(srcDir, '..', t.replace(/^\.\/dist\//, `${srcName}/`).replace(/\.js$/, '.ts')))
      .filter((f) => existsSync(f)),
  );
}

const rel = (f) => relative(join(srcDir, '..'), f).split(sep).join('/');
const top = (f) => {
  const parts = relative(srcDir, f).split(sep);
  return parts.length > 1 ? parts[0] : '';
};
/** The unit of the folder checks: the top-level folder, or backends/<name> for a backend. */
const unit = (f) => {
  const parts = relative(srcDir, f).split(sep);
  return parts[0] === 'backends' && parts.length > 2 ? `backends/${parts[1]}` : top(f);
};
const layerName = (t) => (t === '' ? 'src/ (root)' : t);

/** Strongly connected components with more than one node (Tarjan). */
function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** One cycle through `start` inside `members` (breadth-first), as a list of nodes ending at start. */
function cyclePath(graph, members, start) {
  const inside = new Set(members);
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const files = listFiles(srcDir).sort();
const facades = facadesOf();
const problems = [];
const edges = []; // { from, to, kind, typeOnly }
for (const f of files) {
  if (!(top(f) in LAYERS))
    problems.push(`${rel(f)}: folder '${top(f)}' has no layer; add it to LAYERS in scripts/check-layers.mjs`);
  for (const imp of importsOf(f)) {
    const to = resolveImport(f, imp.spec);
    if (to === undefined || !to.startsWith(srcDir + sep)) continue;
    edges.push({ from: f, to, kind: imp.kind, typeOnly: imp.typeOnly });
  }
}

// Layer rule.
const effectiveRank = new Map(); // facade → the highest rank it re-exports from
const facadeUses = []; // the upward re-exports of entry points, listed when the check passes
const folderGraph = new Map();
const folderSample = new Map();
for (const e of edges) {
  const a = top(e.from);
  const b = top(e.to);
  const la = LAYERS[a];
  const lb = LAYERS[b];
  if (la === undefined || lb === undefined) continue;
  const ua = unit(e.from);
  const ub = unit(e.to);
  const facadeReexport = facades.has(e.from) && e.kind === 'reexport' && lb.rank > la.rank;
  if (facadeReexport) {
    effectiveRank.set(e.from, Math.max(effectiveRank.get(e.from) ?? la.rank, lb.rank));
    facadeUses.push(`${rel(e.from)} → ${rel(e.to)}`);
    continue; // not a dependency of the facade's folder
  }
  if (ua !== ub) {
    if (!folderGraph.has(ua)) folderGraph.set(ua, new Set());
    folderGraph.get(ua).add(ub);
    if (!folderSample.has(`${ua}>${ub}`)) folderSample.set(`${ua}>${ub}`, `${rel(e.from)} → ${rel(e.to)}`);
  }
  if (a === b) {
    if (a === 'backends' && ua !== ub && !SIBLING_EXCEPTIONS.has(`${ua} -> ${ub}`)) {
      problems.push(
        `${rel(e.from)} → ${rel(e.to)}: sibling backends do not import each other (${ua} → ${ub}); share code through backend/`,
      );
    }
    continue;
  }
  if (lb.rank >= la.rank) {
    const why =
      lb.rank === la.rank
        ? `'${a}' and '${b}' are on the same layer and do not import each other`
        : `'${layerName(a)}' (layer ${la.rank}) imports '${b}' (layer ${lb.rank}), a higher layer`;
    problems.push(`${rel(e.from)} → ${rel(e.to)}: upward import: ${why}`);
  } else if (la.mayUse && !la.mayUse.includes(b)) {
    problems.push(`${rel(e.from)} → ${rel(e.to)}: '${a}' may use only ${la.mayUse.join(', ')}`);
  }
}
// A facade that re-exports from above its folder counts at that layer for its importers.
for (const e of edges) {
  const eff = effectiveRank.get(e.to);
  if (eff === undefined || e.from === e.to) continue;
  const la = LAYERS[top(e.from)];
  if (la !== undefined && la.rank <= eff) {
    problems.push(
      `${rel(e.from)} → ${rel(e.to)}: upward import: the entry point re-exports from layer ${eff}, above '${layerName(top(e.from))}' (layer ${la.rank}); import the defining file instead`,
    );
  }
}

// Cycles between folders.
for (const scc of cycles(folderGraph)) {
  const path = cyclePath(folderGraph, scc, scc[0]);
  const steps = path.slice(0, -1).map((u, k) => `    ${folderSample.get(`${u}>${path[k + 1]}`)}`);
  problems.push(`folder cycle: ${path.join(' → ')}\n${steps.join('\n')}`);
}

// Cycles of runtime imports between files.
const fileGraph = new Map();
for (const e of edges) {
  if (e.typeOnly || e.kind === 'dynamic' || e.from === e.to) continue;
  if (!fileGraph.has(e.from)) fileGraph.set(e.from, new Set());
  fileGraph.get(e.from).add(e.to);
}
for (const scc of cycles(fileGraph)) {
  problems.push(
    `file cycle (runtime imports): ${cyclePath(fileGraph, scc, scc[0]).map(rel).join(' → ')}${scc.length > 2 ? ` (${scc.length} files in the cycle)` : ''}`,
  );
}

if (problems.length > 0) {
  console.error(
    `check-layers: ${problems.length} problem(s) in ${rel(srcDir)}/ (layer order and rules: scripts/check-layers.mjs):\n${problems.map((p) => `  ${p}`).join('\n')}`,
  );
  process.exit(1);
}
const uses = facadeUses.length === 0 ? '' : `; entry points re-exporting from above:\n  ${facadeUses.join('\n  ')}`;
console.log(`check-layers: ${files.length} files, ${edges.length} imports: no upward import, no cycle${uses}`);
