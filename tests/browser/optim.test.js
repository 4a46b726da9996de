// The Optimizers view in a real browser: a race from the link runs to its
// last step and every optimizer ends at the point (x, y, f) the package
// computes in Node for the same state, and the figure draws the same numbers
// as the one Node renders; a press on the map moves the start there (in the
// link) and restarts the race, and so do the arrow keys on the start ring; a
// hyperparameter changed mid-race lands in the link and restarts the race
// with it (tests/browser/link.test.js: the race is then its link's); 8 optimizers x 2000 steps run to the end (the frame times are
// printed, not asserted); nothing logs an error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { parse } from '../../wasm/state/schema.js';
import { renderFigure } from '../../wasm/views/files.js';
import { optimizers as view } from '../../wasm/views/optimizers/index.js';
import { compute } from '../../wasm/views/optimizers/model.js';
import { openPlayground, pageState, figureValues, autoBuild } from './open-playground.js';

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1300 });
  ({ server, page, errors: pageErrors } = pw);
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the page runs
});

afterAll(async () => {
  await pw?.close();
});

const finished = (steps) => page.waitForFunction((n) => {
  const s = document.querySelector('[data-playing]');
  return s && s.dataset.playing === '0' && Number(s.dataset.step) === n;
}, steps, { timeout: 30000 });

const rows = () => page.$$eval('[data-view-figure] [data-run]', (rs) => rs.map((r) => ({
  name: r.dataset.run, step: Number(r.dataset.runStep), x: Number(r.dataset.x), y: Number(r.dataset.y), f: Number(r.dataset.f) })));

// The page's state as the link says, and Node's race for it.
async function nodeRace() {
  const st = await pageState(page);
  const { state } = parse(view.schema, Object.entries(st), ss, { ignore: ['view'] });
  return { st, state, data: compute(ss, state) };
}

const dataValues = (svg) => [...svg.matchAll(/data-metric="[^"]*" data-value="([^"]*)"/g)].map((m) => m[1]);

describe('optimizers view in Chromium', () => {
  it('runs the race from the link to the points the package computes, and draws the same numbers', async () => {
    await page.goto(`${server.url}#view=optimizers&fn=quadratic&kernels=sgd,adam,ogda,lion&steps=300&speed=50&noise=0.5&seed=3`);
    await finished(300);
    const got = await rows(), { st, data } = await nodeRace();
    expect(got.map((r) => r.name)).toEqual(['sgd', 'adam', 'ogda', 'lion']);
    for (const r of got) {
      const want = data.runs.find((w) => w.name === r.name);
      expect(r.step).toBe(300);
      expect([r.x, r.y, r.f], r.name).toEqual(want.path[300]);
    }
    // the figure Node renders for this link carries the same numbers
    const node = renderFigure(ss, 'optimizers', new URLSearchParams(st).toString());
    expect(await figureValues(page, '[data-metric]')).toEqual(dataValues(node.svg));
    // and the same heat map, byte for byte (the PNG is written by the same code)
    expect(await page.getAttribute('[data-view-figure] [data-heat]', 'href')).toBe(node.svg.match(/<image href="([^"]*)"[^>]*data-heat="quadratic"/)[1]);
  });

  it('a press on the map moves the start there and restarts the race', async () => {
    const box = await page.locator('[data-view-figure] [data-map-input]').boundingBox();
    await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.75);
    await finished(300);
    const { state, data } = await nodeRace();
    const [x0, x1, y0, y1] = data.fn.view;
    expect(state.start[0]).toBeCloseTo(x0 + 0.25 * (x1 - x0), 1);
    expect(state.start[1]).toBeCloseTo(y1 - 0.75 * (y1 - y0), 1);
    for (const r of await rows()) expect([r.x, r.y, r.f], r.name).toEqual(data.runs.find((w) => w.name === r.name).path[300]);
  });

  it('the arrow keys move the start ring, and the race restarts from there', async () => {
    const before = (await nodeRace()).state.start;
    await page.focus('[data-view-figure] [data-start]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await finished(300);
    const { state, data } = await nodeRace();
    const [x0, x1, y0, y1] = data.fn.view;
    expect(state.start[0]).toBeCloseTo(before[0] + 0.02 * (x1 - x0), 2);
    expect(state.start[1]).toBeCloseTo(before[1] - 0.02 * (y1 - y0), 2);
    for (const r of await rows()) expect([r.x, r.y, r.f], r.name).toEqual(data.runs.find((w) => w.name === r.name).path[300]);
  });

  it('a hyperparameter changed while running lands in the link and runs the race again with it', async () => {
    await page.goto(`${server.url}#view=optimizers&fn=rosenbrock&kernels=sgd,momentum&steps=2000&speed=2&sel=sgd`);
    await page.waitForFunction(() => document.querySelectorAll('[data-view-figure] [data-run]').length === 2
      && Number(document.querySelector('[data-playing]')?.dataset.step) > 20);
    await page.locator('#optim-sgd-lr').focus();
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
    const { st } = await nodeRace();
    expect(Number(st['sgd.lr'])).toBeGreaterThan(1e-3);
    expect(await page.textContent('#optim-play')).toBe('Pause'); // the new race plays
    await page.click('#optim-play');
    const step = Number(await page.getAttribute('[data-playing]', 'data-step'));
    const sgd = (await rows()).find((r) => r.name === 'sgd');
    const plain = ss.trajectory({ optimizer: 'sgd', fn: 'rosenbrock', steps: step });
    expect(sgd.step).toBe(step);
    expect([sgd.x, sgd.y]).not.toEqual(plain.output[step].slice(0, 2));
  });

  it('8 optimizers x 2000 steps run to the end', async () => {
    const list = 'sgd,momentum,nesterov,adam,adabelief,lion,sage,ogda';
    await page.goto(`${server.url}#view=optimizers&fn=rosenbrock&kernels=${list}&steps=2000&speed=10`);
    await page.waitForSelector('[data-view-figure] [data-run]');
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
