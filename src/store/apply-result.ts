import { fmt } from '../core/errors.js';
import { stripEnumVariants } from '../module/naming.js';

/** What went wrong with one tensor while applying (Burn's `ApplyError`). */
export type ApplyError =
  | {
      readonly kind: 'ShapeMismatch';
      readonly path: string;
      readonly expected: readonly number[];
      readonly found: readonly number[];
    }
  | { readonly kind: 'DTypeMismatch'; readonly path: string; readonly expected: string; readonly found: string }
  | { readonly kind: 'AdapterError'; readonly path: string; readonly message: string }
  | { readonly kind: 'LoadError'; readonly path: string; readonly message: string };

/** One error as a sentence, as Burn prints it. */
export function formatApplyError(e: ApplyError): string {
  switch (e.kind) {
    case 'ShapeMismatch':
      return `Shape mismatch for '${e.path}': expected ${fmt(e.expected)}, found ${fmt(e.found)}`;
    case 'DTypeMismatch':
      return `DType mismatch for '${e.path}': expected ${e.expected}, found ${e.found}`;
    case 'AdapterError':
      return `Adapter error for '${e.path}': ${e.message}`;
    case 'LoadError':
      return `Load error for '${e.path}': ${e.message}`;
  }
}

/** Jaro similarity of two strings (1 = equal), used for "did you mean" suggestions as Burn. */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const ma = new Array<boolean>(a.length).fill(false);
  const mb = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j < Math.min(b.length, i + window + 1); j++) {
      if (!mb[j] && a[i] === b[j]) {
        ma[i] = mb[j] = true;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let t = 0;
  let k = 0;
  for (let i = 0; i < a.length; i++) {
    if (!ma[i]) continue;
    while (!mb[k]) k++;
    if (a[i] !== b[k]) t++;
    k++;
  }
  return (matches / a.length + matches / b.length + (matches - t / 2) / matches) / 3;
}

/**
 * The outcome of loading tensors into a module (Burn's `ApplyResult`): module paths applied,
 * skipped by the filter, missing from the source, source keys no parameter used, and errors.
 */
export class ApplyResult {
  constructor(
    /** Module paths that were loaded. */
    readonly applied: string[],
    /** Module paths the filter left out. */
    readonly skipped: string[],
    /** Module paths the source has no tensor for (sorted). */
    readonly missing: string[],
    /** Source keys that no module parameter matched (sorted). */
    readonly unused: string[],
    /** Tensors found but not loaded (shape or dtype mismatch, unreadable data). */
    readonly errors: ApplyError[],
    /** The container stack of each missing path (`Struct:Net.Struct:Linear`). */
    readonly missingContainers: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** True when there is no error (missing tensors are not errors; see `allowPartial`). */
  isSuccess(): boolean {
    return this.errors.length === 0;
  }

  /** Up to `max` unused keys similar to `path` (an exact match once enum variants are stripped, else Jaro ≥ 0.7). */
  suggestions(path: string, max = 1): string[] {
    const stripped = stripEnumVariants(path);
    if (stripped !== path && this.unused.includes(stripped)) return [stripped];
    return this.unused
      .map((u) => [u, jaro(path, u)] as const)
      .filter(([, s]) => s >= 0.7)
      .sort((x, y) => y[1] - x[1])
      .slice(0, max)
      .map(([u]) => u);
  }

  /** Burn's loading summary. */
  toString(): string {
    const lines = [
      '┌─ Tensor Loading Summary ─────────────────────────',
      '│',
      `│ ✓ Successfully applied: ${this.applied.length} tensors`,
      `│ ⊘ Skipped (filtered):  ${this.skipped.length} tensors`,
      `│ ✗ Missing in source:    ${this.missing.length} tensors`,
      `│ ? Unused in target:     ${this.unused.length} tensors`,
      `│ ! Errors:               ${this.errors.length} errors`,
    ];
    const list = (title: string, items: string[], extra?: (p: string) => string[]) => {
      lines.push('│', `├─ ${title}`, '│', `│  First 10 ${title.startsWith('Missing') ? 'missing' : 'unused'} tensors:`);
      for (const p of items.slice(0, 10)) {
        lines.push(`│    • ${p}`);
        if (extra) lines.push(...extra(p));
      }
      if (items.length > 10) lines.push(`│    ... and ${items.length - 10} more`);
    };
    if (this.missing.length > 0) {
      list('Missing Tensors (requested by model but not found in source)', this.missing, (p) => {
        const s = this.suggestions(p, 1);
        return s.length > 0 ? [`│        Did you mean: '${s[0]}'?`] : [];
      });
    }
    if (this.unused.length > 0) list('Unused Tensors (in source but not used by model)', this.unused);
    if (this.errors.length > 0) {
      lines.push('│', '├─ Errors', '│');
      for (const e of this.errors.slice(0, 10)) lines.push(`│  ⚠️  ${formatApplyError(e)}`);
      if (this.errors.length > 10) lines.push(`│    ... and ${this.errors.length - 10} more`);
    }
    lines.push('│', '└───────────────────────────────────────────────────');
    return lines.join('\n');
  }
}
