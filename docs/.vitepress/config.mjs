// The softscope docs site. `make docs` copies docs/ to build/docs-src/, adds
// the pages generated from the registry (scripts/gen-docs.js) and the
// sidebar they make (.vitepress/sidebar.json), copies the widget bundle to
// public/softscope/, and builds into build/docs/. Two things make the
// <softscope-widget> custom element work in VitePress: Vue leaves it alone
// (isCustomElement) and every page loads the embed script (head).
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitepress';

const sidebar = JSON.parse(readFileSync(new URL('./sidebar.json', import.meta.url), 'utf8'));

export default defineConfig({
  title: 'softscope',
  description: 'Numeric kernels around softmax in C11 and WebAssembly SIMD, with live figures',
  outDir: '../docs',
  head: [['script', { type: 'module', src: '/softscope/embed/embed.js' }], ['link', { rel: 'icon', href: 'data:,' }]],
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('softscope-') } } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Kernels', link: '/kernels/' },
      { text: 'Views', link: '/views/' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
    sidebar,
    outline: [2, 3],
  },
});
