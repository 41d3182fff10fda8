/**
 * Scoped release of tensor memory. A backend reports every handle it creates inside a scope with
 * {@link trackAllocation}; {@link runScope} collects the handles created while a function runs and,
 * when it returns, releases those that the result cannot reach. WebGPU buffers go back to their
 * pool; CPU arrays go to the CPU backend's pool, so the next outputs reuse them instead of fresh
 * memory the garbage collector has to reclaim. Outside scopes nothing is tracked.
 */

/** A handle on device memory that can be released once. */
export interface Releasable {
  release(): void;
  /**
   * Optional: called by {@link runScope} on each handle that survives the scope, before the
   * unreachable ones are released, so a lazy handle (the fusion decorator's) computes its values
   * now and the inputs created inside the scope can be freed with it ("the stream is flushed at
   * scope end").
   */
  settle?(): void;
}

/** Objects carrying this symbol (devices, backends) are not searched for handles. */
export const NO_SCAN: unique symbol = Symbol.for('burn-ts.noScan');

interface Scope {
  readonly created: Set<Releasable>;
  readonly roots: unknown[];
  /** Set on the marker {@link untracked} pushes: allocations under it are not recorded. */
  readonly hidden?: boolean;
}

const scopes: Scope[] = [];

/** Records a new handle in the innermost open scope (no-op outside scopes). */
export function trackAllocation(handle: Releasable): void {
  const top = scopes[scopes.length - 1];
  if (top && !top.hidden) top.created.add(handle);
}

/**
 * Runs `fn` with allocation tracking off: handles created meanwhile belong to no scope. For
 * decorators that own their inner handles' lifetimes themselves (the fusion decorator counts
 * references), so that a scope never releases an inner handle that one of theirs still holds.
 */
export function untracked<T>(fn: () => T): T {
  scopes.push({ created: new Set(), roots: [], hidden: true });
  try {
    return fn();
  } finally {
    scopes.pop();
  }
}

/**
 * Keeps everything reachable from `root` when any scope open now ends (tfjs's `keep`): parameters,
 * modules and optimizer state created inside a scope survive it wherever they are stored. The
 * walk happens when each scope ends, so fields set after this call count. No-op outside scopes.
 */
export function keepInAllScopes(root: unknown): void {
  for (const scope of scopes) scope.roots.push(root);
}

/** True while a scope is open (and tracking is not turned off by {@link untracked}). */
export function inScope(): boolean {
  const top = scopes[scopes.length - 1];
  return top !== undefined && !top.hidden;
}

/**
 * Runs `fn` in a scope: every handle created meanwhile is released when `fn` returns, except the
 * ones reachable from its result (through tensors, arrays, maps, sets and object fields) and
 * `keep`; kept handles move to the enclosing scope, if any. When `fn` throws, every handle it
 * created is released.
 */
export function runScope<T>(fn: () => T, keep: readonly unknown[] = []): T {
  const created = new Set<Releasable>();
  const scope: Scope = { created, roots: [...keep] };
  scopes.push(scope);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    for (const h of created) h.release();
    throw e;
  }
  scopes.pop();
  if (created.size === 0) return result;
  const reachable = reachableHandles([result, ...scope.roots], created);
  // The rest is released first, then the survivors settle (lazy handles compute): a pending value
  // that only released handles held is never computed, and one they shared with a survivor is then
  // read by that survivor alone (a fused program need not store it for them).
  const parent = scopes[scopes.length - 1];
  for (const h of created) {
    if (reachable.has(h)) parent?.created.add(h);
    else h.release();
  }
  for (const h of created) if (reachable.has(h)) h.settle?.();
  return result;
}

/** The members of `candidates` reachable from `roots` through object fields and collections. */
function reachableHandles(roots: readonly unknown[], candidates: ReadonlySet<Releasable>): Set<Releasable> {
  const found = new Set<Releasable>();
  const seen = new Set<object>();
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    seen.add(v);
    if (candidates.has(v as Releasable)) found.add(v as Releasable);
    if (
      (v as { [NO_SCAN]?: boolean })[NO_SCAN] ||
      ArrayBuffer.isView(v) ||
      v instanceof ArrayBuffer ||
      v instanceof Promise
    )
      continue;
    if (v instanceof Map) {
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set || Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else {
      for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return found;
}
