// The Vite configuration the web examples share. burn-ts is imported by its package name, as in an
// app; inside this repository the name is mapped to the sources (src/), so a page runs the
// checkout's code without `npm run build`. BURN_WEB_PACKAGE=1 drops the mapping: Vite then
// resolves `burn-ts` through the package's own `exports` (their `browser` conditions, dist/), as an
// app that installed burn-ts does — run `npm run build` first.
import { fileURLToPath } from 'node:url';
import { mergeConfig, type Alias, type UserConfig } from 'vite';

/** The repository root (the burn-ts package). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const src = `${REPO_ROOT}src/`;

/** `burn-ts` and its entries → their browser sources (data and remote have browser entries). */
export const SOURCE_ALIASES: Alias[] = [
  { find: /^burn-ts$/, replacement: `${src}index.ts` },
  { find: /^burn-ts\/data$/, replacement: `${src}data/index.browser.ts` },
  { find: /^burn-ts\/remote$/, replacement: `${src}backends/remote/index.browser.ts` },
  { find: /^burn-ts\/(nn|optim|record|store|train|onnx)$/, replacement: `${src}$1/index.ts` },
];

/** Cross-origin isolation: SharedArrayBuffer, so the wasm engine runs its threaded module on Web Workers. */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The configuration of the example in directory `exampleDir` (its vite.config.ts passes
 * `new URL('.', import.meta.url)`), merged with `overrides`.
 */
export function webExampleConfig(exampleDir: URL, overrides: UserConfig = {}): UserConfig {
  const fromPackage = process.env['BURN_WEB_PACKAGE'] === '1';
  const base: UserConfig = {
    root: fileURLToPath(exampleDir),
    // Relative asset URLs: the built page works from any directory it is served from.
    base: './',
    resolve: fromPackage ? {} : { alias: SOURCE_ALIASES },
    assetsInclude: ['**/*.bpk'],
    // Top-level await and the wasm engine's module workers need a 2022 target.
    build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
    server: { headers: ISOLATION_HEADERS, fs: { allow: [REPO_ROOT] } },
    preview: { headers: ISOLATION_HEADERS },
  };
  return mergeConfig(base, overrides);
}
