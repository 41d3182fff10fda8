import { compileRegex } from './filter.js';

/**
 * Renames tensor keys with regular expressions (Burn's `KeyRemapper`): every pattern that matches
 * a key is applied in turn, replacing all matches (`$1` refers to a capture group).
 */
export class KeyRemapper {
  private constructor(readonly patterns: readonly (readonly [RegExp, string])[]) {}

  /** No patterns. */
  static new(): KeyRemapper {
    return new KeyRemapper([]);
  }

  /** From `[pattern, replacement]` pairs. */
  static fromPatterns(patterns: Iterable<readonly [string | RegExp, string]>): KeyRemapper {
    let r = KeyRemapper.new();
    for (const [from, to] of patterns) r = r.addPattern(from, to);
    return r;
  }

  /** Adds a pattern (an invalid regular expression is a BurnError). */
  addPattern(from: string | RegExp, to: string): KeyRemapper {
    const re = compileRegex(from, 'KeyRemapper.addPattern');
    const global = re.flags.includes('g') ? re : new RegExp(re.source, `${re.flags}g`);
    return new KeyRemapper([...this.patterns, [global, to]]);
  }

  /** True when there is no pattern. */
  isEmpty(): boolean {
    return this.patterns.length === 0;
  }

  /** The key after every pattern. */
  remapKey(key: string): string {
    let out = key;
    for (const [re, to] of this.patterns) {
      re.lastIndex = 0;
      if (re.test(out)) {
        re.lastIndex = 0;
        out = out.replace(re, to);
      }
    }
    return out;
  }
}

/**
 * Renumbers the numeric path segments so that, under each prefix, indices run 0, 1, 2, … in
 * their original order (Burn's `map_indices_contiguous`): PyTorch's `fc.0`, `fc.2`, `fc.4` (a
 * Sequential with activations between) become `fc.0`, `fc.1`, `fc.2`. Returns old → new keys.
 */
export function mapIndicesContiguous(keys: Iterable<string>): Map<string, string> {
  const all = [...keys];
  const indexMaps = new Map<string, Map<number, number>>();
  for (const key of all) {
    const parts = key.split('.');
    parts.forEach((part, i) => {
      if (!/^\d+$/.test(part)) return;
      const prefix = i > 0 ? `${parts.slice(0, i).join('.')}.` : '';
      let m = indexMaps.get(prefix);
      if (!m) indexMaps.set(prefix, (m = new Map()));
      m.set(Number(part), -1);
    });
  }
  for (const m of indexMaps.values()) {
    [...m.keys()].sort((a, b) => a - b).forEach((old, i) => m.set(old, i));
  }
  const out = new Map<string, string>();
  for (const key of all) {
    const parts = key.split('.');
    const mapped = parts.map((part, i) => {
      if (!/^\d+$/.test(part)) return part;
      const prefix = i > 0 ? `${parts.slice(0, i).join('.')}.` : '';
      const n = indexMaps.get(prefix)?.get(Number(part));
      return n === undefined ? part : String(n);
    });
    out.set(key, mapped.join('.'));
  }
  return out;
}
