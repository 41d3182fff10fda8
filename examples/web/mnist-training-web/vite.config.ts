// `npm run example web/mnist-training-web` (dev server) / `-- --build` (production build in dist/).
// The digits the page trains on are packed into dist/digits.bin at build time (digits-asset.ts).
import { defineConfig } from 'vite';
import { webExampleConfig } from '../shared/vite-config.ts';
import { digitsPlugin } from './digits-asset.ts';

export default defineConfig(webExampleConfig(new URL('.', import.meta.url), { plugins: [digitsPlugin()] }));
