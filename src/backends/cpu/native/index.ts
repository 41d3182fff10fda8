/**
 * The `native` CPU engine: a Node addon (native/ at the package root) loaded once, its op codes
 * matched by name (ops.ts), and the engine class over it (engine.ts).
 */
import { loadNativeAddon, type NativeAddon } from './addon.js';
import { nativeOpCodes, type NativeOpCodes } from './ops.js';

export type { NativeAddon, NativeOpNames } from './addon.js';
export { NativeEngine, type NativeEngineOptions } from './engine.js';
export { nativeOpCodes, type NativeOpCodes } from './ops.js';

let checked: { addon: NativeAddon; codes: NativeOpCodes } | { reason: string } | undefined;

/** The addon once loaded and its op table matched; the reason it is unusable otherwise. */
function load(): { addon: NativeAddon; codes: NativeOpCodes } | { reason: string } {
  if (checked) return checked;
  const l = loadNativeAddon();
  if ('reason' in l) return (checked = l);
  if (typeof l.addon.ops !== 'object' || l.addon.ops === null) {
    return (checked = {
      reason: 'the addon exports no op table (it was built from older sources): rebuild it with `npm run build:native`',
    });
  }
  try {
    checked = { addon: l.addon, codes: nativeOpCodes(l.addon.ops) };
  } catch (e) {
    checked = { reason: `${e instanceof Error ? e.message : String(e)}: rebuild it with \`npm run build:native\`` };
  }
  return checked;
}

/** The loaded addon, or undefined (see {@link nativeUnavailableReason}). */
export function nativeAddon(): NativeAddon | undefined {
  const l = load();
  return 'addon' in l ? l.addon : undefined;
}

/** Why the native engine is unavailable, or undefined when it loads. */
export function nativeUnavailableReason(): string | undefined {
  const l = load();
  return 'reason' in l ? l.reason : undefined;
}
