// The sampling tab in a real browser: the kept count is the one the package
// computes in Node (scalar build) for the state in the URL, dragging the
// top-p slider (or, in a build without top_p, the temperature slider) changes
// what is kept, the live histogram reaches N draws, the triangle shows M
// Gumbel-Softmax dots (or says the kernel is not in this build), slider moves
// at n = 32000 stay interactive, and nothing logs an error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/index.js';
import { samplingState } from '../../web/src/state/url.js';
import { samplingLogits } from '../../web/src/lib/samplingPresets.js';
import { runPipeline } from '../../web/src/lib/decoding.js';
import { openPlayground, pageState } from './open-playground.js';


let pw, server, page, pageErrors, ss, kernels;

beforeAll(async () => {
  ss = await createSoftscope({ impl: 'scalar' });
  kernels = new Map(ss.kernels('sampler').map((k) => [k.name, k]));
  pw = await openPlayground({ width: 1280, height: 1400 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

const card = () => page.$eval('.decode-card', (c) => ({ ...c.dataset }));
// The state the page shows, read back from its URL, and the kept count Node computes for it.
async function nodeKept() {
  const s = samplingState(await pageState(page));
  return { s, kept: runPipeline(ss, samplingLogits(s), s, kernels).kept };
}
async function dragSlider(sel, from, to) {
  const el = await page.$(sel);
  await el.scrollIntoViewIfNeeded(); // the triangle card sits below the fold
  const box = await el.boundingBox();
  const y = box.y + box.height / 2, at = (t) => box.x + 8 + t * (box.width - 16);
  await page.mouse.move(at(from), y);
  await page.mouse.down();
  await page.mouse.move(at(to), y, { steps: 6 });
  await page.mouse.up();
}

describe('sampling tab in Chromium', () => {
  it('opens from the URL and shows the kept count the package computes', async () => {
    await page.goto(`${server.url}#panel=sampling&sampling.draws=20000`);
    await page.waitForSelector('.decode-card[data-kept]');
    expect(await page.getAttribute('#tab-sampling', 'aria-selected')).toBe('true');
    const { s, kept } = await nodeKept();
    expect(s.n).toBe(32000);
    expect(Number((await card()).kept)).toBe(kept);
    // the large vocabulary is drawn as an aggregated rank plot
    expect(await page.$$eval('[data-chart="rank"] .kept-strip rect', (r) => r.length)).toBeLessThanOrEqual(161);
  });

  it('the live histogram reaches N draws, spread over several frames', async () => {
    await page.waitForFunction(() => {
      const c = document.querySelector('.decode-card');
      return c && c.dataset.drawsDone === c.dataset.drawsTotal;
    }, null, { timeout: 30000 });
    const c = await card();
    expect(c.drawsDone).toBe('20000');
    const tv = Number(c.tv), p = Number(c.chi2P);
    expect(tv).toBeGreaterThan(0);
    expect(tv).toBeLessThan(1);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
    expect(await page.$$eval('[data-chart="rank"] [data-series="empirical"] circle', (d) => d.length)).toBeGreaterThan(20);
  });

  it('dragging the top-p (else the temperature) slider changes what is kept, as the package computes', async () => {
    const before = await card();
    if (kernels.has('top_p')) {
      await dragSlider('#sampling-top_p', 0.9, 0.3);
      await page.waitForFunction((k) => document.querySelector('.decode-card').dataset.kept !== k, before.kept);
      const { s, kept } = await nodeKept();
      expect(s.values.top_p).toBeLessThan(0.6);
      const now = Number((await card()).kept);
      expect(now).toBeLessThan(Number(before.kept));
      expect(now).toBe(kept);
      expect(Number(await page.getAttribute('[data-stage="top_p"]', 'data-stage-kept'))).toBe(now);
    } else {
      // no filter in this build: temperature keeps every token but moves the mass (the drawn curve changes)
      expect(await page.textContent('[data-stage="top_p"]')).toContain('not in this build');
      const curve = () => page.getAttribute('[data-chart="rank"] path[data-series="final"]', 'd');
      const d0 = await curve();
      await dragSlider('#sampling-temperature', 0.57, 0.3);
      await page.waitForFunction((d) => document.querySelector('[data-chart="rank"] path[data-series="final"]').getAttribute('d') !== d, d0);
      const { s, kept } = await nodeKept();
      expect(s.values.temperature).toBeLessThan(0.7);
      expect(Number((await card()).kept)).toBe(kept);
      expect(kept).toBe(32000);
    }
    // a move restarts the draws, which reach N again
    await page.waitForFunction(() => {
      const c = document.querySelector('.decode-card');
      return c.dataset.drawsDone === c.dataset.drawsTotal;
    }, null, { timeout: 30000 });
  });

  it('slider moves at n = 32000 stay interactive', async () => {
    const ms = await page.evaluate(async () => {
      const input = document.querySelector('#sampling-temperature');
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const t0 = performance.now();
      for (let i = 0; i < 10; i++) {
        input.value = String(300 + 30 * i);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
      }
      return (performance.now() - t0) / 10;
    });
    console.log(`sampling panel: ${ms.toFixed(1)} ms per temperature move at n = 32000`);
    expect(ms).toBeLessThan(200);
  });

  it('the triangle shows M Gumbel-Softmax dots (or says the kernel is missing)', async () => {
    await page.goto(`${server.url}#panel=sampling&sampling.preset=planted_peak&sampling.m=250&sampling.tau=0.4`);
    await page.waitForSelector('.simplex-card');
    if (kernels.has('gumbel_softmax')) {
      // goto with only a new hash re-renders on the hashchange event, after
      // the previous test's triangle (M = 300) is already on the page: wait
      // for the new state to land, then check it
      await page.waitForFunction(() => document.querySelectorAll('[data-chart="simplex"] circle[data-dot]').length === 250,
        null, { timeout: 10000 }).catch(() => {});
      expect(await page.$$eval('[data-chart="simplex"] circle[data-dot]', (d) => d.length)).toBe(250);
      // moving τ moves the dots but keeps their number
      // (all dots compared: a single one may sit on a vertex at both τ)
      const where = () => page.$$eval('[data-chart="simplex"] circle[data-dot]', (cs) => cs.map((c) => `${c.getAttribute('cx')},${c.getAttribute('cy')}`).join(' '));
      const p0 = await where();
      await dragSlider('#sampling-tau', 0.4, 0.8);
      await page.waitForFunction((p) => [...document.querySelectorAll('[data-chart="simplex"] circle[data-dot]')]
        .map((c) => `${c.getAttribute('cx')},${c.getAttribute('cy')}`).join(' ') !== p, p0);
      expect(await page.$$eval('[data-chart="simplex"] circle[data-dot]', (d) => d.length)).toBe(250);
    } else {
      expect(await page.textContent('.simplex-card')).toContain('not in this build');
    }
  });

  it('logs no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
