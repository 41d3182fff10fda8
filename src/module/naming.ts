/**
 * Key names. burn-ts fields are Burn's names in camelCase; files use Burn's (and PyTorch's)
 * snake_case, so each path segment is written in snake_case (`runningMean` → `running_mean`) and
 * matched in either form when loading.
 */

/** `runningMean` → `running_mean`; segments without capitals are unchanged. */
export function snakeSegment(segment: string): string {
  if (!/[A-Z]/.test(segment)) return segment;
  return segment
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** A dot path with every segment in snake_case. */
export function snakePath(path: string): string {
  return path.split('.').map(snakeSegment).join('.');
}

/** True for a segment that looks like a Rust enum variant name (`BaseConv`): capitalised, with lowercase letters. */
export function isVariantSegment(segment: string): boolean {
  return segment.length > 1 && /^[A-Z]/.test(segment) && /[a-z]/.test(segment.slice(1));
}

/** The path without enum-variant segments in the middle (`feature.BaseConv.weight` → `feature.weight`). */
export function stripEnumVariants(path: string): string {
  const parts = path.split('.');
  return parts.filter((p, i) => i === 0 || i === parts.length - 1 || !isVariantSegment(p)).join('.');
}
