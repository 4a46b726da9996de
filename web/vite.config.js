// Vite config for the playground. Root is web/; the JS package is used from
// source through its public entry points (package.json "exports" as
// aliases: web/exports-alias.js) so that `new URL('../dist/*.wasm',
// import.meta.url)` inside it is a /@fs/ URL in dev; in the build it is
// '../softscope-*.wasm' (web/shared-wasm.js): the site's one copy of each
// build, web/dist/softscope-*.wasm (the Makefile copies them), which the
// playground and the widgets of web/dist/embed/ share.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { exportsAlias } from './exports-alias.js';
import { sharedWasm } from './shared-wasm.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [preact(), sharedWasm()],
  resolve: {
    alias: exportsAlias,
  },
  // Pre-bundling would move index.js away from ../wasm/dist and break the
  // import.meta.url lookup of the .wasm files.
  optimizeDeps: { exclude: ['softscope'] },
  server: { fs: { allow: [repoRoot] } },
  // The Web Worker (src/runner/worker.js) is an ES module (it imports the API,
  // whose wasm it finds by import.meta.url, relative to the worker's file).
  worker: { format: 'es', plugins: () => [sharedWasm()] },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
});
