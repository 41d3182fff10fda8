import type { FusedInstr, FusedProgram } from './program.js';
import { instrArgs } from './program.js';

/**
 * Composite ops found in a fused program: the decorator records `softmax`, `logSoftmax`, `relu` and
 * `reluBackward` as their primitive formulas (so they fuse with their neighbours), but a backend
 * has a hand-written kernel for each. Where a program is replayed op by op (no fused kernel, or the
 * autotune measured the replay faster), an idiom runs as that one kernel — the op the unfused
 * device runs — instead of its four or five primitives.
 */
export type FusedIdiom =
  /** `exp(x − max x) / Σ exp(x − max x)` over the inner dims. */
  | { readonly kind: 'softmax'; readonly root: number; readonly x: number; readonly covered: readonly number[] }
  /** `(x − max x) − log Σ exp(x − max x)` over the inner dims. */
  | { readonly kind: 'logSoftmax'; readonly root: number; readonly x: number; readonly covered: readonly number[] }
  /**
   * `where(a ≤ 0, 0, b)`: `relu(a)` when `a` is `b`, else `reluBackward(a, b)`; `zeros` are the
   * scalar indices that must hold 0 at run time.
   */
  | {
      readonly kind: 'relu';
      readonly root: number;
      readonly x: number;
      readonly grad: number;
      readonly zeros: readonly number[];
      readonly covered: readonly number[];
    };

/** Idioms by program key (matching is structural: the scalars' values are checked per call). */
const cache = new Map<string, readonly FusedIdiom[]>();
const CACHE_LIMIT = 4096;

/**
 * The idioms of `program`, each rooted at one value and covering values nothing else reads (no
 * other instruction, no output but the root). Idioms do not overlap.
 */
export function fusedIdioms(program: FusedProgram): readonly FusedIdiom[] {
  let found = cache.get(program.key);
  if (found === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(program.key, (found = matchIdioms(program)));
  }
  return found;
}

/** Whether `idiom` applies with these scalar values (a relu's zeros must be zeros). */
export function idiomApplies(idiom: FusedIdiom, program: FusedProgram, scalars: readonly number[]): boolean {
  if (idiom.kind !== 'relu') return true;
  return idiom.zeros.every((v) => {
    const s = program.instrs[v];
    return s?.kind === 'scalar' && scalars[s.index] === 0;
  });
}

function matchIdioms(program: FusedProgram): FusedIdiom[] {
  const { instrs, levels } = program;
  const users: number[][] = instrs.map(() => []);
  instrs.forEach((instr, i) => {
    for (const a of instrArgs(instr)) users[a]!.push(i);
  });
  const outputs = new Set(program.outputs.map((o) => o.value));
  const taken = new Set<number>();
  /** `v` is read only by the instructions listed (each once or more) and is no output. */
  const privateTo = (v: number, readers: readonly number[]): boolean =>
    !outputs.has(v) && !taken.has(v) && users[v]!.every((u) => readers.includes(u));
  const at = <K extends FusedInstr['kind']>(v: number, kind: K): Extract<FusedInstr, { kind: K }> | undefined => {
    const instr = instrs[v];
    return instr?.kind === kind ? (instr as Extract<FusedInstr, { kind: K }>) : undefined;
  };
  const found: FusedIdiom[] = [];
  const float = (d: string) => d === 'f32' || d === 'f64' || d === 'f16' || d === 'bf16';
  for (let root = instrs.length - 1; root >= 0; root--) {
    if (taken.has(root)) continue;
    const instr = instrs[root]!;
    let idiom: FusedIdiom | undefined;
    if (instr.kind === 'binary' && instr.op === 'div' && float(instr.dtype)) {
      // softmax: div(e, sum(e)), e = exp(sub(x, max(x)))
      const s = at(instr.y, 'reduce');
      const e = at(instr.x, 'unary');
      const d = e && e.op === 'exp' ? at(e.x, 'binary') : undefined;
      const m = d && d.op === 'sub' ? at(d.y, 'reduce') : undefined;
      if (s?.op === 'sum' && s.x === instr.x && d && m?.op === 'max' && m.x === d.x && levels[d.x] === 'element') {
        const ok =
          privateTo(instr.y, [root]) &&
          privateTo(instr.x, [root, instr.y]) &&
          privateTo(e!.x, [instr.x]) &&
          privateTo(d.y, [e!.x]);
        if (ok) idiom = { kind: 'softmax', root, x: d.x, covered: [d.y, e!.x, instr.x, instr.y] };
      }
    } else if (instr.kind === 'binary' && instr.op === 'sub' && float(instr.dtype)) {
      // logSoftmax: sub(sh, log(sum(exp(sh)))), sh = sub(x, max(x))
      const l = at(instr.y, 'unary');
      const s = l && l.op === 'log' ? at(l.x, 'reduce') : undefined;
      const e = s && s.op === 'sum' ? at(s.x, 'unary') : undefined;
      const sh = at(instr.x, 'binary');
      const m = sh && sh.op === 'sub' ? at(sh.y, 'reduce') : undefined;
      if (e?.op === 'exp' && e.x === instr.x && sh && m?.op === 'max' && m.x === sh.x && levels[sh.x] === 'element') {
        const ok =
          privateTo(instr.y, [root]) &&
          privateTo(l!.x, [instr.y]) &&
          privateTo(s!.x, [l!.x]) &&
          privateTo(instr.x, [root, s!.x]) &&
          privateTo(sh.y, [instr.x]);
        if (ok) idiom = { kind: 'logSoftmax', root, x: sh.x, covered: [sh.y, instr.x, s!.x, l!.x, instr.y] };
      }
    } else if (instr.kind === 'where') {
      // relu / reluBackward: where(le(a, 0), 0, b)
      const c = at(instr.c, 'compare');
      const zero = at(instr.x, 'scalar');
      const cz = c ? at(c.y, 'scalar') : undefined;
      const numeric = instr.dtype !== 'bool';
      if (numeric && c?.op === 'le' && zero && cz && levels[instr.y] === 'element' && levels[c.x] === 'element') {
        const sameDtype = instrs[c.x]!.dtype === instr.dtype && zero.dtype === instr.dtype && cz.dtype === instr.dtype;
        if (sameDtype && privateTo(instr.c, [root])) {
          idiom = {
            kind: 'relu',
            root,
            x: c.x,
            grad: instr.y,
            zeros: [instr.x, c.y],
            covered: [instr.c],
          };
        }
      }
    }
    if (idiom) {
      found.push(idiom);
      for (const v of idiom.covered) taken.add(v);
      taken.add(root);
    }
  }
  return found;
}
