import { BurnError } from '../core/errors.js';

/** A predicate over a tensor path and its container path (`Struct:Net.Struct:Linear`). */
export type PathPredicate = (path: string, containerPath: string) => boolean;

/**
 * Selects tensors by path (Burn's `PathFilter`): a tensor is selected when any regular
 * expression matches its path, its path equals one of the full paths, or any predicate accepts
 * it. An empty filter selects nothing; {@link PathFilter.all} selects everything.
 */
export class PathFilter {
  private constructor(
    private readonly regexes: readonly RegExp[],
    private readonly fullPaths: readonly string[],
    private readonly predicates: readonly PathPredicate[],
    private readonly everything: boolean,
  ) {}

  /** An empty filter (selects nothing until criteria are added). */
  static new(): PathFilter {
    return new PathFilter([], [], [], false);
  }

  /** A filter selecting every tensor. */
  static all(): PathFilter {
    return new PathFilter([], [], [], true);
  }

  /** A filter selecting no tensor. */
  static none(): PathFilter {
    return PathFilter.new();
  }

  /** Adds a regular expression (a string is compiled; an invalid one is a BurnError). */
  withRegex(pattern: string | RegExp): PathFilter {
    return new PathFilter(
      [...this.regexes, compileRegex(pattern, 'PathFilter.withRegex')],
      this.fullPaths,
      this.predicates,
      this.everything,
    );
  }

  /** Adds several regular expressions. */
  withRegexes(patterns: Iterable<string | RegExp>): PathFilter {
    let f: PathFilter = this;
    for (const p of patterns) f = f.withRegex(p);
    return f;
  }

  /** Adds an exact path. */
  withFullPath(path: string): PathFilter {
    return new PathFilter(this.regexes, [...this.fullPaths, path], this.predicates, this.everything);
  }

  /** Adds exact paths. */
  withFullPaths(paths: Iterable<string>): PathFilter {
    return new PathFilter(this.regexes, [...this.fullPaths, ...paths], this.predicates, this.everything);
  }

  /** Adds a predicate `(path, containerPath) => boolean`. */
  withPredicate(predicate: PathPredicate): PathFilter {
    return new PathFilter(this.regexes, this.fullPaths, [...this.predicates, predicate], this.everything);
  }

  /** Adds predicates. */
  withPredicates(predicates: Iterable<PathPredicate>): PathFilter {
    return new PathFilter(this.regexes, this.fullPaths, [...this.predicates, ...predicates], this.everything);
  }

  /** Selects everything. */
  matchAll(): PathFilter {
    return new PathFilter(this.regexes, this.fullPaths, this.predicates, true);
  }

  /** Either filter's criteria. */
  or(other: PathFilter): PathFilter {
    if (this.everything || other.everything) return PathFilter.all();
    return new PathFilter(
      [...this.regexes, ...other.regexes],
      [...this.fullPaths, ...other.fullPaths],
      [...this.predicates, ...other.predicates],
      false,
    );
  }

  /** True when no criterion is set (and not {@link matchAll}). */
  isEmpty(): boolean {
    return !this.everything && this.regexes.length === 0 && this.fullPaths.length === 0 && this.predicates.length === 0;
  }

  /** Number of criteria. */
  criteriaCount(): number {
    return this.everything ? 1 : this.regexes.length + this.fullPaths.length + this.predicates.length;
  }

  /** Whether `path` (with its container path) is selected. */
  matches(path: string, containerPath = ''): boolean {
    if (this.everything) return true;
    if (this.fullPaths.includes(path)) return true;
    if (
      this.regexes.some((r) => {
        r.lastIndex = 0;
        return r.test(path);
      })
    )
      return true;
    return this.predicates.some((p) => p(path, containerPath));
  }

  /** `PathFilter::all()`, `PathFilter::none()` or the criteria, as Burn prints them. */
  toString(): string {
    if (this.everything) return 'PathFilter::all()';
    if (this.isEmpty()) return 'PathFilter::none()';
    const parts: string[] = [];
    if (this.regexes.length > 0) parts.push(`regex: [${this.regexes.map((r) => r.source).join(', ')}]`);
    if (this.fullPaths.length > 0) parts.push(`paths: [${this.fullPaths.join(', ')}]`);
    if (this.predicates.length > 0) parts.push(`predicates: ${this.predicates.length}`);
    return `PathFilter(${parts.join(', ')})`;
  }
}

/** Compiles a pattern, naming it in the error when it is not a valid regular expression. */
export function compileRegex(pattern: string | RegExp, op: string): RegExp {
  if (pattern instanceof RegExp) return pattern;
  try {
    return new RegExp(pattern);
  } catch (e) {
    throw new BurnError(op, `invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
}
