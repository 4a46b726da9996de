// The embed bundle (softscope/embed): web/src/embed/embed.js and its chunks,
// written to wasm/dist/embed/ (shipped in the npm package and copied into
// the site by `make build`). An app build, not a library build (which would
// inline the wasm). The wasm builds are not copied into the bundle: the
// widget loads the package's own files, wasm/dist/softscope-*.wasm, one
// folder up from embed.js (web/shared-wasm.js), so the package holds each
// build once and an app that imports both the API and the widget bundles,
// downloads and compiles each build once. A folder served on its own (the
// site, `make dist`, the docs) keeps that layout: embed/ next to the wasm.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import { exportsAlias } from './exports-alias.js';
import { sharedWasm } from './shared-wasm.js';

// The views' folders: wasm/views/<id>/
const VIEWS = readdirSync(new URL('../wasm/views/', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [preact(), sharedWasm()],
  logLevel: 'warn',
  // web/ imports the package by its public entry points (package.json "exports")
  resolve: { alias: exportsAlias },
  // The Web Worker (web/src/runner/worker.js: the Performance view's timing,
  // the Experiments and Language views' training) is an ES module (it imports
  // the API, whose wasm it finds by import.meta.url, relative to the worker's
  // file, unless the page passes a URL) and the views' modules, in chunks.
  // Named like the rest of the bundle, next to embed.js: the worker's wasm is
  // then the very files the widgets load (../softscope-*.wasm).
  worker: {
    format: 'es',
    plugins: () => [sharedWasm()],
    rolldownOptions: { output: { entryFileNames: 'embed-worker-[hash].js', chunkFileNames: 'embed-worker-[name]-[hash].js', assetFileNames: '[name]-[hash][extname]' } },
  },
  build: {
    outDir: fileURLToPath(new URL('../wasm/dist/embed', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    sourcemap: !!process.env.SOURCEMAP,
    // which chunk imports which: the size check sums a page's chunks from it
    manifest: 'embed-manifest.json',
    rolldownOptions: {
      input: fileURLToPath(new URL('./src/embed/embed.js', import.meta.url)),
      // The analyses only define functions and constants: importing one runs
      // nothing, so a module that re-exports one (the API's entry, the
      // dispersion sweep) does not tie its chunk to the analysis's.
      // (and the package's entry points that only re-export: analysis/index.js, figures/index.js)
      // (and the model API, wasm/api/model.js: the package's entry re-exports createModel, which must not tie its
      // chunk to embed.js)
      // (and the state's entry, state/schema.js, which re-exports runKey (state/run-key.js): the runner and the
      // progressive views' chunks take that from it without tying the (de)serializer, which embed.js holds, to them)
      treeshake: { moduleSideEffects: (id) => !/wasm\/(analysis\/|api\/model\.js|figures\/index\.js|views\/(index|files)\.js|state\/schema\.js)/.test(id) },
      output: {
        entryFileNames: 'embed.js',
        chunkFileNames: 'embed-[name]-[hash].js',
        assetFileNames: '[name]-[hash][extname]',
        // One chunk per view (its schema, model, figure and View: what only
        // that view uses), one for what the views share (figure primitives,
        // controls, analyses); Preact, the API and the state stay in embed.js.
        // A page loads embed.js, the shared chunk and its views' chunks.
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            // the Performance view's timing (builds, runner, plain-JS references): the widget never loads it (the Web
            // Worker is a bundle of its own), only the view module's measure() for Node names it, dynamically
            { name: 'timing', priority: 3, test: /wasm\/views\/performance\/(measure|runner|builds)\.js|wasm\/analysis\/(race|plain-js)\.js/ },
            // what the Language view takes from the Experiments view (the schema's lists of trainable normalizers and
            // quantizers, the figure's charts and section titles): a chunk of its own, so that a Language widget
            // does not download the Experiments view
            { name: 'experiments-shared', priority: 3, test: /wasm\/views\/experiments\/schema\.js|wasm\/figures\/experiments-plot\.js/ },
            // Preact, its hooks and its JSX runtime in one chunk (every widget loads all three)
            { name: 'preact', priority: 3, test: /node_modules\/preact\// },
            // the runner of the views whose numbers take long (useRunner) and the steppers' protocol: only those views
            // load it
            { name: 'runner', priority: 3, test: /web\/src\/runner\/|wasm\/views\/stepper\.js/ },
            // a decoding stage's control (the Sampling and Language views'): only those views load it
            { name: 'stage-row', priority: 3, test: /web\/src\/components\/StageRow\.jsx/ },
            // what reads a results file, loaded with the first results="…" file only: the shapes' vocabulary and check
            // (views/shape.js), and a chunk of each view's data shape (views/<id>/data-shape.js)
            { name: 'data-shape', priority: 3, test: /wasm\/views\/shape\.js/ },
            ...VIEWS.map((id) => ({ name: `${id}-data-shape`, priority: 3, test: new RegExp(`wasm/views/${id}/data-shape\\.js`) })),
            // (a view's figure is figures/<id>.js, its parts figures/<id>-*.js; an analysis named for a view,
            // analysis/<id>.js or analysis/<id>-*.js, goes with it)
            ...VIEWS.map((id) => ({ name: id, priority: 2, test: new RegExp(`(wasm/views/${id}/|web/src/views/${id}/|wasm/(figures|analysis)/${id}(-[\\w-]+)?\\.js)`) })),
            // heat maps as PNG rasters (raster.js; raster-weights.js: attention weights, the Attention and Experiments maps;
            // fflate's deflate): only the views that draw one load them
            { name: 'raster', priority: 2, test: /wasm\/figures\/raster(-[\w-]+)?\.js|node_modules\/fflate\// },
            // the logit editor, its presets and its value labels: only the views with a logit vector to edit load them
            { name: 'logit-editor', priority: 2, test: /web\/src\/components\/LogitEditor\.jsx|wasm\/analysis\/presets\.js|wasm\/figures\/labels\.js/ },
            // math: the registry's formulas read (formula.js, the playground's Formula) and math drawn as SVG text
            // (math.js): only the views that show formulas or scripts load them
            { name: 'formula', priority: 2, test: /wasm\/figures\/formula\.js|web\/src\/components\/Formula\.jsx/ },
            { name: 'math', priority: 2, test: /wasm\/figures\/math\.js/ },
            // what several views share beyond embed.js: figure primitives, controls, analyses,
            // htm and the bundler's runtime (so a view's chunk imports nothing not yet loaded)
            { name: 'views', priority: 1, test: /wasm\/(figures\/(?!raster)|analysis\/)|web\/src\/(controls|components|lib)\/|node_modules\/(d3-array|htm)\/|rolldown[/:]runtime/ },
          ],
        },
      },
    },
  },
});
