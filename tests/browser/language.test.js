// The Language tab and widget in Chromium. Train runs the view's stepper in a
// Web Worker: the curves are drawn and grow, the page keeps painting (frames
// counted with requestAnimationFrame, long tasks with a PerformanceObserver),
// the step counter and tokens per second are shown; Step trains one slice
// (10 steps of every run) and pauses, Continue plays, Pause holds; a display
// key (the decoding stages) moved after training regenerates the text in the
// worker without training again. Save weights downloads the shown run's
// model file; Open weights opens it again (it generates without training),
// and a truncated or hostile file gives a notice naming the file and leaves
// the model as it was. Corpus text: a file that is not UTF-8 or empty gives
// a notice; a text trains. The widget with model= and results= (both written
// here in Node by the view's own code, as `softscope train language --save
// --json` writes them) draws the file's curves and generates live without
// training; a hostile model file gives a notice under `model`. Each run is a
// tiny model: a few seconds of CPU in all. Nothing asserts how fast anything is.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from '../../wasm/api/index.js';
import { view, parse, stateEntries, toHash, plain } from '../../wasm/views/index.js';
import { openPlayground, autoBuild } from './open-playground.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
// a model of a few thousand parameters: a training step is well under a millisecond here
const TINY = 'normalizers=softmax,softpick&d=16&heads=2&layers=1&context=16&batch=4&quantizers=uniform&length=24';
const FIG = '[data-view-figure="language"]';

let pw, page, errors, ss, v;
beforeAll(async () => {
  if (!existsSync(`${ROOT}/web/dist/embed/embed.js`)) throw new Error('web/dist/embed/embed.js is missing: run `make build` first');
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = pw);
  ss = await createSoftscope({ impl: await autoBuild(page) });
  v = view('language');
});
afterAll(async () => { await pw?.close(); });

const status = (root = 'document') => page.evaluate(`${root}.querySelector('[data-language-status]')?.dataset.languageStatus`);
const stepCount = () => page.$eval('[data-step-count]', (e) => e.dataset.stepCount);
const generated = (root = 'document') => page.evaluate(`${root}.querySelector('${FIG} [data-generated]')?.textContent ?? null`);
const curvePoints = () => page.$$eval(`${FIG} [data-section="training"] path[data-metric="train-loss"]`, (ps) => ps.map((p) => p.dataset.x.split(',').length));

// frames, the longest gap between two, and the long tasks (> 50 ms) of the page from now on
const watch = () => page.evaluate(() => {
  const w = (window.__lmWatch = { frames: 0, maxGap: 0, long: [] });
  let last = performance.now();
  const tick = (t) => { w.frames++; w.maxGap = Math.max(w.maxGap, t - last); last = t; if (!w.stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  w.obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) w.long.push(Math.round(e.duration)); });
  w.obs.observe({ type: 'longtask' });
});
const stopWatch = () => page.evaluate(() => { const w = window.__lmWatch; w.stop = true; w.obs.disconnect(); return { frames: w.frames, maxGap: w.maxGap, long: w.long }; });

describe('the Language tab', () => {
  it('Train: the curves grow while the worker trains, frames keep coming, the step counter and tokens/s are shown', async () => {
    await page.goto(`${pw.server.url}#view=language&${TINY}&steps=400`);
    await page.waitForSelector('[data-language-status="idle"] [data-placeholder]');
    expect(await stepCount()).toBe('');
    await watch();
    await page.click('button[data-train]');
    await page.waitForSelector('[data-language-status="done"]', { timeout: 60000 });
    const w = await stopWatch();
    expect(await stepCount()).toBe('400');
    expect(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow'))).toBe('100');
    expect(Number(await page.$eval('[data-tokens-per-second]', (e) => e.dataset.tokensPerSecond))).toBeGreaterThan(0);
    // both runs' training and validation curves against the step, their training curves against seconds
    const curves = await page.$$eval(`${FIG} [data-section="training"] path[data-metric]`, (ps) => ps.map((p) => `${p.dataset.series} ${p.dataset.metric}`));
    expect(curves.sort()).toEqual(['softmax train-loss', 'softmax train-loss', 'softmax val-loss', 'softpick train-loss', 'softpick train-loss', 'softpick val-loss']);
    expect(Math.min(...await curvePoints())).toBeGreaterThan(50);
    // the reference lines are labelled, the data's example is drawn, the text generated
    expect(await page.$$eval(`${FIG} [data-reference]`, (g) => g.map((e) => e.textContent))).toEqual(expect.arrayContaining([expect.stringMatching(/uniform guess/), expect.stringMatching(/unigram entropy/)]));
    expect(await page.$eval(`${FIG} [data-example]`, (e) => e.textContent)).toMatch(/^a training window:/);
    expect((await generated()).length).toBeGreaterThan(0);
    expect(w.frames, `frames during Train (longest gap ${w.maxGap.toFixed(0)} ms)`).toBeGreaterThan(5);
    console.log(`Language, Train of ${TINY}&steps=400: ${w.frames} frames, longest gap ${w.maxGap.toFixed(0)} ms, long tasks ${JSON.stringify(w.long)}`);
    expect(errors).toEqual([]);
  });

  it('a decoding stage moved after training: the worker generates again, nothing is trained again', async () => {
    const before = { text: await generated(), points: await curvePoints(), step: await stepCount() };
    await page.click('#language-on-top_k'); // top-k on, k 50 by default: a new pipeline
    await page.waitForFunction((t) => document.querySelector('[data-view-figure="language"] [data-section="generation"] [data-dist="top_k"]') !== null, before.text);
    expect(await status()).toBe('done');
    expect(await curvePoints()).toEqual(before.points);
    expect(await stepCount()).toBe(before.step);
    expect(await page.evaluate(() => location.hash)).toMatch(/on=temperature,top_k,top_p|on=[^&]*top_k/);
    // the generation seed: another text of the same model
    await page.evaluate(() => { location.hash = location.hash.replace(/genSeed=\d+&?/, '') + '&genSeed=7'; });
    await page.waitForFunction((t) => document.querySelector('[data-view-figure="language"] [data-generated]')?.textContent !== t, before.text, { timeout: 10000 });
    expect(await status()).toBe('done');
    expect(await curvePoints()).toEqual(before.points);
    expect(errors).toEqual([]);
  });

  it('Step trains one slice and pauses; Continue plays; Pause holds; a display key while paused keeps the run', async () => {
    await page.goto('about:blank');
    await page.goto(`${pw.server.url}#view=language&${TINY}&steps=20000`);
    await page.waitForSelector('[data-language-status="idle"]');
    await page.click('button[data-step]');
    await page.waitForFunction(() => document.querySelector('[data-step-count]')?.dataset.stepCount === '10');
    expect(await status()).toBe('paused');
    await page.click('button[data-step]');
    await page.waitForFunction(() => document.querySelector('[data-step-count]')?.dataset.stepCount === '20');
    await page.click('button[data-train]'); // Continue
    await page.waitForFunction(() => Number(document.querySelector('[data-step-count]')?.dataset.stepCount) > 40);
    expect(await status()).toBe('running');
    await page.click('button[data-pause]');
    await page.waitForSelector('[data-language-status="paused"]');
    await page.waitForTimeout(300);
    const held = await stepCount();
    await page.waitForTimeout(300);
    expect(await stepCount()).toBe(held);
    await page.selectOption('#language-sel', 'softpick'); // a display key
    await page.waitForTimeout(300);
    expect(await status()).toBe('paused');
    expect(await stepCount()).toBe(held);
    expect(await page.evaluate(() => location.hash)).toContain('sel=softpick');
    await page.click('button[data-reset]');
    await page.waitForSelector('[data-language-status="idle"] [data-placeholder]');
    expect(await stepCount()).toBe('');
    expect(errors).toEqual([]);
  });

  it('Save weights downloads the model; Open weights opens it and generates without training; a bad file gives a notice', async () => {
    await page.goto('about:blank');
    await page.goto(`${pw.server.url}#view=language&${TINY}&normalizers=softpick&steps=60`);
    await page.click('button[data-train]');
    await page.waitForSelector('[data-language-status="done"]', { timeout: 30000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[data-save]')]);
    expect(download.suggestedFilename()).toBe('softscope-language-softpick.ssm');
    const bytes = readFileSync(await download.path());
    expect(bytes.subarray(0, 4).toString()).toBe('SSLM');
    // opened again in a fresh tab, with another state: the state takes the model's shape
    await page.goto('about:blank');
    await page.goto(`${pw.server.url}#view=language&d=32`);
    await page.waitForSelector('[data-language-status="idle"]');
    await page.setInputFiles('#language-model-file', { name: 'mine.ssm', mimeType: 'application/octet-stream', buffer: bytes });
    await page.waitForSelector('[data-language-status="model"]', { timeout: 20000 });
    expect(await page.$eval('[data-opened]', (e) => e.textContent)).toMatch(/^mine\.ssm: softpick, trained 60 steps/);
    expect((await generated()).length).toBeGreaterThan(0);
    // the address follows the state a moment later (seen lagging once in a fresh-clone run)
    await page.waitForFunction(() => location.hash.includes('normalizers=softpick'), null, { timeout: 10000 });
    const hash = await page.evaluate(() => location.hash);
    expect(hash).toContain('normalizers=softpick');
    expect(hash).toContain('d=16');
    const text = await generated();
    // a hostile file: a header that declares more parameters than it holds, and one cut short
    const header = bytes.readUInt32LE(8);
    const hostile = Buffer.from(bytes);
    const h = JSON.parse(hostile.subarray(12, 12 + header).toString());
    const forged = JSON.stringify({ ...h, paramCount: 1e9 }).padEnd(header, ' ');
    hostile.write(forged.slice(0, header), 12);
    for (const [name, buf, reason] of [['evil.ssm', hostile, /file holds \d+ parameters; the model it describes has \d+|header/], ['cut.ssm', bytes.subarray(0, 100), /file/],
      ['img.ssm', Buffer.from('<img src=x onerror="window.pwned=1">'), /file is not a softscope language-model file/]]) {
      await page.setInputFiles('#language-model-file', { name, mimeType: 'application/octet-stream', buffer: buf });
      await page.waitForFunction((n) => document.querySelector('[data-file-error]')?.textContent.startsWith(n), name, { timeout: 10000 });
      expect(await page.$eval('[data-file-error]', (e) => e.textContent)).toMatch(reason);
      expect(await status()).toBe('model'); // the model opened before is still there
      expect(await generated()).toBe(text);
    }
    expect(await page.evaluate(() => window.pwned)).toBe(undefined);
    expect(await page.$$('img')).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('corpus text: a file that is not UTF-8 or is empty gives a notice; a text trains, shown as text', async () => {
    await page.goto('about:blank');
    await page.goto(`${pw.server.url}#view=language&${TINY}&normalizers=softmax&corpus=text&steps=30&length=10`);
    await page.waitForSelector('[data-text-input]');
    await page.click('button[data-train]');
    expect(await page.$eval('[data-text-error]', (e) => e.textContent)).toMatch(/paste a text or open a file/);
    await page.setInputFiles('#language-text-file', { name: 'bin.txt', mimeType: 'text/plain', buffer: Buffer.from([0x41, 0xff, 0xfe, 0x42]) });
    await page.waitForFunction(() => /bin\.txt is not UTF-8/.test(document.querySelector('[data-text-error]')?.textContent ?? ''));
    await page.setInputFiles('#language-text-file', { name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) });
    await page.waitForFunction(() => /empty\.txt is empty/.test(document.querySelector('[data-text-error]')?.textContent ?? ''));
    const poem = '<b id="bold">To be</b>, or not to be, that is the question:\nWhether tis nobler in the mind to suffer\n'.repeat(30);
    await page.setInputFiles('#language-text-file', { name: 'poem.txt', mimeType: 'text/plain', buffer: Buffer.from(poem) });
    await page.waitForSelector('[data-text-preview]');
    expect(await page.$eval('[data-text-preview]', (e) => e.textContent.slice(0, 20))).toBe(poem.slice(0, 20));
    expect(await page.$('#bold')).toBe(null);
    await page.click('button[data-train]');
    await page.waitForSelector('[data-language-status="done"]', { timeout: 30000 });
    expect(await page.$eval(`${FIG} [data-example]`, (e) => e.textContent)).toMatch(/a training window:/);
    expect(await page.$('#bold')).toBe(null);
    expect(errors).toEqual([]);
  });
});

describe('the Language widget with model="…" and results="…"', () => {
  let state, data, bytes, file;
  beforeAll(() => {
    ({ state } = parse(v.schema, stateEntries(`${TINY}&normalizers=softmax,softpick&steps=40`), ss));
    const st = v.start(ss, state);
    try {
      while (st.step(Infinity));
      data = plain(st.data());
      bytes = st.save('softpick');
    } finally {
      st.stop();
    }
    file = { softscope: version, view: 'language', state: Object.fromEntries(stateEntries(toHash(v.schema, state, ss)).filter(([k]) => k !== 'view')), data };
  });

  // A page with widgets (`body`) and the embed script; files served from `files` ({ name: body }); Worker constructions counted.
  async function open(body, files) {
    const base = `${pw.server.url}widgets/`;
    await page.route(`${base}page.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><meta charset="utf-8"><title>w</title>
      <script>window.workers = 0; const W = window.Worker; window.Worker = class extends W { constructor(...a) { super(...a); window.workers++; } };</script>
      <script type="module" src="../embed/embed.js"></script>${body}` }));
    for (const [name, b] of Object.entries(files))
      await page.route(`${base}${name}`, (route) => (b === null ? route.fulfill({ status: 404, body: 'no' }) : route.fulfill({ contentType: 'application/octet-stream', body: b })));
    await page.goto(`${base}page.html`);
  }

  it('draws the file\'s curves and generates live from the model, without training; a top_p moved generates again', async () => {
    await open('<softscope-widget id="w" view="language" model="m.ssm" results="run.json" controls="top_p" prompt="ab"></softscope-widget>',
      { 'run.json': JSON.stringify(file), 'm.ssm': Buffer.from(bytes) });
    await page.waitForFunction(() => document.querySelector('#w')?.shadowRoot?.querySelector('[data-language-status="model"]'), null, { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('#w')?.complete, null, { timeout: 10000 });
    const root = "document.querySelector('#w').shadowRoot";
    const w = await page.$eval('#w', (e) => ({ notices: e.notices, data: e.data }));
    expect(w.notices).toEqual([]);
    // the file's curves and measures; the softpick run's generation is the model's, of this prompt
    expect(w.data.runs.map((r) => r.curve.loss)).toEqual(data.runs.map((r) => r.curve.loss));
    expect(w.data.runs[0].generation).toEqual(data.runs[0].generation);
    expect(w.data.runs[1].generation.prompt).toBe('ab');
    expect(w.data.sel).toBe(1); // (the model's run is shown)
    const text = await generated(root);
    expect(text.startsWith('ab')).toBe(true);
    expect(text.length).toBeGreaterThan(2);
    expect(await page.evaluate(() => window.workers)).toBe(1); // the worker generates; it trains nothing
    expect(await page.evaluate(`${root}.querySelector('[data-step-count]').dataset.stepCount`)).toBe('');
    // the slider of the one control offered
    expect(await page.evaluate(`[...${root}.querySelectorAll('input[type=range]')].map((e) => e.id)`)).toEqual(['language-top_p']);
    await page.evaluate(() => { document.querySelector('#w').state = { stages: { top_p: 0.2 }, genSeed: 3 }; });
    await page.waitForFunction((t) => document.querySelector('#w').shadowRoot.querySelector('[data-generated]')?.textContent !== t, text, { timeout: 10000 });
    expect((await page.$eval('#w', (e) => e.data)).decoding.values.top_p).toBe(0.2);
    expect(await page.evaluate(() => window.workers)).toBe(1);
    expect(errors).toEqual([]);
  });

  it('a hostile or missing model file gives a notice under `model`, never markup; the results still draw', async () => {
    const hostile = Buffer.from(bytes);
    const n = hostile.length;
    hostile.writeFloatLE(NaN, n - 4); // a parameter that is not finite
    await open(['nan', 'short', 'markup', 'missing'].map((id) => `<softscope-widget id="${id}" view="language" model="${id}.ssm" results="run.json" controls="none"></softscope-widget>`).join('\n'),
      { 'run.json': JSON.stringify(file), 'nan.ssm': hostile, 'short.ssm': Buffer.from(bytes.subarray(0, 40)), 'markup.ssm': Buffer.from('<img id="injected" src=x onerror="window.pwned=1">'), 'missing.ssm': null });
    const ids = ['nan', 'short', 'markup', 'missing'];
    await page.waitForFunction((list) => list.every((id) => document.getElementById(id)?.notices?.length > 0), ids, { timeout: 30000 });
    const reasons = { nan: /^softscope\.loadLanguageModel: file has a parameter that is not finite/, short: /^softscope\.loadLanguageModel: file /,
      markup: /^softscope\.loadLanguageModel: file is not a softscope language-model file/, missing: /^could not be fetched: HTTP 404/ };
    for (const id of ids) {
      const got = await page.$eval(`#${id}`, (e) => ({ notices: e.notices, shown: e.shadowRoot.querySelector('.notice')?.textContent ?? '',
        injected: !!e.shadowRoot.querySelector('#injected, img'), status: e.shadowRoot.querySelector('[data-language-status]')?.dataset.languageStatus }));
      expect(got.notices.map((x) => [x.key, x.value]), id).toEqual([['model', `${id}.ssm`]]);
      expect(got.notices[0].reason, id).toMatch(reasons[id]);
      expect(got.shown, id).toContain(`model=${id}.ssm`);
      expect(got.injected, id).toBe(false);
      expect(got.status, id).toBe('results'); // the results file's numbers, drawn without the model
    }
    expect(await page.evaluate(() => window.pwned)).toBe(undefined);
    expect(errors.filter((e) => !/404/.test(e))).toEqual([]);
    errors.length = 0;
  });
});
