// Vitest for the JS API, the CLI and the playground's pure modules. Files that
// need a DOM say so with `// @vitest-environment happy-dom`.
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  // The playground's components (.jsx) are Preact: ui-*.test.js render them.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    environment: 'node',
    include: ['tests/js/**/*.test.js'],
    testTimeout: 20000,
    // The CLI tests spawn node; keep the two cores for them and the wasm.
    maxWorkers: 2,
  },
});
