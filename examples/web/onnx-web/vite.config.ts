// Vite build of the onnx-web example. burn-ts is imported from the repository's sources through
// aliases (the example lives inside the package); an app would `npm install burn-ts` and drop them.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const src = fileURLToPath(new URL('../../../src/', import.meta.url));

// Cross-origin isolation lets the wasm engine use its threaded module (SharedArrayBuffer + Web Workers).
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: {
    alias: [
      { find: /^burn-ts$/, replacement: `${src}index.ts` },
      { find: /^burn-ts\/(nn|onnx)$/, replacement: `${src}$1/index.ts` },
    ],
  },
  assetsInclude: ['**/*.onnx', '**/*.bpk'],
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { headers: isolation, fs: { allow: [fileURLToPath(new URL('../../../', import.meta.url))] } },
  preview: { headers: isolation },
});
