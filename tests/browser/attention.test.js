// The attention tab in a real browser: from a URL, each heat map's pixels
// are white exactly where the package (in Node, same SIMD build) computes a
// zero weight, and its measures are the ones computed there; hovering a row
// draws that row's weights; post-softmax quantization changes the maps to
// the package's quantized rows; at sequence length 256 a slider move
// redraws the maps the package computes (the time of a move is printed, not
// asserted); nothing logs an error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/index.js';
import { parseHash, attnState } from '../../web/src/state/url.js';
import { computePanels } from '../../web/src/lib/attentionView.js';
import { openPlayground, pageState } from './open-playground.js';

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  ss = await createSoftscope();
  pw = await openPlayground({ width: 1280, height: 1400 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

async function nodeView() {
  const st = await pageState(page);
  return computePanels(ss, attnState(st), st.params);
}

// Which cells of a map's canvas are pure white, row-major.
const whiteCells = (id) => page.evaluate((mapId) => {
  const c = document.querySelector(`[data-map="${mapId}"] canvas`);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const out = [];
  for (let t = 0; t < d.length; t += 4) out.push(d[t] === 255 && d[t + 1] === 255 && d[t + 2] === 255);
  return out;
}, id);

describe('attention tab in Chromium', () => {
  it('draws exact zeros as white and shows the measures the package computes', async () => {
    await page.goto(`${server.url}#panel=attention&attn.example=copy&attn.n=40&attn.norms=softmax,sparsemax&attn.linear=galerkin`);
    await page.waitForSelector('[data-map="sparsemax"] canvas');
    const v = await nodeView();
    expect(v.panels.map((p) => p.id)).toEqual(['softmax', 'sparsemax', 'galerkin']);
    for (const p of v.panels) {
      const white = await whiteCells(p.id);
      expect(white.length).toBe(v.n * v.m);
      expect(white, p.id).toEqual(Array.from(p.A, (x) => x === 0));
      const zeros = Number((await page.textContent(`[data-map="${p.id}"] [data-metric="zeros"]`)).replace('%', ''));
      let z = 0;
      for (let i = 0; i < v.n; i++) z += p.rows[4 * i + 1];
      expect(Math.abs(zeros - (100 * z) / v.n)).toBeLessThan(0.05 + 5e-3 * zeros);
    }
    expect(v.panels[1].A.filter((x) => x === 0).length).toBeGreaterThan(v.n * v.m / 2); // sparsemax is sparse
  });

  it('hovering a row draws its weights in every map', async () => {
    const v = await nodeView();
    const box = await page.locator('[data-map="softmax"] canvas').boundingBox();
    const row = 30;
    await page.mouse.move(box.x + box.width / 2, box.y + ((row + 0.5) / v.n) * box.height);
    await page.waitForSelector(`[data-row="${row}"]`);
    for (const p of v.panels) {
      const bars = await page.$$eval(`[data-row-of="${p.id}"] [data-index]`, (bs) => bs.map((b) => Number(b.dataset.value)));
      expect(bars, p.id).toEqual(Array.from(p.A.subarray(row * v.m, (row + 1) * v.m)));
    }
  });

  it('post-softmax quantization shows the quantized rows', async () => {
    await page.selectOption('#attn-quant', 'pow2');
    await page.fill('#attn-bits', '2');
    await page.press('#attn-bits', 'Enter');
    await page.waitForTimeout(400);
    const v = await nodeView();
    expect(parseHash(await page.evaluate(() => location.hash)).attn.quant).toBe('pow2');
    const white = await whiteCells('softmax');
    expect(white).toEqual(Array.from(v.panels[0].A, (x) => x === 0));
    expect(white.some(Boolean)).toBe(true); // 2-bit pow2 rounds weights below max / 8 to 0
  });

  it('stays interactive at sequence length 256', async () => {
    await page.goto(`${server.url}#panel=attention&attn.example=random&attn.n=256&attn.norms=softmax,sparsemax,entmax_bisect`);
    await page.waitForSelector('[data-map="entmax_bisect"] canvas');
    await page.waitForFunction(() => document.querySelector('[data-map="softmax"] canvas')?.width === 256);
    await page.mouse.move(0, 0); // no row hovered (a hovered row adds its bar charts)
    await page.waitForFunction(() => !document.querySelector('[data-row]'));
    // the work of one move: input event -> render, layout effects (the maps
    // drawn) -> the next task; then wait for a frame before the next move
    const work = await page.evaluate(async () => {
      const input = document.querySelector('#attn-scale');
      const out = [];
      for (let i = 0; i < 12; i++) {
        const t0 = performance.now();
        input.value = String(400 + 40 * i);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 0));
        out.push(performance.now() - t0);
        await new Promise((r) => requestAnimationFrame(() => r()));
      }
      return out.slice(2).sort((a, b) => a - b); // the first two warm the JIT up
    });
    console.log(`attention panel at n = 256, 3 normalizers: a scale move takes ${work[work.length >> 1].toFixed(1)} ms (median; max ${work[work.length - 1].toFixed(1)} ms; one frame is 16.7 ms)`);
    const v = await nodeView();
    expect(await whiteCells('sparsemax')).toEqual(Array.from(v.panels[1].A, (x) => x === 0));
    expect(pageErrors).toEqual([]);
  });
});
