// The embed bundle's budget: what a page with one widget downloads (embed.js,
// the chunks it imports, and that view's chunks; the wasm aside) is at most
// 66 kB gzipped, for every view (60 kB until the widget gained typeset
// formulas, label placement, attribute notices and .state merging: 60.7 kB;
// 64 kB until the API read every argument once through the intrinsic getters
// (api/views.js), took limits on long calls (api/budget.js) and the state held
// its bounds after every fallback (state/bounds.js): 64.2 kB). The Performance view's timing code is not
// in it: its Web Worker, a bundle of its own, downloads when Run is pressed. Read from the build's manifest
// (wasm/dist/embed/embed-manifest.json, `make embed`), sizes gzipped at level 9.
// 68 kB since the language-model work (issue 35): main at 69afef1 already loaded 66.7 kB for an Attention widget
// (the model API's new options and checks in the shared code); the widget's model="…" attribute, the 'text' field's
// control and the decoding stage's control shared by Sampling and Language add under 1 kB to a view. The Language
// widget draws five sections (training, generation, attention with its rasters, length generalisation,
// quantisation) and has the run controls: 77 kB, with its training and generation in its Web Worker.
// 69 kB since one runner drives every progressive view (issue 36: useRunner, main thread or the one Web Worker, in
// place of useStepper and three copied Worker drivers; the schemas' display marks; a results file checked against the
// view's declared data shape): the Sampling widget, the largest, came to 68.3 kB.

import { describe, it, expect } from 'vitest';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../wasm/dist/embed/', import.meta.url));
const BUDGET = 69 * 1000;
const BUDGETS = { language: 77 * 1000 };
const have = existsSync(`${DIR}/embed-manifest.json`);

describe.runIf(have)('the embed bundle', () => {
  const manifest = have ? JSON.parse(readFileSync(`${DIR}/embed-manifest.json`, 'utf8')) : {};
  const gz = (file) => gzipSync(readFileSync(`${DIR}/${file}`), { level: 9 }).length;
  const closure = (keys, seen = new Set()) => {
    for (const k of keys) {
      if (seen.has(k) || !manifest[k]) continue;
      seen.add(k);
      closure(manifest[k].imports ?? [], seen);
    }
    return seen;
  };
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
  // one chunk per view (its schema, model, figure and View), loaded on demand by embed.js
  const views = manifest[entry]?.dynamicImports ?? [];
  // the one Web Worker (web/src/runner/worker.js: any view's long work) and its chunks, named embed-worker-*
  const worker = Object.values(manifest).find((m) => m.isWorker && m.src === 'src/runner/worker.js');
  const workerFiles = have ? readdirSync(DIR).filter((f) => /^embed-worker-.*\.js$/.test(f)) : [];
  const inWorker = (text) => workerFiles.some((f) => readFileSync(`${DIR}/${f}`, 'utf8').includes(text));

  it('one widget of any view downloads at most 69 kB of JavaScript, gzipped (the Language widget 77 kB)', () => {
    expect(views.length).toBeGreaterThanOrEqual(7);
    const report = {};
    for (const v of views) {
      const files = [...closure([entry, v])].map((k) => manifest[k].file).filter((f) => f.endsWith('.js'));
      report[manifest[v].name] = files.reduce((s, f) => s + gz(f), 0);
    }
    console.log('embed: gzipped JavaScript a one-widget page loads, by view:', JSON.stringify(report));
    for (const [id, bytes] of Object.entries(report)) expect(bytes, id).toBeLessThanOrEqual(BUDGETS[id] ?? BUDGET);
  });

  it('the Performance widget loads neither its worker nor the timing runner until Run', () => {
    const perf = views.find((v) => manifest[v].name === 'performance');
    expect(perf).toBeDefined();
    const files = [...closure([entry, perf])].map((k) => manifest[k].file);
    expect(worker, 'the worker is a file of the bundle').toBeDefined();
    expect(files).not.toContain(worker.file);
    expect(files.some((f) => /^embed-worker-/.test(f))).toBe(false);
    expect(files.some((f) => /embed-timing-/.test(f))).toBe(false);
    console.log(`embed: the worker and its chunks, gzipped: ${JSON.stringify(Object.fromEntries(workerFiles.map((f) => [f, gz(f)])))} B`);
  });

  it('the Experiments widget loads neither its worker nor the training code (the model API) until Train', () => {
    const exp = views.find((v) => manifest[v].name === 'experiments');
    expect(exp).toBeDefined();
    const files = [...closure([entry, exp])].map((k) => manifest[k].file);
    expect(files.some((f) => /^embed-worker-/.test(f))).toBe(false);
    // createModel's own message (wasm/api/model.js): in the worker, in no widget's download
    const MODEL = 'options.trainN';
    const has = (f) => readFileSync(`${DIR}/${f}`, 'utf8').includes(MODEL);
    expect(inWorker(MODEL), 'the worker trains').toBe(true);
    for (const v of views) expect([...closure([entry, v])].map((k) => manifest[k].file).filter(has), manifest[v].name).toEqual([]);
  });

  it('the Language widget loads neither its worker nor the training and model-file code until Train or a model file', () => {
    const lang = views.find((v) => manifest[v].name === 'language');
    expect(lang).toBeDefined();
    const files = [...closure([entry, lang])].map((k) => manifest[k].file);
    expect(files.some((f) => /^embed-worker-/.test(f))).toBe(false);
    // createModel's and loadLanguageModel's own messages (wasm/api/model.js, wasm/analysis/language.js): in the worker only
    for (const text of ['options.trainN', 'softscope.loadLanguageModel', 'softscope.createLanguageModel']) {
      const has = (f) => readFileSync(`${DIR}/${f}`, 'utf8').includes(text);
      expect(inWorker(text), `the worker has ${text}`).toBe(true);
      for (const v of views) expect([...closure([entry, v])].map((k) => manifest[k].file).filter(has), `${manifest[v].name}: ${text}`).toEqual([]);
    }
    // nor the Experiments view's chunk (only what the two share)
    expect(files.filter((f) => /embed-experiments-[\w-]{8}\.js$/.test(f))).toEqual([]);
  });
});
