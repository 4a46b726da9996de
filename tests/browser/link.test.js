// A link reproduces its figure exactly. For every view, links that together
// give every key of its schema a value other than its default: the
// playground opened from the link (its JSON and CSV exports), a
// <softscope-widget> with the same state (.data) and `softscope figure
// --state ... --data` (and the package in Node) hold the same numbers, byte
// for byte, on the wasm build the page runs, which the JSON names. A state
// that changes while a race runs (a pasted link, a slider, a widget's
// .state) restarts it, so the exported state regenerates the exported data.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSoftscope } from '../../wasm/api/index.js';
import { VIEWS } from '../../wasm/views/index.js';
import { parse, defaults, stateEntries, hashEntries } from '../../wasm/state/schema.js';
import { renderFigure } from '../../wasm/views/files.js';
import { runCli } from '../js/support/run-cli.js';
import { openPlayground, autoBuild, train } from './open-playground.js';

// Per view, links whose states together move every key of the schema off its
// default (keys that exclude each other, as a preset and edited logits, in
// separate links).
const LINKS = {
  normalizers: [
    'kernels=softmax,sparsemax,entmax_bisect,noisy_softmax&temperature=0.7&preset=two_modes&n=14&seed=5&alpha=1.3&sigma=0.5',
    'kernels=sparsemax,entmax15&logits=2,-1,0.5,-Infinity,1.25,0&temperature=1.5',
  ],
  dispersion: ['kernels=softmax,entmax_bisect,ssmax&margin=2.5&distractor=uniform&scale=1.2&seed=7&nmax=1024&ppo=3&plog=1&alpha=1.4'],
  sampling: [
    'vocab=4096&seed=3&on=temperature,top_k,min_p&temperature=0.8&top_k=40&min_p=0.05&draws=2000&tri=1,0,-0.5&tau=0.5&m=100&relaxed=reinmax&hard=1&target=0,1,0',
    'preset=two_modes&n=12&seed=2&on=top_p,typical&top_p=0.8&typical=0.9&draws=500',
    'logits=1,0.5,-1,2,0,-Infinity&on=temperature&temperature=1.3&draws=300',
  ],
  quantization: ['scheme=adaround&source=attention&n=256&seed=4&log=0&rows=4&logits=1,-2,0.5,3,0,-1&bits=3&iters=50'],
  optimizers: [
    'fn=himmelblau&start=1,-1&kernels=sgd,momentum,adam&sel=momentum&steps=300&speed=7&noise=0.3&clip=5&schedule=cosine&warmup=20&seed=9&sgd.lr=0.002&momentum.lr=0.0005&adam.beta1=0.8',
    // the two links: SGD diverges at the same step everywhere, and the last f is the same
    'sgd.lr=0.01',
    'momentum.lr=0.0005&sgd.lr=0.002',
  ],
  attention: [
    'example=random&n=24&seed=3&scale=0.8&causal=1&normalizers=softmax,entmax15,entmax_bisect&linear=performer,cosformer&rf=performer,trig'
      + '&sinks=softmax,sparsemax&sink_eps=0.4&quant=pow2&row=5&alpha=1.3&performer.features=16&features=16&pow2.bits=3',
  ],
  // the figure before Run: timings are not a link's (the CLI measures; its state and build are compared)
  performance: ['kernels=softmax,sparsemax&n=2048&builds=scalar,js&rounds=3&ms=5'],
  // trained when Train is pressed (the tab's and the widget's in a Web Worker, the CLI's in Node): the same numbers
  experiments: [
    'task=kv_or_none&normalizers=softmax,softpick&trainNorm=0&values=6&keys=12&d=16&heads=1&layers=2&mlp=1&positions=learned&optimizer=sgd'
      + '&sgd.lr=0.1&schedule=constant&warmup=5&steps=60&batch=8&trainMax=12&testMax=32&examples=16&quantizers=uniform,pow2&sel=softpick&mapN=6&seed=3',
    'normalizers=ssmax&ssmax.s=0.5&d=16&heads=1&steps=40&batch=8&testMax=16&examples=16&quantizers=fp8_e4m3',
  ],
  // its keys are held here; its numbers carry training times (seconds, tokens/s) that differ every run, so the
  // tab, the widget and the CLI are compared by tests/browser/language.test.js and the views' tests instead
  language: [
    'corpus=bigram_backcopy&values=16&keys=2&normalizers=softmax,relu_attention&trainNorm=0&d=16&heads=2&layers=1&context=16'
      + '&positions=learned&norm=rmsnorm&tied=0&mlp=0&optimizer=sgd&sgd.lr=0.1&schedule=constant&warmup=5&steps=20&batch=4'
      + '&quantizers=uniform&seed=2&sel=relu_attention&head=1&prompt=ab&length=10&on=temperature,top_k&top_k=5&temperature=0.9&genSeed=3&genStep=1',
    'normalizers=ssmax&ssmax.s=0.5&steps=20&d=16&heads=1&layers=2&layer=1&context=16&batch=4',
  ],
};
// views whose numbers are not a link's alone (see above)
const TIMED = new Set(['language']);

let pw, server, page, ss, build, dir;
let widgetHtml = '';

beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ server, page } = pw);
  build = await autoBuild(page);
  ss = await createSoftscope({ impl: build }); // the build the page and the widgets run
  dir = mkdtempSync(join(tmpdir(), 'softscope-link-'));
  // a host page next to the site's embed/ folder, written by each test
  await page.route('**/link-widget.html', (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: widgetHtml }));
});

afterAll(async () => {
  await pw?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const escAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
const complete = () => page.waitForSelector('[data-view-figure][data-complete="1"]', { timeout: 60000 });

/** The playground opened from a link (a new document, as a pasted address), once its figure is complete. */
async function openLink(id, link) {
  await page.goto('about:blank');
  await page.goto(`${server.url}#view=${id}&${link}`);
  if (id === 'experiments') await train(page); // (its numbers come with Train)
  await complete();
}

/** The text of an export button's download. */
async function exported(label) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: label, exact: true }).click()]);
  const chunks = [];
  for await (const c of await dl.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** A widget with the state of a link, once complete: { data, hash }. */
async function widget(id, link) {
  widgetHtml = `<!doctype html><meta charset="utf-8"><script type="module" src="embed/embed.js"></script>
<softscope-widget id="w" view="${id}" state="${escAttr(link)}" controls="none"></softscope-widget>`;
  await page.goto(`${server.url}link-widget.html`);
  if (id === 'experiments') await train(page, '#w');
  await page.waitForFunction(() => document.getElementById('w')?.complete, null, { timeout: 60000 });
  return page.evaluate(() => ({ data: document.getElementById('w').data, hash: document.getElementById('w').hash }));
}

/** `softscope figure` for a link on the page's build: { json, csv } as written. */
async function cli(id, link) {
  const out = {};
  for (const ext of ['json', 'csv']) {
    const file = join(dir, `${id}.${ext}`);
    const r = await runCli(['figure', id, '--state', link, '--impl', build, '--data', file]);
    expect(r.code, r.err).toBe(0);
    out[ext] = readFileSync(file, 'utf8');
  }
  return out;
}

describe('a link reproduces its figure', () => {
  it('the links give every key of every view a value other than its default', () => {
    for (const v of VIEWS) {
      const d = defaults(v.schema, ss);
      const states = LINKS[v.id].map((l) => {
        const { state, notices } = parse(v.schema, stateEntries(l), ss);
        expect(notices, `${v.id}: ${l}`).toEqual([]);
        return state;
      });
      for (const f of v.schema.fields) {
        const moved = states.some((s) => (f.type === 'params' ? Object.keys(s[f.key]).length > 0 : JSON.stringify(s[f.key]) !== JSON.stringify(d[f.key])));
        expect(moved, `${v.id}.${f.key}`).toBe(true);
      }
    }
  });

  for (const v of VIEWS.filter((x) => !TIMED.has(x.id))) {
    // several links, each opened twice (a race of 2000 steps plays in about 200 frames) and written by the CLI
    it(`${v.id}: the playground, the widget and softscope figure hold the same numbers`, { timeout: 300_000 }, async () => {
      for (const link of LINKS[v.id]) {
        const node = renderFigure(ss, v.id, link);
        expect(node.notices).toEqual([]);
        await openLink(v.id, link);
        const json = await exported('JSON'), csv = await exported('CSV');
        const tab = JSON.parse(json);
        expect(tab.build, link).toBe(build);
        expect(tab.state).toBe(JSON.parse(node.json).state);
        expect(json, `${v.id}: the tab's JSON for ${link}`).toBe(node.json);
        expect(csv, `${v.id}: the tab's CSV for ${link}`).toBe(node.csv);
        const w = await widget(v.id, link);
        expect(w.hash).toBe(tab.state);
        expect(w.data, `${v.id}: the widget's .data for ${link}`).toEqual(tab.data);
        const files = await cli(v.id, link);
        if (v.measure) {
          // the CLI times (the numbers are this machine's); the state and the build are the link's
          expect(JSON.parse(files.json).state).toBe(tab.state);
          expect(JSON.parse(files.json).build).toBe(build);
        } else {
          expect(files.json, `${v.id}: softscope figure --data .json for ${link}`).toBe(json);
          expect(files.csv, `${v.id}: softscope figure --data .csv for ${link}`).toBe(csv);
        }
      }
    });
  }
});

describe('a change while the race runs restarts it: the exported state regenerates the exported data', () => {
  it('a view opened from a link starts from the link\'s state, not from the defaults first', async () => {
    await openLink('dispersion', LINKS.dispersion[0]);
    expect(await page.getAttribute('[data-dispersion-status]', 'data-run')).toBe('1'); // one sweep: the link's
  });


  const regenerates = (json) => {
    const j = JSON.parse(json);
    expect(j.data).toEqual(JSON.parse(renderFigure(ss, j.view, j.state).json).data);
    return j;
  };
  const running = () => page.waitForFunction(() => {
    const s = document.querySelector('[data-playing]');
    return s && s.dataset.playing === '1' && Number(s.dataset.step) > 60;
  }, null, { timeout: 30000 });

  /** The playground at a link, its race past step 60 and running. */
  async function racing(link) {
    await page.goto('about:blank');
    await page.goto(`${server.url}#view=optimizers&${link}`);
    await running();
  }

  it('a link pasted into the address of a running race', async () => {
    await racing('speed=2');
    await page.evaluate(() => { location.hash = '#view=optimizers&speed=50&sgd.lr=0.01'; });
    await complete();
    const j = regenerates(await exported('JSON'));
    expect(j.state).toBe('view=optimizers&speed=50&sgd.lr=0.01');
    expect(j.data.runs[0].divergedAt).toBe(renderFigure(ss, 'optimizers', 'sgd.lr=0.01').data.runs[0].divergedAt);
  });

  it('a hyperparameter moved mid-race', async () => {
    await racing('kernels=sgd,momentum&sel=sgd&speed=2&steps=300');
    await page.locator('#optim-sgd-lr').focus();
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
    await complete();
    const j = regenerates(await exported('JSON'));
    expect(Number(Object.fromEntries(hashEntries(j.state))['sgd.lr'])).toBeGreaterThan(1e-3);
  });

  it("a widget's .state set mid-race", async () => {
    widgetHtml = `<!doctype html><meta charset="utf-8"><script type="module" src="embed/embed.js"></script>
<softscope-widget id="w" view="optimizers" speed="2"></softscope-widget>`;
    await page.goto(`${server.url}link-widget.html`);
    await page.waitForFunction(() => Number(document.getElementById('w')?.shadowRoot?.querySelector('[data-playing]')?.dataset.step) > 60,
      null, { timeout: 30000 });
    await page.evaluate(() => { document.getElementById('w').state = { speed: 50, params: { 'momentum.lr': 0.0005 } }; });
    await page.waitForFunction(() => document.getElementById('w').complete, null, { timeout: 60000 });
    const w = await page.evaluate(() => ({ data: document.getElementById('w').data, hash: document.getElementById('w').hash }));
    expect(w.hash).toBe('view=optimizers&speed=50&momentum.lr=0.0005');
    expect(w.data).toEqual(JSON.parse(renderFigure(ss, 'optimizers', w.hash).json).data);
  });
});

describe('the Embed button', () => {
  it('copies a widget with the state and controls= the controls moved, not every control of the tab', async () => {
    await openLink('normalizers', 'kernels=softmax,sparsemax&temperature=0.5');
    await page.evaluate(() => {
      window.copied = [];
      navigator.clipboard.writeText = async (t) => { window.copied.push(t); };
    });
    const tabInputs = await page.locator('[data-view="normalizers"] input').count();
    await page.locator('#norm-temperature').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    await page.locator('#norm-n').focus();
    await page.keyboard.press('ArrowRight');
    await complete();
    const { state } = JSON.parse(await exported('JSON'));
    await page.getByRole('button', { name: 'Embed', exact: true }).click();
    await page.waitForFunction(() => window.copied.length === 1);
    const snippet = await page.evaluate(() => window.copied[0]);
    expect(snippet).toMatch(/ controls="temperature,n,logits"><\/softscope-widget>$/);
    expect(await page.textContent('button:text-is("Embed") + .export-said')).toContain('controls="temperature,n,logits"');
    // the snippet in a page: the widget draws the tab's state with those controls only
    widgetHtml = `<!doctype html><meta charset="utf-8">${snippet.replace('<softscope-widget ', '<softscope-widget id="w" ')}`;
    await page.goto(`${server.url}link-widget.html`);
    await page.waitForFunction(() => document.getElementById('w')?.complete, null, { timeout: 60000 });
    const w = await page.evaluate(() => {
      const el = document.getElementById('w');
      const q = (s) => el.shadowRoot.querySelectorAll(s);
      return { hash: el.hash, inputs: q('input').length, checkboxes: q('input[type="checkbox"]').length,
        ids: [...q('input[id]')].map((e) => e.id) };
    });
    expect(w.hash).toBe(state);
    expect(w.ids).toEqual(expect.arrayContaining(['norm-temperature', 'norm-n']));
    expect(w.checkboxes).toBe(0);
    expect(tabInputs).toBeGreaterThan(20);
    expect(w.inputs).toBeLessThanOrEqual(3);
  });
});
