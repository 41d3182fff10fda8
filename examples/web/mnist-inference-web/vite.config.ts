// `npm run example web/mnist-inference-web` (dev server) / `-- --build` (production build in dist/).
import { defineConfig } from 'vite';
import { webExampleConfig } from '../shared/vite-config.ts';

export default defineConfig(webExampleConfig(new URL('.', import.meta.url)));
