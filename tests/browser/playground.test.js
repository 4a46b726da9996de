// The playground in a real browser: the charts show exactly the numbers the
// kernels compute (recomputed here in Node by the scalar wasm build), bar
// heights are proportional to those numbers, and dragging a logit bar
// updates the charts live, before the mouse is released.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { openPlayground } from './open-playground.js';

// float32 kernels, SIMD in the browser vs scalar here: agreement is at float32
// rounding (~1e-7 relative on values <= 1); 1e-6 absolute is the stated bound.
const TOL = 1e-6;
const LOGITS = [1.5, -0.25, 0.75, 2, -1, 0.125, 3, -2.5, 0, 1, -0.5, 2.25];
const TEMPERATURE = 0.5;
const KERNELS = ['softmax', 'sparsemax'];

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  ss = await createSoftscope({ impl: 'scalar' });
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

// Every normalizer of the view sees x / T.
const expected = (kernel, logits, T = TEMPERATURE) => Array.from(ss.normalize(kernel, Float32Array.from(logits, (v) => v / T)));

/** [{ index, value, height }] of one kernel's chart, in index order. */
function readBars(kernel) {
  return page.$$eval(`[data-view-figure] g[data-bars="${kernel}"] rect[data-index]`, (rects) =>
    rects
      .map((r) => ({ index: Number(r.dataset.index), value: Number(r.dataset.value), height: r.getBoundingClientRect().height }))
      .sort((a, b) => a.index - b.index),
  );
}
const readLogits = () =>
  page.$$eval('rect[data-logit-index]', (rects) =>
    rects.sort((a, b) => a.dataset.logitIndex - b.dataset.logitIndex).map((r) => Number(r.dataset.logitValue)));

function expectChartMatches(bars, want) {
  expect(bars.map((b) => b.index)).toEqual(want.map((_, i) => i));
  for (let i = 0; i < want.length; i++) {
    expect(Math.abs(bars[i].value - want[i]), `value at ${i}: shown ${bars[i].value}, kernel ${want[i]}`).toBeLessThanOrEqual(TOL);
  }
  // Heights proportional to values (to |value| for log-probabilities, drawn
  // down from 0): one pixels-per-unit factor fits every bar to within a small
  // fraction of a pixel.
  const mag = bars.map((b) => Math.abs(b.value));
  const k = bars.reduce((a, b, i) => a + b.height * mag[i], 0) / mag.reduce((a, m) => a + m * m, 0);
  expect(k * Math.max(...mag)).toBeGreaterThan(40); // the tallest bar is clearly visible
  bars.forEach((b, i) => expect(Math.abs(b.height - k * mag[i]), `height at ${b.index}`).toBeLessThan(0.05));
}

describe('playground in Chromium', () => {
  it('shows the kernels\' numbers for a state given in the URL', async () => {
    const hash = `#view=normalizers&logits=${LOGITS.join(',')}&kernels=${KERNELS.join(',')}&temperature=${TEMPERATURE}`;
    await page.goto(server.url + hash);
    for (const kernel of KERNELS) {
      // the link's state drawn (not a first frame of another state): its number of bars
      await page.waitForFunction(([k, n]) => document.querySelectorAll(`[data-view-figure] g[data-bars="${k}"] rect[data-index]`).length === n, [kernel, LOGITS.length]);
      const bars = await readBars(kernel);
      const want = expected(kernel, LOGITS);
      expectChartMatches(bars, want);
      // A lower temperature sharpens: the charts really differ.
    }
    // T = 0.5 sharpens: the shown softmax is not the one at T = 1.
    const soft = await readBars('softmax');
    expect(Math.max(...soft.map((b) => b.value))).toBeGreaterThan(Math.max(...expected('softmax', LOGITS, 1)) + 0.1);

    // The metrics under a chart are the registry's measures of what is drawn.
    const have = new Set(ss.kernels('measure').map((k) => k.name));
    if (have.has('entropy')) {
      const shown = Number(await page.textContent('[data-output="softmax"] [data-metric="entropy"]'));
      const want = ss.measure('entropy', Float32Array.from(expected('softmax', LOGITS)));
      expect(Math.abs(shown - want)).toBeLessThanOrEqual(5e-4 * Math.abs(want)); // shown with 4 significant digits
    }
    if (have.has('support')) {
      expect(Number(await page.textContent('[data-output="softmax"] [data-metric="support"]'))).toBe(LOGITS.length);
    }
    // The temperature slider shows the value from the URL.
    expect(Number(await page.getAttribute('#norm-temperature', 'aria-valuetext'))).toBe(TEMPERATURE);
    expect(pageErrors).toEqual([]);
  });

  it('dragging a logit bar updates the charts live and the URL', async () => {
    const j = 1;
    const before = await readLogits();
    expect(before).toEqual(LOGITS);
    const box = await (await page.$(`rect[data-logit-index="${j}"]`)).boundingBox();
    const x = box.x + box.width / 2;
    const y = box.y + 1; // the top edge of a negative bar is the zero line
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x, y - 40, { steps: 6 });

    // Still holding the button: the charts already show the new vector.
    const during = await readLogits();
    expect(during[j]).toBeGreaterThan(before[j] + 1);
    expect(during.filter((_, i) => i !== j)).toEqual(before.filter((_, i) => i !== j));
    for (const kernel of KERNELS) expectChartMatches(await readBars(kernel), expected(kernel, during));

    await page.mouse.move(x, y - 60, { steps: 3 });
    await page.mouse.up();
    const after = await readLogits();
    expect(after[j]).toBeGreaterThan(during[j]);
    for (const kernel of KERNELS) expectChartMatches(await readBars(kernel), expected(kernel, after));

    // The URL hash follows (throttled) and marks the vector as edited.
    await page.waitForFunction((v) => new URLSearchParams(location.hash.slice(1)).get('logits') === v, after.join(','));
    const q = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    expect(q.get('preset')).toBe('custom');
    expect(q.get('view')).toBe('normalizers');
    expect(q.get('kernels')).toBe(KERNELS.join(','));
    expect(Number(q.get('temperature'))).toBe(TEMPERATURE);
    expect(pageErrors).toEqual([]);
  });

  it('keyboard edits, the temperature slider and the normalizer chooser drive the charts', async () => {
    const before = await readLogits();
    await page.focus('[data-editor="logits"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
    const edited = await readLogits();
    expect(edited[2]).toBeCloseTo(before[2] + 0.3, 9);
    for (const kernel of KERNELS) expectChartMatches(await readBars(kernel), expected(kernel, edited));

    // The temperature slider feeds every normalizer (x / T).
    await page.focus('#norm-temperature');
    for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(50);
    const t = Number(await page.getAttribute('#norm-temperature', 'aria-valuetext'));
    expect(t).toBeGreaterThan(TEMPERATURE);
    for (const kernel of KERNELS) expectChartMatches(await readBars(kernel), expected(kernel, edited, t));

    // Adding log_softmax draws log-probabilities (all <= 0) equal to the kernel's.
    await page.check('input[data-kernel="log_softmax"]');
    await page.waitForSelector('[data-view-figure] g[data-bars="log_softmax"]');
    const logBars = await readBars('log_softmax');
    expect(logBars.every((b) => b.value <= 0)).toBe(true);
    expectChartMatches(logBars, expected('log_softmax', edited, t));
    await page.uncheck('input[data-kernel="softmax"]');
    await page.waitForFunction(() => !document.querySelector('[data-view-figure] g[data-bars="softmax"]'));
    expect(pageErrors).toEqual([]);
  });
});
