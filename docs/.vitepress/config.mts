import { defineConfig } from 'vitepress';

// The burn-ts book. `npm run docs` (in the repository root) builds it into .vitepress/dist, then
// TypeDoc writes the API reference into .vitepress/dist/api (linked, not rendered by VitePress).
export default defineConfig({
  title: 'burn-ts',
  description: 'Burn, the deep-learning framework, in TypeScript',
  cleanUrls: true,
  // node_modules/ holds this package's own dependencies, not pages.
  srcExclude: ['node_modules/**', 'README.md'],
  // The API reference is generated after the pages, beside them; links out of docs/ (a package's
  // README in src/) point into the repository, where they resolve.
  ignoreDeadLinks: [/^\/api\//, /^(\.\/)?\.\.\//],
  themeConfig: {
    nav: [
      { text: 'Book', link: '/getting-started' },
      { text: 'API reference', link: '/api/index.html', target: '_self' },
    ],
    sidebar: [
      {
        text: 'The burn-ts book',
        items: [
          { text: 'Getting started', link: '/getting-started' },
          { text: 'Tensors', link: '/tensors' },
          { text: 'Autodiff', link: '/autodiff' },
          { text: 'Modules and configs', link: '/modules-and-configs' },
          { text: 'Data', link: '/data' },
          { text: 'Training', link: '/training' },
          { text: 'Saving and loading', link: '/saving-and-loading' },
          { text: 'Backends', link: '/backends' },
          { text: 'Custom operations', link: '/custom-ops' },
          { text: 'Import: PyTorch, SafeTensors, ONNX', link: '/import' },
          { text: 'In the browser', link: '/web' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Differences from Burn', link: '/differences-from-burn' },
          { text: 'Security', link: '/security' },
          { text: 'API reference', link: '/api/index.html', target: '_self' },
        ],
      },
    ],
    search: { provider: 'local' },
  },
});
