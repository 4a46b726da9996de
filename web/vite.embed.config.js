// The embed bundle (softscope/embed): web/src/embed/embed.js and the wasm
// builds it loads, written to wasm/dist/embed/ (shipped in the npm package
// and copied into the site by `make build`). An app build, not a library
// build, so that `new URL('../dist/*.wasm', import.meta.url)` stays a
// relative URL next to the script (a library build would inline the wasm).
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../wasm/dist/embed', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    sourcemap: !!process.env.SOURCEMAP,
    rolldownOptions: {
      input: fileURLToPath(new URL('./src/embed/embed.js', import.meta.url)),
      output: { entryFileNames: 'embed.js', chunkFileNames: 'embed-[hash].js', assetFileNames: '[name]-[hash][extname]' },
    },
  },
});
