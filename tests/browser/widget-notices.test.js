// What a widget cannot use, in Chromium (the embed bundle, wasm/dist/embed):
// a link value or attribute that is ignored falls back to its default, the
// figure is drawn, and the widget lists it in a notice (`.notices`, the
// shadow root's .notice, a softscope-notice event): kernels="sofmax",
// attention's normalizers="nope", controls="tempreature", height="abc",
// theme="purple", and .state assigned an unknown key or a bad value (which
// keep their current values).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from '../../wasm/api/index.js';
import { view, parse, defaults } from '../../wasm/views/index.js';
import { hashEntries } from '../../wasm/state/schema.js';
import { plain } from '../../wasm/views/data.js';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium, autoBuild, pageErrors } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let ss, repo, browser, page, errors;

// A page of the repository's server holding `body` and the embed script; it
// records every softscope-notice event (window.noticed).
async function open(body) {
  const url = `${repo.url}widget-notices.html`;
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><body>
<script>window.noticed = []; addEventListener('softscope-notice', (e) => noticed.push({ id: e.target.id, ...e.detail }));</script>
${body}
<script type="module" src="/wasm/dist/embed/embed.js"></script></body></html>` }));
  await page.goto(url);
  await page.waitForFunction(() => [...document.querySelectorAll('softscope-widget')].every((e) => e.complete), null, { timeout: 30000 });
}

const widget = (id) => page.$eval(`#${id}`, (e) => ({
  view: e.view, hash: e.hash, data: e.data, notices: e.notices, state: e.state,
  shown: e.shadowRoot.querySelector('.notice')?.textContent ?? null,
  figure: !!e.shadowRoot.querySelector('[data-view-figure] svg'),
  theme: e.shadowRoot.querySelector('.widget')?.dataset.theme,
  controls: e.shadowRoot.querySelectorAll('input, select').length,
}));

beforeAll(async () => {
  if (!existsSync(`${ROOT}/wasm/dist/embed/embed.js`)) throw new Error('wasm/dist/embed/embed.js is missing: run `make embed` first');
  [repo, browser] = await Promise.all([serveStatic(ROOT), launchChromium({ width: 1000, height: 900 })]);
  page = browser.page;
  errors = pageErrors(page);
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the widgets run
});
afterAll(async () => Promise.all([browser?.close(), repo?.close()]));

describe('a widget lists what it ignored, and draws its figure', () => {
  it('unknown names keep the default list: the figure is the default one', async () => {
    await open(`<softscope-widget id="n" view="normalizers" kernels="sofmax"></softscope-widget>
      <softscope-widget id="a" view="attention" normalizers="nope" controls="none"></softscope-widget>`);
    for (const [id, key, value] of [['n', 'kernels', 'sofmax'], ['a', 'normalizers', 'nope']]) {
      const w = await widget(id);
      const v = view(w.view);
      const d = defaults(v.schema, ss);
      expect(w.state[key], id).toEqual(d[key]);
      expect(w.figure, id).toBe(true);
      expect(w.data, id).toEqual(plain(v.compute(ss, d)));
      expect(w.notices, id).toEqual([{ key, value, reason: `unknown: ${value}` }]);
      expect(w.shown, id).toContain(`${key}=${value}`);
    }
    expect(await page.evaluate(() => window.noticed.map((n) => [n.id, n.notices.map((x) => x.key)]))).toEqual([['n', ['kernels']], ['a', ['normalizers']]]);
    expect(errors).toEqual([]);
  });

  it('controls, height and theme that cannot be used fall back to their defaults, each with a notice', async () => {
    await open(`<softscope-widget id="c" view="normalizers" controls="tempreature"></softscope-widget>
      <softscope-widget id="h" view="normalizers" controls="none" height="abc" theme="purple"></softscope-widget>
      <softscope-widget id="all" view="normalizers"></softscope-widget>
      <softscope-widget id="ok" view="normalizers" controls="temperature,alpha" height="300px" theme="dark"></softscope-widget>`);
    const [c, h, all, ok] = await Promise.all(['c', 'h', 'all', 'ok'].map(widget));
    expect(c.notices).toEqual([{ key: 'controls', value: 'tempreature', reason: 'unknown: tempreature' }]);
    expect(c.shown).toContain('controls=tempreature');
    expect(c.controls).toBe(all.controls); // all of them, the default
    expect(h.notices.map((n) => [n.key, n.value])).toEqual([['height', 'abc'], ['theme', 'purple']]);
    expect(h.shown).toContain('height=abc');
    expect(h.shown).toContain('theme=purple');
    expect(h.figure).toBe(true);
    expect(['light', 'dark']).toContain(h.theme);
    expect(all.notices).toEqual([]);
    expect(all.shown).toBe(null);
    expect(ok.notices).toEqual([]);
    expect(ok.theme).toBe('dark');
    expect(await page.evaluate(() => window.noticed.map((n) => n.id))).toEqual(['c', 'h']);
    expect(errors).toEqual([]);
  });

  it('.state with an unknown key or a bad value: the rest applies, those keep their values, a notice and an event name them', async () => {
    await open('<softscope-widget id="s" view="normalizers" temperature="0.5"></softscope-widget>');
    const before = await widget('s');
    await page.evaluate(() => {
      window.noticed = [];
      document.getElementById('s').state = { tempreature: 2, temperature: 'abc', kernels: ['softmax', 'entmax15'] };
    });
    await page.waitForFunction(() => window.noticed.length > 0);
    const events = await page.evaluate(() => window.noticed);
    const reasons = { tempreature: 'not a setting of this view', temperature: 'not a number' };
    const expected = [{ key: 'tempreature', value: '2', reason: reasons.tempreature }, { key: 'temperature', value: 'abc', reason: reasons.temperature }];
    expect(events).toEqual([{ id: 's', view: 'normalizers', notices: expect.arrayContaining(expected) }]);
    await page.waitForFunction((h) => document.getElementById('s').hash !== h && document.getElementById('s').complete, before.hash);
    const w = await widget('s');
    expect(w.state.temperature).toBe(0.5); // kept
    expect(w.state.kernels).toEqual(['softmax', 'entmax15']); // applied
    expect(w.notices).toEqual(expect.arrayContaining(expected));
    expect(w.notices).toHaveLength(2);
    expect(w.shown).toContain('tempreature=2');
    expect(w.shown).toContain('temperature=abc');
    const v = view('normalizers');
    expect(w.data).toEqual(plain(v.compute(ss, parse(v.schema, hashEntries(w.hash), ss, { ignore: ['view'] }).state)));
    // a clean assignment clears the notice; a link (a string) is the state attribute
    await page.evaluate(() => { document.getElementById('s').state = { temperature: 2 }; });
    await page.waitForFunction(() => document.getElementById('s').state?.temperature === 2 && document.getElementById('s').complete);
    expect((await widget('s')).notices).toEqual([]);
    await page.evaluate(() => { document.getElementById('s').state = '#view=normalizers&kernels=sparsemax'; });
    await page.waitForFunction(() => document.getElementById('s').hash === 'view=normalizers&kernels=sparsemax' && document.getElementById('s').complete);
    expect(errors).toEqual([]);
  });

  it('.state assigned before the widget has drawn is applied when it has, with its notice', async () => {
    await open('');
    await page.evaluate(() => {
      const el = document.createElement('softscope-widget');
      el.id = 'early';
      el.state = { temperature: 4, bogus: 1 };
      document.body.append(el);
    });
    await page.waitForFunction(() => document.getElementById('early').state?.temperature === 4 && document.getElementById('early').complete, null, { timeout: 30000 });
    const w = await widget('early');
    expect(w.notices).toEqual([{ key: 'bogus', value: '1', reason: 'not a setting of this view' }]);
    expect(await page.evaluate(() => window.noticed.map((n) => [n.id, n.notices.map((x) => x.key)]))).toEqual([['early', ['bogus']]]);
    expect(errors).toEqual([]);
  });
});
