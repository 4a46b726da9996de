// The dispersion tab in a real browser: the three charts show the sweep the
// package computes (recomputed here in Node by the scalar build), dragging
// the margin slider reruns it while the button is still held (sparsemax's
// support falls from n to 1 as the margin crosses 1), hovering reads out one
// n, a 2^20 sweep is spread over many animation frames, and nothing logs an
// error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { dispersionSweep } from '../../wasm/analysis/index.js';
import { openPlayground } from './open-playground.js';

// SIMD in the browser vs scalar here, float32 outputs: probabilities agree to
// 1e-6 absolute + 1e-5 relative, entropies to 1e-5 * max(1, H); supports
// exactly (constant distractors leave no entry near a threshold).
const close = (a, b, abs, rel) => Math.abs(a - b) <= abs + rel * Math.abs(b) || (Number.isNaN(a) && Number.isNaN(b));

let pw, server, page, pageErrors, ss, names;

beforeAll(async () => {
  ss = await createSoftscope({ impl: 'scalar' });
  const have = new Set(ss.kernels('normalizer').map((k) => k.name));
  names = ['softmax', 'sparsemax', 'ssmax'].filter((n) => have.has(n));
  if (names.length < 2) names.push('softmax_temperature');
  pw = await openPlayground({ width: 1280, height: 1100 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

const NMAX = 2 ** 16;
const expected = (margin) => dispersionSweep(ss, { normalizers: names, nMax: NMAX, margin, distractor: { kind: 'constant' }, pointsPerOctave: 2 });

const status = () => page.$eval('[data-dispersion-status]', (s) => ({ ...s.dataset }));
async function waitDone(afterRun = -1) {
  await page.waitForFunction((r) => {
    const s = document.querySelector('[data-dispersion-status]');
    return s && s.dataset.dispersionStatus === 'done' && Number(s.dataset.run) > r;
  }, afterRun, { timeout: 30000 });
}
/** { [series]: { [metric]: number[] } } as drawn. */
const readDrawn = () => page.$$eval('[data-view-figure] [data-chart] path[data-series][data-metric]', (paths) => {
  const out = {};
  for (const p of paths) (out[p.dataset.series] ??= {})[p.dataset.metric] = p.getAttribute('data-value').split(',').map(Number);
  return out;
});

function expectDrawnMatches(drawn, want) {
  for (const s of want.series) {
    const d = drawn[s.name];
    expect(d, s.name).toBeTruthy();
    s.keyProb.forEach((v, j) => {
      const at = `${s.name} n=${want.n[j]}`;
      expect(close(d.keyProb[j], v, 1e-6, 1e-5), `${at} key ${d.keyProb[j]} vs ${v}`).toBe(true);
      expect(close(d.maxProb[j], s.maxProb[j], 1e-6, 1e-5), `${at} max`).toBe(true);
      expect(close(d.entropy[j], s.entropy[j], 1e-5, 1e-5), `${at} entropy ${d.entropy[j]} vs ${s.entropy[j]}`).toBe(true);
      expect(d.support[j], `${at} support`).toBe(s.support[j]);
    });
  }
}

describe('dispersion tab in Chromium', () => {
  it('shows the sweep for a state given in the URL', async () => {
    await page.goto(`${server.url}#view=dispersion&kernels=${names.join(',')}&margin=0.5&distractor=constant&nmax=${NMAX}&ppo=2`);
    await waitDone();
    expect(await page.getAttribute('#tab-dispersion', 'aria-selected')).toBe('true');
    expect(await page.$$eval('[data-view-figure] g[data-chart]', (c) => c.map((e) => e.dataset.chart))).toEqual(['probability', 'entropy', 'support']);
    const drawn = await readDrawn();
    expectDrawnMatches(drawn, expected(0.5));
    // the curves are drawn, not just attributes: a path per series and metric with one point per n
    const d = await page.getAttribute('[data-chart="entropy"] path[data-series="softmax"]', 'd');
    expect(d.match(/[ML]/g)).toHaveLength(expected(0.5).n.length);
    if (names.includes('sparsemax')) expect(drawn.sparsemax.support).toEqual(expected(0.5).n); // margin < 1: everything
    expect(pageErrors).toEqual([]);
  });

  it('dragging the margin slider reruns the sweep before the button is released', async () => {
    const before = await readDrawn();
    const run0 = Number((await status()).run);
    await page.locator('#dispersion-margin').scrollIntoViewIfNeeded();
    const box = await (await page.$('#dispersion-margin')).boundingBox();
    const at = (m) => box.x + 8 + ((box.width - 16) * (m + 4)) / 16; // thumb centre for margin m on [-4, 12]
    const y = box.y + box.height / 2;
    await page.mouse.move(at(0.5), y);
    await page.mouse.down();
    await page.mouse.move(at(2.5), y, { steps: 8 });
    // still held: a newer run is done and the charts show it
    await waitDone(run0);
    const margin = Number(await page.getAttribute('#dispersion-margin', 'aria-valuetext'));
    expect(margin).toBeGreaterThan(1.5);
    const during = await readDrawn();
    expect(during.softmax.keyProb).not.toEqual(before.softmax.keyProb);
    expect(during.softmax.keyProb[0]).toBeGreaterThan(before.softmax.keyProb[0]);
    expect(Number((await status()).run)).toBeGreaterThan(run0 + 1); // several runs while moving (stale ones cancelled)
    await page.mouse.up();
    await waitDone(Number((await status()).run) - 1);
    const final = Number(await page.getAttribute('#dispersion-margin', 'aria-valuetext'));
    await page.waitForFunction(() => document.querySelector('[data-dispersion-status]').dataset.dispersionStatus === 'done');
    const drawn = await readDrawn();
    expectDrawnMatches(drawn, expected(final));
    if (names.includes('sparsemax')) expect(drawn.sparsemax.support.every((v) => v === 1)).toBe(true); // margin >= 1: the key alone
    // the URL follows
    await page.waitForFunction((m) => new URLSearchParams(location.hash.slice(1)).get('margin') === String(m), final);
    expect(pageErrors).toEqual([]);
  });

  it('hovering a chart reads out that n in every chart', async () => {
    await page.locator('[data-chart="entropy"]').scrollIntoViewIfNeeded();
    const box = await (await page.$('[data-chart="entropy"]')).boundingBox();
    await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2);
    await page.waitForSelector('[data-chart="support"] [data-hover-n]', { state: 'attached' });
    const n = Number(await page.getAttribute('[data-readout-n]', 'data-readout-n'));
    expect(n).toBeLessThan(NMAX);
    expect(n).toBeGreaterThan(2);
    expect(Number(await page.getAttribute('[data-chart="probability"] [data-hover-n]', 'data-hover-n'))).toBe(n);
    const want = expected(Number(await page.getAttribute('#dispersion-margin', 'aria-valuetext')));
    const j = want.n.indexOf(n);
    const shown = Number((await page.textContent('[data-readout="softmax"] [data-value="support"]')).replace(/,/g, ''));
    expect(shown).toBe(want.series[0].support[j]);
    await page.mouse.move(5, 5);
    await page.waitForFunction(() => !document.querySelector('[data-hover-n]'));
    expect(pageErrors).toEqual([]);
  });

  it('a sweep to 2^20 is spread over animation frames (the page stays responsive)', async () => {
    const timings = {};
    // Per kernel: 2^16, 2^20 (the first gaussian run draws the 2^20 distractors),
    // then 2^20 again with another margin (what a slider move costs).
    for (const kernel of names.slice(0, 2)) {
      for (const [nmax, margin] of [[2 ** 16, 3], [2 ** 20, 3], [2 ** 20, 3.5]]) {
        const run0 = Number((await status()).run);
        // rAF timestamps while the sweep runs: the longest gap is the longest the page was blocked.
        await page.evaluate(() => {
          window.__gaps = [];
          let last = performance.now();
          const tick = (t) => { window.__gaps.push(t - last); last = t; if (window.__gaps.length < 100000) window.__raf = requestAnimationFrame(tick); };
          window.__raf = requestAnimationFrame(tick);
        });
        await page.evaluate(([k, n, m]) => {
          location.hash = `view=dispersion&kernels=${k}&nmax=${n}&ppo=1&margin=${m}&seed=77`;
        }, [kernel, nmax, margin]);
        await waitDone(run0);
        const s = await status();
        const gaps = await page.evaluate(() => { cancelAnimationFrame(window.__raf); return window.__gaps; });
        timings[`${kernel} 2^${Math.log2(nmax)} m=${margin}`] = { computeMs: Number(Number(s.computeMs).toFixed(1)), wallMs: Number(Number(s.wallMs).toFixed(1)),
          frames: Number(s.frames), maxFrameGapMs: Number(Math.max(...gaps).toFixed(1)) };
        // Sliced: no frame carries much more than the 10 ms budget plus one cell
        // (a cell at 2^20 is a few ms of wasm), so the page never freezes.
        expect(Number(s.frames), kernel).toBeGreaterThanOrEqual(Math.ceil(Number(s.computeMs) / 60));
        expect(Math.max(...gaps), `${kernel}: longest frame gap`).toBeLessThan(250);
        expect(Number(s.total)).toBe(Math.log2(nmax));
      }
    }
    console.log('dispersion sweep timings (Chromium, wasm SIMD):', JSON.stringify(timings));
    expect(pageErrors).toEqual([]);
  });
});
