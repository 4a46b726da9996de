// The optimizers tab in a real browser: a race from the URL runs to its last
// step and every optimizer ends at the point (x, y, f) the package computes
// in Node for the same setup; a click on the map moves the start there (in
// the URL) and restarts the race; a hyperparameter changed mid-race lands in
// the URL and changes the path from then on; 8 optimizers x 2000 steps run
// to the end (the frame times are printed, not asserted); nothing logs an
// error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/index.js';
import { parseHash, optimState } from '../../web/src/state/url.js';
import { optimizerParams, viewMap, PLOT } from '../../web/src/lib/optimView.js';
import { openPlayground, pageState } from './open-playground.js';

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  ss = await createSoftscope();
  pw = await openPlayground({ width: 1280, height: 1300 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

const finished = (steps) => page.waitForFunction((n) => {
  const s = document.querySelector('[data-playing]');
  return s && s.dataset.playing === '0' && Number(s.dataset.step) === n;
}, steps, { timeout: 30000 });

async function rows() {
  return page.$$eval('[data-run]', (rs) => rs.map((r) => ({ name: r.dataset.run, step: Number(r.dataset.runStep), x: Number(r.dataset.x), y: Number(r.dataset.y), f: Number(r.dataset.f) })));
}

// Node's run of the setup in the page's URL: the final point per optimizer.
async function nodeFinal() {
  const o = optimState(await pageState(page));
  const fn = ss.functions.find((f) => f.name === o.fn);
  return Object.fromEntries(o.list.map((name) => {
    const r = ss.trajectory({ optimizer: name, fn: o.fn, start: o.start ?? fn.start, steps: o.steps, noise: o.noise, clip: o.clip,
      seed: o.seed, schedule: o.schedule, warmup: o.warmup, params: optimizerParams(ss.kernel(name, 'optimizer'), o.params[name]) });
    return [name, r.output[r.output.length - 1]];
  }));
}

describe('optimizers tab in Chromium', () => {
  it('runs the race from the URL to the points the package computes', async () => {
    await page.goto(`${server.url}#panel=optimizers&optim.fn=quadratic&optim.list=sgd,adam,ogda,lion&optim.steps=300&optim.speed=50&optim.noise=0.5&optim.seed=3`);
    await finished(300);
    const got = await rows(), want = await nodeFinal();
    expect(got.map((r) => r.name)).toEqual(['sgd', 'adam', 'ogda', 'lion']);
    for (const r of got) {
      expect(r.step).toBe(300);
      expect([r.x, r.y, r.f], r.name).toEqual(want[r.name]);
    }
  });

  it('a click on the map moves the start there and restarts the race', async () => {
    const box = await page.locator('#optim-map').boundingBox();
    await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.75);
    await finished(300);
    const o = optimState(parseHash(await page.evaluate(() => location.hash)));
    const fn = ss.functions.find((f) => f.name === 'quadratic');
    const [x, y] = viewMap(fn).toXY(PLOT * 0.25, PLOT * 0.75);
    expect(o.start[0]).toBeCloseTo(x, 1);
    expect(o.start[1]).toBeCloseTo(y, 1);
    const got = await rows(), want = await nodeFinal();
    for (const r of got) expect([r.x, r.y, r.f], r.name).toEqual(want[r.name]);
  });

  it('a hyperparameter changed while running lands in the URL and changes the path', async () => {
    await page.goto(`${server.url}#panel=optimizers&optim.fn=rosenbrock&optim.list=sgd,momentum&optim.steps=2000&optim.speed=2&optim.sel=sgd`);
    await page.waitForFunction(() => document.querySelectorAll('[data-run]').length === 2 && Number(document.querySelector('[data-playing]')?.dataset.step) > 20);
    await page.locator('#optim-sgd-lr').focus();
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
    const o = optimState(await pageState(page));
    expect(o.params.sgd.lr).toBeGreaterThan(1e-3);
    // the sgd run no longer follows the default-lr run
    expect(await page.textContent('#optim-play')).toBe('Pause');
    await page.click('#optim-play'); // pause
    const step = Number(await page.getAttribute('[data-playing]', 'data-step'));
    const sgd = (await rows()).find((r) => r.name === 'sgd');
    const plain = ss.trajectory({ optimizer: 'sgd', fn: 'rosenbrock', steps: step });
    expect(sgd.step).toBe(step);
    expect([sgd.x, sgd.y]).not.toEqual(plain.output[step].slice(0, 2));
  });

  it('8 optimizers x 2000 steps run to the end', async () => {
    const list = 'sgd,momentum,nesterov,adam,adabelief,lion,sage,ogda';
    await page.goto(`${server.url}#panel=optimizers&optim.fn=rosenbrock&optim.list=${list}&optim.steps=2000&optim.speed=10`);
    await page.waitForSelector('[data-run]');
    const frames = await page.evaluate(() => new Promise((resolve) => {
      const t = [];
      const tick = (now) => {
        t.push(now);
        const s = document.querySelector('[data-playing]');
        if (s.dataset.playing === '0' || t.length > 2000) resolve(t);
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }));
    await finished(2000);
    const gaps = frames.slice(1).map((v, i) => v - frames[i]).sort((a, b) => a - b);
    console.log(`8 optimizers x 2000 steps: ${frames.length} frames, median ${gaps[gaps.length >> 1].toFixed(1)} ms, p95 ${gaps[Math.floor(gaps.length * 0.95)].toFixed(1)} ms`);
    expect((await rows()).length).toBe(8);
    expect(pageErrors).toEqual([]);
  });
});
