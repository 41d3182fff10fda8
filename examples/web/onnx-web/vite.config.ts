// `npm run example web/onnx-web` (dev server) / `-- --build` (production build in dist/) /
// `-- --preview` (build, then serve it). The shared configuration maps `burn-ts` to the sources
// and serves the page cross-origin isolated; this example adds its ONNX file as an asset.
import { defineConfig } from 'vite';
import { webExampleConfig } from '../shared/vite-config.ts';

export default defineConfig(webExampleConfig(new URL('.', import.meta.url), { assetsInclude: ['**/*.onnx'] }));
