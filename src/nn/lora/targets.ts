import { BurnError } from '../../core/errors.js';
import type { Linear } from '../linear.js';

/**
 * Which Linear layers get a LoRA adapter:
 * - a string: the layer's path (`'encoder.layers.0.mha.query'`), a sub-module holding it
 *   (`'encoder'`), or its trailing names (`'query'`, `'mha.query'`: every layer so named, as
 *   PEFT's `target_modules`);
 * - a regular expression tested against the path;
 * - a predicate of the path and the layer.
 */
export type LoraTarget = string | RegExp | ((path: string, layer: Linear) => boolean);

function stringMatches(target: string, path: string): boolean {
  return path === target || path.startsWith(`${target}.`) || path.endsWith(`.${target}`);
}

function describe(target: LoraTarget): string {
  if (typeof target === 'string') return `'${target}'`;
  if (target instanceof RegExp) return String(target);
  return 'the predicate';
}

/**
 * The layers of `layers` (path, layer) selected by `targets` (all when undefined). Every target
 * must select at least one layer: a misspelt path is an error, not an adapter-less model.
 */
export function selectTargets(
  layers: readonly [string, Linear][],
  targets: LoraTarget | readonly LoraTarget[] | undefined,
  op: string,
): [string, Linear][] {
  if (targets === undefined) return [...layers];
  const list: readonly unknown[] = Array.isArray(targets) ? targets : [targets];
  if (list.length === 0) throw new BurnError(op, 'targets is an empty list; leave it out to adapt every Linear layer');
  const chosen = new Set<string>();
  for (const target of list) {
    if (typeof target !== 'string' && !(target instanceof RegExp) && typeof target !== 'function') {
      throw new BurnError(
        op,
        `a target must be a path string, a RegExp or a predicate (path, layer) => boolean, got ${target === null ? 'null' : typeof target}`,
      );
    }
    const t = target as LoraTarget;
    let hits = 0;
    for (const [path, layer] of layers) {
      if (t instanceof RegExp) t.lastIndex = 0; // a /g or /y expression keeps state between tests
      const hit = typeof t === 'string' ? stringMatches(t, path) : t instanceof RegExp ? t.test(path) : t(path, layer);
      if (hit) {
        chosen.add(path);
        hits++;
      }
    }
    if (hits === 0) {
      const known =
        layers.length === 0
          ? 'the module has no Linear layer'
          : `the Linear layers are ${layers.map(([p]) => `'${p}'`).join(', ')}`;
      throw new BurnError(op, `target ${describe(t)} selects no Linear layer; ${known}`);
    }
  }
  return layers.filter(([path]) => chosen.has(path));
}
