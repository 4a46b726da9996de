// A VitePress docs site that embeds softscope widgets in its Markdown. Two
// things make a custom element work in VitePress: Vue must leave
// <softscope-widget> alone (isCustomElement), and the page must load the
// embed script (head). The embed bundle is copied into public/softscope/
// (embed/ and the wasm builds next to it, as the npm package ships them in
// wasm/dist/) by `make docs-example`.
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'softscope in VitePress',
  description: 'Live softmax figures in a docs page',
  head: [['script', { type: 'module', src: '/softscope/embed/embed.js' }], ['link', { rel: 'icon', href: 'data:,' }]],
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('softscope-') } } },
  themeConfig: { nav: [{ text: 'Guide', link: '/' }] },
});
