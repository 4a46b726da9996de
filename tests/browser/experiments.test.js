// The Experiments tab and widget in Chromium. Train runs the view's stepper
// in a Web Worker: the figure's marks appear and grow while it trains, the
// main thread keeps painting frames (counted with requestAnimationFrame, as
// the Performance view's test does), the progress bar goes to 100; Stop ends
// a run and keeps its last numbers; a state that needs training again
// empties the figure ("press Train"), a display key (sel) only redraws. A
// widget with results="file.json" (the file written here in Node by the
// view's compute, as `softscope train --json` writes it) draws the file's
// numbers without a worker: the same data-values as the figure rendered in
// Node from the same data. A bad file (not JSON, another view's, no data, a
// bad shape, markup as a name, a 404) gives a notice and no figure, never an
// error or an element of its markup. Nothing here asserts how fast anything is.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from '../../wasm/api/index.js';
import { view, parse, stateEntries, toHash } from '../../wasm/views/index.js';
import { figureFiles, plain } from '../../wasm/views/files.js';
import { parseXml } from '../js/support/xml.js';
import { openPlayground, autoBuild } from './open-playground.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
// small enough to train in a second or two here; long enough for a few posts of the curves
// (Train in the tab: long enough for the curves to be posted several times while they grow)
const SMALL = 'task=max_retrieval&normalizers=softmax,ssmax&d=16&heads=1&steps=300&batch=16&testMax=64&examples=16&quantizers=uniform&mapN=8';
// long enough that the worker posts several partial curves (the products got faster: at 2000 steps one came)
const LONGER = SMALL.replace('steps=300', 'steps=4000');

let pw, page, errors, ss, v;
beforeAll(async () => {
  if (!existsSync(`${ROOT}/web/dist/embed/embed.js`)) throw new Error('web/dist/embed/embed.js is missing: run `make build` first');
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = pw);
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the page and its worker run
  v = view('experiments');
});
afterAll(async () => { await pw?.close(); });

const FIG = '[data-view-figure="experiments"]';
const inRoot = (sel) => (sel ? `document.querySelector('${sel}').shadowRoot` : 'document');

// Counts animation frames and the longest gap between two, and records the
// figure's mark count and the progress bar's value at each frame, from now on.
const watch = (host) => page.evaluate(({ fig, host: h }) => {
  const root = () => (h ? document.querySelector(h).shadowRoot : document);
  const w = (window.__expWatch = { frames: 0, maxGap: 0, marks: [], values: [] });
  let last = performance.now();
  const tick = (t) => {
    w.frames++;
    w.maxGap = Math.max(w.maxGap, t - last);
    last = t;
    // the points of the training curves drawn (each curve's data-step lists its steps)
    w.marks.push([...root().querySelectorAll(`${fig} [data-section="training"] path[data-step]`)]
      .reduce((t, e) => t + e.getAttribute('data-step').split(',').length, 0));
    w.values.push(Number(root().querySelector('[role=progressbar]').getAttribute('aria-valuenow')));
    if (!w.stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}, { fig: FIG, host });
const stopWatch = () => page.evaluate(() => { window.__expWatch.stop = true; return window.__expWatch; });
const status = () => page.$eval('[data-experiments-status]', (e) => e.dataset.experimentsStatus);
const values = (root = 'document') => page.evaluate(`[...${root}.querySelectorAll('${FIG} svg [data-value]')].map((e) => e.getAttribute('data-value'))`);

// The data-values of the figure Node renders for these numbers (the page's order).
const nodeValues = (state, data) => parseXml(figureFiles(ss, v, state, data).svg)
  .filter((e) => e.attrs['data-value'] !== undefined).map((e) => e.attrs['data-value']);

describe('the Experiments tab', () => {
  it('Train: the marks appear and grow while the worker trains, frames keep coming, the progress bar reaches 100', async () => {
    await page.goto(`${pw.server.url}#view=experiments&${LONGER}`);
    await page.waitForSelector('[data-experiments-status="idle"] [data-placeholder]');
    expect(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow'))).toBe('0');
    await watch();
    await page.click('button[data-train]');
    await page.waitForSelector('[data-experiments-status="done"]', { timeout: 60000 });
    const w = await stopWatch();
    expect(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow'))).toBe('100');
    expect(w.values.some((x) => x > 0 && x < 100), `progress values ${[...new Set(w.values)]}`).toBe(true);
    // curves drawn while training (not only at the end), growing as it went
    const drawn = w.marks.filter((m, i) => m > 0 && w.values[i] < 100);
    expect(drawn.length, 'frames with partial curves').toBeGreaterThan(0);
    expect(new Set(drawn).size, `curve points drawn while training: ${[...new Set(drawn)]}`).toBeGreaterThan(1);
    expect(drawn.every((m, i) => i === 0 || m >= drawn[i - 1]), 'curves only grow').toBe(true);
    // at the end: every run's loss and accuracy curves, with as many points as the data's
    const curves = await page.$$eval(`${FIG} [data-section="training"] path[data-step]`, (ps) => ps.map((p) => [p.dataset.series, p.dataset.metric, p.dataset.step.split(',').length]));
    expect(curves.map(([n, m]) => `${n} ${m}`).sort()).toEqual(['softmax accuracy', 'softmax loss', 'ssmax accuracy', 'ssmax loss']);
    expect(Math.max(...w.marks)).toBe(curves.reduce((t, c) => t + c[2], 0));
    // the page kept painting while the worker trained
    expect(w.frames, `frames during Train (longest gap ${w.maxGap.toFixed(0)} ms)`).toBeGreaterThan(10);
    console.log(`Experiments, Train of ${LONGER}: ${w.frames} frames, longest gap ${w.maxGap.toFixed(0)} ms; ${new Set(w.marks).size} mark counts drawn`);
    expect(errors).toEqual([]);
  });

  it('a display key (sel) only redraws; a key that needs training empties the figure: press Train', async () => {
    expect(await status()).toBe('done');
    const before = await values();
    expect(await page.$eval(`${FIG} [data-section="attention"]`, (g) => g.dataset.sel)).toBe('softmax');
    await page.selectOption('#experiments-sel', 'ssmax');
    await page.waitForFunction((fig) => document.querySelector(`${fig} [data-section="attention"]`)?.dataset.sel === 'ssmax', FIG);
    expect(await page.evaluate(() => location.hash)).toContain('sel=ssmax');
    expect(await status()).toBe('done'); // not trained again
    const after = await values();
    expect(after.length).toBe(before.length);
    expect(after).not.toEqual(before); // the map and head measures of the other run
    await page.evaluate(() => { location.hash = location.hash.replace('steps=4000', 'steps=4001'); });
    await page.waitForSelector('[data-experiments-status="idle"] [data-placeholder]');
    expect(await values()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('Stop ends a run and keeps its last numbers, marked stopped', async () => {
    await page.goto('about:blank');
    await page.goto(`${pw.server.url}#view=experiments&${SMALL.replace('steps=300', 'steps=20000')}`);
    await page.waitForSelector('[data-experiments-status="idle"]');
    await page.click('button[data-train]');
    await page.waitForFunction((fig) => document.querySelectorAll(`${fig} svg [data-value]`).length > 0, FIG, { timeout: 30000 });
    await page.click('button[data-stop]');
    await page.waitForSelector('[data-experiments-status="stopped"]');
    const kept = await values();
    expect(kept.length).toBeGreaterThan(0);
    expect(await page.$eval('[data-status]', (p) => p.textContent)).toMatch(/^stopped at step [\d,]+ of 20,000/);
    await page.waitForTimeout(600); // (four posting intervals)
    expect(await values()).toEqual(kept);
    expect(Number(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow')))).toBeLessThan(100);
    expect(errors).toEqual([]);
  });
});

describe('the Experiments widget with results="…json"', () => {
  let state, data, file;
  beforeAll(() => {
    ({ state } = parse(v.schema, stateEntries(SMALL), ss));
    data = plain(v.compute(ss, state));
    file = { softscope: version, view: 'experiments', state: Object.fromEntries(stateEntries(toHash(v.schema, state, ss)).filter(([k]) => k !== 'view')), data };
  });

  // A page with widgets (`body`) and the embed script; JSON files served from `files` ({ name: text }); Worker constructions counted.
  async function open(body, files) {
    const base = `${pw.server.url}widgets/`;
    await page.route(`${base}page.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><meta charset="utf-8"><title>w</title>
      <script>window.workers = 0; const W = window.Worker; window.Worker = class extends W { constructor(...a) { super(...a); window.workers++; } };</script>
      <script type="module" src="../embed/embed.js"></script>${body}` }));
    for (const [name, text] of Object.entries(files))
      await page.route(`${base}${name}`, (route) => (text === null ? route.fulfill({ status: 404, body: 'no' }) : route.fulfill({ contentType: 'application/json', body: text })));
    await page.goto(`${base}page.html`);
  }

  it('draws the file\'s numbers without a worker: the same data-values as Node renders from them', async () => {
    await open('<softscope-widget id="w" view="experiments" results="run.json" controls="none"></softscope-widget>', { 'run.json': JSON.stringify(file) });
    await page.waitForFunction(() => document.querySelector('#w')?.complete, null, { timeout: 30000 });
    const w = await page.$eval('#w', (e) => ({ notices: e.notices, data: e.data, state: e.state, status: e.shadowRoot.querySelector('[data-experiments-status]').dataset.experimentsStatus }));
    expect(w.notices).toEqual([]);
    expect(w.status).toBe('results');
    expect(w.state).toEqual(state);
    expect(w.data).toEqual(data);
    const drawn = await values(inRoot('#w'));
    expect(drawn.length).toBeGreaterThan(10);
    expect(drawn).toEqual(nodeValues(state, data));
    expect(await page.evaluate(() => window.workers)).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a bad file gives a notice and no figure: not JSON, another view\'s, no data, a bad shape, markup as a name, a 404', async () => {
    const markup = structuredClone(file);
    markup.data.runs[0].name = '<img id="injected" src="x" onerror="window.pwned = 1">';
    const shape = structuredClone(file);
    shape.data.runs[0].curve.loss = 'falling';
    const files = {
      'text.json': 'softscope!',
      'other.json': JSON.stringify({ ...file, view: 'optimizers' }),
      'nodata.json': JSON.stringify({ ...file, data: undefined }),
      'shape.json': JSON.stringify(shape),
      'markup.json': JSON.stringify(markup),
      'missing.json': null,
    };
    const ids = Object.keys(files).map((f) => f.replace('.json', ''));
    await open(ids.map((id) => `<softscope-widget id="${id}" view="experiments" results="${id}.json" controls="none"></softscope-widget>`).join('\n'), files);
    await page.waitForFunction((list) => list.every((id) => document.getElementById(id)?.notices?.length > 0), ids, { timeout: 30000 });
    const got = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await page.$eval(`#${id}`, (e) => ({
      notices: e.notices, shown: e.shadowRoot.querySelector('.notice')?.textContent ?? '', figure: !!e.shadowRoot.querySelector('[data-view-figure] svg'),
      placeholder: !!e.shadowRoot.querySelector('[data-placeholder]'), injected: !!e.shadowRoot.querySelector('#injected, img'),
    }))])));
    const reasons = {
      text: 'not JSON', other: 'a results file of view optimizers, not experiments', nodata: 'no data',
      shape: 'not a results file of this version: data.runs[0].curve.loss is not a list',
      markup: `not a results file of this version: data.runs[0].name ${JSON.stringify(markup.data.runs[0].name.slice(0, 40))} is not a normalizer of this build`,
      missing: 'could not be fetched: HTTP 404',
    };
    for (const id of ids) {
      expect(got[id].notices, id).toEqual([{ key: 'results', value: `${id}.json`, reason: reasons[id] }]);
      expect(got[id].shown, id).toContain(`results=${id}.json`);
      expect(got[id].figure, id).toBe(false);
      expect(got[id].placeholder, id).toBe(true);
      expect(got[id].injected, id).toBe(false);
    }
    expect(await page.evaluate(() => window.pwned)).toBe(undefined);
    expect(await page.evaluate(() => window.workers)).toBe(0);
    // the 404's own line in the console is the browser's, not the widget's
    expect(errors.filter((e) => !/404/.test(e))).toEqual([]);
    errors.length = 0;
  });
});
