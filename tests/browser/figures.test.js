// One figure, two renderers: for each view and a state, the figure Chromium
// draws in the playground and the SVG `softscope figure` renders in Node
// carry the same numbers (every data-value, in document order). Both run the
// same wasm build (the one 'auto' picks in Chromium: relaxed SIMD), so the
// numbers are equal, not just close.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { view, parse, stateEntries } from '../../wasm/views/index.js';
import { figureFiles } from '../../wasm/views/files.js';
import { parseXml } from '../js/support/xml.js';
import { openPlayground, autoBuild } from './open-playground.js';

// A state per view (each a link of that view); AdaRound's layer and the
// attention's error maps and heads have their own.
const CASES = [
  ['normalizers', 'kernels=softmax,sparsemax,entmax15,sa_softmax&logits=2,1,0.1,-1,-Infinity&temperature=0.7'],
  ['dispersion', 'kernels=softmax,sparsemax,entmax15&nmax=4096&margin=2'],
  ['sampling', 'preset=planted_peak&n=24&draws=2000&on=temperature,top_k,top_p&top_k=8'],
  ['quantization', 'scheme=pow2&source=attention&n=256'],
  ['quantization', 'scheme=adaround&n=256&rows=6&iters=300'],
  ['optimizers', 'fn=himmelblau&kernels=sgd,adam,lion&steps=300'],
  ['attention', 'example=sentence&normalizers=softmax,sparsemax&linear=performer'],
  ['attention', 'example=random&n=24&scale=0.5&normalizers=softmax&features=64&sinks=softmax,softpick,sparsemax'],
];

let pw, page, errors, ss;
beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = pw);
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the page runs
});
afterAll(async () => { await pw?.close(); });

describe('figures in Chromium and in Node', () => {
  it.each(CASES)('%s: the same data-values', async (id, link) => {
    await page.goto(`${pw.server.url}#view=${id}&${link}`);
    await page.waitForSelector(`[data-view-figure="${id}"][data-complete="1"] svg`, { timeout: 30000 });
    const inPage = await page.$$eval(`[data-view-figure="${id}"] svg [data-value]`, (els) => els.map((e) => e.getAttribute('data-value')));
    const v = view(id);
    const { state, notices } = parse(v.schema, stateEntries(link), ss);
    expect(notices).toEqual([]);
    // the playground draws the normalizers' logits in its editor, not in the figure
    const { svg } = figureFiles(ss, v, state, v.compute(ss, state), { input: id !== 'normalizers' });
    const inNode = parseXml(svg).filter((e) => e.attrs['data-value'] !== undefined).map((e) => e.attrs['data-value']);
    expect(inPage.length).toBeGreaterThan(5);
    expect(inPage).toEqual(inNode);
    expect(errors).toEqual([]);
  });
});
