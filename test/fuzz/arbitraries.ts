// Shared pieces of the differential fuzz suite: the seed and run counts, a small
// deterministic PRNG that resolves generated programs against run-time shapes, and the byte-level
// mutations used on files and remote frames. Everything is seeded: a failure prints the seed and
// the counterexample (fast-check does), and rerunning with BURN_FUZZ_SEED reproduces it.
import fc from 'fast-check';

/** The seed of every property (BURN_FUZZ_SEED, default fixed so that CI is reproducible). */
export const FUZZ_SEED = envInt('BURN_FUZZ_SEED', 0x5eed18);

/**
 * Runs of a property: `base` (sized so the whole folder stays well under a minute on 2 cores)
 * times BURN_FUZZ_RUNS, a multiplier (default 1): BURN_FUZZ_RUNS=10 runs ten times as many cases.
 */
export function fuzzRuns(base: number): number {
  const v = process.env['BURN_FUZZ_RUNS'];
  const scale = v === undefined || v === '' ? 1 : Number(v);
  if (!(Number.isFinite(scale) && scale > 0))
    throw new Error(`BURN_FUZZ_RUNS=${v}; expected a positive number (a multiplier of the default run counts)`);
  return Math.max(1, Math.round(base * scale));
}

/** fast-check parameters of a property: the suite's seed, `runs` runs, the counterexample printed on failure. */
export function fuzzParams(runs: number): {
  seed: number;
  numRuns: number;
  endOnFailure: boolean;
  verbose: fc.VerbosityLevel;
  includeErrorInReport: boolean;
} {
  return {
    seed: FUZZ_SEED,
    numRuns: runs,
    endOnFailure: true,
    verbose: fc.VerbosityLevel.Verbose,
    includeErrorInReport: true,
  };
}

function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`${name}=${v}; expected an integer`);
  return n;
}

/** A small deterministic PRNG (mulberry32): resolves a generated seed into concrete parameters. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return hi < lo ? lo : lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** A random permutation of 0..n-1. */
  perm(n: number): number[] {
    const a = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(0, i);
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  }
}

// --- byte mutations (files and frames) ---

/** Values written over length, offset and count fields: boundaries, huge and negative. */
export const HOSTILE_U32 = [
  0, 1, 7, 8, 0x7f, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
];
/** 64-bit values written over 64-bit fields (as BigInt, little-endian). */
export const HOSTILE_U64: readonly bigint[] = [
  0n,
  1n,
  8n,
  0xffffffffn,
  0x100000000n,
  2n ** 53n,
  2n ** 62n,
  2n ** 63n - 1n,
  2n ** 64n - 1n,
];

/** One byte-level mutation; `at` is a fraction of the length (resolved against the bytes mutated). */
export type ByteMutation =
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'flip'; readonly at: number; readonly mask: number }
  | { readonly kind: 'set'; readonly at: number; readonly value: number }
  | { readonly kind: 'u32'; readonly at: number; readonly value: number }
  | { readonly kind: 'u64'; readonly at: number; readonly value: bigint }
  | { readonly kind: 'insert'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly kind: 'delete'; readonly at: number; readonly length: number }
  | { readonly kind: 'duplicate'; readonly at: number; readonly length: number };

const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

/** Byte mutations, biased towards the start of the bytes (where headers are) by `headBias`. */
export function byteMutationArb(): fc.Arbitrary<ByteMutation> {
  // Squaring a uniform fraction puts half the positions in the first quarter (headers).
  const at = fc.oneof(
    frac,
    frac.map((f) => f * f * f),
  );
  return fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at }),
    fc.record({ kind: fc.constant('flip' as const), at, mask: fc.integer({ min: 1, max: 255 }) }),
    fc.record({
      kind: fc.constant('set' as const),
      at,
      value: fc.constantFrom(0, 1, 0x7f, 0x80, 0xff, 0x22, 0x5b, 0x7b),
    }),
    fc.record({ kind: fc.constant('u32' as const), at, value: fc.constantFrom(...HOSTILE_U32) }),
    fc.record({ kind: fc.constant('u64' as const), at, value: fc.constantFrom(...HOSTILE_U64) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at,
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 16 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), at, length: fc.integer({ min: 1, max: 64 }) }),
    fc.record({ kind: fc.constant('duplicate' as const), at, length: fc.integer({ min: 1, max: 256 }) }),
  );
}

/** Applies byte mutations in order (a fresh array; the input is not changed). */
export function applyByteMutations(input: Uint8Array, mutations: readonly ByteMutation[]): Uint8Array {
  let b: Uint8Array = input.slice();
  for (const m of mutations) {
    const pos = Math.min(b.length, Math.floor(m.at * (b.length + 1)));
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    switch (m.kind) {
      case 'truncate':
        b = b.slice(0, pos);
        break;
      case 'flip':
        if (pos < b.length) b[pos]! ^= m.mask;
        break;
      case 'set':
        if (pos < b.length) b[pos] = m.value;
        break;
      case 'u32':
        if (pos + 4 <= b.length) dv.setUint32(pos, m.value, true);
        break;
      case 'u64':
        if (pos + 8 <= b.length) dv.setBigUint64(pos, m.value, true);
        break;
      case 'insert':
        b = concat([b.subarray(0, pos), Uint8Array.from(m.bytes), b.subarray(pos)]);
        break;
      case 'delete':
        b = concat([b.subarray(0, pos), b.subarray(Math.min(b.length, pos + m.length))]);
        break;
      case 'duplicate':
        b = concat([b.subarray(0, pos), b.subarray(pos, pos + m.length), b.subarray(pos)]);
        break;
    }
  }
  return b;
}

/** Concatenates byte arrays. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// --- tree mutations (CBOR, JSON, MessagePack metadata, remote frames) ---

const HOSTILE_NUMBERS = [
  -1,
  0,
  1,
  3,
  255,
  256,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 32 + 1,
  2 ** 53,
  -(2 ** 53),
  1e300,
  -1e300,
  0.5,
  -0.5,
  NaN,
  Infinity,
  -Infinity,
];
const HOSTILE_STRINGS = [
  '',
  'F32',
  'F64',
  'I64',
  'Bool',
  'BF16',
  'U64',
  'Q8',
  'x'.repeat(5000),
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '\u0000',
  'ü',
];

type Tree = unknown;
type Slot = { get: () => Tree; set: (v: Tree) => void; remove: () => void; dup: () => void };

/** Every slot (array element, object property, map entry) of a tree, depth-first, at most `max`. */
function slots(root: Tree, max = 2000): Slot[] {
  const out: Slot[] = [];
  const walk = (node: Tree, depth: number) => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length && out.length < max; i++) {
        out.push({
          get: () => node[i],
          set: (x) => {
            node[i] = x;
          },
          remove: () => {
            node.splice(i, 1);
          },
          dup: () => {
            node.splice(i, 0, structuredClone(node[i]));
          },
        });
        walk(node[i], depth + 1);
      }
    } else if (node instanceof Map) {
      for (const k of [...node.keys()]) {
        if (out.length >= max) break;
        out.push({
          get: () => node.get(k),
          set: (x) => {
            node.set(k, x);
          },
          remove: () => {
            node.delete(k);
          },
          dup: () => {
            node.set(`${String(k)}_dup`, structuredClone(node.get(k)));
          },
        });
        walk(node.get(k), depth + 1);
      }
    } else if (node !== null && typeof node === 'object' && !ArrayBuffer.isView(node)) {
      const o = node as Record<string, Tree>;
      for (const k of Object.keys(o)) {
        if (out.length >= max) break;
        out.push({
          get: () => o[k],
          set: (x) => {
            o[k] = x;
          },
          remove: () => {
            delete o[k];
          },
          dup: () => {
            o[`${k}_dup`] = structuredClone(o[k]);
          },
        });
        walk(o[k], depth + 1);
      }
    }
  };
  walk(root, 0);
  return out;
}

/**
 * Mutates one slot of `root` in place (values in hostile ranges, other types, removal,
 * duplication, moderate nesting, long arrays); `bigints` allows 64-bit integers (CBOR, MessagePack).
 */
export function mutateTree(root: Tree, rnd: Rng, bigints: boolean): void {
  const all = slots(root);
  if (all.length === 0) return;
  const slot = rnd.pick(all);
  const v = slot.get();
  switch (rnd.int(0, 9)) {
    case 0:
      slot.set(rnd.pick(HOSTILE_NUMBERS));
      break;
    case 1:
      slot.set(
        bigints ? rnd.pick([2n ** 64n - 1n, 2n ** 63n, -(2n ** 63n), 2n ** 53n + 1n]) : rnd.pick(HOSTILE_NUMBERS),
      );
      break;
    case 2:
      slot.set(rnd.pick(HOSTILE_STRINGS));
      break;
    case 3:
      slot.remove();
      break;
    case 4:
      slot.dup();
      break;
    case 5:
      slot.set(rnd.pick([null, true, [], {}, [v, v], { v }]));
      break;
    case 6: {
      let nested: Tree = v;
      for (let i = 0, n = rnd.int(10, 200); i < n; i++) nested = [nested];
      slot.set(nested);
      break;
    }
    case 7:
      slot.set(Array.from({ length: rnd.pick([16, 100, 4096]) }, () => rnd.pick([0, 1, 2 ** 31, -1])));
      break;
    case 8: {
      // A number nudged: off-by-one sizes and offsets.
      if (typeof v === 'number') slot.set(v + rnd.pick([-1, 1, -8, 8, 256, -256]));
      else slot.set(rnd.pick(HOSTILE_NUMBERS));
      break;
    }
    default: {
      // Swap with another slot's value (offsets of one tensor on another, shapes as dtypes, ...).
      const other = rnd.pick(all).get();
      slot.set(structuredClone(other));
    }
  }
}

/** A short printable description of a thrown value (for failure messages). */
export function describeThrown(e: unknown): string {
  if (e instanceof Error) return `${e.constructor.name}: ${e.message.slice(0, 300)}`;
  return `non-Error ${typeof e}: ${String(e).slice(0, 200)}`;
}
